"""``nardy judge NET [NET ...]``: what each short-nardy net's choices lose, by a
deeper gnubg (host only; a yardstick for training runs, issue 25).

A duel against gnubg 0-ply resolves 0.01 points a game only over some 24,000 games
(``docs/ENGINE.md``). The judge asks a sharper question of far fewer games:

- The first NET (the board's chooser, ``duel.HostBot.pick``: the pre-filter, then
  the net) plays gnubg-nn 0-ply in short nardy; it moves first in the even games.
  Game g's dice are ``random.Random(seed * 1000003 + g)``'s, so ``--workers``
  changes nothing but the time.
- On each of its turns with more than one result, every NET's pick and gnubg
  0-ply's own are rated by gnubg-nn at ``--ply`` (default 2: a far stronger player
  than the 0-ply the duel meets). A pick's loss is its equity less that of gnubg's
  own choice at that ply (the best of ``best_move``'s candidates: its move filter
  keeps 0-ply's best few). A pick its filter dropped that the ply rates better
  gains (a loss below 0): rare, and each net's figure stays its own whatever nets
  are judged beside it.
- Every net is rated on the same turns, so a difference between two nets is paired:
  its standard error is a fraction of either figure's.

What it measures is the choices, by gnubg at ``--ply``, not the games: a proxy for a
duel, calibrated against 24,000-game duels in ``docs/ENGINE.md``. gnubg 0-ply's own
loss on the same turns is the line to cross: a net that loses less a turn than it
chooses better than the opponent the issue's goal names.

>>> j = judge([weights_path("short")], games=1, seed=3, ply=0)
>>> j["turns"] > 0, j["gnubg0"]["loss"]      # at ply 0, gnubg 0-ply's pick is the best
(True, 0.0)
"""

import json
import random

from nardy_host.duel import (
    DuelError,
    HostBot,
    standard_error,
    weights_path,  # noqa: F401 (the example's)
)
from nardy_host.errors import UserError

PLIES = (0, 1, 2)
# gnubg-nn's classes of a position (``classify``): its evaluators' kinds
CLASSES = {1: "bear-off", 2: "bear-off", 3: "race", 4: "crashed", 5: "contact"}


def _gnubg():
    try:
        import gnubg_nn
    except ImportError:
        raise DuelError("the judge needs gnubg-nn (pip install gnubg-nn)") from None
    return gnubg_nn


def _bots(paths):
    from nardy.evaluate import Net
    from nardy.netfile import WeightsError
    from nardy.shortnardy import ShortNardy
    bots = []
    for p in paths:
        try:
            bots.append(HostBot(ShortNardy(), Net(p, "short")))
        except (OSError, WeightsError) as e:
            raise DuelError("%s: %s" % (p, e)) from None
    return bots


def results_of(board, d1, d2):
    """The results of a roll as gnubg's boards [mover, opponent] (the opponent is to
    move in each: ``distill``'s orientation), or None when one bears off the last
    checker (the game ends; nothing to judge). An empty list: no legal step (C6)."""
    gnubg_nn = _gnubg()
    after = []
    for key in gnubg_nn.moves(board, d1, d2):
        opp, me = gnubg_nn.boardfromkey(key)
        if sum(me) == 0:
            return None
        after.append([list(me), list(opp)])
    return after


def rate_turn(board, d1, d2, after, picks, ply):
    """The losses of ``picks`` (indices into ``after``, ``results_of``' list), and of
    gnubg 0-ply's own pick after them, by gnubg at ``ply``: each one's equity less
    that of gnubg's choice at ``ply`` (at ply 0, the best result; above, the best of
    its move filter's candidates, so that a pick the filter dropped may gain).
    Returns (losses, gnubg 0-ply's index)."""
    from nardy_host.distill import equity
    gnubg_nn = _gnubg()
    eq0 = [equity(gnubg_nn.probabilities(a, 0)) for a in after]
    g0 = min(range(len(after)), key=eq0.__getitem__)
    # the after-positions' equities for the side then to move: lower is better for us
    if ply == 0:
        rated = dict(enumerate(eq0))
        best = eq0[g0]
    else:
        index = {(tuple(a[0]), tuple(a[1])): i for i, a in enumerate(after)}
        rated = {}
        # best_move's list keys are [mover, opponent] boards, as ``after`` holds them
        for key, _, probs, _ in gnubg_nn.best_move(board, d1, d2, ply, list=1)[1]:
            rated[index[tuple(map(tuple, gnubg_nn.boardfromkey(key)))]] = equity(probs)
        best = min(rated.values())
        for i in set(picks) | {g0}:
            if i not in rated:
                rated[i] = equity(gnubg_nn.probabilities(after[i], ply))
    return [rated[i] - best for i in list(picks) + [g0]], g0


def _judge_games(job):
    """Games ``lo`` .. ``hi - 1``: one row per judged turn, each net's loss, then gnubg
    0-ply's, then gnubg's class of the position (``classify``)."""
    import numpy as np

    from nardy_host.distill import START, counts_of, equity
    paths, seed, ply, lo, hi = job
    gnubg_nn = _gnubg()
    bots = _bots(paths)
    rows = []
    for game in range(lo, hi):
        dice = random.Random(seed * 1000003 + game)
        board = [list(START), list(START)]
        ours = game % 2 == 0
        while True:
            d1, d2 = dice.randint(1, 6), dice.randint(1, 6)
            after = results_of(board, d1, d2)
            if after is None:
                break
            if not after:                   # C6: the turn passes
                board, ours = [board[1], board[0]], not ours
                continue
            if len(after) == 1:
                pick = 0
            elif ours:
                counts = np.array([counts_of(a) for a in after], np.int64)
                picks = [b.pick(counts) for b in bots]
                losses, _ = rate_turn(board, d1, d2, after, picks, ply)
                rows.append(losses + [gnubg_nn.classify(board)])
                pick = picks[0]
            else:
                eq0 = [equity(gnubg_nn.probabilities(a, 0)) for a in after]
                pick = min(range(len(after)), key=eq0.__getitem__)
            board, ours = after[pick], not ours
    return rows


def _figure(values):
    """The mean of ``values`` and its standard error, rounded for the report."""
    return round(sum(values) / len(values), 6), round(standard_error(values), 6)


def judge(paths, games, seed, ply=2, workers=1):
    """Judge the nets of ``paths`` (weights files; the first one plays) over
    ``games`` games. Returns {"games", "turns", "ply", "classes": {gnubg's class of
    the position: turns}, "nets": [{"net", "loss", "se", "vs_first", "vs_first_se",
    "by_class": {class: loss a turn}}], "gnubg0": {the same for gnubg 0-ply's own
    picks}}.
    The same arguments give the same figures, whatever ``workers``."""
    if not paths:
        raise DuelError("name at least one weights file")
    if games < 1 or workers < 1:
        raise DuelError("--games and --workers must be at least 1")
    if ply not in PLIES:
        raise DuelError("--ply is one of %s" % ", ".join(map(str, PLIES)))
    _gnubg()
    _bots(paths)                        # a bad file fails here, before any game
    workers = min(workers, games)
    cuts = [games * k // workers for k in range(workers + 1)]
    jobs = [(list(paths), seed, ply, cuts[k], cuts[k + 1]) for k in range(workers)]
    if workers == 1:
        parts = [_judge_games(jobs[0])]
    else:
        import multiprocessing
        with multiprocessing.Pool(workers) as pool:
            parts = pool.map(_judge_games, jobs)
    rows = [r for part in parts for r in part]
    if not rows:
        raise DuelError("no turn to judge in %d games" % games)
    kinds = [CLASSES.get(r[-1], "other") for r in rows]
    classes = {}
    for kind in kinds:
        classes[kind] = classes.get(kind, 0) + 1
    out = {"games": games, "turns": len(rows), "ply": ply, "classes": classes, "nets": []}
    names = list(paths) + ["gnubg 0-ply"]
    for k, name in enumerate(names):
        loss, se = _figure([r[k] for r in rows])
        diff, diff_se = _figure([r[k] - r[0] for r in rows])
        by_class = {c: round(sum(r[k] for r, kind in zip(rows, kinds) if kind == c) / n, 6)
                    for c, n in classes.items()}
        entry = {"net": name, "loss": loss, "se": se, "vs_first": diff,
                 "vs_first_se": diff_se, "by_class": by_class}
        if k < len(paths):
            out["nets"].append(entry)
        else:
            out["gnubg0"] = entry
    return out


def register(sub):
    p = sub.add_parser("judge", help="rate short-nardy nets' choices by a deeper gnubg "
                                     "(host only; a sharper yardstick than a duel)")
    p.add_argument("nets", nargs="+", metavar="NET",
                   help="short weights files; the first plays gnubg 0-ply")
    p.add_argument("--games", type=int, default=400)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--ply", type=int, default=2, choices=PLIES,
                   help="gnubg's ply for the ratings (default 2)")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="play the games in N processes (the same figures)")
    p.add_argument("--json", action="store_true", help="only the JSON line")
    p.set_defaults(func=run)


def run(args):
    try:
        r = judge(args.nets, args.games, args.seed, args.ply, args.workers)
    except DuelError as e:
        raise UserError(str(e)) from None
    if not args.json:
        print("%d games, %d turns of %s against gnubg 0-ply (seed %d); each pick's loss "
              "a turn by gnubg %d-ply:" % (r["games"], r["turns"], args.nets[0],
                                           args.seed, r["ply"]))
        for e in r["nets"] + [r["gnubg0"]]:
            print("  %-44s %.5f ± %.5f   against the first %+.5f ± %.5f" % (
                e["net"], e["loss"], e["se"], e["vs_first"], e["vs_first_se"]))
        order = sorted(r["classes"], key=r["classes"].get, reverse=True)
        print("by gnubg's class of the position (turns): " + ", ".join(
            "%s %d" % (c, r["classes"][c]) for c in order))
        for e in r["nets"] + [r["gnubg0"]]:
            print("  %-44s %s" % (e["net"], "  ".join(
                "%s %.5f" % (c, e["by_class"][c]) for c in order)))
    print(json.dumps(r))
