"""1-ply targets for the long net (nardy_host.ply1): the labels are the yardstick's
search, a run gives the same data with any number of workers, and fitting lowers the
regret it reports."""

import random

import numpy as np
import pytest

from nardy.evaluate import Net
from nardy.longnardy import LongNardy
from nardy_host import ply1
from nardy_host.duel import HostBot, weights_path
from nardy_host.features import EXTRAS, boards_of, encode, inputs_for
from nardy_host.train import Mlp, TrainError, _start_from, widened


@pytest.fixture(scope="module")
def bot():
    return HostBot(LongNardy(), Net(weights_path("long"), "long"))


def test_the_first_decision_is_labelled_with_one_ply_values(bot):
    x, y, g = ply1.label_game(bot, seed=3, game=0, width=3)
    assert len(x) == len(y) == len(g) > 0
    assert x.dtype == np.uint8 and x.shape[1] == inputs_for(EXTRAS)
    assert np.all(np.abs(y) <= 3)                  # points: at most a koks-free mars, 2
    assert set(np.bincount(g)) <= {2, 3}           # each decision: its width, or fewer
    # the first roll with a choice again, by hand (long nardy's opening rolls have
    # one result: off the head): the net's best three, each valued through the
    # opponent's 21 replies, for the side to move in it
    v = bot.v
    rng = random.Random(3 * 1000003 + 0)
    pos = v.start_position(turn=rng.randint(0, 1))
    while True:
        turns = v.legal_turns(pos, (rng.randint(1, 6), rng.randint(1, 6)))
        if len(turns) > 1:
            break
        if rng.random() < 0.05:         # label_game's exploration draw
            rng.randrange(1)
        pos = turns[0][1]
    ours = [-int(q) for q in bot.values(bot._boards([t[1] for t in turns]), 1 - pos.turn)]
    top = sorted(range(len(turns)), key=lambda i: (-ours[i], turns[i][0]))[:3]
    first = np.flatnonzero(g == 0)
    want = [-bot._after_reply(turns[i][1], pos.turn) for i in top]
    assert np.allclose(y[first], want)
    assert np.array_equal(x[first], encode(boards_of([turns[i][1] for i in top]),
                                           1 - pos.turn, EXTRAS))


def test_labels_are_the_same_with_any_number_of_workers():
    w = weights_path("long")
    one = ply1.label(w, seed=5, games=2, width=2, workers=1)
    two = ply1.label(w, seed=5, games=2, width=2, workers=2)
    for a, b in zip(one, two):
        assert np.array_equal(a, b)
    g = one[2]
    assert np.all(np.diff(g) >= 0) and g[0] == 0      # numbered across both games


def _teacher_data(n_decisions, rng):
    """Random inputs labelled by a random net: what ``fit`` must learn."""
    teacher = Mlp(16, rng, inputs_for(EXTRAS))
    x = (rng.random((4 * n_decisions, inputs_for(EXTRAS))) < 0.2).astype(np.uint8)
    y = teacher(x.astype(np.float32)).astype(np.float32)
    return x, y, np.repeat(np.arange(n_decisions), 4)


def test_fit_lowers_the_held_out_regret_it_reports():
    rng = np.random.default_rng(1)
    x, y, g = _teacher_data(1500, rng)
    net = Mlp(16, np.random.default_rng(2), inputs_for(EXTRAS))
    lines = []
    scores = ply1.fit(net, x, y, g, lr=3e-3, epochs=4, rank=0.5, log=lines.append)
    assert len(scores) == 5 and len(lines) == 5
    (agree0, lost0), (agree1, lost1) = scores[0], scores[-1]
    assert lost1 < lost0 / 2 and agree1 > agree0 + 0.2, scores
    assert "held out 150 decisions" in lines[0]


def _fit_setup(tmp_path, decisions):
    """Labelled data, an 8-unit start's checkpoint and an output path in tmp_path."""
    rng = np.random.default_rng(3)
    x, y, g = _teacher_data(decisions, rng)
    data = tmp_path / "d.npz"
    np.savez(data, x=x, y=y, g=g)
    start = Mlp(8, np.random.default_rng(4), inputs_for(EXTRAS))
    init = tmp_path / "init.npz"
    np.savez(init, **{"p%d" % i: p for i, p in enumerate(start.params)})
    return rng, x, str(data), str(init), start, str(tmp_path / "long.bin")


def test_the_command_writes_weights_the_board_reads_and_a_checkpoint(tmp_path):
    _, _, data, init, start, out = _fit_setup(tmp_path, 200)
    # --hidden left out: the checkpoint's 8
    assert ply1.main(["fit", data, "--init", init, "--epochs", "1", "--out", out]) == 0
    net = Net(out, "long")
    assert net.hidden == 8 and net.extras == EXTRAS
    again = Mlp(8, np.random.default_rng(5), inputs_for(EXTRAS))
    _start_from(out + ".ckpt.npz", again)
    assert not np.array_equal(again.w1, start.w1)      # it moved, and was saved


def test_a_missing_or_mismatched_start_is_a_clean_error(tmp_path, capsys):
    rng = np.random.default_rng(3)
    x, y, g = _teacher_data(20, rng)
    data = tmp_path / "d.npz"
    np.savez(data, x=x, y=y, g=g)
    out = str(tmp_path / "long.bin")
    assert ply1.main(["fit", str(data), "--init", str(tmp_path / "no.npz"),
                      "--out", out]) == 2
    assert "cannot start from" in capsys.readouterr().err
    small = Mlp(8, np.random.default_rng(4), inputs_for(EXTRAS))
    init = tmp_path / "init.npz"
    np.savez(init, **{"p%d" % i: p for i, p in enumerate(small.params)})
    # fewer units than --hidden are widened (below); more are not cut
    assert ply1.main(["fit", str(data), "--init", str(init), "--hidden", "4",
                      "--out", out]) == 2
    assert "another shape" in capsys.readouterr().err


def test_a_widened_net_computes_what_the_narrow_one_did():
    rng = np.random.default_rng(8)
    narrow = Mlp(5, rng, inputs_for(EXTRAS))
    narrow.b1[:] = rng.normal(0, 0.1, 5)
    x = (rng.random((300, inputs_for(EXTRAS))) < 0.2).astype(np.float32)
    for hidden, noise, close in ((5, 0.0, 1e-6), (12, 0.0, 1e-5), (13, 0.002, 0.02)):
        wide = Mlp(hidden, rng, inputs_for(EXTRAS))
        for p, q in zip(wide.params, widened(narrow.params, hidden,
                                             np.random.default_rng(1), noise)):
            p[...] = q
        assert np.abs(wide(x) - narrow(x)).max() < close
        # each copy sits beside its unit: unit k past 5 copies unit k % 5
        assert np.array_equal(wide.b1[5:], narrow.b1[np.arange(hidden - 5) % 5])
        if noise:
            assert not np.array_equal(wide.w1[:, 5:10], narrow.w1)   # set apart
            assert np.abs(wide(x) - narrow(x)).max() > 0
    with pytest.raises(TrainError, match="cannot widen"):
        widened(narrow.params, 4, rng)


def test_the_command_widens_a_narrower_start(tmp_path):
    rng, x, data, init, start, out = _fit_setup(tmp_path, 100)
    assert ply1.main(["fit", data, "--init", init, "--hidden", "20", "--epochs", "1",
                      "--lr", "1e-9", "--out", out]) == 0
    assert Net(out, "long").hidden == 20
    wide = Mlp(20, rng, inputs_for(EXTRAS))
    _start_from(out + ".ckpt.npz", wide)
    xs = x.astype(np.float32)
    assert np.abs(wide(xs) - start(xs)).max() < 0.05       # the start's values, widened


def test_the_level_error_is_what_no_choice_sees():
    rng = np.random.default_rng(6)
    x, y, g = _teacher_data(50, rng)
    shift = rng.normal(0, 0.3, 50).astype(np.float32)
    shifted = lambda _x: y + shift[g]               # noqa: E731 (a net: inputs -> values)
    assert ply1.regret(shifted, x, y, g) == (1.0, 0.0)   # every choice still right
    assert ply1.level_error(shifted, x, y, g) == pytest.approx(
        float(np.sqrt(np.mean(shift ** 2))), rel=1e-5)
    assert ply1.level_error(lambda _x: y, x, y, g) == 0.0
