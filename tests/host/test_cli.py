"""The `nardy moves` and `nardy sim` commands, end to end."""

import json
import os
import random
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from positions import random_long, random_short  # noqa: E402

from nardy.longnardy import LongNardy  # noqa: E402
from nardy.posjson import from_json, to_json  # noqa: E402
from nardy.shortnardy import ShortNardy  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NARDY = os.path.join(os.path.dirname(sys.executable), "nardy")


def run(args, stdin=""):
    return subprocess.run([NARDY] + args, input=stdin, capture_output=True, text=True,
                          timeout=600)


def test_moves_from_the_start():
    r = run(["moves", "--variant", "long", "--dice", "6", "5"])
    assert r.returncode == 0, r.stderr
    assert "1 legal turn" in r.stdout and "1/12" in r.stdout
    r = run(["moves", "--variant", "short", "--dice", "3", "1", "--json"])
    reply = json.loads(r.stdout)
    assert reply["n"] == 16 == len(reply["moves"])   # 16 distinct plays of an opening 3-1


def test_moves_needs_dice_and_says_so():
    r = run(["moves", "--variant", "long"])
    assert r.returncode == 2 and "--dice" in r.stderr


def _requests(n, seed):
    rng = random.Random(seed)
    out = []
    for i in range(n):
        if i % 2:
            v, pos = "long", random_long(rng)
        else:
            v, pos = "short", random_short(rng)
        out.append({"variant": v, "position": to_json(pos),
                    "dice": [rng.randint(1, 6), rng.randint(1, 6)]})
    return out


def _canon(reply):
    return sorted(json.dumps(m["position"], sort_keys=True) for m in reply["moves"])


def test_batch_cpython_and_micropython_agree_and_bad_lines_get_errors():
    reqs = _requests(120, 5)
    lines = [json.dumps(r) for r in reqs]
    # garbage in the middle: each gets its own error line, the batch goes on
    lines[10:10] = ["not json", '{"variant": "long"}', "[1, 2]",
                    '{"variant": "short", "position": {"turn": "white"}, "dice": [1, 2]}',
                    '{"variant": "long", "position": %s, "dice": [0, 7]}'
                    % json.dumps(to_json(LongNardy().start_position()))]
    text = "\n".join(lines) + "\n"
    a = run(["moves", "--batch"], text)
    b = run(["moves", "--batch", "--micropython"], text)
    assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
    out_a = [json.loads(x) for x in a.stdout.splitlines()]
    out_b = [json.loads(x) for x in b.stdout.splitlines()]
    assert len(out_a) == len(out_b) == len(lines)
    for i in range(10, 15):
        assert "error" in out_a[i] and "error" in out_b[i], (i, out_a[i])
    assert "dice" in out_a[14]["error"]
    for x, y, line in zip(out_a, out_b, lines):
        if "error" in x:
            continue
        assert x["n"] == y["n"] == len(x["moves"])
        assert _canon(x) == _canon(y)
        # and every result is a well-formed position of that game
        req = json.loads(line)
        game = LongNardy() if req["variant"] == "long" else ShortNardy()
        for m in x["moves"]:
            from_json(game, m["position"])


def test_position_validation_messages():
    start = to_json(LongNardy().start_position())
    bad = dict(start, white=[16] + [0] * 23)
    r = run(["moves", "--batch"], json.dumps({"variant": "long", "position": bad,
                                              "dice": [1, 2]}) + "\n")
    assert "0..15" in json.loads(r.stdout)["error"]
    # black path 13 is P24, white's head
    both = dict(start, black=[14] + [0] * 11 + [1] + [0] * 11)
    r = run(["moves", "--batch"], json.dumps({"variant": "long", "position": both,
                                              "dice": [1, 2]}) + "\n")
    assert "both colours" in json.loads(r.stdout)["error"]
    # the board's own dump after such a board was accepted (seed 001 §3.4) reads
    pos = from_json(LongNardy(), both, mixed=True)
    assert pos.count(1, 13) == 1 and pos.count(0, 1) == 15
    with pytest.raises(ValueError, match="not 15"):     # the rest is still checked
        from_json(LongNardy(), dict(both, black=[15] + [0] * 11 + [1] + [0] * 11),
                  mixed=True)


def _first_dice(seed):
    rng = random.Random(seed)
    while True:
        w, b = rng.randint(1, 6), rng.randint(1, 6)
        if w != b:
            break
    return rng.randint(1, 6), rng.randint(1, 6)


def test_sim_refuses_an_illegal_turn_with_its_rule_and_can_accept_it():
    seed = next(s for s in range(100) if len(set(_first_dice(s))) == 2)
    a, b = _first_dice(seed)
    script = "1/%d 1/%d\naccept\nquit\n" % (1 + a, 1 + b)
    r = run(["sim", "--text", "--variant", "long", "--seed", str(seed)], script)
    assert r.returncode == 0, r.stderr
    assert "dice %d-%d" % (a, b) in r.stdout
    assert "illegal (L3): only one checker may leave the head" in r.stdout
    assert "accepted as played" in r.stdout
    # the accepted position is on the board: two checkers left the head
    assert "W13" in r.stdout or "B13" in r.stdout


def _hostile_batch():
    """(input bytes, index of each line that must get an error)"""
    good = json.dumps({"variant": "short", "position": to_json(ShortNardy().start_position()),
                       "dice": [3, 1]}).encode()
    lines = [good,
             b'{"variant": "long", "note": "\xff\xfe"}',     # not UTF-8
             b"[" * 5000,                                   # nested too deep
             b'{"variant": "long", "x": "' + b"a" * 65536 + b'"}',   # a 64 KB line
             b'{"variant": "long", "options": {"home_mars": "false"}, "dice": [1, 2]}',
             b"\xc3",                                        # a torn UTF-8 sequence
             b'{"variant": "long", "dice": [1e999, 2]}',
             good]
    return b"\n".join(lines) + b"\n", {1, 2, 3, 4, 5, 6}


@pytest.mark.parametrize("engine", [[], ["--micropython"]], ids=["cpython", "micropython"])
def test_batch_answers_every_hostile_line_in_order(engine):
    data, bad = _hostile_batch()
    r = subprocess.run([NARDY, "moves", "--batch"] + engine, input=data,
                       capture_output=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stderr == b""
    out = [json.loads(x) for x in r.stdout.decode().splitlines()]   # only answers
    assert len(out) == 8
    for i, reply in enumerate(out):
        assert ("error" in reply) == (i in bad), (i, reply)
    assert out[0] == out[7] and out[0]["n"] == 16
    assert "UTF-8" in out[1]["error"] and "longer" in out[3]["error"]
    assert "true or false" in out[4]["error"]


def test_the_command_starts_without_the_web_server_installed():
    # pypy3 has no microdot: `pypy3 -m nardy_host.cli selfplay` (docs/sensing-and-tracking.md)
    # must still start, so only the page's own commands may import it, and only when run.
    code = ("import sys; sys.modules['microdot'] = None\n"
            "from nardy_host import cli\n"
            "sys.exit(cli.main(['selfplay', '--variant', 'short', '--games', '1', '--seed', '3']))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=os.pathsep.join(
                           [os.path.join(ROOT, "firmware"), os.path.join(ROOT, "host_tools")])),
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert "desyncs" in r.stdout, r.stdout
