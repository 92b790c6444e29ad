"""The two heap figures the layout is held to (issue 24), for this checkout:

    .venv/bin/python bench/heap_figures.py [free|bot]

``free``: the free heap after boot on a 112wK virtual board (the floor is
tests/host/test_soak.py's FREE_AFTER_BOOT_112); ``bot``: the sampled peak of the
bot-both soak at 56wK with the code and weights in a ROMFS image (its limit:
BOT_HEAP_BYTES - BOT_PEAK_MARGIN there). The firmware and host tools are this
checkout's, even where another one is installed in the virtual environment (so two
trees can be compared on the same machine, one after the other).
"""

import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for d in ("host_tools", "firmware", "tests", os.path.join("tests", "host"), "bench"):
    sys.path.insert(0, os.path.join(ROOT, d))


def free_after_boot():
    from vboard import VBoard
    b = VBoard(os.path.join(tempfile.mkdtemp(prefix="nardy-heapfig-"), "vb"), heap="112wK")
    try:
        b.send({"cmd": "mem"})
        return b.wait("mem")["free"]
    finally:
        b.close()


def bot_peak():
    import soak
    import test_soak

    def both(b, stats):
        for variant in ("long", "short"):
            soak.play_bot_game(b, variant, stats)

    return test_soak._soak(test_soak.BOT_HEAP, 0, romfs=True, play=both)["peak"]


def main(argv):
    import nardy
    print("firmware: %s" % os.path.dirname(nardy.__file__))
    what = argv[1:] or ["free", "bot"]
    if "free" in what:
        print("112wK free after boot: %d bytes" % free_after_boot())
    if "bot" in what:
        print("56wK ROMFS bot-both sampled peak: %d bytes" % bot_peak())


if __name__ == "__main__":
    main(sys.argv)
