"""Random legal games written as journals in the board's format (nardy.record)."""

import os
import random

from nardy import record
from nardy.longnardy import LongNardy
from nardy.rules import WHITE
from nardy.scoring import game_result, opening_winner
from nardy.shortnardy import ShortNardy


def play(variant, rng, accept_illegal=0.0):
    """One game as journal records; each turn a random legal result (or, at the
    given rate, an illegal one that the opponent accepts)."""
    while True:
        first = opening_winner(rng.randint(1, 6), rng.randint(1, 6))
        if first is not None:
            break
    pos = variant.start_position(turn=first)
    recs = [record.game(variant, pos, {"match": 1, "game": 1}, first)]
    n = 0
    while game_result(variant, pos) is None and n < 2000:
        n += 1
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        recs.append(record.roll(n, pos.turn, dice))
        turns = variant.legal_turns(pos, dice)
        steps, res = rng.choice(turns)
        accepted, rule = False, None
        if accept_illegal and steps and rng.random() < accept_illegal:
            # play only the first step: a turn that does not use the dice (C5)
            res = variant.apply_step(pos, steps[0])
            verdict = variant.check_turn(pos, dice, res)
            if verdict is not None:
                accepted, rule = True, verdict[0]
                steps = steps[:1]
                res.turn = 1 - pos.turn
            else:
                res = [r for s, r in turns if s == steps][0]
        recs.append(record.turn(variant, n, pos.turn, dice, steps, res, accepted, rule))
        pos = res
    winner, kind, points = game_result(variant, pos)
    recs.append(record.end(winner, kind, points))
    return recs


def write_games(directory, variant_name, count, seed, accept_illegal=0.0):
    v = ShortNardy() if variant_name == "short" else LongNardy()
    rng = random.Random(seed)
    paths = []
    for i in range(count):
        path = os.path.join(directory, "%s-%03d.jsonl" % (variant_name, i))
        with open(path, "w") as f:
            for rec in play(v, rng, accept_illegal):
                f.write(record.dumps(rec) + "\n")
        paths.append(path)
    return paths


__all__ = ["play", "write_games", "WHITE"]
