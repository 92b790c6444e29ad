"""Move tracking: what the sensors see, explained by the rules engine.

Given the position at the start of the turn and the dice, the tracker follows the
observation (``Sensing``: checkers seen per zone) and keeps the partial turn that
explains it. Output is plain data for the UI, the journal and the protocol:

- ``state``: IDLE (board matches), LIFTED (checkers in the hand), ILLEGAL (a step
  breaks a rule: ``warning``), SYNC (the board cannot be explained: ``diffs``),
  CONFIRM (several results match: ``candidates``), VERDICT (the finished turn is
  illegal: ``warning``, the opponent may ``accept()``), DONE (``result``);
- ``lifted``: zones checkers were lifted from; ``targets``: zones the lifted checker
  may go to (legal next steps only, "off" is the mover's tray zone);
- ``events``: a list of tuples the caller drains, each starting with its kind
  (``EV_*`` below, with their fields); the kinds are the protocol's words.
- A board no partial turn explains is never a turn by itself: ``end_turn`` judges
  the position it shows (a VERDICT only the opponent's ``accept()`` records, as that
  position, or a warning while a checker is off the board).

How observations are explained (candidates, their order, hidden steps, warnings,
verdicts, a lift off a stack the slots cannot resolve): docs/sensing-and-tracking.md.
Zones and the fitting of a position to an observation: ``nardy.zonefit``.

Zones are those of ``nardy.zones``: 1..24 = P1..P24, 25 bar, 26/27 white's/black's
tray. Counts a zone can tell are capped (``Layout.cap``): a stack higher than that
hides lifts, which the legal moves and the end of the turn then resolve.
"""

from micropython import const  # CPython: the shim nardy/__init__.py installs

from nardy.rules import BLACK, WHITE
from nardy.zonefit import EXCESS, FIXED, IN_HAND, NOPATH, ZoneFit, differences

# The states are their own words (``dump``'s ``tracker``, docs/PROTOCOL.md), the same
# word under the same name as the game's turn states (``nardy.game``: LIFTED, ILLEGAL,
# SYNC, CONFIRM). const: the module's own comparisons use the string in place (an
# interned string: compared by identity, as fast as a small int).
IDLE = const("idle")
LIFTED = const("lifted")
ILLEGAL = const("illegal")
SYNC = const("sync")
CONFIRM = const("confirm")
VERDICT = const("verdict")
DONE = const("done")

# Event kinds (``Tracker.events``) and what follows the kind in each tuple. The game
# dispatches on the kind (``Game._ON_EVENT``); field-less events are shared tuples.
EV_LIFT = "lift"          # zones, targets; (EV_LIFT, (), ()): a stack lift put back
EV_STEP = "step"          # (from, to): a step was played
EV_UNDO = "undo"          # (from, to): a step was taken back
EV_WARN = "warn"          # rule, reason, zones: a step breaks a rule
EV_CLEAR = "clear"        # the warning is gone
EV_SYNC = "sync"          # diffs [(zone, colour, expected, seen)]: board unexplained
EV_RESYNC = "resync"      # explained again
EV_CONFIRM = "confirm"    # n: several results match (``candidates``)
EV_VERDICT = "verdict"    # rule, reason: the finished turn breaks a rule
EV_TURN = "turn"          # steps, accepted, rule: the turn is over (``result``)
_CLEAR = (EV_CLEAR,)
_RESYNC = (EV_RESYNC,)
_PUT_BACK = (EV_LIFT, (), ())

_MAX_HYPS = const(6)
# A hypothesis (partial turn): (played steps, chain of positions from the start,
# flags: 1 where a step is illegal)
_H_PLAYED = const(0)
_H_CHAIN = const(1)
_H_FLAGS = const(2)
# A candidate explanation: (in_hand, penalty, kind, nsteps, hyp), compared in that
# order; kind: the partial turn as it is, steps taken back, new steps, back and new.
_C_HAND = const(0)
_C_PEN = const(1)
_C_KIND = const(2)
_C_STEPS = const(3)
_C_HYP = const(4)
_K_AS_IS = const(0)
_K_BACK = const(1)
_K_NEW = const(2)
_K_BACK_NEW = const(3)
# An illegal-step explanation (_relocations): (in_hand, hyp, step, position, rank)
_B_HAND = const(0)
_B_HYP = const(1)
_B_STEP = const(2)
_B_POS = const(3)
_B_RANK = const(4)
# A stack lift (ZoneFit._watch_scan) is shown only once no class has changed for this long:
# a checker put down next to the stack moves its readings too, and the step it makes
# is seen (and the watch re-armed) within the debounce time.
_STIR_QUIET_MS = const(250)


# nardy.zones' terms, as consts of this module (test_tracker checks they are the
# same): imported names would be slots in its dict, full at 37
_BAR = const(25)           # nardy.zones.ZONE_BAR
_NZONES = const(28)        # nardy.zones.NZONES
_BLIND = const(4)          # nardy.zones.BLIND


# The instance's attribute table stays at 59 slots (944 bytes on the unix port): one
# more attribute makes it 73 (a 1.2 KB block), and the class's own dict stays at 37
# (methods: a new one is a module function below). The 56wK soak with the board
# playing has no room to spare (tests/firmware/test_tracker.py counts them).
class Tracker(ZoneFit):
    def __init__(self, variant, layout, max_hand=3, auto_end_ms=0, hidden_end_ms=3000,
                 max_nodes=400):
        self.v = variant
        self.cap = layout.cap
        self.max_hand = max_hand
        self.hidden_end_ms = hidden_end_ms
        self.max_nodes = max_nodes
        # 0: the turn ends on the mover's OK only (seed 001 §1.7, §3.4: until the
        # mover takes the dice the checkers may be rearranged); else the ms of
        # stillness after which a played-out turn ends by itself (a setting)
        self.auto_end_ms = auto_end_ms
        self.auto_end_left = -1   # ms until that end while it counts down, else -1
        self._fix_per_step = 2 if variant.HITS else 1
        self._zones_init(variant, layout)      # ZoneFit: zone tables, fitting
        self._stir_lift = False   # a lift off the watched stack is shown
        self._stir_on = False     # the watch's state that was last acted on
        self.events = []
        self.state = DONE
        self.result = None
        # Every attribute a turn sets (start_turn), made now: the instance's
        # attribute table grows to its full size (944 bytes on the unix port) with
        # the new game, not at the first roll under the engine's search, when a
        # fragmented 56 KB heap had no such block (and a half-made turn was left).
        self.pos0 = None
        self.dice = ()
        self._nsteps = 0
        self.hyps = []
        self._next_cache = {}
        self._targ_cache = {}
        self._warm_k = 25
        self._warm_played = ()
        # _warm asks the engine ahead for what the mover may lift next; not while
        # the hands carry out a move the board shows (nardy.botplay), whose sources
        # are known: its cache (~2 KB here) would only crowd the board's own search
        self.look_ahead = True
        self._seen = None
        self._clear_view()

    def _clear_view(self):
        """What a turn shows and has been told, empty: lifts, targets, warnings,
        differences, candidates, the confirmations."""
        self.lifted = []
        self.targets = []
        self.warning = None
        self.diffs = []
        self.diff_i = 0
        self.candidates = []
        self._confirmed = False
        self._hidden_tried = False
        self._observed = None     # the position a board verdict would record
        self._board_warn = False  # the warning is about the board, not a step
        self._warn_before = None  # the step warning it covers
        # a checker of the mover's in the hand that no legal step moves (issue 21:
        # said at once, not when it is put down)
        self.stuck = False
        # short nardy: out of sync only because a hit is half done, the mover's
        # checker on the opponent's blot still on its point: that point's zone
        self.hit = 0

    def spare(self):
        """Forget the game (every table None), keep the object: the next game's
        tracker is this one made again (``__init__``), so its attribute table (~1 KB)
        is allocated once per boot, not per game on a fragmented heap."""
        # (by name: a loop over __dict__ would copy the table it means to keep)
        self.v = self.cap = self.pos0 = self.dice = self._dists = None
        self.hyps = self._next_cache = self._targ_cache = self._seen = None
        self._warm_played = self.events = self.lifted = self.targets = None
        self.diffs = self.candidates = self.result = self.warning = None
        self._observed = self._warn_before = None
        self._ce = self._e = self._exm = self._fresh = self._layout = None
        self._miss = self._patch = self._pp = self._prev = self._zt = None
        self._wema = self._wref = self._wsum = self._why = None
        self._fitted = self._fitted_obs = None

    # -- turn life cycle ---------------------------------------------------------------
    def start_turn(self, pos, dice, obs=None):
        """Begin tracking a turn from ``pos`` (side to move: ``pos.turn``)."""
        self.pos0 = pos.copy()
        self.dice = tuple(dice)
        self.mover = pos.turn
        a, b = self.dice
        if a == b:
            self._dists = (a, 2 * a, 3 * a, 4 * a)
            self._nsteps = 4
        else:
            self._dists = (a, b, a + b)
            self._nsteps = 2
        self.hyps = [((), [self.pos0], ())]
        self._next_cache = {}
        self._targ_cache = {}
        self._warm_k = 0          # next path point _warm looks at
        self._warm_played = None  # the partial turn it warms: none yet (see _warm)
        self._seen = set()       # zones the mover was seen lifting from since a commit
        self.state = IDLE
        self._clear_view()
        self.result = None
        self._stir_lift = False
        self.watch_stack()
        # Ask the engine now, once: the lift path and tick() then only look it up.
        self.next_steps(())
        if obs is not None:
            self._remember(obs)
            self.update(obs)

    @property
    def played(self):
        return self.hyps[0][_H_PLAYED]

    @property
    def position(self):
        return self.hyps[0][_H_CHAIN][-1]

    def state_name(self):
        """The state's word (the state itself: kept for the host tools' logs)."""
        return self.state

    # -- fitting a position to the observation --------------------------------------------
    # -- engine queries (cached per partial turn) ---------------------------------------
    def next_steps(self, played):
        r = self._next_cache.get(played)
        if r is None:
            if len(self._next_cache) > 24:
                # each entry is a list of step tuples: 64 of them were up to ~40 KB,
                # more than a 56 KB heap can hold beside a deep search
                self._next_cache = {}
            r = self.v.next_steps(self.pos0, self.dice, played)
            try:
                self._next_cache[played] = r
            except MemoryError:
                pass      # as in _targets: the answer stands, uncached
        return r

    def _targets(self, played, src):
        """The path points the checker on ``src`` may go to, as bytes: the engine's
        ``{to: steps}`` would keep every step tuple alive in the cache, and a 56 KB
        heap has no room for that many small objects."""
        key = (played, src)
        r = self._targ_cache.get(key)
        if r is None:
            if len(self._targ_cache) > 48:
                self._targ_cache = {}
            r = bytes(self.v.targets(self.pos0, self.dice, played, src))
            try:
                self._targ_cache[key] = r
            except MemoryError:
                # the dict could not grow on a fragmented heap: the answer stands,
                # uncached (a cache must never crash the scan)
                pass
        return r

    # -- explaining an observation -----------------------------------------------------
    def _penalty(self, steps):
        """Sources of new steps not seen lifted (chained steps excepted)."""
        c = self.mover
        pen = 0
        dests = []
        for f, t in steps:
            if f not in dests and self._zt[c][f] not in self._seen:
                pen += 1
            dests.append(t)
        return pen

    def _search(self, hyp, obs, out, hidden=False):
        """Legal continuations of ``hyp`` that fit: appended to ``out``."""
        played, chain, flags = hyp
        srcs = self._sources(chain[-1], obs)
        if not srcs:
            return
        budget = [self.max_nodes]
        self._dfs(played, chain, flags, srcs, obs, out, budget, 0, hidden)

    def _dfs(self, played, chain, flags, srcs, obs, out, budget, depth, hidden):
        pos = chain[-1]
        for step in self.next_steps(played):
            f = step[0]
            if f not in srcs:
                continue
            if budget[0] <= 0:
                return
            budget[0] -= 1
            p2 = self.v.apply_step(pos, step)
            pl2 = played + (step,)
            ch2 = chain + [p2]
            fit = self._fit(p2, obs)
            if self._ok(fit):
                new = pl2[-(depth + 1):]
                out.append((fit[IN_HAND], self._penalty(new), _K_NEW, depth + 1,
                            (pl2, ch2, flags + (0,))))
            t = step[1]
            if fit[FIXED]:
                continue      # the opponent's checkers are off: no step of ours fixes it
            if fit[EXCESS] == 0 and fit[IN_HAND] == 0 and not hidden:
                continue      # all explained; more steps would have to be invisible
            left = self._nsteps - len(pl2)
            if hidden and fit[IN_HAND] > left * self._fix_per_step:
                # a hidden search keeps only candidates with nothing in the hand; one
                # step brings at most one checker back into view (two with a hit)
                continue
            nsrcs = srcs if t == 25 else srcs + [t]
            if left <= 0 or not self._reachable(nsrcs, left):
                continue
            self._dfs(pl2, ch2, flags + (0,), nsrcs, obs, out, budget, depth + 1, hidden)

    def _candidates(self, obs, deep=True, hidden=False):
        """Every fitting candidate as (in_hand, penalty, kind, nsteps, hyp); kind 0 =
        the partial turn as it is, 1 = steps taken back, 2 = new steps, 3 = back and
        new. ``hidden`` also searches when nothing changed in view (steps between
        zones that cannot show them)."""
        out = []
        for hyp in self.hyps:
            played, chain, flags = hyp
            fit = self._fit(chain[-1], obs)
            if self._ok(fit):
                out.append((fit[IN_HAND], 0, _K_AS_IS, 0, hyp))
                if not deep or (len(self.hyps) == 1 and fit[IN_HAND] == self._fresh_n
                                and not hidden and not any(flags)):
                    # nothing can keep fewer in the hand: skip the search (the lift
                    # path, which must be fast). After an illegal step, taking it back
                    # onto a full stack can (_put_back).
                    continue
            for i in range(len(chain) - 2, -1, -1):
                fit = self._fit(chain[i], obs)
                if self._ok(fit) or (fit[EXCESS] == 0 and fit[IN_HAND] <= self.max_hand
                                     and self._put_back(played, flags, i)):
                    back = len(chain) - 1 - i
                    out.append((fit[IN_HAND], 0, _K_BACK, back,
                                (played[:i], chain[:i + 1], flags[:i])))
            if deep and not any(flags):
                self._search(hyp, obs, out, hidden)
        if deep and (not out or min(c[_C_HAND] for c in out) > self._fresh_n):
            # No candidate, or each keeps more in the hand than what was just lifted:
            # take steps back and play on in one go (fast hands; an illegal step put
            # back onto a full stack, out of view, then the turn played on; a step
            # taken for a hit before the hitting checker moved, then another checker
            # hits). An illegal step is always taken back, with the steps after it.
            for hyp in self.hyps:
                played, chain, flags = hyp
                top = len(chain) - 2
                if any(flags):
                    top = min(top, flags.index(1))
                for i in range(top, max(-1, top - 2), -1):
                    before = len(out)
                    self._search((played[:i], chain[:i + 1], flags[:i]), obs, out)
                    for j in range(before, len(out)):
                        c = out[j]
                        out[j] = (c[_C_HAND], c[_C_PEN], _K_BACK_NEW, c[_C_STEPS], c[_C_HYP])
        return out

    def _illegal(self, obs, hidden=False):
        """One checker of the mover moved anywhere (a free relocation) that fits;
        ``hidden`` also lets it land where it cannot be seen (full stack or tray).
        Tried from the partial turn and with its last steps taken back (a step that
        looked like a hidden one, e.g. into a full tray, may not have been)."""
        best = None
        for h in self.hyps:
            for back in range(min(3, len(h[_H_CHAIN]))):
                n0 = len(h[_H_CHAIN]) - back
                hyp = (h[_H_PLAYED][:n0 - 1], h[_H_CHAIN][:n0], h[_H_FLAGS][:n0 - 1])
                best = self._relocations(hyp, obs, hidden, back, best)
        return best

    def _relocations(self, hyp, obs, hidden, back, best, skip=None):
        pos = hyp[_H_CHAIN][-1]
        c = self.mover
        self._expect(pos)
        e = self._e[c]
        other = self._e[1 - c]
        cap = self.cap
        vis = obs.vis_w if c == WHITE else obs.vis_b
        pp = self._pp[c]
        srcs = []
        dsts = []
        for z in range(1, _NZONES):
            p = pp[z]
            if p == NOPATH:
                continue
            n = e[z]
            unseen = n >= cap[z] or obs.open_[z] & _BLIND
            if n and p != 25 and (vis[z] < n or unseen):
                srcs.append(p)
            if p != 0 and (vis[z] > n or (hidden and unseen)):
                dsts.append(p)
            elif hidden and p != 25 and p != 0 and other[z] >= cap[z] and not n:
                # onto the opponent's full stack: a checker put there cannot be seen
                dsts.append(p)
        for f in srcs:
            for t in dsts:
                if f == t:
                    continue
                p2 = self.v.apply_step(pos, (f, t))
                if skip is not None and p2.key() == skip:
                    continue      # the same position as an explanation already taken
                fit = self._fit(p2, obs)
                if self._ok(fit) and (best is None or (fit[IN_HAND], back) < best[_B_RANK]):
                    best = (fit[IN_HAND], hyp, (f, t), p2, (fit[IN_HAND], back))
        return best

    # -- the main entry ---------------------------------------------------------------------
    def update(self, obs, now=0):
        """Take a changed observation (``Sensing`` or anything with vis_w, vis_b,
        open_ arrays indexed by zone). Returns the state."""
        self._remember(obs)
        self._hidden_tried = False
        if self.state == DONE:
            return self.state
        self.hit = 0          # worked out again where the board stays out of sync
        if self._board_warn:
            # the board changed: it is judged again (a board verdict goes with it)
            self._board_warn = False
            self._observed = None
            self.warning = self._warn_before
            self._warn_before = None
            if self.warning is None:
                self.events.append(_CLEAR)
            if self.state == VERDICT:
                self.state = SYNC
        self._stir_lift = False       # the lift is worked out from the counts again
        self._stir_on = False
        self._expect(self.hyps[0][_H_CHAIN][-1])       # the current partial turn
        for c in (WHITE, BLACK):
            self._ce[c][:] = self._e[c]
        if self.state == CONFIRM:
            self.candidates = []
        cands = self._candidates(obs)
        if cands:
            self._choose(cands, obs)
            return self.state
        gone = self._blots_gone(obs) if self.v.HITS else ()
        # one blot at a time first: another may have been hit by a step already made
        tries = [[z] for z in gone]
        if len(gone) > 1:
            tries.append(gone)
        for restore in tries:
            prep = self._hit_prep(obs, restore)
            if prep is None:
                continue
            cands = self._candidates(prep)
            if cands:
                self._choose(cands, prep)
                self.state = LIFTED
                return self.state
        bad = self._illegal(obs)
        if bad is not None:
            self._take_illegal(bad, obs)
            return self.state
        self._out_of_sync(obs)
        return self.state

    def _take_illegal(self, bad, obs):
        de, hyp, step, p2, _ = bad
        played, chain, flags = hyp
        first = not any(flags)
        if self.state == SYNC:
            self.events.append(_RESYNC)
            self.diffs = []
        old = self.hyps[0][_H_PLAYED]
        self.hyps = [(played + (step,), chain + [p2], flags + (1,))]
        self._emit_diff(old, self.hyps[0][_H_PLAYED])
        self.state = ILLEGAL
        if first:
            rule = self.v.step_error(self.pos0, self.dice, played, step)
            if rule is None:
                rule = ("C3", "not a legal move")
            zones = (self._zt[self.mover][step[0]], self._zt[self.mover][step[1]])
            self.warning = (rule[0], rule[1], zones)
            self.events.append((EV_WARN, rule[0], rule[1], zones))
        self._in_hand(obs, de)

    def _choose(self, cands, obs):
        cands.sort(key=lambda c: (c[_C_HAND], c[_C_PEN], c[_C_KIND], c[_C_STEPS]))
        top = cands[0]
        keys = []
        hyps = []
        for c in cands:
            if (c[_C_HAND], c[_C_PEN]) != (top[_C_HAND], top[_C_PEN]):
                break
            h = c[_C_HYP]
            k = h[_H_CHAIN][-1].key()
            if k in keys:
                continue
            keys.append(k)
            hyps.append(h)
            if len(hyps) >= _MAX_HYPS:
                break
        old = self.hyps[0][_H_PLAYED]
        was_sync = self.state == SYNC
        self.hyps = hyps
        new = hyps[0][_H_PLAYED]
        self._emit_diff(old, new)
        if was_sync:
            self.events.append(_RESYNC)
            self.diffs = []
        self._in_hand(obs, top[_C_HAND])
        if any(hyps[0][_H_FLAGS]):
            self.state = ILLEGAL
        else:
            if self.warning is not None:
                self.warning = None
                self.events.append(_CLEAR)
            self.state = LIFTED if top[_C_HAND] else IDLE
        if len(hyps) > 1:
            self.candidates = [(h[_H_PLAYED], h[_H_CHAIN][-1]) for h in hyps]

    def _emit_diff(self, old, new):
        i = 0
        while i < len(old) and i < len(new) and old[i] == new[i]:
            i += 1
        for j in range(len(old) - 1, i - 1, -1):
            self.events.append((EV_UNDO, old[j]))
        for j in range(i, len(new)):
            self.events.append((EV_STEP, new[j]))
        if i < len(old) or i < len(new):
            self._seen = set()
            self.watch_stack()

    def _in_hand(self, obs, de):
        """Set lifted zones and the targets for the lifted checker(s)."""
        lifted = []
        c = self.mover
        if de:
            pos = self.hyps[0][_H_CHAIN][-1]
            if self._fitted is not pos or self._fitted_obs is not obs:
                self._fit(pos, obs)
            for col in (WHITE, BLACK):
                miss = self._miss[col]
                for z in range(1, _NZONES):
                    if miss[z]:
                        lifted.append(z)
                        if col == c:
                            self._seen.add(z)
        targets = []
        if lifted and self.state != ILLEGAL and not any(self.hyps[0][_H_FLAGS]):
            miss = self._miss[c]
            played = self.hyps[0][_H_PLAYED]
            zt = self._zt[c]
            for z in lifted:
                if not miss[z]:
                    continue
                src = self._pp[c][z]
                if src == NOPATH or src == 25:
                    continue
                for t in self._targets(played, src):
                    zz = zt[t]
                    if zz not in targets:
                        targets.append(zz)
        # a checker of the mover's in the hand, dice left, and no legal step for it
        # (long nardy's second checker off the head, L3; a blocked checker): the
        # board says so on the lift
        self.stuck = False
        if lifted and not targets and self.state != ILLEGAL and not any(
                self.hyps[0][_H_FLAGS]):
            for z in lifted:
                if self._miss[c][z]:
                    self.stuck = len(self.next_steps(self.hyps[0][_H_PLAYED])) > 0
                    break
        if lifted != self.lifted or targets != self.targets:
            self.lifted = lifted
            self.targets = targets
            if lifted:
                self.events.append((EV_LIFT, tuple(lifted), tuple(targets)))

    def _out_of_sync(self, obs):
        self.hit = _hit_pending(self, obs) if self.v.HITS else 0
        self._expect(self.hyps[0][_H_CHAIN][-1])
        diffs = differences(self._e, obs, self.cap)
        if self.state != SYNC or diffs != self.diffs:
            self.events.append((EV_SYNC, diffs))
        self.diffs = diffs
        self.diff_i = 0
        self.state = SYNC
        self.lifted = []
        self.targets = []

    def preview(self, zone, colour):
        """The targets of the mover's checker the sensing shows lifted off ``zone``
        before its debounce (``Sensing.early_zone``), for the LEDs now; None when
        not shown: another colour, or not a quiet turn (a checker in the hand, a
        warning, candidates). The tracker's own lift follows the debounce."""
        if colour != self.mover or self.state != IDLE or self.lifted or len(self.hyps) != 1:
            return None
        src = self._pp[colour][zone]
        if src == NOPATH or src == 25:
            return None
        zt = self._zt[colour]
        return [zt[t] for t in self._targets(self.hyps[0][_H_PLAYED], src)]

    def diff(self):
        """The difference to show now (zone, colour, expected, seen), or None."""
        if not self.diffs:
            return None
        return self.diffs[self.diff_i % len(self.diffs)]

    def next_diff(self):
        if self.diffs:
            self.diff_i = (self.diff_i + 1) % len(self.diffs)
        return self.diff()

    # -- time, buttons ----------------------------------------------------------------------
    def tick(self, obs, still_ms):
        """Call every cycle (cheap). With ``auto_end_ms`` set, a turn with no step
        left ends by itself once the board has been still that long; meanwhile
        ``auto_end_left`` counts down (-1 when nothing counts)."""
        st = self.state
        self.auto_end_left = -1
        if self._watch_zone:
            # a stack the slots cannot resolve is watched in the raw readings
            raw = getattr(obs, "raw", None)
            if raw is not None:
                self._watch_scan(raw)
            if st == IDLE and self._stirred != self._stir_on and (
                    still_ms >= _STIR_QUIET_MS or not self._stirred):
                self._stack_lift()
                return
        if st == IDLE:
            if (self.auto_end_ms and len(self.hyps) == 1
                    and not self.next_steps(self.hyps[0][_H_PLAYED])):
                left = self.auto_end_ms - still_ms
                if left <= 0:
                    self.end_turn(obs)
                else:
                    self.auto_end_left = left
            else:
                self._warm()
        elif (st == LIFTED and still_ms >= self.hidden_end_ms and not self._hidden_tried
              and self._fresh_n == 0):
            # Still "in the hand" for long: the checker may be on a full stack or a
            # full tray. If that makes the turn complete, take it (asked once per
            # observation: the search is not for every cycle).
            self._hidden_tried = True
            self.fit_hidden(obs, auto=True)

    def _stack_lift(self):
        """A lift off the watched stack (or its checker put back), shown as the usual
        lift event while nothing else is lifted and the partial turn is legal. (Its
        own method: MicroPython puts a frame with this many locals on the heap, and
        tick() runs every cycle.)"""
        on = self._stir_on = self._stirred
        z = self._watch_zone
        src = self._pp[self.mover][z]
        if (on and not self.lifted and len(self.hyps) == 1
                and not any(self.hyps[0][_H_FLAGS]) and src != NOPATH):
            zt = self._zt[self.mover]
            played = self.hyps[0][_H_PLAYED]
            targets = [zt[t] for t in self._targets(played, src)]
            if targets or self.next_steps(played):
                # none: no legal step for a checker off this stack (L3), said now
                self.lifted = [z]
                self.targets = targets
                self.stuck = not targets
                self._stir_lift = True
                self.events.append((EV_LIFT, (z,), tuple(targets)))
        elif not on and self._stir_lift:
            self._stir_lift = False
            self.lifted = []
            self.targets = []
            self.stuck = False
            self.events.append(_PUT_BACK)

    def watch_stack(self):
        """Watch the mover's tallest stack that the slots cannot resolve (long
        nardy's head early on): a lift from it changes no class."""
        c = self.mover
        b = self.hyps[0][_H_CHAIN][-1].board
        zt = self._zt[c]
        best = 0
        most = 0
        for k in range(1, 25):
            n = b[26 * c + k]
            if n > self.cap[zt[k]] and n > most:
                best = zt[k]
                most = n
        self._watch_zone = best
        self._wn = 0
        self._wrun = 0
        self._stirred = False
        for i in range(len(self._wsum)):
            self._wsum[i] = 0
            self._wema[i] = 0
        self._stir_on = False
        if self._stir_lift:
            self._stir_lift = False
            self.lifted = []
            self.targets = []

    def _warm(self):
        """While nothing happens, ask the engine ahead for the targets of one more
        checker the mover may lift next (one per scan: a few ms on the ESP32, inside
        the cycle budget). A lift then finds its targets cached, and the LEDs light
        within the lift's own scan.

        The tick that meets a new partial turn only notes it: that scan took the
        step (update's fitting and the engine's answers), or follows the roll's
        search; one query more on top made it the longest cycle of the turn
        (bench/app_bench.py, "cycle after the roll"). The asking starts a scan later."""
        if not self.look_ahead or len(self.hyps) != 1 or len(self._targ_cache) >= 24:
            return
        played, chain, flags = self.hyps[0]
        if any(flags):
            return
        if self._warm_played is not played:
            self._warm_played = played      # a new partial turn: start over for it
            self._warm_k = 0
            return
        b = chain[-1].board
        me = 26 * self.mover
        k = self._warm_k
        while k < 25:
            if b[me + k] and (played, k) not in self._targ_cache:
                self._targets(played, k)
                self._warm_k = k + 1
                return
            k += 1
        self._warm_k = 25

    def fit_hidden(self, obs, auto):
        self._clear_fresh()
        self._expect(self.hyps[0][_H_CHAIN][-1])       # the current partial turn
        for c in (WHITE, BLACK):
            self._ce[c][:] = self._e[c]
        cands = self._candidates(obs, hidden=True)
        cands = [c for c in cands if c[_C_HAND] == 0]
        if not cands:
            return False
        if auto:
            cands = [c for c in cands
                     if not self.next_steps(c[_C_HYP][_H_PLAYED]) and not any(c[_C_HYP][_H_FLAGS])]
            if not cands:
                return False
        self._choose(cands, obs)
        if auto and self.auto_end_ms and self.state == IDLE and len(self.hyps) == 1:
            self.end_turn(obs)      # else the step is taken, and OK ends the turn
        return True

    def end_turn(self, obs=None):
        """The mover pressed the button (or the turn ends by itself). Returns True if
        the turn is finished (DONE), False if it waits. The decision, in order (the
        first row that applies decides):

        ========================================  ===================================
        the turn so far                           what ending it does
        ========================================  ===================================
        over already (DONE)                       True
        the board unexplained (SYNC)              the board as it lies is judged
        a VERDICT on the board as it lies         False: the opponent decides
        a checker in the hand, placed nowhere     out of sync, the board judged
        that a sensor can see (``_place_hand``)   (a checker off the board)
        a checker still in the hand (LIFTED)      False
        several partial turns fit, or steps out   CONFIRM: the mover picks
        of view complete a short one
        (``_unseen_steps``)
        its result is legal                       DONE: True
        illegal, after a step out of view that    CONFIRM: that step or the
        a forbidden one explains as well          forbidden one
        illegal                                   VERDICT: the opponent decides
        ========================================  ===================================
        """
        st = self.state
        if st == DONE:
            return True
        if st == SYNC:
            return self._judge_board(obs)
        if st == VERDICT and self._observed is not None:
            return False
        pre = self.hyps[0]
        hid = _place_hand(self, obs)   # a step out of view taken for the hand's checker
        if hid is None:
            return self._judge_board(obs)
        if self.state == LIFTED:
            return False
        if obs is not None:
            _unseen_steps(self, obs)
        if len(self.hyps) > 1:
            return _ask(self)
        played, chain, flags = self.hyps[0]
        final = chain[-1]
        verdict = self.v.check_turn(self.pos0, self.dice, final)
        if verdict is None:
            self._finish(None)
            return True
        if hid:
            # A legal step out of view was taken for the checker that went out of view,
            # but the turn breaks a rule anyway: a step the rules forbid that also ends
            # out of view (onto a full stack) is no less likely. Ask which.
            alt = self._relocations(pre, obs, True, 0, None, final.key())
            if alt is not None and alt[_B_HAND] == 0:
                self.hyps.append((pre[0] + (alt[_B_STEP],), pre[1] + [alt[_B_POS]], pre[2] + (1,)))
                return _ask(self)
        self.warning = (verdict[0], verdict[1], ())
        self.state = VERDICT
        self.events.append((EV_VERDICT, verdict[0], verdict[1]))
        return False

    def end_shown(self, obs, steps):
        """The board's own turn (nardy.botplay): end it with ``steps``, the turn it
        shows, if their result fits what the sensors see with nothing in the hand.
        That is for when the sensors cannot tell it from what the tracker took: the
        last checker went off a full stack into a full tray (no change in view), or
        onto a full stack where the tray would look the same (19/24 24/off against
        19/23 23/off). The board's move is legal by construction, and the sensors
        do not contradict it. False if they do: the partial turn stands as it was."""
        if (self.state != IDLE and self.state != CONFIRM) or obs is None:
            return False
        chain = [self.pos0]
        for st in steps:
            chain.append(self.v.apply_step(chain[-1], st))
        self._clear_fresh()
        fit = self._fit(chain[-1], obs)
        if not self._ok(fit) or fit[IN_HAND]:
            return False
        old = self.hyps[0][_H_PLAYED]
        played = tuple(steps)
        self.hyps = [(played, chain, (0,) * len(played))]
        self.candidates = []
        self.state = IDLE
        self._emit_diff(old, played)
        return self.end_turn(obs)

    def confirm(self, i):
        """Pick candidate ``i`` (the UI cycles them), then end the turn."""
        if self.state != CONFIRM or not 0 <= i < len(self.hyps):
            return False
        old = self.hyps[0][_H_PLAYED]
        self.hyps = [self.hyps[i]]
        self._emit_diff(old, self.hyps[0][_H_PLAYED])
        self.candidates = []
        self.state = IDLE
        self._confirmed = True     # the mover said what was played: no new question
        r = self.end_turn()
        self._confirmed = False
        return r

    def accept(self, obs=None):
        """The opponent accepts the turn as played (seed 001 §3.4): only a VERDICT
        (the mover ended the turn and the board names the broken rule). A board out
        of sync is never accepted as it stands: ``end_turn`` judges it first."""
        if self.state != VERDICT:
            return False
        if self._observed is not None:
            # The steps are unknown: the record keeps the position on the board.
            self.hyps = [((), [self.pos0, self._observed], (1,))]
            self._finish(self.warning, accepted=True, observed=True)
            return True
        self._finish(self.warning, accepted=True)
        return True

    # -- a board the partial turn does not explain --------------------------------------
    def _judge_board(self, obs):
        """The mover ends the turn on a board that no partial turn explains: judge
        the position the board shows. A legal result is the turn; an illegal or
        impossible one (both colours on a point, the opponent's checker moved) is a
        VERDICT the opponent may accept, recording that position; a board whose
        position cannot be read stays out of sync, with a C1 warning when a checker
        is missing or extra. ``update`` drops such a board warning."""
        if obs is None:
            return False
        pos = self.observed_position(obs)
        zones = []
        for d in self.diffs:
            if d[0] not in zones:
                zones.append(d[0])
        state = SYNC
        if pos is None:
            if self._why is None:
                return False
            warning = ("C1", self._why, tuple(zones))     # a checker missing or extra
        else:
            verdict = self.v.check_turn(self.pos0, self.dice, pos)
            if verdict is None:
                # legal: the record gets steps that reach it (a press, not a scan:
                # the enumeration may take a while)
                steps = ()
                for st, res in self.v.turns(self.pos0, self.dice):
                    if res.board == pos.board:
                        steps = st
                        break
                self.hyps = [(steps, [self.pos0, pos], (0,))]
                self._finish(None, observed=True)
                return True
            self._observed = pos
            warning = (verdict[0], verdict[1], tuple(zones))
            state = VERDICT
        if not self._board_warn:
            self._warn_before = self.warning
        self._board_warn = True
        if warning != self.warning or state != self.state:
            if state == VERDICT:
                self.events.append((EV_VERDICT, warning[0], warning[1]))
            else:
                self.events.append((EV_WARN, warning[0], warning[1], warning[2]))
        self.warning = warning
        self.state = state
        return False

    def _finish(self, rule, accepted=False, observed=False):
        played, chain, flags = self.hyps[0]
        final = chain[-1].copy()
        final.turn = 1 - self.mover
        self.result = {"steps": played, "position": final, "accepted": accepted,
                       "rule": rule[0] if rule else None, "observed": observed}
        self.state = DONE
        self.lifted = []
        self.targets = []
        # The engine's answers are per turn: a finished turn's (up to ~40 KB with
        # the targets) would otherwise stay on the heap until the next roll, under
        # the next turn's first search. Only hyps[0] is read once DONE.
        self._next_cache = {}
        self._targ_cache = {}
        self.hyps = [self.hyps[0]]
        self.events.append((EV_TURN, played, accepted, rule[0] if rule else None))


# -- module functions, not methods (see the class's comment) -------------------------

def _place_hand(t, obs):
    """``end_turn``: a checker still "in the hand" when the turn ends was put where no
    sensor sees it (on a full stack or tray), or taken back onto one. Returns whether
    a step out of view was taken for it; None when nothing explains where it went
    (in a pocket, on the floor: out of sync until it is put back)."""
    if obs is None:
        return False
    st = t.state
    hid = False
    if st == ILLEGAL and t.lifted:
        # in the hand, or back on a stack that cannot show it (taken back)?
        hid = t.fit_hidden(obs, auto=False)
        st = t.state
        if not hid and t.lifted:
            t._out_of_sync(obs)      # a checker off the board? (see _judge_board)
            return None
    if st == LIFTED:
        hid = t.fit_hidden(obs, auto=False)
        if not hid:
            # no legal step explains where the checker went: an illegal one may
            bad = t._illegal(obs, hidden=True)
            if bad is None or bad[_B_HAND]:
                t._out_of_sync(obs)
                return None
            alt = t._relocations(bad[_B_HYP], obs, True, bad[_B_RANK][1], None,
                                 bad[_B_POS].key())
            if alt is not None and alt[_B_RANK] == bad[_B_RANK]:
                # Two places out of view fit as well (back onto the own full
                # stack, or onto the opponent's: L2): the mover says which. The
                # own stack is shown first, so OK pressed through picks the likelier
                # slip and a position with one colour per point.
                # (No helper: the module's dict is full, see test_tracker.)
                to = bad[_B_STEP][1]
                pair = (bad, alt)
                if 1 <= to <= 24 and bad[_B_POS].count(1 - t.mover, t.v.opp_point(to)):
                    pair = (alt, bad)       # ``bad`` left both colours on a point
                t.hyps = []
                for b in pair:
                    played, chain, flags = b[_B_HYP]
                    t.hyps.append((played + (b[_B_STEP],), chain + [b[_B_POS]],
                                   flags + (1,)))
                t.lifted = []
                t.targets = []
                t.state = IDLE       # asked in end_turn (CONFIRM)
            else:
                t._take_illegal(bad, obs)
    return hid


def _unseen_steps(t, obs):
    """``end_turn``: the turn looks short, but steps between zones that cannot show
    them (full stacks, a full tray) would complete it: those completions join the
    partial turn as candidates (the mover is asked which)."""
    if (len(t.hyps) > 1 or t._confirmed or any(t.hyps[0][_H_FLAGS])
            or not t.next_steps(t.hyps[0][_H_PLAYED])):
        return
    t._clear_fresh()
    done = []
    keys = []
    cands = t._candidates(obs, hidden=True)
    # complete turns first, then partial ones (a single unseen step)
    cands.sort(key=lambda c: (1 if t.next_steps(c[_C_HYP][_H_PLAYED]) else 0, c[_C_STEPS]))
    for c in cands:
        h = c[_C_HYP]
        k = h[_H_CHAIN][-1].key()
        if c[_C_HAND] == 0 and c[_C_KIND] >= _K_NEW and k not in keys:
            keys.append(k)
            done.append(h)
    if done:
        t.hyps = done[:_MAX_HYPS - 1] + t.hyps


def _ask(t):
    """``end_turn``: several turns fit what the sensors see: the mover picks one
    (CONFIRM, ``Tracker.confirm``). False: the turn waits."""
    t.candidates = [(h[_H_PLAYED], h[_H_CHAIN][-1]) for h in t.hyps]
    t.state = CONFIRM
    t.events.append((EV_CONFIRM, len(t.hyps)))
    return False


def _hit_pending(t, obs):
    """Short nardy: the zone of an opponent's blot with the mover's checker put on it,
    the blot not yet on the bar (still on its point, or in the hand: S2, a hit is
    done when it is there), when that explains the board with nothing in the hand;
    else 0."""
    c = t.mover
    opp = 1 - c
    t._expect(t.hyps[0][_H_CHAIN][-1])
    me = obs.vis_w if c == WHITE else obs.vis_b
    them = obs.vis_b if c == WHITE else obs.vis_w
    if them[_BAR] >= t.cap[_BAR]:
        return 0
    for z in range(1, 25):
        if t._e[opp][z] != 1 or me[z] <= t._e[c][z]:
            continue
        p = t._patch
        p.vis_w[:] = obs.vis_w
        p.vis_b[:] = obs.vis_b
        p.open_[:] = obs.open_
        pv = p.vis_b if c == WHITE else p.vis_w
        if pv[z]:
            pv[z] -= 1
        else:
            # the blot is in the hand: as if on the bar already, not a checker "just
            # lifted" that must stay in the hand (the next change resets it)
            t._fresh[opp][z] = 0
        pv[_BAR] += 1
        for cand in t._candidates(p):
            if cand[_C_HAND] == 0:
                return z
        t._expect(t.hyps[0][_H_CHAIN][-1])
    return 0


def nothing_played(t, obs):
    """True when the turn so far is no step at all, in view or out of it: not even
    one no sensor can show (off a full stack into a full tray) could explain the
    board. (A press, not a scan: the search may take a while.)"""
    if t.state != IDLE or t.played or len(t.hyps) != 1:
        return False
    if obs is None:
        return True
    t._clear_fresh()
    t._expect(t.pos0)
    for c in (WHITE, BLACK):
        t._ce[c][:] = t._e[c]
    for c in t._candidates(obs, hidden=True):
        if c[_C_HAND] == 0 and c[_C_KIND] >= _K_NEW:
            return False
    return True
