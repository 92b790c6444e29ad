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
from nardy_host.duel import play_match, weights_path


def _last_json(capsys):
    out = capsys.readouterr().out.strip().splitlines()
    return json.loads(out[-1])


def test_duel_json_shape_and_determinism(capsys):
    args = ["duel", "bot", "random", "--variant", "long", "--games", "4", "--seed", "3",
            "--json"]
    assert cli.main(args) == 0
    first = _last_json(capsys)
    assert set(first) == {"games", "a_wins", "a_points", "b_points", "ppg"}
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
        w1 = np.frombuffer(duel.input_weights(net), "<i2").reshape(208, net.hidden).astype(np.int64)
        rng = random.Random(2)
        pos = v.start_position()
        for _ in range(60):
            turns = v.legal_turns(pos, (rng.randint(1, 6), rng.randint(1, 6)))
            pos = rng.choice(turns)[1]
            if pos.borne_off(0) == 15 or pos.borne_off(1) == 15:
                pos = v.start_position()
            x = train.features(train.boards_of([pos]), pos.turn).astype(np.int64)
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
    assert set(duel.PLAYERS) == {"random", "greedy", "bot", "pubeval", "gnubg"}


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
