"""The virtual board as a subprocess: scripted full games of both variants (with
warnings and acceptance), garbage lines, power cuts (kill -9) and resume."""

import json
import random

import pytest
from vboard import VBoard, committed

from nardy.posjson import from_json
from nardy.variants import find_variant


def _state(b):
    d = b.dump()
    v = find_variant(d["variant"], d["options"] or {})
    return v, from_json(v, d["position"], mixed=True), d


def play_turn(b, rng, illegal=False):
    """Roll, play a random legal turn checker by checker, hand over the dice.
    Returns the steps, "pass", a dict for an illegal turn, or None at the end."""
    if b.dump()["phase"] in ("game_end", "match_end"):
        return None
    b.button("ok")
    b.sync()
    v, pos, d = _state(b)
    if d["phase"] in ("game_end", "match_end"):
        return None
    if d["phase"] != "move":
        return "pass"
    dice = tuple(d["dice"])
    turns = v.legal_turns(pos, dice)
    steps, _ = turns[rng.randrange(len(turns))]
    warned = False
    if illegal:
        # one checker moved by a distance no die shows onto an open point: the board
        # warns; the opponent accepts it as played (seed 001 §3.4)
        for f in range(1, 24):
            for dist in range(1, 7):
                t = f + dist
                if (dist in dice or t > 24 or not pos.count(pos.turn, f)
                        or pos.count(1 - pos.turn, v.opp_point(t))
                        or t in v.targets(pos, dice, (), f)):
                    continue      # (one checker over both dice is legal: 1+2 with 2-1)
                if v.HITS and pos.count(pos.turn, 0):
                    continue
                bad = v.apply_step(pos, (f, t))
                b.sense(v, pos, hand=(pos.turn, f))
                b.sense(v, bad)
                b.sync()
                warned = True
                break
            if warned:
                break
        if warned:
            b.button("ok")        # ends the turn: a verdict
            b.sync()
            b.button("ok")        # the mover again: never an acceptance
            b.sync()
            assert b.dump()["phase"] == "move"
            b.button("ok", "long")   # the opponent holds OK: accepted as played
            b.sync()
            return {"illegal": [e for e in b.events if e["ev"] == "warn" and "rec" in e]}
    cur = pos
    for st in steps:
        b.sense(v, cur, hand=(cur.turn, st[0]))
        cur = v.apply_step(cur, st)
        b.sense(v, cur)
    b.sync()
    b.button("ok")
    b.sync()
    return steps


def _game(tmp_path, variant, seed, illegal_every=0, max_turns=400):
    rng = random.Random(seed)
    b = VBoard(str(tmp_path / ("vb%d" % seed)))
    b.send({"cmd": "set", "oled": False})
    b.send({"cmd": "new", "variant": variant, "match": 1})
    b.sync()
    v, pos, d = _state(b)
    b.sense(v, pos)
    b.button("ok")       # opening roll
    b.sync()
    n = 0
    illegal = 0
    while n < max_turns:
        n += 1
        r = play_turn(b, rng, illegal=illegal_every and n % illegal_every == 0)
        if r is None:
            break
        if isinstance(r, dict):
            illegal += 1
            assert r["illegal"], "no warning recorded for an illegal turn"
    d = b.dump()
    return b, d, illegal


@pytest.mark.parametrize("variant,seed", [("long", 1), ("short", 2)])
def test_scripted_full_game(tmp_path, variant, seed):
    b, d, illegal = _game(tmp_path, variant, seed, illegal_every=9)
    assert d["phase"] == "match_end", d["phase"]
    assert d["result"]["kind"] in ("oin", "mars", "koks")
    assert sum(d["match"]["score"]) == d["result"]["points"]
    assert illegal >= 1
    gid = d["game"]
    lines = b.log(gid)
    recs = [json.loads(x) for x in lines]
    assert recs[0]["r"] == "game" and recs[-1]["r"] == "end"
    assert any(r["r"] == "turn" and r["accepted"] for r in recs)
    # every record the board announced is exactly what its journal holds
    c = committed(b.events)
    for i, r in enumerate(recs):
        assert c[(gid, i)] == r
    assert any(e["ev"] == "leds" for e in b.events)
    # confirm: the finished game is deleted only now
    b.send({"cmd": "confirm", "game": gid})
    ev = b.wait("confirm")
    assert ev["deleted"] is True
    assert b.dump()["journal"]["games"] == 0
    b.close()


def test_garbage_lines_get_errors_and_lose_nothing(tmp_path):
    rng = random.Random(7)
    b = VBoard(str(tmp_path / "garbage"))
    b.send({"cmd": "set", "oled": False, "leds": False})
    b.send({"cmd": "new", "variant": "short"})
    b.sync()
    before = b.dump()
    pieces = ['{"cmd":', '"sense"', '"raw":[1,2]', '{"cmd":"log","game":-1}', "[]", "null",
              '{"cmd":"roll","dice":[7,1]}', '{"cmd":"button","name":"x"}', "\\u0000",
              '{"cmd":"confirm","game":"1"}', '{"cmd":"new","variant":3}', "}{", "1e999",
              '{"cmd":"set","brightness":-4}', '{"cmd":"sense","raw":[],"ms":5}']
    n = 10000
    for i in range(n):
        k = rng.randrange(4)
        if k == 0:
            line = "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 4)))
        elif k == 1:
            line = "".join(chr(rng.randrange(32, 127)) for _ in range(rng.randrange(1, 80)))
        elif k == 2:
            line = "".join(chr(rng.randrange(0x80, 0x800)) for _ in range(rng.randrange(1, 20)))
        else:
            line = rng.choice(pieces)
        line = line.replace("\n", " ")
        if not line.strip():
            line = "x"
        b.send(line)
        if i % 500 == 499:
            b.sync()
    b.sync()
    errors = [e for e in b.events if e["ev"] == "error"]
    assert len(errors) == n, len(errors)
    after = b.dump()
    for k in ("phase", "position", "dice", "journal", "game", "match"):
        assert after[k] == before[k], k
    b.close()


def test_power_cut_100_games(tmp_path):
    """kill -9 at a random moment, restart on the same directory: the dump shows the
    position, dice and journal that were committed (announced) before the kill."""
    mid_turn = 0
    for seed in range(100):
        rng = random.Random(1000 + seed)
        data = str(tmp_path / ("cut%d" % seed))
        b = VBoard(data)
        b.send({"cmd": "set", "oled": False, "leds": False})
        b.send({"cmd": "new", "variant": rng.choice(("long", "short"))})
        b.sync()
        d = b.dump()
        v = find_variant(d["variant"], d["options"] or {})
        b.sense(v, from_json(v, d["position"]))
        b.button("ok")
        b.sync()
        for _ in range(rng.randrange(0, 4)):
            if play_turn(b, rng) is None:
                break
        # the next turn's lines go out without waiting; the kill lands anywhere in it
        v, pos, d = _state(b)
        b.button("ok")
        b.sync()
        v, pos, d = _state(b)
        if d["phase"] == "move":
            steps = v.legal_turns(pos, tuple(d["dice"]))[0][0]
            cur = pos
            lines = []
            for st in steps:
                lines.append({"cmd": "sense", "raw": None, "pos": cur, "hand": (cur.turn, st[0])})
                cur = v.apply_step(cur, st)
                lines.append({"cmd": "sense", "raw": None, "pos": cur, "hand": None})
            lines.append({"cmd": "button", "name": "ok"})
            cut = rng.randrange(len(lines) + 1)
            for i, ln in enumerate(lines[:cut + 2]):
                if i == cut:
                    # everything before the cut is worked off; the kill lands in
                    # what follows (without this it came before the board read on)
                    b.sync()
                if ln["cmd"] == "sense":
                    b.sense(v, ln["pos"], hand=ln["hand"])
                else:
                    b.button("ok")
        b.kill()
        # whatever the board wrote before it died is still in the pipe
        try:
            while True:
                b.read()
        except (EOFError, ValueError):
            pass
        seen = committed(b.events)
        gid = max(g for g, _ in seen)
        last = max(s for g, s in seen if g == gid)
        b.p.stdout.close()
        b.p.stderr.close()
        b2 = VBoard(data)
        errors = [e for e in b2.events if e["ev"] == "error"]
        assert not errors, errors
        lines = b2.log(gid)
        # every announced record is there, unchanged; at most one more line was
        # flushed whose event had not been written when the process died
        assert last + 1 <= len(lines) <= last + 2, (seed, last, len(lines))
        for i in range(last + 1):
            assert json.loads(lines[i]) == seen[(gid, i)], (seed, i)
        d2 = b2.dump()
        recs = [json.loads(x) for x in lines]
        # the dump's dice and steps are those of the journal
        dice = None
        steps = []
        for r in recs:
            if r["r"] == "roll":
                dice, steps = r["dice"], []
            elif r["r"] == "step":
                steps.append([r["from"], r["to"]])
            elif r["r"] == "undo":
                steps.pop()
            elif r["r"] == "turn":
                dice, steps = None, []
        assert d2["dice"] == dice, (seed, d2["dice"], dice)
        assert d2["steps"] == steps, (seed, d2["steps"], steps)
        pos_ids = [r["pos"] for r in recs if r["r"] == "turn"]
        if pos_ids:
            from nardy.notation import parse_position_id
            from nardy.posjson import to_json
            want = to_json(parse_position_id(pos_ids[-1])[1])
            assert d2["position"] == want, seed
        b2.close()
        mid_turn += bool(steps)
    # the kills really landed inside turns (a partial turn resumed), not only between
    assert mid_turn >= 15, mid_turn


def test_lines_longer_than_the_line_buffer(tmp_path):
    # A sense line fits the board's 1 KB line buffer; a longer command is still read
    # whole up to the protocol's 4096 bytes; beyond that: "line too long", then on.
    b = VBoard(str(tmp_path / "vb"))
    b.send({"cmd": "ping", "id": 7, "pad": "x" * 2000})
    assert b.wait("pong")["id"] == 7
    b.send({"cmd": "ping", "id": 8, "pad": "x" * 5000})
    assert b.wait("error")["error"] == "line too long"
    b.send({"cmd": "sense", "raw": [2180] * 127 + [4095], "ms": 40})
    b.send({"cmd": "sense", "raw": [2180] * 127, "ms": 40})       # one short: JSON path
    assert "128" in b.wait("error")["error"]
    b.send({"cmd": "ping", "id": 9})
    assert b.wait("pong")["id"] == 9
    b.close()
