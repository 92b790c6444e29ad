"""The board as a player at the table (docs/ENGINE.md, "At the table").

The setting ``bot`` says which side the board plays: "none", "white", "black" or
"both". On the board's turn the game rolls by itself (or asks for the physical dice
in manual dice mode), asks the chooser (``nardy.bot``) for its turn and shows it:
the LEDs light the next step's source and target, the OLED the turn in notation.
The player carries it out with their hands; the tracker follows it as any turn.
The turn ends by itself once the board shows the chosen result; a different result
is a warning naming the board's move, and nothing ends until the board's move is
on the board.

The chooser and its weights (13-20 KB) are loaded only when a side is set to the
board, at the start of a game, right after a collection, and dropped when the game
ends: a game between two people pays nothing for the engine.
"""

import gc

from nardy.rules import COLORS

SIDES = ("none", "white", "black", "both")

_bot = None        # the loaded chooser (one at a time: one game is played at a time)


def plays(setting, side):
    """True if the board plays ``side`` (WHITE/BLACK) under the ``bot`` setting."""
    return setting == "both" or (setting in COLORS and COLORS.index(setting) == side)


def weights_path(name):
    """Where ``name``.bin lies: next to the firmware's code (the ROMFS image's
    /rom/weights on a board with ROMFS, firmware/weights on the unix port), else
    /weights on the board's filesystem (``nardy deploy``)."""
    import os

    import nardy
    here = nardy.__file__.rsplit("/", 2)[0] if nardy.__file__.count("/") >= 2 else "."
    for d in (here + "/weights", "/rom/weights", "/weights"):
        p = "%s/%s.bin" % (d, name)
        try:
            os.stat(p)
            return p
        except OSError:
            pass
    return "/weights/%s.bin" % name


def load(variant):
    """The chooser for ``variant`` (loaded once per game, after a collection)."""
    global _bot
    if _bot is not None and _bot.variant.name == variant.name and \
            _bot.variant.options == variant.options:
        return _bot
    _bot = None
    gc.collect()
    from nardy.bot import Bot
    gc.collect()
    _bot = Bot(variant, weights_path(variant.name))
    return _bot


def release():
    """Drop the chooser, its weights and its modules (the game is over): a game
    between two people after it pays nothing for the engine either (on a board with
    code in ROMFS the modules' native code is still copied to the heap: ~5 KB)."""
    global _bot
    _bot = None
    import sys

    import nardy
    for name in ("bot", "evaluate"):
        if sys.modules.pop("nardy." + name, None) is not None:
            try:
                delattr(nardy, name)
            except AttributeError:
                pass
    gc.collect()


def loaded():
    return _bot is not None


class Shown:
    """The turn the board chose and shows: ``steps`` (the mover's path points),
    ``result`` (the position after it), ``zones`` (sensing zones of each step),
    ``text`` (notation)."""

    def __init__(self, variant, pos, steps, result, zone_of):
        from nardy.notation import format_turn
        self.steps = tuple(steps)
        self.result = result
        side = self.side = pos.turn
        self.zones = tuple((zone_of(variant, side, f), zone_of(variant, side, t))
                           for f, t in steps)
        self.text = format_turn(variant, pos, steps)
        self.warned = False        # the board shows another result: warned once
        self.hidden_asked = False  # a checker out of view: the tracker was asked

    def next_step(self, played):
        """Index of the step to show next: the shown steps played so far in order
        (a different order or a different step shows the first one not played)."""
        i = 0
        n = len(self.steps)
        while i < n and i < len(played) and played[i] == self.steps[i]:
            i += 1
        return i

    def matches(self, pos):
        """The board shows the chosen result (only the checkers count)."""
        return pos.board == self.result.board

    def state(self):
        return {"side": COLORS[self.side], "steps": [[f, t] for f, t in self.steps],
                "zones": [[a, b] for a, b in self.zones], "text": self.text}


def choose(variant, pos, dice, zone_of):
    """The board's turn for ``pos`` and ``dice`` as a ``Shown``."""
    steps, result = load(variant).choose(pos, dice)
    return Shown(variant, pos, steps, result, zone_of)
