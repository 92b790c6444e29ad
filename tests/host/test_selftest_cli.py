"""``nardy selftest`` on the virtual board: a clean board passes, injected faults are
named, bad input is one clean error."""

import os
import subprocess
import sys

import pytest

NARDY = [os.path.join(os.path.dirname(sys.executable), "nardy")]


def _run(tmp_path, *extra):
    cmd = NARDY + ["selftest", "--port",
           "vboard:%s" % (tmp_path / "vb")] + list(extra)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180)


def test_clean_virtual_board_passes(tmp_path):
    r = _run(tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "all OK" in r.stdout and "leds: 28 walked" in r.stdout


def test_injected_faults_are_named_and_fail(tmp_path):
    r = _run(tmp_path, "--inject", "dead:3", "--inject", "stuck:50", "--inject", "noisy:60",
             "--inject", "checker:70", "--no-buttons", "--json")
    assert r.returncode == 1, r.stdout + r.stderr
    import json
    rep = json.loads(r.stdout.strip().splitlines()[-1])
    text = "\n".join(rep["faults"])
    assert "channel 3 (P1.4): rail" in text
    assert "channel 50 (P11.1): stuck" in text
    assert "channel 60 (P13.1): noisy" in text
    assert "channel 70 (P15.1): level" in text
    assert len(rep["faults"]) == 4 and "buttons: skipped" in rep["notes"]


def test_missing_button_press_is_a_fault(tmp_path):
    # no button lines and the check not skipped: the firmware waits 10 s per button
    from nardy_host import selftest
    lines = selftest.sense_lines(128, [])
    from nardy_host.mpunix import compiled_firmware, micropython, pinmap_path
    fw = compiled_firmware()
    r = subprocess.run([micropython(), "-X", "heapsize=112wK", fw + "/main.py",
                        str(tmp_path / "vb"), pinmap_path(), "--selftest"],
                       input="\n".join(lines) + '\n{"cmd": "button", "name": "ok"}\n',
                       capture_output=True, text=True, timeout=120)
    assert '"button back: no press within 10 s"' in r.stdout
    assert '"button ok' not in r.stdout


def test_whole_group_at_a_rail_is_named_once(tmp_path):
    args = []
    for ch in range(16, 32):
        args += ["--inject", "dead:%d" % ch]
    r = _run(tmp_path, "--no-buttons", *args)
    assert r.returncode == 1
    assert "sensor group 1: channels 16-31 at a rail" in r.stdout
    assert "channel 17" not in r.stdout


@pytest.mark.parametrize("bad", ["foo:3", "dead:x", "dead:999"])
def test_bad_inject_is_a_clean_error(tmp_path, bad):
    r = _run(tmp_path, "--inject", bad)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "--inject" in r.stderr


def test_no_such_port(tmp_path):
    r = subprocess.run(NARDY + ["selftest", "--port", str(tmp_path / "ttyNONE")],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "no such port" in r.stderr


def test_the_report_lists_every_check_and_its_count(tmp_path):
    # issue 22: "all OK" without saying what was checked, "flash: free space
    # unknown" on the virtual board
    r = _run(tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    assert "channels: 128 checked over" in out and "buttons: 3 of 3 pressed" in out
    assert "unknown" not in out and " KB free" in out
    last = out.strip().splitlines()[-1]
    assert last.startswith("self-test: all OK (channels 128 (")
    for part in ("leds 28", "buttons 3 of 3", "oled", "flash", "calibration"):
        assert part in last, last
    r = _run(tmp_path, "--no-buttons", "--json")
    import json
    rep = json.loads(r.stdout.strip().splitlines()[-1])
    assert rep["checks"]["channels"] == 128 and rep["checks"]["buttons"] == 0
    assert rep["checks"]["leds"] == 28 and rep["checks"]["flash"] == 1
