"""Self-play games for TD(lambda) training, over worker processes.

A game depends only on the net's weights when its batch began, the run's seed and
the game's number (its own ``random.Random``), never on which worker plays it or
when: a run gives the same weights for a seed with 1 worker or 16, and after a stop
and resume.
"""

import multiprocessing
import random

import numpy as np

from nardy.longnardy import LongNardy
from nardy.rules import CHECKERS, OFF
from nardy.scoring import game_result
from nardy_host.features import boards_of, encode


def game_rng(seed, game):
    """The game's own dice and exploration: a function of the seed and its number."""
    return random.Random(seed * 1000003 + game)


def value(params, x):
    """The float net 208(+12) -> H (ReLU) -> 1 on a batch of inputs."""
    w1, b1, w2, b2 = params
    return np.maximum(x @ w1 + b1, 0) @ w2 + b2[0]


def roll(v, pos, rng):
    """A roll of the side to move: (its legal turns, those that bear off the last
    checker: the game's end)."""
    dice = (rng.randint(1, 6), rng.randint(1, 6))
    turns = v.legal_turns(pos, dice)
    return turns, [t for t in turns if t[1].board[26 * pos.turn + OFF] == CHECKERS]


def td_game(v, params, rng, lam, explore, n_extras):
    """One self-play game, played greedily by the net over every legal result (a
    random result with probability ``explore``): the inputs of every afterstate
    (uint8) and their lambda-returns, from the final points (oin 1, mars 2)."""
    pos = v.start_position(turn=rng.randint(0, 1))
    xs, vals = [], []
    while True:
        mover = pos.turn
        turns, ends = roll(v, pos, rng)
        if ends:
            pos = ends[0][1]
            r = game_result(v, pos, True)
            xs.append(encode(boards_of([pos]), pos.turn, n_extras))
            final = -float(r[2]) if r[0] == mover else 0.0
            break
        x = encode(boards_of([t[1] for t in turns]), 1 - mover, n_extras)
        q = value(params, x.astype(np.float32))
        i = int(np.argmin(q)) if rng.random() >= explore else rng.randrange(len(turns))
        pos = turns[i][1]
        xs.append(x[i:i + 1])
        vals.append(float(q[i]))
    # lambda-returns backwards: an afterstate's value is minus its successor's (the
    # side to move alternates); the last one is the final position, valued exactly
    last = len(xs) - 1
    targets = [0.0] * len(xs)
    targets[last] = final
    for t in range(last - 1, -1, -1):
        nxt = final if t + 1 == last else (1 - lam) * vals[t + 1] + lam * targets[t + 1]
        targets[t] = -nxt
    return np.concatenate(xs).astype(np.uint8), np.array(targets, np.float32)


_V = None


def _play(job):
    global _V
    if _V is None:
        _V = LongNardy()
    params, seed, game, lam, explore, n_extras = job
    return td_game(_V, params, game_rng(seed, game), lam, explore, n_extras)


class Players:
    """Plays batches of games, in ``workers`` processes (0 or 1: in this one)."""

    def __init__(self, workers):
        self.workers = workers
        self.pool = None
        if workers > 1:
            self.pool = multiprocessing.get_context("fork").Pool(workers)

    def play(self, params, seed, first, count, lam, explore, n_extras):
        """Games ``first .. first + count - 1``, all with ``params``, in order."""
        jobs = [(params, seed, g, lam, explore, n_extras) for g in range(first, first + count)]
        if self.pool is None:
            return [_play(j) for j in jobs]
        return self.pool.map(_play, jobs, chunksize=1)

    def close(self):
        if self.pool is not None:
            self.pool.close()
            self.pool.join()
            self.pool = None
