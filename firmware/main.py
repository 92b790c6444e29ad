"""Boot entry: the board app on the ESP32, or the virtual board on unix MicroPython.

Virtual board:  micropython -X heapsize=112wK firmware/main.py DIR [pinmap.json]
With code in "flash" (a ROMFS image, see nardy_host.romfs):
    python -m nardy_host.romfs run IMAGE -X heapsize=56wK main.py DIR [pinmap.json]
"""

import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0] if "/" in __file__ else ".")


def _mount_rom():
    """The virtual board's stand-in for the board's ROMFS partition: an image mapped
    outside the heap by the host (NARDY_ROMFS=address:length), mounted at /rom and
    searched first, so its .mpy files run in place instead of being loaded into RAM.
    (A board with ROMFS mounts /rom by itself.)"""
    import os
    r = os.getenv("NARDY_ROMFS")
    if r:
        import uctypes
        import vfs
        a, n = r.split(":")
        vfs.mount(vfs.VfsRom(uctypes.bytearray_at(int(a), int(n))), "/rom")
        sys.path.insert(0, "/rom")


def _virtual(argv):
    import gc

    from nardy.app import App
    from nardy.hal_virtual import Board
    # the imports' garbage (loader buffers) goes before the board's first tables are
    # allocated: at 56wK a stale pointer to it can otherwise starve the boot
    gc.collect()
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
    import gc

    from nardy.app import App
    from nardy.hal_esp32 import Board
    from nardy.pinmap import load
    gc.collect()      # as in _virtual
    App(Board.from_pinmap(load("/pinmap.json")), "/data").run()


if sys.platform == "linux":
    _mount_rom()
    _virtual(sys.argv)
else:
    _esp32()
