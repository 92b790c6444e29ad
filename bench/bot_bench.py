"""The board's move chooser in ``make bench``: projected ESP32 time per move and heap
allocated per move, on random self-play positions of each game plus the worst cases
(doubles with up to ~1,800 legal results), inside ``micropython -X heapsize=112wK``
on the precompiled firmware.

    python bench/bot_bench.py [POSITIONS_PER_GAME] [--weights DIR]

``--weights DIR`` measures the nets in DIR (``long.bin``, ``short.bin``, e.g. a
training run's candidate) instead of the committed ``firmware/weights``.
"""

import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "firmware"))
sys.path.insert(0, os.path.join(ROOT, "bench"))

from run import PROJECT, compile_firmware, ms, run_mp  # noqa: E402


def main(per_game=1000, wdir=None):
    import positions
    path = os.path.join(tempfile.mkdtemp(), "positions.txt")
    n = positions.write(path, per_game, seed=7)
    lib = compile_firmware()
    wdir = wdir or os.path.join(ROOT, "firmware", "weights")
    t, cmd = run_mp([os.path.join(ROOT, "bench", "bot_bench_mp.py"), path, wdir,
                     "--lib", lib], "112wK")
    a, acmd = run_mp([os.path.join(ROOT, "bench", "bot_bench_mp.py"), path, wdir,
                      "--lib", lib, "--alloc"], "4M")
    print("## Move chooser (nardy.bot): %d positions (%d random self-play per game + "
          "worst cases)" % (n, per_game))
    print("$ %s" % cmd.replace(path, "POSITIONS").replace(lib, "MPYDIR")
          .replace(wdir, "firmware/weights"))
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
    print("ESP32 ms = unix-port time x %d (best of 2), at 112wK. heap: bytes one choice\n"
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
