"""``nardy selfplay``: whole games through the physical emulation and the tracker.

Each turn a random legal turn is played by emulated hands on emulated sensors
(``nardy_host.physical``); the real firmware pipeline (sensing, tracker) follows it.
At ``--illegal RATE`` a turn is deliberately illegal instead: one illegal step (a
closed point, the head rule, a six-block, bearing off early, not entering from the
bar, a wrong distance, backwards), or a turn stopped before the dice are used up.
The opponent then accepts it (when it leaves a position a board can hold) or the
mover takes it back and plays a legal turn. ``--knock`` knocks a checker off a stack
now and then (put back after a while: out of sync meanwhile is expected, not counted);
``--faults`` makes channels dead or stuck (weaker guarantees, see
docs/sensing-and-tracking.md). ``--builds N`` plays on N boards built with the
spread of real parts (``nardy_host.magnet.SPREAD``: sensors, magnets, checkers, hands),
each calibrated once by the board's own guided procedure run on the emulation;
``--games`` games are played on each. ``--log DIR`` writes one journal per game in the
board's format (``nardy.record``).

Counts:
- desyncs: the tracker's finished turn differs from what the hands did, it could not
  finish, or it went out of sync with no knocked-over checker to blame;
- false warnings: a warning, verdict or out-of-sync in a legal turn (outside a knock);
- illegal caught / missed: injected illegal turns that got a warning (at once or at
  the end of the turn) / that the tracker let through as legal.

Exit status 1 if anything was missed or desynced (or a false warning was given).
"""

import json
import os
import random
import sys
import time

from nardy import record
from nardy.longnardy import LongNardy
from nardy.scoring import game_result, opening_winner
from nardy.shortnardy import ShortNardy
from nardy.tracker import CONFIRM, DONE, VERDICT
from nardy_host.gamefile import shared_point
from nardy_host.physical import Hands, Rig

NOISE_LEVELS = {"none": 0.0, "low": 4.0, "realistic": 8.0, "high": 12.0}


def register(subparsers):
    p = subparsers.add_parser(
        "selfplay", help="play games through the sensor emulation and the tracker",
        description="Play random games through emulated hands, magnets and hall "
                    "sensors into the real sensing and tracker code, and count what "
                    "the tracker got wrong. Exit status 1 if any turn was desynced, "
                    "falsely warned about, or illegal and let through.")
    p.add_argument("--variant", choices=("long", "short"), default="long",
                   help="long or short nardy (default long)")
    p.add_argument("--games", type=int, default=10, help="how many games (default 10)")
    p.add_argument("--seed", type=int, default=1,
                   help="random seed; game g uses seed*100003+g (default 1)")
    p.add_argument("--first", type=int, default=0, metavar="G",
                   help="start at game G (replay one game a long run reported: its "
                        "seed is seed*100003+G)")
    p.add_argument("--noise", default="realistic",
                   help="ADC noise: none, low, realistic, high, or a sigma in counts "
                        "(default realistic = 8)")
    p.add_argument("--illegal", type=float, default=0.05,
                   help="fraction of turns played illegally on purpose (default 0.05)")
    p.add_argument("--knock", type=float, default=0.01,
                   help="chance per step that a checker is knocked off a stack and put "
                        "back (default 0.01)")
    p.add_argument("--faults", type=int, default=0,
                   help="channels per game that are dead (read a rail) or stuck at a "
                        "value (default 0)")
    p.add_argument("--slots", type=int, default=5, help="sensors per point (1..6)")
    p.add_argument("--builds", type=int, default=0, metavar="N",
                   help="play --games games on each of N boards built with the parts' "
                        "spread and calibrated by the guided procedure (default 0: the "
                        "nominal model)")
    p.add_argument("--adc", choices=("mcp3208", "internal"), default="mcp3208",
                   help="with --builds: the reference MCP3208 front end, or the "
                        "fallback build on the ESP32-S3's own ADC (not ratiometric: "
                        "its reference spread, clipping and supply drift)")
    p.add_argument("--max-turns", type=int, default=400,
                   help="stop a game after this many turns")
    p.add_argument("--log", metavar="DIR", help="write each game's journal (JSON lines)")
    p.add_argument("--json", action="store_true", help="print the counts as JSON")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="print every failure as it happens")
    p.set_defaults(func=run)
    return p


def noise_sigma(text):
    if text in NOISE_LEVELS:
        return NOISE_LEVELS[text]
    try:
        v = float(text)
    except ValueError:
        raise ValueError("--noise: none, low, realistic, high or a number") from None
    if v < 0:
        raise ValueError("--noise must be >= 0")
    return v


class Stats:
    FIELDS = ("builds", "calibration_faults", "games", "turns", "desyncs", "false_warnings",
              "illegal_injected", "illegal_caught", "illegal_missed", "accepted", "knocks",
              "confirmations", "seconds")

    def __init__(self):
        for f in self.FIELDS:
            setattr(self, f, 0)
        self.failures = []

    def as_dict(self):
        d = {f: getattr(self, f) for f in self.FIELDS}
        d["seconds"] = round(self.seconds, 1)
        return d


def illegal_steps(v, pos, dice):
    """Single steps the rules forbid now (the engine says which rule)."""
    out = []
    me = 26 * pos.turn
    dists = set(dice) | {dice[0] + dice[1]}
    for f in range(0, 25):
        if not pos.board[me + f]:
            continue
        cands = set()
        for d in dists:
            cands.add(min(25, f + d))
            if f - d >= 1:
                cands.add(f - d)     # backwards
        cands.add(min(25, f + 1 + (max(dice) % 6)))   # a distance no die shows
        legal = v.targets(pos, dice, (), f)
        for t in sorted(cands):
            if t == f or t == 0 or t in legal:
                continue
            if t < 25 and pos.board[26 * (1 - pos.turn) + v.opp_point(t)] >= 5:
                continue   # no free slot left: it would have to go on top of them
            if v.step_error(pos, dice, (), (f, t)) is not None:
                out.append((f, t))
    return out


class Game:
    def _confirm_played(self, trk, truth):
        """The board cannot tell which result was played: the mover says (the
        candidate equal to what the emulated hands did)."""
        self.stats.confirmations += 1
        for i, (_, p) in enumerate(trk.candidates):
            if p.board == truth.board:
                trk.confirm(i)
                return
        trk.confirm(0)

    def __init__(self, variant, seed, noise, illegal, knock, slots, stats, log=None,
                 verbose=False, max_turns=400, faults=0, build=None, cal=None):
        self.v = variant
        self.rng = random.Random(seed)
        self.rig = Rig(variant, slots=slots, noise=noise, seed=seed + 7919, build=build,
                       cal=cal)
        self.hands = Hands(self.rig, self.rng, knock=knock)
        self.illegal = illegal
        self.stats = stats
        self.log = log
        self.verbose = verbose
        self.max_turns = max_turns
        self.seed = seed
        self.faults = faults

    def fail(self, kind, text):
        msg = "game seed %d turn %d: %s: %s" % (self.seed, self.n, kind, text)
        self.stats.failures.append(msg)
        if self.verbose:
            print(msg, file=sys.stderr)

    def write(self, rec):
        if self.log is not None:
            self.log.append(record.dumps(rec))

    # -- one turn ---------------------------------------------------------------------
    def finish(self, truth, allow_button=True):
        """End the turn: the button now and then, else let it end by itself; answer a
        request to pick between candidates. Returns the tracker's state."""
        rig = self.rig
        trk = rig.trk
        rig.settle()
        if trk.state == VERDICT:
            trk.end_turn(rig.sens)   # played on after a verdict: the button again
        elif allow_button and self.rng.random() < 0.5:
            self.hands.pause(100, 600)
            trk.end_turn(rig.sens)
        for _ in range(40):
            if trk.state == DONE:
                break
            if trk.state == CONFIRM:
                self._confirm_played(trk, truth)
                continue
            if trk.state == VERDICT:
                break
            rig.wait(250)
            if trk.state not in (DONE, VERDICT, CONFIRM) and rig.sens.still_ms(rig.t) > 2000:
                trk.end_turn(rig.sens)
        return trk.state

    def drain(self):
        self.rig.take_events()
        ev = list(self.rig.events)
        del self.rig.events[:]
        for e in ev:
            if e[0] == "step":
                self.write(record.step(self.n, e[1]))
            elif e[0] == "undo":
                self.write(record.step(self.n, e[1], undo=True))
            elif e[0] == "warn":
                self.write(record.warn(self.n, e[1], e[2], e[3]))
        return ev

    def play_turn(self, pos, dice):
        v = self.v
        rig = self.rig
        trk = rig.trk
        hands = self.hands
        self.write(record.roll(self.n, pos.turn, dice))
        del rig.events[:]
        trk.start_turn(pos, dice, rig.sens)
        plan = None
        if self.illegal and self.rng.random() < self.illegal:
            plan = self.plan_illegal(pos, dice)
        if plan is not None:
            return self.play_illegal(pos, dice, plan)
        steps, final = self.rng.choice(v.legal_turns(pos, dice))
        del rig.loud[:]
        truth = hands.play(pos, steps)
        self.finish(truth)
        self.drain()
        if rig.loud:
            self.stats.false_warnings += 1
            self.fail("false warning", "%s dice %s steps %s events %s" % (
                v.name, dice, steps, rig.loud))
        return self.conclude(pos, dice, truth, steps)

    def conclude(self, pos, dice, truth, steps, accepted=False):
        trk = self.rig.trk
        truth = truth.copy()
        truth.turn = 1 - pos.turn
        if trk.state != DONE:
            self.stats.desyncs += 1
            self.fail("desync", "tracker stuck in %s (dice %s steps %s)" % (
                trk.state_name(), dice, steps))
        elif trk.result["position"].board != truth.board:
            self.stats.desyncs += 1
            self.fail("desync", "tracker committed %s, hands played %s" % (
                trk.result["steps"], steps))
        res = trk.result or {}
        self.write(record.turn(self.v, self.n, pos.turn, dice, res.get("steps", steps),
                               truth, res.get("accepted", accepted), res.get("rule")))
        return truth

    def plan_illegal(self, pos, dice):
        v = self.v
        turns = v.legal_turns(pos, dice)
        m = max(len(s) for s, _ in turns)
        if m == 0:
            # no legal step: the board passes the turn at once (the dice are lost), so
            # a move now would be made in the opponent's turn, not an illegal turn
            return None
        kinds = []
        bad = illegal_steps(v, pos, dice)
        if bad:
            kinds.append("step")
        if m >= 1:
            kinds.append("short")
        if not kinds:
            return None
        kind = self.rng.choice(kinds)
        if kind == "step":
            return ("step", self.rng.choice(bad))
        for steps, _ in self.rng.sample(turns, min(len(turns), 8)):
            if len(steps) != m:
                continue
            cut = self.rng.randrange(m)
            p = pos
            for st in steps[:cut]:
                p = v.apply_step(p, st)
            # stopping early must leave a position no legal turn reaches
            if v.check_turn(pos, dice, p) is not None:
                return ("short", steps[:cut], steps)
        return None

    def play_illegal(self, pos, dice, plan):
        v = self.v
        rig = self.rig
        trk = rig.trk
        hands = self.hands
        self.stats.illegal_injected += 1
        played = [plan[1]] if plan[0] == "step" else list(plan[1])
        truth = hands.play(pos, played)
        hands.pause(200, 500)
        trk.end_turn(rig.sens)
        for _ in range(8):
            if trk.state in (VERDICT, DONE):
                break
            if trk.state == CONFIRM:
                self._confirm_played(trk, truth)
                continue
            rig.wait(250)
            trk.end_turn(rig.sens)
        events = self.drain()
        caught = any(e[0] in ("warn", "verdict") for e in events)
        if trk.state == DONE and trk.result["rule"] is None and not caught:
            self.stats.illegal_missed += 1
            self.fail("illegal missed", "%s dice %s plan %s events %s" % (
                v.name, dice, plan, events))
            return self.conclude(pos, dice, truth, played)
        if caught:
            self.stats.illegal_caught += 1
        else:
            self.stats.illegal_missed += 1
            self.fail("illegal missed", "no warning: %s dice %s plan %s state %s" % (
                v.name, dice, plan, trk.state_name()))
        if trk.state == VERDICT and not shared_point(v, truth) and self.rng.random() < 0.5:
            trk.accept(rig.sens)
            self.stats.accepted += 1
            self.drain()
            return self.conclude(pos, dice, truth, played, accepted=True)
        # The opponent demands a legal turn.
        if plan[0] == "short":
            rest = plan[2][len(played):]
            truth = hands.play(truth, rest)
            self.finish(truth)
            self.drain()
            return self.conclude(pos, dice, truth, plan[2])
        self.drain()
        hands.take_back(pos, played)
        rig.settle()
        steps, final = self.rng.choice(v.legal_turns(pos, dice))
        del rig.loud[:]
        truth = hands.play(pos, steps)
        self.finish(truth)
        self.drain()
        if any(e[0] in ("warn", "verdict") for e in rig.loud):
            self.stats.false_warnings += 1
            self.fail("false warning", "after take-back: dice %s steps %s events %s" % (
                dice, steps, rig.loud))
        return self.conclude(pos, dice, truth, steps)

    # -- a whole game -------------------------------------------------------------------------
    def play(self):
        v = self.v
        rig = self.rig
        rng = self.rng
        while True:
            first = opening_winner(rng.randint(1, 6), rng.randint(1, 6))
            if first is not None:
                break
        pos = v.start_position(turn=first)
        self.n = 0
        self.write(record.game(v, pos, {"seed": self.seed}))
        rig.board.set_position(v, pos, rig.trk._zt)
        raw = rig.board.read()
        for _ in range(self.faults):
            ch = rng.randrange(rig.layout.n)
            # dead: an open or shorted input reads a rail; stuck: a frozen reading
            rig.board.faults[ch] = rng.choice((0, 4095, raw[ch]))
        # boot: long enough for a stuck channel to be found
        rig.wait(rig.sens.stuck_scans * rig.period + 200)
        rig.settle()
        while True:
            res = game_result(v, pos)
            if res is not None:
                self.write(record.end(*res))
                break
            if self.n >= self.max_turns:
                break
            self.n += 1
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            pos = self.play_turn(pos, dice)
            self.stats.turns += 1
            rig.settle()
            # Re-align the emulated board with the truth if the tracker went wrong, so
            # that one failure does not cascade through the rest of the game.
        self.stats.games += 1
        self.stats.knocks += self.hands.knocks


def make_build(seed, b, slots, noise, stats, adc="mcp3208"):
    """Board b of a --builds run: drawn from the parts' spread, calibrated once by the
    guided procedure on the emulation; a calibration that names a fault fails. With
    ``adc="internal"`` (the fallback build) the sensor rail then drifts from its level
    at calibration (``supply_drift``) for all the games on that board."""
    from nardy.zones import Layout
    from nardy_host.magnet import MagnetModel, internal_adc_model
    from nardy_host.physical import Build, PhysBoard, calibrate
    rng = random.Random(seed * 7777 + b)
    lay = Layout(slots)
    model = internal_adc_model(slots) if adc == "internal" else MagnetModel(slots=slots)
    build = Build(model, lay.n, rng)
    board = PhysBoard(lay, model, noise=noise, rng=rng, build=build)
    cal, faults = calibrate(board, rng, slots)
    build.draw_supply(rng)
    bad = {k: v for k, v in faults.items() if v and k != "noisy"}
    if bad:
        stats.calibration_faults += 1
        stats.failures.append("build %d: calibration found %s" % (b, bad))
    stats.builds += 1
    return build, cal


def run(args):
    try:
        noise = noise_sigma(args.noise)
    except ValueError as e:
        print("nardy selfplay: error: %s" % e, file=sys.stderr)
        return 2
    if not 1 <= args.slots <= 6:
        print("nardy selfplay: error: --slots must be 1..6", file=sys.stderr)
        return 2
    variant = LongNardy() if args.variant == "long" else ShortNardy()
    stats = Stats()
    t0 = time.time()
    if args.log:
        os.makedirs(args.log, exist_ok=True)
    if args.builds < 0:
        print("nardy selfplay: error: --builds must be >= 0", file=sys.stderr)
        return 2
    boards = [None]
    if args.builds:
        boards = [make_build(args.seed, b, args.slots, noise, stats, args.adc)
                  for b in range(args.builds)]
    for bi, board in enumerate(boards):
        build, cal = board if board is not None else (None, None)
        for g in range(args.first, args.first + args.games):
            seed = args.seed * 100003 + g + 1000 * bi
            log = [] if args.log else None
            game = Game(variant, seed, noise, args.illegal, args.knock, args.slots, stats,
                        log, args.verbose, args.max_turns, args.faults, build, cal)
            game.play()
            if args.log:
                path = os.path.join(args.log, "%s-%d-%s%04d.jsonl" % (
                    args.variant, args.seed, "b%d-" % bi if args.builds else "", g))
                with open(path, "w") as f:
                    f.write("\n".join(log) + "\n")
    stats.seconds = time.time() - t0
    d = stats.as_dict()
    if args.json:
        print(json.dumps(d))
    else:
        print("variant %s noise %s illegal %s knock %s faults %d slots %d seed %d builds %d"
              " adc %s" % (args.variant, args.noise, args.illegal, args.knock,
                           args.faults, args.slots, args.seed, args.builds, args.adc))
        for f in Stats.FIELDS:
            print("%-17s %s" % (f, d[f]))
    for msg in stats.failures[:20]:
        print(msg, file=sys.stderr)
    bad = (stats.desyncs or stats.illegal_missed or stats.false_warnings
           or stats.calibration_faults)
    return 1 if bad else 0


def main(argv=None):
    import argparse
    parser = argparse.ArgumentParser(prog="nardy")
    sub = parser.add_subparsers()
    register(sub)
    args = parser.parse_args(["selfplay"] + list(sys.argv[1:] if argv is None else argv))
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
