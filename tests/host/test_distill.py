"""The short net taught by gnubg-nn (``nardy_host.train short --source gnubg``,
``nardy_host.distill``): reproducible from the seed, resumable, its positions and
labels those of the rules engine and gnubg, and its integer weights choosing what
the float net it was trained as chooses."""

import os
import random
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nardy.evaluate import Net, _short_extras, _shots
from nardy.netfile import EXTRAS, WeightsError
from nardy.rules import Position
from nardy.shortnardy import ShortNardy
from nardy_host import distill, features, train

sys.path.insert(0, os.path.dirname(__file__))
from positions import random_short  # noqa: E402

SMALL = ["short", "--source", "gnubg", "--games", "6", "--hidden", "8", "--epochs", "3",
         "--report", "99", "--decay", "--scenarios", "0.5"]
V = ShortNardy()


def _run(tmp_path, name, *more):
    out = tmp_path / (name + ".bin")
    code = train.main(SMALL + ["--out", str(out), *more])
    return code, out


def _float_net(ckpt, hidden, extras=0):
    net = train.Mlp(hidden, np.random.default_rng(0), features.inputs_for(extras))
    with np.load(ckpt) as d:
        for i, p in enumerate(net.params):
            p[...] = d["p%d" % i]
    return net


def test_the_same_seed_gives_the_same_weights(tmp_path):
    _, a = _run(tmp_path, "a", "--seed", "5")
    _, b = _run(tmp_path, "b", "--seed", "5")
    _, c = _run(tmp_path, "c", "--seed", "6")
    assert a.read_bytes() == b.read_bytes()
    assert c.read_bytes() != a.read_bytes()


def test_stop_and_resume_give_the_same_weights(tmp_path):
    _, straight = _run(tmp_path, "straight", "--seed", "5")
    ckpt = str(tmp_path / "cut.ckpt.npz")
    # the first epoch only, then the run goes on from its checkpoint
    code, cut = _run(tmp_path, "cut", "--seed", "5", "--checkpoint", ckpt, "--stop-after", "1")
    assert code == 0
    assert cut.read_bytes() != straight.read_bytes()
    assert _run(tmp_path, "cut", "--seed", "5", "--checkpoint", ckpt, "--resume")[0] == 0
    assert cut.read_bytes() == straight.read_bytes()


def test_a_checkpoint_of_another_run_is_refused(tmp_path, capsys):
    ckpt = str(tmp_path / "c.ckpt.npz")
    _run(tmp_path, "a", "--seed", "5", "--checkpoint", ckpt)
    code, _ = _run(tmp_path, "a", "--seed", "5", "--checkpoint", ckpt, "--resume",
                   "--lr", "0.01")
    assert code == 2
    assert "another run: lr" in capsys.readouterr().err
    (tmp_path / "junk.npz").write_bytes(b"not a checkpoint")
    code, _ = _run(tmp_path, "a", "--resume", "--checkpoint", str(tmp_path / "junk.npz"))
    assert code == 2
    assert "cannot resume" in capsys.readouterr().err


def test_a_cache_of_other_teacher_data_is_not_used(tmp_path):
    cache = str(tmp_path / "t.npz")
    _, a = _run(tmp_path, "a", "--seed", "5", "--cache", cache)
    _, b = _run(tmp_path, "b", "--seed", "5", "--cache", cache)   # read back
    assert a.read_bytes() == b.read_bytes()
    _, c = _run(tmp_path, "c", "--seed", "5", "--cache", cache, "--others", "1")
    with np.load(cache) as d:               # regenerated for the new arguments
        assert d["meta"][3] == 1
    assert c.read_bytes() != a.read_bytes()


def test_nets_of_other_seeds_on_the_same_data_and_their_mean(tmp_path, capsys):
    """--net-seed: another start and order on the same teacher data; --average:
    their mean as one net of 260 units (weights version 4), which the board and the
    host's duel player rate as the mean of the float nets."""
    from nardy.bot import Bot
    from nardy_host import duel
    cache = str(tmp_path / "t.npz")
    same = ["--seed", "5", "--cache", cache, "--hidden", "130", "--extras", str(EXTRAS)]
    _, plain = _run(tmp_path, "plain", *same)
    _, five = _run(tmp_path, "five", *same, "--net-seed", "5")
    _, a = _run(tmp_path, "a", *same, "--net-seed", "1")
    _, b = _run(tmp_path, "b", *same, "--net-seed", "2")
    assert five.read_bytes() == plain.read_bytes()       # the default is --seed
    assert a.read_bytes() != plain.read_bytes() != b.read_bytes()
    code, m = _run(tmp_path, "m", *same, "--average", "%s.ckpt.npz,%s.ckpt.npz" % (a, b))
    assert code == 0
    head = m.read_bytes()[:16]
    assert head[4] == 4 and head[6] | head[11] << 8 == 260
    net = Net(str(m), "short")
    assert net.hidden == 260 and net.extras == EXTRAS
    fa, fb = (_float_net(str(x) + ".ckpt.npz", 130, EXTRAS) for x in (a, b))
    fw, host = Bot(V, net), duel.HostBot(V, net)
    rng = random.Random(3)
    for _ in range(40):
        pos = random_short(rng)
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        results = [t[1] for t in V.legal_turns(pos, dice)
                   if t[1].borne_off(pos.turn) < 15]
        if results:
            x = features.encode(features.boards_of(results), 1 - pos.turn, EXTRAS,
                                "short").astype(np.float32)
            want = (fa(x) + fb(x)) / 2
            got = [net.value(r) / net.scale for r in results]
            assert max(abs(p - q) for p, q in zip(got, want)) < 0.002
        one, two = fw.choose(pos, dice), host.choose(pos, dice)
        assert one[1].board == two[1].board
    # a net trained on other teacher data is refused, by name
    _, c = _run(tmp_path, "c", "--seed", "6", "--hidden", "130", "--extras", str(EXTRAS))
    capsys.readouterr()
    code, _ = _run(tmp_path, "m2", *same, "--average", "%s.ckpt.npz,%s.ckpt.npz" % (a, c))
    assert code == 2
    assert "c.bin.ckpt.npz was trained on other teacher data: seed 6 (here 5)" in \
        capsys.readouterr().err


def test_the_committed_short_net_is_the_mean_of_its_four_checkpoints(tmp_path):
    """firmware/weights/short.bin (v6) is ``--average`` of the four committed
    checkpoints: written again from them, with the file's own pre-filter (fitted to
    teacher data not kept here), it is the same file, byte for byte."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    nets = os.path.join(root, "host_tools", "nardy_host", "nets")
    members = [_float_net(os.path.join(nets, name), 128, EXTRAS)
               for name in ("short-v4.ckpt.npz", "short-n77.ckpt.npz",
                            "short-b25.ckpt.npz", "short-b77.ckpt.npz")]
    with open(os.path.join(root, "firmware", "weights", "short.bin"), "rb") as f:
        committed = f.read()
    lin = np.frombuffer(committed[16:16 + 2 * 208], "<i2").astype(np.float32)
    ql = committed[9]
    out = tmp_path / "short.bin"
    train.write_weights(str(out), "short", train.averaged(members), lin / (1 << ql))
    assert out.read_bytes() == committed


def test_the_board_reads_no_net_wider_than_512(tmp_path, capsys):
    net = train.Mlp(513, np.random.default_rng(0), features.inputs_for(0))
    with pytest.raises(train.TrainError, match="1 to 512 hidden units, not 513"):
        train.write_weights(str(tmp_path / "w.bin"), "short", net, np.zeros(208))
    assert not (tmp_path / "w.bin").exists()


def test_a_bad_weights_file_is_refused(tmp_path):
    _, out = _run(tmp_path, "w", "--seed", "5")
    Net(str(out), "short")                                  # the good one reads
    data = bytearray(out.read_bytes())
    flipped = data[:20] + bytes([data[20] ^ 1]) + data[21:]      # fails the CRC
    for bad in (data[:-3], flipped):
        path = tmp_path / "bad.bin"
        path.write_bytes(bytes(bad))
        with pytest.raises(WeightsError):
            Net(str(path), "short")
    with pytest.raises(WeightsError):
        Net(str(out), "long")                               # the other game's file


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 10 ** 9))
def test_gnubg_boards_give_the_rules_engines_inputs(seed):
    pos = random_short(random.Random(seed))
    mine = features.encode(features.boards_of([pos]), pos.turn)
    theirs = distill.raw_inputs(np.array([distill.counts_of(train.to_gnubg(pos))],
                                         np.uint8))
    assert np.array_equal(mine, theirs)


def test_teacher_positions_are_legal_results_labelled_with_gnubgs_equity():
    c, y, g = distill.positions(4, 11, best=3, others=2, scenarios=0.5)
    assert g.sum() == len(y) and g.max() <= 5
    assert len(c) == len(y) > 100
    assert np.array_equal(distill.positions(4, 11, best=3, others=2, scenarios=0.5)[0], c)
    for row, label in zip(c[::7], y[::7]):
        pos = Position(bytearray(row.tobytes()), 0)         # the side to move first
        for side in (0, 1):
            assert sum(pos.side(side)) == 15 and pos.borne_off(side) < 15
        assert abs(train.gnubg_equity(pos) - label) < 1e-6


def test_the_teachers_best_result_is_labelled_every_turn():
    """best=1, others=0: one position a turn, the result gnubg plays (the lowest
    equity for the opponent among the roll's results)."""
    import gnubg_nn
    rng = random.Random(3)
    counts, labels = bytearray(), []
    distill.play_game(rng, 1, 0, 0.0, 0.0, 0, counts, labels)
    assert len(labels) > 10
    c = np.frombuffer(bytes(counts), np.uint8).reshape(-1, 52)
    for row, label in zip(c, labels):
        pos = Position(bytearray(row.tobytes()), 0)
        assert abs(train.gnubg_equity(pos) - label) < 1e-6
    # and the same game replayed through gnubg's own best move gives those positions
    rng = random.Random(3)
    board = [list(distill.START), list(distill.START)]
    for row in c:
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        while not gnubg_nn.moves(board, d1, d2):
            board = [board[1], board[0]]
            d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        rng.random()                                            # the exploration draw
        after = min((list(map(list, gnubg_nn.boardfromkey(k)))[::-1]
                     for k in gnubg_nn.moves(board, d1, d2)),
                    key=lambda b: distill.equity(gnubg_nn.probabilities(b, 0)))
        assert distill.counts_of(after) == list(row)
        board = after


@pytest.mark.parametrize("extras", [0, EXTRAS])
def test_the_integer_net_chooses_what_the_float_net_chooses(tmp_path, extras):
    """The weights file the board reads rates the results of a roll as the float net
    it was quantised from: the same choice wherever the float net's best result leads
    the next by more than twice the quantisation's error (nearly always); with the
    extra inputs too (weights version 3)."""
    ERROR = 0.002       # equity; int16 weights at the largest scale that fits
    _, out = _run(tmp_path, "q", "--seed", "5", "--hidden", "16", "--extras", str(extras))
    net = Net(str(out), "short")
    assert net.extras == extras and out.read_bytes()[4] == (3 if extras else 1)
    flt = _float_net(str(out) + ".ckpt.npz", 16, extras)
    rng = random.Random(9)
    same = close = 0
    for _ in range(150):
        pos = random_short(rng)
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        results = [t[1] for t in V.legal_turns(pos, dice)
                   if t[1].borne_off(pos.turn) < 15]
        if len(results) < 2:
            continue
        ints = [net.value(r) / net.scale for r in results]
        floats = flt(features.encode(features.boards_of(results), 1 - pos.turn, extras,
                                     "short").astype(np.float32))
        assert max(abs(a - b) for a, b in zip(ints, floats)) < ERROR
        gap = np.sort(floats)[1] - np.sort(floats)[0]
        if gap < 2 * ERROR:         # within the error both ways: either may win
            close += 1
            continue
        assert int(np.argmin(ints)) == int(np.argmin(floats))
        same += 1
    assert same > 3 * close


def test_version_3_weights_play_on_the_host_as_on_the_board(tmp_path):
    """``nardy duel``'s host player (numpy) picks the board's turns with a version 3
    net: the duels measure the net the board plays."""
    from nardy.bot import Bot
    from nardy_host import duel
    _, out = _run(tmp_path, "v3", "--seed", "5", "--extras", str(EXTRAS))
    net = Net(str(out), "short")
    fw, host = Bot(V, net), duel.HostBot(V, net)
    rng = random.Random(4)
    pos = V.start_position()
    for _ in range(80):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        a, b = fw.choose(pos, dice), host.choose(pos, dice)
        assert a[1].board == b[1].board and a[0] == b[0]
        pos = rng.choice(V.legal_turns(pos, dice))[1]
        if pos.borne_off(0) == 15 or pos.borne_off(1) == 15:
            pos = V.start_position()


def _short_boards(draw):
    """Any short-nardy board: 15 checkers a side over path points 0 (bar) .. 25."""
    board = bytearray(52)
    for side in (0, 26):
        for p in draw(st.lists(st.integers(0, 25), min_size=15, max_size=15)):
            board[side + p] += 1
    return board


@settings(max_examples=300, deadline=None)
@given(st.data(), st.integers(0, 1))
def test_host_short_extras_equal_the_boards(data, turn):
    """``features.short_extras`` (training, the host player) is the board's
    ``_short_extras`` and ``_shots`` on any board, in a race or not."""
    board = _short_boards(data.draw)
    me, op = 26 * turn, 26 - 26 * turn
    out = bytearray(EXTRAS)
    _short_extras(board, me, op, out)
    out[0], out[6] = _shots(board, me, op), _shots(board, op, me)
    x = features.encode(features.boards_of([Position(board, turn)]), turn, EXTRAS, "short")
    assert x.shape == (1, 208 + EXTRAS)
    assert list(x[0, 208:]) == list(out)
    # the teacher's positions (the side to move first) get the same
    counts = np.frombuffer(bytes(board[me:me + 26] + board[op:op + 26]), np.uint8)
    assert list(distill.extra_inputs(counts.reshape(1, 52))[0]) == list(out)


def test_short_extras_need_the_gnubg_source(capsys):
    with pytest.raises(SystemExit):
        train.main(["short", "--extras", "12", "--out", "x.bin"])
    assert "--source gnubg" in capsys.readouterr().err


def test_a_minibatch_holds_whole_turns():
    sizes = np.array([3, 1, 4, 2])
    start = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    idx, grp = train._members(start, sizes, np.array([2, 0, 3]))
    assert list(idx) == [4, 5, 6, 7, 0, 1, 2, 8, 9]
    assert list(grp) == [0, 0, 0, 0, 1, 1, 1, 2, 2]


@settings(max_examples=20, deadline=None)
@given(st.lists(st.floats(-2, 2), min_size=3, max_size=3), st.integers(0, 1000))
def test_the_rank_loss_ignores_an_error_shared_by_a_turns_results(shifts, seed):
    """With the whole loss on differences within a turn, labels off by a constant
    per turn teach nothing; the plain loss does learn from them."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 3, (12, 208)).astype(np.float32)
    grp = np.repeat(np.arange(3), 4)
    net = train.Mlp(5, np.random.default_rng(seed))
    y = net(x) + np.array(shifts, np.float32)[grp]
    net.step(x, y, 1e-2, grp, 1.0)
    for m in net.m:                 # Adam's first moment: a tenth of the gradient
        assert np.allclose(m, 0, atol=1e-6)
    if max(map(abs, shifts)) > 0.1:
        net.step(x, y, 1e-2, grp, 0.5)
        assert not np.allclose(net.m[3], 0, atol=1e-6)


def test_top_weights_mark_the_teachers_best_of_each_turn():
    sizes = np.array([3, 1, 4])
    start = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    turns = np.array([2, 0, 1])
    idx, grp = train._members(start, sizes, turns)
    args = train.main.__globals__["argparse"].Namespace(top_weight=3.0, best=2)
    w = train._top_weights(idx, grp, start, turns, args)
    assert list(w) == [3, 3, 1, 1, 3, 3, 1, 3]
    args.top_weight = 1.0
    assert train._top_weights(idx, grp, start, turns, args) is None


def test_a_row_of_weight_zero_teaches_nothing():
    rng = np.random.default_rng(2)
    x = rng.integers(0, 3, (6, 208)).astype(np.float32)
    grp = np.repeat(np.arange(2), 3)
    net = train.Mlp(5, np.random.default_rng(2))
    y = net(x)
    y[4] += 1.0                      # the only error is in a row weighed 0
    net.step(x, y, 1e-2, grp, 0.0, np.array([1, 1, 1, 1, 0, 1.0]))
    for m in net.m:
        assert np.allclose(m, 0, atol=1e-6)
    net.step(x, y, 1e-2, grp, 0.0)
    assert not np.allclose(net.m[3], 0, atol=1e-6)


# -- the student (DAgger): the board's own net plays a share of the teacher's games --

def _results_as_counts(pos, turns):
    """The results of a roll as ``distill`` keeps them: own-path counts, the side
    then to move (the mover's opponent) first."""
    me, op = 26 * pos.turn, 26 - 26 * pos.turn
    return np.array([list(t[1].board[op:op + 26]) + list(t[1].board[me:me + 26])
                     for t in turns], np.uint8)


def test_the_student_picks_what_the_board_plays():
    """``HostBot.pick`` on a roll's results as counts is the board's choice
    (``HostBot.choose``, itself checked against the firmware's ``Bot``), but for
    ties, which the board breaks by the step tuple the counts do not carry."""
    from nardy_host import duel
    bot = duel.HostBot(V, Net(duel.weights_path("short"), "short"))
    rng = random.Random(3)
    same = 0
    for _ in range(300):
        pos = random_short(rng)
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        turns = V.legal_turns(pos, dice)
        if len(turns) < 2 or bot._ending(turns, pos.turn):
            continue
        mine = turns[bot.pick(_results_as_counts(pos, turns))][1]
        board = bot.choose(pos, dice)[1]
        if mine.board != board.board:
            assert bot.net.value(mine) == bot.net.value(board)      # a tie
        else:
            same += 1
    assert same > 150


class _Recorder:
    """A student that plays the roll's last result and remembers what it saw."""

    def __init__(self):
        self.seen = []

    def __call__(self, counts):
        self.seen.append(counts.copy())
        return len(counts) - 1


def test_a_student_plays_its_share_of_the_turns_and_the_teacher_labels_them():
    """With ``share`` 1 and no exploration the student plays every turn (here the
    last result of each roll, as gnubg lists them), and each turn's one label
    (best=1) is still the teacher's best result of that roll."""
    student = _Recorder()
    counts, labels = bytearray(), []
    turns = distill.play_game(random.Random(3), 1, 0, 0.0, 0.0, 0, counts, labels,
                              student=student, share=1.0)
    # the last turn bears off the last checker: played at once, unlabelled
    assert turns - 1 == len(student.seen) == len(labels) > 10
    c = np.frombuffer(bytes(counts), np.uint8).reshape(-1, 52)
    for results, row, label in zip(student.seen, c, labels):
        assert any(np.array_equal(row, r) for r in results)
        eq = [train.gnubg_equity(Position(bytearray(r.tobytes()), 0)) for r in results]
        assert abs(min(eq) - label) < 1e-6                # the best for the mover
    # the next roll's results follow from the student's result, not the teacher's
    teacher = bytearray()
    distill.play_game(random.Random(3), 1, 0, 0.0, 0.0, 0, teacher, [])
    assert bytes(teacher) != bytes(counts)


def test_a_student_with_half_the_turns_plays_about_half():
    student = _Recorder()
    c, y, g = distill.positions(6, 4, best=2, others=1, explore=0.0, student=student,
                                share=0.5)
    assert 0.3 * len(g) < len(student.seen) < 0.7 * len(g)
    again = distill.positions(6, 4, best=2, others=1, explore=0.0, student=_Recorder(),
                              share=0.5)
    assert all(np.array_equal(a, b) for a, b in zip((c, y, g), again))


def test_a_run_with_a_student_adds_its_games_with_a_cache_of_their_own(tmp_path, capsys):
    cache = tmp_path / "t.npz"
    _, first = _run(tmp_path, "first", "--seed", "5", "--cache", str(cache))
    more = ["--seed", "5", "--cache", str(cache), "--student", str(first),
            "--student-games", "3"]
    _, a = _run(tmp_path, "a", *more)
    student_cache = tmp_path / "t-student.npz"
    with np.load(cache) as base, np.load(student_cache) as added:
        assert len(added["g"]) > 20 and added["meta"][-1] != 0     # the student's CRC
        base_n = len(base["y"])
    _, b = _run(tmp_path, "b", *more)                            # both read back
    assert a.read_bytes() == b.read_bytes() != first.read_bytes()
    out = capsys.readouterr().out
    assert "teacher data from %s" % student_cache in out and str(base_n) in out
    # another student is another data set, and another run: its checkpoint is not
    # resumed with the first student's
    _, c = _run(tmp_path, "c", *more[:-3], str(a), "--student-games", "3")
    assert "holds other teacher data" in capsys.readouterr().out
    assert c.read_bytes() != a.read_bytes()
    code, _ = _run(tmp_path, "c", *more, "--resume", "--checkpoint", str(c) + ".ckpt.npz")
    assert code == 2 and "another run: student" in capsys.readouterr().err


def _refused_options(capsys, cases, message):
    """Each of ``cases`` (options added to SMALL) stops the run with ``message``."""
    for more in cases:
        with pytest.raises(SystemExit):
            train.main(SMALL + ["--out", "x.bin"] + more)
        assert message in capsys.readouterr().err


def test_a_student_needs_its_games(capsys):
    _refused_options(capsys, (
        ["--student", "x.bin"], ["--student-games", "3"],
        ["--student", "x.bin", "--student-games", "3", "--student-share", "2"]), "--student")


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 10 ** 9))
def test_board_of_undoes_counts_of(seed):
    board = train.to_gnubg(random_short(random.Random(seed)))
    counts = np.array(distill.counts_of(board), np.uint8)
    assert distill.board_of(counts) == [list(board[0]), list(board[1])]


def test_relabel_labels_the_best_of_each_turn_at_the_deeper_ply():
    import gnubg_nn
    c, y, g = distill.positions(2, 7, best=2, others=2)
    y1 = distill.relabel(c, y, g, 2, 1, workers=1, chunk=50)
    assert np.array_equal(distill.relabel(c, y, g, 2, 1, workers=2, chunk=37), y1)
    start = np.concatenate([[0], np.cumsum(g)[:-1]])
    within = np.arange(len(y)) - np.repeat(start, g)
    assert np.array_equal(y1[within >= 2], y[within >= 2])     # the others keep ply 0
    best = np.flatnonzero(within < 2)
    assert (y1[best] != y[best]).mean() > 0.5
    for i in best[::5]:
        ply1 = distill.equity(gnubg_nn.probabilities(distill.board_of(c[i]), 1))
        assert abs(float(y1[i]) - ply1) < 1e-6


def test_relabel_can_take_every_result_of_the_first_turns():
    import gnubg_nn
    c, y, g = distill.positions(2, 7, best=2, others=2)
    turns = len(g) // 2
    y1 = distill.relabel(c, y, g, 0, 1, workers=1, chunk=50, turns=turns)
    end = int(np.sum(g[:turns]))
    assert np.array_equal(y1[end:], y[end:])            # the later turns keep ply 0
    assert (y1[:end] != y[:end]).mean() > 0.5
    for i in range(0, end, 7):                          # best or not, within a turn
        ply1 = distill.equity(gnubg_nn.probabilities(distill.board_of(c[i]), 1))
        assert abs(float(y1[i]) - ply1) < 1e-6
    assert np.array_equal(distill.relabel(c, y, g, 0, 1, workers=2, chunk=37,
                                          turns=turns), y1)


def test_a_run_with_relabelled_teacher_data_keeps_them_and_is_a_run_of_its_own(
        tmp_path, capsys):
    cache = tmp_path / "t.npz"
    _, plain = _run(tmp_path, "plain", "--seed", "5", "--cache", str(cache))
    more = ["--seed", "5", "--cache", str(cache), "--relabel-ply", "1", "--workers", "1"]
    _, a = _run(tmp_path, "a", *more)
    with np.load(cache) as base, np.load(tmp_path / "t-ply1.npz") as deeper:
        assert len(deeper["y"]) == len(base["y"])
        assert 0 < (deeper["y"] != base["y"]).mean() < 1
    _, b = _run(tmp_path, "b", *more)                           # read back
    assert a.read_bytes() == b.read_bytes() != plain.read_bytes()
    assert "teacher data from %s" % (tmp_path / "t-ply1.npz") in capsys.readouterr().out
    code, _ = _run(tmp_path, "plain", *more, "--resume")     # ply 0's checkpoint
    assert code == 2 and "another run" in capsys.readouterr().err
    # every result of the first 10 turns: other labels, another run, its own cache key
    _, every = _run(tmp_path, "every", *more, "--relabel-all", "--relabel-turns", "10")
    assert every.read_bytes() != a.read_bytes()
    assert "every labelled result of the first 10 turns" in capsys.readouterr().out
    with np.load(cache) as base, np.load(tmp_path / "t-ply1.npz") as deeper:
        end = int(np.sum(base["g"][:10]))
        assert np.array_equal(deeper["y"][end:], base["y"][end:])
        assert (deeper["y"][:end] != base["y"][:end]).mean() > 0.5
    code, _ = _run(tmp_path, "a", *more, "--relabel-all", "--relabel-turns", "10",
                   "--resume")
    assert code == 2 and "another run" in capsys.readouterr().err


def test_relabelling_needs_gnubg_teacher_data(capsys):
    for argv in (["short", "--relabel-ply", "1"], ["long", "--relabel-ply", "1"]):
        with pytest.raises(SystemExit):
            train.main(argv + ["--out", "x.bin"])
        assert "--relabel-ply" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        train.main(["short", "--source", "gnubg", "--relabel-all", "--out", "x.bin"])
    assert "go with --relabel-ply" in capsys.readouterr().err


def _turns_results(games, seed, **teacher):
    """Each turn of ``positions``' games: (its results as counts, their 0-ply
    equities, the rows labelled), from ``play_game``'s hook."""
    out = []
    rng = random.Random(seed)

    def seen(after, eq, chosen):
        out.append((np.array([distill.counts_of(a) for a in after], np.uint8),
                    np.array(eq, np.float32), set(chosen)))
    for _ in range(games):
        distill.play_game(rng, teacher.get("best", 4), teacher.get("others", 4), 0.1,
                          teacher.get("scenarios", 0.0), 0, bytearray(), [],
                          each_turn=seen)
    return out


def test_hard_negatives_are_the_students_best_results_the_teacher_did_not_label():
    from nardy_host import duel
    student = os.path.join(os.path.dirname(__file__), "..", "..", "firmware", "weights",
                           "short.bin")
    c, y, g = distill.positions(4, 7, best=2, others=1, scenarios=0.5)
    hc, hy, ht = distill.hard_negatives(4, 7, student, 2, best=2, others=1,
                                        scenarios=0.5, every=3)
    turns = _turns_results(4, 7, best=2, others=1, scenarios=0.5)
    assert len(turns) == len(g) and len(hy) > 10
    assert np.all(np.diff(ht) >= 0)                        # in turn order
    rate = duel.HostBot(V, Net(student, "short")).values
    for row, label, t in zip(hc, hy, ht):
        results, eq, labelled = turns[t]
        i = [bytes(r) for r in results].index(bytes(row))
        assert i not in labelled and label == eq[i]          # gnubg 0-ply's label
        v = rate(results.astype(np.int64), 0)
        assert np.sum(v < v[i]) < 2                          # among the student's best 2
    # every turn's unlabelled best 2 are there
    for t, (results, _, labelled) in enumerate(turns):
        v = rate(results.astype(np.int64), 0)
        top = set(np.lexsort((np.arange(len(v)), v))[:2].tolist()) - labelled
        assert np.sum(ht == t) == len(top)
    # the teacher data with them: each turn's own rows first, then its hard ones
    c2, y2, g2 = distill.with_hard(c, y, g, hc, hy, ht)
    assert len(y2) == len(y) + len(hy) and np.array_equal(g2 - g, np.bincount(ht, minlength=len(g)))
    start2 = np.concatenate([[0], np.cumsum(g2)[:-1]])
    start = np.concatenate([[0], np.cumsum(g)[:-1]])
    for t in range(len(g)):
        assert np.array_equal(c2[start2[t]:start2[t] + g[t]], c[start[t]:start[t] + g[t]])


def test_a_run_with_hard_negatives_keeps_them_and_is_a_run_of_its_own(tmp_path, capsys):
    student = os.path.join(os.path.dirname(__file__), "..", "..", "firmware", "weights",
                           "short.bin")
    cache = tmp_path / "t.npz"
    base = ["--seed", "5", "--cache", str(cache), "--extras", str(EXTRAS)]
    _, plain = _run(tmp_path, "plain", *base)
    more = base + ["--hard", "2", "--hard-net", student]
    _, a = _run(tmp_path, "a", *more)
    assert (tmp_path / "t-hard2.npz").exists()
    capsys.readouterr()
    _, b = _run(tmp_path, "b", *more)                            # read back
    assert a.read_bytes() == b.read_bytes() != plain.read_bytes()
    assert "teacher data from %s" % (tmp_path / "t-hard2.npz") in capsys.readouterr().out
    code, _ = _run(tmp_path, "plain", *more, "--resume")        # without --hard's
    assert code == 2 and "another run" in capsys.readouterr().err
    # a mean takes members of the same teacher data only: --hard and --hard-net too
    _, c = _run(tmp_path, "c", *more, "--net-seed", "3")
    code, _ = _run(tmp_path, "m", *more, "--average", "%s.ckpt.npz,%s.ckpt.npz" % (a, c))
    assert code == 0
    code, _ = _run(tmp_path, "m", *more, "--average", "%s.ckpt.npz,%s.ckpt.npz" % (a, plain))
    assert code == 2 and "plain.bin.ckpt.npz was trained on other teacher data: --hard 0 " \
        "(here 2)" in capsys.readouterr().err
    code, _ = _run(tmp_path, "m", *base, "--average", "%s.ckpt.npz" % a)
    assert code == 2 and "--hard 2 (here 0)" in capsys.readouterr().err


def test_hard_negatives_need_their_net(capsys):
    _refused_options(capsys, (
        ["--hard", "2"], ["--hard-net", "x.bin"],
        ["--hard", "2", "--hard-net", "x.bin", "--relabel-ply", "1"]),
        "--hard K and --hard-net FILE go together")
