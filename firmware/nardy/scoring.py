"""Game end, points and match scoring (C2, C7, L6-L8, S5-S6). Pure.

>>> from nardy.longnardy import LongNardy
>>> v = LongNardy()
>>> p = v.start_position()
>>> p.side(0)[1] = 0; p.side(0)[25] = 15
>>> game_result(v, p)                 # black bore off none: mars (L6)
(0, 'mars', 2)
"""

from nardy.rules import BLACK, CHECKERS, WHITE


def opening_winner(white_die, black_die):
    """C2: each side rolls one die; the higher moves first, equal dice roll again
    (None)."""
    if not (1 <= white_die <= 6 and 1 <= black_die <= 6):
        raise ValueError("dice must be 1..6")
    if white_die == black_die:
        return None
    return WHITE if white_die > black_die else BLACK


def game_result(variant, pos, last_roll_done=False):
    """None while the game goes on; else ``(winner, kind, points)``.

    ``winner`` is a colour, or None for a draw (L7). ``kind`` is "oin", "mars",
    "home_mars" (long, option), "koks" (short) or "draw". With the long-nardy option
    ``last_roll_draw``, white finishing first does not end the game until black has
    had its last roll (pass ``last_roll_done=True`` after it).
    """
    w = pos.borne_off(WHITE) == CHECKERS
    b = pos.borne_off(BLACK) == CHECKERS
    if not (w or b):
        return None
    if variant.name == "long" and variant.options["last_roll_draw"]:
        if w and not b and not last_roll_done:
            return None
        if w and b:
            return (None, "draw", 1)
    winner = WHITE if w else BLACK
    loser = 1 - winner
    side = pos.side(loser)
    if side[25]:
        return (winner, "oin", 1)
    if variant.name == "short":
        # S5 koks: none off and a checker on the bar or in the winner's home
        # (the winner's home 19..24 is the loser's path 1..6).
        for k in range(7):
            if side[k]:
                return (winner, "koks", 3)
        return (winner, "mars", 2)
    if variant.options["home_mars"]:
        home = 0
        for k in range(19, 25):
            home += side[k]
        if home == CHECKERS:
            return (winner, "home_mars", 3)
    return (winner, "mars", 2)


def kind_name(variant_name, kind):
    """What a player calls a win of ``kind`` (a ``game_result`` kind): long nardy in
    the seeds' words (L6: oin, mars, home mars); short nardy is backgammon, said as
    its players say it (S5: single game, gammon, backgammon; the seeds' oin, mars,
    koks)."""
    if variant_name == "short":
        if kind == "oin":
            return "single game"
        if kind == "mars":
            return "gammon"
        if kind == "koks":
            return "backgammon"
    if kind == "home_mars":
        return "home mars"
    return kind


def needs_last_roll(variant, pos):
    """L7: black is owed one more roll (white is off, black is not)."""
    return (variant.name == "long" and variant.options["last_roll_draw"]
            and pos.borne_off(WHITE) == CHECKERS and pos.borne_off(BLACK) < CHECKERS)


class Match:
    """A match to ``length`` points between player 0 and player 1.

    Long nardy (L8): colours swap every game and the player who had black starts
    the next one as white (option ``winner_starts``: the winner of the last game
    starts). Short nardy keeps colours and decides the first move by the opening
    roll (C2) every game.

    >>> from nardy.longnardy import LongNardy
    >>> m = Match(LongNardy(), 3)
    >>> m.white_player
    0
    >>> m.record((0, 'mars', 2))       # white (player 0) wins a mars
    >>> m.score, m.white_player, m.over
    ([2, 0], 1, False)
    """

    def __init__(self, variant, length=1, white_player=0):
        if length < 1:
            raise ValueError("match length must be at least 1")
        self.variant = variant
        self.length = length
        self.score = [0, 0]
        self.white_player = white_player
        self.games = []

    def player_of(self, color):
        return self.white_player if color == WHITE else 1 - self.white_player

    @property
    def over(self):
        return max(self.score) >= self.length

    @property
    def winner(self):
        if not self.over:
            return None
        if self.score[0] == self.score[1]:
            return None
        return 0 if self.score[0] > self.score[1] else 1

    def record(self, result):
        """Add a finished game ``(winner colour or None, kind, points)``."""
        winner, kind, points = result
        if self.over:
            raise ValueError("the match is over")
        if winner is None:
            self.score[0] += points
            self.score[1] += points
        else:
            self.score[self.player_of(winner)] += points
        self.games.append(result)
        if self.variant.name == "long":
            if self.variant.options["winner_starts"] and winner is not None:
                self.white_player = self.player_of(winner)
            else:
                self.white_player = 1 - self.white_player  # L8: black starts next

    def resign(self, loser_color, kind="oin"):
        """S6: the result of a resignation (the points of ``kind``)."""
        points = {"oin": 1, "mars": 2, "koks": 3, "home_mars": 3}[kind]
        return (1 - loser_color, kind, points)
