"""``nardy selfplay``: a few whole games through the emulation, and the journal."""

import json
import os
import subprocess
import sys

from nardy import record

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def selfplay(*args):
    r = subprocess.run([sys.executable, "-m", "nardy_host.cli", "selfplay", "--json", *args],
                       capture_output=True, text=True, timeout=600, cwd=ROOT)
    return r.returncode, json.loads(r.stdout.strip().splitlines()[-1]), r.stderr


def test_long_games_with_noise_knocks_and_illegal_turns(tmp_path):
    code, d, err = selfplay("--variant", "long", "--games", "2", "--seed", "11",
                            "--illegal", "0.2", "--knock", "0.05", "--log", str(tmp_path))
    assert code == 0, err
    assert d["games"] == 2 and d["turns"] > 100
    assert d["desyncs"] == 0 and d["false_warnings"] == 0 and d["illegal_missed"] == 0
    assert d["illegal_caught"] == d["illegal_injected"] > 0
    logs = sorted(os.listdir(tmp_path))
    assert len(logs) == 2
    with open(os.path.join(tmp_path, logs[0])) as f:
        header, turns, fin, last = record.replay(f.read().splitlines())
    assert header["variant"] == "long" and len(turns) > 50
    assert fin is not None and fin["winner"] in ("white", "black")
    assert last[1].borne_off(0) == 15 or last[1].borne_off(1) == 15


def test_short_games():
    code, d, err = selfplay("--variant", "short", "--games", "2", "--seed", "12",
                            "--illegal", "0.2", "--knock", "0.05")
    assert code == 0, err
    assert d["games"] == 2 and d["desyncs"] == 0 and d["illegal_missed"] == 0
    assert d["illegal_caught"] == d["illegal_injected"] > 0


def test_bad_arguments_exit_2():
    r = subprocess.run([sys.executable, "-m", "nardy_host.cli", "selfplay", "--noise", "loud"],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2 and "noise" in r.stderr


def test_games_on_built_boards():
    code, d, err = selfplay("--variant", "short", "--builds", "2", "--games", "1",
                            "--seed", "13", "--illegal", "0.2")
    assert code == 0, err
    assert d["builds"] == 2 and d["games"] == 2 and d["calibration_faults"] == 0
    assert d["desyncs"] == 0 and d["false_warnings"] == 0 and d["illegal_missed"] == 0


def test_a_build_whose_calibration_finds_a_fault_fails():
    # a sensor that the spread puts outside the gain window: the run must fail
    from nardy_host import selfplay as sp
    from nardy_host.physical import Build

    orig = Build.__init__

    def weak(self, *a, **k):
        orig(self, *a, **k)
        self.k[5] *= 0.55         # channel 5: a sensor at 55 % sensitivity
    Build.__init__ = weak
    try:
        stats = sp.Stats()
        sp.make_build(1, 0, 5, 8.0, stats)
    finally:
        Build.__init__ = orig
    assert stats.calibration_faults == 1 and "gain" in stats.failures[0]


def test_build_monte_carlo_small():
    from nardy_host import buildspread
    assert buildspread.main(["--builds", "2", "--positions", "2", "--seed", "3"]) == 0
    # the verdict function can fail: a reading on the wrong side, or too close
    from nardy.calibration import Calibration
    t = Calibration(128).thresholds()
    assert buildspread._class(t[3] + 20, t, 0, 8) == (2, True)
    assert buildspread._class(t[3] + 3, t, 0, 8) == (2, False)
    assert buildspread._class(t[3] - 20, t, 0, 8)[0] == 1
