"""The board's move chooser in ``make bench``: projected ESP32 time per move and heap
allocated per move, on random self-play positions of each game plus the worst cases
(doubles with up to ~1,800 legal results), inside ``micropython -X heapsize=112wK``
on the precompiled firmware. The times are taken as a board with ROMFS plays: the
code and the nets in a ROMFS image, read in place (``nardy_host.romfs run``), so a
net of any size the board reads (up to 512 hidden units, 224 KB) is timed in the
board's 112 KB heap. The heap figures are counted with the nets read into a 4M heap.

    python bench/bot_bench.py [POSITIONS_PER_GAME] [--weights DIR]

``--weights DIR`` measures the nets in DIR (``long.bin``, ``short.bin``, e.g. a
training run's candidate) instead of the committed ``firmware/weights``.
"""

import os
import shutil
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "firmware"))
sys.path.insert(0, os.path.join(ROOT, "bench"))

from run import PROJECT, compile_firmware, ms, run_mp  # noqa: E402

from nardy_host import romfs  # noqa: E402


def rom_image(lib, wdir):
    """A ROMFS image of the compiled firmware and the nets of ``wdir``, as
    ``nardy deploy --romfs`` lays them out (each file's data 4-byte aligned)."""
    top = tempfile.mkdtemp()
    src = os.path.join(top, "rom")
    shutil.copytree(os.path.join(lib, "nardy"), os.path.join(src, "nardy"))
    os.makedirs(os.path.join(src, "weights"))
    for game in ("long", "short"):
        shutil.copy(os.path.join(wdir, game + ".bin"), os.path.join(src, "weights"))
    image = os.path.join(top, "bench.romfs")
    romfs.build(src, image)
    return image


def main(per_game=1000, wdir=None):
    import positions
    path = os.path.join(tempfile.mkdtemp(), "positions.txt")
    n = positions.write(path, per_game, seed=7)
    lib = compile_firmware()
    wdir = wdir or os.path.join(ROOT, "firmware", "weights")
    image = rom_image(lib, wdir)
    t, cmd = run_mp([os.path.join(ROOT, "bench", "bot_bench_mp.py"), path,
                     "/rom/weights", "--lib", "/rom"], "112wK", image)
    for game in ("long", "short"):
        if not t[game + "_in_place"]:
            raise SystemExit("the %s net was not read in place from the image" % game)
    a, acmd = run_mp([os.path.join(ROOT, "bench", "bot_bench_mp.py"), path, wdir,
                      "--lib", lib, "--alloc"], "4M")
    print("## Move chooser (nardy.bot): %d positions (%d random self-play per game + "
          "worst cases)" % (n, per_game))
    print("$ %s" % cmd.replace(path, "POSITIONS").replace(image, "IMAGE")
          .replace(sys.executable, "python"))
    print("$ %s" % acmd.replace(path, "POSITIONS").replace(lib, "MPYDIR")
          .replace(wdir, "firmware/weights"))
    print("%-12s %6s %9s %9s %9s %12s %12s   %s" % ("game/hidden", "n", "p50 ms", "p99 ms",
                                                   "max ms", "heap p50 B", "heap max B",
                                                   "target"))
    for game in ("long", "short"):
        s = t[game]
        with open(os.path.join(wdir, game + ".bin"), "rb") as f:
            head = f.read(12)           # the header's hidden size (docs/ENGINE.md):
        hidden = head[6] | (head[11] << 8 if head[4] == 4 else 0)   # 16 bits in version 4
        print("%-12s %6d %9.1f %9.1f %9.1f %12d %12d   p99<=1500" % (
            "%s/%d" % (game, hidden), s["n"], ms(s["p50"]) * PROJECT, ms(s["p99"]) * PROJECT,
            ms(s["max"]) * PROJECT, a[game]["alloc_p50"], a[game]["alloc_max"]))
        print("  slowest: %s" % s["worst"])
    print("ESP32 ms = unix-port time x %d (best of 2), at 112wK, the code and the nets read\n"
          "in place from a ROMFS image (IMAGE: MPYDIR and the nets). heap: bytes one choice\n"
          "allocates in all, counted with the GC off (64-bit unix objects: about twice an\n"
          "ESP32's): the engine's enumeration tables plus the chosen Position; none of it\n"
          "is kept after the move." % PROJECT)


if __name__ == "__main__":
    argv = sys.argv[1:]
    weights = None
    if "--weights" in argv:
        i = argv.index("--weights")
        weights = os.path.abspath(argv[i + 1])
        del argv[i:i + 2]
    main(int(argv[0]) if argv else 1000, weights)
