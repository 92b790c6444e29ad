"""Runs inside the unix MicroPython port: time the board's move chooser
(``nardy.bot.Bot.choose``) on every line of a positions file and print one JSON
object of raw figures (microseconds; bytes allocated per move with the GC off).

    micropython -X heapsize=112wK bench/bot_bench_mp.py FILE WEIGHTS_DIR [--lib DIR]
    micropython -X heapsize=4M bench/bot_bench_mp.py FILE WEIGHTS_DIR --alloc

Run by ``python -m nardy_host.romfs run IMAGE ...`` (``bot_bench.py`` does), the
image is mounted at /rom first, as ``firmware/main.py`` mounts it: the code and the
nets are then read in place, as on a board with ROMFS (``--lib /rom``, WEIGHTS_DIR
``/rom/weights``).
"""

import array
import gc
import json
import sys
import time


def _mount_rom():
    # firmware/main.py's own: the host maps the image and names it in NARDY_ROMFS
    import os
    r = os.getenv("NARDY_ROMFS")
    if r:
        import uctypes
        import vfs
        a, n = r.split(":")
        vfs.mount(vfs.VfsRom(uctypes.bytearray_at(int(a), int(n))), "/rom")


_mount_rom()
_lib = __file__.rsplit("/", 2)[0] + "/firmware"
if "--lib" in sys.argv:
    _lib = sys.argv[sys.argv.index("--lib") + 1]
sys.path.insert(0, _lib)

from nardy.bot import Bot  # noqa: E402
from nardy.longnardy import LongNardy  # noqa: E402
from nardy.notation import parse_position_id  # noqa: E402
from nardy.shortnardy import ShortNardy  # noqa: E402


def pct(a, n, q):
    s = sorted(a[:n])
    return s[min(n - 1, (n * q + 99) // 100 - 1)]


def main(path, wdir):
    size = 0
    with open(path) as f:
        for _ in f:
            size += 1
    out = {}
    for name, variant in (("long", LongNardy), ("short", ShortNardy)):
        # one net at a time, as a board holds one game's (read into the heap, a
        # 128-unit long net and a 256-unit short net together leave the 112wK heap
        # too fragmented for the figures' own arrays)
        bot = Bot(variant(), wdir + "/" + name + ".bin")
        out[name + "_in_place"] = bot.net.in_place()
        gc.collect()
        figures = _run(bot, name, path, size)
        del bot
        gc.collect()
        if figures:
            out[name] = figures
    print(json.dumps(out))


def _run(bot, game, path, size):
    times = array.array("I", bytes(4 * size))
    alloc = array.array("I", bytes(4 * size))
    n = 0
    worst = (0, "")
    f = open(path)  # noqa: SIM115 (streamed line by line: the file is bigger than the heap)
    for line in f:
        name, pid, a, b = line.split()
        if name != game:
            continue
        pos = parse_position_id(pid)[1]
        dice = (int(a), int(b))
        best = used = 0
        if ALLOC:
            # everything one choice allocates, with the GC off: an upper bound of its
            # peak (needs a big heap: the results of a big double are all counted)
            gc.collect()
            gc.disable()
            a0 = gc.mem_alloc()
            bot.choose(pos, dice)
            used = gc.mem_alloc() - a0
            gc.enable()
        else:
            for r in range(2):              # best of 2: the machine is shared
                gc.collect()
                t0 = time.ticks_us()
                bot.choose(pos, dice)
                dt = time.ticks_diff(time.ticks_us(), t0)
                if r == 0 or dt < best:
                    best = dt
        times[n] = best
        alloc[n] = used
        n += 1
        if best > worst[0]:
            worst = (best, "%s %d-%d" % (pid, dice[0], dice[1]))
    f.close()
    if not n:
        return None
    return {"n": n, "p50": pct(times, n, 50), "p99": pct(times, n, 99),
            "max": pct(times, n, 100), "alloc_p50": pct(alloc, n, 50),
            "alloc_p99": pct(alloc, n, 99), "alloc_max": pct(alloc, n, 100),
            "worst": worst[1]}


ALLOC = "--alloc" in sys.argv
main(sys.argv[1], sys.argv[2])
