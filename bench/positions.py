"""Benchmark positions: random self-play of each game plus hand-picked worst cases.
Written as lines "variant position_id d1 d2" so MicroPython can read them."""

import random

from nardy.longnardy import LongNardy
from nardy.notation import position_id
from nardy.rules import Position
from nardy.scoring import game_result
from nardy.shortnardy import ShortNardy


def self_play(variant, count, seed):
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        pos = variant.start_position(turn=rng.randint(0, 1))
        while len(out) < count:
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            out.append((variant.name, position_id(variant, pos), dice))
            _, pos = rng.choice(variant.legal_turns(pos, dice))
            if game_result(variant, pos) is not None:
                break
    return out


def _pos(mine, theirs, variant, bar=0):
    p = Position()
    me, op = p.side(0), p.side(1)
    for k, n in mine.items():
        me[k] = n
    for k, n in theirs.items():
        op[variant.opp_point(k)] = n
    me[0] = bar
    for s in (me, op):
        s[25] = 15 - sum(s[k] for k in range(25))
    return p


def worst_cases():
    """Doubles with checkers spread over many points, the bar, bear-off."""
    L, S = LongNardy(), ShortNardy()
    cases = []
    spread = {k: 1 for k in range(2, 17)}                       # 15 single checkers
    for d in (1, 2, 3, 4):
        cases.append((L, _pos(spread, {24: 15}, L), (d, d)))
    wide = {2: 2, 3: 1, 4: 2, 5: 1, 6: 1, 7: 2, 8: 1, 9: 1, 10: 2, 11: 1, 12: 1}
    for d in (1, 2, 3):
        cases.append((L, _pos(wide, {13: 5, 14: 5, 15: 5}, L), (d, d)))
    home = {19: 3, 20: 3, 21: 3, 22: 2, 23: 2, 24: 2}
    for d in (1, 2, 3, 6):
        cases.append((L, _pos(home, {5: 15}, L), (d, d)))
        cases.append((S, _pos(home, {5: 15}, S), (d, d)))
    sspread = {k: 1 for k in range(1, 25, 2)}
    sspread[24] = 3
    for d in (1, 2, 3, 4):
        cases.append((S, _pos(sspread, {k: 1 for k in range(2, 24, 2)}, S), (d, d)))
    cases.append((S, _pos({12: 3, 17: 3, 19: 5}, {3: 2, 5: 2}, S, bar=2), (1, 1)))
    cases.append((S, _pos({12: 3, 17: 3, 19: 6}, {}, S, bar=3), (6, 6)))
    return [(v.name, position_id(v, p), d) for v, p, d in cases]


def write(path, per_game=10000, seed=1):
    rows = self_play(LongNardy(), per_game, seed) + self_play(ShortNardy(), per_game, seed + 1)
    rows += worst_cases()
    with open(path, "w") as f:
        for name, pid, (a, b) in rows:
            f.write("%s %s %d %d\n" % (name, pid, a, b))
    return len(rows)
