"""Long nardy: properties over random self-play (hypothesis)."""

import os
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, os.path.dirname(__file__))

from nardy.longnardy import LongNardy  # noqa: E402
from nardy.rules import BLACK, WHITE  # noqa: E402
from nardy.scoring import game_result  # noqa: E402

V = LongNardy()


def blocks_without_passer(v, pos, color):
    """Runs of >= 6 points of ``color``, consecutive along the opponent's path,
    with no opposing checker past them (written here from L5 alone)."""
    me = pos.side(color)
    opp = pos.side(1 - color)
    held = [False] * 26
    for k in range(1, 25):
        if me[k]:
            held[v.opp_point(k)] = True   # in the opponent's numbering
    bad = []
    run = 0
    for q in range(1, 26):
        if q <= 24 and held[q]:
            run += 1
            continue
        if run >= 6:
            last = q - 1
            if not opp[25] and not any(opp[j] for j in range(last + 1, 25)):
                bad.append((last - run + 1, last))
        run = 0
    return bad


def check_turns(pos, dice):
    turns = V.legal_turns(pos, dice)
    m = V.max_steps(pos, dice)
    start_blocks = blocks_without_passer(V, pos, pos.turn)
    first = V.is_first_turn(pos)
    phys_ok = True
    for steps, res in turns:
        assert len(steps) == m                                     # C5: maximum use
        for c in (WHITE, BLACK):
            assert sum(res.side(c)) == 15                           # C1: conserved
        owners = {}
        for c in (WHITE, BLACK):
            for k in range(1, 25):
                if res.side(c)[k]:
                    p = V.physical(c, k)
                    phys_ok &= owners.setdefault(p, c) == c          # L2: no sharing
        assert phys_ok
        left_head = pos.side(pos.turn)[1] - res.side(pos.turn)[1]
        assert left_head <= (2 if first and dice[0] == dice[1] else 1)   # L3/L4
        # L5: no new block. Every run left must lie within one that was there before
        # the turn (a random position may start with a block no game could reach:
        # moving the end checker off a seven-point run leaves six of them, which
        # makes no block)
        for a, b in blocks_without_passer(V, res, pos.turn):
            assert any(s0 <= a and b <= s1 for s0, s1 in start_blocks), (a, b, start_blocks)
        # every result is reachable step by step, each step offered when it is played
        cur = pos
        for i, s in enumerate(steps):
            assert s in V.next_steps(pos, dice, steps[:i])
            assert V.step_error(pos, dice, steps[:i], s) is None
            cur = V.apply_step(cur, s)
        assert cur.board == res.board
        assert V.check_turn(pos, dice, res) is None
        assert V.next_steps(pos, dice, steps) == []
    return turns


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False), st.integers(min_value=5, max_value=120))
def test_random_self_play_keeps_every_rule(rnd, turns_to_play):
    pos = V.start_position()
    for _ in range(turns_to_play):
        dice = (rnd.randint(1, 6), rnd.randint(1, 6))
        turns = check_turns(pos, dice)
        _, pos = rnd.choice(turns)
        if game_result(V, pos) is not None:
            break


@settings(max_examples=40, deadline=None)
@given(st.randoms(use_true_random=False))
def test_random_positions(rnd):
    from positions import random_long
    pos = random_long(rnd)
    dice = (rnd.randint(1, 6), rnd.randint(1, 6))
    check_turns(pos, dice)
