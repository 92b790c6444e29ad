"""The long-nardy TD training run (nardy_host.train, tdplay, features): reproducible
from the seed whatever the worker count, resumable from its checkpoint with the same
result, and its version 2 weights played by the board exactly as trained."""

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nardy.bot import Bot
from nardy.evaluate import Net, _extras
from nardy.longnardy import LongNardy
from nardy.netfile import EXTRAS
from nardy.rules import Position
from nardy_host import duel, features, train

SMALL = ["long", "--hidden", "6", "--extras", "12", "--batch", "4", "--seed", "5",
         "--report", "1000", "--checkpoint-every", "4"]


def _run(tmp_path, name, games, *more):
    out = tmp_path / (name + ".bin")
    code = train.main(SMALL + ["--games", str(games), "--out", str(out), *more])
    return code, out


def _arrays(path):
    with np.load(path) as d:
        return {k: d[k] for k in d.files}


def test_stop_and_resume_give_the_same_weights(tmp_path):
    _, straight = _run(tmp_path, "straight", 12, "--workers", "1")
    ckpt = str(tmp_path / "cut.ckpt.npz")
    _, cut = _run(tmp_path, "cut", 8, "--workers", "1", "--checkpoint", ckpt)
    assert cut.read_bytes() != straight.read_bytes()     # 8 games are not 12
    assert _run(tmp_path, "cut", 12, "--workers", "1", "--checkpoint", ckpt,
                "--resume")[0] == 0
    assert cut.read_bytes() == straight.read_bytes()
    a, b = _arrays(ckpt), _arrays(str(straight) + ".ckpt.npz")
    assert a.keys() == b.keys()
    for k in a:
        assert np.array_equal(a[k], b[k]), k


def test_worker_processes_do_not_change_the_result(tmp_path):
    _, one = _run(tmp_path, "one", 8, "--workers", "1")
    _, two = _run(tmp_path, "two", 8, "--workers", "2")
    assert one.read_bytes() == two.read_bytes()
    _, other = _run(tmp_path, "other", 8, "--workers", "1", "--seed", "6")
    assert other.read_bytes() != one.read_bytes()


def test_a_checkpoint_of_another_run_is_refused(tmp_path, capsys):
    ckpt = str(tmp_path / "c.ckpt.npz")
    _run(tmp_path, "a", 4, "--workers", "1", "--checkpoint", ckpt)
    code, _ = _run(tmp_path, "a", 8, "--workers", "1", "--checkpoint", ckpt, "--resume",
                   "--lr", "0.01")
    assert code == 2
    assert "another run: lr" in capsys.readouterr().err
    (tmp_path / "junk.npz").write_bytes(b"not a checkpoint")
    code, _ = _run(tmp_path, "a", 8, "--workers", "1", "--resume", "--checkpoint",
                   str(tmp_path / "junk.npz"))
    assert code == 2
    assert "cannot resume" in capsys.readouterr().err


def test_a_run_started_from_another_goes_on_from_its_net(tmp_path, capsys):
    """--init: a new run (its own seed, a falling step size) from the net of another
    run's checkpoint; cut and resumed it gives what it gives unbroken."""
    _, old = _run(tmp_path, "old", 8, "--workers", "1")
    init = str(old) + ".ckpt.npz"
    more = ["--workers", "1", "--init", init, "--decay", "--seed", "7"]
    _, straight = _run(tmp_path, "straight", 8, *more)
    assert "started from the net of %s" % init in capsys.readouterr().out
    ckpt = str(tmp_path / "cut.ckpt.npz")
    _run(tmp_path, "cut", 8, *more, "--checkpoint", ckpt, "--stop-after", "4")
    assert _run(tmp_path, "cut", 8, *more, "--checkpoint", ckpt, "--resume")[0] == 0
    assert "resumed from %s at game 4" % ckpt in capsys.readouterr().out
    assert (tmp_path / "cut.bin").read_bytes() == straight.read_bytes()
    # it starts from the old net, not from a fresh one of its seed
    _, fresh = _run(tmp_path, "fresh", 8, *more[:2], *more[4:])
    assert straight.read_bytes() != fresh.read_bytes()
    first = train.Mlp(6, np.random.default_rng(0), features.inputs_for(EXTRAS))
    train._start_from(init, first)
    assert all(np.array_equal(p, _arrays(init)["p%d" % i])
               for i, p in enumerate(first.params))


def test_a_run_started_from_another_is_not_resumed_as_another(tmp_path, capsys):
    _, old = _run(tmp_path, "old", 4, "--workers", "1")
    _, other = _run(tmp_path, "other", 4, "--workers", "1", "--seed", "6")
    init = str(old) + ".ckpt.npz"
    ckpt = str(tmp_path / "c.ckpt.npz")
    _run(tmp_path, "new", 4, "--workers", "1", "--init", init, "--checkpoint", ckpt)
    for more in (["--init", init, "--decay"], ["--init", str(other) + ".ckpt.npz"], []):
        code, _ = _run(tmp_path, "new", 8, "--workers", "1", "--checkpoint", ckpt,
                       "--resume", *more)
        assert code == 2
        assert "is another run" in capsys.readouterr().err
    # a net of another shape, or no checkpoint at all, is refused in words
    code, _ = _run(tmp_path, "b", 4, "--workers", "1", "--init", init, "--hidden", "7")
    assert code == 2 and "another shape" in capsys.readouterr().err
    for bad in (old, tmp_path / "none.npz"):
        code, _ = _run(tmp_path, "b", 4, "--workers", "1", "--init", str(bad))
        assert code == 2 and "cannot start from" in capsys.readouterr().err


def test_a_falling_step_size_reaches_a_tenth_at_the_runs_end():
    args = train.main.__globals__["argparse"].Namespace(lr=1e-3, decay=True, games=1000)
    assert train._long_rate(args, 0) == 1e-3
    assert abs(train._long_rate(args, 500) - 1e-3 * 0.1 ** 0.5) < 1e-12
    assert abs(train._long_rate(args, 1000) - 1e-4) < 1e-12
    args.decay = False
    assert train._long_rate(args, 1000) == 1e-3


def test_version_2_weights_play_as_trained(tmp_path):
    """The board's integer net (version 2) rates as the float net it was trained as,
    within the quantisation, and the host player picks the board's turns."""
    _, out = _run(tmp_path, "v2", 8, "--workers", "1")
    net = Net(str(out), "long")
    assert net.extras == EXTRAS
    v = LongNardy()
    fw, host = Bot(v, net), duel.HostBot(v, net)
    rng = random.Random(4)
    pos = v.start_position()
    for _ in range(80):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        a, b = fw.choose(pos, dice), host.choose(pos, dice)
        assert a[1].board == b[1].board and a[0] == b[0]
        pos = rng.choice(v.legal_turns(pos, dice))[1]
        if pos.borne_off(0) == 15 or pos.borne_off(1) == 15:
            pos = v.start_position()


def _boards(draw):
    """Any long-nardy board: 15 checkers a side over path points 1..25."""
    board = bytearray(52)
    for side in (0, 26):
        for p in draw(st.lists(st.integers(1, 25), min_size=15, max_size=15)):
            board[side + p] += 1
    return board


@settings(max_examples=300, deadline=None)
@given(st.data(), st.integers(0, 1))
def test_host_extras_equal_the_boards(data, turn):
    board = _boards(data.draw)
    out = bytearray(EXTRAS)
    _extras(board, 26 * turn, 26 - 26 * turn, out)
    x = features.encode(features.boards_of([Position(board, turn)]), turn, EXTRAS)
    assert list(x[0, 208:]) == list(out)
    assert x.shape == (1, 208 + EXTRAS)


def test_extras_count_checked():
    with pytest.raises(ValueError):
        features.inputs_for(5)


def test_reports_keep_a_ladder_and_duel_its_previous_rung(tmp_path, capsys):
    ladder = tmp_path / "nets"
    code, out = _run(tmp_path, "l", 8, "--workers", "1", "--report", "4", "--ladder",
                     str(ladder), "--duel", "ladder,greedy", "--duel-games", "2")
    assert code == 0
    assert sorted(p.name for p in ladder.iterdir()) == ["long-0000004.bin",
                                                         "long-0000008.bin"]
    assert (ladder / "long-0000008.bin").read_bytes() == out.read_bytes()
    reports = [line for line in capsys.readouterr().out.splitlines() if "  games " in line]
    # the first report has no earlier rung; the second duels the first
    assert len(reports) == 2 and "vs long-" not in reports[0]
    assert "vs long-0000004.bin" in reports[1] and "vs greedy" in reports[1]
