"""The journal format: lines build, parse and replay; the one streaming reader
(``record.Reader``) never raises for what is in a file (a table of damaged files)."""

from apputil import rmtree, tmpdir

from nardy import record
from nardy.longnardy import LongNardy
from nardy.rules import BLACK, WHITE


def _game_lines():
    v = LongNardy()
    pos = v.start_position()
    lines = [record.dumps(record.game(v, pos, {"seed": 1}))]
    lines.append(record.dumps(record.opening([(3, 3), (2, 5)], BLACK)))
    lines.append(record.dumps(record.roll(1, BLACK, (6, 5))))
    lines.append(record.dumps(record.step(1, (1, 7))))
    lines.append(record.dumps(record.step(1, (1, 7), undo=True)))
    lines.append(record.dumps(record.warn(1, "L3", "only one checker may leave the head",
                                          (24, 19))))
    steps = ((1, 7), (7, 12))
    p = pos.copy()
    p.turn = BLACK
    after = v.apply_step(v.apply_step(p, steps[0]), steps[1])
    after.turn = WHITE
    lines.append(record.dumps(record.turn(v, 1, BLACK, (6, 5), steps, after)))
    lines.append(record.dumps(record.end(BLACK, "mars", 2)))
    return lines, after


def test_a_game_round_trips_through_the_journal():
    lines, after = _game_lines()
    for ln in lines:
        assert "\n" not in ln
        assert record.loads(ln)["r"] in record.KINDS
    header, turns, fin, last = record.replay(lines)
    assert header["variant"] == "long" and header["meta"] == {"seed": 1}
    assert len(turns) == 1 and turns[0]["steps"] == [[1, 7], [7, 12]]
    assert turns[0]["accepted"] is False and turns[0]["rule"] is None
    assert fin["winner"] == "black" and fin["points"] == 2
    assert last[0] == "long" and last[1].board == after.board and last[1].turn == WHITE


def test_a_torn_last_line_is_ignored_but_not_one_in_the_middle():
    lines, _ = _game_lines()
    header, turns, fin, last = record.replay(lines[:3] + [lines[3][:7]])
    assert header["r"] == "game" and fin is None
    try:
        record.replay(lines[:2] + [lines[2][:7]] + lines[3:])
    except ValueError as e:
        assert "line 3" in str(e)
    else:
        raise AssertionError("a broken line in the middle was accepted")
    try:
        record.loads('{"r": "nonsense"}')
    except ValueError:
        pass
    else:
        raise AssertionError("unknown record accepted")


def test_who_moved_first_is_stated_once():
    lines, _ = _game_lines()
    # the header was written before the opening: it leaves `first` to the opening
    assert record.loads(lines[0])["first"] is None
    r = _read(_bytes(lines))
    assert r.first == "black" and r.finished and not r.torn and r.problem is None
    # L8 (no opening roll): the header says it
    v = LongNardy()
    hdr = record.dumps(record.game(v, v.start_position(), {}, first=WHITE))
    assert _read(_bytes([hdr])).first == "white"
    # an old journal without `first` anywhere: the first roll's side
    old = record.loads(lines[0])
    del old["first"]
    assert _read(_bytes([record.dumps(old), lines[2]])).first == "black"
    # an old opening record without `first`: its last try decides (C2)
    assert _read(_bytes([record.dumps(old), '{"r": "open", "rolls": [[6, 2]]}'])
                 ).first == "white"


# -- the table of damaged files ------------------------------------------------------
def _bytes(lines, tail=b""):
    return "".join(ln + "\n" for ln in lines).encode() + tail


def _flip(line):
    """A bit-7 flip in the middle of a line: no longer UTF-8."""
    b = bytearray(line.encode())
    b[len(b) // 2] |= 0x80
    return bytes(b)


def _table():
    lines, _ = _game_lines()
    hdr = record.loads(lines[0])
    n = len(lines)
    # a 1 MB line: written in pieces (the test itself runs in a 112wK heap)
    big = [b'{"r": "warn", "n": 1, "rule": null, "text": "', _BIG, b'"}']

    def hdr_with(**kw):
        h = dict(hdr)
        h.update(kw)
        return record.dumps(h)

    ok = ("ok",)
    # (name, file bytes, expected): ("ok", lines, torn, finished) or ("bad", text)
    # built one at a time: the whole table at once would crowd a 112wK heap
    yield ("clean", _bytes(lines), ok + (n, False, True))
    yield ("torn json tail", _bytes(lines[:4], lines[4][:9].encode()), ok + (4, True, False))
    yield ("last line without newline", _bytes(lines[:4]) + lines[4].encode(),
     ok + (5, True, False))
    yield ("erased 0xFF tail", _bytes(lines[:4], b"\xff" * 300), ok + (4, True, False))
    yield ("erased NUL tail", _bytes(lines[:4], b"\x00" * 300), ok + (4, True, False))
    yield ("0xFF tail with newlines", _bytes(lines[:4], b"\xff" * 100), ok + (4, True, False))
    yield ("bit-7 flip, last line", _bytes(lines[:4]) + _flip(lines[4]) + b"\n",
     ok + (4, True, False))
    yield ("1 MB last line", [_bytes(lines[:4])] + big, ok + (4, True, False))
    yield ("blank lines", _bytes(lines[:2] + ["", "  "] + lines[2:]), ok + (n, False, True))
    yield ("bit-7 flip, middle", _bytes(lines[:3]) + _flip(lines[3]) + b"\n" +
     _bytes(lines[4:]), ("bad", "line 4: not UTF-8"))
    yield ("bit-7 flip, header", _flip(lines[0]) + b"\n" + _bytes(lines[1:]),
     ("bad", "line 1: not UTF-8"))
    yield ("1 MB line, middle", [_bytes(lines[:3])] + big + [b"\n", _bytes(lines[3:])],
     ("bad", "line 4: line too long"))
    yield ("garbage, middle", _bytes(lines[:3] + ["garbage"] + lines[3:]),
     ("bad", "line 4: not JSON"))
    yield ("NULs, middle", _bytes(lines[:3], b"\x00" * 40 + b"\n") + _bytes(lines[3:]),
     ("bad", "line 4"))
    yield ("empty file", b"", ("bad", "empty"))
    yield ("only blank lines", b"\n\n  \n", ("bad", "empty"))
    yield ("only 0xFF", b"\xff" * 4096, ("bad", "line 1"))
    yield ("no game line", _bytes(lines[2:]), ("bad", "no game line"))
    yield ("string scores", _bytes([hdr_with(meta={"match": {
        "length": 3, "score": ["1", "0"], "game": 2, "no": 1, "white_player": 0}})]
        + lines[1:]), ("bad", "line 1: game: bad meta.match"))
    yield ("string match length", _bytes([hdr_with(meta={"match": {
        "length": "3", "score": [0, 0], "game": 1}})] + lines[1:]),
     ("bad", "line 1: game: bad meta.match"))
    yield ("unknown variant", _bytes([hdr_with(variant="chess")] + lines[1:]),
     ("bad", "game: bad variant"))
    yield ("option not bool", _bytes([hdr_with(options={"home_mars": "false"})] + lines[1:]),
     ("bad", "game: bad options"))
    yield ("bad start", _bytes([hdr_with(start="Lw-zz")] + lines[1:]),
     ("bad", "not a position id"))
    yield ("version 9", _bytes([hdr_with(v=9)] + lines[1:]), ("bad", "journal version"))
    yield ("string turn number", _bytes(lines[:2] + [lines[2].replace('"n": 1', '"n": "1"')]
                                  + lines[3:]), ("bad", "line 3: roll: bad n"))
    yield ("dice out of range", _bytes(lines[:2] + [lines[2].replace("[6, 5]", "[9, 5]")]
                                 + lines[3:]), ("bad", "line 3: roll: bad dice"))
    yield ("1e999 points", _bytes(lines[:-1] + [lines[-1].replace('"points": 2',
                                                            '"points": 1e999')] + [lines[0]]),
     ("bad", "line 8: end: bad points"))
    yield ("step out of range", _bytes(lines[:3] + [lines[3].replace('"to": 7', '"to": 99')]
                                 + lines[4:]), ("bad", "line 4: step: bad to"))
    yield ("turn pos not an id", _bytes(lines[:6] + ['{"r": "turn", "n": 1, "side": "white", '
                                               '"dice": [1, 2], "steps": [], "pos": 5, '
                                               '"accepted": false, "rule": null}']
                                  + lines[7:]), ("bad", "line 7: turn: bad pos"))
    yield ("unknown kind, middle", _bytes(lines[:3] + ['{"r": "dance"}'] + lines[3:]),
     ("bad", "line 4: not a journal record"))
    yield ("not an object", _bytes(lines[:3] + ["[1, 2]"] + lines[3:]),
     ("bad", "line 4: not a journal record"))
    yield ("deeply nested", _bytes(lines[:3] + ["[" * 1000 + "]" * 1000] + lines[3:]),
     ("bad", "line 4"))
    yield ("record after the end", _bytes(lines + [lines[2]]),
     ("bad", "line %d: a record after the end" % (n + 1)))
    yield ("second game line", _bytes(lines[:3] + [lines[0]] + lines[3:]),
     ("bad", "line 4: a second game line"))


_BIG = 1000000


def _read(data, path=None):
    d = tmpdir("rec")
    p = path or d + "/g.jsonl"
    with open(p, "wb") as f:
        for part in data if isinstance(data, list) else [data]:
            if part is _BIG:
                chunk = b"x" * 4096
                for _ in range(_BIG // 4096):
                    f.write(chunk)
            else:
                f.write(part)
    r = record.Reader(p).scan()
    rmtree(d)
    return r


def test_damaged_journals_are_reported_never_raised():
    n = 0
    for name, data, want in _table():
        n += 1
        r = _read(data)
        if want[0] == "ok":
            got = ("ok", r.lines, r.torn, r.finished)
            assert r.problem is None and got == want, (name, r.problem, got, want)
            assert r.header is not None, name
        else:
            assert r.problem is not None and want[1] in r.problem, (name, r.problem)
        data = r = None
    assert n >= 30


def test_keep_is_where_the_readable_lines_end():
    lines, _ = _game_lines()
    data = _bytes(lines[:4], b"\xff" * 50)
    r = _read(data)
    assert r.keep == len(_bytes(lines[:4])) and r.torn


def test_a_directory_or_a_missing_file_is_a_problem_not_an_exception():
    d = tmpdir("recdir")
    import os
    os.mkdir(d + "/g.jsonl")
    r = record.Reader(d + "/g.jsonl").scan()
    assert r.problem and r.header is None
    r = record.Reader(d + "/missing.jsonl").scan()
    assert r.problem.startswith("cannot open")
    rmtree(d)


def test_a_line_that_is_not_strict_utf8_is_unreadable():
    # issue 22: MicroPython's decode takes an overlong form (C0 B3), which ``log``
    # would then send to the host: a line out of the board that is not UTF-8
    lines, _ = _game_lines()
    warn = lines[5].encode()
    i = warn.index(b"only")
    for bad in (b"\xc0\xb3", b"\xed\xa0\x80", b"\xf4\x90\x80\x80"):
        try:
            record.loads(warn[:i] + bad + warn[i:])
        except ValueError as e:
            assert "UTF-8" in str(e)
        else:
            raise AssertionError("accepted %r" % bad)
    ok = warn[:i] + "\u00e9".encode() + warn[i:]
    assert record.loads(ok)["text"].startswith("\u00e9only")
