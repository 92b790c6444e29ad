"""Short nardy (короткие нарды, backgammon): RULES.md S1-S6 on the common core.

Path numbering: each side's path point k is gnubg's point 25 - k (path 1 is the
24-point, where a side's two back checkers start), so home is 19..24 as in long
nardy and the notation module converts to gnubg numbers.

>>> v = ShortNardy()
>>> p = v.start_position()
>>> [k for k in range(1, 25) if p.count(0, k)]     # S1 in path points
[1, 12, 17, 19]
>>> v.physical(0, 1), v.physical(1, 1)            # white's 24-point is P24, black's P1
(24, 1)
"""

from micropython import const  # CPython: the shim nardy/__init__.py installs

from nardy.rules import BLACK, WHITE, Position, Variant

# S1 in gnubg numbers: 24-point two, 13-point five, 8-point three, 6-point five.
_START = const(((24, 2), (13, 5), (8, 3), (6, 5)))


class ShortNardy(Variant):
    """Opposite directions (S1); two or more close a point, one is a blot that is
    hit to the bar (S2); the bar enters first (S3); a hit during bear-off stops it
    until the checker is home again (S4, by C6's all-home test)."""

    name = "short"
    CLOSED_AT = 2
    HITS = True
    BAR_RULE = True
    HEAD_RULE = False
    BLOCK_RULE = False
    OPTIONS = {"opening_dice_played": False}

    def opp_point(self, p):
        return 25 - p

    def physical(self, color, k):
        if color == WHITE:
            return 25 - k
        return k

    def start_position(self, turn=WHITE):
        p = Position(turn=turn)
        for color in (WHITE, BLACK):
            side = p.side(color)
            for gnubg_point, n in _START:
                side[25 - gnubg_point] = n
        return p
