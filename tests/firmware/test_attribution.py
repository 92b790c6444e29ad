"""Warnings name the rule a player would name (issue 11).

``step_error`` is checked against an independent classification written here from
RULES.md, on positions from random play and every illegal single step in them: the
order a player looks in is whose checker and the bar (S3), the direction (C3), the
landing point (L2/S2), the head (L3, L4 when a first-turn double the exception names
is not covered), bearing off early (C6), the dice (C3), what the die breaks (C6
overbear, L5), and last the maximum use of the dice (C5)."""

from fwutil import Rand, build, play

from nardy.longnardy import LongNardy
from nardy.rules import BLACK, WHITE
from nardy.shortnardy import ShortNardy

LONG = LongNardy()
SHORT = ShortNardy()


def test_seed001_second_head_checker_is_the_head_rule():
    # White opens 5-5 with one checker to P4 (path 21); black's first 4-4 can play
    # one four from the head only: the first checker is stopped at black's 5 by
    # white's checker on black's 9, not by white's head (RULES.md L4 note).
    v = LONG
    pos = v.start_position()
    w = play(v, pos, [(1, 6), (6, 11), (11, 16), (16, 21)])
    w.turn = BLACK
    assert v.physical(WHITE, 21) == 4 and v.physical(BLACK, 9) == 4
    assert v.max_steps(w, (4, 4)) == 1
    assert v.step_error(w, (4, 4), [(1, 5)], (1, 5)) == (
        "L4", "a 2nd head checker only if the 1st is blocked")
    # not a first turn: plain L3
    p = build(v, {1: 14, 7: 1}, {1: 15})
    assert v.step_error(p, (6, 5), [(1, 7)], (1, 6))[0] == "L3"


def test_a_closed_point_is_named_whatever_the_distance():
    v = LONG
    p = build(v, {1: 14, 3: 1}, {1: 14, 20: 1})
    # 3 -> 20 matches no die, but the point is the opponent's: L2 is what a player says
    assert v.step_error(p, (6, 5), [], (3, 20)) == ("L2", "point is closed")
    s = SHORT
    q = build(s, {1: 2, 12: 13}, {6: 2, 19: 13})
    assert s.step_error(q, (3, 1), [], (1, 6)) == ("S2", "point is closed")


def test_backwards_and_bar_first():
    v = SHORT
    p = build(v, {12: 5, 17: 10}, {1: 15})
    assert v.step_error(p, (6, 5), [], (17, 12)) == ("C3", "checkers move forward only")
    q = build(v, {12: 5, 17: 9}, {1: 15}, my_bar=1)
    # on the bar: whatever the step, entering comes first (S3)
    assert v.step_error(q, (6, 5), [], (12, 15))[0] == "S3"
    assert v.step_error(q, (6, 5), [], (17, 12))[0] == "S3"


def test_bearing_off_early_is_c6_whatever_the_die():
    v = LONG
    p = build(v, {18: 1, 20: 4, 24: 10}, {1: 15})
    assert v.step_error(p, (2, 1), [], (20, 25))[0] == "C6"


# -- the independent classification --------------------------------------------------------
def _head_allowance(v, pos, dice):
    me = pos.side(pos.turn)
    op = pos.side(1 - pos.turn)
    if me[1] != 15 or dice[0] != dice[1] or dice[0] not in (3, 4, 6):
        return 1
    p = 1
    for _ in range(4):
        p += dice[0]
        if p > 24:
            return 1
        if op[v.opp_point(p)]:
            return 2 if p == 13 else 1
    return 1


def _block(v, me, op):
    """A run of six own points along the opponent's path that no opposing checker
    has passed (RULES.md L5)."""
    if op[25]:
        return False
    mine = [False] * 26
    for k in range(1, 25):
        if me[k]:
            mine[v.opp_point(k)] = True
    run = 0
    for o in range(1, 25):
        run = run + 1 if mine[o] else 0
        if run >= 6 and not any(op[q] for q in range(o + 1, 25)):
            return True
    return False


def expected_rule(v, pos, dice, played, step):
    cur = play(v, pos, played)
    me = cur.side(cur.turn)
    op = cur.side(1 - cur.turn)
    f, t = step
    if not me[f]:
        return "C3"
    if v.BAR_RULE and f and me[0]:
        return "S3"
    if t <= f:
        return "C3"
    if t < 25 and op[v.opp_point(t)] >= v.CLOSED_AT:
        return "S2" if v.HITS else "L2"
    if v.HEAD_RULE and f == 1:
        start = pos.side(pos.turn)[1]
        if _head_allowance(v, pos, dice) == 1 and start - me[1] >= 1:
            return "L4" if start == 15 and dice[0] == dice[1] and dice[0] in (3, 4, 6) else "L3"
    if t == 25 and sum(me[k] for k in range(19)):
        return "C6"
    left = [dice[0]] * 4 if dice[0] == dice[1] else list(dice)
    for f0, t0 in played:
        if t0 - f0 in left:
            left.remove(t0 - f0)
        else:
            left.remove(min(x for x in left if x > t0 - f0))
    d = t - f
    if d not in left and not (t == 25 and any(x > d for x in left)):
        return "C3"
    if t == 25 and d not in left and any(me[k] for k in range(19, f)):
        return "C6"
    if v.BLOCK_RULE and t < 25:
        after = bytearray(me)
        after[f] -= 1
        after[t] += 1
        if _block(v, after, op):
            return "L5"
    return "C5"


def _positions(v, rnd, n, every=7):
    """Positions from random legal play (either side to move), with random dice:
    every ``every``-th turn, so openings, middle games and bear-offs all come up."""
    pos = v.start_position()
    out = []
    i = 0
    while len(out) < n:
        r = rnd(2)
        dice = (r[0] % 6 + 1, r[1] % 6 + 1)
        i += 1
        if i % every == 0:
            out.append((pos, dice))
        # a random legal turn, one step at a time (lighter than all the turns)
        played = ()
        nxt = pos
        while True:
            steps = v.next_steps(pos, dice, played)
            if not steps:
                break
            st = steps[rnd(1)[0] % len(steps)]
            played += (st,)
            nxt = v.apply_step(nxt, st)
        nxt = nxt.copy()
        nxt.turn = 1 - pos.turn
        done = nxt.side(pos.turn)[25] == 15
        pos = v.start_position() if done else nxt
    return out


def _check_all(v, seed, n):
    rnd = Rand(seed)
    checked = 0
    for pos, dice in _positions(v, rnd, n):
        prefixes = [()]
        first = v.next_steps(pos, dice)
        if first:
            prefixes.append((first[rnd(1)[0] % len(first)],))
        for played in prefixes:
            cur = play(v, pos, played)
            me = cur.side(cur.turn)
            legal = v.next_steps(pos, dice, played)
            for f in range(25):
                if not me[f]:
                    continue
                for t in range(1, 26):
                    if t == f:
                        continue
                    got = v.step_error(pos, dice, played, (f, t))
                    if (f, t) in legal:
                        assert got is None, (pos.key(), dice, played, (f, t), got)
                        continue
                    want = expected_rule(v, pos, dice, played, (f, t))
                    assert got is not None and got[0] == want, (
                        v.name, pos.key(), dice, played, (f, t), got, want)
                    checked += 1
    return checked


def test_every_illegal_step_names_the_rule_a_player_would_long():
    assert _check_all(LONG, 1234, 60) > 6000


def test_every_illegal_step_names_the_rule_a_player_would_short():
    assert _check_all(SHORT, 4321, 60) > 6000
