"""Boot entry: the board app on the ESP32, or the virtual board on unix MicroPython.

Virtual board (docs/PROTOCOL.md):
    micropython -X heapsize=112wK MPYDIR/main.py DIR pinmap.json [--flash-size=BYTES] [--radio]
    micropython -X heapsize=192wK firmware/main.py DIR [pinmap.json]   # from source
``--radio``: the virtual board gets a Wi-Fi radio (nardy.vradio; nardy.appboot gives
it, so that a board without one pays nothing for the lines).
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

    selftest = "--selftest" in argv
    if not selftest:
        from nardy.app import App  # first: compiling it needs the heap in one piece
    from nardy.hal_virtual import Board
    # the imports' garbage (loader buffers) goes before the board's first tables are
    # allocated: at 56wK a stale pointer to it can otherwise starve the boot
    gc.collect()
    here = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
    data = argv[1] if len(argv) > 1 else "vboard"
    pm = argv[2] if len(argv) > 2 else here + "/pinmap/esp32s3.json"
    quota = -1
    for a in argv[3:]:
        # the flash's size in bytes (a quota on the directory, enforced on the
        # journal's writes: nardy.hal_virtual); --flash= is the old spelling
        if a.startswith("--flash-size=") or a.startswith("--flash="):
            quota = int(a.split("=", 1)[1])
    try:
        import os
        os.mkdir(data)
    except OSError:
        pass
    board = Board(pm, data, flash_bytes=quota)
    if selftest:
        _selftest(board, data, "--no-buttons" not in argv)
        return
    App(board, data).run()


def _selftest(board, data, buttons=True):
    from nardy import selftest
    from nardy.calibration import load
    cal = load(data + "/calib.json", board.pinmap.layout.n, board.pinmap.slots)
    if board.virtual:
        selftest.run_virtual(board, cal, buttons=buttons)
    else:
        selftest.run_board(board, cal, buttons=buttons)


def _tool_at_boot(data):
    """The tool the menu asked for before its restart (once), or None. Read here,
    not in nardy.selftest: an ordinary boot must not pay for importing it."""
    import os
    try:
        with open(data + "/tool") as f:
            t = f.read().strip()
        os.remove(data + "/tool")
    except OSError:
        return None
    return t


def _menu_held(pm):
    """MENU held down at power-up (the board then runs its self-test first)."""
    from machine import Pin
    b = pm.buttons
    p = Pin(b["menu"], Pin.IN, Pin.PULL_UP if b.get("pull_up", True) else None)
    return (not p.value()) if b.get("active_low", True) else bool(p.value())


def _esp32():
    import gc

    from nardy.app import App
    from nardy.hal_esp32 import Board
    from nardy.pinmap import load
    pm = load("/pinmap.json")
    del load          # load() dropped nardy.pinmap: its parser leaves the heap with this
    board = Board.from_pinmap(pm)
    gc.collect()      # as in _virtual
    tool = _tool_at_boot("/data")     # asked for from the menu
    if tool == "calibrate":
        from nardy.calibproc import run_board
        run_board(board, "/data/calib.json", pm.slots)
    elif tool == "selftest" or _menu_held(pm):
        _selftest(board, "/data")     # MENU held at power-up; then the game as usual
    App(board, "/data").run()


if sys.platform == "linux":
    _mount_rom()
    _virtual(sys.argv)
else:
    _esp32()
