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
import shutil
import struct
import sys
import time
import zlib

import numpy as np

from nardy.longnardy import LongNardy
from nardy.netfile import INPUTS, MAGIC, MAX_HIDDEN, VARIANTS
from nardy.shortnardy import ShortNardy
from nardy_host.features import EXTRAS, boards_of, encode, inputs_for
from nardy_host.tdplay import roll as _roll


def variant_of(name):
    return LongNardy() if name == "long" else ShortNardy()


# -- features (the same encoding as evaluate.py, vectorised: nardy_host.features) -----
def features(boards, turn, n_extras=0, variant="long"):
    """``boards``: (N, 52) uint8, every row with ``turn`` to move -> (N, 208 [+ 12])
    float32 (the extras: ``variant``'s)."""
    return encode(boards, turn, n_extras, variant).astype(np.float32)


# -- the net --------------------------------------------------------------------------
class Mlp:
    """208 (+ 12) -> H (ReLU) -> 1, float, trained with Adam."""

    def __init__(self, hidden, rng, inputs=INPUTS):
        self.inputs = inputs
        self.w1 = (rng.standard_normal((inputs, hidden)) * 0.1).astype(np.float32)
        self.b1 = np.zeros(hidden, np.float32)
        self.w2 = (rng.standard_normal(hidden) * 0.1).astype(np.float32)
        self.b2 = np.zeros(1, np.float32)
        self.params = [self.w1, self.b1, self.w2, self.b2]
        self.m = [np.zeros_like(p) for p in self.params]
        self.v = [np.zeros_like(p) for p in self.params]
        self.t = 0

    def __call__(self, x):
        return np.maximum(x @ self.w1 + self.b1, 0) @ self.w2 + self.b2[0]

    def step(self, x, y, lr, groups=None, rank=0.0, weights=None):
        """One Adam step on the mean squared error; returns the loss. With
        ``groups`` (each row's turn number) a share ``rank`` of the error is taken
        less its turn's mean: only differences within a turn change a choice.
        ``weights`` (one a row) weigh the rows' squared errors."""
        h = x @ self.w1 + self.b1
        a = np.maximum(h, 0)
        out = a @ self.w2 + self.b2[0]
        err = out - y
        if weights is None:
            if rank:
                err = (1 - rank) * err + rank * _centred(err, groups).astype(np.float32)
            err = err / len(y)
        else:
            w = weights.astype(np.float32)
            # the gradient of sum(w * centred(err)**2) / 2: centring is symmetric
            ranked = _centred(w * _centred(err, groups), groups).astype(np.float32)
            err = ((1 - rank) * w * err + rank * ranked) / float(w.sum())
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
    """Quantise and write (see the format in evaluate.py): version 1 for a net of the
    208 raw inputs, version 2 (long) or 3 (short) for one with the extras (their rows
    after the raw ones, their count in the header)."""
    h = len(net.b1)
    n_extras = net.w1.shape[0] - INPUTS
    q1, q2, ql = _q(np.concatenate([net.w1.ravel(), net.b1])), _q(net.w2), _q(lin)
    payload = b"".join([
        np.round(lin * (1 << ql)).astype("<i2").tobytes(),
        np.round(net.b1 * (1 << q1)).astype("<i2").tobytes(),
        np.round(net.w1 * (1 << q1)).astype("<i2").tobytes(),
        np.round(net.w2 * (1 << q2)).astype("<i2").tobytes(),
        np.round(net.b2 * (1 << (q1 + q2))).astype("<i4").tobytes(),
    ])
    # version 2: long nardy's extras, 3: short nardy's; 4: more than 255 hidden units
    # (their count's high byte in the reserved one; nardy.netfile)
    version = 4 if h > 255 else (2 + VARIANTS.index(variant)) if n_extras else 1
    if not 1 <= h <= MAX_HIDDEN:
        raise TrainError("the board reads nets of 1 to %d hidden units, not %d"
                         % (MAX_HIDDEN, h))
    head = MAGIC + struct.pack("<BBBBBBBBI", version, VARIANTS.index(variant), h & 255,
                               q1, q2, ql, n_extras, h >> 8,
                               zlib.crc32(payload) & 0xFFFFFFFF)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "wb") as f:
        f.write(head + payload)


# -- long: TD(lambda) self-play, in batches over worker processes, checkpointed ------
# What a checkpoint must match to be resumed: the same run, continued.
_RUN_KEYS = ("hidden", "extras", "seed", "lr", "lam", "explore", "batch")
# ... and, only in a run that uses them (older checkpoints still resume):
_MORE_KEYS = ("decay", "games", "init")
FIT_GAMES = 200        # the pre-filter is fitted on the last games' positions


def _run_keys(args):
    return _RUN_KEYS + (_MORE_KEYS if args.decay or args.init else ())


def _run_of(args):
    """The values a checkpoint of this run must hold (``--init``: the CRC-32 of the
    checkpoint the run started from)."""
    return np.array([_init_crc(args) if k == "init" else float(getattr(args, k))
                     for k in _run_keys(args)], np.float64)


def _init_crc(args):
    return _file_crc(args.init, "cannot start from") if args.init else 0.0


def _file_crc(path, what="cannot read"):
    """The CRC-32 of a file a run depends on (--init, --student), as a float."""
    try:
        with open(path, "rb") as f:
            return float(zlib.crc32(f.read()))
    except OSError as e:
        raise TrainError("%s %s: %s" % (what, path, e)) from None


def _long_rate(args, games):
    """The TD step size at game ``games``: --lr, or with --decay falling
    geometrically to a tenth of it over the run's --games."""
    if not args.decay:
        return args.lr
    return args.lr * 0.1 ** (games / max(1, args.games))


class Checkpoint:
    """A TD run's whole state in one .npz: the net and its Adam moments, the games
    played and the positions of the last ``FIT_GAMES`` games (for the pre-filter).
    Written to a temporary file and renamed, so a run killed mid-write keeps the
    previous one."""

    @staticmethod
    def save(path, args, net, games, seen):
        run = _run_of(args)
        arrays = {"run": run, "games": np.array(games), "t": np.array(net.t),
                  "seen_len": np.array([len(s) for s in seen], np.int64),
                  "seen": (np.concatenate(seen) if seen
                           else np.zeros((0, net.inputs), np.uint8))}
        _write_checkpoint(path, arrays, net, np.savez_compressed)

    @staticmethod
    def load(path, args, net):
        """Restore ``net`` in place; returns (games played, the positions seen)."""
        data = _read_checkpoint(path, _run_keys(args), _run_of(args), net)
        lens = data["seen_len"]
        seen = np.split(data["seen"], np.cumsum(lens)[:-1]) if len(lens) else []
        return int(data["games"]), list(seen)


class TrainError(ValueError):
    """A checkpoint that cannot be resumed (reported as a clean error)."""


def _write_checkpoint(path, arrays, net, save):
    """``arrays`` and the net's weights and Adam moments, written whole or not at all
    (a temporary file renamed into place)."""
    for i, p in enumerate(net.params):
        arrays["p%d" % i], arrays["m%d" % i], arrays["v%d" % i] = p, net.m[i], net.v[i]
    tmp = path + ".tmp.npz"
    save(tmp, **arrays)
    os.replace(tmp, path)


def _read_checkpoint(path, keys, want, net):
    """Restore ``net`` in place from a checkpoint of the run ``want`` (its ``keys``'
    values); returns the file's arrays. Another run's checkpoint is refused."""
    try:
        data = np.load(path)
        saved = data["run"]
    except (OSError, ValueError, KeyError) as e:
        raise TrainError("cannot resume from %s: %s" % (path, e)) from None
    if len(saved) != len(want) or not np.array_equal(saved, want):
        diff = ", ".join("%s %g (now %g)" % (k, a, b)
                         for k, a, b in zip(keys, saved, want) if a != b)
        raise TrainError("checkpoint %s is another run: %s" % (path, diff or "shape"))
    for i, p in enumerate(net.params):
        p[...] = data["p%d" % i]
        net.m[i][...] = data["m%d" % i]
        net.v[i][...] = data["v%d" % i]
    net.t = int(data["t"])
    return data


def _start_from(path, net, widen_rng=None):
    """The weights of another run's checkpoint (``--init``), of the same shape; Adam
    starts afresh (its moments belong to the old step size). With ``widen_rng`` a
    checkpoint of fewer hidden units is widened to the net's (``widened``)."""
    try:
        with np.load(path) as data:
            params = [data["p%d" % i] for i in range(len(net.params))]
    except (OSError, ValueError, KeyError) as e:
        raise TrainError("cannot start from %s: %s" % (path, e)) from None
    hidden = net.w1.shape[1]
    if (widen_rng is not None and params[0].ndim == 2 and params[0].shape[0] ==
            net.w1.shape[0] and params[0].shape[1] < hidden):
        params = widened(params, hidden, widen_rng)
    for p, q in zip(net.params, params):
        if p.shape != q.shape:
            raise TrainError("%s holds a net of another shape: %s, here %s"
                             % (path, q.shape, p.shape))
        p[...] = q


def widened(params, hidden, rng, noise=0.002):
    """A net's float weights ``[w1, b1, w2, b2]`` with ``hidden`` units that
    computes what it did: unit ``k`` past the old ``h`` is a copy of unit ``k % h``,
    and a unit and its copies share its output weight equally. The copies' input
    weights get noise (sd ``noise``), else the copies would stay alike under
    training; the values move by about that much. How the 128-unit long net was
    started from a 64-unit one (docs/ENGINE.md).

    """
    w1, b1, w2, b2 = params
    h = w1.shape[1]
    if not h <= hidden:
        raise TrainError("cannot widen a net of %d hidden units to %d" % (h, hidden))
    pick = np.arange(hidden - h) % h
    copies = np.bincount(pick, minlength=h)
    share = w2 / (1 + copies)
    new_w1 = w1[:, pick] + rng.normal(0, noise, (w1.shape[0], len(pick))).astype(w1.dtype)
    return [np.concatenate([w1, new_w1], 1),
            np.concatenate([b1, b1[pick]]).astype(b1.dtype),
            np.concatenate([share, share[pick]]).astype(w2.dtype), b2.copy()]


def _crossed(every, before, now):
    return every > 0 and now // every > before // every


def train_long(args, log):
    from nardy_host.tdplay import Players
    net = Mlp(args.hidden, np.random.default_rng(args.seed), inputs_for(args.extras))
    ckpt = args.checkpoint or args.out + ".ckpt.npz"
    games, seen = 0, []
    if args.resume and os.path.exists(ckpt):
        games, seen = Checkpoint.load(ckpt, args, net)
        log("resumed from %s at game %d" % (ckpt, games))
    elif args.init:
        _start_from(args.init, net)
        log("started from the net of %s (crc %08x)" % (args.init, int(_init_crc(args))))
    players = Players(args.workers)
    t0, start = time.time(), games
    try:
        while games < args.games:
            if args.stop_after and games >= args.stop_after:
                Checkpoint.save(ckpt, args, net, games, seen)
                log("stopped at game %d (--stop-after); --resume goes on" % games)
                break
            # batches start at multiples of --batch: a resumed run meets the same ones
            n = min(args.batch - games % args.batch, args.games - games)
            params = (net.w1, net.b1, net.w2, net.b2)
            for x, y in players.play(params, args.seed, games, n, args.lam, args.explore,
                                     args.extras):
                xf = x.astype(np.float32)
                for _ in range(2):
                    net.step(xf, y, _long_rate(args, games))
                seen.append(x)
            del seen[:-FIT_GAMES]
            before, games = games, games + n
            if _crossed(args.checkpoint_every, before, games) or games == args.games:
                Checkpoint.save(ckpt, args, net, games, seen)
            if _crossed(args.report, before, games) or games == args.games:
                write_out(args, net, np.concatenate(seen).astype(np.float32))
                if args.ladder:
                    os.makedirs(args.ladder, exist_ok=True)
                    shutil.copyfile(args.out, os.path.join(args.ladder, "long-%07d.bin" % games))
                dt = time.time() - t0
                log("games %d  %.0f s  %.3f games/s  %s" % (
                    games, dt, (games - start) / max(dt, 1e-9), strength(args)))
    finally:
        players.close()
    return net


# -- short: gnubg as a teacher ----------------------------------------------------------
def to_gnubg(pos):
    """gnubg's board of ``pos``: [opponent, player on roll], 25 each (bar last)."""
    out = []
    for color in (1 - pos.turn, pos.turn):
        side = pos.side(color)
        out.append([side[24 - i] for i in range(24)] + [side[0]])
    return out


def gnubg_equity(pos, ply=0):
    """gnubg's cubeless equity at ``ply`` for the side to move (S5: mars 2, koks 3)."""
    import gnubg_nn
    w, wg, wb, lg, lb = gnubg_nn.probabilities(to_gnubg(pos), ply)
    return 2 * w - 1 + wg - lg + wb - lb


def start_of(v, rng, scenarios):
    """A teacher game's first position: the start, or with probability ``scenarios``
    one of ``nardy_host.scenarios`` (koks, containment, bear-off against contact).
    With ``scenarios`` 0 the random stream is the one the committed net was made
    with."""
    if scenarios and rng.random() < scenarios:
        from nardy_host import scenarios as kinds
        return kinds.make(rng.choice(kinds.KINDS), rng)
    return v.start_position(turn=rng.randint(0, 1))


def teacher_data(v, games, rng, per_turn, log, ply=0, scenarios=0.0):
    """Positions of teacher games (gnubg 0-ply with 10 % random turns) labelled
    with gnubg's equity at ``ply``."""
    xs, ys = [], []
    t0 = time.time()
    for g in range(games):
        pos = start_of(v, rng, scenarios)
        while True:
            mover = pos.turn
            turns, ends = _roll(v, pos, rng)
            if ends:
                break
            eq = [gnubg_equity(t[1]) for t in turns]
            pick = list(range(len(turns)))
            rng.shuffle(pick)
            best = min(range(len(turns)), key=eq.__getitem__)
            deep = {}
            if ply:     # only the labelled results are rated deeper (the costly part)
                for i in set(pick[:per_turn]) | {best}:
                    deep[i] = gnubg_equity(turns[i][1], ply)
            chosen = set(pick[:per_turn]) | {best}
            for i in chosen:
                xs.append(features(boards_of([turns[i][1]]), 1 - mover))
                ys.append(deep.get(i, eq[i]))
            i = best if rng.random() >= 0.1 else rng.randrange(len(turns))
            pos = turns[i][1]
        if (g + 1) % 200 == 0:
            log("teacher games %d, %d positions, %.0f s" % (g + 1, len(ys), time.time() - t0))
    return np.concatenate(xs), np.array(ys, np.float32)


def train_short(args, log):
    if args.source == "gnubg":
        return _train_distilled(args, log)
    v = variant_of("short")
    rng = random.Random(args.seed)
    if args.cache and os.path.exists(args.cache):
        data = np.load(args.cache)
        x, y = data["x"], data["y"]
        log("teacher data from %s: %d positions" % (args.cache, len(y)))
    else:
        x, y = teacher_data(v, args.games, rng, args.per_turn, log, args.teacher_ply,
                            args.scenarios)
        if args.cache:
            np.savez(args.cache, x=x, y=y)
    net = Mlp(args.hidden, np.random.default_rng(args.seed))
    order = np.random.default_rng(args.seed + 1)
    t0 = time.time()
    for epoch in range(1, args.epochs + 1):
        idx = order.permutation(len(y))
        loss = 0.0
        lr = _rate(args, epoch)
        for s in range(0, len(y), 256):
            b = idx[s:s + 256]
            loss = net.step(x[b], y[b], lr)
        if epoch % max(1, args.epochs // 5) == 0 or epoch == args.epochs:
            write_out(args, net, x)
            log("epoch %d  mse %.4f  %.0f s  %s" % (epoch, loss, time.time() - t0,
                                                    strength(args)))
    return net


def _rate(args, epoch):
    """The step size of an epoch: with --decay it falls geometrically to a tenth
    over the run."""
    if not args.decay:
        return args.lr
    return args.lr * 0.1 ** ((epoch - 1) / max(1, args.epochs - 1))


# What a short checkpoint must match to be resumed: the same run, continued.
_SHORT_KEYS = ("hidden", "seed", "lr", "epochs", "games", "best", "others",
               "teacher_explore", "scenarios", "teacher_ply", "batch_size", "decay",
               "rank_weight", "top_weight", "extras")
# ... and, only in a run with a student (older checkpoints still resume):
_STUDENT_KEYS = ("student_games", "student_share", "student")
HOLD_OUT = 50        # of every 1,000 positions, kept out of training to measure it
FIT_POSITIONS = 200000


def _teacher_positions(args, log):
    """The gnubg-generated positions (``nardy_host.distill``), from --cache if it
    holds this run's, else generated (and kept there); then, with --student, the
    --student-games whose turns the student shares (from their own cache,
    ``CACHE-student.npz``) after them."""
    from nardy_host import distill
    meta = [args.games, args.seed, args.best, args.others, args.teacher_explore,
            args.scenarios, args.teacher_ply]
    c, y, g = _cached(args.cache, meta, log, lambda: distill.positions(
        args.games, args.seed, args.best, args.others, args.teacher_explore,
        args.scenarios, args.teacher_ply, log))
    if args.hard:
        return _with_hard(args, log, meta, c, y, g)
    if not args.student_games:
        return _relabelled(args, log, c, y, g)
    crc = _file_crc(args.student)
    meta = meta[2:] + [args.student_games, args.seed + 1, args.student_share, crc]
    cache = args.cache and os.path.splitext(args.cache)[0] + "-student.npz"
    log("student %s (crc %08x) plays %.0f %% of the turns of %d more games" % (
        args.student, int(crc), 100 * args.student_share, args.student_games))
    sc, sy, sg = _cached(cache, meta, log, lambda: distill.positions(
        args.student_games, args.seed + 1, args.best, args.others, args.teacher_explore,
        args.scenarios, args.teacher_ply, log, student=distill.student_of(args.student),
        share=args.student_share))
    return _relabelled(args, log, np.concatenate([c, sc]), np.concatenate([y, sy]),
                       np.concatenate([g, sg]))


def _with_hard(args, log, meta, c, y, g):
    """With --hard K: the teacher data and, in each turn, the --hard-net's top K
    results the teacher did not label, with gnubg 0-ply's labels
    (``distill.hard_negatives``), kept in ``CACHE-hardK.npz`` beside the cache."""
    from nardy_host import distill
    crc = _file_crc(args.hard_net)
    cache = args.cache and "%s-hard%d.npz" % (os.path.splitext(args.cache)[0], args.hard)
    log("hard negatives: the top %d results of %s (crc %08x) a turn that gnubg did "
        "not label" % (args.hard, args.hard_net, int(crc)))
    hc, hy, ht = _cached(cache, meta + [args.hard, crc], log, lambda: distill.hard_negatives(
        args.games, args.seed, args.hard_net, args.hard, args.best, args.others,
        args.teacher_explore, args.scenarios, log))
    log("%d results added to the %d turns' %d" % (len(hy), len(g), len(y)))
    return distill.with_hard(c, y, g, hc, hy, ht)


def _relabelled(args, log, c, y, g):
    """With --relabel-ply N: the teacher's --best results of each turn labelled at
    ply N (``distill.relabel``), kept in ``CACHE-plyN.npz`` beside the cache."""
    if not args.relabel_ply:
        return c, y, g
    from nardy_host import distill
    best = 0 if args.relabel_all else args.best
    meta = [len(y), float(y.sum()), best, args.relabel_ply]
    if args.relabel_turns:
        meta.append(args.relabel_turns)
    cache = args.cache and "%s-ply%d.npz" % (os.path.splitext(args.cache)[0],
                                              args.relabel_ply)
    log("%s of %s labelled at ply %d, %d processes" % (
        "every labelled result" if args.relabel_all else "the best %d results" % best,
        "the first %d turns" % args.relabel_turns if args.relabel_turns else "each turn",
        args.relabel_ply, args.workers))
    _, y2, _ = _cached(cache, meta, log, lambda: (c[:0], distill.relabel(
        c, y, g, best, args.relabel_ply, args.workers, log, turns=args.relabel_turns),
        g[:0]))
    return c, y2, g


def _cached(path, meta, log, make):
    """``make()``'s arrays (c, y, g), read from the .npz at ``path`` when it was
    made with the same ``meta``, else made and kept there."""
    meta = np.array(meta, np.float64)
    if path and os.path.exists(path):
        with np.load(path) as data:
            if "meta" in data.files and np.array_equal(data["meta"], meta):
                log("teacher data from %s: %d positions" % (path, len(data["y"])))
                return data["c"], data["y"], data["g"]
        log("%s holds other teacher data: generated again" % path)
    c, y, g = make()
    if path:
        tmp = path + ".tmp.npz"
        np.savez(tmp, c=c, y=y, g=g, meta=meta)
        os.replace(tmp, path)
    return c, y, g


def _train_distilled(args, log):
    """Supervised distillation of gnubg-nn's 0-ply (or --teacher-ply) equities into
    the board's net, minibatch Adam over --epochs, checkpointed after each epoch.
    A minibatch holds whole turns (the labelled results of one roll), so the loss can
    weigh the errors that change a choice: with --rank-weight R, R of it is the
    error less its turn's mean (what the results of one roll differ by)."""
    from nardy_host.distill import extra_inputs, raw_inputs
    c, y, g = _teacher_positions(args, log)
    if args.extras and args.average:
        # the mean of trained nets reads a few rows only (the pre-filter's, the
        # held-out turns): their extras as they are asked for
        def inputs(rows):
            return np.concatenate([raw_inputs(c[rows]), extra_inputs(c[rows])], axis=1)
    elif args.extras:
        # the extras of every position once (uint8): a batch's are a look-up
        t1 = time.time()
        xe = extra_inputs(c)
        log("extra inputs of %d positions: %.0f s" % (len(c), time.time() - t1))

        def inputs(rows):
            return np.concatenate([raw_inputs(c[rows]), xe[rows]], axis=1)
    else:
        def inputs(rows):
            return raw_inputs(c[rows])
    start = np.concatenate([[0], np.cumsum(g)[:-1]])
    held_out = (np.arange(len(g)) % 1000) < HOLD_OUT       # whole turns, spread out
    train_g, test_g = np.flatnonzero(~held_out), np.flatnonzero(held_out)
    # --net-seed: another net (its start and its order of turns) on the same data
    seed = args.seed if args.net_seed is None else args.net_seed
    net = Mlp(args.hidden, np.random.default_rng(seed), inputs_for(args.extras))
    order = np.random.default_rng(seed + 1)
    ckpt = args.checkpoint or args.out + ".ckpt.npz"
    keys = (_SHORT_KEYS + (_STUDENT_KEYS if args.student else ())
            + (("relabel_ply",) if args.relabel_ply else ())
            + (("relabel_all", "relabel_turns")
               if args.relabel_all or args.relabel_turns else ())
            + (("net_seed",) if args.net_seed is not None else ())
            + (("hard", "hard_net") if args.hard else ()))
    run = np.array([_file_crc(getattr(args, k)) if k in ("student", "hard_net")
                    else _flt(getattr(args, k)) for k in keys], np.float64)
    done = 0
    if args.resume and os.path.exists(ckpt):
        done = _load_short(ckpt, keys, run, net)
        log("resumed from %s after epoch %d" % (ckpt, done))
    fit = inputs(_members(start, g, train_g)[0][:FIT_POSITIONS])
    test_idx, test_grp = _members(start, g, test_g)
    if args.average:
        return _write_average(args, log, inputs, y, fit, test_idx, test_grp)
    t0 = time.time()
    per_batch = max(1, round(args.batch_size * len(g) / max(1, len(y))))   # turns
    for epoch in range(1, args.epochs + 1):
        turns = train_g[order.permutation(len(train_g))]
        if epoch <= done:          # the same permutations as an unbroken run
            continue
        if args.stop_after and epoch > args.stop_after:
            log("stopped after epoch %d (--stop-after); --resume goes on" % (epoch - 1))
            break
        lr = _rate(args, epoch)
        for s in range(0, len(turns), per_batch):
            idx, grp = _members(start, g, turns[s:s + per_batch])
            net.step(inputs(idx), y[idx], lr, grp, args.rank_weight,
                     _top_weights(idx, grp, start, turns[s:s + per_batch], args))
        _save_short(ckpt, run, net, epoch, _hard_of(args))
        held = "held-out mse %.5f, within a turn %.5f" % _errors(net, inputs, y,
                                                                 test_idx, test_grp)
        if epoch % max(1, args.report) == 0 or epoch == args.epochs:
            write_out(args, net, fit)
            log("epoch %d  %s  %.0f s  %s" % (epoch, held, time.time() - t0,
                                              strength(args)))
        else:
            log("epoch %d  %s  %.0f s" % (epoch, held, time.time() - t0))
    write_out(args, net, fit)
    return net


# What makes the teacher data: an --average member must have been trained on this run's
_DATA_KEYS = ("games", "seed", "best", "others", "teacher_explore", "scenarios",
              "teacher_ply", "extras")


def _write_average(args, log, inputs, y, fit, test_idx, test_grp):
    """--average: the nets of the checkpoints, trained on this run's teacher data, as
    one net that gives the mean of their values (``averaged``), written to --out."""
    nets = []
    for path in args.average.split(","):
        try:
            with np.load(path) as data:
                run = data["run"]
                params = [data["p%d" % i] for i in range(4)]
                # (a checkpoint of before --hard has none)
                hard = data["hard"].tolist() if "hard" in data.files else [0, 0.0]
        except (OSError, ValueError, KeyError) as e:
            raise TrainError("cannot read the net of %s: %s" % (path, e)) from None
        want = [_flt(getattr(args, k)) for k in _DATA_KEYS]
        got = [run[_SHORT_KEYS.index(k)] for k in _DATA_KEYS]
        if got == want and hard != _hard_of(args):
            raise TrainError("%s was trained on other teacher data: --hard %d (here %d) "
                             "or another --hard-net" % (path, hard[0], args.hard))
        if got != want:
            diff = ", ".join("%s %g (here %g)" % (k, a, b)
                             for k, a, b in zip(_DATA_KEYS, got, want) if a != b)
            raise TrainError("%s was trained on other teacher data: %s" % (path, diff))
        net = Mlp(len(params[1]), np.random.default_rng(0), params[0].shape[0])
        for p, q in zip(net.params, params):
            p[...] = q
        nets.append(net)
        log("%s: %d hidden units, held-out mse %.5f, within a turn %.5f" % (
            path, len(params[1]), *_errors(net, inputs, y, test_idx, test_grp)))
    net = averaged(nets)
    log("their mean, one net of %d hidden units: held-out mse %.5f, within a turn %.5f"
        % (len(net.b1), *_errors(net, inputs, y, test_idx, test_grp)))
    write_out(args, net, fit)
    return net


def _hard_of(args):
    """[K, the --hard-net's CRC-32] of a run with --hard, else [0, 0]."""
    return [args.hard, _file_crc(args.hard_net)] if args.hard else [0, 0.0]


def averaged(nets):
    """One net whose value is the mean of ``nets``' values: their hidden units side
    by side, each output weight divided by their number. Exact, as the output is
    linear in the hidden units; the board evaluates it as any net of that width.

    >>> rng = np.random.default_rng(1)
    >>> a, b = Mlp(3, rng, 5), Mlp(2, rng, 5)
    >>> a.b2[0], b.b2[0] = 0.5, -0.25
    >>> x = rng.standard_normal((4, 5)).astype(np.float32)
    >>> m = averaged([a, b])
    >>> len(m.b1), bool(np.allclose(m(x), (a(x) + b(x)) / 2, atol=1e-6))
    (5, True)
    """
    n = len(nets)
    out = Mlp(sum(len(m.b1) for m in nets), np.random.default_rng(0), nets[0].inputs)
    out.w1[...] = np.concatenate([m.w1 for m in nets], axis=1)
    out.b1[...] = np.concatenate([m.b1 for m in nets])
    out.w2[...] = np.concatenate([m.w2 for m in nets]) / n
    out.b2[...] = sum(m.b2 for m in nets) / n
    return out


def _members(start, sizes, turns):
    """The positions of ``turns`` (indices into the groups) in order, and for each
    its turn's number within ``turns``."""
    lens = sizes[turns]
    grp = np.repeat(np.arange(len(turns)), lens)
    first = np.repeat(start[turns] - (np.cumsum(lens) - lens), lens)
    return first + np.arange(len(grp)), grp


def _top_weights(idx, grp, start, turns, args):
    """--top-weight for the teacher's best results of each turn (a turn's first
    ``--best`` rows: ``distill`` labels them first, best first), 1 for the others;
    None (all 1) without it."""
    if args.top_weight == 1.0:
        return None
    within = idx - start[turns][grp]
    return np.where(within < args.best, args.top_weight, 1.0)


def _centred(e, grp):
    """``e`` less the mean of its turn (``grp``: each row's turn number)."""
    n = np.bincount(grp)
    return e - (np.bincount(grp, weights=e) / np.maximum(n, 1))[grp]


def _flt(value):
    return float(value) if value is not None else -1.0


def _errors(net, inputs, y, idx, grp):
    """Mean squared error, and the same less each turn's mean error, over ``idx``."""
    e = np.concatenate([net(inputs(idx[s:s + 65536])) - y[idx[s:s + 65536]]
                        for s in range(0, len(idx), 65536)]).astype(np.float64)
    return float(np.mean(e * e)), float(np.mean(_centred(e, grp) ** 2))


def _save_short(path, run, net, epoch, hard=(0, 0.0)):
    arrays = {"run": run, "epoch": np.array(epoch), "t": np.array(net.t),
              "hard": np.array(hard, np.float64)}
    _write_checkpoint(path, arrays, net, np.savez)


def _load_short(path, keys, run, net):
    """Restore ``net`` in place from a short checkpoint; returns the epochs done."""
    return int(_read_checkpoint(path, keys, run, net)["epoch"])


def write_out(args, net, x):
    # the pre-filter reads the 208 raw inputs only (the board rates up to ~1,800
    # results with it: no extras computed for them)
    lin = fit_linear(x[:, :INPUTS], net(x).astype(np.float32))
    write_weights(args.out, args.variant, net, lin)


def opponents(args):
    """The --duel list; ``ladder`` is the newest earlier net of this run's ladder
    (``bot:DIR/long-GAMES.bin``), ``committed`` the weights in firmware/weights/."""
    from nardy_host.duel import weights_path
    out = []
    for opp in filter(None, args.duel.split(",")):
        if opp == "committed":
            out.append("bot:" + weights_path(args.variant))
        elif opp == "ladder":
            rungs = sorted(f for f in os.listdir(args.ladder or ".")
                           if f.startswith(args.variant + "-") and f.endswith(".bin"))
            if len(rungs) > 1:          # the newest is the net just written
                out.append("bot:" + os.path.join(args.ladder, rungs[-2]))
        else:
            out.append(opp)
    return out


def strength(args):
    """Duplicate-dice duels of the net just written against each opponent."""
    from nardy_host.duel import play_match
    out = []
    for opp in opponents(args):
        r = play_match("bot", opp, args.variant, args.duel_games, args.seed + 99,
                       weights=args.out)
        out.append("vs %s %d/%d ppg %+.3f ± %.3f" % (os.path.basename(opp), r["a_wins"],
                                                      r["games"], r["ppg"], r["se"]))
    return ", ".join(out)


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m nardy_host.train")
    p.add_argument("variant", choices=VARIANTS)
    p.add_argument("--games", type=int, default=2000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--net-seed", type=int, metavar="N",
                   help="short --source gnubg: the net's own seed (its start, its order "
                        "of turns; default --seed, which also makes the teacher data): "
                        "nets for --average on the same data")
    p.add_argument("--hidden", type=int, default=24)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--lam", type=float, default=0.7)
    p.add_argument("--explore", type=float, default=0.02)
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--per-turn", type=int, default=4)
    p.add_argument("--report", type=int, default=250,
                   help="long: every N games; short --source gnubg: every N epochs")
    p.add_argument("--duel", default="",
                   help="opponents measured at each report (duel players, 'ladder': "
                        "the previous report's net, 'committed': the committed net)")
    p.add_argument("--duel-games", type=int, default=100)
    p.add_argument("--decay", action="store_true",
                   help="the step size falls to a tenth over the run (short: its epochs, "
                        "long: its --games)")
    p.add_argument("--init", metavar="CKPT",
                   help="long: start from the net of another run's checkpoint (a new "
                        "run, e.g. with a smaller or falling step size)")
    p.add_argument("--cache", help="short: keep/reuse the teacher data in this .npz")
    p.add_argument("--source", choices=("engine", "gnubg"), default="engine",
                   help="short: teacher games in the rules engine (the first short net) "
                        "or inside gnubg-nn (nardy_host.distill: far more positions)")
    p.add_argument("--best", type=int, default=4,
                   help="short --source gnubg: the teacher's best results labelled a turn")
    p.add_argument("--others", type=int, default=4,
                   help="short --source gnubg: other results labelled a turn, at random")
    p.add_argument("--teacher-explore", type=float, default=0.1,
                   help="short --source gnubg: the teacher plays a random result this often")
    p.add_argument("--rank-weight", type=float, default=0.0, metavar="R",
                   help="short --source gnubg: the share of the loss taken on the error "
                        "less its turn's mean (what a choice depends on)")
    p.add_argument("--top-weight", type=float, default=1.0, metavar="W",
                   help="short --source gnubg: the weight of the teacher's --best "
                        "results in the loss (the others 1): where a choice is made")
    p.add_argument("--stop-after", type=int, default=0, metavar="EPOCHS",
                   help="stop as a cut run would: short --source gnubg after this "
                        "epoch, long at this game (a multiple of --batch)")
    p.add_argument("--batch-size", type=int, default=256,
                   help="short --source gnubg: positions per Adam step")
    p.add_argument("--teacher-ply", type=int, default=0, choices=(0, 1, 2),
                   help="short: label with gnubg at this ply (games still played at 0)")
    p.add_argument("--relabel-ply", type=int, default=0, choices=(0, 1, 2),
                   help="short --source gnubg: label the teacher's --best results of "
                        "each turn again at this ply (the others keep ply 0), over "
                        "--workers processes; kept in CACHE-plyN.npz")
    p.add_argument("--relabel-all", action="store_true",
                   help="with --relabel-ply: every labelled result of a turn, not only "
                        "the --best (one ply within a turn)")
    p.add_argument("--relabel-turns", type=int, default=0, metavar="N",
                   help="with --relabel-ply: only the first N turns of the teacher data "
                        "(the first games': a smaller --games run's data is the start of "
                        "a larger one's from the same --seed)")
    p.add_argument("--student", metavar="FILE",
                   help="short --source gnubg: a weights file (the board's net) that "
                        "plays a share of the turns of --student-games more teacher "
                        "games (DAgger: the positions its own choices lead to)")
    p.add_argument("--student-games", type=int, default=0, metavar="N")
    p.add_argument("--student-share", type=float, default=0.5, metavar="P",
                   help="the share of the turns the student plays (default 0.5)")
    p.add_argument("--scenarios", type=float, default=0.0, metavar="FRACTION",
                   help="short: games starting from koks / containment / bear-off "
                        "against contact positions (nardy_host.scenarios)")
    p.add_argument("--extras", type=int, default=0, choices=(0, EXTRAS),
                   help="the %d extra inputs (weights file version 2 long, 3 short; "
                        "short: --source gnubg only)" % EXTRAS)
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                   help="long: self-play processes; short --relabel-ply: labelling "
                        "processes (default: every core)")
    p.add_argument("--batch", type=int, default=8,
                   help="long: games played with the same weights before they learn")
    p.add_argument("--checkpoint", help="the run's state (default OUT.ckpt.npz)")
    p.add_argument("--checkpoint-every", type=int, default=100, metavar="GAMES")
    p.add_argument("--resume", action="store_true",
                   help="long, short --source gnubg: go on from the checkpoint if any")
    p.add_argument("--ladder", metavar="DIR",
                   help="long: keep each report's weights as DIR/long-GAMES.bin")
    p.add_argument("--hard", type=int, default=0, metavar="K",
                   help="short --source gnubg: each turn, label also the --hard-net's "
                        "top K results the teacher did not label (where that net "
                        "would choose wrong); kept in CACHE-hardK.npz")
    p.add_argument("--hard-net", metavar="FILE",
                   help="with --hard: a short weights file (the board's net)")
    p.add_argument("--average", metavar="CKPT,CKPT,...",
                   help="short --source gnubg: train nothing; write the mean of these "
                        "checkpoints' nets (--net-seed runs on this run's teacher data) "
                        "as one net of their hidden units together")
    p.add_argument("--out", required=True)
    p.add_argument("--log")
    args = p.parse_args(argv)
    if args.batch < 1 or args.workers < 0:
        p.error("--batch must be at least 1 and --workers at least 0")
    if args.variant == "short" and args.extras and args.source != "gnubg":
        p.error("short --extras needs --source gnubg")
    if bool(args.student) != bool(args.student_games) or (
            args.student and (args.variant, args.source) != ("short", "gnubg")):
        p.error("--student FILE and --student-games N go together, short --source gnubg")
    if args.relabel_ply and (args.variant, args.source) != ("short", "gnubg"):
        p.error("--relabel-ply relabels short --source gnubg teacher data")
    if (args.relabel_all or args.relabel_turns) and not args.relabel_ply:
        p.error("--relabel-all and --relabel-turns go with --relabel-ply")
    if args.relabel_turns < 0:
        p.error("--relabel-turns must be at least 0")
    if (args.average or args.net_seed is not None) and (args.variant, args.source) != (
            "short", "gnubg"):
        p.error("--average and --net-seed are for short --source gnubg")
    if bool(args.hard) != bool(args.hard_net) or args.hard < 0 or (args.hard and (
            (args.variant, args.source) != ("short", "gnubg") or args.relabel_ply
            or args.student)):
        p.error("--hard K and --hard-net FILE go together, short --source gnubg (no "
                "--relabel-ply, no --student)")
    if args.init and args.variant != "long":
        p.error("--init starts a long run from another's checkpoint (long only)")
    if not 0.0 <= args.student_share <= 1.0:
        p.error("--student-share is a share of the turns, 0 to 1")
    logf = open(args.log, "a") if args.log else None  # noqa: SIM115 (whole run)

    def log(text):
        line = "%s  %s" % (time.strftime("%H:%M:%S"), text)
        print(line, flush=True)
        if logf:
            logf.write(line + "\n")
            logf.flush()

    log("train %s" % " ".join(sys.argv[1:] if argv is None else argv))
    try:
        (train_long if args.variant == "long" else train_short)(args, log)
    except TrainError as e:
        print("error: %s" % e, file=sys.stderr)
        return 2
    log("done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
