"""Random legal games written as journals in the board's format (nardy.record)."""

import os
import random

from nardy import record
from nardy.longnardy import LongNardy
from nardy.rules import WHITE
from nardy.scoring import game_result, opening_winner
from nardy.shortnardy import ShortNardy


def _onto_opponent(variant, pos):
    """A step of the side to move onto a point the opponent holds (two or more in
    short nardy, where one would be a hit), or None."""
    me = pos.turn
    for f in range(1, 25):
        if not pos.count(me, f):
            continue
        for t in range(f + 1, min(f + 6, 24) + 1):
            if pos.count(1 - me, variant.opp_point(t)) >= (2 if variant.HITS else 1):
                return (f, t)
    return None


def play(variant, rng, accept_illegal=0.0, mix_at=0):
    """One game as journal records; each turn a random legal result (or, at the
    given rate, an illegal one that the opponent accepts). With ``mix_at`` the
    first turn from that one on whose mover can reach an opponent's point is one
    step onto it, accepted: both colours share a point from then on, until one
    leaves it (seed 001 §3.4: the board records what it sees)."""
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
        mix = mix_at and n >= mix_at and not pos.count(pos.turn, 0) and _onto_opponent(
            variant, pos)
        if mix:
            steps, res = (mix,), variant.apply_step(pos, mix)
            res.turn = 1 - pos.turn
            accepted, rule = True, variant.check_turn(pos, dice, res)[0]
            mix_at = 0
        elif accept_illegal and steps and rng.random() < accept_illegal:
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
