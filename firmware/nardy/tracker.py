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
- ``events``: a list the caller drains: ("lift", zones, targets), ("step", (f, t)),
  ("undo", (f, t)), ("warn", rule, reason, zones), ("clear",), ("sync", diffs),
  ("resync",), ("confirm", n), ("verdict", rule, reason), ("turn", steps, accepted,
  rule).

How an observation is explained. A hypothesis is a partial turn (steps played from the
start position). A candidate position fits the observation when no zone shows more
checkers than it holds, and the checkers missing from view (in the hand) are at most
``max_hand``; every checker that vanished in the latest change must be among them
(what was just lifted is in the hand, not hidden on a full stack). Candidates, best
first: fewer checkers in the hand; sources that were seen lifted (order of events);
the current partial turn, then taking steps back (undo), then new steps (searched with
the engine's ``next_steps``, only from zones where checkers went missing), then steps
taken back and new ones played in one go (searched only when every candidate so far
keeps more in the hand than what was just lifted; an illegal step is always taken back
there: it may have been put back out of view). No legal candidate: in short nardy, a
blot already put on the bar before the hitting checker moved is a hit being prepared;
else one checker of the mover moved somewhere else is an illegal step, warned at once
(the engine says which rule); otherwise the board is out of sync until it matches
again. Several best candidates with different positions are all kept (hypotheses) and
narrowed by what follows; if the turn ends with more than one, the UI asks (CONFIRM,
``confirm(i)``).

Steps nobody can see (between full stacks, into a full tray, onto a blind slot) are
looked for when the mover ends the turn: a checker still "in the hand" may have gone
there, and a turn that looks short may have been completed there; a choice between
such explanations is asked, never guessed. A legal step out of view is preferred to an
illegal one, unless the turn is illegal either way: then the mover is asked. The turn
ends by itself only when the engine says no step is left and the board has been still
for ``auto_end_ms``.

Zones are those of ``nardy.sensing``: 1..24 = P1..P24, 25 bar, 26/27 white's/black's
tray. Counts a zone can tell are capped (``Layout.cap``): a stack higher than that
hides lifts, which the legal moves and the end of the turn then resolve.
"""

from nardy.rules import BLACK, WHITE
from nardy.sensing import BLIND, NZONES, ZONE_BAR, ZONE_OFF_B, ZONE_OFF_W
from nardy.stackwatch import StackWatch

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):
        return x

IDLE = const(0)
LIFTED = const(1)
ILLEGAL = const(2)
SYNC = const(3)
CONFIRM = const(4)
VERDICT = const(5)
DONE = const(6)
STATE_NAMES = ("idle", "lifted", "illegal", "sync", "confirm", "verdict", "done")

_NOPATH = const(255)
_MAX_HYPS = const(6)
# A stack lift (StackWatch) is shown only once no class has changed for this long:
# a checker put down next to the stack moves its readings too, and the step it makes
# is seen (and the watch re-armed) within the debounce time.
_STIR_QUIET_MS = const(250)


class _Obs:
    """Scratch observation (same fields as Sensing's)."""

    def __init__(self):
        self.vis_w = bytearray(NZONES)
        self.vis_b = bytearray(NZONES)
        self.open_ = bytearray(NZONES)


class Tracker:
    def __init__(self, variant, layout, max_hand=3, auto_end_ms=1000, hidden_end_ms=3000,
                 max_nodes=400):
        self.v = variant
        self.layout = layout
        self.cap = layout.cap
        self.max_hand = max_hand
        self.auto_end_ms = auto_end_ms
        self.hidden_end_ms = hidden_end_ms
        self.max_nodes = max_nodes
        self._fix_per_step = 2 if variant.HITS else 1
        # zone of (colour, own path point) and back
        self._zt = (bytearray(26), bytearray(26))
        self._pp = (bytearray(NZONES), bytearray(NZONES))
        for c in (WHITE, BLACK):
            zt = self._zt[c]
            pp = self._pp[c]
            for z in range(NZONES):
                pp[z] = _NOPATH
            zt[0] = ZONE_BAR
            zt[25] = ZONE_OFF_W if c == WHITE else ZONE_OFF_B
            for k in range(1, 25):
                zt[k] = variant.physical(c, k)
            for k in range(26):
                pp[zt[k]] = k
        # scratch: expected counts of a candidate, missing checkers per zone/colour,
        # the previous observation and what vanished in the latest change
        self._e = (bytearray(NZONES), bytearray(NZONES))
        self._miss = (bytearray(NZONES), bytearray(NZONES))
        self._prev = (bytearray(NZONES), bytearray(NZONES))
        self._fresh = (bytearray(NZONES), bytearray(NZONES))
        self._fresh_n = 0
        self._ce = (bytearray(NZONES), bytearray(NZONES))   # the current partial turn
        self._exm = bytearray(NZONES)                         # mover's excess per zone
        self._patch = _Obs()
        self._fitted = None       # the position _miss was last computed for
        self._fitted_obs = None
        # lifts off a stack the slots cannot resolve, seen in the raw readings
        self.watch = StackWatch(layout)
        self._stir_lift = False
        self._stirred = False
        self.events = []
        self.state = DONE
        self.result = None

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
        self._warm_played = ()    # the partial turn it warms
        self._seen = set()       # zones the mover was seen lifting from since a commit
        self.state = IDLE
        self.lifted = []
        self.targets = []
        self.warning = None
        self.diffs = []
        self.diff_i = 0
        self.candidates = []
        self.result = None
        self._confirmed = False
        self._hidden_tried = False
        self._observed = None     # the position a board verdict would record
        self._board_warn = False  # the warning is about the board, not a step
        self._warn_before = None  # the step warning it covers
        self._stir_lift = False
        self._stirred = False     # the watch's state the tracker last acted on
        self._watch_stack()
        # Ask the engine now, once: the lift path and tick() then only look it up.
        self._next(())
        if obs is not None:
            self._remember(obs)
            self.update(obs)

    @property
    def played(self):
        return self.hyps[0][0]

    @property
    def position(self):
        return self.hyps[0][1][-1]

    def state_name(self):
        return STATE_NAMES[self.state]

    # -- fitting a position to the observation --------------------------------------------
    def _expect(self, pos):
        b = pos.board
        for c in (WHITE, BLACK):
            e = self._e[c]
            zt = self._zt[c]
            for z in range(NZONES):
                e[z] = 0
            o = 26 * c
            for k in range(26):
                n = b[o + k]
                if n:
                    e[zt[k]] += n

    def _fit(self, pos, obs):
        """(excess, missing, covers_fresh, excess_elsewhere) of ``pos`` against the
        observation; ``excess_elsewhere`` counts what more steps of the mover cannot
        fix (the opponent's checkers seen where they are not, except on the bar)."""
        self._expect(pos)
        self._fitted = pos
        self._fitted_obs = obs
        op = obs.open_
        cap = self.cap
        ex = 0
        de = 0
        fixed = 0
        cov = True
        mover = self.mover
        for c in (WHITE, BLACK):
            e = self._e[c]
            other = self._e[1 - c]
            vis = obs.vis_w if c == WHITE else obs.vis_b
            miss = self._miss[c]
            fresh = self._fresh[c]
            exm = self._exm
            for z in range(1, NZONES):
                n = e[z]
                s = vis[z]
                m = 0
                if c == mover:
                    exm[z] = 0
                if s > n:
                    ex += s - n
                    if c == mover:
                        exm[z] = s - n
                    elif z != ZONE_BAR:
                        fixed += s - n
                elif s < n:
                    k = cap[z]
                    if op[z] & BLIND or other[z] >= k:
                        # blind, or under the other colour's full stack (only an
                        # illegal step puts a checker there)
                        m = 0
                    elif n <= k:
                        m = n - s
                    elif s < k:
                        m = k - s
                de += m
                miss[z] = m
                if fresh[z] > m and n < self._ce[c][z]:
                    # it explains a checker that just vanished as moved away unseen;
                    # no: what was just lifted is in the hand
                    cov = False
        return ex, de, cov, fixed

    def _reachable(self, srcs, left):
        """Can ``left`` more steps from ``srcs`` bring a checker to every zone where
        more of the mover's checkers show than expected (after the last _fit)?"""
        exm = self._exm
        pp = self._pp[self.mover]
        need = 0
        for z in range(1, NZONES):
            k = exm[z]
            if not k:
                continue
            need += k
            t = pp[z]
            ok = False
            for f in srcs:
                d = t - f
                if d > 0 and (t == 25 or d in self._dists):
                    ok = True
                    break
            if not ok:
                return False
        return need <= left

    def _ok(self, fit):
        return fit[0] == 0 and fit[1] <= self.max_hand and fit[2]

    def _remember(self, obs):
        """Note what vanished in this change. Only a change that removed checkers and
        added none is a lift; one that also added some is a move (fast hands)."""
        n = 0
        grew = False
        for c in (WHITE, BLACK):
            vis = obs.vis_w if c == WHITE else obs.vis_b
            prev = self._prev[c]
            fresh = self._fresh[c]
            for z in range(NZONES):
                d = prev[z] - vis[z]
                if d > 0:
                    fresh[z] = d
                    n += d
                else:
                    fresh[z] = 0
                    if d < 0:
                        grew = True
                prev[z] = vis[z]
        self._fresh_n = n
        if grew and n:
            self._clear_fresh()

    def _clear_fresh(self):
        for c in (WHITE, BLACK):
            f = self._fresh[c]
            for z in range(NZONES):
                f[z] = 0
        self._fresh_n = 0

    # -- engine queries (cached per partial turn) ---------------------------------------
    def _next(self, played):
        r = self._next_cache.get(played)
        if r is None:
            if len(self._next_cache) > 24:
                # each entry is a list of step tuples: 64 of them were up to ~40 KB,
                # more than a 56 KB heap can hold beside a deep search
                self._next_cache = {}
            r = self.v.next_steps(self.pos0, self.dice, played)
            self._next_cache[played] = r
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
            self._targ_cache[key] = r
        return r

    # -- explaining an observation -----------------------------------------------------
    def _sources(self, pos, obs):
        """Zones (as own path points) a new step may start from: the mover's checkers
        missing there, or zones that cannot show a lift (full or blind)."""
        c = self.mover
        self._expect(pos)
        e = self._e[c]
        vis = obs.vis_w if c == WHITE else obs.vis_b
        pp = self._pp[c]
        out = []
        for z in range(1, NZONES):
            n = e[z]
            if n and (vis[z] < n or n >= self.cap[z] or obs.open_[z] & BLIND):
                p = pp[z]
                if p != _NOPATH and p != 25:
                    out.append(p)
        return out

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
        for step in self._next(played):
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
                out.append((fit[1], self._penalty(new), 2, depth + 1, (pl2, ch2, flags + (0,))))
            t = step[1]
            if fit[3]:
                continue      # the opponent's checkers are off: no step of ours fixes it
            if fit[0] == 0 and fit[1] == 0 and not hidden:
                continue      # all explained; more steps would have to be invisible
            left = self._nsteps - len(pl2)
            if hidden and fit[1] > left * self._fix_per_step:
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
                out.append((fit[1], 0, 0, 0, hyp))
                if not deep or (len(self.hyps) == 1 and fit[1] == self._fresh_n
                                and not hidden and not any(flags)):
                    # nothing can keep fewer in the hand: skip the search (the lift
                    # path, which must be fast). After an illegal step, taking it back
                    # onto a full stack can (_put_back).
                    continue
            for i in range(len(chain) - 2, -1, -1):
                fit = self._fit(chain[i], obs)
                if self._ok(fit) or (fit[0] == 0 and fit[1] <= self.max_hand
                                     and self._put_back(hyp, i)):
                    back = len(chain) - 1 - i
                    out.append((fit[1], 0, 1, back, (played[:i], chain[:i + 1], flags[:i])))
            if deep and not any(flags):
                self._search(hyp, obs, out, hidden)
        if deep and (not out or min(c[0] for c in out) > self._fresh_n):
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
                        out[j] = (c[0], c[1], 3, c[3], c[4])
        return out

    def _put_back(self, hyp, i):
        """Right after ``_fit(chain[i])``: were the illegal steps after ``i`` taken
        back onto where they came from, a zone that cannot show a checker arriving
        (a full stack such as long nardy's head, a blind slot)? Then a checker that
        vanished from where an illegal step put it went back there, not into the
        hand, and the warning goes at once."""
        played, chain, flags = hyp
        c = self.mover
        zt = self._zt[c]
        e = self._e[c]
        allowed = []
        for j in range(i, len(played)):
            if not flags[j]:
                return False
            f, t = played[j]
            zf = zt[f]
            if e[zf] < self.cap[zf] and not self._fitted_obs.open_[zf] & BLIND:
                return False
            allowed.append(zt[t])
        for col in (WHITE, BLACK):
            fresh = self._fresh[col]
            miss = self._miss[col]
            ce = self._ce[col]
            ec = self._e[col]
            for z in range(1, NZONES):
                if fresh[z] > miss[z] and ec[z] < ce[z] and (col != c or z not in allowed):
                    return False
        return True

    def _blots_gone(self, obs):
        """Short nardy: zones where a blot of the opponent (in the current partial
        turn) is gone, when the opponent's bar shows at least as many more."""
        if not self.v.HITS:
            return ()
        opp = 1 - self.mover
        vis = obs.vis_w if opp == WHITE else obs.vis_b
        e = self._ce[opp]
        gone = [z for z in range(1, 25) if e[z] == 1 and vis[z] == 0]
        if not gone or vis[ZONE_BAR] <= e[ZONE_BAR]:
            return ()
        return gone

    def _hit_prep(self, obs, restore):
        """The observation with the blots of ``restore`` back in place of the bar (a
        scratch copy): a blot put on the bar before the checker that hits it moved.
        What fits it is a hit being prepared: steps played so far are taken, the
        rest waits."""
        opp = 1 - self.mover
        p = self._patch
        p.vis_w[:] = obs.vis_w
        p.vis_b[:] = obs.vis_b
        p.open_[:] = obs.open_
        pv = p.vis_w if opp == WHITE else p.vis_b
        if pv[ZONE_BAR] < len(restore):
            return None
        for z in restore:
            pv[z] = 1
        pv[ZONE_BAR] -= len(restore)
        return p

    def _illegal(self, obs, hidden=False):
        """One checker of the mover moved anywhere (a free relocation) that fits;
        ``hidden`` also lets it land where it cannot be seen (full stack or tray).
        Tried from the partial turn and with its last steps taken back (a step that
        looked like a hidden one, e.g. into a full tray, may not have been)."""
        best = None
        for h in self.hyps:
            for back in range(min(3, len(h[1]))):
                n0 = len(h[1]) - back
                hyp = (h[0][:n0 - 1], h[1][:n0], h[2][:n0 - 1])
                best = self._relocations(hyp, obs, hidden, back, best)
        return best

    def _relocations(self, hyp, obs, hidden, back, best, skip=None):
        c = self.mover
        pos = hyp[1][-1]
        self._expect(pos)
        e = self._e[c]
        vis = obs.vis_w if c == WHITE else obs.vis_b
        pp = self._pp[c]
        srcs = []
        dsts = []
        for z in range(1, NZONES):
            p = pp[z]
            if p == _NOPATH:
                continue
            n = e[z]
            unseen = n >= self.cap[z] or obs.open_[z] & BLIND
            if n and p != 25 and (vis[z] < n or unseen):
                srcs.append(p)
            if p != 0 and (vis[z] > n or (hidden and unseen)):
                dsts.append(p)
            elif (hidden and p != 25 and p != 0
                  and self._e[1 - c][z] >= self.cap[z] and not n):
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
                if self._ok(fit) and (best is None or (fit[1], back) < best[4]):
                    best = (fit[1], hyp, (f, t), p2, (fit[1], back))
        return best

    # -- the main entry ---------------------------------------------------------------------
    def update(self, obs, now=0):
        """Take a changed observation (``Sensing`` or anything with vis_w, vis_b,
        open_ arrays indexed by zone). Returns the state."""
        self._remember(obs)
        self._hidden_tried = False
        if self.state == DONE:
            return self.state
        self._drop_board_warning()
        self._stir_lift = False       # the lift is worked out from the counts again
        self._stirred = False
        self._expect(self.hyps[0][1][-1])
        for c in (WHITE, BLACK):
            self._ce[c][:] = self._e[c]
        if self.state == CONFIRM:
            self.candidates = []
        cands = self._candidates(obs)
        if cands:
            self._choose(cands, obs)
            return self.state
        gone = self._blots_gone(obs)
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
            self.events.append(("resync",))
            self.diffs = []
        old = self.hyps[0][0]
        self.hyps = [(played + (step,), chain + [p2], flags + (1,))]
        self._emit_diff(old, self.hyps[0][0])
        self.state = ILLEGAL
        if first:
            rule = self.v.step_error(self.pos0, self.dice, played, step)
            if rule is None:
                rule = ("C3", "not a legal move")
            zones = (self._zt[self.mover][step[0]], self._zt[self.mover][step[1]])
            self.warning = (rule[0], rule[1], zones)
            self.events.append(("warn", rule[0], rule[1], zones))
        self._in_hand(obs, de)

    def _choose(self, cands, obs):
        cands.sort(key=lambda c: (c[0], c[1], c[2], c[3]))
        top = cands[0]
        keys = []
        hyps = []
        for c in cands:
            if (c[0], c[1]) != (top[0], top[1]):
                break
            h = c[4]
            k = h[1][-1].key()
            if k in keys:
                continue
            keys.append(k)
            hyps.append(h)
            if len(hyps) >= _MAX_HYPS:
                break
        old = self.hyps[0][0]
        was_sync = self.state == SYNC
        self.hyps = hyps
        new = hyps[0][0]
        self._emit_diff(old, new)
        if was_sync:
            self.events.append(("resync",))
            self.diffs = []
        self._in_hand(obs, top[0])
        if any(hyps[0][2]):
            self.state = ILLEGAL
        else:
            if self.warning is not None:
                self.warning = None
                self.events.append(("clear",))
            self.state = LIFTED if top[0] else IDLE
        if len(hyps) > 1:
            self.candidates = [(h[0], h[1][-1]) for h in hyps]

    def _emit_diff(self, old, new):
        i = 0
        while i < len(old) and i < len(new) and old[i] == new[i]:
            i += 1
        for j in range(len(old) - 1, i - 1, -1):
            self.events.append(("undo", old[j]))
        for j in range(i, len(new)):
            self.events.append(("step", new[j]))
        if i < len(old) or i < len(new):
            self._seen = set()
            self._watch_stack()

    def _in_hand(self, obs, de):
        """Set lifted zones and the targets for the lifted checker(s)."""
        lifted = []
        c = self.mover
        if de:
            pos = self.hyps[0][1][-1]
            if self._fitted is not pos or self._fitted_obs is not obs:
                self._fit(pos, obs)
            for col in (WHITE, BLACK):
                miss = self._miss[col]
                for z in range(1, NZONES):
                    if miss[z]:
                        lifted.append(z)
                        if col == c:
                            self._seen.add(z)
        targets = []
        if lifted and self.state != ILLEGAL and not any(self.hyps[0][2]):
            miss = self._miss[c]
            played = self.hyps[0][0]
            zt = self._zt[c]
            for z in lifted:
                if not miss[z]:
                    continue
                src = self._pp[c][z]
                if src == _NOPATH or src == 25:
                    continue
                for t in self._targets(played, src):
                    zz = zt[t]
                    if zz not in targets:
                        targets.append(zz)
        if lifted != self.lifted or targets != self.targets:
            self.lifted = lifted
            self.targets = targets
            if lifted:
                self.events.append(("lift", tuple(lifted), tuple(targets)))

    def _out_of_sync(self, obs):
        pos = self.hyps[0][1][-1]
        self._expect(pos)
        diffs = []
        for c in (WHITE, BLACK):
            e = self._e[c]
            vis = obs.vis_w if c == WHITE else obs.vis_b
            for z in range(1, NZONES):
                n = e[z]
                s = vis[z]
                k = self.cap[z]
                shown = n if n <= k else k
                if s > n or (s < shown and not obs.open_[z] & BLIND):
                    diffs.append((z, c, n, s))
        diffs.sort()
        if self.state != SYNC or diffs != self.diffs:
            self.events.append(("sync", diffs))
        self.diffs = diffs
        self.diff_i = 0
        self.state = SYNC
        self.lifted = []
        self.targets = []

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
        """Call every cycle (cheap): ends the turn by itself when no step is left and
        the board has been still for ``auto_end_ms``."""
        st = self.state
        w = self.watch
        if w.zone and obs is not None:
            raw = getattr(obs, "raw", None)
            if raw is not None:
                w.scan(raw)
        if st == IDLE:
            if (still_ms >= self.auto_end_ms and len(self.hyps) == 1
                    and not self._next(self.hyps[0][0])):
                self.end_turn(obs)
            elif w.stirred != self._stirred and (still_ms >= _STIR_QUIET_MS
                                                 or not w.stirred):
                self._stirred = w.stirred
                self._stack_lift(w.stirred)
            else:
                self._warm()
        elif (st == LIFTED and still_ms >= self.hidden_end_ms and not self._hidden_tried
              and self._fresh_n == 0):
            # Still "in the hand" for long: the checker may be on a full stack or a
            # full tray. If that makes the turn complete, take it (asked once per
            # observation: the search is not for every cycle).
            self._hidden_tried = True
            self._hidden(obs, auto=True)

    def _watch_stack(self):
        """Watch the mover's tallest stack that the slots cannot resolve (long
        nardy's head early on): a lift from it changes no class."""
        c = self.mover
        b = self.hyps[0][1][-1].board
        zt = self._zt[c]
        best = 0
        most = 0
        for k in range(1, 25):
            n = b[26 * c + k]
            z = zt[k]
            if n > self.cap[z] and n > most:
                best = z
                most = n
        self.watch.watch(best)
        self._stirred = False
        if self._stir_lift:
            self._stir_lift = False
            self.lifted = []
            self.targets = []

    def _stack_lift(self, on):
        """Show (or take back) a lift off the watched stack as the usual lift event:
        only while nothing else is lifted and the partial turn is legal."""
        if on:
            if self.lifted or len(self.hyps) != 1 or any(self.hyps[0][2]):
                return
            c = self.mover
            src = self._pp[c][self.watch.zone]
            if src == _NOPATH or src == 25:
                return
            zt = self._zt[c]
            targets = [zt[t] for t in self._targets(self.hyps[0][0], src)]
            if not targets:
                return
            self.lifted = [self.watch.zone]
            self.targets = targets
            self._stir_lift = True
            self.events.append(("lift", (self.watch.zone,), tuple(targets)))
        elif self._stir_lift:
            self._stir_lift = False
            self.lifted = []
            self.targets = []
            self.events.append(("lift", (), ()))

    def _warm(self):
        """While nothing happens, ask the engine ahead for the targets of one more
        checker the mover may lift next (one per scan: a few ms on the ESP32, inside
        the cycle budget). A lift then finds its targets cached, and the LEDs light
        within the lift's own scan."""
        if len(self.hyps) != 1 or len(self._targ_cache) >= 24:
            return
        played, chain, flags = self.hyps[0]
        if any(flags):
            return
        if self._warm_played is not played:
            self._warm_played = played      # a new partial turn: start over for it
            self._warm_k = 0
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

    def _hidden(self, obs, auto):
        self._clear_fresh()
        self._expect(self.hyps[0][1][-1])
        for c in (WHITE, BLACK):
            self._ce[c][:] = self._e[c]
        cands = self._candidates(obs, hidden=True)
        cands = [c for c in cands if c[0] == 0]
        if not cands:
            return False
        if auto:
            cands = [c for c in cands if not self._next(c[4][0]) and not any(c[4][2])]
            if not cands:
                return False
        self._choose(cands, obs)
        if auto and self.state == IDLE and len(self.hyps) == 1:
            self.end_turn(obs)
        return True

    def end_turn(self, obs=None):
        """The mover pressed the button (or the turn ends by itself). Returns True if
        the turn is finished (DONE), False if it waits (checker in the hand, out of
        sync, a choice between candidates, or an illegal result to accept)."""
        st = self.state
        if st == DONE:
            return True
        if st == SYNC:
            return self._judge_board(obs)
        if st == VERDICT and self._observed is not None:
            return False
        pre = self.hyps[0]
        hid = False       # a checker "in the hand" was put where it cannot be seen
        if st == ILLEGAL and self.lifted and obs is not None:
            # in the hand, or back on a stack that cannot show it (taken back)?
            hid = self._hidden(obs, auto=False)
            st = self.state
            if not hid and self.lifted:
                return self._off_board(obs)
        if st == LIFTED and obs is not None:
            hid = self._hidden(obs, auto=False)
            if not hid:
                # no legal step explains where the checker went: an illegal one may
                bad = self._illegal(obs, hidden=True)
                if bad is None or bad[0]:
                    return self._off_board(obs)
                alt = self._relocations(bad[1], obs, True, bad[4][1], None, bad[3].key())
                if alt is not None and alt[4] == bad[4]:
                    # Two places out of view fit as well (back onto the own full
                    # stack, or onto the opponent's: L2): the mover says which.
                    self._ask_illegal(bad, alt)
                    return False
                self._take_illegal(bad, obs)
        if self.state == LIFTED:
            return False
        if (obs is not None and len(self.hyps) == 1 and not self._confirmed
                and not any(self.hyps[0][2]) and self._next(self.hyps[0][0])):
            # The turn looks short, but steps between zones that cannot show them
            # (full stacks, a full tray) would complete it: ask which.
            self._clear_fresh()
            done = []
            keys = []
            cands = self._candidates(obs, hidden=True)
            # complete turns first, then partial ones (a single unseen step)
            cands.sort(key=lambda c: (1 if self._next(c[4][0]) else 0, c[3]))
            for c in cands:
                h = c[4]
                k = h[1][-1].key()
                if c[0] == 0 and c[2] >= 2 and k not in keys:
                    keys.append(k)
                    done.append(h)
            if done:
                self.hyps = done[:_MAX_HYPS - 1] + self.hyps
        if len(self.hyps) > 1:
            self.candidates = [(h[0], h[1][-1]) for h in self.hyps]
            self.state = CONFIRM
            self.events.append(("confirm", len(self.hyps)))
            return False
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
            if alt is not None and alt[0] == 0:
                self.hyps.append((pre[0] + (alt[2],), pre[1] + [alt[3]], pre[2] + (1,)))
                self.candidates = [(h[0], h[1][-1]) for h in self.hyps]
                self.state = CONFIRM
                self.events.append(("confirm", len(self.hyps)))
                return False
        self.warning = (verdict[0], verdict[1], ())
        self.state = VERDICT
        self.events.append(("verdict", verdict[0], verdict[1]))
        return False

    def confirm(self, i):
        """Pick candidate ``i`` (the UI cycles them), then end the turn."""
        if self.state != CONFIRM or not 0 <= i < len(self.hyps):
            return False
        old = self.hyps[0][0]
        self.hyps = [self.hyps[i]]
        self._emit_diff(old, self.hyps[0][0])
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
        the position the board shows. A legal result is the turn (its steps are
        unknown); an illegal or impossible one (both colours on a point, the
        opponent's checker moved) is a VERDICT the opponent may accept, recording
        that position; a board whose position cannot be read stays out of sync, with
        a C1 warning when a checker is missing or extra."""
        if obs is None:
            return False
        pos = self.observed_position(obs)
        zones = self._diff_zones()
        if pos is None:
            why = self._count_problem(obs)
            if why is not None:
                self._warn_board(("C1", why, zones))
            return False
        verdict = self.v.check_turn(self.pos0, self.dice, pos)
        if verdict is None:
            self.hyps = [((), [self.pos0, pos], (0,))]
            self._finish(None, observed=True)
            return True
        self._observed = pos
        self._warn_board((verdict[0], verdict[1], zones), VERDICT)
        return False

    def _off_board(self, obs):
        """The turn ends with a checker still "in the hand" and nothing on the board
        explains where it went: it is off the board (in a pocket, on the floor). Not
        a turn: out of sync, with a C1 warning, until it is put back."""
        self._out_of_sync(obs)
        self._warn_board(("C1", "a checker is off the board", self._diff_zones()))
        return False

    def _warn_board(self, warning, state=SYNC):
        """Show a warning about the board (not about a step); ``update`` drops it."""
        if not self._board_warn:
            self._warn_before = self.warning
        self._board_warn = True
        new = warning != self.warning or state != self.state
        self.warning = warning
        self.state = state
        if not new:
            return
        if state == VERDICT:
            self.events.append(("verdict", warning[0], warning[1]))
        else:
            self.events.append(("warn", warning[0], warning[1], warning[2]))

    def _drop_board_warning(self):
        """A new observation: the board is judged again."""
        if not self._board_warn:
            return
        self._board_warn = False
        self._observed = None
        self.warning = self._warn_before
        self._warn_before = None
        if self.warning is None:
            self.events.append(("clear",))
        if self.state == VERDICT:
            self.state = SYNC

    def _diff_zones(self):
        out = []
        for d in self.diffs:
            if d[0] not in out:
                out.append(d[0])
        return tuple(out)

    def _count_problem(self, obs):
        """Why the board's position cannot be read, if a count says: a colour shows
        more than 15, or fewer with no zone that could hide the rest."""
        for c in (WHITE, BLACK):
            vis = obs.vis_w if c == WHITE else obs.vis_b
            total = 0
            unsure = False
            for z in range(1, NZONES):
                total += vis[z]
                if obs.open_[z] & BLIND or vis[z] >= self.cap[z]:
                    unsure = True
            if total > 15:
                return "too many checkers on the board"
            if total < 15 and not unsure:
                return "a checker is off the board"
        return None

    def _ask_illegal(self, bad, alt):
        """Two illegal steps out of view explain the board equally: ask which."""
        self.hyps = []
        for b in (bad, alt):
            played, chain, flags = b[1]
            self.hyps.append((played + (b[2],), chain + [b[3]], flags + (1,)))
        self.candidates = [(h[0], h[1][-1]) for h in self.hyps]
        self.lifted = []
        self.targets = []
        self.state = CONFIRM
        self.events.append(("confirm", len(self.hyps)))

    def observed_position(self, obs):
        """The position the board shows, if counts are certain enough (conservation
        fills one full or blind zone per colour); None otherwise."""
        return _observed_position(self, obs)

    def _finish(self, rule, accepted=False, observed=False):
        played, chain, flags = self.hyps[0]
        final = chain[-1].copy()
        final.turn = 1 - self.mover
        self.result = {"steps": played, "position": final, "accepted": accepted,
                       "rule": rule[0] if rule else None, "observed": observed}
        self.state = DONE
        self.lifted = []
        self.targets = []
        self.events.append(("turn", played, accepted, rule[0] if rule else None))


def observed_position(tracker, obs):
    """The position the board shows (see ``Tracker.observed_position``)."""
    return tracker.observed_position(obs)


def _observed_position(tracker, obs):
    from nardy.rules import Position
    pos = Position(turn=tracker.mover)
    b = pos.board
    for c in (WHITE, BLACK):
        vis = obs.vis_w if c == WHITE else obs.vis_b
        pp = tracker._pp[c]
        unsure = []
        total = 0
        for z in range(1, NZONES):
            n = vis[z]
            if not n and not obs.open_[z] & BLIND:
                continue
            p = pp[z]
            if p == _NOPATH:
                if n:
                    return None   # a checker in the other colour's tray
                continue
            b[26 * c + p] = n
            total += n
            if obs.open_[z] & BLIND or n >= tracker.cap[z]:
                unsure.append(p)
        rest = 15 - total
        if rest < 0 or (rest and len(unsure) != 1):
            return None
        if rest:
            b[26 * c + unsure[0]] += rest
    return pos
