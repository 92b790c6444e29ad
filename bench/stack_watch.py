"""The stack watch in self-play: the lifts it shows, and the false ones.

    .venv/bin/python bench/stack_watch.py [--games 30] [--noise 8] [--seed 1000]

Plays long-nardy games on the emulated board (``nardy selfplay``'s hands, magnets,
sensor offsets and ADC noise) and counts the lifts off a stack the slots cannot
resolve (``Tracker._stack_lift``, seen only in the raw readings, as long nardy's
head early on): how many were shown, and how many of them while no checker of the
mover was off that stack (a false light). docs/sensing-and-tracking.md quotes it.
"""

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "firmware"), os.path.join(ROOT, "host_tools")]

import nardy  # noqa: E402,F401  (the MicroPython shims)
from nardy.longnardy import LongNardy  # noqa: E402
from nardy.tracker import Tracker  # noqa: E402
from nardy_host import selfplay  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=30)
    ap.add_argument("--noise", type=float, default=8.0, help="ADC noise, counts rms")
    ap.add_argument("--seed", type=int, default=1000, help="the first game's seed")
    args = ap.parse_args(argv)
    shown = []
    false = []
    game = None
    lift = Tracker._stack_lift

    def counted(t):
        n = len(t.events)
        lift(t)
        if len(t.events) > n and t.events[-1][0] == "lift" and t.events[-1][1]:
            z = t.events[-1][1][0]
            on_stack = t.position.board[26 * t.mover + t._pp[t.mover][z]]
            shown.append(z)
            if game.rig.board.count(z, t.mover) >= on_stack:
                false.append((game.seed, z, game.rig.t))

    Tracker._stack_lift = counted
    stats = selfplay.Stats()
    try:
        for g in range(args.games):
            game = selfplay.Game(LongNardy(), args.seed + g, args.noise, 0.0, 0.0, 5, stats)
            game.play()
    finally:
        Tracker._stack_lift = lift
    print("long nardy, %d games (seeds %d..), noise %g: %d turns, %d stack lifts shown, "
          "%d false %s; desyncs %d, false warnings %d"
          % (args.games, args.seed, args.noise, stats.turns, len(shown), len(false),
             false[:5], stats.desyncs, stats.false_warnings))
    return 1 if false else 0


if __name__ == "__main__":
    sys.exit(main())
