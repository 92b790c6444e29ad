"""Move notation and a compact position id.

Two numberings (docs/RULES.md, "One numbering at the table"). At the table (the
OLED, the page, its log and analysis) a point is its label printed on the board,
P1..P24, for both sides: ``format_turn(..., table=True)`` writes ``24/18``,
``bar/20``, ``6/off``, ``13/8*``. The records a program reads keep the mover's own
numbers: short nardy gnubg's (the mover's home is 1..6, "bar", "off", ``*`` for a
hit, ``(2)`` for a repeated move), long nardy the same style in path numbers (the
head is 1, home 19..24).

>>> from nardy.shortnardy import ShortNardy
>>> v = ShortNardy(); p = v.start_position()
>>> format_turn(v, p, ((1, 7), (7, 12)))
'24/13'
>>> format_turn(v, p, ((12, 17), (12, 17)))
'13/8(2)'
>>> from nardy.longnardy import LongNardy
>>> format_turn(LongNardy(), LongNardy().start_position(), ((1, 7),), table=True)
'24/18'
"""

from nardy.rules import COLORS, Position

_HEX = "0123456789abcdef"
_HEXB = _HEX.encode()


def point_label(variant, k, is_from, side=None):
    """Path point ``k`` of the mover as text: with ``side`` (the mover's colour) the
    board's printed label, else the mover's own number."""
    if k == 25:
        return "off"
    if variant.name == "short" and k == 0:
        return "bar"
    if side is not None:
        return str(variant.physical(side, k))
    return str(25 - k) if variant.name == "short" else str(k)


def format_turn(variant, pos, steps, table=False):
    """Text for a turn played from ``pos`` (steps in the mover's path points); with
    ``table`` in the board's printed labels P1..P24 (without the P)."""
    if not steps:
        return "-"
    side = pos.turn if table else None
    cur = pos.copy()
    moves = []  # [from, [to, hit], [to, hit] ...] per checker chain
    for f, t in steps:
        hit = False
        if variant.HITS and t < 25:
            hit = cur.count(1 - cur.turn, variant.opp_point(t)) == 1
        cur = variant.apply_step(cur, (f, t))
        for m in moves:
            if m[-1][0] == f and f != 25:
                m.append([t, hit])
                break
        else:
            moves.append([f, [t, hit]])
    parts = []
    for m in moves:
        text = point_label(variant, m[0], True, side)
        for i in range(1, len(m)):
            t, hit = m[i]
            # intermediate points are shown only where something was hit
            if i == len(m) - 1 or hit:
                text += "/" + point_label(variant, t, False, side) + ("*" if hit else "")
        parts.append((m[0], text))
    parts.sort(key=lambda x: x[0])
    out = []
    i = 0
    while i < len(parts):
        j = i
        while j < len(parts) and parts[j][1] == parts[i][1]:
            j += 1
        out.append(parts[i][1] + ("(%d)" % (j - i) if j - i > 1 else ""))
        i = j
    return " ".join(out)


def _point(variant, text):
    text = text.rstrip("*")
    if text == "bar":
        return 0
    if text == "off":
        return 25
    n = int(text)
    if not 1 <= n <= 24:
        raise ValueError("point out of range: %s" % text)
    return 25 - n if variant.name == "short" else n


def _moved(variant, text):
    """Net change per path point (0..25) of the mover's counters for ``text``."""
    moved = [0] * 26
    text = text.strip()
    if text in ("-", ""):
        return moved
    for part in text.split():
        count = 1
        if part.endswith(")") and "(" in part:
            part, n = part[:-1].split("(")
            count = int(n)
        pts = [_point(variant, x) for x in part.split("/")]
        if len(pts) < 2:
            raise ValueError("bad move: %s" % part)
        moved[pts[0]] -= count
        moved[pts[-1]] += count
    return moved


def apply_text(variant, pos, text):
    """The position after the moves written in ``text``, legal or not (hits go to
    the bar), so that a checker can say which rule such a turn breaks.

    >>> from nardy.longnardy import LongNardy
    >>> v = LongNardy(); p = v.start_position()
    >>> v.check_turn(p, (6, 5), apply_text(v, p, "1/7 1/6"))
    ('L3', 'only one checker may leave the head')
    """
    moved = _moved(variant, text)
    new = pos.copy()
    me = new.side(pos.turn)
    opp = new.side(1 - pos.turn)
    for k in range(26):
        if me[k] + moved[k] < 0:
            raise ValueError("not enough checkers on %s" % point_label(variant, k, True))
    for k in range(26):
        me[k] += moved[k]
        if variant.HITS and moved[k] > 0 and 1 <= k <= 24:
            q = variant.opp_point(k)
            if opp[q] == 1:
                opp[q] = 0
                opp[0] += 1
    return new


def parse_turn(variant, pos, dice, text):
    """The legal turn written as ``text``: returns ``(steps, position)``.

    >>> from nardy.shortnardy import ShortNardy
    >>> v = ShortNardy(); p = v.start_position()
    >>> parse_turn(v, p, (6, 5), "24/13")[0]
    ((1, 7), (7, 12))
    """
    moved = _moved(variant, text)
    for steps, res in variant.turns(pos, dice):
        mine = res.side(pos.turn)
        start = pos.side(pos.turn)
        if all(mine[k] - start[k] == moved[k] for k in range(26)):
            return steps, res
    raise ValueError("not a legal turn for %d-%d: %s" % (dice[0], dice[1], text))


def position_id(variant, pos):
    """A compact text id: variant, side to move, then each side's 26 counters in
    hex (bar, path 1..24, off), each side in its own path numbering.

    >>> from nardy.longnardy import LongNardy
    >>> position_id(LongNardy(), LongNardy().start_position())
    'Lw-0f000000000000000000000000-0f000000000000000000000000'
    """
    # Made in one 56-byte buffer: a join of 26 one-letter strings first lists them (a
    # 256-byte block here, the one a board's fragmented heap lacked at a turn's end).
    b = pos.board
    out = bytearray(56)
    out[0] = 76 if variant.name == "long" else 83                # L / S
    out[1] = ord(COLORS[pos.turn][0])                            # w / b
    out[2] = out[29] = 45                                        # -
    for i in range(26):
        out[3 + i] = _HEXB[b[i]]
        out[30 + i] = _HEXB[b[26 + i]]
    return str(out, "ascii")


def parse_position_id(text):
    """(variant name, Position) from :func:`position_id`'s text."""
    parts = text.strip().split("-")
    if (len(parts) != 3 or len(parts[0]) != 2 or parts[0][0] not in "LS"
            or parts[0][1] not in "wb" or len(parts[1]) != 26 or len(parts[2]) != 26):
        raise ValueError("not a position id: %r" % text)
    b = bytearray(52)
    for i, ch in enumerate(parts[1] + parts[2]):
        v = _HEX.find(ch)
        if v < 0:
            raise ValueError("not a position id: %r" % text)
        b[i] = v
    return ("long" if parts[0][0] == "L" else "short",
            Position(b, 0 if parts[0][1] == "w" else 1))
