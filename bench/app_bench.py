"""The firmware app's timings on the virtual board, projected to the ESP32.

    .venv/bin/python bench/app_bench.py

Runs bench/app_bench_mp.py in ``micropython -X heapsize=112wK`` with the virtual
HAL (128 channels) on the firmware compiled by mpy-cross, and scales the times by
150 (the project's unix-port -> ESP32-S3 factor). Goals (issue 5): the cycle
<= 25 ms projected including the real scan (128 channels through the MCP3208: ~12 ms
projected by bench/scan_bench.py, SPI transfers and group power-up included, which
the virtual scan does not have: added here), lift -> lit targets <= 60 ms from the
lift itself, the debounce included (issue 21), boot <= 2 s.
Exits 0 when the figures were measured (over a goal is printed, not an error).
"""

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
FACTOR = 150
HEAP = os.environ.get("NARDY_MP_HEAP", "112wK")
ADC_MS = 12.1   # bench/scan_bench.py: one MCP3208 scan, projected ESP32
RUNS = 3


def main():
    from soak import compile_firmware, micropython
    tmp = tempfile.mkdtemp(prefix="nardy-appbench-")
    try:
        lib = os.path.dirname(compile_firmware(os.path.join(tmp, "fw"))[0])
        pinmap = os.path.join(ROOT, "firmware", "pinmap", "esp32s3.json")
        runs = []
        # one roll for every run (white's first turn), so that each scan of the
        # warm-up after it is the same work in every run
        # (NARDY_BENCH_DICE=A,B names it: old and new code compared on the same)
        a, b = random.randint(1, 6), random.randint(1, 6)
        if os.environ.get("NARDY_BENCH_DICE"):
            a, b = (int(x) for x in os.environ["NARDY_BENCH_DICE"].split(","))
        for k in range(RUNS):
            data = os.path.join(tmp, "data%d" % k)
            os.mkdir(data)
            cmd = [micropython(), "-X", "heapsize=" + HEAP,
                   os.path.join(ROOT, "bench", "app_bench_mp.py"), lib, pinmap, data,
                   "%d,%d" % (a, b)]
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
            if r.returncode:
                sys.exit("app benchmark failed:\n" + r.stdout + r.stderr)
            runs.append(json.loads(r.stdout.strip().splitlines()[-1]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    # Best of RUNS fresh processes for every time (a shared machine only ever adds
    # time); the rest from the run with the fastest steady cycle.
    d = dict(min(runs, key=lambda x: x["cycle_us"]))
    for key in d:
        if key.endswith("_us"):
            d[key] = min(x[key] for x in runs)
    # the warm-up: each scan's best of the runs, then the longest of those (the
    # worst of a run's few scans is mostly whichever the OS interrupted)
    each = [min(s) for s in zip(*(x["warmup_each"] for x in runs))]
    d["warmup_best_max_us"] = max(each)
    shown = ["micropython" if c == cmd[0] else c for c in cmd]
    shown = [os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in shown]
    print("## Firmware app on the virtual board (%d channels), x%d ESP32 projection, "
          "best of %d runs" % (d["channels"], FACTOR, RUNS))
    print("$ .venv/bin/python bench/app_bench.py   (runs: %s)" % " ".join(
        shown[:4] + ["MPYDIR", shown[5], "DATADIR", shown[7]]))

    def row(name, us, goal, extra_ms=0.0, note=""):
        proj = us * FACTOR / 1000.0 + extra_ms
        mark = ""
        if goal is not None:
            mark = "  goal <= %g ms: %s" % (goal, "ok" if proj <= goal else "OVER")
        print("%-44s %9.1f us unix -> %8.1f ms ESP32%s%s" % (name, us, proj, mark, note))

    row("boot to ready (imports, App, boot)", d["boot_us"], 2000.0)
    row("  of which imports (.mpy from the filesystem)", d["import_us"], None)
    row("boot resuming an unfinished game", d["resume_us"], 2000.0,
        note="  (App + boot, no imports)")
    row("cycle, steady state (mean)", d["cycle_us"], 25.0, ADC_MS,
        "  (incl. +%.1f ms ADC)" % ADC_MS)
    row("cycle, steady state (worst of 500)", d["cycle_max_us"], 25.0, ADC_MS,
        "  (incl. +%.1f ms ADC)" % ADC_MS)
    row("cycle, worst of 500, no GC inside", d["cycle_max_nogc_us"], 25.0, ADC_MS,
        "  (incl. +%.1f ms ADC)" % ADC_MS)
    row("one gc.collect() (heap after boot)", d["gc_us"], None)
    print("steady-state cycle allocates %.0f bytes (with 0 the collector never runs in a "
          "still turn);\nthe worst of 500 was cycle #%d; the \"no GC inside\" row times the "
          "cycles with a\ncollection before each. Single worst cycles on a shared machine "
          "include the OS's\nscheduling: repeat the run before reading much into them."
          % (d["cycle_alloc_bytes"], d["cycle_max_i"]))
    row("cycle after the roll (targets asked ahead)", d["warmup_max_us"], 25.0, ADC_MS,
        "  (worst of %d scans, %d-%d)" % ((d["warmup_scans"],) + tuple(d["dice"])))
    row("  the same, each scan's best of %d runs" % RUNS, d["warmup_best_max_us"], 25.0,
        ADC_MS, "  (the longest of those)")
    row("UI pass (LED frame, unchanged OLED)", d["ui_us"], None)
    for k in ("lift_cold", "lift_warm", "lift_head"):
        row("lit-targets cycle (%s): scan + LED frame" % k.split("_")[1], d[k + "_us"],
            None, ADC_MS, "  (incl. +%.1f ms ADC)" % ADC_MS)
    # From the hand: the lift lands just after the scan read that slot (the worst
    # phase): the rest of that cycle and the cycles the lights wait for (a whole
    # steady cycle each, ADC included), then the cycle that lights them.
    period = d["cycle_us"] * FACTOR / 1000.0 + ADC_MS
    for k in ("lift_cold", "lift_warm", "lift_head"):
        waited = d[k + "_scans"] - 1
        lit = d[k + "_us"] * FACTOR / 1000.0 + ADC_MS
        worst = period + waited * period + lit
        print("%-44s %9s    %s %8.1f ms ESP32  goal <= 60 ms: %s  (worst phase: %.1f + "
              "%d x %.1f + %.1f)" % ("lift -> lit targets, from the lift (%s)"
                                     % k.split("_")[1], "", "  ", worst,
                                     "ok" if worst <= 60 else "OVER", period, waited,
                                     period, lit))
    print("lift: the lights come on the first scan that shows the lift (%d scan(s) after"
          "\nit; the sensing's debounce, which the tracker's own lift waits for, is %d"
          "\nscans more) and go out if the reading returns; the lighting cycle draws the"
          "\nLED frame itself (App.cycle), not the UI task at its next look."
          % (d["lift_cold_scans"], d["lift_cold_debounce_scans"]))
    print("head: long nardy's first lift, one checker off the 15 on the head (no slot's"
          "\nclass changes: the stack watch reads it in the raw readings), %d scan(s)"
          % d["lift_head_scans"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
