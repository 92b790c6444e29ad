"""Training the board's evaluator (``firmware/nardy/evaluate.py``) on the host, from a
seed, with numpy. Not part of the ``nardy`` command: run it as a module.

    python -m nardy_host.train long  --games 3000 --seed 1 --out firmware/weights/long.bin
    python -m nardy_host.train short --games 1500 --seed 1 --out firmware/weights/short.bin

- long: TD(lambda) self-play in the TD-Gammon tradition (there is no teacher for long
  nardy). Each game is played greedily by the current net over every legal result
  (the rules engine's ``turns``); after the game the lambda-returns are computed
  backwards from the final points (oin 1, mars 2, from ``scoring.game_result``) and
  the net takes Adam steps towards them.
- short: GNU Backgammon's 0-ply evaluation as a teacher (stated honestly: this is
  supervised learning, not self-play). Positions come from games played by gnubg's
  0-ply with a few random turns for variety; for each turn several legal results are
  labelled with gnubg's cubeless equity for the side to move.

Both then fit the linear pre-filter to the net's own values (least squares), quantise
to integers and write the weights file the firmware reads. Progress (games, time,
strength against random/greedy/pubeval) goes to the log file.
"""

import argparse
import os
import random
import struct
import sys
import time
import zlib

import numpy as np

from nardy.evaluate import INPUTS, MAGIC, VARIANTS, VERSION
from nardy.longnardy import LongNardy
from nardy.rules import CHECKERS, OFF
from nardy.scoring import game_result
from nardy.shortnardy import ShortNardy


def variant_of(name):
    return LongNardy() if name == "long" else ShortNardy()


# -- features (the same encoding as evaluate.py, vectorised) ---------------------------
def features(boards, turn):
    """``boards``: (N, 52) uint8, every row with ``turn`` to move -> (N, 208) float32."""
    b = boards.astype(np.float32)
    me = b[:, 26 * turn:26 * turn + 26]
    op = b[:, 26 * (1 - turn):26 * (1 - turn) + 26]
    out = []
    for side in (me, op):
        f = np.stack([side >= 1, side >= 2, side >= 3, np.maximum(side - 3, 0)], axis=2)
        out.append(f.reshape(len(b), 104))
    return np.concatenate(out, axis=1).astype(np.float32)


def boards_of(positions):
    return np.frombuffer(b"".join(bytes(p.board) for p in positions),
                         dtype=np.uint8).reshape(len(positions), 52)


# -- the net --------------------------------------------------------------------------
class Mlp:
    """208 -> H (ReLU) -> 1, float, trained with Adam."""

    def __init__(self, hidden, rng):
        self.w1 = (rng.standard_normal((INPUTS, hidden)) * 0.1).astype(np.float32)
        self.b1 = np.zeros(hidden, np.float32)
        self.w2 = (rng.standard_normal(hidden) * 0.1).astype(np.float32)
        self.b2 = np.zeros(1, np.float32)
        self.params = [self.w1, self.b1, self.w2, self.b2]
        self.m = [np.zeros_like(p) for p in self.params]
        self.v = [np.zeros_like(p) for p in self.params]
        self.t = 0

    def __call__(self, x):
        return np.maximum(x @ self.w1 + self.b1, 0) @ self.w2 + self.b2[0]

    def step(self, x, y, lr):
        """One Adam step on the mean squared error; returns the loss."""
        h = x @ self.w1 + self.b1
        a = np.maximum(h, 0)
        out = a @ self.w2 + self.b2[0]
        err = (out - y) / len(y)
        gw2 = a.T @ err
        gb2 = np.array([err.sum()], np.float32)
        dh = np.outer(err, self.w2) * (h > 0)
        grads = [x.T @ dh, dh.sum(0), gw2, gb2]
        self.t += 1
        for p, g, m, v in zip(self.params, grads, self.m, self.v):
            m *= 0.9
            m += 0.1 * g
            v *= 0.999
            v += 0.001 * g * g
            mh = m / (1 - 0.9 ** self.t)
            vh = v / (1 - 0.999 ** self.t)
            p -= (lr * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)
        return float(np.mean((out - y) ** 2))


def fit_linear(x, y):
    """Least squares (lightly ridged) linear pre-filter: weights for the 208 inputs."""
    a = x.T @ x + 1e-3 * np.eye(x.shape[1], dtype=np.float32)
    return np.linalg.solve(a, x.T @ y).astype(np.float32)


# -- the weights file -------------------------------------------------------------------
def _q(arr, limit=32767, top=14):
    m = float(np.max(np.abs(arr))) or 1.0
    q = 0
    while q < top and m * (1 << (q + 1)) < limit:
        q += 1
    return q


def write_weights(path, variant, net, lin):
    """Quantise and write (see the format in evaluate.py)."""
    h = len(net.b1)
    q1, q2, ql = _q(np.concatenate([net.w1.ravel(), net.b1])), _q(net.w2), _q(lin)
    payload = b"".join([
        np.round(lin * (1 << ql)).astype("<i2").tobytes(),
        np.round(net.b1 * (1 << q1)).astype("<i2").tobytes(),
        np.round(net.w1 * (1 << q1)).astype("<i2").tobytes(),
        np.round(net.w2 * (1 << q2)).astype("<i2").tobytes(),
        np.round(net.b2 * (1 << (q1 + q2))).astype("<i4").tobytes(),
    ])
    head = MAGIC + struct.pack("<BBBBBBHI", VERSION, VARIANTS.index(variant), h, q1, q2,
                               ql, 0, zlib.crc32(payload) & 0xFFFFFFFF)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "wb") as f:
        f.write(head + payload)


# -- long: TD(lambda) self-play ------------------------------------------------------
def _roll(v, pos, rng):
    """A roll of the side to move: (its legal turns, those that bear off the last
    checker: the game's end)."""
    dice = (rng.randint(1, 6), rng.randint(1, 6))
    turns = v.legal_turns(pos, dice)
    return turns, [t for t in turns if t[1].board[26 * pos.turn + OFF] == CHECKERS]


def td_game(v, net, rng, lam, explore):
    """One self-play game; returns (features of every afterstate, lambda-returns)."""
    pos = v.start_position(turn=rng.randint(0, 1))
    xs, vals = [], []
    while True:
        mover = pos.turn
        turns, ends = _roll(v, pos, rng)
        if ends:
            pos = ends[0][1]
            r = game_result(v, pos, True)
            xs.append(features(boards_of([pos]), pos.turn))
            vals.append(None)
            final = -float(r[2]) if r[0] == mover else 0.0
            break
        x = features(boards_of([t[1] for t in turns]), 1 - mover)
        q = net(x)
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
    return np.concatenate(xs), np.array(targets, np.float32)


def train_long(args, log):
    v = variant_of("long")
    rng = random.Random(args.seed)
    net = Mlp(args.hidden, np.random.default_rng(args.seed))
    seen = []
    t0 = time.time()
    for game in range(1, args.games + 1):
        x, y = td_game(v, net, rng, args.lam, args.explore)
        for _ in range(2):
            net.step(x, y, args.lr)
        seen.append(x)
        if len(seen) > 300:
            seen.pop(0)
        if game % args.report == 0 or game == args.games:
            write_out(args, net, np.concatenate(seen))
            log("games %d  %.0f s  %s" % (game, time.time() - t0, strength(args)))
    return net


# -- short: gnubg as a teacher ----------------------------------------------------------
def to_gnubg(pos):
    """gnubg's board of ``pos``: [opponent, player on roll], 25 each (bar last)."""
    out = []
    for color in (1 - pos.turn, pos.turn):
        side = pos.side(color)
        out.append([side[24 - i] for i in range(24)] + [side[0]])
    return out


def gnubg_equity(pos):
    """gnubg 0-ply cubeless equity for the side to move (S5: mars 2, koks 3)."""
    import gnubg_nn
    w, wg, wb, lg, lb = gnubg_nn.probabilities(to_gnubg(pos), 0)
    return 2 * w - 1 + wg - lg + wb - lb


def teacher_data(v, games, rng, per_turn, log):
    xs, ys = [], []
    t0 = time.time()
    for g in range(games):
        pos = v.start_position(turn=rng.randint(0, 1))
        while True:
            mover = pos.turn
            turns, ends = _roll(v, pos, rng)
            if ends:
                break
            eq = [gnubg_equity(t[1]) for t in turns]
            pick = list(range(len(turns)))
            rng.shuffle(pick)
            best = min(range(len(turns)), key=eq.__getitem__)
            chosen = set(pick[:per_turn]) | {best}
            for i in chosen:
                xs.append(features(boards_of([turns[i][1]]), 1 - mover))
                ys.append(eq[i])
            i = best if rng.random() >= 0.1 else rng.randrange(len(turns))
            pos = turns[i][1]
        if (g + 1) % 200 == 0:
            log("teacher games %d, %d positions, %.0f s" % (g + 1, len(ys), time.time() - t0))
    return np.concatenate(xs), np.array(ys, np.float32)


def train_short(args, log):
    v = variant_of("short")
    rng = random.Random(args.seed)
    if args.cache and os.path.exists(args.cache):
        data = np.load(args.cache)
        x, y = data["x"], data["y"]
        log("teacher data from %s: %d positions" % (args.cache, len(y)))
    else:
        x, y = teacher_data(v, args.games, rng, args.per_turn, log)
        if args.cache:
            np.savez(args.cache, x=x, y=y)
    net = Mlp(args.hidden, np.random.default_rng(args.seed))
    order = np.random.default_rng(args.seed + 1)
    t0 = time.time()
    for epoch in range(1, args.epochs + 1):
        idx = order.permutation(len(y))
        loss = 0.0
        # the step size falls geometrically to a tenth over the run
        lr = args.lr * 0.1 ** ((epoch - 1) / max(1, args.epochs - 1)) if args.decay else args.lr
        for s in range(0, len(y), 256):
            b = idx[s:s + 256]
            loss = net.step(x[b], y[b], lr)
        if epoch % max(1, args.epochs // 5) == 0 or epoch == args.epochs:
            write_out(args, net, x)
            log("epoch %d  mse %.4f  %.0f s  %s" % (epoch, loss, time.time() - t0,
                                                    strength(args)))
    return net


def write_out(args, net, x):
    lin = fit_linear(x, net(x).astype(np.float32))
    write_weights(args.out, args.variant, net, lin)


def strength(args):
    if not args.duel:
        return ""
    from nardy_host.duel import play_match
    out = []
    for opp in args.duel.split(","):
        r = play_match("bot", opp, args.variant, args.duel_games, args.seed + 99,
                       weights=args.out)
        out.append("vs %s %d/%d ppg %+.2f" % (opp, r["a_wins"], r["games"], r["ppg"]))
    return ", ".join(out)


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m nardy_host.train")
    p.add_argument("variant", choices=VARIANTS)
    p.add_argument("--games", type=int, default=2000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--hidden", type=int, default=24)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--lam", type=float, default=0.7)
    p.add_argument("--explore", type=float, default=0.02)
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--per-turn", type=int, default=4)
    p.add_argument("--report", type=int, default=250)
    p.add_argument("--duel", default="", help="opponents measured at each report")
    p.add_argument("--duel-games", type=int, default=100)
    p.add_argument("--decay", action="store_true", help="short: lr falls to a tenth")
    p.add_argument("--cache", help="short: keep/reuse the teacher data in this .npz")
    p.add_argument("--out", required=True)
    p.add_argument("--log")
    args = p.parse_args(argv)
    logf = open(args.log, "a") if args.log else None  # noqa: SIM115 (whole run)

    def log(text):
        line = "%s  %s" % (time.strftime("%H:%M:%S"), text)
        print(line, flush=True)
        if logf:
            logf.write(line + "\n")
            logf.flush()

    log("train %s" % " ".join(sys.argv[1:] if argv is None else argv))
    (train_long if args.variant == "long" else train_short)(args, log)
    log("done")


if __name__ == "__main__":
    main()
