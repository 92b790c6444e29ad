"""1-ply targets for the long net: the yardstick's search as its teacher (host only).

TD(lambda) self-play levelled out at 64 hidden units (docs/ENGINE.md): more games
moved neither the net's strength nor how much one roll of look-ahead adds to it. Here
the net is taught what that look-ahead says instead:

- ``label``: the net plays itself, choosing by 1-ply among its own best ``--width``
  results (``HostBot.choose_1ply``'s search, a random one of them with probability
  ``--explore``); each of those results is labelled with its 1-ply value (the
  opponent's 21 rolls, each answered by the result the net rates worst for us, or
  its last checker off: its points), for the side to move in it, in points.
- ``fit``: a float net started from a checkpoint (``--init``, e.g. v3's) takes Adam
  steps towards the labels, a share ``--rank`` of each error taken less its
  decision's mean (only differences within a roll change a choice); a tenth of the
  decisions is held out and the regret printed after each epoch: how often the net
  picks 1-ply's choice among the labelled results, and the points it loses a
  decision when it does not; and the level error, the rms of each held-out
  decision's mean error (what the rank share leaves untrained: the net's values
  themselves, which the host's analysis prints and the 1-ply search averages over
  the opponent's rolls). Writes the weights file and a checkpoint (``OUT.ckpt.npz``,
  the float weights: ``train long --init`` and ``fit --init`` take it).

  The defaults, ``--lr 1e-3 --rank 0.9``, were chosen on the held-out regret of v4's
  data from v3 (docs/training-long-v5.log): rank 0.5 at 3e-4 (v4's fit) lost 0.0084
  a decision after 6 epochs, 0.9 at 1e-3 0.0067 with the level error no worse than
  v3's (0.051 against 0.057 points); rank 1.0 lost 0.0064 but its level error grew
  to 0.155.

  A checkpoint of fewer hidden units than ``--hidden`` is widened first
  (``train.widened``: the same values, each unit split into copies that share its
  output weight): the 128-unit long net (v6) is v5 widened and fitted.

    python -m nardy_host.ply1 label --seed 501 --games 400 --workers 2 --out d.npz
    python -m nardy_host.ply1 fit --init host_tools/nardy_host/nets/long-v6.ckpt.npz \\
        --out long.bin d.npz

A game depends only on the seed, its number and the labelling net, so ``label`` gives
the same data with any ``--workers``.
"""

import argparse
import multiprocessing
import random
import sys
import time

import numpy as np

from nardy_host.features import EXTRAS, boards_of, encode, inputs_for

WIDTH = 4


def label_game(bot, seed, game, width=WIDTH, explore=0.05):
    """One self-play game of ``bot`` (a ``HostBot``): the inputs of every labelled
    result (uint8, the side to move in it), their 1-ply values for that side
    (points) and the decision each belongs to (0, 1, ... within the game). A roll
    with a single result, or one that ends the game, labels nothing."""
    v = bot.v
    rng = random.Random(seed * 1000003 + game)
    pos = v.start_position(turn=rng.randint(0, 1))
    xs, ys, gs = [], [], []
    while True:
        turns = v.legal_turns(pos, (rng.randint(1, 6), rng.randint(1, 6)))
        mover = pos.turn
        if bot._ending(turns, mover):
            break
        order = bot.best_results(turns, mover, width)
        # our expected points once the opponent has rolled and answered each result
        ev = [bot._after_reply(turns[i][1], mover) for i in order]
        if len(order) > 1:
            xs.append(encode(boards_of([turns[i][1] for i in order]), 1 - mover,
                             EXTRAS).astype(np.uint8))
            ys.extend(-e for e in ev)
            gs.extend([len(xs) - 1] * len(order))
        best = max(range(len(order)), key=lambda k: (ev[k], -k))
        pick = best if rng.random() >= explore else rng.randrange(len(order))
        pos = turns[order[pick]][1]
    x = np.concatenate(xs) if xs else np.zeros((0, inputs_for(EXTRAS)), np.uint8)
    return x, np.array(ys, np.float32), np.array(gs, np.int64)


_BOT = None


def _bot(weights):
    from nardy.evaluate import Net
    from nardy.longnardy import LongNardy
    from nardy_host.duel import HostBot
    return HostBot(LongNardy(), Net(weights, "long"))


def _label(job):
    global _BOT
    weights, seed, game, width, explore = job
    if _BOT is None:
        _BOT = _bot(weights)
    return label_game(_BOT, seed, game, width, explore)


def label(weights, seed, games, width=WIDTH, explore=0.05, workers=1):
    """``games`` labelled games (see ``label_game``), joined: decisions numbered
    across them, in game order."""
    jobs = [(weights, seed, g, width, explore) for g in range(games)]
    if workers > 1:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            parts = pool.map(_label, jobs, chunksize=1)
    else:
        bot = _bot(weights)
        parts = [label_game(bot, seed, g, width, explore) for g in range(games)]
    return join(parts)


def join(parts):
    """(x, y, g) parts into one, decision numbers made distinct."""
    xs, ys, gs, base = [], [], [], 0
    for x, y, g in parts:
        xs.append(x)
        ys.append(y)
        gs.append(g + base)
        base += int(g.max()) + 1 if len(g) else 0
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(gs)


def regret(net, x, y, g):
    """(share of decisions where ``net`` picks the best-labelled result, points lost
    a decision): the mover picks the result worst for the side then to move."""
    p = net(x.astype(np.float32))
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
    ends = np.r_[starts[1:], len(g)]
    agree, lost = 0, 0.0
    for s, e in zip(starts, ends):
        i, j = s + int(np.argmin(p[s:e])), s + int(np.argmin(y[s:e]))
        agree += i == j
        lost += float(y[i] - y[j])
    n = max(1, len(starts))
    return agree / n, lost / n


def level_error(net, x, y, g):
    """The rms over decisions of the net's mean error on a decision's results
    (points): how far its values sit from the labels' level, which no choice
    between a roll's results depends on."""
    err = net(x.astype(np.float32)) - y
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
    if not len(starts):
        return 0.0
    mean = np.add.reduceat(err, starts) / np.diff(np.r_[starts, len(g)])
    return float(np.sqrt(np.mean(mean ** 2)))


def fit(net, x, y, g, lr=1e-3, epochs=6, rank=0.9, seed=7, log=print):
    """Adam steps of ``net`` (a ``train.Mlp``) towards ``y``, 64 decisions a step; a
    tenth of the decisions (chosen by ``seed``) held out. Returns the held-out
    (agreement, regret) before and after each epoch; the log also gives the held-out
    level error (``level_error``)."""
    order = np.argsort(g, kind="stable")
    x, y, g = x[order], y[order], g[order]
    ids = np.unique(g)
    rng = np.random.default_rng(seed)
    held = np.zeros(int(ids.max()) + 1 if len(ids) else 0, bool)
    held[rng.permutation(ids)[:len(ids) // 10]] = True
    hrows = np.flatnonzero(held[g])
    starts = np.searchsorted(g, ids)
    ends = np.searchsorted(g, ids, side="right")
    train_ids = np.flatnonzero(~held[ids])
    scores = [regret(net, x[hrows], y[hrows], g[hrows])]
    log("held out %d decisions: agrees %.3f, loses %.4f a decision, level %.4f" % (
        int(held.sum()), *scores[0], level_error(net, x[hrows], y[hrows], g[hrows])))
    for ep in range(epochs):
        t0 = time.time()
        shuffled = rng.permutation(train_ids)
        for k in range(0, len(shuffled), 64):
            rows = np.concatenate([np.arange(starts[i], ends[i]) for i in shuffled[k:k + 64]])
            net.step(x[rows].astype(np.float32), y[rows], lr, groups=g[rows], rank=rank)
        scores.append(regret(net, x[hrows], y[hrows], g[hrows]))
        log("epoch %d: agrees %.3f, loses %.4f a decision, level %.4f (%.0f s)" % (
            ep + 1, *scores[-1], level_error(net, x[hrows], y[hrows], g[hrows]),
            time.time() - t0))
    return scores


def _load(paths):
    parts = []
    for p in paths:
        with np.load(p) as d:
            parts.append((d["x"], d["y"], d["g"]))
    return join(parts)


def _hidden_of(ckpt):
    from nardy_host.train import TrainError
    try:
        with np.load(ckpt) as data:
            return data["p1"].shape[0]
    except (OSError, ValueError, KeyError) as e:
        raise TrainError("cannot start from %s: %s" % (ckpt, e)) from None


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m nardy_host.ply1",
                                description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    lab = sub.add_parser("label", help="self-play games labelled by 1-ply search")
    lab.add_argument("--weights", default=None, help="the long net (default: the committed one)")
    lab.add_argument("--seed", type=int, default=1)
    lab.add_argument("--games", type=int, default=100)
    lab.add_argument("--width", type=int, default=WIDTH)
    lab.add_argument("--explore", type=float, default=0.05)
    lab.add_argument("--workers", type=int, default=1)
    lab.add_argument("--out", required=True)
    ft = sub.add_parser("fit", help="train a net from a checkpoint towards the labels")
    ft.add_argument("data", nargs="+")
    ft.add_argument("--init", required=True, help="a long net's checkpoint (.ckpt.npz)")
    ft.add_argument("--hidden", type=int, default=None,
                    help="hidden units (default: the checkpoint's; more widen it)")
    ft.add_argument("--lr", type=float, default=1e-3)
    ft.add_argument("--epochs", type=int, default=6)
    ft.add_argument("--rank", type=float, default=0.9)
    ft.add_argument("--seed", type=int, default=7)
    ft.add_argument("--out", required=True)
    args = p.parse_args(argv)
    from nardy_host.train import INPUTS, Mlp, TrainError, _start_from, fit_linear, write_weights
    try:
        if args.cmd == "label":
            from nardy_host.duel import weights_path
            t0 = time.time()
            x, y, g = label(args.weights or weights_path("long"), args.seed, args.games,
                            args.width, args.explore, args.workers)
            np.savez_compressed(args.out, x=x, y=y, g=g)
            print("%d games, %d decisions, %d results labelled, %.0f s" % (
                args.games, len(np.unique(g)), len(y), time.time() - t0))
            return 0
        x, y, g = _load(args.data)
        hidden = args.hidden or _hidden_of(args.init)
        net = Mlp(hidden, np.random.default_rng(args.seed), inputs_for(EXTRAS))
        # a checkpoint of fewer units is widened to --hidden (train.widened; its
        # noise drawn from seed 1 whatever --seed: the 128-unit net's start)
        _start_from(args.init, net, np.random.default_rng(1))
        fit(net, x, y, g, args.lr, args.epochs, args.rank, args.seed)
        xs = x.astype(np.float32)
        write_weights(args.out, "long", net, fit_linear(xs[:, :INPUTS], net(xs)))
        np.savez(args.out + ".ckpt.npz", **{"p%d" % i: q for i, q in enumerate(net.params)})
        print("wrote %s and %s.ckpt.npz" % (args.out, args.out))
        return 0
    except (TrainError, OSError, KeyError, ValueError) as e:
        print("ply1: %s" % e, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
