"""The heap figures the layout is held to (issue 24), for this checkout:

    .venv/bin/python bench/heap_figures.py [free|bot|qstr]

``free``: the free heap after boot on a 112wK virtual board (the floor is
tests/host/test_soak.py's FREE_AFTER_BOOT_112); ``bot``: the sampled peak of the
bot-both soak at 56wK with the code and weights in a ROMFS image (its limit:
BOT_HEAP_BYTES - BOT_PEAK_MARGIN there); ``qstr``: the names (qstrs) the same
board has interned after boot and after the board's two games and the host's
``index`` and ``hello``, against what the qstr pools made at boot hold (a name
past that asks for a pool twice the last one's size in one block, which 56wK
has not got: test_soak's test_the_names_..._fit_the_qstr_pools_made_at_boot).
The firmware and host tools are this checkout's, even where another one is
installed in the virtual environment (so two trees can be compared on the same
machine, one after the other).
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


def qstr_room():
    """{"boot": (pools, names), "games": (pools, names), "pools": soak.qstr_pools(),
    "failed": why the games failed, or None}
    on a 56wK virtual board with the code and weights in ROMFS: after boot, and
    after the board played a long and a short game against itself and answered
    ``index`` and ``hello`` (commands that load modules of their own)."""
    import shutil

    import soak
    root = tempfile.mkdtemp(prefix="nardy-qstr-")
    try:
        main, image = soak.compile_firmware(os.path.join(root, "fw"), True)
        b = soak.Board(os.path.join(root, "data"), "56wK", soak.qstr_main(main), image,
                       text=True)
        boot = b.qstrs()
        stats = {"games": 0, "turns": 0, "steps": 0, "passes": 0, "peak": 0,
                 "choices": 0, "mem_every": 1000}
        failed = None
        try:
            for variant in ("long", "short"):
                soak.play_bot_game(b, variant, stats)
            for cmd in ({"cmd": "index"}, {"cmd": "hello"}):
                b.check(b.ping(cmd), cmd["cmd"])
        except soak.Failure as e:
            failed = str(e)     # (a name past the pools: "allocating 1280 bytes")
        games = b.qstrs()
        b.close()
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return {"boot": boot, "games": games, "pools": soak.qstr_pools(), "failed": failed}


def qstr_text(r):
    """The figure in words."""
    pools, names = r["games"]
    held = dict(enumerate((n for n, _ in r["pools"]), 1)).get(pools, 0)
    nxt = dict(enumerate((b for _, b in r["pools"]), 2)).get(pools + 1, 0)
    return ("56wK ROMFS qstrs: %d at boot (%d pools), %d after the board's games, index "
            "and hello (%d pools, which hold %d): %d to spare; the next pool: %d bytes "
            "in one block%s" % (r["boot"][1], r["boot"][0], names, pools, held,
                                held - names, nxt,
                                "; FAILED: %s" % r["failed"] if r["failed"] else ""))


def main(argv):
    import nardy
    print("firmware: %s" % os.path.dirname(nardy.__file__))
    what = argv[1:] or ["free", "bot", "qstr"]
    if "free" in what:
        print("112wK free after boot: %d bytes" % free_after_boot())
    if "bot" in what:
        print("56wK ROMFS bot-both sampled peak: %d bytes" % bot_peak())
    if "qstr" in what:
        print(qstr_text(qstr_room()))


if __name__ == "__main__":
    main(sys.argv)
