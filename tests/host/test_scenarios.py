"""Short-nardy teacher positions (nardy_host.scenarios) and the deeper gnubg labels
(``train short --teacher-ply``, ``--scenarios``)."""

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nardy.rules import CHECKERS
from nardy.shortnardy import ShortNardy
from nardy_host import scenarios, train

HOME = range(19, 25)


def _side(pos, c):
    return list(pos.board[26 * c:26 * c + 26])


def _valid(pos):
    for c in (0, 1):
        assert sum(_side(pos, c)) == CHECKERS
        assert _side(pos, c)[25] < CHECKERS
    for p in range(1, 25):      # S2 aside: no point holds both colours
        assert not (pos.board[p] and pos.board[26 + 25 - p]), p


def _all_home(side):
    return sum(side[p] for p in HOME) + side[25] == CHECKERS


def _in_home_of(pos, a):
    """The other side's checkers in ``a``'s home (its path 1..6)."""
    return [pos.board[26 * (1 - a) + 25 - p] for p in HOME]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(scenarios.KINDS), st.integers(0, 10 ** 6))
def test_scenarios_are_positions_of_their_kind(kind, seed):
    pos = scenarios.make(kind, random.Random(seed))
    _valid(pos)
    v = ShortNardy()
    assert v.legal_turns(pos, (6, 5))          # the rules engine takes it
    found = False
    for a in (0, 1):
        side = _side(pos, a)
        if kind == "koks":
            found |= _all_home(side) and side[25] >= 11 and sum(_in_home_of(pos, a)) >= 1
        elif kind == "bearoff_contact":
            found |= _all_home(side) and max(_in_home_of(pos, a)) >= 2
        else:
            for start in range(1, 22):
                run = 0
                while start + run <= 24 and side[start + run] >= 2:
                    run += 1
                if run >= 4:
                    first_b = 25 - (start + run - 1)      # the prime's nearest point for B
                    b = _side(pos, 1 - a)
                    found |= sum(b[q] for q in range(0, first_b)) >= 1
    assert found, (kind, bytes(pos.board).hex())


def test_scenarios_start_teacher_games_and_deeper_labels_are_used():
    pytest.importorskip("gnubg_nn")
    v = ShortNardy()
    x0, y0 = train.teacher_data(v, 2, random.Random(3), 2, print, 0, 1.0)
    x1, y1 = train.teacher_data(v, 2, random.Random(3), 2, print, 1, 1.0)
    # the same games and positions (games are played at 0-ply), other labels
    assert np.array_equal(x0, x1)
    assert np.all(np.isfinite(y1)) and np.all(np.abs(y1) <= 3)
    assert not np.allclose(y0, y1)
    # with no scenarios the start position begins every game, as before
    rng = random.Random(5)
    assert train.start_of(v, rng, 0.0).board == v.start_position().board
