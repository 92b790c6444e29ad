"""The app's timings inside unix MicroPython (run by bench/app_bench.py).

    micropython -X heapsize=112wK bench/app_bench_mp.py LIBDIR PINMAP DATADIR [A,B]

Prints one JSON line of microseconds: boot (imports, App(), boot() on an empty
flash), resume (App() + boot() replaying an unfinished game), the steady-state
cycle (App.cycle: scan, sensing, tracker, buttons; 128 channels), the UI pass
(LED frame + OLED when nothing changed), and lift -> targets: the cycles from the
readings that show the lift to the LED frame that lights its targets (the first scan
that shows it, before the sensing's debounce: ``Sensing.early_zone``), the last of
them and how many; then how many more scans until the tracker's own lift.
A,B: the first turn's dice (white wins the opening roll), else random ones.
"""

import sys
import time

t_start = time.ticks_us()
sys.path.insert(0, sys.argv[1])

from nardy.app import App  # noqa: E402
from nardy.game import MOVE  # noqa: E402
from nardy.hal_virtual import Board  # noqa: E402

t_imported = time.ticks_us()


def sink(obj):
    pass


def settle(app, b):
    while not b.idle():
        app.cycle()


def position_readings():
    """The tests' sensor readings of a position (tests/firmware/apputil.readings)."""
    tests = __file__.rsplit("/", 2)[0] + "/tests/firmware"
    if tests not in sys.path:
        sys.path.insert(1, tests)
    from apputil import readings
    return readings


def lit_scans(app, g, b, lifted):
    """Cycles from the readings ``lifted`` on until the LEDs light targets: (that
    cycle's us, all of them, how many)."""
    t = g.tracker
    drawn = []
    show = app.show_leds

    def counted():
        drawn.append(1)
        show()
    app.show_leds = counted
    b.sense(lifted, 10 ** 8)
    scans = 0
    total = 0
    while True:
        del drawn[:]
        t1 = time.ticks_us()
        app.cycle()
        seen = bool(g.early_targets) or len(t.targets) > 0
        if seen and not drawn:
            show()             # not drawn by the cycle: the UI task's next look
        d = time.ticks_diff(time.ticks_us(), t1)
        total += d
        scans += 1
        if seen or scans > 100:
            break
    if not seen:
        raise SystemExit("no targets after a lift")
    app.show_leds = show
    return d, total, scans


def head_lift(pinmap, data):
    """Long nardy's most common first lift: one checker off the mover's head (15 on
    its 5 slots, three a slot), which changes no slot's class; only the raw readings
    of the head show it (the stack watch, nardy.zonefit). Returns lift_head_*."""
    from nardy.rules import WHITE
    from nardy.zonefit import zone_of
    readings = position_readings()
    b = Board(pinmap, data, out=sink)
    app = App(b, data)
    app.boot()
    app.handle(b'{"cmd": "new", "variant": "long", "match": 1}')
    g = app.game
    lay = app.layout
    v = g.variant
    start = readings(lay, v, g.pos)
    b.sense(start, 400)
    settle(app, b)
    app.button("ok", "short")            # opening roll
    while g.phase != MOVE:
        app.button("ok", "short")
    side = g.pos.turn
    head = zone_of(v, side, 1)
    sign = 1 if side == WHITE else -1
    # the third magnet of each slot (nardy.magnet: MagnetModel().counts of a stack of
    # three less that of two, 111 counts; docs/sensing-and-tracking.md says ~90)
    for z in (head, zone_of(v, 1 - side, 1)):
        s = 1 if z == head else -1
        for i in range(lay.size(z)):
            start[lay.start[z] + i] += sign * s * 111
    lifted = list(start)
    lifted[lay.start[head] + lay.size(head) - 1] -= sign * 111
    b.sense(start, 10 ** 8)
    for _ in range(50):                  # the watch settles, the targets asked ahead
        app.cycle()
    d, total, scans = lit_scans(app, g, b, lifted)
    app.journal.close()
    return {"lift_head_us": d, "lift_head_total_us": total, "lift_head_scans": scans}


def main(pinmap, data, dice):
    b = Board(pinmap, data, out=sink)
    app = App(b, data)
    app.boot()
    boot = time.ticks_diff(time.ticks_us(), t_start)
    # the tests' sensor readings of a position (imported after the boot is timed)
    readings = position_readings()
    # short nardy: its start has no stack too high for the slots to show a lift
    app.handle(b'{"cmd": "new", "variant": "short", "match": 1}')
    g = app.game
    lay = app.layout
    start = readings(lay, g.variant, g.pos)
    b.sense(start, 400)
    settle(app, b)
    if dice:
        g.dice_src.load([6, 1] + dice)   # the opening: white; then white's roll
    app.button("ok", "short")            # opening roll
    while g.phase != MOVE:
        app.button("ok", "short")        # roll (a pass rolls again for the other side)
    v = g.variant
    pos = g.pos
    f = None
    for steps, _ in v.legal_turns(pos, g.dice):
        if pos.count(pos.turn, steps[0][0]) <= 10:
            f = steps[0][0]
            break
    lifted = readings(lay, v, pos, hand=(pos.turn, f))
    # right after the roll the tracker asks the engine ahead, one checker a scan, for
    # the targets of every checker the mover may lift: how many scans, the longest
    b.sense(start, 10 ** 8)
    warm = []                            # each scan's us, until every checker is asked
    while g.tracker._warm_k < 25 and len(warm) < 200:
        t1 = time.ticks_us()
        app.cycle()
        warm.append(time.ticks_diff(time.ticks_us(), t1))
    # steady state: the same readings, nothing happening
    b.sense(start, 10 ** 8)
    for _ in range(50):
        app.cycle()
    n = 500
    worst = 0
    worst_i = 0
    t0 = time.ticks_us()
    for i in range(n):
        t1 = time.ticks_us()
        app.cycle()
        d = time.ticks_diff(time.ticks_us(), t1)
        if d > worst:
            worst = d
            worst_i = i
    cycle = time.ticks_diff(time.ticks_us(), t0) / n
    import gc
    gc.collect()
    t0 = time.ticks_us()
    gc.collect()
    gc_us = time.ticks_diff(time.ticks_us(), t0)
    gc.disable()
    a0 = gc.mem_alloc()
    for _ in range(n):
        app.cycle()
    alloc = (gc.mem_alloc() - a0) / n
    gc.enable()
    gc.collect()
    worst_nogc = 0
    for _ in range(n):
        gc.collect()           # a collection never lands inside the timed cycle
        t1 = time.ticks_us()
        app.cycle()
        d = time.ticks_diff(time.ticks_us(), t1)
        if d > worst_nogc:
            worst_nogc = d
    t0 = time.ticks_us()
    for _ in range(100):
        app.redraw()
    ui = time.ticks_diff(time.ticks_us(), t0) / 100
    out = {"boot_us": boot, "import_us": time.ticks_diff(t_imported, t_start),
           "cycle_us": cycle, "cycle_max_us": worst, "cycle_max_i": worst_i,
           "ui_us": ui, "channels": lay.n,
           "gc_us": gc_us, "cycle_alloc_bytes": alloc, "cycle_max_nogc_us": worst_nogc,
           "warmup_max_us": max(warm), "warmup_scans": len(warm), "warmup_each": warm,
           "dice": list(g.dice)}
    # lift -> targets, twice: the first lift of the turn, then again after putting
    # the checker back
    t = g.tracker
    for name in ("lift_cold", "lift_warm"):
        d, total, scans = lit_scans(app, g, b, lifted)
        out[name + "_us"] = d
        out[name + "_total_us"] = total
        out[name + "_scans"] = scans
        n = 0
        while not t.lifted and n < 100:
            app.cycle()
            n += 1
        out[name + "_debounce_scans"] = n
        b.sense(start, 10 ** 8)
        for _ in range(20):
            app.cycle()
        b.budget = 0
    # resume: a new App on the same flash replays the unfinished game
    app.journal.close()
    t0 = time.ticks_us()
    app2 = App(Board(pinmap, data, out=sink), data)
    app2.boot()
    out["resume_us"] = time.ticks_diff(time.ticks_us(), t0)
    out["resume_phase"] = app2.game.phase
    app2.journal.close()
    gc.collect()
    out["free_after"] = gc.mem_free()
    return out


def run():
    import gc
    dice = [int(x) for x in sys.argv[4].split(",")] if len(sys.argv) > 4 else None
    out = main(sys.argv[2], sys.argv[3], dice)
    gc.collect()                         # the first apps are gone: room for another
    out.update(head_lift(sys.argv[2], sys.argv[3]))
    print(__import__("json").dumps(out))


run()
