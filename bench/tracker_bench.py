"""Sensing + tracker timing under the unix MicroPython port, projected to the ESP32.

    .venv/bin/python bench/tracker_bench.py

Runs bench/tracker_bench_mp.py inside ``micropython -X heapsize=112wK`` and scales
its figures by 150 (the unix port on a desktop core against an ESP32-S3 at 240 MHz
running the same bytecode; the project's agreed factor). Budgets from issue 4:
steady state <= 20 ms per cycle, lift -> targets <= 50 ms projected.
"""

import json
import os
import subprocess
import sys

from nardy_host.mpunix import micropython

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FACTOR = 150
HEAP = os.environ.get("NARDY_MP_HEAP", "112wK")


def main():
    cmd = [micropython(), "-X", "heapsize=" + HEAP,
           os.path.join(ROOT, "bench", "tracker_bench_mp.py"), os.path.join(ROOT, "firmware")]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if r.returncode:
        sys.exit("benchmark failed:\n" + r.stdout + r.stderr)
    d = json.loads(r.stdout.strip().splitlines()[-1])
    print("command: " + " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c
                                 for c in cmd))
    rows = (
        ("steady-state cycle (128-channel scan + tracker)", d["steady_us"], 20.0),
        ("... long nardy's start, head watched for lifts", d["steady_head_us"], 20.0),
        ("lift -> targets, first lift of a turn", d["lift_cold_us"], 50.0),
        ("lift -> targets, again", d["lift_warm_us"], 50.0),
        ("placement -> step committed", d["place_us"], None),
        ("end-turn press, 15 on the head, nothing seen moved", d["press_head_us"], None),
    )
    ok = True
    for name, us, budget in rows:
        proj = us * FACTOR / 1000.0
        mark = ""
        if budget is not None:
            good = proj <= budget
            ok = ok and good
            mark = "  (budget %g ms: %s)" % (budget, "ok" if good else "OVER")
        print("%-50s %8.1f us unix  -> %7.2f ms ESP32 (x%d)%s" % (name, us, proj, FACTOR, mark))
    print("steady-state allocation over 2000 cycles: %d bytes (head watched: %d bytes)"
          % (d["steady_alloc_bytes"], d["steady_head_alloc_bytes"]))
    print("(the debounce adds its stable time, 100 ms by default, before a lift is seen;"
          "\n the press row is the worst over doubles and 6-5, 2-1: dice %s)"
          % (d["press_head_dice"],))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
