"""Runs inside the unix MicroPython port: time the engine's queries on every line of
the positions file and print one JSON object of raw figures (microseconds, bytes).

    micropython -X heapsize=112wK bench/mp_rules.py FILE [--alloc]

With --alloc, every query runs with the GC off, so gc.mem_alloc() growth is what the
query allocates in all: an upper bound of its peak heap (run with a big heap)."""

import array
import gc
import json
import sys
import time

# --lib DIR: where the (precompiled) firmware lives; default: the sources
_lib = __file__.rsplit("/", 2)[0] + "/firmware"
if "--lib" in sys.argv:
    _lib = sys.argv[sys.argv.index("--lib") + 1]
sys.path.insert(0, _lib)

from nardy.longnardy import LongNardy  # noqa: E402
from nardy.notation import parse_position_id  # noqa: E402
from nardy.shortnardy import ShortNardy  # noqa: E402

GAMES = {"long": LongNardy(), "short": ShortNardy()}


class Stat:
    """Percentiles in constant memory (the samples would not fit the heap): a
    histogram with 8-unit buckets up to 4096 and 512-unit buckets above."""

    def __init__(self):
        self.h = array.array("H", bytes(2 * _BUCKETS))
        self.n = 0
        self.total = 0
        self.max = 0
        self.last = 0

    def add(self, x):
        self.n += 1
        self.total += x
        self.last = x
        if x > self.max:
            self.max = x
        i = x >> 3 if x < 4096 else 512 + ((x - 4096) >> 9)
        if i >= _BUCKETS:
            i = _BUCKETS - 1
        self.h[i] += 1

    def _pct(self, q):
        want = (self.n * q + 99) // 100
        seen = 0
        for i in range(_BUCKETS):
            seen += self.h[i]
            if seen >= want:
                top = (i + 1) << 3 if i < 512 else 4096 + ((i - 511) << 9)
                return min(top, self.max)
        return self.max

    def summary(self):
        if not self.n:
            return {"n": 0}
        return {"n": self.n, "mean": self.total // self.n, "p50": self._pct(50),
                "p99": self._pct(99), "max": self.max}


_BUCKETS = 1024


def walk_all(v, pos, dice):
    """Full enumeration as the board does it: every result built, one at a time."""
    n = 0
    for _ in v.turns(pos, dice):
        n += 1
    return n


def nth(v, pos, dice, k):
    for i, t in enumerate(v.turns(pos, dice)):
        if i == k:
            return t


_KINDS = ("enumerate", "enumerate_build", "next_steps", "next_steps_partial", "targets",
          "check_legal", "check_illegal")


def main(path, alloc):
    # every histogram made first (2 KB each): made at its first query, late in the
    # run, one could find a 56wK heap with the code loaded in pieces
    stats = {}
    for name in GAMES:
        for kind in _KINDS:
            stats[name + "." + kind] = Stat()

    def stat(name):
        s = stats.get(name)
        if s is None:
            s = stats[name] = Stat()
        return s

    def measure(name, fn, *args, cold=True):
        """Best of 3 runs (the machine is shared; the best run is the query's own
        cost). ``cold``: forget the per-turn C5 cache first, as on the first query
        of a turn; the later queries of a turn find it (warm)."""
        if alloc:
            if cold:
                for g in GAMES.values():
                    g._eff[0] = None     # no answer kept (rules: _effective)
            gc.collect()
            gc.disable()
            a0 = gc.mem_alloc()
            r = fn(*args)
            stat(name).add(gc.mem_alloc() - a0)
            gc.enable()
            return r
        best = None
        for _ in range(3):
            if cold:
                for g in GAMES.values():
                    g._eff[0] = None     # no answer kept (rules: _effective)
            t0 = time.ticks_us()
            r = fn(*args)
            dt = time.ticks_diff(time.ticks_us(), t0)
            if best is None or dt < best:
                best = dt
        stat(name).add(best)
        return r

    seed = 12345
    worst = {}
    with open(path) as f:
        for line in f:
            name, pid, a, b = line.split()
            v = GAMES[name]
            pos = parse_position_id(pid)[1]
            dice = (int(a), int(b))
            n = measure(name + ".enumerate", v.count_turns, pos, dice)
            measure(name + ".enumerate_build", walk_all, v, pos, dice)
            measure(name + ".next_steps", v.next_steps, pos, dice, ())
            # a simple LCG picks which legal result to check and to follow
            seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
            steps, res = nth(v, pos, dice, seed % n)
            v.next_steps(pos, dice, ())  # the turn's first query warms the C5 cache
            if steps:
                measure(name + ".next_steps_partial", v.next_steps, pos, dice, steps[:1],
                        cold=False)
                measure(name + ".targets", v.targets, pos, dice, (), steps[0][0], cold=False)
            measure(name + ".check_legal", v.check_turn, pos, dice, res, cold=False)
            if steps:
                # an illegal final: only the first step of a longer turn
                short = v.apply_step(pos, steps[0])
                if len(steps) > 1:
                    measure(name + ".check_illegal", v.check_turn, pos, dice, short,
                            cold=False)
            key = name + ".enumerate"
            last = stats[key].last
            if last > worst.get(key, (0, ""))[0]:
                worst[key] = (last, "%s %s %d-%d" % (name, pid, dice[0], dice[1]))
            gc.collect()
    out = {k: s.summary() for k, s in stats.items() if s.n}
    out["worst"] = worst
    print(json.dumps(out))


main(sys.argv[1], "--alloc" in sys.argv)
