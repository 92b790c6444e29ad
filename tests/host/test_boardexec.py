"""The script ``nardy calibrate`` and ``nardy selftest`` send to a real board: it runs
under MicroPython (the unix port, with the fake ``machine`` of the firmware tests)
and builds the board from ROOT/pinmap.json; bad ports and faults are clean errors."""

import os
import shutil
import subprocess

import pytest

from nardy_host import boardexec
from nardy_host.errors import UserError
from nardy_host.mpunix import micropython

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_the_script_builds_the_board_from_the_pin_map(tmp_path):
    # the board's root: nardy/ and pinmap.json, as deploy leaves them
    shutil.copytree(os.path.join(ROOT, "firmware", "nardy"), tmp_path / "nardy")
    shutil.copy(os.path.join(ROOT, "firmware", "pinmap", "esp32s3.json"),
                tmp_path / "pinmap.json")
    port = tmp_path / "ttyACM0"
    port.write_text("")
    cmd = boardexec.exec_command(str(port), str(tmp_path) + "/", (
        "import sys\nprint(pm.name, b.pinmap.layout.n, b.usb is None,\n"
        "      'nardy.pinmap' in sys.modules)\n"))
    assert cmd[-4:-1] == ["connect", str(port), "exec"]
    fake = ("import sys\nsys.path.insert(0, %r)\nimport fakemachine\nfakemachine.install()\n"
            % os.path.join(ROOT, "tests", "firmware"))
    r = subprocess.run([micropython(), "-X", "heapsize=112wK", "-c", fake + cmd[-1]],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    # the pin map's parser is gone once the board is built
    assert r.stdout.split() == ["esp32s3", "128", "True", "False"], r.stdout


def test_no_such_port_is_a_clean_error(tmp_path):
    with pytest.raises(UserError, match="no such port"):
        boardexec.exec_command(str(tmp_path / "nothing"), "/", "")


def test_faults_and_vboard_dirs():
    assert boardexec.parse_faults(["dead:3", "noisy:0"], ("dead", "noisy"), "--x", 8) == [
        ("dead", 3), ("noisy", 0)]
    for bad, word in (("cold:1", "kind must be one of dead, noisy"),
                      ("dead:x", "must be a number"), ("dead:8", "0..7")):
        with pytest.raises(UserError, match="--x: .*" + word):
            boardexec.parse_faults([bad], ("dead", "noisy"), "--x", 8)
    assert boardexec.vboard_dir("/dev/ttyACM0") is None
    assert boardexec.vboard_dir("vboard:/tmp/b") == "/tmp/b"
    with pytest.raises(UserError, match="needs a directory"):
        boardexec.vboard_dir("vboard:")
