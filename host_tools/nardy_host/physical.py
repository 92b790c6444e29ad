"""Physical emulation: checkers with magnets on a board of hall sensors, and hands.

``PhysBoard`` keeps where every checker physically lies (zone, slot, stacking level)
and renders the 128 raw ADC readings through the magnetic model of
``nardy_host.magnet`` (field of each disc magnet at each sensor, crosstalk from every
slot around, sensor offsets, ADC noise, dead or stuck channels). ``Hands`` turns a
logical step into what a player's hands do over time: lift the outermost checker,
carry or slide it, put it at the end of the row or on top, fast moves between two
scans, two checkers lifted together, hits in either order, a knocked-over checker
put back. ``Rig`` runs the real firmware pipeline (``Sensing`` then ``Tracker``) on
those readings, scan by scan.

Host-side (CPython): it uses ``random`` and floats freely.
"""

import math
import random
from operator import add as _add

from nardy.calibration import Calibration, model_defaults
from nardy.rules import BLACK, WHITE
from nardy.sensing import Sensing
from nardy.tracker import Tracker
from nardy.zones import NZONES, ZONE_BAR, ZONE_OFF_B, ZONE_OFF_W, Layout
from nardy_host.magnet import MagnetModel, spread

# Where a hand puts a checker around its slot centre (mm): a disc of 2 mm radius
# (magnet.SPREAD "placement"; the sensor's own placement error, +-0.5 mm, is folded in).
_JITTER = ((0.0, 0.0), (1.4, 0.0), (-1.4, 0.0), (0.0, 1.4), (0.0, -1.4),
           (1.4, 1.4), (-1.4, 1.4), (1.4, -1.4), (-1.4, -1.4))

# Magnet contributions depend only on the nominal geometry: shared by every board
# built on the same model (a Monte Carlo of 10,000 builds computes them once).
_SHARED = {}


def _key(model):
    return tuple(sorted((k, v) for k, v in vars(model).items()
                        if isinstance(v, (int, float, str))))


class Build:
    """One board as built, and its 30 checkers, drawn from ``magnet.SPREAD``.

    Per channel: ``a`` + ``k`` * field (counts; the sensor's offset and sensitivity,
    the P-FET drop of its group under the ADC's reference 3V3S, the MCP3208's offset
    and gain), the output clamp ``lo``..``hi`` in counts, ``dz`` the element's depth
    error (mm). Per checker: ``g`` the magnet's strength against nominal, ``dz`` its
    height error (mm) and ``tdev`` the checker's thickness error. ``Build.nominal``
    is the model itself (every spread zero)."""

    def __init__(self, model, n, rng=None, groups=16, offset_sd=0.0):
        m = model
        vcc = m.vcc_V
        full = 4096.0 if m.ratiometric else 4096.0 * 1000.0 * vcc / m.adc_full_scale_mV
        u = (lambda s: rng.uniform(-s, s)) if rng is not None else (lambda s: 0.0)
        uu = (lambda a, b: rng.uniform(a, b)) if rng is not None else (lambda a, b: 0.0)
        sens = spread("sensor_sensitivity")[1]
        vq = spread("sensor_offset")[1]
        dcom = u(spread("sensor_depth_common")[1])
        ddep = spread("sensor_depth")[1]
        drop_lo, drop_hi = spread("switch_drop")[1]
        adc_off = u(spread("adc_offset")[1])
        adc_gain = 1.0 + u(spread("adc_gain")[1]) / 4096.0
        ngroups = (n + groups - 1) // groups
        drops = [uu(drop_lo, drop_hi) for _ in range(ngroups)]
        self.model = m
        self.ratiometric = m.ratiometric
        self.clip = None        # counts where the ADC's input range ends
        self.vref_mV = None
        if not m.ratiometric:
            # The fallback: the ESP32's ADC, eFuse-calibrated (read_uv), so offset and
            # gain are the conversion's; its reference sets where the input clips.
            adc_off = 0.0
            adc_gain = 1.0
            lo_v, hi_v = spread("adc_vref")[1]
            self.vref_mV = rng.uniform(lo_v, hi_v) if rng is not None else 0.5 * (lo_v + hi_v)
            if m.adc_range_mV is not None:
                rng_mV = m.adc_range_mV * self.vref_mV / (0.5 * (lo_v + hi_v))
                self.clip = full / vcc * rng_mV / 1000.0
        self.supply = 1.0       # the sensor rail against its level at calibration
        self.a = []
        self.k = []
        self.lo = []
        self.hi = []
        self.dz = []
        self._sens = []         # per channel: (counts of v0, of S, of lo, of hi, offset)
        for ch in range(n):
            vs = vcc - drops[ch // groups]          # the group's sensors' supply
            r = vs / vcc                            # ratiometric: offset and S scale
            v0 = r * (0.5 * vcc + u(vq))
            s_v = r * m.sensitivity_mV_per_mT / 1000.0 * (1.0 + u(sens))
            c = full / vcc * adc_gain
            off = adc_off + (rng.gauss(0.0, offset_sd) if offset_sd and rng else 0.0)
            self._sens.append((c * v0, c * s_v, c * m.out_margin_V,
                               c * (vs - m.out_margin_V), off))
            self.a.append(c * v0 + off)
            self.k.append(c * s_v)
            self.lo.append(c * m.out_margin_V + off)
            self.hi.append(c * (vs - m.out_margin_V) + off)
            self.dz.append(dcom + u(ddep))
        br_lo, br_hi = spread("magnet_br")[1]
        t_tol = spread("magnet_thickness")[1]
        rec_lo, rec_hi = spread("magnet_recess")[1]
        c_tol = spread("checker_thickness")[1]
        kt = _thickness_gain(m)
        self.g = []
        self.cdz = []
        self.tdev = []
        for _ in range(30):
            br = rng.uniform(br_lo, br_hi) if rng is not None else m.br_mT
            dt = u(t_tol)
            rec = uu(rec_lo, rec_hi) if rng is not None else 0.0
            self.g.append(br / m.br_mT * (1.0 + kt * dt))
            # flush with the checker's face: the centre moves by half the thickness
            # error, and up by the recess
            self.cdz.append(rec + 0.5 * dt)
            self.tdev.append(u(c_tol))

    def set_supply(self, rel):
        """Run the board at a sensor rail ``rel`` times its level at calibration. The
        sensor's output is ratiometric to its supply (SBAS640 sec. 6.3.4): with the
        MCP3208, whose reference is that rail, nothing moves; with the ESP32's own
        ADC every level moves by the same factor (the ADC's range does not)."""
        self.supply = rel
        if self.ratiometric:
            return
        for ch, (v0, s_v, lo, hi, off) in enumerate(self._sens):
            self.a[ch] = v0 * rel + off
            self.k[ch] = s_v * rel
            self.lo[ch] = lo * rel + off
            self.hi[ch] = hi * rel + off

    def draw_supply(self, rng, drift=None):
        """The rail's drift between calibration and play: uniform within +-``drift``
        (relative; default ``supply_drift`` of magnet.SPREAD)."""
        if not self.ratiometric:
            d = spread("supply_drift")[1] if drift is None else drift
            self.set_supply(1.0 + rng.uniform(-d, d))

    @staticmethod
    def nominal(model, n, offset_sd=0.0, rng=None):
        b = Build(model, n, None)
        if offset_sd and rng is not None:
            b.a = [a + rng.gauss(0.0, offset_sd) for a in b.a]
        return b


def _thickness_gain(model):
    """Relative field change per mm of magnet thickness, centre fixed (one magnet at
    level 0 over its sensor)."""
    h = model.magnet_height_mm(0)
    f0 = model.field_mT(0.0, 0.0, h)
    t = model.magnet_thickness_mm
    model.magnet_thickness_mm = t + 0.05
    f1 = model.field_mT(0.0, 0.0, h)
    model.magnet_thickness_mm = t
    return (f1 - f0) / 0.05 / f0


_CLEARANCE = {}


def knock_clearance_mm(model):
    """How far a knocked-over checker lying flat must stay from a slot's sensor not
    to read as a checker put on that slot: where its field falls to a quarter of a
    checker seated on the slot. The slot's class boundary (empty / one) is half of
    it, and a build's spread (magnet +-4 %, sensor gain calibrated) cannot carry a
    quarter across. Closer, no board can tell the knock from a legal step onto that
    point (self-play, short nardy, --seed 6 build 12 game 65: a checker knocked off
    P17 came to rest 8 mm from P18's empty second slot, read as 17/18, which used
    the last die; the turn ended by itself before the hand put it back)."""
    key = _key(model)
    r = _CLEARANCE.get(key)
    if r is None:
        h = model.magnet_height_mm(0)
        full = model.field_mT(0.0, 0.0, h)
        r = 0.0
        while model.field_mT(r, 0.0, h) > 0.25 * full:
            r += 0.25
        _CLEARANCE[key] = r
    return r


def zone_name(z):
    if z == ZONE_BAR:
        return "bar"
    if z == ZONE_OFF_W:
        return "off_white"
    if z == ZONE_OFF_B:
        return "off_black"
    return z


class PhysBoard:
    """Checkers on a board of sensors. ``build`` (a ``Build``) is how this board and
    its checkers came out; without one, the nominal model with Gaussian sensor
    offsets of ``offset_sd`` counts."""

    def __init__(self, layout, model=None, noise=0.0, rng=None, offset_sd=0.0, build=None):
        self.layout = layout
        self.model = model or (build.model if build is not None
                               else MagnetModel(slots=layout.slots))
        self.noise = float(noise)
        self.rng = rng or random.Random(0)
        n = layout.n
        self.xy = []
        for ch in range(n):
            z = layout.zone[ch]
            slot = ch - layout.start[z] + 1
            self.xy.append(self.model.slot_xy(zone_name(z), slot))
        if build is None:
            build = Build.nominal(self.model, n, offset_sd, self.rng)
        self.build = build
        # what a channel reads with no field (the calibration measures it)
        self.offset = [a - self.model.baseline() for a in build.a]
        self.base = self.model.baseline()
        self.stacks = [[[] for _ in range(layout.size(z))] if z else []
                       for z in range(NZONES)]
        self.ids = [[[] for _ in range(layout.size(z))] if z else []
                    for z in range(NZONES)]
        # checkers off the board, last lifted last: a hand puts back the checker it
        # holds (ids 0..14 white, 15..29 black)
        self.hand = {WHITE: list(range(14, -1, -1)), BLACK: list(range(29, 14, -1))}
        self.field = [0.0] * n          # mT at each sensor from checkers on slots
        self.loose = {}                 # id -> (x, y, level, polarity): sliding, fallen
        self.faults = {}                # channel -> fixed reading (dead or stuck)
        self._cache = _SHARED.setdefault((_key(self.model), n), {})
        self._jit = {}
        self.raw = [0] * n
        self._clean = None      # noiseless readings, recomputed when a magnet moves
        # Gaussian ADC noise drawn once; each scan reads it from a random offset
        # (drawing 128 fresh samples per scan made self-play five times slower).
        self._noise = [self.rng.gauss(0.0, 1.0) for _ in range(1 << 14)]
        self._inoise = None
        self._inoise_sd = None

    # -- magnet contributions ------------------------------------------------------------
    def _contrib(self, x, y, level, pol, slope=True):
        """[(channel, mT, mT per mm of height)] of one nominal magnet at (x, y) and
        stacking level; the slope carries the build's height errors (sensor depth,
        magnet recess, checker thickness) to first order."""
        m = self.model
        h = m.magnet_height_mm(level)
        out = []
        for ch in range(self.layout.n):
            sx, sy = self.xy[ch]
            dx = sx - x
            dy = sy - y
            if dx * dx + dy * dy > 110.0 * 110.0:
                continue
            b = pol * m.field_mT(dx, dy, h)
            if abs(b) > 0.005:
                d = 0.0
                if slope:
                    d = pol * (m.field_mT(dx, dy, h + 0.25) - m.field_mT(dx, dy, h - 0.25)) * 2.0
                out.append((ch, b, d))
        return out

    def _slot_contrib(self, z, slot, level, colour, jit):
        key = (z, slot, level, colour, jit)
        c = self._cache.get(key)
        if c is None:
            x, y = self.xy[self.layout.start[z] + slot]
            jx, jy = _JITTER[jit]
            c = self._contrib(x + jx, y + jy, level, 1 if colour == WHITE else -1)
            self._cache[key] = c
        return c

    def _add(self, contrib, sign, cid=None, level=0):
        f = self.field
        if cid is None:
            for ch, b, _d in contrib:
                f[ch] += sign * b
        else:
            bd = self.build
            g = sign * bd.g[cid]
            dzc = bd.cdz[cid] + level * bd.tdev[cid]
            sdz = bd.dz
            for ch, b, d in contrib:
                # the sensor deeper (dz > 0) sees the magnet farther away: minus
                f[ch] += g * (b + (dzc - sdz[ch]) * d)
        self._clean = None

    # -- checkers on slots -------------------------------------------------------------------
    def count(self, z, colour):
        return sum(1 for st in self.stacks[z] for c in st if c == colour)

    def _slots_for(self, z, colour):
        n = len(self.stacks[z])
        if z == ZONE_BAR:
            # each colour uses the half of the bar on its owner's side
            half = n // 2 or 1
            return range(0, half) if colour == WHITE else range(n - half, n)
        return range(n)

    def put(self, z, colour, mode="row"):
        """Put a checker on zone z: at the end of the row (the lowest stack nearest
        the edge) or, with mode "top", on a single checker while the row has room."""
        slots = list(self._slots_for(z, colour))
        st = self.stacks[z]
        slot = None
        if mode == "top":
            singles = [s for s in slots if len(st[s]) == 1 and st[s][0] == colour]
            if singles:
                slot = singles[-1]
        if slot is None:
            # never on an opposing checker while there is another choice (an illegal
            # step onto a closed point lands beside the opposing checkers)
            own = [s for s in slots if not st[s] or st[s][-1] == colour] or slots
            low = min(len(st[s]) for s in own)
            slot = [s for s in own if len(st[s]) == low][0]
        level = len(st[slot])
        jit = self.rng.randrange(len(_JITTER))
        st[slot].append(colour)
        hand = self.hand[colour]
        cid = hand.pop() if hand else (0 if colour == WHITE else 15)
        self.ids[z][slot].append(cid)
        self._jit[(z, slot, level)] = jit
        self._add(self._slot_contrib(z, slot, level, colour, jit), 1, cid, level)
        return slot

    def put_at(self, z, slot, colour, cid=None):
        """Put a checker (this one: ``cid``, else the one in hand) on slot index
        ``slot`` (0-based) of zone z, on top of what is there: the calibration's
        placements."""
        st = self.stacks[z]
        level = len(st[slot])
        jit = self.rng.randrange(len(_JITTER))
        hand = self.hand[colour]
        if cid is None:
            cid = hand.pop()
        else:
            hand.remove(cid)
        st[slot].append(colour)
        self.ids[z][slot].append(cid)
        self._jit[(z, slot, level)] = jit
        self._add(self._slot_contrib(z, slot, level, colour, jit), 1, cid, level)

    def take_at(self, z, slot):
        """Lift the top checker of one slot; returns its colour."""
        st = self.stacks[z]
        level = len(st[slot]) - 1
        colour = st[slot].pop()
        cid = self.ids[z][slot].pop()
        self.hand[colour].append(cid)
        jit = self._jit.pop((z, slot, level), 0)
        self._add(self._slot_contrib(z, slot, level, colour, jit), -1, cid, level)
        return colour

    def take(self, z, colour):
        """Lift the outermost checker of that colour: the top of the highest stack,
        the farthest from the edge among equals."""
        st = self.stacks[z]
        best = None
        for s in self._slots_for(z, colour):
            if st[s] and st[s][-1] == colour and (best is None or len(st[s]) >= len(st[best])):
                best = s
        if best is None:
            raise ValueError("no %d checker on zone %d" % (colour, z))
        level = len(st[best]) - 1
        st[best].pop()
        cid = self.ids[z][best].pop()
        self.hand[colour].append(cid)
        jit = self._jit.pop((z, best, level), 0)
        self._add(self._slot_contrib(z, best, level, colour, jit), -1, cid, level)
        return best

    def clear(self):
        for z in range(1, NZONES):
            for s in range(len(self.stacks[z])):
                while self.stacks[z][s]:
                    colour = self.stacks[z][s][-1]
                    self.take(z, colour)
        self.loose = {}

    def set_position(self, variant, pos, zt):
        self.clear()
        for c in (WHITE, BLACK):
            for k in range(26):
                for _ in range(pos.board[26 * c + k]):
                    self.put(zt[c][k], c)

    def zone_xy(self, z, slot=0):
        return self.xy[self.layout.start[z] + slot]

    # -- readings ---------------------------------------------------------------------------
    def _readings(self, field):
        bd = self.build
        a = bd.a
        k = bd.k
        lo = bd.lo
        hi = bd.hi
        out = []
        for ch in range(self.layout.n):
            r = a[ch] + k[ch] * field[ch]
            if r < lo[ch]:
                r = lo[ch]        # the sensor's output swing ends short of its rails
            elif r > hi[ch]:
                r = hi[ch]
            out.append(r)
        return out

    def read(self):
        if self.loose:
            field = list(self.field)
            for mag in self.loose.values():
                for ch, b, _d in self._contrib(*mag, slope=False):
                    field[ch] += b
            clean = [int(c + 0.5) for c in self._readings(field)]
        else:
            if self._clean is None:
                self._clean = [int(c + 0.5) for c in self._readings(self.field)]
            clean = self._clean
        sd = self.noise
        if sd:
            # Noise in whole counts, scaled once per level (self-play spends most of
            # its time here: a scan every 20 ms of emulated time).
            if self._inoise_sd != sd:
                self._inoise = [int(round(sd * e)) for e in self._noise]
                self._inoise_sd = sd
            k = self.rng.randrange(len(self._inoise) - len(clean))
            raw = list(map(_add, clean, self._inoise[k:k + len(clean)]))
            if min(raw) < 0 or max(raw) > 4095:
                raw = [0 if r < 0 else 4095 if r > 4095 else r for r in raw]
        else:
            raw = list(clean)
        clip = self.build.clip
        if clip is not None and max(raw) > clip:
            # The ADC's input range ends here (the sensor's output swing goes on):
            # a saturated ADC reads its top code, noiseless (read_uv: the clip).
            c = int(clip)
            raw = [c if r > c else r for r in raw]
        for ch, v in self.faults.items():
            raw[ch] = v
        self.raw = raw
        return raw


def calibrate(board, rng, slots=5, ref_count=15, max_scans=40):
    """Run the board's own guided calibration (``nardy.calibproc``) on the emulated
    board, with an emulated user: the empty board, one white checker on every slot in
    a random order (placed off-centre like a hand does), then every checker of each
    colour on the reference slot. Returns (Calibration, faults)."""
    from nardy.calibproc import EMPTY, REF_BLACK, REF_WHITE, SLOTS, Procedure
    lay = board.layout
    board.clear()
    proc = Procedure(lay.n, slots, ref_count=ref_count)
    while proc.phase == EMPTY:
        proc.feed(board.read())

    def visit(z, slot, colour, cid=None):
        board.put_at(z, slot, colour, cid)
        before = proc.scans
        got = False
        while proc.scans - before < max_scans:
            n_before = (sum(proc.done), len(proc.ref[0]), len(proc.ref[1]))
            proc.feed(board.read())
            if (sum(proc.done), len(proc.ref[0]), len(proc.ref[1])) != n_before:
                got = True
                break
        board.take_at(z, slot)
        for _ in range(2):
            proc.feed(board.read())     # the lift is seen
        return got

    order = [ch for ch in range(lay.n) if not proc.dead[ch]]
    rng.shuffle(order)
    for ch in order:
        if proc.phase != SLOTS:
            break
        z = lay.zone[ch]
        visit(z, ch - lay.start[z], WHITE)
    if proc.phase == SLOTS:
        proc.finish()
    rz = lay.zone[proc.ref_channel]
    rs = proc.ref_channel - lay.start[rz]
    for colour, phase, ids in ((WHITE, REF_WHITE, range(15)), (BLACK, REF_BLACK, range(15, 30))):
        for cid in ids:
            if proc.phase != phase:
                break
            visit(rz, rs, colour, cid)
        if proc.phase == phase:
            proc.finish()
    return proc.result()


class Rig:
    """Board + firmware pipeline + clock. ``scan()`` advances one scan period."""

    def __init__(self, variant, slots=5, noise=0.0, seed=0, period_ms=20, stable_ms=100,
                 offset_sd=None, stuck_scans=None, max_hand=3, build=None, cal=None):
        self.v = variant
        self.rng = random.Random(seed)
        self.layout = Layout(slots)
        self.faults = None
        if build is not None:
            # a board as built: calibrated by the board's own guided procedure
            self.board = PhysBoard(self.layout, noise=noise, rng=self.rng, build=build)
            if cal is None:
                cal, self.faults = calibrate(self.board, self.rng, slots)
        else:
            self.board = PhysBoard(self.layout, noise=noise, rng=self.rng,
                                   offset_sd=(25.0 if noise else 0.0) if offset_sd is None
                                   else offset_sd)
            cal = Calibration(self.layout.n, model_defaults(slots))
            # The board is calibrated once, empty, from an averaged scan (noise
            # averages out; the offsets are what it measures).
            self.board.noise, keep = 0.0, self.board.noise
            cal.set_baselines(self.board.read())
            self.board.noise = keep
        if stuck_scans is None:
            stuck_scans = 100 if noise else 0
        self.sens = Sensing(self.layout, cal, stable_ms=stable_ms, stuck_scans=stuck_scans)
        self.trk = Tracker(variant, self.layout, max_hand=max_hand)
        self.period = period_ms
        self.t = 0
        self.events = []      # everything the tracker said, drained after each scan
        # Complaints (warn, verdict, sync) said while no knocked-over checker excused
        # them: self-play counts these as false warnings in a legal turn.
        self.quiet = False
        self.loud = []

    def scan(self):
        self.t += self.period
        raw = self.board.read()
        self.sens.scan(raw, self.t)
        if self.sens.ready(self.t):
            self.trk.update(self.sens, self.t)
        self.trk.tick(self.sens, self.sens.still_ms(self.t))
        if self.trk.events:
            self.take_events()

    def take_events(self):
        ev = self.trk.events
        self.events.extend(ev)
        if not self.quiet:
            self.loud.extend(e for e in ev if e[0] in ("warn", "verdict", "sync"))
        del ev[:]

    def wait(self, ms):
        n = max(1, int(math.ceil(ms / self.period)))
        for _ in range(n):
            self.scan()

    def settle(self, max_ms=5000):
        """Scan until the sensing is still for a debounce time."""
        limit = self.t + max_ms
        self.scan()
        while self.sens.still_ms(self.t) < self.sens.stable_ms + self.period and self.t < limit:
            self.scan()


class Hands:
    """A player's hands: logical steps become lifts, carries and placements over time.

    ``style`` knobs are probabilities; ``rig.events`` collects what the tracker said.
    ``knocking`` is True while a knocked-over checker lies beside its point (the
    tracker is then allowed to be out of sync).
    """

    def __init__(self, rig, rng, fast=0.15, slide=0.25, direct=0.6, together=0.3,
                 knock=0.0, top=0.3):
        self.rig = rig
        self.v = rig.v
        self.rng = rng
        self.fast = fast
        self.slide = slide
        self.direct = direct
        self.together = together
        self.knock = knock
        self.top = top
        self.knocking = False
        self.knocks = 0

    def zone(self, colour, k):
        return self.rig.trk._zt[colour][k]

    def pause(self, lo=80, hi=500):
        self.rig.wait(self.rng.uniform(lo, hi))

    def _carry(self, colour, zf, zt):
        """Between lift and place: air, a slide over the points between, or nothing
        (a fast move lands within the same scan)."""
        r = self.rng.random()
        rig = self.rig
        if r < self.fast:
            return
        if r < self.fast + self.slide and zf <= 24 and zt <= 24:
            (x0, y0) = rig.board.zone_xy(zf, 0)
            (x1, y1) = rig.board.zone_xy(zt, 0)
            dist = math.hypot(x1 - x0, y1 - y0)
            speed = self.rng.uniform(0.5, 1.5)   # mm per ms: a quick slide
            n = max(1, int(dist / speed / rig.period))
            pol = 1 if colour == WHITE else -1
            for i in range(1, n):
                f = i / n
                rig.board.loose["slide"] = (x0 + f * (x1 - x0), y0 + f * (y1 - y0), 0, pol)
                rig.scan()
            rig.board.loose.pop("slide", None)
            return
        self.pause(120, 700)

    def _mode(self):
        return "top" if self.rng.random() < self.top else "row"

    def move(self, colour, zf, zt, hit_zone=None):
        """One checker from zone zf to zone zt, hitting a blot on hit_zone first or
        after (either order)."""
        rig = self.rig
        opp = 1 - colour
        if hit_zone is not None and self.rng.random() < 0.5:
            rig.board.take(hit_zone, opp)
            self.pause(60, 300)
            rig.board.put(ZONE_BAR, opp)
            self.pause(60, 300)
            hit_zone = None
        rig.board.take(zf, colour)
        self._carry(colour, zf, zt)
        if hit_zone is not None:
            rig.board.take(hit_zone, opp)
            self.pause(60, 300)
            rig.board.put(zt, colour, self._mode())
            self.pause(60, 300)
            rig.board.put(ZONE_BAR, opp)
        else:
            rig.board.put(zt, colour, self._mode())

    def play(self, pos, steps):
        """Play the logical steps (mover = pos.turn) on the board; returns the
        position after them (engine semantics)."""
        v = self.v
        c = pos.turn
        i = 0
        cur = pos
        while i < len(steps):
            self.maybe_knock(cur)
            f, t = steps[i]
            nxt = v.apply_step(cur, (f, t))
            hit = self._hits(cur, nxt)
            # one checker taking the next die too, moved in one go
            j = i
            end = nxt
            while (not hit and j + 1 < len(steps) and steps[j + 1][0] == steps[j][1]
                   and self.rng.random() < self.direct):
                n2 = v.apply_step(end, steps[j + 1])
                if self._hits(end, n2):
                    break
                j += 1
                end = n2
            if (j == i and not hit and i + 1 < len(steps) and steps[i + 1][0] == f
                    and not self._hits(nxt, v.apply_step(nxt, steps[i + 1]))
                    and self.rng.random() < self.together):
                # two checkers lifted together from one point, then placed one by one
                t2 = steps[i + 1][1]
                self.rig.board.take(self.zone(c, f), c)
                self.rig.board.take(self.zone(c, f), c)
                self._carry(c, self.zone(c, f), self.zone(c, t))
                self.rig.board.put(self.zone(c, t), c, self._mode())
                self.pause(100, 400)
                self.rig.board.put(self.zone(c, t2), c, self._mode())
                cur = v.apply_step(nxt, steps[i + 1])
                i += 2
                self.pause()
                continue
            hz = None
            if hit:
                hz = self.zone(1 - c, hit)
            self.move(c, self.zone(c, f), self.zone(c, steps[j][1]), hz)
            cur = end
            i = j + 1
            self.pause()
        return cur

    def _hits(self, before, after):
        """Opponent path point of a blot hit by this step, or 0."""
        if not self.v.HITS:
            return 0
        o = 26 * (1 - before.turn)
        for k in range(1, 25):
            if before.board[o + k] == 1 and after.board[o + k] == 0:
                return k
        return 0

    def take_back(self, pos, steps):
        """Undo steps in reverse order (each checker back where it came from)."""
        v = self.v
        c = pos.turn
        chain = [pos]
        for s in steps:
            chain.append(v.apply_step(chain[-1], s))
        for i in range(len(steps) - 1, -1, -1):
            f, t = steps[i]
            hit = self._hits(chain[i], chain[i + 1])
            self.rig.board.take(self.zone(c, t), c)
            self._carry(c, self.zone(c, t), self.zone(c, f))
            self.rig.board.put(self.zone(c, f), c, self._mode())
            if hit:
                self.pause(60, 300)
                self.rig.board.take(ZONE_BAR, 1 - c)
                self.pause(60, 300)
                self.rig.board.put(self.zone(1 - c, hit), 1 - c)
            self.pause()

    def _knock_spot(self, z):
        """Where a checker knocked off zone z comes to rest (x, y), or None if there is
        no room. It rolls off sideways onto the edge of the neighbouring point and lies
        flat there, leaning against the stack it fell from at most: two checkers lying
        on the board cannot overlap, so it stays a checker's width from every checker of
        another zone. (Landing on one of them would stack it there, the same reading as
        a checker put on top: a move, not a knock.)"""
        b = self.rig.board
        x, y = b.zone_xy(z, 0)
        d2 = b.model.checker_diameter_mm ** 2
        others = [b.zone_xy(zz, s) for zz in range(1, NZONES) if zz != z
                  for s in range(len(b.stacks[zz])) if b.stacks[zz][s]]
        # Nor does it come to rest over an empty slot of another zone: that reads as a
        # checker put there (a move, not a knock) - see knock_clearance_mm.
        r2 = knock_clearance_mm(b.model) ** 2
        slots = [b.zone_xy(zz, s) for zz in range(1, NZONES) if zz != z
                 for s in range(len(b.stacks[zz]))]
        for _ in range(8):
            kx = x + self.rng.choice((-1, 1)) * self.rng.uniform(14.0, 30.0)
            ky = y + self.rng.uniform(0.0, 60.0) * (1 if z <= 12 else -1)
            if (all((kx - ox) ** 2 + (ky - oy) ** 2 >= d2 for ox, oy in others)
                    and all((kx - sx) ** 2 + (ky - sy) ** 2 >= r2 for sx, sy in slots)):
                return kx, ky
        return None

    def maybe_knock(self, pos):
        """Now and then a hand knocks a checker off a stack; it is put back after a
        while (the tracker may show out of sync meanwhile)."""
        if not self.knock or self.rng.random() >= self.knock:
            return
        rig = self.rig
        b = rig.board
        zones = [z for z in range(1, 25) for col in (WHITE, BLACK) if b.count(z, col) >= 3]
        if not zones:
            return
        z = self.rng.choice(zones)
        spot = self._knock_spot(z)
        if spot is None:
            return
        col = WHITE if b.count(z, WHITE) else BLACK
        b.take(z, col)
        b.loose["knock"] = (spot[0], spot[1], 0, 1 if col == WHITE else -1)
        self.knocking = True
        rig.quiet = True
        self.knocks += 1
        self.pause(300, 1500)
        b.loose.pop("knock", None)
        b.put(z, col)
        self.pause(200, 400)
        rig.settle()
        rig.wait(rig.sens.max_wait_ms)
        rig.quiet = False
        self.knocking = False
