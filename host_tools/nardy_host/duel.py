"""``nardy duel A B``: two players play N games against each other with duplicate
dice: games 2k and 2k+1 share the first mover and every roll, with the colours
swapped, so the luck of the dice cancels out of each pair. The points per game are
printed with their standard error (over the pairs).

Players: ``random``; ``greedy`` (the legal turn leaving the fewest own pips, ties at
random); ``bot`` (the board's engine, ``firmware/nardy/bot.py`` with the committed
weights, run as is; ``bot:FILE`` with another weights file, e.g. an earlier net of a
training run's ladder); ``expectimax`` (host only, a yardstick: 1-ply search with
the same net, ``expectimax:FILE`` likewise); ``pubeval`` and ``gnubg`` (short nardy
only: gnubg-nn's public evaluation and its 0-ply ``best_move``). Every turn any
player picks is one of the rules engine's legal turns. Points per game come from
``scoring.game_result`` (cubeless; mars / koks count). ``--workers N`` plays the
pairs in N processes (``play_match``): the same games, on N cores about N times
sooner.
"""

import json
import math
import os
import random

from nardy.longnardy import LongNardy
from nardy.rules import CHECKERS, OFF
from nardy.scoring import game_result
from nardy.shortnardy import ShortNardy
from nardy_host.errors import UserError

PLAYERS = ("random", "greedy", "bot", "expectimax", "pubeval", "gnubg")
NETS = ("bot", "expectimax")          # players that take a weights file (bot:FILE)
GNUBG_ONLY = ("pubeval", "gnubg")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def weights_path(variant):
    return os.path.join(ROOT, "firmware", "weights", variant + ".bin")


def variant_of(name):
    return LongNardy() if name == "long" else ShortNardy()


class DuelError(ValueError):
    """A bad player name or game count (reported by the CLI as a clean error)."""


def to_gnubg(pos, view):
    """gnubg's board [opponent, player] with ``view`` as the player."""
    out = []
    for color in (1 - view, view):
        side = pos.side(color)
        out.append([side[24 - i] for i in range(24)] + [side[0]])
    return out


def _by_steps(v, pos, turns, steps):
    """The legal turn whose result equals ``steps`` (gnubg's points) played on pos."""
    new = pos
    for f, t in steps:
        new = v.apply_step(new, (25 - f, 25 - t))
    for turn in turns:
        if turn[1].board == new.board:
            return turn
    raise RuntimeError("gnubg chose a turn the rules engine does not list: %r" % (steps,))


def make_player(name, v, rng, weights=None):
    name, _, path = name.partition(":")
    weights = path or weights
    if path and name not in NETS:
        raise DuelError("only %s take a weights file (%s:FILE)" % (" and ".join(NETS), name))
    if name not in PLAYERS:
        raise DuelError("unknown player %r (one of %s)" % (name, ", ".join(PLAYERS))) from None
    if name in GNUBG_ONLY and v.name != "short":
        raise DuelError("%s plays short nardy only" % name) from None
    if name == "random":
        return lambda pos, dice: rng.choice(v.legal_turns(pos, dice))
    if name == "greedy":
        def greedy(pos, dice):
            turns = v.legal_turns(pos, dice)
            pips = [t[1].pips(pos.turn) for t in turns]
            low = min(pips)
            return rng.choice([t for t, p in zip(turns, pips) if p == low])
        return greedy
    if name in NETS:
        from nardy.evaluate import Net
        from nardy.netfile import WeightsError
        try:
            net = Net(weights or weights_path(v.name), v.name)
        except WeightsError as e:
            raise DuelError(str(e)) from None
        bot = HostBot(v, net)
        return bot.choose if name == "bot" else bot.choose_1ply
    import gnubg_nn

    def gnubg_player(pos, dice):
        turns = v.legal_turns(pos, dice)
        if len(turns) == 1:
            return turns[0]
        board = to_gnubg(pos, pos.turn)
        if name == "pubeval":
            flat = gnubg_nn.pub_best_move(board, dice[0], dice[1])
            steps = [(flat[i] + 1, flat[i + 1] + 1) for i in range(0, len(flat), 2)]
        else:
            steps = gnubg_nn.best_move(board, dice[0], dice[1])
        return _by_steps(v, pos, turns, steps)
    return gnubg_player


_COUNTS = 16          # a point holds 0..15 checkers
_BIAS = 1 << 24       # keeps the table's ints positive (|score| < 2**20)


def lin_table(net):
    """The net's linear pre-filter as one int per (side, point, count), plus 2**24
    each: ``evaluate.quick`` as a table lookup (white's view of the 52 path points:
    the side to move first)."""
    out = []
    for first in (0, 26):
        for k in range(26):
            i = 4 * (first + k)
            w0, w1, w2, w3 = net.lin[i:i + 4]     # an array of int16 on the host
            out.append(_BIAS)
            for c in range(1, _COUNTS):
                s = w0
                if c > 1:
                    s += w1
                if c > 2:
                    s += w2
                if c > 3:
                    s += (c - 3) * w3
                out.append(s + _BIAS)
    return out


def input_weights(net):
    """The input weights as one bytes object of int16, input-major (the board keeps
    them in pieces: ``Net.parts``), the extra inputs' rows last (version 2)."""
    return b"".join(bytes(p) for p in net.parts) + (bytes(net.wx) if net.extras else b"")


class HostBot:
    """``nardy.bot.Bot`` with the integer arithmetic done by numpy for all results of
    a roll at once: the same pre-filter scores, the same kept candidates (same
    replacement order), the same net values and tie-break, hence the same turns
    (tests/host/test_duel.py compares it with the firmware Bot)."""

    def __init__(self, variant, net):
        import numpy as np

        from nardy.bot import keep_for
        from nardy_host.features import encode
        self.encode = encode
        self.np = np
        self.v = variant
        self.net = net
        self.keep = keep_for(variant.name)
        lin = np.array(lin_table(net), dtype=np.int64)
        self.table = lin.reshape(52, _COUNTS)
        # float64, for BLAS: every sum in ``values`` is an integer below 2**53 (the
        # inputs of a position sum to at most 270: 30 for the checkers, 240 for the
        # extras; times int16 weights, plus a bias: a hidden sum < 2**24; at most 512
        # hidden units (nardy.netfile) times an int16: < 2**48), so each step is
        # exact and the values are the board's integers; numpy's int64 products have
        # no BLAS and made 1-ply labelling 2.5x slower.
        self.w1 = np.frombuffer(input_weights(net), "<i2").astype(np.float64).reshape(
            208 + net.extras, net.hidden)
        self.b1 = np.array(net.b1, dtype=np.float64)
        self.w2 = np.array(net.w2, dtype=np.float64)

    def _boards(self, results):
        np = self.np
        return np.frombuffer(b"".join(bytes(r.board) for r in results),
                             dtype=np.uint8).reshape(len(results), 52)

    def _ending(self, turns, mover):
        """(points, turn) of the result that bears off the last checker for the most
        points, or None when no result ends the game."""
        best = None
        for t in turns:
            if t[1].board[26 * mover + OFF] == CHECKERS:
                r = game_result(self.v, t[1], True)
                pts = r[2] if r and r[0] == mover else 0
                if best is None or pts > best[0]:
                    best = (pts, t)
        return best

    def values(self, b, turn):
        """The net's ratings (units of ``net.scale``) of boards ``b`` (N, 52) with
        ``turn`` to move: what ``Net.value_of`` gives, for all at once."""
        np = self.np
        x = self.encode(b, turn, self.net.extras, self.net.variant).astype(np.float64)
        h = np.maximum(x @ self.w1 + self.b1, 0)
        return (h @ self.w2).astype(np.int64) + self.net.b2

    def choose(self, pos, dice):
        np = self.np
        turns = self.v.legal_turns(pos, dice)
        mover = pos.turn
        end = self._ending(turns, mover)
        if end:
            return end[1]
        b = self._boards([t[1] for t in turns]).astype(np.int64)
        kept = self._kept(b, mover)
        vals = [-int(y) for y in self.values(b[kept], 1 - mover)]
        best = 0
        for j in range(1, len(kept)):
            if vals[j] > vals[best] or (vals[j] == vals[best]
                                        and turns[kept[j]][0] < turns[kept[best]][0]):
                best = j
        return turns[kept[best]]

    def _kept(self, b, mover):
        """The results (rows of ``b``, boards after ``mover``'s turn) the pre-filter
        keeps for the net: at most ``keep`` (``nardy.bot.keep_for``), in the
        firmware's replacement order."""
        np = self.np
        me, op = 26 * mover, 26 - 26 * mover
        idx = np.arange(26)
        # the opponent is to move in every result: its side first, as evaluate.py does
        q = (self.table[idx, b[:, op:op + 26]].sum(1)
             + self.table[26 + idx, b[:, me:me + 26]].sum(1)) - 52 * (1 << 24)
        scores = [-int(x) for x in q]
        keep = self.keep
        kept = list(range(min(keep, len(b))))
        if len(b) > keep:
            ks = scores[:keep]
            worst = ks.index(min(ks))
            for i in range(keep, len(b)):
                if scores[i] > ks[worst]:
                    ks[worst] = scores[i]
                    kept[worst] = i
                    worst = ks.index(min(ks))
        return kept

    def pick(self, counts):
        """The row of ``counts`` (N, 52: the results of one roll as own-path counts,
        the side then to move first, as ``nardy_host.distill`` keeps them) that the
        board's chooser plays: the pre-filter's best ``keep``, then the lowest net
        value for the opponent. Ties go to the first row (the board breaks them by
        the step tuple, which counts do not carry). The student of
        ``distill.positions``; a result that ends the game is the caller's."""
        np = self.np
        b = np.asarray(counts, np.int64)
        kept = self._kept(b, 1)         # the mover's side is the second 26 here
        return kept[int(np.argmin(self.values(b[kept], 0)))]

    def choose_1ply(self, pos, dice, width=4):
        """Expectimax one ply deeper (host only, a yardstick for the board's 0-ply
        choice): the ``width`` results the net rates best are each looked at
        through the opponent's 21 rolls, the opponent answering each with the result
        the net rates worst for us (or its last checker off: its points); the
        result with the best average is played (ties: the smaller step tuple)."""
        turns = self.v.legal_turns(pos, dice)
        mover = pos.turn
        end = self._ending(turns, mover)
        if end:
            return end[1]
        best = None
        for i in self.best_results(turns, mover, width):
            e = self._after_reply(turns[i][1], mover)
            if best is None or e > best[0] or (e == best[0] and turns[i][0] < best[1][0]):
                best = (e, turns[i])
        return best[1]

    def best_results(self, turns, mover, width):
        """Indices of the ``width`` results of ``turns`` the net rates best for
        ``mover``, best first (ties: the smaller step tuple): what 1-ply looks at."""
        ours = [-int(y) for y in self.values(self._boards([t[1] for t in turns]), 1 - mover)]
        return sorted(range(len(turns)), key=lambda i: (-ours[i], turns[i][0]))[:width]

    def _after_reply(self, result, mover):
        """Our expected equity (points per game) once the opponent has rolled and
        answered ``result``."""
        # all 21 rolls' replies are rated in one batch (one encode, one product);
        # the sum is then taken roll by roll, in the same order as ever
        per_roll, boards, starts = [], [], []
        for d1 in range(1, 7):
            for d2 in range(d1, 7):
                replies = self.v.legal_turns(result, (d1, d2))
                end = self._ending(replies, 1 - mover)
                if end:
                    per_roll.append((d1 == d2, -float(end[0])))
                else:
                    per_roll.append((d1 == d2, None))
                    starts.append(len(boards))
                    boards.extend(t[1] for t in replies)
        worst = iter(())
        if boards:
            vals = self.values(self._boards(boards), mover)
            worst = iter(self.np.minimum.reduceat(vals, starts).tolist())
        total = 0.0
        for double, e in per_roll:
            if e is None:
                e = float(next(worst)) / self.net.scale
            total += e if double else 2 * e
        return total / 36


def play_game(v, players, first, dice):
    """One game; ``players[c]`` plays colour c, ``dice`` (a Random) rolls for both.
    Returns ``(winner colour, points)``."""
    pos = v.start_position(turn=first)
    while True:
        roll = (dice.randint(1, 6), dice.randint(1, 6))
        steps, pos = players[pos.turn](pos, roll)
        if pos.board[OFF] == CHECKERS or pos.board[26 + OFF] == CHECKERS:
            r = game_result(v, pos, True)
            return r[0], r[2]


def pair_rng(seed, pair):
    """The dice (and first mover) of the pair of games 2k, 2k+1."""
    return random.Random(seed * 1000003 + pair)


def standard_error(units):
    """The standard error of the mean of ``units`` (0 with fewer than two)."""
    n = len(units)
    if n < 2:
        return 0.0
    mean = sum(units) / n
    return math.sqrt(sum((u - mean) ** 2 for u in units) / (n - 1) / n)


def _play_pairs(job):
    """Pairs ``lo`` .. ``hi - 1`` of a match: (wins and points of A and B, each pair's
    points per game for A). One process's share of ``play_match``."""
    a, b, variant, games, seed, weights, weights_b, lo, hi = job
    v = variant_of(variant)
    pa = make_player(a, v, random.Random(seed + 1), weights)
    pb = make_player(b, v, random.Random(seed + 2), weights_b or weights)
    stats = {"a_wins": 0, "a_points": 0, "b_points": 0}
    units = []
    for pair in range(lo, hi):
        net = 0
        played = 0
        for a_color in (0, 1)[:games - 2 * pair]:
            # the same first mover and rolls; A plays white, then black (C2 aside)
            dice = pair_rng(seed, pair)
            first = dice.randint(0, 1)
            players = [pb, pa] if a_color else [pa, pb]
            winner, pts = play_game(v, players, first, dice)
            played += 1
            if winner is None:
                continue
            if winner == a_color:
                stats["a_wins"] += 1
                stats["a_points"] += pts
                net += pts
            else:
                stats["b_points"] += pts
                net -= pts
        units.append(net / played)
    return stats, units


def play_match(a, b, variant, games, seed, weights=None, weights_b=None, workers=1):
    """``games`` games of A against B with duplicate dice; points per game for A
    and its standard error over the pairs (an odd last game is a unit of its own).

    ``workers`` > 1 shares the pairs out among that many processes, in contiguous
    runs: each pair's dice depend on the seed and the pair alone, so players without
    chance of their own (the nets, pubeval, gnubg) play exactly the games of one
    process, and the figures are the same; ``random`` and ``greedy`` draw their
    choices from a generator per process, so theirs differ."""
    if games < 1:
        raise DuelError("--games must be at least 1") from None
    if workers < 1:
        raise DuelError("--workers must be at least 1") from None
    if variant not in ("long", "short"):
        raise DuelError("variant must be long or short") from None
    # a bad player or weights file raises DuelError in the process that meets it
    # (pool.map raises it here), before that process plays a game
    pairs = (games + 1) // 2
    workers = min(workers, pairs)
    cuts = [pairs * k // workers for k in range(workers + 1)]
    jobs = [(a, b, variant, games, seed, weights, weights_b, cuts[k], cuts[k + 1])
            for k in range(workers)]
    if workers == 1:
        parts = [_play_pairs(jobs[0])]
    else:
        import multiprocessing
        with multiprocessing.Pool(workers) as pool:
            parts = pool.map(_play_pairs, jobs)
    stats = {"games": games, "a_wins": 0, "a_points": 0, "b_points": 0}
    units = []
    for part, part_units in parts:
        for k in part:
            stats[k] += part[k]
        units.extend(part_units)
    stats["ppg"] = round((stats["a_points"] - stats["b_points"]) / games, 4)
    stats["se"] = round(standard_error(units), 4)
    return stats


def register(sub):
    p = sub.add_parser("duel", help="play two players against each other (engine strength)")
    p.add_argument("a", metavar="A", help="player A: " + "|".join(PLAYERS)
                   + " (bot:FILE, expectimax:FILE: other weights)")
    p.add_argument("b", metavar="B", help="player B")
    p.add_argument("--variant", choices=("long", "short"), default="long")
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--weights", help="weights file for bot (default firmware/weights/)")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="play the pairs in N processes (the same games for every "
                        "player but random and greedy; default 1)")
    p.add_argument("--json", action="store_true", help="only the JSON line")
    p.set_defaults(func=run)


def run(args):
    try:
        r = play_match(args.a, args.b, args.variant, args.games, args.seed, args.weights,
                       workers=args.workers)
    except DuelError as e:
        raise UserError(str(e)) from None
    if not args.json:
        print("%s vs %s, %s nardy, %d games, duplicate dice (seed %d): A won %d (%.1f %%), "
              "points %d-%d, %+.3f ± %.3f ppg (standard error)" % (
                  args.a, args.b, args.variant, r["games"], args.seed, r["a_wins"],
                  100.0 * r["a_wins"] / r["games"], r["a_points"], r["b_points"], r["ppg"],
                  r["se"]))
    print(json.dumps(r))
