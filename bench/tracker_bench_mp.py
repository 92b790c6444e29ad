"""Measured inside the unix MicroPython port by bench/tracker_bench.py (not run alone).

Prints one JSON line: microseconds per steady-state cycle (one 128-channel scan
through sensing and the tracker), and for a lift the processing time of the scan
that completes it (sensing + tracker up to the offered targets), cold (first lift of
the turn: the engine is asked) and warm (asked before), and for a placement.
"""

import gc
import json
import sys
import time
from array import array

sys.path.insert(0, sys.argv[1] if len(sys.argv) > 1 else "firmware")

from nardy.calibration import Calibration, model_defaults  # noqa: E402
from nardy.sensing import Sensing  # noqa: E402
from nardy.shortnardy import ShortNardy  # noqa: E402
from nardy.tracker import Tracker  # noqa: E402
from nardy.zones import Layout  # noqa: E402

PERIOD = 20


def readings(v, lay, cal, pos, raw):
    """Ideal raw counts for a position: checkers row first, then on top."""
    b, w1, w2, k1, k2 = cal.default
    for ch in range(lay.n):
        raw[ch] = b
    for c in (0, 1):
        for k in range(26):
            n = pos.board[26 * c + k]
            if not n:
                continue
            if k == 0:
                z = 25
            elif k == 25:
                z = 26 + c
            else:
                z = v.physical(c, k)
            size = lay.size(z)
            first = lay.start[z]
            if z == 25:
                size //= 2
                first += c * size
            h = [0] * size
            for i in range(n):
                h[i % size] += 1
            for s in range(size):
                if h[s]:
                    if c == 0:
                        raw[first + s] = w1 if h[s] == 1 else w2
                    else:
                        raw[first + s] = k1 if h[s] == 1 else k2


def settled(v, lay, cal, pos):
    """Sensing that has seen ``pos`` for 20 scans: (sensing, raw buffer, time)."""
    sens = Sensing(lay, cal, stable_ms=100)
    raw = array("H", [0] * lay.n)
    readings(v, lay, cal, pos, raw)
    now = 0
    for _ in range(20):
        now += PERIOD
        sens.scan(raw, now)
    sens.ready(now)
    return sens, raw, now


def wobble(sens, trk, raw, now, n=2000):
    """The steady state: a one-count wobble on every channel, as ADC noise does, for
    ``n`` cycles of scan, sensing and tracker. (us per cycle, bytes allocated, the
    clock after)."""
    gc.collect()
    mem0 = gc.mem_alloc()
    t0 = time.ticks_us()
    for i in range(n):
        raw[i & 127] ^= 1
        now += PERIOD
        sens.scan(raw, now)
        if sens.ready(now):
            trk.update(sens, now)
        trk.tick(sens, sens.still_ms(now))
    t1 = time.ticks_us()
    alloc = gc.mem_alloc() - mem0     # before the float below is made
    return time.ticks_diff(t1, t0) / n, alloc, now


def main():
    v = ShortNardy()
    lay = Layout(5)
    cal = Calibration(lay.n, model_defaults(5))
    trk = Tracker(v, lay)
    pos = v.start_position()
    sens, raw, now = settled(v, lay, cal, pos)
    dice = (6, 5)
    trk.start_turn(pos, dice, sens)

    def cycle():
        nonlocal now
        now += PERIOD
        sens.scan(raw, now)
        if sens.ready(now):
            trk.update(sens, now)
        trk.tick(sens, sens.still_ms(now))

    for _ in range(100):
        cycle()
    steady, steady_alloc, now = wobble(sens, trk, raw, now)

    def timed_until(cond, limit=40):
        """CPU time of the scan in which cond() becomes true."""
        for _ in range(limit):
            t = time.ticks_us()
            cycle()
            dt = time.ticks_diff(time.ticks_us(), t)
            if cond():
                return dt
        return -1

    # lift one of white's two back checkers (P24, slot 2), put it back; again with a
    # fresh turn (cold: the engine is asked for the targets) and within the turn (warm)
    ch = lay.channel(24, 2)
    level = raw[ch]
    empty = cal.default[0]
    cold = []
    warm = []
    place = []
    dst = lay.channel(18, 1)
    for _ in range(7):
        raw[ch] = level
        raw[dst] = empty
        timed_until(lambda: not trk.lifted and not trk.played)
        trk.start_turn(pos, dice, sens)
        raw[ch] = empty
        cold.append(timed_until(lambda: trk.targets))
        raw[ch] = level
        timed_until(lambda: not trk.lifted)
        raw[ch] = empty
        warm.append(timed_until(lambda: trk.targets))
        # place it on P18 (one six): the step is committed
        raw[dst] = cal.default[1]
        place.append(timed_until(lambda: trk.played))
    out = {}
    cold.sort()
    warm.sort()
    place.sort()
    out["lift_cold_us"] = cold[len(cold) // 2]
    out["lift_warm_us"] = warm[len(warm) // 2]
    out["place_us"] = place[len(place) // 2]
    out["targets"] = sorted(trk.targets) if trk.targets else []
    out["steady_us"] = steady
    out["steady_alloc_bytes"] = steady_alloc
    out["played"] = [list(s) for s in trk.played]
    out["press_head_us"], out["press_head_dice"] = press_on_a_full_head()
    out["steady_head_us"], out["steady_head_alloc_bytes"] = steady_with_head_watch()
    print(json.dumps(out))


def steady_with_head_watch():
    """Long nardy's start: the head (15, of which the slots show 10) is watched for
    lifts in the raw readings (ZoneFit._watch_scan) on every cycle. (us per cycle, bytes
    allocated over 2000 cycles); a one-count wobble must never look like a lift."""
    from nardy.longnardy import LongNardy
    v = LongNardy()
    lay = Layout(5)
    cal = Calibration(lay.n, model_defaults(5))
    pos = v.start_position()
    sens, raw, now = settled(v, lay, cal, pos)
    trk = Tracker(v, lay)
    trk.start_turn(pos, (6, 5), sens)
    assert trk._watch_zone == 24
    for _ in range(100):
        now += PERIOD
        sens.scan(raw, now)
        trk.tick(sens, sens.still_ms(now))
    us, alloc, now = wobble(sens, trk, raw, now)
    assert not trk.events and not trk.lifted, trk.events
    return us, alloc


def press_on_a_full_head():
    """Long nardy's start: 15 checkers on the head, of which a point shows 10. The
    mover presses the button with nothing seen moved: the tracker searches every way
    steps could have gone out of view before it gives its verdict. Worst over dice."""
    from nardy.longnardy import LongNardy
    v = LongNardy()
    lay = Layout(5)
    cal = Calibration(lay.n, model_defaults(5))
    worst = (0, None)
    for dice in ((6, 6), (5, 5), (4, 4), (3, 3), (2, 2), (1, 1), (6, 5), (2, 1)):
        best = None
        for _ in range(3):
            # best of 3: one press is a few ms, which a busy machine's scheduler
            # can multiply tenfold
            pos = v.start_position()
            sens = settled(v, lay, cal, pos)[0]
            trk = Tracker(v, lay)
            trk.start_turn(pos, dice, sens)
            gc.collect()
            t0 = time.ticks_us()
            trk.end_turn(sens)
            us = time.ticks_diff(time.ticks_us(), t0)
            if best is None or us < best:
                best = us
        if best > worst[0]:
            worst = (best, list(dice))
    return worst


main()
