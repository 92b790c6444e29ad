"""The self-test's channel verdicts from per-channel minimum, maximum and mean."""

from array import array

from nardy.calibration import Calibration
from nardy.selftest import channel_faults


def _stats(n=128, base=2048):
    lo = array("H", [base - 3] * n)
    hi = array("H", [base + 3] * n)
    mean = array("H", [base] * n)
    return lo, hi, mean


def test_healthy_board_has_no_fault():
    lo, hi, mean = _stats()
    assert channel_faults(lo, hi, mean, Calibration(128)) == []


def test_each_kind_is_named():
    lo, hi, mean = _stats()
    lo[1] = hi[1] = mean[1] = 0                 # rail
    lo[2] = hi[2] = mean[2] = 2050              # stuck
    lo[3] = 2000
    hi[3] = 2100                                # noisy
    mean[4] = 2600
    lo[4] = 2597
    hi[4] = 2603                                # a checker left on: level
    got = [(k, ch) for k, ch, _ in channel_faults(lo, hi, mean, Calibration(128))]
    assert got == [("rail", 1), ("stuck", 2), ("noisy", 3), ("level", 4)], got


def test_level_window_follows_a_measured_calibration():
    cal = Calibration(128)
    cal.measured = True
    cal.set_channel(5, 1900, 1000)
    lo, hi, mean = _stats()
    lo[5] = 1897
    hi[5] = 1903
    mean[5] = 1900
    # the other channels read 2048 = their calibrated baseline: no fault; channel 5
    # at its own baseline: no fault either
    assert [f for f in channel_faults(lo, hi, mean, cal) if f[1] == 5] == []
    mean[5] = 2200                       # 300 counts off its baseline: > step / 4
    lo[5] = 2197
    hi[5] = 2203
    assert [f[0] for f in channel_faults(lo, hi, mean, cal) if f[1] == 5] == ["level"]


def test_all_at_a_rail_is_the_supply():
    lo, hi, mean = _stats()
    for ch in range(128):
        lo[ch] = hi[ch] = mean[ch] = 4095
    f = channel_faults(lo, hi, mean, Calibration(128))
    assert len(f) == 1 and f[0][0] == "supply"
