"""Runs inside the unix MicroPython port: time the board's move chooser
(``nardy.bot.Bot.choose``) on every line of a positions file and print one JSON
object of raw figures (microseconds; bytes allocated per move with the GC off).

    micropython -X heapsize=112wK bench/bot_bench_mp.py FILE WEIGHTS_DIR [--lib DIR]
    micropython -X heapsize=4M bench/bot_bench_mp.py FILE WEIGHTS_DIR --alloc
"""

import array
import gc
import json
import sys
import time

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
    bots = {"long": Bot(LongNardy(), wdir + "/long.bin"),
            "short": Bot(ShortNardy(), wdir + "/short.bin")}
    size = 0
    with open(path) as f:
        for _ in f:
            size += 1
    times = {k: array.array("I", bytes(4 * size)) for k in bots}
    alloc = {k: array.array("I", bytes(4 * size)) for k in bots}
    count = {k: 0 for k in bots}
    worst = {k: (0, "") for k in bots}
    f = open(path)  # noqa: SIM115 (streamed line by line: the file is bigger than the heap)
    for line in f:
        name, pid, a, b = line.split()
        pos = parse_position_id(pid)[1]
        dice = (int(a), int(b))
        bot = bots[name]
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
        i = count[name]
        times[name][i] = best
        alloc[name][i] = used
        count[name] = i + 1
        if best > worst[name][0]:
            worst[name] = (best, "%s %d-%d" % (pid, dice[0], dice[1]))
    f.close()
    out = {}
    for k in bots:
        n = count[k]
        if not n:
            continue
        out[k] = {"n": n, "p50": pct(times[k], n, 50), "p99": pct(times[k], n, 99),
                  "max": pct(times[k], n, 100), "alloc_p50": pct(alloc[k], n, 50),
                  "alloc_p99": pct(alloc[k], n, 99), "alloc_max": pct(alloc[k], n, 100),
                  "worst": worst[k][1]}
    print(json.dumps(out))


ALLOC = "--alloc" in sys.argv
main(sys.argv[1], sys.argv[2])
