"""Short-nardy teacher positions generated inside GNU Backgammon's own engine
(gnubg-nn), for ``nardy_host.train short --source gnubg``: many more positions a
minute than the rules engine's games (``train.teacher_data``), because the moves, the
results and the labels are all gnubg's C code.

- Games: gnubg-nn's move generator (``moves``: every distinct result of the roll,
  S2-S4 and C3-C6; ``tests/host/test_short_vs_gnubg.py`` shows it lists exactly the
  rules engine's results) played by its 0-ply evaluation, a random result with
  probability ``explore``, from the start or, with probability ``scenarios``, from one
  of ``nardy_host.scenarios``' positions (koks, containment, bear-off against
  contact), where the old net lost most (issue 25).
- Labels: each turn, the ``best`` results gnubg rates best for the mover and
  ``others`` more at random, each labelled with gnubg's cubeless equity (S5: gammon 2,
  koks 3) for the side then to move (the opponent), at ``ply`` (0, or 1 for a deeper
  teacher). The board's net rates exactly such positions: the results of a roll,
  the opponent to move; the best few are where a choice is won or lost.
- A result that bears off the last checker ends the game unlabelled: the board plays
  such a result at once (``nardy.bot``).
- A student (DAgger: the board's own net, ``student``, a ``duel.HostBot``'s ``pick``)
  may play a share of the turns gnubg would: the games then go where the board's
  net leads them, and gnubg labels the positions it meets there. Distilled from the
  teacher's games alone, the net never learns the positions its own mistakes make
  (the positions of its duels against gnubg); the labels stay the teacher's.
- Hard negatives (``hard_negatives``): the same games again, and in each turn the
  results a given net (the board's) rates best that the teacher did not label, with
  gnubg's labels: where that net would choose a result the teacher never showed it.

Positions are kept as the 52 own-path counts (``nardy_host.features``' boards, the
side to move first), 52 bytes each; ``raw_inputs`` turns a batch into the net's 208
inputs.
"""

import random
import time
from array import array

import numpy as np

from nardy.rules import CHECKERS
from nardy_host.features import _RAW_OF_COUNT, EXTRAS, RAW

START = (0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0)


def counts_of(board):
    """gnubg's board [not on roll, on roll] (25 each: points 1..24 of that side, bar
    last) -> the 52 own-path counts, the side on roll first: path 0 (bar) is gnubg's
    index 24, path k is its point 25 - k (index 24 - k), path 25 (off) the rest."""
    out = []
    for side in (board[1], board[0]):
        out.extend(side[24 - k] for k in range(25))
        out.append(CHECKERS - sum(side))
    return out


def raw_inputs(counts):
    """(N, 52) own-path counts -> (N, 208) float32, the evaluator's raw inputs."""
    return _RAW_OF_COUNT[counts].reshape(len(counts), RAW).astype(np.float32)


def extra_inputs(counts, rows=200000):
    """(N, 52) own-path counts -> (N, 12) uint8, the short-nardy extras (weights
    version 3, ``nardy_host.features.short_extras``), in slices of ``rows``."""
    from nardy_host.features import encode
    out = np.zeros((len(counts), EXTRAS), np.uint8)
    for s in range(0, len(counts), rows):
        part = counts[s:s + rows]
        out[s:s + rows] = encode(part, 0, EXTRAS, "short")[:, RAW:]
    return out


def equity(p):
    """gnubg's cubeless equity from its five probabilities (S5: mars 2, koks 3)."""
    w, wg, wb, lg, lb = p
    return 2 * w - 1 + wg - lg + wb - lb


def _start(rng, scenarios):
    if scenarios and rng.random() < scenarios:
        from nardy_host import scenarios as kinds
        from nardy_host.train import to_gnubg
        pos = kinds.make(rng.choice(kinds.KINDS), rng)
        return to_gnubg(pos)
    return [list(START), list(START)]


def play_game(rng, best, others, explore, scenarios, ply, counts, labels, sizes=None,
              student=None, share=0.0, each_turn=None):
    """One teacher game; its labelled results are appended to ``counts`` (a
    bytearray, 52 bytes each) and ``labels`` (an array of floats), and the number
    labelled each turn (the results of one roll, a group) to ``sizes``. With a
    ``student`` (counts of a roll's results -> the row it plays), it plays the turns
    the teacher would in ``share`` of them. ``each_turn(after, eq, chosen)``, if
    given, sees every turn's results (gnubg's boards), their 0-ply equities and the
    ones labelled; it takes nothing from ``rng``. Returns the number of turns
    played."""
    import gnubg_nn
    board = _start(rng, scenarios)
    turns = 0
    while True:
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        keys = gnubg_nn.moves(board, d1, d2)
        if not keys:                        # C6: no legal step, the turn passes
            board = [board[1], board[0]]
            continue
        turns += 1
        # each result as gnubg gives it is [opponent, mover]; the opponent moves next
        after = []
        for k in keys:
            opp, me = gnubg_nn.boardfromkey(k)
            if sum(me) == 0:                # the last checker off: the game's end
                return turns
            after.append([list(me), list(opp)])
        eq = [equity(gnubg_nn.probabilities(a, 0)) for a in after]
        order = sorted(range(len(after)), key=eq.__getitem__)   # best for the mover first
        rest = order[best:]
        chosen = order[:best] + rng.sample(rest, min(others, len(rest)))
        if sizes is not None:
            sizes.append(len(chosen))
        if each_turn is not None:
            each_turn(after, eq, chosen)
        for i in chosen:
            counts += bytes(counts_of(after[i]))
            labels.append(equity(gnubg_nn.probabilities(after[i], ply)) if ply else eq[i])
        if rng.random() < explore:
            pick = rng.randrange(len(after))
        elif student is not None and rng.random() < share:
            pick = student(np.array([counts_of(a) for a in after], np.uint8))
        else:
            pick = order[0]
        board = after[pick]


def positions(games, seed, best=4, others=4, explore=0.1, scenarios=0.0, ply=0,
              log=None, every=1000, student=None, share=0.0):
    """``games`` teacher games from ``seed`` -> ((N, 52) uint8 counts, (N,) float32
    equities for the side to move, (T,) int32 positions labelled each turn, in
    order). The same arguments give the same arrays."""
    rng = random.Random(seed)
    counts, labels, sizes = bytearray(), array("f"), array("i")
    t0 = time.time()
    for g in range(games):
        play_game(rng, best, others, explore, scenarios, ply, counts, labels, sizes,
                  student, share)
        if log and (g + 1) % every == 0:
            log("teacher games %d, %d positions, %.0f s" % (g + 1, len(labels),
                                                             time.time() - t0))
    return (np.frombuffer(bytes(counts), np.uint8).reshape(-1, 52),
            np.frombuffer(labels.tobytes(), np.float32).copy(),
            np.frombuffer(sizes.tobytes(), np.int32).copy())


def hard_negatives(games, seed, student, k, best=4, others=4, explore=0.1, scenarios=0.0,
                   log=None, every=1000):
    """The teacher games of ``positions`` with the same arguments played again, turn
    for turn, and in each turn the results the ``student`` (a weights file, the
    board's net) rates best, its top ``k``, that the teacher did not label: where the
    student would choose wrong, with gnubg 0-ply's labels (computed for every result
    anyway, to rank them). Returns (M, 52) uint8 counts, (M,) float32 labels and
    (M,) int32 turn numbers (of ``positions``' groups), in order.

    The student rates a thousand games' results at once (its choices do not change
    the games: the teacher plays them)."""
    from nardy.evaluate import Net
    from nardy.shortnardy import ShortNardy
    from nardy_host.duel import HostBot
    rate = HostBot(ShortNardy(), Net(student, "short")).values
    rng = random.Random(seed)
    out_c, out_y, out_t = bytearray(), array("f"), array("i")
    rows, eqs, turn_of, labelled = bytearray(), array("f"), array("i"), bytearray()
    turn = [0]

    def seen(after, eq, chosen):
        if len(after) > len(chosen):
            taken = set(chosen)
            for i, a in enumerate(after):
                rows.extend(bytes(counts_of(a)))
                eqs.append(eq[i])
                turn_of.append(turn[0])
                labelled.append(i in taken)
        turn[0] += 1

    def flush():
        if not labelled:
            return
        c = np.frombuffer(bytes(rows), np.uint8).reshape(-1, 52)
        t = np.frombuffer(turn_of.tobytes(), np.int32)
        v = np.concatenate([rate(c[s:s + 200000].astype(np.int64), 0)
                            for s in range(0, len(c), 200000)])
        # each turn's results by the student's value (its best first), then order
        o = np.lexsort((np.arange(len(v)), v, t))
        rank = np.arange(len(o)) - np.searchsorted(t[o], t[o], side="left")
        keep = np.sort(o[(rank < k) & (np.frombuffer(bytes(labelled), np.uint8)[o] == 0)])
        out_c.extend(c[keep].tobytes())
        out_y.extend(np.frombuffer(eqs.tobytes(), np.float32)[keep].tolist())
        out_t.extend(t[keep].tolist())
        for buf in (rows, eqs, turn_of, labelled):
            del buf[:]

    t0 = time.time()
    for g in range(games):
        play_game(rng, best, others, explore, scenarios, 0, bytearray(), array("f"),
                  each_turn=seen)
        if (g + 1) % every == 0 or g + 1 == games:
            flush()
            if log:
                log("hard negatives: games %d, turns %d, %d results labelled, %.0f s"
                    % (g + 1, turn[0], len(out_y), time.time() - t0))
    return (np.frombuffer(bytes(out_c), np.uint8).reshape(-1, 52),
            np.frombuffer(out_y.tobytes(), np.float32).copy(),
            np.frombuffer(out_t.tobytes(), np.int32).copy())


def with_hard(c, y, g, hc, hy, ht):
    """The teacher data (``positions``' arrays) with ``hard_negatives``' rows added
    to their turns, after each turn's own (its best results stay first).

    >>> c = np.arange(3 * 52, dtype=np.uint8).reshape(3, 52)
    >>> c2, y2, g2 = with_hard(c, np.array([1, 2, 3], np.float32), np.array([2, 1]),
    ...                        c[:1], np.array([9], np.float32), np.array([0]))
    >>> y2.tolist(), g2.tolist()
    ([1.0, 2.0, 9.0, 3.0], [3, 1])
    """
    turns = np.concatenate([np.repeat(np.arange(len(g)), g), ht])
    order = np.argsort(turns, kind="stable")
    return (np.concatenate([c, hc])[order], np.concatenate([y, hy])[order],
            (g + np.bincount(ht, minlength=len(g))).astype(g.dtype))


def board_of(counts):
    """``counts_of``'s inverse: 52 own-path counts (the side on roll first) ->
    gnubg's board [not on roll, on roll]."""
    return [[int(counts[26 + 24 - i]) for i in range(25)],
            [int(counts[24 - i]) for i in range(25)]]


def _label_rows(job):
    import gnubg_nn
    counts, ply = job
    return [equity(gnubg_nn.probabilities(board_of(c), ply)) for c in counts]


def relabel(counts, labels, sizes, best, ply, workers=1, log=None, chunk=20000,
            turns=0):
    """A copy of ``labels`` with the first ``best`` results of each turn (the ones
    ``positions`` labels first: those gnubg 0-ply rates best, where a choice is
    made; 0: every result) labelled again by gnubg at ``ply``; the others keep
    their labels. ``turns``: only the first so many turns (0: all). Spread over
    ``workers`` processes, in chunks; the same arrays give the same labels.

    Why not all: a ply-1 label costs ~1.7 ms of CPU against 0.01 ms at ply 0. Why
    every result of a turn, then: 1-ply's labels sit about 0.012 above 0-ply's, so a
    turn labelled half at each ply ranks its results by the ply, not the position
    (a net taught so played 0.048 a game worse, docs/ENGINE.md)."""
    start = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    within = np.arange(len(labels)) - np.repeat(start, sizes)
    keep = within < best if best else np.ones(len(labels), bool)
    if turns and turns < len(sizes):
        keep[start[turns]:] = False
    rows = np.flatnonzero(keep)
    jobs = [(counts[rows[s:s + chunk]], ply) for s in range(0, len(rows), chunk)]
    out = labels.copy()
    t0 = time.time()
    done = 0
    if workers > 1:
        import multiprocessing
        pool = multiprocessing.get_context("fork").Pool(workers)
        results = pool.imap(_label_rows, jobs)
    else:
        pool, results = None, map(_label_rows, jobs)
    try:
        for j, vals in enumerate(results):
            part = rows[j * chunk:j * chunk + len(vals)]
            out[part] = np.asarray(vals, np.float32)
            done += len(vals)
            if log:
                log("ply %d labels: %d of %d, %.0f s" % (ply, done, len(rows),
                                                         time.time() - t0))
    finally:
        if pool:
            pool.close()
            pool.join()
    return out


def student_of(path):
    """The board's chooser with the weights file at ``path`` as a student for
    ``positions``: counts of a roll's results -> the row it plays."""
    from nardy.evaluate import Net
    from nardy.shortnardy import ShortNardy
    from nardy_host.duel import HostBot
    return HostBot(ShortNardy(), Net(path, "short")).pick
