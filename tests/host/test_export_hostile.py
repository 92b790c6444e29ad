"""`nardy export` on damaged and hostile journals: one clean error per bad file (exit
2, no traceback), the good files of the same run still exported; damage the board's
own reader forgives (a torn or erased tail) still exports."""

import json
import os
import random
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from boardshape import board_shape  # noqa: E402
from journals import play  # noqa: E402

from nardy.notation import parse_position_id, position_id  # noqa: E402
from nardy.rules import BLACK, WHITE  # noqa: E402
from nardy.shortnardy import ShortNardy  # noqa: E402
from nardy_host import cli  # noqa: E402

NARDY = os.path.join(os.path.dirname(sys.executable), "nardy")


def _recs():
    return board_shape(play(ShortNardy(), random.Random(4)))


def _lines(recs):
    return [json.dumps(r).encode() for r in recs]


def _join(lines):
    return b"\n".join(lines) + b"\n"


def _edit(fn):
    """A journal whose records were changed by fn(records)."""
    recs = _recs()
    fn(recs)
    return _join(_lines(recs))


def _turn(recs, i=0):
    return [r for r in recs if r["r"] == "turn"][i]


def _set(rec, **kw):
    rec.update(kw)


def _mixed_start(pid):
    """The position id ``pid`` with one white checker moved onto a black point."""
    v = ShortNardy()
    pos = parse_position_id(pid)[1]
    k = next(k for k in range(1, 25) if pos.count(BLACK, v.opp_point(k)))
    f = next(f for f in range(1, 25) if pos.count(WHITE, f))
    pos.side(WHITE)[f] -= 1
    pos.side(WHITE)[k] += 1
    return position_id(v, pos)


GOOD = _join(_lines(_recs()))
LINES = _lines(_recs())
MID = len(LINES) // 2


def _flip(data, at, bit):
    b = bytearray(data)
    b[at] ^= 1 << bit
    return bytes(b)


# name -> (bytes, still exports?)
CASES = {
    # damage the board's reader forgives (the torn-tail rule): still a game
    "torn last line": (GOOD[:-40], True),
    "erased tail 0xFF": (GOOD + b"\xff" * 4096, True),
    "erased tail NUL": (GOOD + b"\x00" * 512, True),
    "no final newline": (GOOD[:-1], True),
    "blank lines": (GOOD.replace(b"\n", b"\n\n\n"), True),
    "CRLF lines": (GOOD.replace(b"\n", b"\r\n"), True),
    # unreadable or not a journal: one clean error each
    "empty": (b"", False),
    "whitespace only": (b"\n \n\t\n", False),
    "text": (b"hello\nworld\n", False),
    "binary noise": (bytes(random.Random(1).randrange(256) for _ in range(3000)), False),
    "only the torn header": (LINES[0][:30], False),
    "a JSON array": (b"[1, 2, 3]\n" + GOOD, False),
    "a turn before the header": (_join([LINES[3]] + LINES), False),
    "second game line": (_join(LINES[:MID] + [LINES[0]] + LINES[MID:]), False),
    "record after the end": (_join(LINES + [LINES[3]]), False),
    "bit-7 flip mid-file": (_flip(GOOD, len(GOOD) // 2, 7), False),
    "NULs mid-file": (_join(LINES[:MID] + [b"\x00" * 64] + LINES[MID:]), False),
    "1 MB line mid-file": (_join(LINES[:MID] + [b'{"r": "warn", "text": "' + b"x" * 2 ** 20
                                                + b'"}'] + LINES[MID:]), False),
    "deep nesting mid-file": (_join(LINES[:MID] + [b"[" * 3000 + b"]" * 3000]
                                    + LINES[MID:]), False),
    "unknown kind mid-file": (_join(LINES[:MID] + [b'{"r": "zzz"}'] + LINES[MID:]), False),
    "duplicated turn": (_join(LINES[:MID] + [x for x in LINES if b'"turn"' in x][:1]
                              + LINES[MID:]), False),
    "version 2": (_edit(lambda r: _set(r[0], v=2)), False),
    "variant chess": (_edit(lambda r: _set(r[0], variant="chess")), False),
    "unknown option": (_edit(lambda r: _set(r[0], options={"nope": True})), False),
    "option as a string": (_edit(lambda r: _set(r[0], options={
        "opening_dice_played": "false"})), False),
    "options a list": (_edit(lambda r: _set(r[0], options=[1])), False),
    "no start": (_edit(lambda r: r[0].pop("start")), False),
    "start garbage": (_edit(lambda r: _set(r[0], start="Sw-zz")), False),
    "start of long nardy": (_edit(lambda r: _set(r[0], start="Lw-" + "0" * 26 + "-"
                                                 + "0" * 26)), False),
    "start with 16 checkers": (_edit(lambda r: _set(r[0], start=r[0]["start"].replace(
        "-02", "-03", 1))), False),
    "meta.match a string": (_edit(lambda r: _set(r[0], meta={"match": "x"})), False),
    "meta.match score 1e999": (_edit(lambda r: r[0]["meta"]["match"].update(
        score=[float("inf"), 0])), False),
    "meta a list": (_edit(lambda r: _set(r[0], meta=[])), False),
    "opening rolls empty": (_edit(lambda r: _set(r[1], rolls=[])), False),
    "opening winner contradicts the first turn": (_edit(lambda r: _set(
        r[1], first="black" if r[1]["first"] == "white" else "white",
        rolls=[[1, 6]] if r[1]["first"] == "white" else [[6, 1]])), False),
    "dice 0 and 7": (_edit(lambda r: _set(_turn(r), dice=[0, 7])), False),
    "dice strings": (_edit(lambda r: _set(_turn(r), dice=["6", "5"])), False),
    "dice 1e999": (_edit(lambda r: _set(_turn(r), dice=[float("inf"), 2])), False),
    "side green": (_edit(lambda r: _set(_turn(r), side="green")), False),
    "steps a dict": (_edit(lambda r: _set(_turn(r), steps={})), False),
    "step to 99": (_edit(lambda r: _set(_turn(r), steps=[[1, 99]])), False),
    "step nested": (_edit(lambda r: _set(_turn(r), steps=[[[1], 2]])), False),
    "pos garbage": (_edit(lambda r: _set(_turn(r), pos="nope")), False),
    "pos a number": (_edit(lambda r: _set(_turn(r), pos=7)), False),
    "pos both colours on a point": (_edit(lambda r: _set(_turn(r), pos=r[0]["start"][:3]
                                                         + "2" + r[0]["start"][4:])),
                                    False),
    "start both colours on a point, a turn accepted": (_edit(lambda r: (
        _set(r[0], start=_mixed_start(r[0]["start"])),
        _set(_turn(r), accepted=True, rule="C5"))), False),
    "accepted yes": (_edit(lambda r: _set(_turn(r), accepted="yes")), False),
    "n negative": (_edit(lambda r: _set(_turn(r), n=-1)), False),
    "illegal turn not accepted": (_edit(lambda r: _set(_turn(r), steps=[[1, 2]])), False),
    "turn pos not what the steps reach": (_edit(lambda r: _set(
        _turn(r), pos=_turn(r, 1)["pos"])), False),
    # a bad LAST line is a torn write: dropped (the game exports, unfinished)
    "end winner green": (_edit(lambda r: _set(r[-1], winner="green")), True),
    "end points a string": (_edit(lambda r: _set(r[-1], points="3")), True),
}


def _write_cases(d):
    paths = {}
    for i, (name, (data, _)) in enumerate(sorted(CASES.items())):
        p = os.path.join(d, "c%02d.jsonl" % i)
        with open(p, "wb") as f:
            f.write(data)
        paths[name] = p
    return paths


def test_there_are_many_cases():
    bad = sum(1 for _, ok in CASES.values() if not ok)
    assert len(CASES) >= 50 and bad >= 42


@pytest.mark.parametrize("name", sorted(CASES), ids=sorted(CASES))
def test_each_case_exports_or_is_one_clean_error(tmp_path, capsys, name):
    data, ok = CASES[name]
    p = tmp_path / "j.jsonl"
    p.write_bytes(data)
    out = tmp_path / "out.txt"
    rc = cli.main(["export", str(p), "--out", str(out), "--format", "json"])
    _, err = capsys.readouterr()
    if ok:
        assert rc == 0, err
        assert json.loads(out.read_text())["turns"]
    else:
        assert rc == 2
        assert err.count("error:") == 1 and str(p) in err, err
        assert not out.exists()


def test_a_folder_of_hostile_journals_in_one_run(tmp_path):
    """One subprocess over every case and two good games: no traceback, one error
    line per bad file, the good ones (and the forgiven ones) exported."""
    src = tmp_path / "in"
    src.mkdir()
    paths = _write_cases(str(src))
    (src / "good-a.jsonl").write_bytes(GOOD)
    (src / "good-b.jsonl").write_bytes(GOOD)
    r = subprocess.run([NARDY, "export", str(src), "--out-dir", str(tmp_path / "out")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    errors = [ln for ln in r.stderr.splitlines() if ": error: " in ln]
    bad = [name for name, (_, ok) in CASES.items() if not ok]
    assert len(errors) == len(bad), r.stderr
    for name in bad:
        assert sum(1 for e in errors if paths[name] + ":" in e) == 1, name
    made = set(os.listdir(tmp_path / "out"))
    assert {"good-a.mat", "good-b.mat"} <= made
    for name, (_, ok) in CASES.items():
        stem = os.path.basename(paths[name])[:-6]
        assert (stem + ".mat" in made) == ok, name
    assert "%d of %d games exported" % (len(CASES) - len(bad) + 2, len(CASES) + 2) in r.stderr


def test_missing_files_and_folders_named_like_journals(tmp_path, capsys):
    src = tmp_path / "in"
    (src / "dir.jsonl").mkdir(parents=True)
    (src / "good.jsonl").write_bytes(GOOD)
    rc = cli.main(["export", str(src), str(tmp_path / "missing.jsonl"),
                   "--out-dir", str(tmp_path / "out")])
    _, err = capsys.readouterr()
    assert rc == 2 and err.count("error:") == 2, err
    assert "dir.jsonl" in err and "missing.jsonl" in err
    assert os.listdir(tmp_path / "out") == ["good.mat"]
    assert cli.main(["export", str(tmp_path / "empty-folder-x")]) == 2
    (tmp_path / "empty").mkdir()
    assert cli.main(["export", str(tmp_path / "empty")]) == 2
    assert "no .jsonl journals" in capsys.readouterr().err
