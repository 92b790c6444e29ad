"""Positions as JSON objects (``nardy moves``, the USB protocol, game records).

``{"turn": "white"|"black", "white": [24], "black": [24], "bar": {...}, "off": {...}}``;
each side's array is indexed by its own path point (index 0 = path point 1).
Every malformed input raises ValueError with a message fit to show a user.
"""

from nardy.rules import BLACK, CHECKERS, COLORS, WHITE, Position


def to_json(pos):
    b = pos.board
    return {
        "turn": COLORS[pos.turn],
        "white": list(b[1:25]),
        "black": list(b[27:51]),
        "bar": {"white": b[0], "black": b[26]},
        "off": {"white": b[25], "black": b[51]},
    }


def _count(v, what):
    if not isinstance(v, int) or isinstance(v, bool) or v < 0 or v > CHECKERS:
        raise ValueError("%s must be an integer 0..15" % what)
    return v


def from_json(variant, obj, mixed=False):
    """Validate and build a Position for ``variant``. With ``mixed`` a point may
    hold both colours: a position the board reports, after the opponent accepted
    a turn that left it so (seed 001 §3.4). Positions typed by a user stay one
    colour per point."""
    if not isinstance(obj, dict):
        raise ValueError("position must be an object")
    turn = obj.get("turn")
    if turn not in COLORS:
        raise ValueError('position.turn must be "white" or "black"')
    pos = Position(turn=COLORS.index(turn))
    for key in ("bar", "off"):
        if not isinstance(obj.get(key, {}), dict):
            raise ValueError("position.%s must be an object" % key)
    owner = {}
    for color in (WHITE, BLACK):
        name = COLORS[color]
        pts = obj.get(name)
        if not isinstance(pts, list) or len(pts) != 24:
            raise ValueError("position.%s must be a list of 24 counts" % name)
        side = pos.side(color)
        for i in range(24):
            n = _count(pts[i], "position.%s[%d]" % (name, i))
            side[i + 1] = n
            if n:
                p = variant.physical(color, i + 1)
                if not mixed and owner.get(p, color) != color:
                    raise ValueError("point P%d holds checkers of both colours" % p)
                owner[p] = color
        side[0] = _count(obj.get("bar", {}).get(name, 0), "position.bar.%s" % name)
        side[25] = _count(obj.get("off", {}).get(name, 0), "position.off.%s" % name)
        if side[0] and not variant.HITS:
            raise ValueError("long nardy has no bar")
        total = 0
        for k in range(26):
            total += side[k]
        if total != CHECKERS:
            raise ValueError("%s has %d checkers, not 15" % (name, total))
    return pos
