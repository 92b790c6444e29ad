"""Boot entry: the board app on the ESP32, or the virtual board on unix MicroPython.

Virtual board:  micropython -X heapsize=112wK firmware/main.py DIR [pinmap.json]
"""

import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0] if "/" in __file__ else ".")


def _virtual(argv):
    from nardy.app import App
    from nardy.hal_virtual import Board
    here = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
    data = argv[1] if len(argv) > 1 else "vboard"
    pm = argv[2] if len(argv) > 2 else here + "/pinmap/esp32s3.json"
    quota = -1
    for a in argv[3:]:
        if a.startswith("--flash="):
            quota = int(a[8:])
    try:
        import os
        os.mkdir(data)
    except OSError:
        pass
    App(Board(pm, data, flash_bytes=quota), data).run()


def _esp32():
    from nardy.app import App
    from nardy.hal_esp32 import Board
    from nardy.pinmap import load
    App(Board.from_pinmap(load("/pinmap.json")), "/data").run()


if sys.platform == "linux":
    _virtual(sys.argv)
else:
    _esp32()
