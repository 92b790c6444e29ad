"""Weights file version 3 (the 12 extra short-nardy inputs, nardy.evaluate's
_short_extras and _shots), under CPython and MicroPython: the extras equal their
definition written out plainly, the integer net equals a plain re-computation, bad
version 3 headers are refused (and versions 1 and 2 still read), and the chooser
plays with a version 3 net."""

from test_bot import Lcg, _inputs, _positions, _refused, _write
from test_evaluate_v2 import _weights_v2

from nardy.bot import Bot
from nardy.evaluate import Net, _short_extras, _shots
from nardy.netfile import EXTRAS, INPUTS
from nardy.rules import Position
from nardy.shortnardy import ShortNardy


def _weights_v3(hidden, seed, variant_code=1, extras=EXTRAS, version=3):
    return _weights_v2(hidden, seed, variant_code, extras, version)


def _landings(board, o, p, d1, d2):
    """The points (our path, 1..24) one checker on ``p`` can reach with the roll:
    each die alone, or the dice one after another (a double: up to four) through
    points the other side (at ``o``) does not hold (S3: two checkers or more)."""
    def held(q):
        return board[o + 25 - q] >= 2          # S1: its path point 25 - q
    steps = [d1] * 4 if d1 == d2 else [d1, d2]
    out = []
    if d1 != d2:
        out += [p + d1, p + d2]
        if (p + d1 <= 24 and not held(p + d1)) or (p + d2 <= 24 and not held(p + d2)):
            out.append(p + d1 + d2)
    else:
        q = p
        for d in steps:
            q += d
            if q > 24:
                break
            out.append(q)
            if held(q):
                break
    return [q for q in out if q <= 24]


def _plain_shots(board, s, o):
    n = 0
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            if any(board[o + 25 - q] == 1                  # a blot: C7
                   for p in range(25) if board[s + p]
                   for q in _landings(board, o, p, d1, d2)):
                n += 1
    return n


def _rear(board, side):
    held = [p for p in range(25) if board[side + p]]
    return held[0] if held else 25


def _half(board, s, o):
    rear_o = _rear(board, o)
    # our points along the other side's path q, held with two or more (S3)
    ahead = [board[s + 25 - q] >= 2 and q > rear_o for q in range(1, 25)]
    prime = run = 0
    for a in ahead:
        run = run + 1 if a else 0
        prime = max(prime, run)
    front = sum(1 for q in range(1, 25) if ahead[q - 1] and q <= rear_o + 6)
    pips = sum(board[s + k] * (25 - k) for k in range(26))
    return [_plain_shots(board, s, o), min(prime, 6), front, 25 - _rear(board, s), 0,
            pips // 8]


def _plain_extras(pos):
    me, op = 26 * pos.turn, 26 - 26 * pos.turn
    a, b = _half(pos.board, me, op), _half(pos.board, op, me)
    race = 1 if _rear(pos.board, me) + _rear(pos.board, op) >= 25 else 0
    a[4] = b[4] = race
    if not race:
        a[5] = b[5] = 0
    return a + b


def _board_extras(pos):
    me, op = 26 * pos.turn, 26 - 26 * pos.turn
    out = bytearray(EXTRAS)
    _short_extras(pos.board, me, op, out)
    out[0] = _shots(pos.board, me, op)
    out[6] = _shots(pos.board, op, me)
    return list(out)


def _hand_made():
    """A race, a checker on the bar facing a blot behind a block, and a full prime."""
    race = Position(turn=0)
    race.board[20] = 10                 # white all home (19..24)
    race.board[23] = 5
    race.board[26 + 22] = 15            # black all home: no contact, a race
    bar = Position(turn=1)
    bar.board[26 + 0] = 1               # black on the bar (path 0) ...
    bar.board[26 + 24] = 14
    bar.board[25 - 3] = 2               # ... white holds black's 3 and 4 and has a
    bar.board[25 - 4] = 2               # blot on black's 7
    bar.board[25 - 7] = 1
    bar.board[1] = 10
    prime = Position(turn=0)
    for p in range(13, 19):
        prime.board[p] = 2              # white's six points 13..18: a full prime ...
    prime.board[24] = 3
    prime.board[26 + 2] = 15            # ... ahead of black's checkers on its 2
    return [race, bar, prime]


def test_short_extras_equal_their_definition():
    v = ShortNardy()
    seen = [0] * EXTRAS
    for pos in _positions(v, 50, 5) + _hand_made():
        got, want = _board_extras(pos), _plain_extras(pos)
        assert got == want, (bytes(pos.board), pos.turn, got, want)
        for i in range(EXTRAS):
            seen[i] += got[i] > 0
    race, bar, prime = _hand_made()
    assert _board_extras(race)[4] == 1 and _board_extras(race)[5] == (10 * 5 + 5 * 2) // 8
    # black on the bar hits on 1-6 and 2-5, either way round: 4 of 36; 3-4 meets a
    # held point both ways, and 1-1 stops on its 3
    assert _board_extras(bar)[0] == 4
    # white (to move) has six points in a row ahead of black's checkers on black's 2,
    # two of them (white's 17 and 18: black's 8 and 7) among the six in front of them
    assert _board_extras(prime)[1:3] == [6, 2]
    assert min(seen[:4] + seen[5:10] + seen[11:]) > 0


def _reference(parts, hidden, pos):
    b1, w1, wx, w2, b2 = parts
    x, e = _inputs(pos), _plain_extras(pos)
    out = b2
    for j in range(hidden):
        a = b1[j]
        for i in range(INPUTS):
            a += x[i] * w1[i * hidden + j]
        for i in range(EXTRAS):
            a += e[i] * wx[i * hidden + j]
        if a > 0:
            out += a * w2[j]
    return out


def test_version_3_net_equals_plain_computation():
    v = ShortNardy()
    data, parts = _weights_v3(5, 9)
    net = Net(_write(data), "short")
    assert net.extras == EXTRAS
    for pos in _positions(v, 25, 4) + _hand_made():
        assert net.value(pos) == _reference(parts, 5, pos)


def test_version_3_headers_checked():
    data, _ = _weights_v3(4, 2)
    _refused(data, "long", ("not for long",))
    # version 3 is short nardy's extras, version 2 long nardy's: each game its own
    _refused(_weights_v3(4, 2, variant_code=0)[0], "long", ("extra inputs", "version 3"))
    _refused(_weights_v3(4, 2, version=2)[0], "short", ("extra inputs", "version 2"))
    _refused(_weights_v3(4, 2, extras=5)[0], "short", ("extra inputs",))
    _refused(_weights_v3(4, 2, version=5)[0], "short", ("version 5",))
    # version 4 (more than 255 hidden units) holds its variant's extras
    assert Net(_write(_weights_v3(4, 2, version=4)[0]), "short").extras == EXTRAS
    _refused(_weights_v3(4, 2, version=4)[0], "long", ("not for long",))


def test_bot_plays_the_version_3_nets_best():
    v = ShortNardy()
    data, parts = _weights_v3(4, 13)
    bot = Bot(v, Net(_write(data), "short"))
    r = Lcg(3)
    for pos in _positions(v, 12, 8):
        dice = (r.next(6) + 1, r.next(6) + 1)
        steps, result = bot.choose(pos, dice)
        turns = v.legal_turns(pos, dice)
        assert result.board in [t[1].board for t in turns]
        if len(turns) <= bot.keep and result.borne_off(pos.turn) < 15:
            best = min(_reference(parts, 4, t[1]) for t in turns)
            assert _reference(parts, 4, result) == best
