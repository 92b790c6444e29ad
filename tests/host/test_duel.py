"""nardy duel / nardy analyse / the training smoke run (host only)."""

import json
import random

import pytest

from nardy import record
from nardy.bot import Bot
from nardy.evaluate import Net
from nardy.longnardy import LongNardy
from nardy.shortnardy import ShortNardy
from nardy_host import cli, duel, train
from nardy_host.analyse import analyse
from nardy_host.duel import DuelError, play_match, weights_path


def _last_json(capsys):
    out = capsys.readouterr().out.strip().splitlines()
    return json.loads(out[-1])


def test_duel_json_shape_and_determinism(capsys):
    args = ["duel", "bot", "random", "--variant", "long", "--games", "4", "--seed", "3",
            "--json"]
    assert cli.main(args) == 0
    first = _last_json(capsys)
    assert set(first) == {"games", "a_wins", "a_points", "b_points", "ppg", "se"}
    assert first["games"] == 4
    assert first["ppg"] == pytest.approx((first["a_points"] - first["b_points"]) / 4)
    assert cli.main(args) == 0
    assert _last_json(capsys) == first
    assert cli.main(args[:-3] + ["--seed", "4", "--json"]) == 0
    # another seed plays other games (points or wins differ for some seed)
    other = [play_match("random", "greedy", "long", 4, s) for s in range(4, 8)]
    assert len({json.dumps(o) for o in other}) > 1


def test_duel_points_add_up():
    r = play_match("greedy", "random", "short", 6, 1)
    # every game gives 1..3 points to its winner (S5); short nardy has no draws
    assert 6 <= r["a_points"] + r["b_points"] <= 18
    assert r["a_wins"] <= 6


def test_duel_gnubg_players_short_only(capsys):
    r = play_match("pubeval", "gnubg", "short", 2, 1)
    assert r["games"] == 2
    assert cli.main(["duel", "pubeval", "random", "--variant", "long", "--games", "1"]) == 2
    assert "short nardy only" in capsys.readouterr().err
    assert cli.main(["duel", "nobody", "random", "--games", "1"]) == 2
    assert "unknown player" in capsys.readouterr().err
    assert cli.main(["duel", "bot", "random", "--weights", "/nonexistent"]) == 2
    assert "cannot open" in capsys.readouterr().err


def test_vectorised_features_equal_the_firmware_net():
    """train.py's numpy net (used for TD self-play) rates as evaluate.py does."""
    import numpy as np
    for name in ("long", "short"):
        v = LongNardy() if name == "long" else ShortNardy()
        net = Net(weights_path(name), name)
        w1 = np.frombuffer(duel.input_weights(net), "<i2").reshape(
            208 + net.extras, net.hidden).astype(np.int64)
        rng = random.Random(2)
        pos = v.start_position()
        for _ in range(60):
            turns = v.legal_turns(pos, (rng.randint(1, 6), rng.randint(1, 6)))
            pos = rng.choice(turns)[1]
            if pos.borne_off(0) == 15 or pos.borne_off(1) == 15:
                pos = v.start_position()
            x = train.features(train.boards_of([pos]), pos.turn, net.extras,
                               name).astype(np.int64)
            h = np.maximum(x @ w1 + np.array(net.b1), 0)
            assert int((h @ np.array(net.w2))[0] + net.b2) == net.value(pos)


def _journal(v, moves, seed):
    rng = random.Random(seed)
    pos = v.start_position()
    lines = [record.dumps(record.game(v, pos))]
    for n in range(1, moves + 1):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        steps, new = rng.choice(v.legal_turns(pos, dice))
        lines.append(record.dumps(record.turn(v, n, pos.turn, dice, steps, new)))
        pos = new
    return lines


@pytest.mark.parametrize("name", ["long", "short"])
def test_analyse_rates_every_turn(name, tmp_path, capsys):
    v = LongNardy() if name == "long" else ShortNardy()
    lines = _journal(v, 12, 5)
    _, rows = analyse(lines)
    assert len(rows) == 12
    for r in rows:
        assert r["loss"] is None or r["loss"] >= -1e-9
    # a bot-played turn loses nothing by the bot's own rating (long: same net)
    if name == "long":
        bot = Bot(v, weights_path("long"))
        pos = v.start_position()
        steps, new = bot.choose(pos, (6, 5))
        lines = [record.dumps(record.game(v, pos)),
                 record.dumps(record.turn(v, 1, pos.turn, (6, 5), steps, new))]
        assert analyse(lines)[1][0]["loss"] == 0.0
    path = tmp_path / "g.jsonl"
    path.write_text("\n".join(lines) + "\n")
    assert cli.main(["analyse", str(path)]) == 0
    out = capsys.readouterr().out
    assert "worst mistakes first" in out
    bad = tmp_path / "bad.jsonl"
    bad.write_text("hello\nworld\n")
    assert cli.main(["analyse", str(bad)]) == 2
    assert "not a game journal" in capsys.readouterr().err


def test_training_smoke(tmp_path):
    out = tmp_path / "long.bin"
    train.main(["long", "--games", "3", "--hidden", "4", "--report", "3",
                "--out", str(out)])
    net = Net(str(out), "long")
    assert net.hidden == 4
    # reproducible from the seed
    again = tmp_path / "again.bin"
    train.main(["long", "--games", "3", "--hidden", "4", "--report", "3",
                "--out", str(again)])
    assert out.read_bytes() == again.read_bytes()


def test_duel_module_players_listed():
    assert set(duel.PLAYERS) == {"random", "greedy", "bot", "expectimax", "pubeval", "gnubg"}


def test_duplicate_dice_cancel_out_between_equal_players():
    """The same deterministic player on both sides: games 2k and 2k+1 are the same
    game with the colours swapped, so every pair nets exactly zero."""
    r = play_match("bot", "bot", "long", 4, 3)
    assert r["ppg"] == 0 and r["se"] == 0
    assert r["a_points"] == r["b_points"] > 0


def test_pairs_share_first_mover_and_rolls(monkeypatch):
    games = []

    def recorder(name, v, rng, weights=None):
        def play(pos, dice):
            if pos.board == v.start_position().board:
                games.append([pos.turn, name])
            games[-1].append(dice)
            return rng.choice(v.legal_turns(pos, dice))
        return play
    monkeypatch.setattr(duel, "make_player", recorder)
    r = play_match("a", "b", "long", 5, 9)
    assert len(games) == 5 and len(r) == 6
    for k in (0, 2):
        first, second = games[k], games[k + 1]
        assert first[0] == second[0]                 # the same colour starts
        assert first[1] != second[1]                 # ... played by the other player
        n = min(len(first), len(second))
        assert first[2:n] == second[2:n]              # the same rolls
    assert games[0][2:8] != games[2][2:8]             # another pair, other rolls


@pytest.mark.parametrize("games", [9, 10])
def test_pairs_shared_among_processes_play_the_same_games(games):
    # each pair's dice hang on (seed, pair) alone: a match split among processes is
    # the one-process match, to the standard error over its pairs (an odd last game
    # is its own unit, in the last process's share)
    one = play_match("bot", "pubeval", "short", games, 5)
    for workers in (2, 3, 7):
        assert play_match("bot", "pubeval", "short", games, 5, workers=workers) == one
    # more processes than pairs: one a pair
    assert play_match("bot", "pubeval", "short", games, 5, workers=50) == one


def test_workers_on_the_command_line(capsys):
    args = ["duel", "bot", "pubeval", "--variant", "short", "--games", "6", "--seed", "2",
            "--json"]
    assert cli.main(args) == 0
    one = _last_json(capsys)
    assert cli.main(args + ["--workers", "2"]) == 0
    assert _last_json(capsys) == one
    with pytest.raises(DuelError, match="--workers"):
        play_match("bot", "greedy", "long", 4, 2, workers=0)
    # a player the processes cannot make: the same clear error as with one process
    for workers in (1, 2):
        with pytest.raises(DuelError, match="unknown player"):
            play_match("bot", "nobody", "long", 4, 2, workers=workers)


def test_standard_error_over_pairs():
    import statistics
    units = [1.0, -2.0, 0.5, 3.0, 0.0]
    want = statistics.stdev(units) / len(units) ** 0.5
    assert duel.standard_error(units) == pytest.approx(want)
    assert duel.standard_error([2.0]) == 0.0


def test_named_weights_and_the_1ply_yardstick(capsys):
    path = weights_path("long")
    assert play_match("bot:" + path, "bot", "long", 2, 1)["ppg"] == 0
    assert cli.main(["duel", "random:" + path, "bot", "--games", "1"]) == 2
    assert "weights file" in capsys.readouterr().err
    v = LongNardy()
    host = duel.HostBot(v, Net(path, "long"))
    rng = random.Random(6)
    pos = v.start_position()
    for _ in range(6):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        turns = v.legal_turns(pos, dice)
        steps, result = host.choose_1ply(pos, dice, width=3)
        assert (steps, result.board) in [(t[0], t[1].board) for t in turns]
        pos = result


def test_1ply_counts_the_opponents_last_roll():
    """The opponent, to roll with one checker left on its last point, bears off
    with any roll: we lose 1 point, or 2 (mars, L6) with none of ours off."""
    from nardy.rules import Position
    v = LongNardy()
    host = duel.HostBot(v, Net(weights_path("long"), "long"))
    pos = Position(turn=1)
    pos.board[26 + 24] = 1
    pos.board[26 + 25] = 14
    pos.board[20] = 15
    assert host._after_reply(pos, 0) == pytest.approx(-2.0)
    pos.board[20], pos.board[25] = 14, 1
    assert host._after_reply(pos, 0) == pytest.approx(-1.0)


def test_each_game_rates_its_own_number_of_results():
    # long nardy's 128-unit net rates 64 results a roll, short nardy's net 24 (the
    # figures behind each: nardy.bot); the host's twin rates as many
    from nardy.bot import KEEP, KEEP_LONG
    assert (KEEP_LONG, KEEP) == (64, 24)
    for v, want in ((LongNardy(), 64), (ShortNardy(), 24)):
        net = Net(weights_path(v.name), v.name)
        assert Bot(v, net).keep == duel.HostBot(v, net).keep == want
        assert Bot(v, net, keep=5).keep == 5


@pytest.mark.parametrize("name", ["long", "short"])
def test_host_bot_picks_the_firmware_bots_turns(name):
    """The vectorised duel player chooses exactly the firmware chooser's turns,
    including big doubles where the pre-filter drops candidates."""
    v = LongNardy() if name == "long" else ShortNardy()
    net = Net(weights_path(name), name)
    fw, host = Bot(v, net), duel.HostBot(v, net)
    rng = random.Random(8)
    pos = v.start_position()
    compared = big = 0
    while compared < 150:
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        a, b = fw.choose(pos, dice), host.choose(pos, dice)
        assert a[1].board == b[1].board and a[0] == b[0]
        big += v.count_turns(pos, dice) > fw.keep
        compared += 1
        pos = rng.choice(v.legal_turns(pos, dice))[1]
        if pos.borne_off(0) == 15 or pos.borne_off(1) == 15:
            pos = v.start_position()
    assert big > 0 or name == "short"
