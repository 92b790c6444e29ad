"""Zones and fitting: how a position of the rules engine looks to the sensors, and
the lifts only the raw readings show (the stack watch, ``_watch_scan``).

The tracker (``nardy.tracker``) explains observations with partial turns; this part
holds what does not depend on turns: the zone of each (colour, path point) and back,
the counts a position puts in each zone, and how well a position *fits* an
observation (checkers seen where the position has none, checkers of the position not
seen: "in the hand", capped by what a zone can show), what vanished in the latest
change, and the position a board shows when the counts are certain enough. Every
buffer is allocated once here; ``fit`` runs for every node of the tracker's search.

Zones are the board's terms, ``nardy.zones``: 1..24 = P1..P24, 25 bar, 26/27 white's/black's
tray. An observation is anything with ``vis_w``, ``vis_b`` and ``open_`` arrays
indexed by zone (``Sensing``, or a test's stand-in).

The zone geometry has its home here (``zone_of``, ``zone_table``, ``zone_counts``,
``differences``): the game (set-up differences), the tracker (its tables and its
out-of-sync differences), the host's session and the tests all ask these.

>>> from nardy.longnardy import LongNardy
>>> v = LongNardy()
>>> zone_of(v, 0, 1), zone_of(v, 1, 1), zone_of(v, 0, 0), zone_of(v, 1, 25)
(24, 12, 25, 27)
>>> w, b = zone_counts(v, v.start_position())
>>> w[24], b[12], sum(w), sum(b)
(15, 15, 15, 15)
"""

from array import array

from micropython import const  # CPython: the shim nardy/__init__.py installs

from nardy.rules import BLACK, CHECKERS, WHITE
from nardy.zones import BLIND, NZONES, ZONE_BAR, ZONE_OFF_B, ZONE_OFF_W

NOPATH = const(255)     # a zone that is no path point of that colour (the other tray)

# fit() answers a tuple; these name its fields
EXCESS = const(0)       # checkers seen where the position has none
IN_HAND = const(1)      # checkers of the position not seen (lifted, or out of view)
COVERS = const(2)       # False: a checker that just vanished is taken as moved unseen
FIXED = const(3)        # opponent's checkers seen off their places (not the bar)

# The stack watch (see _watch_scan)
_MAX_SLOTS = const(8)
_SHIFT = const(2)       # each slot's deviation is smoothed as ema += (d - ema) / 4
_STIR = const(40)       # counts: a deviation beyond this is a change (noise: ~8)
_HOLD = const(5)        # scans a change must hold (a hand sliding past)
_EARLY = const(60)      # counts: a lift beyond this on one scan is taken at once
_SETTLE = const(8)      # scans averaged into the reference


def zone_of(variant, colour, k):
    """Sensing zone of ``colour``'s path point ``k`` (0 bar, 25 off)."""
    if k == 0:
        return ZONE_BAR
    if k == 25:
        return ZONE_OFF_W if colour == WHITE else ZONE_OFF_B
    return variant.physical(colour, k)


def zone_table(variant, colour):
    """bytearray(26): the zone of each of ``colour``'s path points."""
    return bytearray([zone_of(variant, colour, k) for k in range(26)])


def zone_counts(variant, pos, hand=None):
    """(white, black): bytearray(NZONES) each, the checkers ``pos`` puts in each
    zone; ``hand``: (colour, path point) of one checker lifted off it."""
    out = (bytearray(NZONES), bytearray(NZONES))
    for c in (WHITE, BLACK):
        side = pos.side(c)
        e = out[c]
        for k in range(26):
            n = side[k]
            if hand is not None and hand[0] == c and hand[1] == k:
                n -= 1
            if n > 0:
                e[zone_of(variant, c, k)] += n
    return out


def differences(expected, obs, cap):
    """Where observation ``obs`` differs from the counts ``expected`` ((white,
    black) per zone, as ``zone_counts``): a sorted list of (zone, colour, expected,
    seen). More seen than expected is always a difference; fewer only where the
    zone can show that many (``cap``) and no slot of it is blind."""
    diffs = []
    op = obs.open_
    for c in (WHITE, BLACK):
        e = expected[c]
        vis = obs.vis_w if c == WHITE else obs.vis_b
        for z in range(1, NZONES):
            n = e[z]
            s = vis[z]
            k = cap[z]
            shown = n if n <= k else k
            if s > n or (s < shown and not op[z] & BLIND):
                diffs.append((z, c, n, s))
    diffs.sort()
    return diffs


class _Obs:
    """Scratch observation (same fields as Sensing's)."""

    def __init__(self):
        self.vis_w = bytearray(NZONES)
        self.vis_b = bytearray(NZONES)
        self.open_ = bytearray(NZONES)


class ZoneFit:
    """Part of ``Tracker`` (its base class): the zone tables, the fitting and its
    scratch buffers, set up by ``_zones_init``. The tracker sets ``mover``,
    ``max_hand`` and ``_dists`` (distances one step may cover this turn)."""

    def _zones_init(self, variant, layout):
        self.cap = layout.cap
        self.mover = WHITE
        self._dists = ()           # distances one step may cover this turn
        # zone of (colour, own path point) and back
        self._zt = (zone_table(variant, WHITE), zone_table(variant, BLACK))
        self._pp = (bytearray(NZONES), bytearray(NZONES))
        for c in (WHITE, BLACK):
            zt = self._zt[c]
            pp = self._pp[c]
            for z in range(NZONES):
                pp[z] = NOPATH
            for k in range(26):
                pp[zt[k]] = k
        # scratch: expected counts of a candidate, missing checkers per zone/colour,
        # the previous observation and what vanished in the latest change
        self._e = (bytearray(NZONES), bytearray(NZONES))
        self._miss = (bytearray(NZONES), bytearray(NZONES))
        self._prev = (bytearray(NZONES), bytearray(NZONES))
        self._fresh = (bytearray(NZONES), bytearray(NZONES))
        self._fresh_n = 0
        self._ce = (bytearray(NZONES), bytearray(NZONES))    # the current partial turn
        self._exm = bytearray(NZONES)                         # mover's excess per zone
        self._why = None           # why observed_position could not read the board
        self._fitted = None        # the position miss was last computed for
        self._fitted_obs = None
        self._patch = _Obs()       # scratch observation (hit_prep)
        # the stack watch
        self._layout = layout
        self._wsum = array("i", [0] * _MAX_SLOTS)
        self._wref = array("h", [0] * _MAX_SLOTS)
        self._wema = array("h", [0] * _MAX_SLOTS)
        self._watch_zone = 0
        self._stirred = False
        self._wn = 0
        self._wrun = 0

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
        more of the mover's checkers show than expected (after the last fit)?"""
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
        return fit[EXCESS] == 0 and fit[IN_HAND] <= self.max_hand and fit[COVERS]

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
                if p != NOPATH and p != 25:
                    out.append(p)
        return out

    def observed_position(self, obs):
        """The position the board shows, if counts are certain enough (conservation
        fills one full or blind zone per colour); None otherwise, with ``why`` set
        when a count says what is wrong (a checker missing or extra, C1)."""
        self._why = None
        for c in (WHITE, BLACK):
            vis = obs.vis_w if c == WHITE else obs.vis_b
            total = 0
            unsure = False
            for z in range(1, NZONES):
                total += vis[z]
                if obs.open_[z] & BLIND or vis[z] >= self.cap[z]:
                    unsure = True
            if total > CHECKERS:
                self._why = "too many checkers on the board"
            elif total < CHECKERS and not unsure:
                self._why = "a checker is off the board"
            if self._why is not None:
                return None
        # imported here: 23 module names keep the module's dict at 23 slots (not 29)
        from nardy.rules import Position
        pos = Position(turn=self.mover)
        b = pos.board
        for c in (WHITE, BLACK):
            vis = obs.vis_w if c == WHITE else obs.vis_b
            pp = self._pp[c]
            unsure = []
            total = 0
            for z in range(1, NZONES):
                n = vis[z]
                if not n and not obs.open_[z] & BLIND:
                    continue
                p = pp[z]
                if p == NOPATH:
                    if n:
                        return None   # a checker in the other colour's tray
                    continue
                b[26 * c + p] = n
                total += n
                if obs.open_[z] & BLIND or n >= self.cap[z]:
                    unsure.append(p)
            rest = CHECKERS - total
            if rest < 0 or (rest and len(unsure) != 1):
                return None
            if rest:
                b[26 * c + unsure[0]] += rest
        return pos

    def _put_back(self, played, flags, i):
        """Right after ``fit`` of the position before ``played[i]``: were the illegal
        steps from ``i`` on taken back onto where they came from, a zone that cannot
        show a checker arriving (a full stack such as long nardy's head, a blind
        slot)? Then a checker that vanished from where an illegal step put it went
        back there, not into the hand, and the warning goes at once."""
        c = self.mover
        zt = self._zt[c]
        e = self._e[c]
        allowed = []
        for j in range(i, len(played)):
            if not flags[j]:
                return False
            f, t = played[j]
            zs = zt[f]
            if e[zs] < self.cap[zs] and not self._fitted_obs.open_[zs] & BLIND:
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

    # -- the stack watch ----------------------------------------------------------------
    # A lift the slots cannot show: the top checker of a stack taller than its zone
    # tells. A slot reads empty, one, or "two or more", so lifting the top checker off a
    # stack of three (long nardy's head: 15 checkers on 5 slots) changes no class. The
    # field still changes: the third magnet of a stack adds about 2.4 mT at its sensor,
    # some 90 ADC counts, against a noise of about 8. The watch follows the raw readings
    # of one zone's slots against a reference averaged when armed, smooths each slot's
    # deviation over a few scans, and sets ``_stirred`` once a deviation beyond _STIR
    # has held for _HOLD scans (and clears it the same way): one short loop over that
    # zone's slots per scan, nothing allocated.
    # Only a change the way a lift moves the readings counts: a white stack reads
    # lower without its top checker, a black one higher. A checker put onto the
    # stack, or a magnet carried over it, moves them the other way (self-play showed
    # a checker landing on the watched stack taken for a lift).
    # Waiting those scans made the lights of long nardy's most common first lift
    # ~200 ms late (issue 21, point 12: within 60 ms of the lift). A reading beyond
    # _EARLY the lift's way sets ``_stirred`` on its first scan: the sensors' own
    # noise is under a count rms (hardware/README.md; the tests use up to 12), so 60
    # counts is no noise, and a checker moved beside the stack changes a class too,
    # which the tracker's stillness rule covers. The reading seeds the smoothed
    # deviation, so the lift holds as before; a reading that returns clears it after
    # _HOLD scans, like any change.

    def _watch_scan(self, raw):
        """One scan's raw readings (the layout's channel order)."""
        z = self._watch_zone
        lay = self._layout
        s = lay.start[z]
        n = lay.size(z)
        if n > _MAX_SLOTS:
            n = _MAX_SLOTS
        if self._wn < _SETTLE:
            for i in range(n):
                self._wsum[i] += raw[s + i]
            self._wn += 1
            if self._wn == _SETTLE:
                for i in range(n):
                    self._wref[i] = self._wsum[i] // _SETTLE
            return
        moved = 0               # 1: a lift, smoothed; 2: a lift plain on this scan
        ref = self._wref
        ema = self._wema
        sign = 1 if self.mover == WHITE else -1   # a lift lowers white's readings
        for i in range(n):
            e = raw[s + i] - ref[i]
            if e * sign < -_EARLY:
                moved = 2
            else:
                e = ema[i] + ((e - ema[i]) >> _SHIFT)
            ema[i] = e
            if not moved and e * sign < -_STIR:
                moved = 1
        if moved == 2 and not self._stirred:
            self._stirred = True
            self._wrun = 0
            return
        if (moved > 0) == self._stirred:
            self._wrun = 0
            return
        self._wrun += 1
        if self._wrun >= _HOLD:
            self._stirred = moved > 0
            self._wrun = 0
