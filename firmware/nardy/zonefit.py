"""Zones and fitting: how a position of the rules engine looks to the sensors.

The tracker (``nardy.tracker``) explains observations with partial turns; this part
holds what does not depend on turns: the zone of each (colour, path point) and back,
the counts a position puts in each zone, and how well a position *fits* an
observation (checkers seen where the position has none, checkers of the position not
seen: "in the hand", capped by what a zone can show), what vanished in the latest
change, and the position a board shows when the counts are certain enough. Every
buffer is allocated once here; ``fit`` runs for every node of the tracker's search.

Zones are those of ``nardy.sensing``: 1..24 = P1..P24, 25 bar, 26/27 white's/black's
tray. An observation is anything with ``vis_w``, ``vis_b`` and ``open_`` arrays
indexed by zone (``Sensing``, or a test's stand-in).
"""

from nardy.rules import BLACK, CHECKERS, WHITE, Position
from nardy.sensing import BLIND, NZONES, ZONE_BAR, ZONE_OFF_B, ZONE_OFF_W

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):
        return x

NOPATH = const(255)     # a zone that is no path point of that colour (the other tray)

# fit() answers a tuple; these name its fields
EXCESS = const(0)       # checkers seen where the position has none
IN_HAND = const(1)      # checkers of the position not seen (lifted, or out of view)
COVERS = const(2)       # False: a checker that just vanished is taken as moved unseen
FIXED = const(3)        # opponent's checkers seen off their places (not the bar)


class _Obs:
    """Scratch observation (same fields as Sensing's)."""

    def __init__(self):
        self.vis_w = bytearray(NZONES)
        self.vis_b = bytearray(NZONES)
        self.open_ = bytearray(NZONES)


class ZoneFit:
    def __init__(self, variant, layout, max_hand=3):
        self.cap = layout.cap
        self.max_hand = max_hand
        self.mover = WHITE
        self.dists = ()           # distances one step may cover this turn
        # zone of (colour, own path point) and back
        self.zt = (bytearray(26), bytearray(26))
        self.pp = (bytearray(NZONES), bytearray(NZONES))
        for c in (WHITE, BLACK):
            zt = self.zt[c]
            pp = self.pp[c]
            for z in range(NZONES):
                pp[z] = NOPATH
            zt[0] = ZONE_BAR
            zt[25] = ZONE_OFF_W if c == WHITE else ZONE_OFF_B
            for k in range(1, 25):
                zt[k] = variant.physical(c, k)
            for k in range(26):
                pp[zt[k]] = k
        # scratch: expected counts of a candidate, missing checkers per zone/colour,
        # the previous observation and what vanished in the latest change
        self.e = (bytearray(NZONES), bytearray(NZONES))
        self.miss = (bytearray(NZONES), bytearray(NZONES))
        self.prev = (bytearray(NZONES), bytearray(NZONES))
        self.fresh = (bytearray(NZONES), bytearray(NZONES))
        self.fresh_n = 0
        self.ce = (bytearray(NZONES), bytearray(NZONES))    # the current partial turn
        self.exm = bytearray(NZONES)                         # mover's excess per zone
        self.fitted = None        # the position miss was last computed for
        self.fitted_obs = None
        self.patch = _Obs()       # scratch observation (hit_prep)

    def keep_current(self, pos):
        """``pos`` is the current partial turn's position (what ``fit`` compares a
        vanished checker against)."""
        self.expect(pos)
        for c in (WHITE, BLACK):
            self.ce[c][:] = self.e[c]

    def expect(self, pos):
        b = pos.board
        for c in (WHITE, BLACK):
            e = self.e[c]
            zt = self.zt[c]
            for z in range(NZONES):
                e[z] = 0
            o = 26 * c
            for k in range(26):
                n = b[o + k]
                if n:
                    e[zt[k]] += n

    def fit(self, pos, obs):
        """(excess, missing, covers_fresh, excess_elsewhere) of ``pos`` against the
        observation; ``excess_elsewhere`` counts what more steps of the mover cannot
        fix (the opponent's checkers seen where they are not, except on the bar)."""
        self.expect(pos)
        self.fitted = pos
        self.fitted_obs = obs
        op = obs.open_
        cap = self.cap
        ex = 0
        de = 0
        fixed = 0
        cov = True
        mover = self.mover
        for c in (WHITE, BLACK):
            e = self.e[c]
            other = self.e[1 - c]
            vis = obs.vis_w if c == WHITE else obs.vis_b
            miss = self.miss[c]
            fresh = self.fresh[c]
            exm = self.exm
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
                if fresh[z] > m and n < self.ce[c][z]:
                    # it explains a checker that just vanished as moved away unseen;
                    # no: what was just lifted is in the hand
                    cov = False
        return ex, de, cov, fixed

    def reachable(self, srcs, left):
        """Can ``left`` more steps from ``srcs`` bring a checker to every zone where
        more of the mover's checkers show than expected (after the last fit)?"""
        exm = self.exm
        pp = self.pp[self.mover]
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
                if d > 0 and (t == 25 or d in self.dists):
                    ok = True
                    break
            if not ok:
                return False
        return need <= left

    def ok(self, fit):
        return fit[EXCESS] == 0 and fit[IN_HAND] <= self.max_hand and fit[COVERS]

    def remember(self, obs):
        """Note what vanished in this change. Only a change that removed checkers and
        added none is a lift; one that also added some is a move (fast hands)."""
        n = 0
        grew = False
        for c in (WHITE, BLACK):
            vis = obs.vis_w if c == WHITE else obs.vis_b
            prev = self.prev[c]
            fresh = self.fresh[c]
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
        self.fresh_n = n
        if grew and n:
            self.clear_fresh()

    def clear_fresh(self):
        for c in (WHITE, BLACK):
            f = self.fresh[c]
            for z in range(NZONES):
                f[z] = 0
        self.fresh_n = 0

    def sources(self, pos, obs):
        """Zones (as own path points) a new step may start from: the mover's checkers
        missing there, or zones that cannot show a lift (full or blind)."""
        c = self.mover
        self.expect(pos)
        e = self.e[c]
        vis = obs.vis_w if c == WHITE else obs.vis_b
        pp = self.pp[c]
        out = []
        for z in range(1, NZONES):
            n = e[z]
            if n and (vis[z] < n or n >= self.cap[z] or obs.open_[z] & BLIND):
                p = pp[z]
                if p != NOPATH and p != 25:
                    out.append(p)
        return out

    def count_problem(self, obs):
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
            if total > CHECKERS:
                return "too many checkers on the board"
            if total < CHECKERS and not unsure:
                return "a checker is off the board"
        return None

    def relocation_ends(self, pos, obs, hidden):
        """(sources, destinations) as the mover's path points of one checker moved
        anywhere: from where checkers are missing or cannot be seen leaving, to where
        more show (``hidden``: or where one cannot be seen arriving: a full stack, a
        blind slot, the opponent's full stack)."""
        c = self.mover
        self.expect(pos)
        e = self.e[c]
        other = self.e[1 - c]
        cap = self.cap
        vis = obs.vis_w if c == WHITE else obs.vis_b
        pp = self.pp[c]
        srcs = []
        dsts = []
        for z in range(1, NZONES):
            p = pp[z]
            if p == NOPATH:
                continue
            n = e[z]
            unseen = n >= cap[z] or obs.open_[z] & BLIND
            if n and p != 25 and (vis[z] < n or unseen):
                srcs.append(p)
            if p != 0 and (vis[z] > n or (hidden and unseen)):
                dsts.append(p)
            elif hidden and p != 25 and p != 0 and other[z] >= cap[z] and not n:
                # onto the opponent's full stack: a checker put there cannot be seen
                dsts.append(p)
        return srcs, dsts

    def diffs(self, pos, obs):
        """Where the board differs from ``pos``: sorted (zone, colour, expected, seen)."""
        self.expect(pos)
        out = []
        for c in (WHITE, BLACK):
            e = self.e[c]
            vis = obs.vis_w if c == WHITE else obs.vis_b
            for z in range(1, NZONES):
                n = e[z]
                s = vis[z]
                k = self.cap[z]
                shown = n if n <= k else k
                if s > n or (s < shown and not obs.open_[z] & BLIND):
                    out.append((z, c, n, s))
        out.sort()
        return out

    def stack_zone(self, pos, c):
        """The zone of ``c``'s tallest stack that the slots cannot resolve, or 0."""
        b = pos.board
        zt = self.zt[c]
        best = 0
        most = 0
        for k in range(1, 25):
            n = b[26 * c + k]
            z = zt[k]
            if n > self.cap[z] and n > most:
                best = z
                most = n
        return best

    def observed_position(self, obs, turn):
        """The position the board shows, if counts are certain enough (conservation
        fills one full or blind zone per colour); None otherwise."""
        pos = Position(turn=turn)
        b = pos.board
        for c in (WHITE, BLACK):
            vis = obs.vis_w if c == WHITE else obs.vis_b
            pp = self.pp[c]
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

    def put_back(self, played, flags, i):
        """Right after ``fit`` of the position before ``played[i]``: were the illegal
        steps from ``i`` on taken back onto where they came from, a zone that cannot
        show a checker arriving (a full stack such as long nardy's head, a blind
        slot)? Then a checker that vanished from where an illegal step put it went
        back there, not into the hand, and the warning goes at once."""
        c = self.mover
        zt = self.zt[c]
        e = self.e[c]
        allowed = []
        for j in range(i, len(played)):
            if not flags[j]:
                return False
            f, t = played[j]
            zs = zt[f]
            if e[zs] < self.cap[zs] and not self.fitted_obs.open_[zs] & BLIND:
                return False
            allowed.append(zt[t])
        for col in (WHITE, BLACK):
            fresh = self.fresh[col]
            miss = self.miss[col]
            ce = self.ce[col]
            ec = self.e[col]
            for z in range(1, NZONES):
                if fresh[z] > miss[z] and ec[z] < ce[z] and (col != c or z not in allowed):
                    return False
        return True

    def blots_gone(self, obs):
        """Short nardy: zones where a blot of the opponent (in the current partial
        turn) is gone, when the opponent's bar shows at least as many more."""
        opp = 1 - self.mover
        vis = obs.vis_w if opp == WHITE else obs.vis_b
        e = self.ce[opp]
        gone = [z for z in range(1, 25) if e[z] == 1 and vis[z] == 0]
        if not gone or vis[ZONE_BAR] <= e[ZONE_BAR]:
            return ()
        return gone

    def hit_prep(self, obs, restore):
        """The observation with the blots of ``restore`` back in place of the bar (a
        scratch copy): a blot put on the bar before the checker that hits it moved.
        What fits it is a hit being prepared: steps played so far are taken, the
        rest waits."""
        opp = 1 - self.mover
        p = self.patch
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
