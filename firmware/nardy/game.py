"""The match flow: opening roll, turns, passes, game end, match score, resignation.

Pure state machine over the tracker (``nardy.tracker``), scoring (``nardy.scoring``)
and the journal (``nardy.journal``). The app feeds it button presses, observations
and time; it commits every record to the journal *before* it emits the matching
protocol event (``emit``), so whatever the host or the OLED has seen is on flash.

Phases: SETUP (no game), OPENING (C2: press to roll one die each), ROLL (the side
to move presses to roll), ENTRY (manual dice being entered), MOVE (the tracker
follows the turn), GAME_END (result shown; press for the next game), MATCH_END.

Buttons (short / long press):
- ok: start, roll, hand over the dice (end the turn), pick the candidate shown;
  long: roll even though the board differs a little from the position (a sensor the
  players distrust; never on a board that is far from set up, ``_ROLL_ANYWAY``);
- accepting a result the rules reject is the opponent's decision (seed 001 §3.4),
  so it takes a deliberate gesture after a prompt: the mover's OK ends the turn and
  the screen asks "Opponent: hold OK to accept, BACK to take back"; only a long OK
  then records the turn as accepted. A short OK never does (a mover pressing OK
  twice has not accepted their own illegal turn). The same holds for a result the
  tracker could not follow (out of sync) whose observed position the rules reject;
- back: next candidate / next difference / step a die in manual entry / "take
  back" on the accept prompt (the mover must then play a legal turn); while
  playing, which checker goes back where (the wrong step, else the last one: the
  OLED and the LEDs; the hands move it, the board follows); long: the
  side to move resigns (S6; recorded as such), after a prompt: OK resigns, BACK
  (or MENU) keeps playing;
- the turn ends on the mover's OK (the mover "takes the dice", seed 001 §1.7, §3.4;
  until then the checkers may be rearranged). An end after some stillness is a
  setting (``auto_end``: ms, 0 = off, the default), counted down on the OLED. A
  short OK on a turn with nothing played yet ends nothing (a second press meant
  for the roll); a long one does, and the opponent decides (C5);
- menu is the app's (nardy.menu).
"""

from micropython import const  # CPython: the shim nardy/__init__.py installs

from nardy import drop_module, record
from nardy.dice import Dice, enter_die
from nardy.notation import position_id
from nardy.rules import COLORS
from nardy.scoring import Match, game_result, needs_last_roll, opening_winner
from nardy.tracker import Tracker, nothing_played
from nardy.zonefit import differences, zone_counts, zone_of  # noqa: F401 (game.zone_of: re-exported)

# nardy.tracker's states that are no turn state and nardy.rules' WHITE, as consts of
# this module (tests/firmware/test_game.py checks they are the same): imported names
# would be slots in its dict, which holds 47 (one more and it grows to 59: 192 bytes
# of the 56wK heap). ``gc`` is imported where it is used, for the same reason.
_IDLE = const("idle")
_VERDICT = const("verdict")
_DONE = const("done")
_WHITE = const(0)

SETUP = "setup"
OPENING = "opening"
ROLL = "roll"
ENTRY = "entry"
MOVE = "move"
GAME_END = "game_end"
MATCH_END = "match_end"

# What a turn in MOVE waits for (``Game.turn_state``, ``dump``'s ``turn_state``): each
# name is its word, and LIFTED .. CONFIRM are the tracker's states of the same name
# (the same strings: the game compares the tracker's state with them).
PLAYING = "playing"        # dice left to play
LIFTED = const("lifted")   # a checker in the hand: its targets are lit
TURN_DONE = "turn_done"    # no die left that can be played: OK ends the turn
ILLEGAL = const("illegal")  # a step broke a rule: take it back, or OK ends the turn
SYNC = const("sync")       # the board cannot be explained: fix the lit point
CONFIRM = const("confirm")  # several results match: BACK cycles, OK picks
ACCEPT = "accept"          # the result breaks a rule: the opponent decides
TAKE_BACK = "take_back"    # the opponent refused: the mover plays a legal turn
HIT = "hit"                # a hit half done: the blot goes to the bar (S2)


# What the board says to a press (the OLED shows ``Game.message``): one place each
# (const: no entry in the module's dict, which is at the size the heap allows).
_ASK_RESIGN = const("%s resigns? OK: resign, BACK: play on")
_PLAY_FIRST = const("nothing played: play the dice (hold OK: end the turn anyway)")
_NO_MOVE = const("no legal move for this checker")
_HIT_HALF = const("Hit: put the checker from P%d on the bar")
_HIT_OK = const("finish the hit first (hold OK: end the turn as it stands)")
_BACK_WRONG = const("take it back: the checker on P%d goes back to P%d")
_BACK_STEP = const("to take a step back, put the checker on P%d back on P%d")
_AUTO_END = const("the turn ends by itself in %d s")


def variant_for(name, options):
    """The rules engine for a game (``nardy.variants.find_variant``). The registry,
    which imports both games, is on the heap only for this call: 56wK has no room to
    keep it, nor the other variant's module. The module of the game asked for stays
    loaded (its class lives as long as the game anyway): each ``new`` or ``set``
    checks its options through the registry (``nardy.setcheck``), and a dropped
    module would make that class a second time beside the one in play, with the
    board's player still loaded (a MemoryError at 56wK, 3 boards in 100)."""
    from nardy import variants
    try:
        return variants.find_variant(name, options)
    finally:
        variants = None
        drop_module("nardy.variants")
        drop_module("nardy.shortnardy" if name == "long" else "nardy.longnardy")


def board_diffs(variant, pos, obs, cap):
    """Where the board differs from ``pos``: [(zone, colour, expected, seen)]."""
    return differences(zone_counts(variant, pos), obs, cap)


# The "hold OK: roll anyway" escape is for a sensor the players distrust: a board
# that differs by at most this many checkers. An empty or half-set board is not a
# sensor fault: it gets set up first (the LEDs and the OLED guide it).
_ROLL_ANYWAY = const(2)


def misplaced(diffs, cap):
    """How many checkers the differences ``board_diffs`` found are away from where
    they belong: (white to place, black to place, extra ones seen elsewhere)."""
    need = [0, 0]
    extra = 0
    for z, c, n, s in diffs:
        shown = n if n <= cap[z] else cap[z]
        if s > n:
            extra += s - n
        elif s < shown:
            # fewer than the slots can show: the point holds exactly what is seen
            need[c] += n - s
    return need[0], need[1], extra


def dice_left(dice, steps):
    """Dice not used yet by ``steps`` (a bear-off uses the smallest die that covers
    it; an illegal step's distance may match no die: then nothing is taken)."""
    if not dice:
        return []
    left = [dice[0]] * 4 if dice[0] == dice[1] else [dice[0], dice[1]]
    for f, t in steps:
        d = t - f if f else t
        if d in left:
            left.remove(d)
        elif t == 25:
            best = None
            for x in left:
                if x >= d and (best is None or x < best):
                    best = x
            if best is not None:
                left.remove(best)
    return left


class Game:
    def __init__(self, journal, layout, emit, dice=None, settings=None):
        self.journal = journal
        self.layout = layout
        self.emit = emit
        self.dice_src = dice or Dice()
        self.settings = settings if settings is not None else {}
        self.revision = 0        # bumps on every change the UI should redraw
        self.tracker = None
        self._spare = None       # the last game's tracker, made again for the next
        self._clear()            # phase, variant, tracker, match; the game's state
        self.setup = []          # differences while waiting for a roll
        self.refused = False     # the opponent pressed BACK on the accept prompt
        self.entry = None
        self.cand_i = 0
        self.tracked = False     # the tracker has seen an observation this turn
        self.obs = None          # the last whole observation (the Sensing object)
        self.match_no = 0
        self.game_no = 0
        self.shown = None        # the board's own turn being shown (nardy.botplay)
        self._auto_s = -1        # the auto-end countdown's whole seconds last shown
        self.back_shown = None   # BACK pressed: (from, to) zones of the step to take back
        self.lights_now = False  # the LEDs changed with this scan: drawn at once
        # the sensing's lift before its debounce (``Sensing.early_zone``): its zone,
        # and the targets the LEDs light at once (None: none to show)
        self.early_lift = 0
        self.early_targets = None

    # -- helpers (``changed`` and ``say`` are public: the board's player calls them) -----
    def changed(self):
        """The UI should redraw (the OLED and the LEDs follow ``revision``)."""
        self.revision += 1

    def _commit(self, ev, rec):
        seq = self.journal.append(rec)
        self.emit({"ev": ev, "game": self.gid, "seq": seq, "rec": rec})
        return seq

    def say(self, rule, text):
        """``text`` on the OLED (with the rule id ``rule``, or None for a hint) until
        the next action."""
        self.message = (rule, text)
        self.changed()

    def side_to_move(self):
        return None if self.pos is None else self.pos.turn

    def left(self):
        if self.dice is None:
            return []
        return dice_left(self.dice, self.jsteps)

    def state(self):
        """Plain data for ``dump`` and tests (nardy.gamestate: its code is on the heap
        only while it runs)."""
        # a collection first: the imports want blocks the last turn's garbage may hide
        import gc
        gc.collect()
        from nardy import gamestate
        try:
            return gamestate.state(self, self.phase == MOVE, _auto_end_left(self))
        finally:
            gamestate = None
            drop_module("nardy.gamestate")
            drop_module("nardy.posjson")    # only ``dump`` needs it

    # -- starting -------------------------------------------------------------------------
    def _abandon(self):
        """Close the game being played with an ``abandoned`` end record, so it is
        over in the journal too: never resumed, and ``confirm`` deletes it."""
        j = self.journal
        if self.gid is None or self.result is not None or j.current != self.gid or j.ended:
            return
        try:
            self._commit("game_end", record.abandoned())
        except OSError:
            pass    # a full flash: the game stays open, but a newer one is resumed

    def _clear(self):
        """No game, no match (a game that could not be resumed)."""
        self.phase = SETUP
        self.variant = None
        self._drop_tracker()
        self.match = None
        self.gid = None
        self.pos = None
        self._reset_game()
        self.changed()

    def _reset_game(self):
        """What one game holds, as before its first roll. Every way into a game or out
        of one (``new_game``, ``resume``, ``restore_match``, ``_clear``) starts from
        here: nothing of the last game (its last move on the LEDs, a message on the
        OLED, a resign question) is left in the next."""
        self.n = 0
        self.dice = None
        self.jsteps = []         # the current turn's steps as the journal has them
        self.opening = []        # opening tries (C2)
        self.last_move = []      # zones of the opponent's last turn (until the roll)
        self.last_roll = False   # L7: black's extra roll is being played
        self.result = None
        self.resigned = None     # the colour that resigned the game just ended
        self.resigning = False   # BACK held: "resign?" waits for OK or BACK
        self.message = None      # (rule id or None, text): shown until the next action

    def _match_state(self):
        m = self.match
        return {"variant": self.variant.name, "options": dict(self.variant.options),
                "length": m.length, "score": list(m.score),
                "white_player": m.white_player, "game": self.game_no,
                "no": self.match_no}

    def _drop_tracker(self):
        """The game's tracker goes (its tables with it), the object is kept for the
        next game (``Tracker.spare``)."""
        t = self.tracker
        self.tracker = None
        if t is not None:
            t.spare()
            self._spare = t

    def _new_tracker(self, v):
        self._drop_tracker()
        t = self._spare
        self._spare = None
        if t is None:
            t = Tracker(v, self.layout)
        else:
            t.__init__(v, self.layout)
        self.tracker = t

    def restore_match(self, m):
        """The match between two games, as ``Journal.load_match`` read it (checked
        by record.check_match): waits for OK to start its next game."""
        try:
            v = variant_for(m["variant"], m.get("options") or {})
            self.variant = v
            self._new_tracker(v)
            self.match = Match(v, m["length"], m.get("white_player", 0))
            self.match.score = [m["score"][0], m["score"][1]]
            self.game_no = m["game"]
            self.match_no = m.get("no", 1)
        except (ValueError, KeyError, TypeError, IndexError):
            self._clear()
            raise
        self.gid = None
        self.pos = None
        self._reset_game()
        self.phase = MATCH_END if self.match.over else GAME_END
        self.changed()

    def new_match(self, variant_name=None, length=None, options=None):
        self._abandon()
        s = self.settings
        name = variant_name or s.get("variant", "long")
        opts = options if options is not None else s.get("options", {}).get(name, {})
        # The last game's engine, tracker and match go before the new variant is
        # loaded: at 56wK both do not fit beside the import (a MemoryError in
        # ``new``). The game is over in the journal already (_abandon).
        self._drop_tracker()
        self.variant = self.match = None
        self.shown = None
        _release_engine()     # an abandoned game of the board's kept its engine (~8 KB)
        # collected now, so the new engine's tables (a ~600-byte attribute table
        # among them) are placed in the holes the old game left
        import gc
        gc.collect()
        try:
            try:
                v = variant_for(name, opts)
            except MemoryError:
                # a heap too fragmented for the variant's ~600-byte attribute table
                # (seen once in CI at 56wK): the spare tracker's table (~1 KB) goes,
                # leaving a hole it fits in, and the tracker is made anew below
                self._spare = None
                gc.collect()
                v = variant_for(name, opts)
        except (ValueError, TypeError):
            self._clear()
            raise
        self.variant = v
        self._new_tracker(v)
        if self.bot_setting() != "none":
            # The largest blocks first, while the last game's room is free: the
            # tracker's table (~1 KB), then the board's player (blocks of 260-512
            # bytes), then the match, the journal header and the rest. Read last
            # (new_game), the player found only the holes they left: at 56wK its
            # load failed on 2 boards in 100. Read before the tracker, the tracker's
            # table found no room on some boards. new_game then finds it loaded.
            _botplay().load_for(self)
        self.match = Match(v, int(length or s.get("match", 1)))
        self.match_no += 1
        self.game_no = 0
        return self.new_game()

    def new_game(self):
        """Start the next game of the match. False (with a message) when the flash
        is full: the board never deletes an unconfirmed game to make room."""
        if self.match is None or self.match.over:
            return self.new_match()
        v = self.variant
        start = v.start_position(_WHITE)
        meta = {"match": {"length": self.match.length, "score": list(self.match.score),
                          "white_player": self.match.white_player,
                          "game": self.game_no + 1, "no": self.match_no}}
        if self.bot_setting() != "none":
            meta["bot"] = self.bot_setting()
        # L8: after the first game of a long-nardy match the player who had black
        # starts, as white, without an opening roll: the header says who is first
        first = _WHITE if v.name == "long" and self.game_no > 0 else None
        hdr = record.game(v, start, meta, first)
        try:
            self.gid = self.journal.start(hdr)
        except OSError as e:
            full = e.args and e.args[0] == 28
            self.say(None, "flash full: send games to the host" if full
                     else "journal unusable: see errors")
            self.emit({"ev": "error", "error": "new game refused: %s" % e})
            return False
        self.emit({"ev": "game", "game": self.gid, "seq": 0, "rec": hdr})
        self.game_no += 1
        self.pos = start
        self._reset_game()
        # L8: after the first game of a long-nardy match the player who had black
        # starts, as white, without an opening roll; short nardy rolls every game (C2).
        if v.name == "long" and self.game_no > 1:
            self.phase = ROLL
        else:
            self.phase = OPENING
        if self.bot_setting() != "none":
            _botplay().load_for(self)
        self.changed()
        return True

    # -- resume after boot ------------------------------------------------------------------
    def resume(self, gid, recs):
        """Rebuild the state from a game's records (an iterable, as a
        ``record.Reader``: read one at a time). If they do not make a game, the
        error is raised with the game cleared (SETUP): half a game left behind would
        fail on every scan."""
        # the code is on the heap only while it runs (boot, a test): nardy.resume
        from nardy import resume
        try:
            stage = resume.load(self, gid, recs)
            if stage == "end":
                self.phase = MATCH_END if self.match.over else GAME_END
            elif stage == "roll":
                self.phase = MOVE
                self.tracker.auto_end_ms = self.settings.get("auto_end", 0)
                self._auto_s = -1
                self.tracker.start_turn(self.pos, self.dice)
                resume.replay(self.tracker, self.jsteps)     # the partial turn on flash
                self.tracked = False
                if self.bot_setting() != "none":
                    self.shown = _botplay().start(self)
            elif stage == "start" and (self.variant.name != "long" or self.game_no == 1):
                self.phase = OPENING
            else:
                self.phase = ROLL
            self.changed()
        except (ValueError, KeyError, TypeError, IndexError, AttributeError):
            self._clear()
            raise
        finally:
            resume = None
            drop_module("nardy.resume")

    # -- rolling ----------------------------------------------------------------------------
    def roll(self):
        """The dice of the phase: the opening roll (C2) in OPENING, the mover's in ROLL
        (in manual dice mode: their entry)."""
        if self.phase == OPENING:
            tries = self.dice_src.opening()
            self.opening = tries
            w, b = tries[-1]
            first = opening_winner(w, b)
            self._commit("roll", record.opening(tries, first))
            self.pos.turn = first
            if self.variant.options.get("opening_dice_played"):
                self._start_turn((max(w, b), min(w, b)))
            else:
                self.phase = ROLL
                self.changed()
        elif self.settings.get("dice") == "manual":
            self.entry = bytearray((1, 1, 0))   # the two dice, which is entered
            self.phase = ENTRY
            self.changed()
        else:
            self._start_turn(self.dice_src.roll())

    def set_up(self, obs):
        """True if ``obs`` shows the position to roll from; else the differences are
        kept in ``setup`` (the LEDs and the OLED guide the hands) and it waits for the
        next observation, as ``observe`` does."""
        d = board_diffs(self.variant, self.pos, obs, self.layout.cap)
        if d:
            self.setup = d
            self.changed()
        return not d

    def enter_dice(self, dice):
        """Dice rolled by hand, from the buttons or the host (``roll`` command)."""
        if self.phase not in (ROLL, ENTRY):
            return False
        self.entry = None
        self._start_turn((dice[0], dice[1]))
        return True

    def _start_turn(self, dice):
        self.dice = dice
        self.jsteps = []
        self.last_move = []
        self.message = None
        self.back_shown = None
        self.early_lift = 0
        self.early_targets = None
        side = self.pos.turn
        self._commit("roll", record.roll(self.n + 1, side, dice))
        if self.variant.max_steps(self.pos, dice) == 0:
            # C5: no die can be played; the turn passes and the dice are lost
            self.say("C5", "%s cannot move: pass" % COLORS[side])
            after = self.pos.copy()
            after.turn = 1 - side
            self._end_turn((), after, False, None)
            return
        self.phase = MOVE
        self.cand_i = 0
        # ms of stillness that end a played-out turn by itself, 0: only OK does (the
        # board's own turn: botplay sets its own)
        self.tracker.auto_end_ms = self.settings.get("auto_end", 0)
        self._auto_s = -1
        if self.bot_setting() != "none":
            self.shown = _botplay().start(self)
        # The board as last seen starts the turn: the tracker then knows what the
        # first lift took away (and takes its fast path) instead of meeting the
        # whole board as news.
        obs = self.obs
        self.tracker.start_turn(self.pos, dice, obs)
        self.tracked = obs is not None
        if obs is not None:
            self.follow_tracker(obs)
        self.changed()

    # -- the turn -----------------------------------------------------------------------------
    def observe(self, obs):
        """A new whole observation (``Sensing.ready``)."""
        self.obs = obs
        if self.phase == MOVE:
            self.tracker.update(obs)
            self.tracked = True
            self.follow_tracker(obs)
        elif self.phase in (ROLL, OPENING) and self.pos is not None:
            d = board_diffs(self.variant, self.pos, obs, self.layout.cap)
            if d != self.setup:
                self.setup = d
                if not d and self.message is not None and self.message[0] is None:
                    self.message = None      # "set up the board first": done
                self.emit({"ev": "sync", "diffs": [list(x) for x in d], "setup": True})
                self.changed()

    def tick(self, obs, still_ms):
        if self.phase == MOVE and obs is not None and self.tracked:
            self.tracker.tick(obs, still_ms)
            if self.tracker.events:
                # only then: calling follow_tracker (a big frame, which MicroPython
                # puts on the heap) would allocate on every scan
                self.follow_tracker(obs)
            if self.tracker.auto_end_left >= 0 or self._auto_s >= 0:
                _count_down(self)
            # a lift on its first scan, before the debounce: the LEDs light its
            # targets now (``Sensing.early_zone``); the call only on a change (its
            # frame, which MicroPython puts on the heap, would cost 32 bytes a scan)
            if obs.early_zone != self.early_lift:
                _preview(self, obs)
        # (ph == ROLL or ph == OPENING), not ``ph in (ROLL, OPENING)``: that tuple
        # would be built on the heap every scan (32 bytes a cycle; the app's cycle
        # allocates nothing, so the collector never runs in a still turn)
        # The game tells the board's player which of its phases this is: botplay never
        # imports the game back
        ph = self.phase
        if ph == ROLL or ph == OPENING:  # noqa: SIM109
            if self.bot_setting() != "none":
                _botplay().roll_for(self, obs, ph == OPENING)
        elif ph == MOVE and self.shown is not None:
            _botplay().tick(self, obs, still_ms)

    def follow_tracker(self, obs):
        """What the tracker did since (its events): journaled, sent, shown; the turn
        ends here when the tracker finished it. Called after every call on the
        tracker that may change it (the board's player's too)."""
        t = self.tracker
        ev = t.events
        if not ev:
            return
        t.events = []
        self.back_shown = None
        if self.message is not None and self.message[0] is None and not self.resigning:
            self.message = None   # a hint about a press: the board moved on
        on = self._ON_EVENT
        for e in ev:
            f = on.get(e[0])        # steps and the turn: read from the tracker below
            if f is not None:
                f(self, e)
        self._sync_steps()
        if not self.resigning and self.message is None:
            # what the board now waits for that the mover may not guess (shown until
            # the board changes): a checker with no legal step, a hit half done
            if t.stuck and t.state != _DONE:
                self.message = (None, _NO_MOVE)
            elif t.state == SYNC and t.hit:
                self.message = (None, _HIT_HALF % t.hit)
        if not self.awaiting_accept():
            self.refused = False
        if t.state == _DONE and t.result is not None:
            r = t.result
            self._end_turn(r["steps"], r["position"], r["accepted"], r["rule"])
        self.changed()

    # -- what each tracker event becomes (``tracker.EV_*``) ------------------------
    def _on_warn(self, e):
        self._commit("warn", record.warn(self.n + 1, e[1], e[2], e[3]))

    def _on_verdict(self, e):
        self._commit("warn", record.warn(self.n + 1, e[1], e[2]))

    def _on_clear(self, e):
        self.emit({"ev": "warn", "clear": True})

    def _on_sync(self, e):
        self.emit({"ev": "sync", "diffs": [list(x) for x in e[1]]})

    def _on_resync(self, e):
        self.emit({"ev": "sync", "diffs": []})

    def _on_lift(self, e):
        ev = {"ev": "lift", "zones": list(e[1]), "targets": list(e[2])}
        if self.tracker.stuck and e[1]:
            ev["no_move"] = True        # the checker in the hand has no legal step
        # the LEDs with this scan (App.cycle), not at the UI task's next look: a lift
        # off long nardy's head is seen on its first scan too (nardy.zonefit)
        self.lights_now = True
        self.emit(ev)

    def _on_confirm(self, e):
        self.cand_i = 0
        # the positions in the order BACK cycles them (the host can pick)
        pids = [position_id(self.variant, c[1]) for c in self.tracker.candidates]
        self.emit({"ev": "confirm", "candidates": e[1], "positions": pids})

    # keyed by the kinds' words (tracker.EV_WARN is "warn" ...): importing the
    # names would cost heap on the board; tests/firmware/test_game.py checks them
    _ON_EVENT = {"warn": _on_warn, "verdict": _on_verdict, "clear": _on_clear,
                 "sync": _on_sync, "resync": _on_resync, "lift": _on_lift,
                 "confirm": _on_confirm}

    def _sync_steps(self):
        """Make the journal's partial turn equal the tracker's (undo + step lines)."""
        played = list(self.tracker.played)
        js = self.jsteps
        i = 0
        while i < len(js) and i < len(played) and js[i] == played[i]:
            i += 1
        while len(js) > i:
            st = js[-1]
            self._commit("step", record.step(self.n + 1, st, undo=True))
            js.pop()
        for j in range(i, len(played)):
            st = played[j]
            self._commit("step", record.step(self.n + 1, st))
            js.append(st)

    def _end_turn(self, steps, after, accepted, rule):
        if self.shown is not None:
            _botplay().end(self)
            self.shown = None
        if self.resigning:
            # the question was the mover's: the turn ended under it (the auto-end)
            _ask_resign(self, "back")
        v = self.variant
        self.refused = False
        side = self.pos.turn
        self.n += 1
        rec = record.turn(v, self.n, side, self.dice, steps, after, accepted, rule)
        if self.last_roll:
            rec["last_roll"] = True
        self._commit("turn", rec)
        self.last_move = []
        for f, t in steps:
            self.last_move.append(zone_of(v, side, f))
            self.last_move.append(zone_of(v, side, t))
        self.pos = after.copy()
        self.pos.turn = 1 - side
        self.dice = None
        self.jsteps = []
        res = game_result(v, self.pos, last_roll_done=self.last_roll)
        if res is None and needs_last_roll(v, self.pos):
            self.last_roll = True     # L7: black rolls once more
            self.say("L7", "black's last roll")
        if res is not None:
            self._finish(res)
        else:
            self.phase = ROLL
        self.changed()

    def _finish(self, res, resigned=None):
        rec = record.end(res[0], res[1], res[2])
        if resigned is not None:
            rec["resigned"] = COLORS[resigned]
        self.result = res
        self._commit("game_end", rec)
        self.match.record(res)
        # between games the match lives in match.json: a power cut loses nothing
        self.journal.save_match(None if self.match.over else self._match_state())
        self.phase = MATCH_END if self.match.over else GAME_END
        self.dice = None
        if self.shown is not None:
            _botplay().end(self)
            self.shown = None
        _release_engine()
        self.changed()

    def resign(self):
        """The side to move resigns (S6), at once: ``press`` asks first."""
        self.resigning = False
        if self.phase not in (ROLL, ENTRY, MOVE, OPENING) or self.pos is None:
            return False
        loser = self.pos.turn
        self.resigned = loser
        self.message = None
        self._finish(self.match.resign(loser), resigned=loser)
        return True

    # -- buttons ---------------------------------------------------------------------------------
    def press(self, name, kind, obs=None):
        """A button event; returns True if it did something."""
        if obs is not None:
            self.obs = obs
        obs = self.obs
        ph = self.phase
        long = kind == "long"
        if self.resigning:
            return _ask_resign(self, name)
        if name == "back" and long:
            return _ask_resign(self, None)
        if ph == ENTRY:
            if long:
                return False
            dice = enter_die(self.entry, name)
            if dice is not None:
                self.enter_dice(dice)
            self.changed()
            return True
        if name == "ok":
            if ph in (SETUP, GAME_END, MATCH_END):
                return self.new_game() if ph == GAME_END else self.new_match()
            if ph in (OPENING, ROLL):
                if self.bot_setting() == "peer" and _botplay().peer_rolls(self, ph == OPENING):
                    return False
                if self.setup and not (long and self.may_roll_anyway()):
                    _refuse(self, "set up the board first")
                    return False
                self.roll()
                return True
            if ph == MOVE and self.shown is not None:
                return _botplay().ok(self, obs)
            if ph == MOVE:
                return self._ok_move(long, obs)
            return False
        if name == "back" and ph == MOVE:
            t = self.tracker
            if t.state == CONFIRM and t.candidates:
                self.cand_i = (self.cand_i + 1) % len(t.candidates)
            elif self.awaiting_accept():
                # the opponent wants a legal turn: the mover takes the move back (the
                # tracker follows the checkers and leaves the verdict by itself)
                self.refused = True
            elif t.state == SYNC and not t.hit:
                t.next_diff()
            else:
                # the hands take a step back (the board follows the checkers, it
                # cannot move them): which checker goes where, OLED and LEDs
                step = _back_step(self)
                if step is not None:
                    self.back_shown = step
                    self.say(None, (_BACK_WRONG if t.state == ILLEGAL else _BACK_STEP)
                             % (step[1], step[0]))
            self.changed()
            return True
        return False

    def _ok_move(self, long, obs):
        t = self.tracker
        if t.state == SYNC and t.hit and not long:
            # the hitting checker is down, the blot not yet on the bar (S2)
            _refuse(self, _HIT_OK)
            return False
        if t.state == CONFIRM:
            t.confirm(self.cand_i)
        elif self.awaiting_accept():
            if not long:
                # the mover's (or anyone's) short press: never an acceptance
                _refuse(self, "opponent: hold OK to accept")
                return False
            t.accept(obs)
            if t.state != _DONE:
                return False
        elif not long and nothing_played(t, obs):
            # nothing played (the dice were just rolled: a second press, meant for
            # the roll): a turn without a step breaks C5, ended only on purpose
            _refuse(self, _PLAY_FIRST)
            return False
        else:
            # also out of sync: the tracker judges the board as it stands (a legal
            # result is the turn; one the rules reject becomes a VERDICT, above)
            t.end_turn(obs)
        self.follow_tracker(obs)
        self.changed()
        return True

    def may_roll_anyway(self):
        """Hold OK rolls on a board that differs only a little (a distrusted sensor)."""
        need_w, need_b, extra = misplaced(self.setup, self.layout.cap)
        return need_w + need_b + extra <= _ROLL_ANYWAY

    def turn_state(self):
        """What the turn in MOVE waits for (PLAYING .. TAKE_BACK), or None."""
        if self.phase != MOVE:
            return None
        t = self.tracker
        st = t.state
        if self.awaiting_accept():
            return TAKE_BACK if self.refused else ACCEPT
        if st == ILLEGAL:
            return ILLEGAL
        if st == SYNC:
            return HIT if t.hit and t.warning is None else SYNC
        if st == CONFIRM:
            return CONFIRM
        if t.lifted:
            return LIFTED
        if st == _IDLE and (not self.left() or len(t.hyps) == 1
                            and not t.next_steps(t.played)):
            # every die played, or none left can be (C5: checkers on the bar that
            # cannot enter, long nardy's blocked six): OK ends the turn, as it does
            return TURN_DONE
        return PLAYING

    def turn_zones(self):
        """The zones the turn so far moved checkers from and to (what a verdict on the
        whole turn points at)."""
        v = self.variant
        side = self.pos.turn
        out = []
        for f, t in self.jsteps:
            for k in (f, t):
                z = zone_of(v, side, k)
                if z not in out:
                    out.append(z)
        return out

    def awaiting_accept(self):
        """The turn is over and the rules reject its result: the opponent decides
        (hold OK: accept as played; BACK: take back)."""
        if self.phase != MOVE:
            return False
        st = self.tracker.state
        return st == _VERDICT

    # -- for the UI ----------------------------------------------------------------------------
    def warning(self):
        """(rule, text, zones) of the warning to show, or None."""
        if self.phase != MOVE:
            return None
        st = self.tracker.state
        if self.shown is not None and self.shown.warned and st == _IDLE:
            return self.shown.warning
        if st in (ILLEGAL, _VERDICT, SYNC):
            # out of sync too: a checker off the board is a warning (C1) until put back
            return self.tracker.warning
        return None

    def sync_diff(self):
        """The out-of-sync difference to show: (zone, colour, expected, seen)."""
        if self.phase == MOVE and self.tracker.state == SYNC:
            return self.tracker.diff()
        if self.phase in (ROLL, OPENING) and self.setup:
            return self.setup[0]
        return None

    # -- the board as a player: hooks into nardy.botplay, imported only when a side is
    # the board's (its code stays off the heap otherwise) ---------------------------------
    def bot_setting(self):
        # "peer": the broker's ``peer`` plays the other side (nardy.remote, through
        # botplay's hooks); the board's engine plays none then
        m = self.settings.get("mqtt")
        return "peer" if m and "peer" in m else self.settings.get("bot", "none")


def _botplay():
    from nardy import botplay
    return botplay


def _release_engine():
    """The board's player leaves the heap with its game; the next game that has one
    reads it again (botplay.load)."""
    import sys
    if "nardy.botplay" in sys.modules:
        _botplay().release()


# -- the table's hints, the resign question, the countdown, the early lights: module
# functions, not methods (the Game class's dict is at the size the heap allows) ------

def _refuse(g, text):
    """A press that does nothing, and why: on the OLED and, as a ``refused`` event,
    in the host's log."""
    g.say(None, text)
    g.emit({"ev": "refused", "text": text})


def _ask_resign(g, name):
    """BACK held: a resignation ends the game, so it is asked first (a long press can
    be an accident; the game goes on meanwhile). ``name``: the answer, the button
    pressed while it is open (OK resigns; BACK or MENU: play on), or None to ask."""
    if name is not None:
        if name == "ok":
            return g.resign()
        g.resigning = False
        g.message = None
        g.emit({"ev": "resign", "ask": False})
        g.changed()
        return True
    if g.phase not in (ROLL, ENTRY, MOVE, OPENING) or g.pos is None:
        return False
    g.resigning = True
    g.say(None, _ASK_RESIGN % COLORS[g.pos.turn])
    g.emit({"ev": "resign", "ask": True, "side": COLORS[g.pos.turn]})
    return True


def _back_step(g):
    """(zone it came from, zone it is on) of the step BACK would take back: the wrong
    one, else the last one; None when there is none."""
    t = g.tracker
    w = t.warning
    if t.state == ILLEGAL and w is not None and len(w[2]) == 2:
        return w[2][0], w[2][1]
    if g.jsteps and t.state == _IDLE:
        f, to = g.jsteps[-1]
        side = g.pos.turn
        return zone_of(g.variant, side, f), zone_of(g.variant, side, to)
    return None


def _auto_end_left(g):
    """ms until the turn ends by itself (the countdown), or -1."""
    if g.phase != MOVE or g.shown is not None or g.tracker is None:
        return -1
    return g.tracker.auto_end_left


def _count_down(g):
    """The auto-end countdown: on the OLED (the message line), redrawn once a second;
    an ``auto_end`` event when it starts (ms left) or stops before the end (ms
    null)."""
    left = _auto_end_left(g)
    sec = -1 if left < 0 else (left + 999) // 1000
    if sec == g._auto_s:
        return
    if g._auto_s < 0:
        g.emit({"ev": "auto_end", "ms": left})
    elif sec < 0 and g.phase == MOVE and g.tracker.state != _DONE:
        g.emit({"ev": "auto_end", "ms": None})
    counting = g.message is not None and g.message[1].startswith(_AUTO_END[:16])
    if sec >= 0 and (g.message is None or counting):
        g.message = (None, _AUTO_END % sec)
    elif sec < 0 and counting:
        g.message = None
    g._auto_s = sec
    g.changed()


def _preview(g, obs):
    """The sensing's early lift changed: the targets of the mover's checker lifted
    there (``Tracker.preview``), for the LEDs at once (App.cycle draws them)."""
    z = obs.early_zone
    g.early_lift = z
    tg = g.tracker.preview(z, obs.early_col) if z else None
    if tg is not None or g.early_targets is not None:
        g.early_targets = tg
        g.lights_now = True
        g.changed()
