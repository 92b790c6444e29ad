"""``make bench``: print the performance figures, each with the command behind it.

ESP32 times are projected as unix-MicroPython time x 150 (an ESP32 at 240 MHz runs
MicroPython about 150x slower than the unix port on this machine)."""

import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "firmware"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
PROJECT = 150
MP = os.path.join(os.path.dirname(sys.executable), "micropython")


def run_mp(args, heap, image=None):
    """Run the unix port on ``args`` and read the JSON its last line prints; with
    ``image``, that ROMFS image mounted at /rom outside the heap (nardy_host.romfs)."""
    mp = [sys.executable, "-m", "nardy_host.romfs", "run", image] if image else [MP]
    cmd = mp + ["-X", "heapsize=" + heap] + args
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        raise SystemExit("failed: %s\n%s%s" % (" ".join(cmd), r.stdout, r.stderr))
    return json.loads(r.stdout.strip().splitlines()[-1]), " ".join(cmd)


def compile_firmware():
    """The firmware as the board runs it (see soak.compile_firmware)."""
    from soak import compile_firmware as build
    return os.path.dirname(build(os.path.join(tempfile.mkdtemp(), "fw"))[0])


def ms(us):
    return us / 1000.0


def rules(per_game):
    import positions
    path = os.path.join(tempfile.mkdtemp(), "positions.txt")
    n = positions.write(path, per_game)
    print("## Rules engine: %d positions (%d random self-play per game + worst cases)"
          % (n, per_game))
    lib = compile_firmware()
    t, cmd = run_mp([os.path.join(ROOT, "bench", "mp_rules.py"), path, "--lib", lib], "112wK")
    print("$ %s" % cmd.replace(path, "POSITIONS").replace(lib, "MPYDIR"))
    print("%-28s %8s %9s %9s %9s   %s" % ("query (ESP32 projection)", "n", "p50 ms",
                                          "p99 ms", "max ms", "target"))
    targets = {"next_steps": "p99<=30 max<=100", "next_steps_partial": "p99<=30 max<=100",
               "targets": "p99<=30 max<=100", "check_legal": "p99<=30 max<=100",
               "check_illegal": "-", "enumerate": "max<=1000", "enumerate_build": "-"}
    rows = {}
    for game in ("long", "short"):
        for q in ("next_steps", "next_steps_partial", "targets", "check_legal",
                  "check_illegal", "enumerate", "enumerate_build"):
            s = t.get(game + "." + q)
            if not s or not s["n"]:
                continue
            p50, p99, mx = (ms(s[k]) * PROJECT for k in ("p50", "p99", "max"))
            rows[game + "." + q] = (p50, p99, mx)
            print("%-28s %8d %9.2f %9.2f %9.2f   %s" % (game + "." + q, s["n"], p50, p99, mx,
                                                   targets[q]))
    for k, (us, where) in t["worst"].items():
        print("slowest %s: %.0f ms projected (%s)" % (k, ms(us) * PROJECT, where))
    print("next_steps: first query of a turn (cold); next_steps_partial, targets and the\n"
          "checks: later in the same turn (the turn's C5 maximum is cached). enumerate:\n"
          "the distinct results (packed steps); enumerate_build: each also built as a\n"
          "Position object, which only `nardy moves` needs. Each query: best of 3 runs.")
    a, cmd = run_mp([os.path.join(ROOT, "bench", "mp_rules.py"), path, "--alloc", "--lib",
                     lib], "4M")
    print("\n$ %s" % cmd.replace(path, "POSITIONS").replace(lib, "MPYDIR"))
    print("heap allocated per query with the GC off (upper bound of its peak), bytes:")
    for k in sorted(a):
        if k != "worst" and a[k]["n"]:
            print("  %-26s p50 %7d  p99 %7d  max %7d" % (k, a[k]["p50"], a[k]["p99"],
                                                       a[k]["max"]))
    _, cmd = run_mp([os.path.join(ROOT, "bench", "mp_rules.py"), path, "--lib", lib], "56wK")
    print("\n$ %s\nall queries completed at 56wK (no MemoryError)" %
          cmd.replace(path, "POSITIONS").replace(lib, "MPYDIR"))
    gnubg_ratio(path)
    return rows


def gnubg_ratio(path):
    import gnubg_nn

    sys.path.insert(0, os.path.join(ROOT, "tests", "host"))
    from gnubg_ref import to_gnubg

    from nardy.notation import parse_position_id
    from nardy.shortnardy import ShortNardy
    v = ShortNardy()
    cases = []
    with open(path) as f:
        for line in f:
            name, pid, a, b = line.split()
            if name == "short":
                cases.append((parse_position_id(pid)[1], int(a), int(b)))
    boards = [to_gnubg(p) for p, _, _ in cases]
    t0 = time.perf_counter()
    for (p, a, b) in cases:
        v.legal_turns(p, (a, b))
    ours = time.perf_counter() - t0
    t0 = time.perf_counter()
    for bd, (_, a, b) in zip(boards, cases):
        gnubg_nn.moves(bd, a, b, 0)
    ref = time.perf_counter() - t0
    print("\n$ python bench/run.py  (CPython %s, %d short-nardy positions)" % (
        sys.version.split()[0], len(cases)))
    print("full enumeration under CPython: ours %.1f us/position, gnubg_nn.moves "
          "(C) %.1f us/position, ratio %.1fx" % (ours / len(cases) * 1e6,
                                                ref / len(cases) * 1e6, ours / ref))


def main():
    per_game = int(os.environ.get("NARDY_BENCH_POSITIONS", "10000"))
    print("ESP32 projection: unix MicroPython time x %d\n" % PROJECT)
    rules(per_game)
    for extra in ("tracker_bench.py", "app_bench.py", "bot_bench.py", "heap_modules.py",
                  "heap_figures.py qstr", "board_page.py", "room_page.py"):
        print()
        sys.stdout.flush()
        script, *args = extra.split()
        subprocess.run([sys.executable, os.path.join(ROOT, "bench", script)] + args,
                       check=True)


if __name__ == "__main__":
    main()
