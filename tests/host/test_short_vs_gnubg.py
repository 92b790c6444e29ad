"""Short nardy against GNU Backgammon's move generator (gnubg-nn), 0 differences.

Also checks the tracker-facing queries against an oracle written here from the
rules alone (every step sequence, no transpositions, no pruning), so that
``next_steps`` / ``check_turn`` agree with the full enumeration."""

import os
import random
import sys

sys.path.insert(0, os.path.dirname(__file__))

from gnubg_ref import gnubg_results, our_results  # noqa: E402
from positions import random_short  # noqa: E402

from nardy.shortnardy import ShortNardy  # noqa: E402

V = ShortNardy()
N = int(os.environ.get("NARDY_GNUBG_POSITIONS", "20000"))


def test_every_distinct_play_matches_gnubg():
    rng = random.Random(20261121)
    diffs = []
    kinds = {"bar": 0, "bearoff": 0, "doubles": 0}
    for i in range(N):
        pos = random_short(rng)
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        me = pos.side(pos.turn)
        kinds["bar"] += bool(me[0])
        kinds["bearoff"] += all(me[k] == 0 for k in range(19))
        kinds["doubles"] += dice[0] == dice[1]
        if gnubg_results(pos, dice) != our_results(V, pos, dice):
            diffs.append((i, pos, dice))
    assert not diffs, "%d differences, first: %r" % (len(diffs), diffs[:3])
    # the sample really covers what it claims to
    assert kinds["bar"] > N // 5 and kinds["bearoff"] > N // 5 and kinds["doubles"] > N // 10


# -- an independent oracle: all step sequences, straight from S2, S3, C3-C6 --------

def _legal(side, opp, f, d):
    if side[f] == 0 or (side[0] and f != 0):
        return None
    t = f + d
    if t >= 25:
        if any(side[k] for k in range(19)):
            return None
        if t > 25 and any(side[k] for k in range(19, f)):
            return None
        return 25
    if opp[25 - t] >= 2:
        return None
    return t


def _sequences(side, opp, dice, prefix, out):
    extended = False
    for i, d in enumerate(dice):
        for f in range(25):
            t = _legal(side, opp, f, d)
            if t is None:
                continue
            s2, o2 = list(side), list(opp)
            s2[f] -= 1
            s2[t] += 1
            if t < 25 and o2[25 - t] == 1:
                o2[25 - t] = 0
                o2[0] += 1
            extended = True
            _sequences(s2, o2, dice[:i] + dice[i + 1:], prefix + [(f, t, d)], out)
    if not extended:
        out.append((prefix, side, opp))


def oracle(pos, dice):
    """(first steps of maximal turns, set of result sides)"""
    a, b = dice
    ds = [a] * 4 if a == b else [a, b]
    seqs = []
    _sequences(list(pos.side(pos.turn)), list(pos.side(1 - pos.turn)), ds, [], seqs)
    m = max(len(p) for p, _, _ in seqs)
    keep = [x for x in seqs if len(x[0]) == m]
    if m == 1 and a != b and any(p[0][2] == max(a, b) for p, _, _ in keep):
        keep = [x for x in keep if x[0][0][2] == max(a, b)]
    firsts = {(p[0][0], p[0][1]) for p, _, _ in keep if p}
    return firsts, {(tuple(s), tuple(o)) for _, s, o in keep}


def test_next_steps_and_check_turn_agree_with_the_oracle():
    rng = random.Random(7)
    for _ in range(1500):
        pos = random_short(rng)
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        firsts, finals = oracle(pos, dice)
        assert set(V.next_steps(pos, dice)) == firsts, (pos, dice)
        ours = set()
        for steps, res in V.legal_turns(pos, dice):
            ours.add((tuple(res.side(pos.turn)), tuple(res.side(1 - pos.turn))))
            assert V.check_turn(pos, dice, res) is None
            # each step of the sequence is offered after the ones before it
            for i in range(len(steps)):
                assert steps[i] in V.next_steps(pos, dice, steps[:i])
        assert ours == finals
        # a final that is not in the list is refused, with a rule id
        for steps, _ in V.legal_turns(pos, dice)[:3]:
            if steps:
                shorter = pos
                for s in steps[:-1]:
                    shorter = V.apply_step(shorter, s)
                key = (tuple(shorter.side(pos.turn)), tuple(shorter.side(1 - pos.turn)))
                if key not in finals:
                    verdict = V.check_turn(pos, dice, shorter)
                    assert verdict is not None and verdict[0] in ("C5", "C3"), verdict
