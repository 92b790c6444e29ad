"""Long nardy (длинные нарды): RULES.md L1-L8 on top of the common core.

>>> v = LongNardy()
>>> p = v.start_position()
>>> p.count(0, 1), p.count(1, 1)          # L1: all 15 on each head
(15, 15)
>>> v.physical(0, 1), v.physical(1, 1)    # white's head is P24, black's P12
(24, 12)
>>> v.opp_point(13)                       # my 13th point is the opponent's head
1
"""

from nardy.rules import BLACK, CHECKERS, WHITE, Position, Variant, l5_block


class LongNardy(Variant):
    """Both sides travel the same way round; heads 12 points apart (L1); a point
    with any opposing checker is closed and nobody is hit (L2); one checker from
    the head per turn (L3) with the first-turn exception (L4); no six-block unless
    an opposing checker is ahead of it (L5).

    Options (RULES.md): ``first_turn_any_double`` (L4, seeds 000/004),
    ``block_until_opponent_home`` (L5, seed 000), ``home_mars`` (L6),
    ``last_roll_draw`` (L7), ``winner_starts`` (L8), ``opening_dice_played`` (C2).
    """

    name = "long"
    CLOSED_AT = 1
    HITS = False
    BAR_RULE = False
    HEAD_RULE = True
    BLOCK_RULE = True
    OPTIONS = {
        "first_turn_any_double": False,
        "block_until_opponent_home": False,
        "home_mars": False,
        "last_roll_draw": False,
        "winner_starts": False,
        "opening_dice_played": False,
    }

    def opp_point(self, p):
        # L1: white's path p is black's path ((p + 11) mod 24) + 1, and vice versa.
        return (p + 11) % 24 + 1

    def physical(self, color, k):
        if color == WHITE:
            return 25 - k
        return (12 - k) % 24 + 1

    def start_position(self, turn=WHITE):
        p = Position(turn=turn)
        p.side(WHITE)[1] = CHECKERS
        p.side(BLACK)[1] = CHECKERS
        return p

    def is_first_turn(self, pos, color=None):
        """A side with all 15 checkers on its head has not moved yet."""
        c = pos.turn if color is None else color
        return pos.count(c, 1) == CHECKERS

    def _head_allowance(self, dice):
        """L3/L4: how many checkers may leave the head this turn."""
        me = self._me
        if me[1] != CHECKERS or dice[0] != dice[-1] or len(dice) < 4:
            return 1
        d = dice[0]
        if self.options["first_turn_any_double"]:
            return 2
        if d not in (3, 4, 6):
            return 1
        # The exception is for a checker stopped by the opponent's head (my path 13),
        # not by any other obstacle (seed 001 §3.1, the 5-5 / 4-4 note).
        opp = self._opp
        p = 1
        for _ in range(4):
            p += d
            if p > 24:
                return 1
            if opp[self.opp_of[p]]:
                return 2 if p == 13 else 1
        return 1

    # L5, with ``t`` just occupied: is there now a run of six or more of my points,
    # consecutive along the opponent's path, that no opposing checker has passed?
    # Runs are measured in the opponent's coordinates, so six points that straddle
    # the opponent's start (its 24 -> 1) are not a block. (Native code, so it lives in
    # nardy.rules, which stays loaded: this module is dropped after each ``new`` and
    # imported again, and machine code is never freed, the ESP32 copying it to IRAM
    # at every import until reset.)
    _makes_block = l5_block
