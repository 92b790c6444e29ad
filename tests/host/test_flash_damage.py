"""Boot always reaches ``hello`` on the virtual board (112wK), whatever the flash
holds: a table of damaged flash directories, each booted, checked for the report
(an ``error`` event and errors.log), the file set aside (``.bad``), the rest of the
flash untouched, and a board that still plays (an OK press starts a game)."""

import json
import os

import pytest
from vboard import VBoard

from nardy import record
from nardy.longnardy import LongNardy
from nardy.rules import BLACK, WHITE

HEAP = "112wK"


def game_lines(finished=False, meta=None, options=None, extra=()):
    """A small game as the board writes it: header, opening, a roll (, the end)."""
    v = LongNardy()
    hdr = record.game(v, v.start_position(), meta if meta is not None else {
        "match": {"length": 3, "score": [0, 0], "white_player": 0, "game": 1, "no": 1}})
    if options is not None:
        hdr["options"] = options
    lines = [record.dumps(hdr), record.dumps(record.opening([(2, 5)], BLACK)),
             record.dumps(record.roll(1, BLACK, (6, 5)))]
    lines += list(extra)
    if finished:
        lines.append(record.dumps(record.end(WHITE, "oin", 1)))
    return lines


def _write(flash, name, data):
    path = os.path.join(flash, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if isinstance(data, list):
        data = "".join(ln + "\n" for ln in data)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def _tree(flash):
    """{relative path: bytes} of every file (directories as None)."""
    out = {}
    for root, dirs, files in os.walk(flash):
        for d in dirs:
            out[os.path.relpath(os.path.join(root, d), flash)] = None
        for n in files:
            with open(os.path.join(root, n), "rb") as f:
                out[os.path.relpath(os.path.join(root, n), flash)] = f.read()
    return out


def _settings(**kw):
    s = {"variant": "long", "match": 1, "options": {"long": {}, "short": {}},
         "brightness": 16, "dice": "auto"}
    s.update(kw)
    return json.dumps(s)


GOOD_GAME = "journal/g00001.jsonl"

# name: (files to write {path: content or "DIR"}, expected error text, the path that
# must be set aside (now .bad) or None, phase after boot)
CASES = {
    "journal is a file": ({"journal": "not a directory"}, "was a file", "journal", "setup"),
    "a game is a directory": ({GOOD_GAME: game_lines(True), "journal/g00002.jsonl": "DIR"},
                              "journal 2", "journal/g00002.jsonl", "setup"),
    "300 KB settings.json": ({"settings.json": "{" + " " * 300000 + "}"},
                             "settings.json unreadable", "settings.json", "setup"),
    "settings.json a directory": ({"settings.json": "DIR"}, "settings.json unreadable",
                                  "settings.json", "setup"),
    "settings.json not UTF-8": ({"settings.json": b'{"variant": "l\xefng"}'},
                                "settings.json unreadable", "settings.json", "setup"),
    "settings.json chess and match 0": ({"settings.json": _settings(variant="chess", match=0)},
                                        "bad variant, match", None, "setup"),
    "settings.json options not bool": (
        {"settings.json": _settings(options={"long": {"home_mars": "false"}, "short": {}})},
        "bad options.long", None, "setup"),
    "settings.json unknown option": (
        {"settings.json": _settings(options={"long": {"nonsense": True}, "short": {}})},
        "bad options.long", None, "setup"),
    "300 KB calib.json": ({"calib.json": "{" + " " * 300000 + "}"}, "calib.json unreadable",
                          "calib.json", "setup"),
    "1e999 in calib.json": ({"calib.json": '{"v": 1, "hysteresis": 1e999, '
                                           '"default": {"baseline": 1e999}}'},
                            "calib.json unusable", "calib.json", "setup"),
    "string scores, unfinished": (
        {GOOD_GAME: game_lines(meta={"match": {"length": 3, "score": ["1", "0"],
                                               "white_player": 0, "game": 2, "no": 1}})},
        "journal 1", GOOD_GAME, "setup"),
    "bit flip in the latest game": (
        {GOOD_GAME: game_lines(True),
         "journal/g00002.jsonl": "\n".join(game_lines()[:2]).encode() + b"\n\xff\xfe\n"
         + game_lines()[2].encode() + b"\n"},
        "journal 2: line 3: not UTF-8", "journal/g00002.jsonl", "setup"),
    "1 MB line in the latest game": (
        {"journal/g00002.jsonl": "\n".join(game_lines()[:2]) + "\n" + "x" * 1000000 + "\n"
         + game_lines()[2] + "\n"},
        "line too long", "journal/g00002.jsonl", "setup"),
    "unknown option in an unfinished game": (
        {GOOD_GAME: game_lines(options={"nonsense": True})}, "not resumed", GOOD_GAME,
        "setup"),
    "match.json garbage": ({"journal/match.json": "{\"variant\": \"long\", \"length\": \"x\"}"},
                           "match.json unreadable", "journal/match.json", "setup"),
}


def _boot(flash):
    return VBoard(str(flash), heap=HEAP)


@pytest.mark.parametrize("name", sorted(CASES))
def test_boot_reaches_hello_and_sets_aside(tmp_path, name):
    files, want, aside, phase = CASES[name]
    flash = tmp_path / "flash"
    flash.mkdir()
    for path, data in files.items():
        if data == "DIR":
            (flash / path).mkdir(parents=True)
        else:
            _write(flash, path, data)
    before = _tree(flash)
    b = _boot(flash)
    try:
        assert b.hello["phase"] == phase
        errors = [e["error"] for e in b.events if e["ev"] == "error"]
        assert any(want in e for e in errors), errors
        assert not any("crash" in e for e in errors), errors
        if aside is not None:
            assert not os.path.isfile(flash / aside) or aside == "journal"
            assert os.path.lexists(str(flash / aside).replace(".jsonl", "") + ".bad"), \
                sorted(_tree(flash))
        # the rest of the flash is untouched
        after = _tree(flash)
        for path, data in before.items():
            if aside is None or not (path == aside or path.startswith(aside + "/")):
                assert after.get(path) == data, path
        with open(flash / "errors.log") as f:
            assert want.split(":")[0] in f.read()
        # and the board plays: an OK press starts a game, with no crash
        b.button("ok")
        b.sync()
        d = b.dump()
        assert d["phase"] in ("opening", "roll"), d["phase"]
        assert d["variant"] == "long"
        assert not [e for e in b.events if e["ev"] == "error" and "crash" in e["error"]]
    finally:
        b.close()


def test_a_torn_erased_tail_is_cut_and_the_game_resumed(tmp_path):
    flash = tmp_path / "flash"
    _write(flash, GOOD_GAME, "".join(ln + "\n" for ln in game_lines()).encode()
           + b"\xff" * 512)
    b = _boot(flash)
    try:
        assert b.hello["phase"] == "move" and b.hello["game"] == 1
        assert not [e for e in b.events if e["ev"] == "error"]
        assert (flash / GOOD_GAME).read_bytes().endswith(b"[6, 5]}\n")
    finally:
        b.close()


def test_a_half_resumed_game_does_not_crash_every_scan(tmp_path):
    flash = tmp_path / "flash"
    _write(flash, GOOD_GAME, game_lines(options={"nonsense": True}))
    b = _boot(flash)
    try:
        v = LongNardy()
        for _ in range(5):
            b.sense(v, v.start_position(), ms=100)
        b.sync()
        crashes = [e for e in b.events if e["ev"] == "error" and "crash" in e["error"]]
        assert crashes == []
        assert b.dump()["phase"] == "setup"
    finally:
        b.close()


def test_errors_log_is_bounded(tmp_path):
    flash = tmp_path / "flash"
    _write(flash, "errors.log", "old error\n" * 20000)      # 200 KB
    _write(flash, "settings.json", "{" * 10)
    b = _boot(flash)
    b.close()
    assert os.path.getsize(flash / "errors.log") < 1000
    assert os.path.getsize(flash / "errors.old") == 200000
    # and once more: the older file is replaced, never kept growing
    _write(flash, "errors.log", "x\n" * 6000)
    _write(flash, "settings.json", "{" * 10)
    b = _boot(flash)
    b.close()
    assert os.path.getsize(flash / "errors.old") == 12000
