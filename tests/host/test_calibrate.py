"""``nardy calibrate`` against the virtual board, its sensors being the magnetic model
with weak magnets and spread sensor offsets: uncalibrated, the board cannot see the
starting position; after calibration (saved into the board's flash) it can."""

import json

import pytest
from vboard import VBoard

from nardy.calibration import load
from nardy.movesvc import variant_for
from nardy.posjson import from_json
from nardy_host import calibrate, cli

SIM = dict(offset_sd=40.0, gain=0.45, seed=3)
ARGS = ["--sim-offset", "40", "--sim-gain", "0.45", "--sim-seed", "3"]


def _diffs(flash):
    """The board's sync differences once it has seen the starting position."""
    b = VBoard(str(flash))
    try:
        b.send({"cmd": "set", "oled": False, "leds": False})
        b.send({"cmd": "new", "variant": "long", "match": 1})
        b.sync()
        d = b.dump()
        v = variant_for(d["variant"], d["options"] or {})
        pos = from_json(v, d["position"])
        raw = calibrate.ModelSensors(**SIM).readings_of(v, pos)
        b.events.clear()
        b.send({"cmd": "sense", "raw": raw, "ms": 400})
        b.sync()
        syncs = [e for e in b.events if e["ev"] == "sync"]
        return syncs[-1]["diffs"] if syncs else []
    finally:
        b.close()


def test_calibration_makes_the_board_see(tmp_path):
    plain = tmp_path / "plain"
    assert _diffs(plain) != []            # weak magnets: checkers read as empty
    flash = tmp_path / "flash"
    copy = tmp_path / "copy.json"
    assert cli.main(["calibrate", "--port", "vboard:%s" % flash, "--yes", "--quiet",
                     "--save", str(copy), *ARGS]) == 0
    d = json.loads((flash / "calib.json").read_text())
    assert d == json.loads(copy.read_text())
    assert d["v"] == 1 and d["n"] == 128 and len(d["channels"]) > 100
    cal = load(str(flash / "calib.json"), 128)
    b, w1, w2, k1, k2 = cal.default
    assert k2 < k1 < b < w1 < w2
    assert w1 - b < 0.6 * (3368 - 2180)   # the weak magnets were measured
    assert _diffs(flash) == []


def test_wrong_placement_is_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(calibrate.ModelSensors, "place", lambda self, step: None)
    assert cli.main(["calibrate", "--port", "vboard:%s" % (tmp_path / "f"), "--yes",
                     "--quiet"]) == 2
    assert "no white checkers seen" in capsys.readouterr().err
    assert not (tmp_path / "f" / "calib.json").exists()


def test_not_interactive_without_yes(tmp_path, monkeypatch, capsys):
    import io
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert cli.main(["calibrate", "--port", "vboard:%s" % tmp_path, "--quiet"]) == 2
    assert "--yes" in capsys.readouterr().err


def test_missing_port(tmp_path, capsys):
    assert cli.main(["calibrate", "--port", str(tmp_path / "tty0"), "--yes"]) == 2
    assert "no such port" in capsys.readouterr().err


@pytest.mark.parametrize("gain", [0.45, 1.0, 1.3])
def test_compute_recovers_gain(gain):
    s = calibrate.ModelSensors(offset_sd=30.0, gain=gain, seed=5)
    scans = {}
    for step in ("empty", "white", "black"):
        s.place(step)
        scans[step] = s.read(1)
    cal, gains = calibrate.compute(s.layout, scans["empty"], scans["white"], scans["black"])
    assert abs(gains["white2"] - gain) < 0.1 and abs(gains["black2"] - gain) < 0.1
    # each channel's baseline is its empty reading
    for ch in range(s.layout.n):
        assert cal.levels(ch)[0] == scans["empty"][ch]
