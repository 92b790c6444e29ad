"""``nardy calibrate`` on the virtual board: the board's own procedure on an emulated
board built with the parts' spread; the saved file makes that board see right."""

import json
import random

import pytest

from nardy import calibration
from nardy.longnardy import LongNardy
from nardy.sensing import Sensing
from nardy.zones import Layout
from nardy_host import cli
from nardy_host.magnet import MagnetModel
from nardy_host.physical import Build, PhysBoard


def test_calibration_makes_the_built_board_see(tmp_path, capsys):
    flash = tmp_path / "flash"
    assert cli.main(["calibrate", "--port", "vboard:%s" % flash, "--sim-seed", "7",
                     "--save", str(tmp_path / "copy.json")]) == 0
    text = (flash / "calib.json").read_text()
    assert text == (tmp_path / "copy.json").read_text()
    cal = calibration.loads(text, 128)
    assert cal.measured and not cal.dead
    # the same build (same seed) with the start position: every checker counted
    lay = Layout(5)
    model = MagnetModel()
    board = PhysBoard(lay, model, noise=8.0, rng=random.Random(99),
                      build=Build(model, lay.n, random.Random(7)))
    v = LongNardy()
    from nardy.game import zone_of
    zt = [[zone_of(v, c, k) for k in range(26)] for c in (0, 1)]
    board.set_position(v, v.start_position(), zt)
    s = Sensing(lay, cal, stable_ms=40)
    for i in range(20):
        s.scan(board.read(), 20 * i)
    assert s.vis_w[24] == 10 and s.vis_b[12] == 10
    assert sum(s.vis_w) == 10 and sum(s.vis_b) == 10


def test_gains_follow_the_build():
    from nardy_host.calibrate import emulated
    cal, faults = emulated(seed=3, noise=4.0)
    assert not any(faults[k] for k in ("dead", "gain", "missing"))
    # the gains spread like the sensors (+-5 %) and depths (+-0.5 mm) do
    g = sorted(cal.gain)
    assert 850 < g[0] < g[-1] < 1150 and g[-1] - g[0] > 30


def test_faulty_channels_are_named_and_fail(tmp_path, capsys):
    assert cli.main(["calibrate", "--port", "vboard:%s" % tmp_path, "--sim-fault",
                     "dead:4", "--sim-fault", "noisy:9", "--json"]) == 1
    rep = json.loads(capsys.readouterr().out)
    assert rep["faults"] == ["dead (rail): 4", "noisy: 9"]
    cal = calibration.load(str(tmp_path / "calib.json"), 128, strict=True)
    assert 4 in cal.dead


@pytest.mark.parametrize("bad", [["--sim-fault", "hot:3"], ["--sim-fault", "dead:200"],
                                 ["--checkers", "16"]])
def test_bad_input_is_a_clean_error(tmp_path, capsys, bad):
    assert cli.main(["calibrate", "--port", "vboard:%s" % tmp_path] + bad) == 2
    assert "error" in capsys.readouterr().err


def test_missing_port(tmp_path, capsys):
    assert cli.main(["calibrate", "--port", str(tmp_path / "tty0")]) == 2
    assert "no such port" in capsys.readouterr().err
