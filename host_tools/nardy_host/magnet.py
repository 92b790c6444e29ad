"""Magnetic model of the sensing: disc magnets in the checkers, linear hall sensors below.

One model for three users: the hardware docs' threshold table
(``hardware/tools/magnet_table.py``), the firmware's default calibration
(:func:`default_calibration`) and the self-play physical emulation. Pure Python, only
``math``: it runs unchanged under CPython, the unix MicroPython port and on the ESP32.

Physics
-------
A uniformly magnetised cylinder is exactly a solenoid with surface current density
``M = Br / mu0``. The z-field of one circular current loop off its axis has a closed
form in the complete elliptic integrals K and E (computed here with the
arithmetic-geometric mean, so no scipy); the magnet is a stack of such loops
integrated over its thickness with Gauss-Legendre quadrature. This is exact up to the
quadrature (checked against the closed-form on-axis field in the tests), unlike a
point dipole, which overestimates the field of a 10 mm disc at 10 mm by tens of
percent. ``method="dipole"`` gives the cheaper point-dipole field.

The sensor (reference: TI DRV5055A3 at 3.3 V, ratiometric, 15 mV/mT, quiescent
VCC/2; SBAS640) sees the z-component; its output clamps ``out_margin_V`` from either
rail. The ADC (reference: MCP3208, 12 bit, VREF = the sensor supply) gives
``4096 * Vout / VCC``: ratiometric, so the supply's level cancels. A non-ratiometric
ADC (the ESP32's own, the fallback build) is modelled with ``adc_full_scale_mV``.

``SPREAD`` lists how a real build differs from this nominal model: each figure's
distribution and its source. The emulation (``nardy_host.physical.Build``) draws
boards and checkers from it.

Conventions
-----------
- Coordinates in mm, origin at the bottom-left corner of the playing field seen from
  white's seat, x to the right, y away from white. z is up; the hall element sits
  ``depth_mm`` below the playing surface.
- A magnet is ``(x_mm, y_mm, level, polarity)``: level 0 = checker on the surface,
  1 = on top of another checker, ...; polarity +1 = white (north up), -1 = black
  (south up). Below a north-up magnet the field points up, which raises the
  DRV5055's output (south pole towards the branded face): white reads ABOVE baseline.
- A signed stack height per slot: +2 = two white stacked, -1 = one black, 0 = empty.

Calibration dict (JSON-serialisable; the sensing layer stores one per channel)
-----------------------------------------------------------------------------
``{"baseline": b, "white1": l, "white2": l, "black1": l, "black2": l,
"hysteresis": h, "thresholds": [t0, t1, t2, t3]}``, all int ADC counts:

- ``baseline``, ``white1`` (one white), ``white2`` (two or more white stacked),
  ``black1``, ``black2`` are LEVELS: the reading expected for that state, which is
  also what ``nardy calibrate`` measures per channel. black2 < black1 < baseline <
  white1 < white2.
- The class boundaries are the midpoints of neighbouring levels:
  ``thresholds`` = [black2|black1, black1|empty, empty|white1, white1|white2].
  ``reading >= t3`` is two or more white, ``t2 <= reading < t3`` one white, and so on
  (:func:`classify`).
- ``hysteresis``: a slot changes state only when the reading passes a boundary by
  at least this much.
- Defaults (:func:`default_calibration`): the boundaries are put in the middle of the
  gaps between the model's worst-case ranges of neighbouring states (worst-case
  crosstalk from every neighbouring slot, an off-centre checker); the levels are the
  model's nominal readings nudged by a few counts so that their midpoints are exactly
  those boundaries (``baseline`` is never moved). ``default_calibration(...)
  ["nominal"]`` keeps the un-nudged nominal readings for the docs.
"""

import math

MU0_4PI = 1e-7  # mu0 / 4 pi in T m / A; with mm and mT the factors cancel (see _dipole)

# Gauss-Legendre nodes and weights on [-1, 1], 4 points: exact for the smooth
# integrand to far below the sensor's noise at the distances used here (tested).
_GL_X = (-0.8611363115940526, -0.3399810435848563, 0.3399810435848563, 0.8611363115940526)
_GL_W = (0.3478548451374538, 0.6521451548625461, 0.6521451548625461, 0.3478548451374538)

ADC_MAX = 4095

POINTS = 24
BAR_SLOTS = 4
TRAY_SLOTS = 2


# How a real build differs from the nominal model: (name, distribution, spread, unit,
# source). "uniform" spreads are +-limits, "normal" ones one standard deviation.
# "estimate" marks a figure no datasheet gives (workmanship); the rest cite the
# document and section. Per-channel figures are measured by the calibration (offset
# from the empty board, gain from a checker on each slot); per-checker ones travel with
# the checker and no calibration of the board can remove them.
SPREAD = (
    # -- per sensor channel (calibrated) --
    ("sensor_sensitivity", "uniform", 0.05, "relative",
     "TI SBAS640 (DRV5055) sec. 6.6 Magnetic Characteristics: S tolerance (+-5 % taken)"),
    ("sensor_offset", "uniform", 0.06, "V",
     "TI SBAS640 sec. 6.6: VQ at B = 0 (+-60 mV taken at VCC 3.3 V)"),
    ("sensor_depth_common", "uniform", 0.3, "mm",
     "estimate: top board thickness, planed (+-0.3 mm)"),
    ("sensor_depth", "uniform", 0.2, "mm",
     "estimate: glue line under the strip PCB; element depth in SOT-23 per SBAS640 "
     "sec. 6.3.8"),
    ("sensor_xy", "uniform", 0.5, "mm",
     "estimate: strip PCB placed against a drilled template"),
    ("switch_drop", "uniform", (0.004, 0.012), "V",
     "P-FET Rds(on) <= 60 mOhm x 16 sensors x ICC 6-10 mA (SBAS640 sec. 6.5): a "
     "group's sensors run below the ADC reference 3V3S"),
    ("adc_offset", "uniform", 3, "counts",
     "Microchip DS21298 (MCP3208) sec. 1.0 Electrical Characteristics: offset "
     "error +-3 LSB"),
    ("adc_gain", "uniform", 5, "counts",
     "DS21298 sec. 1.0: gain error +-5 LSB"),
    # -- per checker (not calibrated away) --
    ("magnet_br", "uniform", (1170.0, 1220.0), "mT",
     "N35 grade table (IEC 60404-8-1 / makers' N35 sheets: Br 11.7-12.2 kG)"),
    ("magnet_thickness", "uniform", 0.1, "mm",
     "makers' standard tolerance for sintered NdFeB discs (+-0.1 mm)"),
    ("magnet_recess", "uniform", (0.0, 0.1), "mm",
     "estimate: pressed flush against a flat plate, at most 0.1 mm in"),
    ("checker_thickness", "uniform", 0.2, "mm",
     "estimate: turned checkers (+-0.2 mm)"),
    # -- per placement --
    ("placement", "disc", 2.0, "mm",
     "estimate: a hand puts a checker within 2 mm of its slot centre"),
    ("noise", "normal", 8.0, "counts",
     "estimate, generous: the tracker is tested at 8 counts (selfplay --noise "
     "realistic); the parts' own figures follow"),
    ("sensor_noise", "normal", 0.57, "counts",
     "TI SBAS640 sec. 6.6: input-referred noise density 215 nT/sqrt(Hz) at VCC 3.3 V "
     "over the 20 kHz bandwidth = 30 uT rms, x 15 mV/mT (A3) = 0.46 mV = 0.57 counts "
     "rms; typical (no maximum given): a sensor draws 0.5-1.5 times it"),
    ("adc_noise", "normal", 0.3, "counts",
     "estimate: MCP3208 transition noise (DS21298 gives none; DNL +-1 LSB, sec. 1.0)"),
    # -- the fallback build only (the ESP32-S3's own ADC1 at 11 dB, not ratiometric) --
    ("adc_vref", "uniform", (1000.0, 1200.0), "mV",
     "Espressif ESP-IDF Programming Guide, ESP32-S3, ADC Calibration Driver, "
     "Introduction: the reference varies 1000-1200 mV between chips (design 1100)"),
    ("adc_range", "fixed", 3100.0, "mV",
     "ESP-IDF Programming Guide v4.4, ESP32-S3 ADC, ADC Attenuation: 0-3100 mV at "
     "11 dB for the design reference; a chip's range scales with its reference"),
    ("supply_drift", "uniform", 0.01, "relative",
     "estimate: 3V3S (AP2112K-3.3) between calibration and play, temperature and "
     "load; its initial accuracy is measured by the calibration"),
)


def spread(name):
    """(distribution, spread, unit, source) of one SPREAD row."""
    for row in SPREAD:
        if row[0] == name:
            return row[1:]
    raise KeyError(name)


def _ellip_ke(m):
    """Complete elliptic integrals K(m), E(m) (parameter m = k^2) by the AGM."""
    if m >= 1.0:
        m = 1.0 - 1e-15  # on the loop's wire itself; never reached by the geometry
    a = 1.0
    b = math.sqrt(1.0 - m)
    p = 0.5
    s = 0.5 * m
    for _ in range(30):
        c = 0.5 * (a - b)
        if c < 1e-15:
            break
        a, b = 0.5 * (a + b), math.sqrt(a * b)
        p *= 2.0
        s += p * c * c
    k = math.pi / (2.0 * a)
    return k, k * (1.0 - s)


def _loop_bz(radius, rho, z):
    """z-field of a unit-current loop (radius, mm) at (rho, z) mm, in units of mu0/(2 pi)
    per mm; the caller multiplies by the current density."""
    ap = radius + rho
    q = ap * ap + z * z
    m = 4.0 * radius * rho / q
    k, e = _ellip_ke(m)
    am = radius - rho
    den = am * am + z * z
    return (k + (radius * radius - rho * rho - z * z) / den * e) / math.sqrt(q)


class MagnetModel:
    """Geometry, magnet, sensor and ADC of one board build; every figure in mm, mT, V.

    Reference defaults (justified in hardware/README.md, "Sensing"):

    - checker 36 mm across, 9 mm thick (boards use 30..40 mm: pass checker_diameter_mm);
      slots along a point at one checker pitch, the point 2 mm wider than a checker;
    - magnet: N35 disc 20 x 3 mm (Br 1.195 T, the middle of N35's 1.17-1.22 T),
      pressed into a pocket in the checker's underside FLUSH with its face
      (``magnet_lift_mm`` = 0): its height is set by the checker's face, not by how deep
      the pocket was drilled;
    - sensor: DRV5055A3 (15 mV/mT at 3.3 V, linear to +-85 mT), SOT-23 on the
      underside of a 1.6 mm strip PCB glued under the top board; hall element 10 mm
      under the playing surface (8 mm top board + PCB + the element's depth in the
      package);
    - ADC: MCP3208, 12 bit, ratiometric (VREF = sensor supply); the fallback build
      (:func:`internal_adc_model`) reads the ESP32-S3's own ADC at 11 dB instead;
    - the worst case assumes a checker up to ``placement_tol_mm`` = 2 mm off its slot
      centre (hands; see the README for what happens beyond that).
    """

    def __init__(self, checker_diameter_mm=36.0, checker_thickness_mm=9.0,
                 slot_pitch_mm=None, point_width_mm=None, slots=5,
                 bar_width_mm=40.0, middle_gap_mm=24.0, tray_width_mm=50.0,
                 magnet_diameter_mm=20.0, magnet_thickness_mm=3.0, br_mT=1195.0,
                 magnet_lift_mm=0.0, depth_mm=10.0,
                 sensitivity_mV_per_mT=15.0, vcc_V=3.3, out_margin_V=0.2,
                 adc_full_scale_mV=None, adc_range_mV=None, adc_bits=12, noise_counts=8,
                 placement_tol_mm=2.0, method="loops"):
        self.checker_diameter_mm = float(checker_diameter_mm)
        self.checker_thickness_mm = float(checker_thickness_mm)
        self.slot_pitch_mm = float(slot_pitch_mm if slot_pitch_mm is not None
                                   else checker_diameter_mm)
        self.point_width_mm = float(point_width_mm if point_width_mm is not None
                                    else checker_diameter_mm + 2.0)
        self.slots = int(slots)
        self.bar_width_mm = float(bar_width_mm)
        self.middle_gap_mm = float(middle_gap_mm)
        self.tray_width_mm = float(tray_width_mm)
        self.magnet_diameter_mm = float(magnet_diameter_mm)
        self.magnet_thickness_mm = float(magnet_thickness_mm)
        self.br_mT = float(br_mT)
        self.magnet_lift_mm = float(magnet_lift_mm)
        self.depth_mm = float(depth_mm)
        self.sensitivity_mV_per_mT = float(sensitivity_mV_per_mT)
        self.vcc_V = float(vcc_V)
        self.out_margin_V = float(out_margin_V)
        # None: ratiometric, the ADC's full scale is the sensor supply
        self.ratiometric = adc_full_scale_mV is None
        self.adc_full_scale_mV = (1000.0 * self.vcc_V if adc_full_scale_mV is None
                                  else float(adc_full_scale_mV))
        # A non-ratiometric ADC's input range at the design reference (the ESP32-S3's
        # 3100 mV at 11 dB): readings above it clip (None: only the sensor's swing).
        self.adc_range_mV = None if adc_range_mV is None else float(adc_range_mV)
        self.adc_max = (1 << int(adc_bits)) - 1
        self.noise_counts = int(noise_counts)
        self.placement_tol_mm = float(placement_tol_mm)
        if method not in ("loops", "dipole"):
            raise ValueError("method must be 'loops' or 'dipole'")
        self.method = method
        # Treat a model as immutable after construction (the crosstalk cache assumes
        # it): build a new one for other figures.
        self._xt_cache = {}

    # -- field -----------------------------------------------------------------------

    def field_mT(self, dx_mm, dy_mm, dz_mm):
        """Bz in mT at displacement (dx, dy, dz) mm from the centre of one north-up
        magnet (dz > 0 above it). Symmetric in dz: a sensor below reads the same."""
        rho = math.sqrt(dx_mm * dx_mm + dy_mm * dy_mm)
        z = abs(dz_mm)
        a = 0.5 * self.magnet_diameter_mm
        half = 0.5 * self.magnet_thickness_mm
        if self.method == "dipole":
            return self._dipole(rho, z)
        if rho < 1e-9:
            # On the axis the elliptic form is 0/0-free but the closed form is exact.
            z1 = z + half
            z0 = z - half
            return 0.5 * self.br_mT * (z1 / math.sqrt(z1 * z1 + a * a)
                                       - z0 / math.sqrt(z0 * z0 + a * a))
        # Bz = Br / (2 pi) * integral over the thickness of the unit loop field.
        total = 0.0
        for i in range(4):
            zz = z - half * _GL_X[i]
            total += _GL_W[i] * _loop_bz(a, rho, zz)
        return self.br_mT / (2.0 * math.pi) * total * half

    def _dipole(self, rho, z):
        # m = M V = Br V / mu0; Bz = mu0 m / (4 pi r^3) (3 cos^2 - 1) = Br V (3z^2 - r^2) /
        # (4 pi r^5): with V in mm^3 and r in mm the result is in the unit of Br.
        a = 0.5 * self.magnet_diameter_mm
        vol = math.pi * a * a * self.magnet_thickness_mm
        r2 = rho * rho + z * z
        return self.br_mT * vol * (3.0 * z * z - r2) / (4.0 * math.pi * r2 * r2 * math.sqrt(r2))

    def magnet_height_mm(self, level):
        """Height of a magnet's centre above the hall element for a checker at level."""
        return (self.depth_mm + self.magnet_lift_mm + 0.5 * self.magnet_thickness_mm
                + level * self.checker_thickness_mm)

    def stack_field_mT(self, height, dx_mm=0.0, dy_mm=0.0):
        """Field of a signed stack of `height` checkers at lateral offset (dx, dy)."""
        n = height if height >= 0 else -height
        sign = 1 if height >= 0 else -1
        b = 0.0
        for level in range(n):
            b += self.field_mT(dx_mm, dy_mm, self.magnet_height_mm(level))
        return sign * b

    # -- sensor and ADC ------------------------------------------------------------------

    def volts(self, b_mT):
        """Sensor output in V for a field, clamped to the output's linear swing."""
        v = 0.5 * self.vcc_V + b_mT * self.sensitivity_mV_per_mT / 1000.0
        lo = self.out_margin_V
        hi = self.vcc_V - self.out_margin_V
        if v < lo:
            v = lo
        elif v > hi:
            v = hi
        return v

    def counts(self, b_mT):
        """ADC counts (int, clamped 0..adc_max) for a field at the sensor."""
        c = int(round(self.volts(b_mT) * 1000.0 / self.adc_full_scale_mV * (self.adc_max + 1)))
        if c < 0:
            return 0
        if c > self.adc_max:
            return self.adc_max
        return c

    def baseline(self):
        """Quiescent reading: no field."""
        return self.counts(0.0)

    def counts_per_mT(self):
        return self.sensitivity_mV_per_mT / self.adc_full_scale_mV * (self.adc_max + 1)

    def field_at(self, magnets, x_mm, y_mm):
        """Total Bz in mT at a sensor at (x, y) for magnets (x, y, level, polarity)."""
        b = 0.0
        for m in magnets:
            b += m[3] * self.field_mT(x_mm - m[0], y_mm - m[1], self.magnet_height_mm(m[2]))
        return b

    def slot_reading(self, magnets, slot_xy_mm):
        """ADC counts at the sensor at slot_xy_mm = (x, y) for a list of magnets."""
        return self.counts(self.field_at(magnets, slot_xy_mm[0], slot_xy_mm[1]))

    # -- geometry --------------------------------------------------------------------

    def point_length_mm(self):
        return self.slots * self.slot_pitch_mm

    def field_size_mm(self):
        """(width, height) of the playing field, bar included, trays excluded."""
        w = 12 * self.point_width_mm + self.bar_width_mm
        h = 2 * self.point_length_mm() + self.middle_gap_mm
        return w, h

    def point_column(self, point):
        """Column 0..11 from the left edge of the field for P1..P24."""
        if not 1 <= point <= POINTS:
            raise ValueError("point must be 1..24")
        if point <= 12:
            return 12 - point  # P1 is the bottom-right point, P12 the bottom-left
        return point - 13  # P13 top-left .. P24 top-right

    def point_x(self, point):
        col = self.point_column(point)
        x = (col + 0.5) * self.point_width_mm
        if col >= 6:
            x += self.bar_width_mm
        return x

    def slot_xy(self, point, slot):
        """(x, y) in mm of the sensor under `slot` (1 = at the board edge).

        `point` is 1..24, or "bar" (slots 1..4: 1 and 2 in the bottom half, 3 and 4 in
        the top half, each counted from its edge), "off_white" or "off_black" (trays
        right of the field: white's beside P1..P6, black's beside P19..P24; slots
        1..2 from the edge)."""
        w, h = self.field_size_mm()
        if point == "bar":
            if not 1 <= slot <= BAR_SLOTS:
                raise ValueError("bar slot must be 1..%d" % BAR_SLOTS)
            x = 6 * self.point_width_mm + 0.5 * self.bar_width_mm
            # Two sensors in each half of the bar, placed like slots 2 and 4 of a point
            # (from the edge): hit checkers are put on the bar near the middle.
            if slot <= 2:
                y = (2 * slot - 0.5) * self.slot_pitch_mm
            else:
                y = h - (2 * (slot - 2) - 0.5) * self.slot_pitch_mm
            return (x, y)
        if point == "off_white" or point == "off_black":
            if not 1 <= slot <= TRAY_SLOTS:
                raise ValueError("tray slot must be 1..%d" % TRAY_SLOTS)
            x = w + 0.5 * self.tray_width_mm
            y = (slot - 0.5) * 2 * self.slot_pitch_mm
            if point == "off_black":
                y = h - y
            return (x, y)
        if not 1 <= slot <= self.slots:
            raise ValueError("slot must be 1..%d" % self.slots)
        x = self.point_x(point)
        y = (slot - 0.5) * self.slot_pitch_mm
        if point >= 13:
            y = h - y
        return (x, y)

    # -- convenience -------------------------------------------------------------------

    def _stack_magnets(self, heights, dx):
        mags = []
        for i in range(len(heights)):
            hgt = heights[i]
            n = hgt if hgt >= 0 else -hgt
            pol = 1 if hgt >= 0 else -1
            y = (i + 0.5) * self.slot_pitch_mm
            for level in range(n):
                mags.append((dx, y, level, pol))
        return mags

    def point_readings(self, stacks, neighbours=None):
        """ADC counts for each slot of one point given signed stack heights per slot,
        e.g. [1, 2, 0, -1, 0]. Crosstalk between the slots is included; with
        neighbours=(left_stacks, right_stacks) (None for a missing side) the
        neighbouring points' checkers are added too."""
        mags = self._stack_magnets(stacks, 0.0)
        if neighbours is not None:
            if neighbours[0] is not None:
                mags += self._stack_magnets(neighbours[0], -self.point_width_mm)
            if neighbours[1] is not None:
                mags += self._stack_magnets(neighbours[1], self.point_width_mm)
        out = []
        for i in range(len(stacks)):
            out.append(self.slot_reading(mags, (0.0, (i + 0.5) * self.slot_pitch_mm)))
        return out

    # -- crosstalk and thresholds ----------------------------------------------------------

    def neighbour_offsets(self):
        """Lateral offsets (dx, dy, same_point) of every slot whose checkers can
        disturb a sensor, out to two pitches: the own point's slots, the
        neighbouring points' slots and the slots across the middle gap."""
        p = self.slot_pitch_mm
        w = self.point_width_mm
        reach = min(2, self.slots - 1)  # a 1-slot build has no own-point neighbours
        offs = []
        for dy in range(-reach, reach + 1):
            if dy:
                offs.append((0.0, dy * p, True))
        for dx in (-w, w):
            for dy in range(-reach, reach + 1):
                offs.append((dx, dy * p, False))
        across = p + self.middle_gap_mm  # slot 5 of P1 to slot 5 of P24
        for dx in (-w, 0.0, w):
            offs.append((dx, across, False))
        return offs

    def _stack_fields(self, dx, dy, max_stack):
        # Fields of white stacks 0..max_stack at one offset, cached: the knapsack below
        # asks for the same ones many times and each costs elliptic integrals.
        key = (dx, dy, max_stack)
        cache = self._xt_cache
        v = cache.get(key)
        if v is None:
            v = [0.0]
            b = 0.0
            for level in range(max_stack):
                b += self.field_mT(dx, dy, self.magnet_height_mm(level))
                v.append(b)
            cache[key] = v
        return v

    def crosstalk_mT(self, own, max_stack=3, per_colour=15, compensated=True):
        """(low, high) worst-case sum of fields from other slots at a sensor whose own
        slot holds signed height `own`.

        ``compensated``: what is left after the sensing's crosstalk compensation
        (``nardy.sensing``: it subtracts the field of one and of two checkers at each
        neighbouring offset, from the neighbours' classes): a third checker's share
        (a class says "two or more") plus 5 % of the subtracted field (the neighbour's
        magnet spread, magnet.SPREAD), always against the reading.

        Own-point slots hold the own colour (a point has one colour) or are empty;
        other points' slots hold either colour, up to max_stack high. The extremes
        are bounded by conservation: at most per_colour checkers of each colour, the
        own stack included; a small knapsack over the slots finds them."""
        n_own = own if own >= 0 else -own
        lo = 0.0
        hi = 0.0
        for sign in (-1, 1):  # push the reading down, then up
            # For each colour, the best (most `sign`-ward) total using at most `budget`
            # checkers of that colour; the two colours' budgets are independent.
            for colour in (1, -1):
                budget = per_colour - (n_own if (own * colour) > 0 else 0)
                best = [0.0] * (budget + 1)  # best[b]: best total with b checkers
                for dx, dy, same in self.neighbour_offsets():
                    if same and own != 0 and own * colour < 0:
                        continue  # the own point cannot hold the other colour
                    fk = self._stack_fields(dx, dy, max_stack)
                    gains = [0.0]
                    for k in range(1, max_stack + 1):
                        if compensated:
                            fc = fk[k if k < 2 else 2]
                            gains.append(sign * colour * (fk[k] - fc) + 0.05 * abs(fc))
                        else:
                            gains.append(sign * colour * fk[k])
                    nxt = best[:]
                    for b in range(budget + 1):
                        for k in range(1, max_stack + 1):
                            if k <= b:
                                v = best[b - k] + gains[k]
                                if v > nxt[b]:
                                    nxt[b] = v
                    best = nxt
                total = max(best)
                if sign < 0:
                    lo -= total
                else:
                    hi += total
        return lo, hi

    def level_range_mT(self, height, max_stack=3, compensated=True):
        """(min, max) field at a sensor whose slot holds signed `height` (|h| <= 2),
        over checker placement within placement_tol_mm and worst-case crosstalk
        (what the sensing's compensation leaves, or all of it)."""
        centred = self.stack_field_mT(height)
        off = self.stack_field_mT(height, self.placement_tol_mm, 0.0)
        lo_x, hi_x = self.crosstalk_mT(height, max_stack, compensated=compensated)
        if height == 0:
            return lo_x, hi_x
        a = min(centred, off)
        b = max(centred, off)
        return a + lo_x, b + hi_x


def internal_adc_model(slots=5):
    """The fallback build: the ESP32-S3's ADC1 at 11 dB, read with ``read_uv()`` and
    turned into counts of a 3300 mV scale (``hal_esp32.InternalInput``). Not
    ratiometric; readings clip at the chip's range (``adc_range``, scaled by its
    reference ``adc_vref``: ``physical.Build``)."""
    return MagnetModel(slots=slots, adc_full_scale_mV=3300.0,
                       adc_range_mV=spread("adc_range")[1])


def default_calibration(model=None, slots=5):
    """Default per-channel calibration (ADC counts) from the model, as a small dict
    (shape in the module docstring).

    Each boundary is the midpoint of the gap between the worst-case ranges of the two
    states it separates; the hysteresis is the ADC noise. `slots` is the number of
    sensors per point of the build (1..6); it sets the geometry when no model is
    given."""
    if model is None:
        model = MagnetModel(slots=slots)
    r = {}
    for h in (-2, -1, 0, 1, 2):
        r[h] = model.level_range_mT(h)
    base = model.baseline()

    def mid(lower_h, upper_h):
        top = model.counts(r[lower_h][1])
        bottom = model.counts(r[upper_h][0])
        return (top + bottom) // 2, bottom - top

    t0, g0 = mid(-2, -1)
    t1, g1 = mid(-1, 0)
    t2, g2 = mid(0, 1)
    t3, g3 = mid(1, 2)
    # The hysteresis is the ADC noise, no more: what is left of the gaps belongs to
    # the spread of real builds (magnet.SPREAD), which this nominal model leaves out
    # (nardy_host.buildspread measures it).
    hyst = model.noise_counts
    nominal = {}
    for h, key in ((-2, "black2"), (-1, "black1"), (0, "baseline"), (1, "white1"),
                   (2, "white2")):
        nominal[key] = model.counts(model.stack_field_mT(h))
    # Levels whose midpoints are the boundaries, walking out from the baseline.
    w1 = 2 * t2 - base
    w2 = 2 * t3 - w1
    b1 = 2 * t1 - base
    b2 = 2 * t0 - b1
    if not (b2 < b1 < base < w1 < w2):
        # Boundaries too close to a level to be midpoints of ordered levels: keep the
        # nominal levels (their midpoints are then the boundaries' best stand-in).
        w1, w2, b1, b2 = (nominal["white1"], nominal["white2"], nominal["black1"],
                          nominal["black2"])
        t0, t1, t2, t3 = (b2 + b1) // 2, (b1 + base) // 2, (base + w1) // 2, (w1 + w2) // 2
    return {"baseline": base, "white1": w1, "white2": w2, "black1": b1, "black2": b2,
            "hysteresis": hyst, "thresholds": [t0, t1, t2, t3], "nominal": nominal}


def classify(reading, cal):
    """Signed level (-2..2; +-2 means two or more) of one reading against a
    calibration dict, without hysteresis (the sensing layer adds that). Boundaries
    are the midpoints of neighbouring levels."""
    base = cal["baseline"]
    if reading * 2 >= cal["white1"] + cal["white2"]:
        return 2
    if reading * 2 >= base + cal["white1"]:
        return 1
    if reading * 2 <= cal["black2"] + cal["black1"]:
        return -2
    if reading * 2 <= cal["black1"] + base:
        return -1
    return 0


def table(model=None):
    """Rows for the printed threshold table: (name, lo_counts, nominal, hi_counts).
    Nominal is the centred checker without neighbours; lo/hi include worst-case
    crosstalk and placement."""
    if model is None:
        model = MagnetModel()
    rows = []
    names = {-2: "black x2", -1: "black x1", 0: "empty", 1: "white x1", 2: "white x2"}
    for h in (-2, -1, 0, 1, 2):
        lo, hi = model.level_range_mT(h)
        nom = model.counts(model.stack_field_mT(h))
        rows.append((names[h], model.counts(lo), nom, model.counts(hi)))
    return rows
