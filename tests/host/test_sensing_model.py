"""Sensing against the magnetic model (nardy_host.magnet, host code): the model's
nominal readings classify as their stack heights, and crosstalk compensation reads
crowded stacks that the plain thresholds misread. CPython only: the model is not
firmware."""

from array import array

from test_sensing import test_calibrated_levels_classify_as_stack_heights as classify_as

from nardy import calibration
from nardy.sensing import Sensing
from nardy.zones import Layout
from nardy_host import magnet


def test_nominal_levels_classify_as_stack_heights():
    nominal = magnet.default_calibration()["nominal"]
    classify_as(
        {2: nominal["white2"], 1: nominal["white1"], 0: nominal["baseline"],
         -1: nominal["black1"], -2: nominal["black2"]})


def _crowded(crosstalk):
    """P8 and both neighbours with two-stacks on slots 1-3 (white), readings from the
    magnetic model: without compensation P8.2 reads below the one/two boundary."""
    lay = Layout(5)
    cal = calibration.Calibration(lay.n)
    stacks = [2, 2, 2, 0, 0]
    m = magnet.MagnetModel()
    r_mid = m.point_readings(stacks, (stacks, stacks))
    r_side = m.point_readings(stacks, (stacks, None))
    raw = array("H", [cal.levels(0)[0]] * lay.n)
    for s in range(5):
        raw[lay.channel(8, s + 1)] = r_mid[s]
        raw[lay.channel(7, s + 1)] = r_side[s]
        raw[lay.channel(9, s + 1)] = r_side[s]
    sens = Sensing(lay, cal, stable_ms=40, crosstalk=crosstalk)
    for i in range(12):
        sens.scan(raw, 20 * i)
    return lay, sens


def test_crosstalk_compensation_reads_a_crowded_stack():
    lay, sens = _crowded(True)
    for z in (7, 8, 9):
        assert [sens.slot_class(lay.channel(z, s)) for s in range(1, 6)] == \
            [2, 2, 2, 0, 0], z
    assert sens.vis_w[8] == 6 and sens.open_[8] & 1
    # the correction comes from the neighbours' classes: P8.2 is pulled down most
    xt = sens.xt
    assert xt[lay.channel(8, 2)] < xt[lay.channel(8, 1)] < 0


def test_without_compensation_the_crowded_stack_reads_single():
    lay, sens = _crowded(False)
    assert sens.slot_class(lay.channel(8, 2)) == 1


def _bar_crowd(crosstalk, where=("bar", 3, 25, (18, 19), -1, (1, 2, 3))):
    """Two black stacked on bar sensor 3, 2 mm off centre and with magnets at the low
    end of N35 (Br 1.17 T), black two-stacks on slots 1-3 of P18 and P19 beside it
    (14 black in all): the fields of every magnet at every affected sensor."""
    lay = Layout(5)
    cal = calibration.Calibration(lay.n)
    m = magnet.MagnetModel()
    weak = magnet.MagnetModel(br_mT=1170.0)
    name, slot, zone, points, pol, rows = where
    x, y = m.slot_xy(name, slot)
    stack = [(x + 1.4, y + 1.4, 0, pol), (x + 1.4, y + 1.4, 1, pol)]
    mags = []
    for p in points:
        for s in rows:
            x, y = m.slot_xy(p, s)
            mags += [(x, y, 0, pol), (x, y, 1, pol)]
    raw = array("H", [cal.levels(0)[0]] * lay.n)
    for z, label in [(p, p) for p in points] + [(zone, name)]:
        for s in range(1, lay.size(z) + 1):
            xy = m.slot_xy(label, s)
            b = m.field_at(mags, xy[0], xy[1]) + weak.field_at(stack, xy[0], xy[1])
            raw[lay.channel(z, s)] = m.counts(b)
    sens = Sensing(lay, cal, stable_ms=40, crosstalk=crosstalk)
    for i in range(12):
        sens.scan(raw, 20 * i)
    sens.test_raw = raw
    return lay, sens


def test_bar_sensors_are_compensated_for_the_points_beside_them():
    lay, sens = _bar_crowd(True)
    assert sens.slot_class(lay.channel(25, 3)) == -2
    assert [sens.slot_class(lay.channel(19, s)) for s in range(1, 6)] == [-2, -2, -2, 0, 0]
    lay, sens = _bar_crowd(False)
    assert sens.slot_class(lay.channel(25, 3)) == -1      # what the old sensing read


def test_tray_sensors_are_compensated_for_the_point_beside_them():
    # white borne off beside P1 with two-stacks on every slot (12 white in all): the
    # correction takes off most of what P1 puts on the tray's sensor
    where = ("off_white", 1, 26, (1,), 1, (1, 2, 3, 4, 5))
    lay, sens = _bar_crowd(True, where)
    ch = lay.channel(26, 1)
    assert sens.slot_class(ch) == 2
    m = magnet.MagnetModel()
    weak = magnet.MagnetModel(br_mT=1170.0)
    x, y = m.slot_xy("off_white", 1)
    alone = m.counts(weak.field_at([(x + 1.4, y + 1.4, 0, 1), (x + 1.4, y + 1.4, 1, 1)],
                                   x, y))
    raw = sens.test_raw[ch]
    assert raw < alone - 40                    # P1 pulls the tray's reading down
    assert abs(raw - sens.xt[ch] - alone) < (alone - raw) // 3
    lay, sens = _bar_crowd(False, where)
    assert sens.xt[ch] == 0
