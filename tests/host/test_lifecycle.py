"""Every game ends in the journal and a match survives power cuts (virtual board,
112wK); a rejected command changes nothing; every reply is valid JSON."""

import json
import os

from test_log import index_of
from vboard import VBoard, state_of

from nardy.longnardy import LongNardy

HEAP = "112wK"


def _board(flash):
    b = VBoard(str(flash), heap=HEAP)
    b.send({"cmd": "set", "oled": False, "leds": False})
    b.sync()
    return b


def _new(b, variant="long", match=3):
    b.send({"cmd": "new", "variant": variant, "match": match})
    b.sync()
    v, pos, _, d = state_of(b, variant)
    b.sense(v, pos)
    b.sync()
    return v, pos, d


def _records(flash, gid):
    with open(os.path.join(flash, "journal", "g%05d.jsonl" % gid)) as f:
        return [json.loads(ln) for ln in f]


def test_an_abandoned_game_is_closed_and_never_resumed(tmp_path):
    flash = str(tmp_path / "flash")
    b = _board(flash)
    _new(b)                              # game 1: abandoned before the opening roll
    _new(b)                              # game 2: abandoned after the opening roll
    b.button("ok")
    b.sync()
    assert b.dump()["phase"] == "roll"
    _new(b)                              # game 3: the current one
    b.button("ok")
    b.sync()
    d3 = b.dump()
    assert d3["game"] == 3
    b.kill()                             # power cut
    for gid in (1, 2):
        end = _records(flash, gid)[-1]
        assert end == {"r": "end", "winner": None, "kind": "abandoned", "points": 0}
    b = _board(flash)
    try:
        assert b.hello["game"] == 3 and b.hello["phase"] == d3["phase"]
        d = b.dump()
        assert d["position"] == d3["position"] and d["opening"] == d3["opening"]
        games = index_of(b)
        assert [(g["game"], g["finished"], g["current"]) for g in games] == [
            (1, True, False), (2, True, False), (3, False, True)]
        for gid in (1, 2):
            b.send({"cmd": "confirm", "game": gid})
            assert b.wait("confirm")["deleted"] is True
        b.send({"cmd": "confirm", "game": 3})
        assert b.wait("confirm")["deleted"] is False      # still being played
    finally:
        b.close()


def test_an_abandoned_game_is_not_resumed_after_a_later_game_ends(tmp_path):
    flash = str(tmp_path / "flash")
    b = _board(flash)
    _new(b)                              # game 1, abandoned
    _new(b, match=1)                     # game 2: resigned, the match is over
    b.button("ok")
    b.sync()
    b.button("back", "long")
    b.button("ok")                       # "resigns?": yes
    b.sync()
    assert b.dump()["phase"] == "match_end"
    b.kill()
    b = _board(flash)
    try:
        assert b.hello["game"] != 1 and b.hello["phase"] != "roll"
    finally:
        b.close()


def test_a_match_survives_a_power_cut_between_games(tmp_path):
    flash = str(tmp_path / "flash")
    b = _board(flash)
    _new(b, match=5)
    b.button("ok")                       # opening roll
    b.sync()
    b.button("back", "long")             # the side to move resigns: 1 point
    b.button("ok")                       # (asked first)
    b.sync()
    before = b.dump()
    assert before["phase"] == "game_end" and sum(before["match"]["score"]) == 1
    # the host pulls and confirms the game at once (nardy log --follow does)
    b.send({"cmd": "confirm", "game": 1})
    assert b.wait("confirm")["deleted"] is True
    b.kill()
    b = _board(flash)
    try:
        assert b.hello["phase"] == "game_end"
        m = b.hello["match"]
        assert m["length"] == 5 and m["score"] == before["match"]["score"]
        assert m["white_player"] == before["match"]["white_player"]
        b.button("ok")                   # the next game of the same match
        b.sync()
        d = b.dump()
        assert d["match"]["game"] == 2 and d["match"]["score"] == m["score"]
        # L8: long nardy's second game has no opening roll: the header says who is first
        hdr = _records(flash, d["game"])[0]
        assert hdr["first"] == "white" and hdr["meta"]["match"]["game"] == 2
        assert d["phase"] == "roll"
    finally:
        b.close()


def test_the_opening_winner_is_in_the_journal(tmp_path):
    flash = str(tmp_path / "flash")
    b = _board(flash)
    try:
        _new(b)
        b.button("ok")
        b.sync()
        d = b.dump()
        recs = _records(flash, d["game"])
        assert recs[0]["first"] is None          # decided by the opening roll (C2)
        w, bl = recs[1]["rolls"][-1]
        assert recs[1]["r"] == "open"
        assert recs[1]["first"] == ("white" if w > bl else "black")
    finally:
        b.close()


def test_a_rejected_new_changes_no_setting(tmp_path):
    flash = tmp_path / "flash"
    b = _board(str(flash))
    saved = (flash / "settings.json").read_bytes()
    bad = ['{"cmd": "new", "variant": "short", "options": {"nonsense": true}}',
           '{"cmd": "new", "variant": "long", "options": {"home_mars": "false"}}',
           '{"cmd": "new", "variant": "long", "match": 3, "colour": "red"}',
           '{"cmd": "new", "options": {"home_mars": ' + "[" * 1000 + "]" * 1000 + "}}",
           '{"cmd": "set", "brightness": 8, "volume": 11}']
    for ln in bad:
        b.send(ln)
    b.sync()
    errors = [e for e in b.events if e["ev"] == "error"]
    assert len(errors) == len(bad), errors
    assert (flash / "settings.json").read_bytes() == saved
    assert b.dump()["phase"] == "setup"
    b.button("ok")                       # an OK press still starts a game
    b.sync()
    assert b.dump()["phase"] == "opening"
    assert not [e for e in b.events if e["ev"] == "error" and "crash" in e["error"]]
    b.send({"cmd": "mem"})
    free = b.wait("mem")["free"]
    b.close()
    b = _board(str(flash))               # and after a reboot
    try:
        b.button("ok")
        b.sync()
        assert not [e for e in b.events if e["ev"] == "error"]
        assert free > 0
    finally:
        b.close()


def test_every_reply_is_valid_json(tmp_path):
    b = _board(str(tmp_path / "flash"))
    try:
        b.p.stdin.write('{"cmd": "ping", "id": 1e999}\n{"cmd": "ping", "id": 5}\n')
        b.p.stdin.flush()
        strict = []
        while True:
            ln = b.p.stdout.readline()

            def no_constants(name):
                raise ValueError("not JSON: " + name)
            ev = json.loads(ln, parse_constant=no_constants)
            strict.append(ev)
            if ev.get("ev") == "pong":
                break
        assert [e["ev"] for e in strict] == ["error", "pong"] and strict[1]["id"] == 5
    finally:
        b.close()


def test_a_checker_layout_still_plays_after_a_power_cut_mid_turn(tmp_path):
    """The journal of a turn in progress resumes (step records, then the turn)."""
    flash = str(tmp_path / "flash")
    b = _board(flash)
    v, pos, _ = _new(b, match=1)
    b.button("ok")
    b.sync()
    d = b.dump()
    if d["phase"] == "roll":
        b.button("ok")
        b.sync()
    v, pos, dice, d = state_of(b, "long")
    assert d["phase"] == "move"
    b.kill()
    b = _board(flash)
    try:
        assert b.hello["phase"] == "move"
        v2, pos2, dice2, _ = state_of(b, "long")
        assert pos2.board == pos.board and dice2 == dice
        assert isinstance(v2, LongNardy)
    finally:
        b.close()
