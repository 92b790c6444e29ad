"""nardy judge: each net's picks rated by a deeper gnubg on the first net's turns
against gnubg 0-ply (host only)."""

import json
import os
import random

import pytest

from nardy_host import cli, judge
from nardy_host.distill import START, equity
from nardy_host.duel import DuelError, weights_path

gnubg_nn = pytest.importorskip("gnubg_nn")
SHORT = weights_path("short")
SMALL = weights_path("short-small")
V5 = os.path.join(os.path.dirname(judge.__file__), "nets", "short-v5.bin")


def _positions(n, seed):
    """(board, d1, d2, after) of ``n`` turns with a choice, from random games."""
    rng = random.Random(seed)
    out = []
    board = [list(START), list(START)]
    while len(out) < n:
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        after = judge.results_of(board, d1, d2)
        if after is None:
            board = [list(START), list(START)]
            continue
        if not after:
            board = [board[1], board[0]]
            continue
        if len(after) > 1:
            out.append((board, d1, d2, after))
        board = rng.choice(after)
    return out


def test_rate_turn_at_ply_0_is_each_picks_equity_less_the_best():
    for board, d1, d2, after in _positions(30, 5):
        eq = [equity(gnubg_nn.probabilities(a, 0)) for a in after]
        rng = random.Random(len(after))
        picks = [rng.randrange(len(after)) for _ in range(3)]
        losses, g0 = judge.rate_turn(board, d1, d2, after, picks, 0)
        assert eq[g0] == min(eq)
        assert losses == pytest.approx([eq[i] - min(eq) for i in picks] + [0.0], abs=1e-6)


def test_rate_turn_at_ply_1_rates_each_pick_against_gnubgs_1_ply_choice():
    # a pick's loss is its own 1-ply equity less that of gnubg's 1-ply choice
    for board, d1, d2, after in _positions(6, 8):
        picks = list(range(len(after)))
        losses, g0 = judge.rate_turn(board, d1, d2, after, picks, 1)
        eq1 = [equity(gnubg_nn.probabilities(a, 1)) for a in after]
        # its choice's board, [mover, opponent] as ``after`` holds them
        played = tuple(map(tuple, gnubg_nn.boardfromkey(gnubg_nn.best_move(
            board, d1, d2, 1, b=1)[1])))
        chosen = [i for i, a in enumerate(after) if (tuple(a[0]), tuple(a[1])) == played]
        assert len(chosen) == 1
        assert losses[chosen[0]] == pytest.approx(0.0, abs=1e-6)
        for i in picks:
            assert losses[i] == pytest.approx(eq1[i] - eq1[chosen[0]], abs=1e-5)
        assert losses[-1] == losses[g0]


def test_the_same_net_twice_loses_the_same_and_ply_0_gnubg_nothing():
    r = judge.judge([SHORT, SHORT, SMALL], games=4, seed=2, ply=0)
    assert r["turns"] > 20 and r["games"] == 4
    a, b, small = r["nets"]
    assert a["loss"] == b["loss"] and b["vs_first"] == 0.0 and b["vs_first_se"] == 0.0
    assert r["gnubg0"]["loss"] == 0.0
    assert a["loss"] > 0.0 and small["loss"] > 0.0
    # the figures are means of per-turn losses: the difference is the difference
    assert small["vs_first"] == pytest.approx(small["loss"] - a["loss"], abs=2e-6)
    # and each is the mean of its classes' losses, weighed by their turns
    assert sum(r["classes"].values()) == r["turns"]
    assert set(r["classes"]) <= set(judge.CLASSES.values())
    for e in r["nets"] + [r["gnubg0"]]:
        assert set(e["by_class"]) == set(r["classes"])
        assert e["loss"] == pytest.approx(sum(
            e["by_class"][c] * n for c, n in r["classes"].items()) / r["turns"], abs=1e-5)


def test_workers_change_nothing_but_the_time():
    one = judge.judge([SHORT, SMALL], games=4, seed=7, ply=0)
    two = judge.judge([SHORT, SMALL], games=4, seed=7, ply=0, workers=2)
    assert one == two
    assert judge.judge([SHORT, SMALL], games=4, seed=8, ply=0) != one


def test_the_first_net_plays_the_games():
    # the first net's picks make the games: another first net meets other turns
    a = judge.judge([SHORT, SMALL], games=2, seed=4, ply=0)
    b = judge.judge([SMALL, SHORT], games=2, seed=4, ply=0)
    assert (a["turns"], a["nets"][1]["loss"]) != (b["turns"], b["nets"][0]["loss"])


def test_cli_prints_the_figures_and_json(capsys):
    assert cli.main(["judge", SHORT, SMALL, "--games", "1", "--seed", "3"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    r = json.loads(out[-1])
    assert r["ply"] == 2 and [e["net"] for e in r["nets"]] == [SHORT, SMALL]
    assert "by gnubg 2-ply" in out[0] and "gnubg 0-ply" in out[3]
    assert min(e["loss"] for e in r["nets"] + [r["gnubg0"]]) > -0.01
    assert out[4].startswith("by gnubg's class") and "gnubg 0-ply" in out[-2]


@pytest.mark.parametrize("args, message", [
    (["--games", "0"], "--games and --workers must be at least 1"),
    (["--workers", "0"], "--games and --workers must be at least 1"),
])
def test_cli_refuses_bad_numbers(capsys, args, message):
    assert cli.main(["judge", SHORT] + args) == 2
    assert message in capsys.readouterr().err


def test_a_bad_weights_file_is_a_clean_error(tmp_path, capsys):
    bad = tmp_path / "bad.bin"
    bad.write_bytes(b"NRDW" + bytes(40))
    assert cli.main(["judge", SHORT, str(bad), "--games", "1"]) == 2
    err = capsys.readouterr().err
    assert "bad.bin" in err and "Traceback" not in err
    long_net = weights_path("long")
    with pytest.raises(DuelError, match="long.bin"):
        judge.judge([long_net], games=1, seed=1, ply=0)
    with pytest.raises(DuelError, match="ply"):
        judge.judge([SHORT], games=1, seed=1, ply=3)


def test_a_nets_figure_is_its_own_whatever_is_judged_beside_it():
    # the reference is gnubg's own choice at the ply, not the best of the picks: a
    # net judged alone or beside another gets the same figure
    alone = judge.judge([SHORT], games=6, seed=9, ply=1)
    beside = judge.judge([SHORT, SMALL, weights_path("short")], games=6, seed=9, ply=1)
    assert alone["nets"][0] == beside["nets"][0]
    assert alone["gnubg0"]["loss"] == beside["gnubg0"]["loss"]


def test_a_pick_gnubgs_filter_dropped_may_gain():
    # games 0-3 of seed 15 hold a turn where v5 (the board's short net until
    # 2026-11-28, kept) picks a result gnubg's 1-ply move filter dropped and 1-ply
    # rates above gnubg's own 1-ply choice
    rows = judge._judge_games(([V5], 15, 1, 0, 4))
    assert min(r[0] for r in rows) < 0.0
    # gnubg 0-ply's own pick is always among the filter's candidates
    assert all(r[1] >= -1e-9 for r in rows)
