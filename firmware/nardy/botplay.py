"""The board as a player at the table (docs/ENGINE.md, "At the table").

The setting ``bot`` says which side the board plays: "none", "white", "black" or
"both". On the board's turn the game rolls by itself (or asks for the physical dice
in manual dice mode), asks the chooser (``nardy.bot``) for its turn and shows it:
the LEDs light the next step's source and target, the OLED the turn in notation.
The player carries it out with their hands; the tracker follows it as any turn.
The turn ends by itself once the board shows the chosen result; a different result
is a warning naming the board's move, and nothing ends until the board's move is
on the board.

The chooser and its weights (28-57 KB, read in place from ROMFS: then 3 KB of heap)
are loaded only when a side is set to the board, at the start of a game, right after
a collection, and dropped when the game ends: a game between two people pays nothing
for the engine.
"""

import gc

from micropython import const  # CPython: the shim nardy/__init__.py installs

from nardy.rules import COLORS
from nardy.tracker import CONFIRM, IDLE, LIFTED
from nardy.zonefit import zone_of

_NEVER = const(1 << 29)      # ms: the tracker's stillness auto-end, switched off

_bot = None        # the loaded chooser (one at a time: one game is played at a time)


def plays(setting, side):
    """True if the board plays ``side`` (WHITE/BLACK) under the ``bot`` setting."""
    return setting == "both" or (setting in COLORS and COLORS.index(setting) == side)


def weights_path(name):
    """Where ``name``.bin lies: next to the firmware's code (the ROMFS image's
    /rom/weights on a board with ROMFS, firmware/weights on the unix port), else
    /weights on the board's filesystem (``nardy deploy``)."""
    import nardy
    here = nardy.__file__.rsplit("/", 2)[0] if nardy.__file__.count("/") >= 2 else "."
    for d in (here + "/weights", "/rom/weights", "/weights"):
        p = "%s/%s.bin" % (d, name)
        if _exists(p):
            return p
    return "/weights/%s.bin" % name


# Free heap a game needs beside a chooser whose weights were read into the heap
# (bytes): a 64-unit net read into a 112wK heap leaves about 21 KB at the game's
# peak (docs/ENGINE.md); a net that leaves less than this would fail in the middle
# of a game, so the smaller one is taken instead.
RESERVE = const(12288)


def _free():
    f = getattr(gc, "mem_free", None)      # MicroPython's; CPython has none
    return f() if f else RESERVE


def load(variant):
    """The chooser for ``variant`` (loaded once per game, after a collection): its
    strongest net that the heap holds. ``long.bin`` (128 hidden units, 57 KB) and
    ``short.bin`` (256, 114 KB) are read in place from ROMFS (no heap) or fit a heap
    with PSRAM; read into a plain ESP32's heap one finds no room, or leaves less
    than ``RESERVE``, and ``long-small.bin`` or ``short-small.bin`` (64 units,
    28 KB) plays instead."""
    global _bot
    if _bot is not None and _bot.variant.name == variant.name and \
            _bot.variant.options == variant.options:
        return _bot
    _drop()
    from nardy.bot import Bot
    gc.collect()
    smaller = weights_path(variant.name + "-small")
    try:
        bot = Bot(variant, weights_path(variant.name))
    except MemoryError:
        bot = None
        if not _exists(smaller):
            raise
    gc.collect()
    if bot is None or (not bot.net.in_place() and _free() < RESERVE and _exists(smaller)):
        if bot is not None:
            bot.net.free()
        bot = None
        gc.collect()
        bot = Bot(variant, smaller)
    _bot = bot
    return _bot


def _drop():
    """Forget the chooser and free its weights themselves: a stale word on the stack
    may keep the ``Bot`` (the collector is conservative), never its net's KB."""
    global _bot
    if _bot is not None:
        _bot.net.free()
    _bot = None
    gc.collect()


def _exists(path):
    import os
    try:
        os.stat(path)
        return True
    except OSError:
        return False


def release():
    """Drop the chooser, its weights and its modules (the game is over): a game
    between two people after it pays nothing for the engine but the evaluator's
    module. That one (its viper code) stays once imported: machine code is never
    freed, and each import would copy it again (the ESP32 to IRAM, until reset)."""
    _drop()
    from nardy import drop_module
    drop_module("nardy.bot")
    drop_module("nardy.netfile")    # gone already on a board
    gc.collect()


def loaded():
    return _bot is not None


class Shown:
    """The turn the board chose and shows: ``steps`` (the mover's path points),
    ``result`` (the position after it), ``zones`` (sensing zones of each step),
    ``text`` (notation). ``WHO``: who plays it, for the warning (a remote player's
    name, ``nardy.remote``)."""

    WHO = ("The board", "the board")

    def __init__(self, variant, pos, steps, result, zone_of):
        from nardy.notation import format_turn
        self.steps = tuple(steps)
        self.result = result
        side = self.side = pos.turn
        self.zones = tuple((zone_of(variant, side, f), zone_of(variant, side, t))
                           for f, t in steps)
        # at the table: the board's printed labels, as its LEDs and warnings (RULES.md)
        self.text = format_turn(variant, pos, steps, table=True)
        self.warned = False        # the board shows another result: warned once
        self.warning = None        # (rule, text, zones) while warned
        self.hidden_asked = False  # a checker out of view: the tracker was asked
        self.auto_end = 1000       # the tracker's stillness auto-end, given back after

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


# -- the game's hooks (nardy.game calls these only when a side is the board's); they
# use only the Game's public surface: ``say``, ``changed``, ``roll``, ``set_up``,
# ``follow_tracker``, ``emit`` and what it reads. ``shown`` is the game's to set ---------

def _error(game, e):
    # no weights, or no room for them: the hands play the board's turns
    game.say(None, "the board cannot play: %s" % e)
    game.emit({"ev": "error", "error": "board player: %s" % e})


def load_for(game):
    """A game starts with a side set to the board: its chooser is read now, on a
    collected heap (the weights want room)."""
    if game.bot_setting() == "peer":
        return          # the other side is a remote player's: no engine
    try:
        load(game.variant)
    except (ValueError, OSError, MemoryError) as e:
        _error(game, e)


def start(game):
    """The turn starts: if it is the board's, choose it and show it; the ``Shown``
    (the game keeps it in ``shown``), None if the hands play this turn."""
    if game.bot_setting() == "peer":
        return _remote().start(game, Shown, show)
    if not plays(game.bot_setting(), game.pos.turn):
        return None
    try:
        sh = choose(game.variant, game.pos, game.dice, zone_of)
    except (ValueError, OSError, MemoryError) as e:
        _error(game, e)
        return None
    show(game, sh)
    return sh


def _remote():
    from nardy import remote
    return remote


def show(game, sh, emit=True):
    """``sh`` is the turn the hands carry out (the board's, or a remote player's):
    its LEDs and OLED, and the tracker ends it only on its result (``emit``: the
    ``bot`` event says it)."""
    t = game.tracker
    # no end on the stillness timer: the turn ends when the board shows the chosen
    # result (``tick``), never with another one
    if t.auto_end_ms < _NEVER:
        sh.auto_end = t.auto_end_ms
    t.auto_end_ms = _NEVER
    t.look_ahead = False
    if emit:
        game.emit({"ev": "bot", "side": COLORS[game.pos.turn], "text": sh.text,
                   "steps": [[a, b] for a, b in sh.steps],
                   "zones": [[a, b] for a, b in sh.zones]})


def end(game):
    """The board's turn is over (or the game): the tracker ends turns as before (the
    game then forgets ``shown``)."""
    game.tracker.auto_end_ms = game.shown.auto_end
    game.tracker.look_ahead = True


def roll_for(game, obs, opening):
    """Every cycle while a roll is next (the game's ROLL, or OPENING: ``opening``):
    roll for the board when the roll is its own and the board is set up."""
    if obs is None or game.setup or game.pos is None:
        return
    if game.bot_setting() == "peer":
        _remote().roll_for(game, obs, opening)
        return
    if opening:
        if game.bot_setting() != "both":
            return
    elif not plays(game.bot_setting(), game.pos.turn):
        return
    # the set-up is checked on this observation (once: a difference waits for
    # the next one, as ``observe`` does)
    if game.set_up(obs):
        game.roll()


def tick(game, obs, still_ms):
    """Every cycle while the board moves its own turn (the game's MOVE, ``shown``
    set): end its turn once the board shows it, warn while all dice are played and
    another result lies there."""
    sh = game.shown
    if sh.result is None:
        _remote().fill(game, Shown, show)    # a remote player's turn not here yet
        return
    if obs is None or not game.tracked:
        return
    t = game.tracker
    if t.state == CONFIRM:
        # several results fit what the sensors see: the board's own is the one
        for i in range(len(t.candidates)):
            if sh.matches(t.candidates[i][1]):
                t.confirm(i)
                game.follow_tracker(obs)
                return
        return
    if t.state == LIFTED:
        # still "in the hand" for long: the checker may lie where no sensor sees it
        # (a full tray or stack); asked once per stillness, as OK would ask
        if still_ms < t.hidden_end_ms:
            sh.hidden_asked = False
        elif not sh.hidden_asked:
            sh.hidden_asked = True
            t.fit_hidden(obs, False)
            game.follow_tracker(obs)
        return
    if t.state != IDLE:
        return
    if sh.matches(t.position):
        sh.warned = False
        t.end_turn(obs)
        game.follow_tracker(obs)
        return
    if still_ms < t.hidden_end_ms:
        sh.hidden_asked = False
    elif not sh.hidden_asked:
        # still for long: the rest of the shown turn may lie where no sensor tells a
        # change (off a full stack into a full tray), or the tracker's first guess of
        # steps onto a full stack is another order than the shown; asked once
        sh.hidden_asked = True
        if _unseen(game, obs):
            return
    other = not game.left() or sh.next_step(t.played) < len(t.played)
    if other != sh.warned:
        sh.warned = other
        if other:
            # built once: the UI asks for the warning on every LED frame
            sh.warning = (None, sh.WHO[0] + " plays " + sh.text, game.turn_zones())
            game.emit({"ev": "warn", "bot": sh.text, "reason": sh.WHO[1] + " plays " + sh.text})
        else:
            game.emit({"ev": "warn", "clear": True})
        game.changed()


def ok(game, obs):
    """OK on the board's turn: ends it only with the board's move on the board."""
    t = game.tracker
    if game.shown.result is None:
        return _remote().waiting(game)
    if t.state == IDLE and game.shown.matches(t.position):
        t.end_turn(obs)
        game.follow_tracker(obs)
        return True
    if _unseen(game, obs):
        return True
    game.say(None, game.shown.WHO[1] + " plays " + game.shown.text)
    return False


def peer_rolls(game, opening):
    """OK pressed for a roll (``opening``: the opening roll): True, with a message,
    when that roll is the remote player's board's (``nardy.remote``)."""
    return _remote().rolls_there(game, opening)


def _unseen(game, obs):
    """The board's move may be on the board, its last steps out of view: if what the
    sensors see fits it, end the turn with it."""
    if not game.tracker.end_shown(obs, game.shown.steps):
        return False
    game.follow_tracker(obs)
    return True


