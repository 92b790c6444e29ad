"""The magnetic model: physics checks, geometry conventions, default calibration.

Plain functions and asserts: this file also runs under unix MicroPython (mprun.py).
"""

import json
import math

from nardy_host import magnet
from nardy_host.magnet import MagnetModel, classify, default_calibration

M = MagnetModel()


def _close(a, b, rel):
    return abs(a - b) <= rel * max(abs(a), abs(b))


def test_on_axis_matches_closed_form_and_off_axis_is_continuous():
    # The loop quadrature just off the axis must agree with the exact on-axis formula.
    for z in (6.0, 10.0, 20.0, 40.0):
        on = M.field_mT(0.0, 0.0, z)
        near = M.field_mT(1e-4, 0.0, z)
        assert _close(on, near, 0.005), (z, on, near)


def test_far_field_tends_to_the_dipole():
    d = MagnetModel(method="dipole")
    for pos in ((0.0, 0.0, 100.0), (90.0, 0.0, 30.0), (60.0, 45.0, 75.0)):
        a = M.field_mT(pos[0], pos[1], pos[2])
        b = d.field_mT(pos[0], pos[1], pos[2])
        assert _close(a, b, 0.03), (pos, a, b)


def test_near_field_is_weaker_than_a_point_dipole():
    # A 12 mm disc at 10 mm is not a point: the dipole overestimates it.
    d = MagnetModel(method="dipole")
    assert M.field_mT(0, 0, 11.5) < d.field_mT(0, 0, 11.5)


def test_field_symmetry_and_lateral_sign():
    assert _close(M.field_mT(5, 3, 12), M.field_mT(-5, -3, -12), 1e-9)
    assert _close(M.field_mT(5, 0, 12), M.field_mT(0, 5, 12), 1e-9)
    # Far to the side the z-field turns negative (field lines returning).
    assert M.field_mT(40, 0, 12) < 0 < M.field_mT(0, 0, 12)


def test_reference_levels_fit_the_sensor_range():
    b1 = M.stack_field_mT(1)
    b2 = M.stack_field_mT(2)
    b3 = M.stack_field_mT(3)
    assert 20 < b1 < b2 < b3 < 85  # DRV5055A3 linear range (SBAS640 sec. 6.6)
    # margin from both rails: three stacked stay 0.5 V inside the output swing
    assert 0.5 * M.vcc_V + b3 * M.sensitivity_mV_per_mT / 1000 < M.vcc_V - 0.5
    assert M.stack_field_mT(-2) == -b2


def test_white_above_black_below_baseline():
    base = M.baseline()
    assert base == M.counts(0.0)
    assert base == 2048  # ratiometric: VCC/2 is half of the ADC's scale
    xy = M.slot_xy(1, 1)
    white = M.slot_reading([(xy[0], xy[1], 0, 1)], xy)
    black = M.slot_reading([(xy[0], xy[1], 0, -1)], xy)
    two = M.slot_reading([(xy[0], xy[1], 0, 1), (xy[0], xy[1], 1, 1)], xy)
    assert black < base < white < two
    assert isinstance(white, int)


def test_counts_are_clamped():
    assert M.counts(1e6) <= 4095
    assert M.counts(-1e6) >= 0
    assert M.counts(1e6) == M.counts(2e6)


def test_geometry_follows_the_board_numbering():
    x1, y1 = M.slot_xy(1, 1)
    x12, y12 = M.slot_xy(12, 1)
    x13, y13 = M.slot_xy(13, 1)
    x24, y24 = M.slot_xy(24, 1)
    assert x12 < x1 and y1 == y12  # P1 bottom right, P12 bottom left
    assert x13 == x12 and x24 == x1  # top row runs left to right
    assert y13 > y1 and y24 == y13
    assert M.slot_xy(1, 2)[1] > y1  # slot 1 at the bottom edge
    assert M.slot_xy(24, 2)[1] < y24  # slot 1 at the top edge
    xbar = M.slot_xy("bar", 1)[0]
    assert M.slot_xy(7, 1)[0] < xbar < M.slot_xy(6, 1)[0]
    assert M.slot_xy(19, 1)[0] > xbar > M.slot_xy(18, 1)[0]
    assert M.slot_xy("off_white", 1)[0] > x1
    assert M.slot_xy("off_black", 1)[1] > M.slot_xy("off_white", 1)[1]
    for p in range(1, 24):
        if p not in (6, 12, 18):
            assert abs(abs(M.slot_xy(p, 1)[0] - M.slot_xy(p + 1, 1)[0])
                       - M.point_width_mm) < 1e-9


def test_bad_geometry_arguments_raise():
    for args in ((0, 1), (25, 1), (1, 0), (1, 6), ("bar", 5), ("off_white", 3)):
        try:
            M.slot_xy(args[0], args[1])
        except ValueError:
            continue
        raise AssertionError("accepted %r" % (args,))


def test_default_calibration_shape_and_order():
    cal = default_calibration()
    s = json.dumps(cal)
    assert json.loads(s)["baseline"] == cal["baseline"]
    for k in ("baseline", "white1", "white2", "black1", "black2", "hysteresis"):
        assert isinstance(cal[k], int), k
    assert cal["black2"] < cal["black1"] < cal["baseline"] < cal["white1"] < cal["white2"]
    t = cal["thresholds"]
    assert t[0] < t[1] < t[2] < t[3]
    # The boundaries are the midpoints of the levels (the sensing layer's rule).
    assert abs((cal["white1"] + cal["white2"]) / 2 - t[3]) <= 1
    assert abs((cal["baseline"] + cal["white1"]) / 2 - t[2]) <= 1
    assert abs((cal["black1"] + cal["baseline"]) / 2 - t[1]) <= 1
    assert abs((cal["black2"] + cal["black1"]) / 2 - t[0]) <= 1
    assert cal["hysteresis"] >= M.noise_counts


def test_worst_case_ranges_are_separated_by_the_thresholds():
    # Empty against one checker clears even the worst-case crosstalk uncompensated;
    # one against two needs the sensing's crosstalk compensation (test_sensing) and
    # is measured on built boards by nardy_host.buildspread.
    cal = default_calibration()
    t = cal["thresholds"]
    ranges = [M.level_range_mT(h) for h in (-2, -1, 0, 1, 2)]
    for i in (1, 2):
        hi_below = M.counts(ranges[i][1])
        lo_above = M.counts(ranges[i + 1][0])
        assert hi_below + cal["hysteresis"] <= t[i] <= lo_above - cal["hysteresis"], (i, t)


def test_point_readings_classify_back_to_the_stacks():
    cal = default_calibration()
    cases = (
        ([1, 2, 0, -1, 0], None),
        ([2, 2, 2, 1, 1], ([-2, -2, -1, 0, 0], [-1, -1, -1, -1, -1])),
        ([0, 0, 0, 0, 0], ([1, 1, 1, 1, 1], [2, 2, 2, 2, 2])),
        ([-2, -1, 0, 0, 0], ([2, 2, 2, 2, 2], None)),
        ([-1, -1, -1, -1, -1], ([-2, -2, -2, -2, -2], [3, 3, 3, 3, 3])),
    )
    for stacks, nb in cases:
        r = M.point_readings(stacks, nb)
        got = [classify(x, cal) for x in r]
        want = [max(-2, min(2, h)) for h in stacks]
        assert got == want, (stacks, nb, r, got)


def test_crosstalk_from_a_neighbour_is_small_and_opposite():
    base = M.baseline()
    r = M.point_readings([0, 1, 0, 0, 0])
    assert r[0] < base and r[2] < base  # a white neighbour pulls an empty slot down
    assert base - r[0] < 40
    lo, hi = M.crosstalk_mT(0)
    assert lo < 0 < hi
    assert lo > -12 and hi < 12


def test_sensing_crosstalk_table_is_the_models():
    from nardy.xtalk import _XT
    b1 = M.stack_field_mT(1)
    p = M.slot_pitch_mm
    w = M.point_width_mm
    g = M.middle_gap_mm
    tw = M.field_size_mm()[0] + 0.5 * M.tray_width_mm - M.point_x(1)   # tray to P1
    offs = ((0, p), (0, 2 * p), (w, 0), (w, p), (0, p + g), (w, p + g), (w, 2 * p),
            (tw, 0.5 * p), (tw, 1.5 * p))
    for i in range(len(offs)):
        for k in (1, 2):
            want = 1000.0 * M.stack_field_mT(k, offs[i][0], offs[i][1]) / b1
            assert abs(_XT[2 * i + k - 1] - want) <= 1.0, (i, k, want)


def test_a_checker_far_off_centre_still_reads_occupied():
    cal = default_calibration()
    xy = M.slot_xy(5, 3)
    r = M.slot_reading([(xy[0] + 3.0, xy[1] - 4.0, 0, -1)], xy)
    assert classify(r, cal) == -1
    # ...but not forever: 10 mm off, the field has fallen below the boundary.
    r = M.slot_reading([(xy[0] + 8.0, xy[1] - 6.0, 0, -1)], xy)
    assert classify(r, cal) == 0


def test_fewer_slots_and_other_sizes():
    for n in (1, 2, 3, 4, 6):
        cal = default_calibration(slots=n)
        assert cal["black2"] < cal["black1"] < cal["baseline"] < cal["white1"] < cal["white2"]
    small = MagnetModel(checker_diameter_mm=30.0)
    assert small.slot_xy(1, 5)[1] == 135.0
    assert small.point_width_mm == 32.0


def test_module_only_needs_math():
    # magnet.py must stay portable: it may only import math.
    assert magnet.math is math
    names = [n for n in dir(magnet) if not n.startswith("_")]
    for n in ("MagnetModel", "default_calibration", "classify", "table"):
        assert n in names


def test_calibration_defaults_table_matches_the_model():
    # nardy.calibration keeps the model's defaults as a table so that boot neither
    # imports this module nor evaluates it; the table must stay what the model says.
    from nardy.calibration import LEVELS, model_defaults
    for slots in range(1, 7):
        want = default_calibration(None, slots)
        got = model_defaults(slots)
        for k in LEVELS + ("hysteresis",):
            assert got[k] == int(want[k]), (slots, k, got[k], want[k])
