"""Monte Carlo of board builds: how many boards, built and calibrated, classify every
slot right.

Each build draws its sensors and its 30 checkers from ``nardy_host.magnet.SPREAD``
(``physical.Build``), is calibrated by the board's own guided procedure run on the
emulation (``physical.calibrate``: the empty board, a white checker on every slot,
every checker on the reference slot), and is then checked:

- every slot, alone on the board: empty, one and two of each colour, and three of each
  (must read "two or more"), each time with checkers drawn at random from the build's
  own and put off-centre like a hand does;
- ``--positions`` game positions from random play of long and short nardy, every
  checker of the build on the board: every slot must read its stack (crosstalk of all
  the others included).

A slot "classifies right" when its noiseless reading lies in the right class by at
least the board's hysteresis (what the sensing needs to enter that class), so ADC
noise up to the hysteresis cannot flip it. The figure is the fraction of builds with
no wrong slot at all.

    python -m nardy_host.buildspread --builds 10000        # (pypy3 runs it 5x faster)
"""

import argparse
import json
import math
import random
import sys
import time
from array import array

from nardy.longnardy import LongNardy
from nardy.rules import BLACK, WHITE
from nardy.scoring import game_result
from nardy.sensing import Sensing
from nardy.shortnardy import ShortNardy
from nardy.zones import NZONES, Layout
from nardy_host.magnet import MagnetModel, internal_adc_model, spread
from nardy_host.physical import Build, PhysBoard, calibrate


def positions(k, seed):
    """k positions from random play, half long and half short, with the zone of
    every path point (for ``PhysBoard.set_position``)."""
    from nardy.game import zone_of
    rng = random.Random(seed)
    out = []
    for i in range(k):
        v = LongNardy() if i % 2 == 0 else ShortNardy()
        zt = [[zone_of(v, c, kk) for kk in range(26)] for c in (WHITE, BLACK)]
        pos = v.start_position()
        for _ in range(rng.randrange(0, 60)):
            turns = v.legal_turns(pos, (rng.randint(1, 6), rng.randint(1, 6)))
            pos = rng.choice(turns)[1]
            if game_result(v, pos) is not None:
                break
        out.append((v, pos, zt))
    return out


def _class(r, t, ch, h):
    """Class of reading r on channel ch and whether it clears its boundaries by h."""
    t0, t1, t2, t3 = t[4 * ch], t[4 * ch + 1], t[4 * ch + 2], t[4 * ch + 3]
    if r >= t3:
        return 2, r - t3 >= h
    if r >= t2:
        return 1, r - t2 >= h and t3 - 1 - r >= h
    if r >= t1:
        return 0, r - t1 >= h and t2 - 1 - r >= h
    if r >= t0:
        return -1, r - t0 >= h and t1 - 1 - r >= h
    return -2, t0 - 1 - r >= h


def check_build(model, lay, seed, pos_list, noise=8.0, drift=None):
    """Failures of one build: a list of (kind, channel, want, got)."""
    rng = random.Random(seed)
    build = Build(model, lay.n, rng)
    board = PhysBoard(lay, model, noise=noise, rng=rng, build=build)
    cal, faults = calibrate(board, rng, lay.slots)
    board.noise = 0.0
    # played at another sensor-rail level than calibrated (moves the fallback
    # build's readings only: the MCP3208's reference is that rail)
    build.draw_supply(rng, drift)
    board._clean = None
    t = cal.thresholds()
    h = cal.hysteresis
    bad = []
    if any(faults[k] for k in ("dead", "gain", "missing")):
        bad.append(("calibration", -1, 0, faults))
    for ch in range(lay.n):
        if ch in cal.dead:
            continue
        z = lay.zone[ch]
        slot = ch - lay.start[z]
        for colour in (WHITE, BLACK):
            sign = 1 if colour == WHITE else -1
            board.hand[colour].sort(key=lambda _: rng.random())
            for n in (1, 2, 3):
                board.put_at(z, slot, colour)
                r = board.read()[ch]
                want = sign * min(n, 2)
                got, clear = _class(r, t, ch, h)
                if got != want or not clear:
                    bad.append(("slot", ch, want, got))
            for _ in range(3):
                board.take_at(z, slot)
        got, clear = _class(board.read()[ch], t, ch, h)
        if got != 0 or not clear:
            bad.append(("empty", ch, 0, got))
    for v, pos, zt in pos_list:
        for c in (WHITE, BLACK):
            board.hand[c].sort(key=lambda _: rng.random())
        board.set_position(v, pos, zt)
        raw = board.read()
        # the firmware's sensing, crosstalk compensation included, settles on it
        sens = Sensing(lay, cal, stable_ms=20)
        for i in range(12):
            sens.scan(raw, 20 * i)
        xt = sens.xt
        for zone in range(1, NZONES):
            for s, st in enumerate(board.stacks[zone]):
                ch = lay.start[zone] + s
                if ch in cal.dead:
                    continue
                want = 0
                if st:
                    want = (1 if st[0] == WHITE else -1) * min(len(st), 2)
                got, clear = _class(raw[ch] - xt[ch], t, ch, h)
                if got != want or not clear or sens.slot_class(ch) != want:
                    bad.append(("position", ch, want, got))
        board.clear()
    return bad


def channel_sigmas(n, rng, quiet=False):
    """Each channel's noise in counts rms: its sensor's (``sensor_noise``, a typical
    figure: 0.5-1.5 times it; ``quiet``: every sensor at half of it, the worst case
    for the stuck check) and the ADC's (``adc_noise``), independent."""
    s_sens = spread("sensor_noise")[1]
    s_adc = spread("adc_noise")[1]
    out = []
    for _ in range(n):
        f = 0.5 if quiet else rng.uniform(0.5, 1.5)
        out.append(math.sqrt((f * s_sens) ** 2 + s_adc * s_adc))
    return out


def selftest_stats(clean, sigma, scans, rng, faults=None):
    """Per-channel (lo, hi, mean) of ``scans`` scans of the empty board as the ADC
    codes them: round(reading + noise), the noise before the quantisation. ``faults``
    {channel: ("stuck", value) | ("dead", value) | ("noisy", sd)}."""
    n = len(clean)
    faults = faults or {}
    lo = array("H", [4095] * n)
    hi = array("H", [0] * n)
    acc = [0] * n
    for _ in range(scans):
        for ch in range(n):
            f = faults.get(ch)
            if f is not None and f[0] in ("stuck", "dead"):
                r = f[1]
            else:
                sd = f[1] if f is not None else sigma[ch]
                r = int(math.floor(clean[ch] + rng.gauss(0.0, sd) + 0.5))
                r = 0 if r < 0 else 4095 if r > 4095 else r
            acc[ch] += r
            if r < lo[ch]:
                lo[ch] = r
            if r > hi[ch]:
                hi[ch] = r
    mean = array("H", [(a + scans // 2) // scans for a in acc])
    return lo, hi, mean


def check_selftest(model, lay, seed, scans, quiet=False):
    """The self-test's channel verdicts (``nardy.selftest.channel_faults``) on one
    build, calibrated, with the parts' own noise: (faults named on the healthy
    board, injected faults it missed). Injected: a channel frozen at its reading
    (stuck), one at a rail (dead), one with 20 counts rms of noise (noisy)."""
    from nardy.selftest import channel_faults
    rng = random.Random(seed)
    build = Build(model, lay.n, rng)
    board = PhysBoard(lay, model, noise=8.0, rng=rng, build=build)
    cal, _faults = calibrate(board, rng, lay.slots)
    board.clear()
    clean = board._readings(board.field)
    sigma = channel_sigmas(lay.n, rng, quiet)
    lo, hi, mean = selftest_stats(clean, sigma, scans, rng)
    false = channel_faults(lo, hi, mean, cal)
    chans = rng.sample(range(lay.n), 3)
    inject = {chans[0]: ("stuck", int(clean[chans[0]] + 0.5)),
              chans[1]: ("dead", rng.choice((0, 4095))),
              chans[2]: ("noisy", 20.0)}
    lo, hi, mean = selftest_stats(clean, sigma, scans, rng, inject)
    named = {(kind, ch) for kind, ch, _ in channel_faults(lo, hi, mean, cal)}
    want = {("stuck", chans[0]), ("rail", chans[1]), ("noisy", chans[2])}
    return false, sorted(want - named)


def main_selftest(args, model, lay):
    from nardy.selftest import SCANS
    scans = args.scans or SCANS
    t0 = time.time()
    falses = 0
    misses = 0
    kinds = {}
    for b in range(args.builds):
        false, missed = check_selftest(model, lay, args.seed * 1000003 + b, scans,
                                       args.quiet)
        falses += 1 if false else 0
        misses += 1 if missed else 0
        for kind, _ch, _d in false:
            kinds["false " + kind] = kinds.get("false " + kind, 0) + 1
        for kind, _ch in missed:
            kinds["missed " + kind] = kinds.get("missed " + kind, 0) + 1
    res = {"adc": args.adc, "builds": args.builds, "scans": scans, "quiet": args.quiet,
           "healthy_flagged": falses, "injected_missed": misses, "kinds": kinds,
           "seconds": round(time.time() - t0, 1)}
    if args.json:
        print(json.dumps(res))
    else:
        print("self-test, %d scans%s: %d of %d healthy builds had a channel named, "
              "%d missed an injected stuck, dead or noisy channel, %.0f s" % (
                  scans, " (quiet sensors)" if args.quiet else "", falses, args.builds,
                  misses, res["seconds"]))
        for k in sorted(kinds):
            print("  %-24s %d" % (k, kinds[k]))
    return 0 if not falses and not misses else 1


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m nardy_host.buildspread",
                                description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--builds", type=int, default=1000)
    p.add_argument("--positions", type=int, default=20,
                   help="game positions checked per build (default 20)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--adc", choices=("mcp3208", "internal"), default="mcp3208",
                   help="the reference front end, or the fallback build on the "
                        "ESP32-S3's own ADC (reference spread, clipping, supply drift)")
    p.add_argument("--noise", type=float, default=8.0,
                   help="ADC noise (counts, sd) during the calibration (default 8)")
    p.add_argument("--supply-drift", type=float, default=None, metavar="PCT",
                   help="with --adc internal: the sensor rail's drift between "
                        "calibration and play, +-PCT %% (default: magnet.SPREAD's)")
    p.add_argument("--selftest", action="store_true",
                   help="instead: the self-test's channel check on each build with the "
                        "parts' own noise (magnet.SPREAD sensor_noise, adc_noise), "
                        "healthy and with a stuck, a dead and a noisy channel")
    p.add_argument("--scans", type=int, default=0,
                   help="with --selftest: scans of the empty board (default the "
                        "self-test's own)")
    p.add_argument("--quiet", action="store_true",
                   help="with --selftest: every sensor at half its typical noise")
    p.add_argument("--json", action="store_true")
    p.add_argument("-v", "--verbose", action="store_true")
    p.add_argument("--progress", type=int, default=0, metavar="K",
                   help="every K builds, print the count so far to stderr (a long run "
                        "cut short still gives its figure)")
    args = p.parse_args(argv)
    if args.builds < 1 or args.positions < 0:
        print("buildspread: error: --builds >= 1, --positions >= 0", file=sys.stderr)
        return 2
    model = internal_adc_model(5) if args.adc == "internal" else MagnetModel()
    lay = Layout(5)
    if args.selftest:
        return main_selftest(args, model, lay)
    pos_list = positions(args.positions, args.seed)
    good = 0
    kinds = {}
    t0 = time.time()
    for b in range(args.builds):
        bad = check_build(model, lay, args.seed * 1000003 + b, pos_list, args.noise,
                          None if args.supply_drift is None else args.supply_drift / 100.0)
        if not bad:
            good += 1
        else:
            for kind, _ch, want, got in bad:
                key = "%s %s->%s" % (kind, want, got) if kind != "calibration" else kind
                kinds[key] = kinds.get(key, 0) + 1
            if args.verbose:
                print("build %d: %s" % (b, bad[:5]), file=sys.stderr)
        if args.progress and (b + 1) % args.progress == 0:
            print(json.dumps({"builds": b + 1, "good": good, "failures": kinds,
                              "seconds": round(time.time() - t0, 1)}),
                  file=sys.stderr, flush=True)
    res = {"adc": args.adc, "builds": args.builds, "good": good, "fraction": good / args.builds,
           "positions": args.positions, "failures": kinds,
           "seconds": round(time.time() - t0, 1)}
    if args.json:
        print(json.dumps(res))
    else:
        print("%s: %d of %d builds classify every slot right (%.2f %%), %d positions "
              "each, %.0f s" % (args.adc, good, args.builds, 100.0 * good / args.builds,
                                args.positions, res["seconds"]))
        for k in sorted(kinds, key=lambda k: -kinds[k])[:10]:
            print("  %-24s %d" % (k, kinds[k]))
    return 0 if good == args.builds else 1


if __name__ == "__main__":
    sys.exit(main())
