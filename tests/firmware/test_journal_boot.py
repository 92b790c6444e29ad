"""Booting on a flash that holds long games: the journal is read a line at a time,
so a finished 40 KB game costs no 40 KB of heap (this runs at 112wK too)."""

import io
import json
import os
import time

from nardy.journal import Journal


def _dir(tag):
    path = "/tmp/nardy-jtest-%s-%d" % (tag, time.ticks_ms() if hasattr(time, "ticks_ms")
                                      else int(time.time() * 1000))
    return path


def _write_game(path, gid, turns, end=True, tail=""):
    try:
        os.mkdir(path)
    except OSError:
        pass
    with open("%s/g%05d.jsonl" % (path, gid), "w") as f:
        f.write('{"r": "game", "v": 1, "variant": "long", "options": {}, '
                '"start": "Lw-0f000000000000000000000000-0f000000000000000000000000", '
                '"meta": {}}\n')
        for n in range(1, turns + 1):
            # padded roll lines: about 80 bytes each
            f.write('{"r": "roll", "n": %d, "side": "white", "dice": [6, 5], '
                    '"pad": "%s"}\n' % (n, "x" * 24))
        if end:
            f.write('{"r": "end", "winner": "white", "kind": "oin", "points": 1}\n')
        f.write(tail)


def _cleanup(path):
    for n in os.listdir(path):
        os.remove(path + "/" + n)
    os.rmdir(path)


def test_a_long_finished_game_boots():
    d = _dir("big")
    _write_game(d, 1, 500)                       # ~40 KB on flash
    assert os.stat(d + "/g00001.jsonl")[6] > 35000
    j = Journal(d)
    assert j.scan() == []
    assert j.latest.finished and j.lines == 502 and j.unfinished() is None
    _cleanup(d)


def test_a_torn_tail_is_cut_and_the_rest_kept():
    d = _dir("torn")
    _write_game(d, 2, 300, end=False, tail='{"r": "roll", "n": 301, "si')
    j = Journal(d)
    assert j.scan() == []
    assert j.latest.torn and j.lines == 301 and j.unfinished() == 2
    with open(d + "/g00002.jsonl") as f:
        lines = [ln for ln in f]
    assert len(lines) == 301 and lines[-1].endswith("\n") and '"n": 300' in lines[-1]
    _cleanup(d)


def test_a_bad_line_in_the_middle_is_reported_not_resumed():
    d = _dir("bad")
    _write_game(d, 3, 10, end=False, tail='garbage\n{"r": "roll", "n": 11}\n')
    j = Journal(d)
    reports = j.scan()
    assert reports and reports[0][0] == 3 and "line 12" in reports[0][1]
    assert j.unfinished() is None
    # set aside, not deleted: the host can still pull what is readable
    assert os.listdir(d) == ["g00003.bad"]
    assert len(list(j.raw_lines(3))) == 11
    _cleanup(d)


class _Pieces(io.IOBase):
    """A file that keeps what each write call was given (io.IOBase: MicroPython's
    json.dump wants a stream)."""

    def __init__(self):
        self.parts = []

    def write(self, s):
        # (MicroPython hands the pieces over as bytes)
        self.parts.append(s if isinstance(s, str) else bytes(s).decode())
        return len(s)

    def flush(self):
        pass


def test_a_record_goes_in_pieces_and_a_cut_before_its_newline_is_torn():
    # A record is written as json.dump makes it: no block the size of the line, which
    # a fragmented 56 KB heap may not have. A power cut between the pieces leaves a
    # torn line: cut off at the next boot, or, whole but for its newline, kept with
    # the newline put back.
    d = _dir("pieces")
    _write_game(d, 4, 3, end=False)
    j = Journal(d)
    assert j.scan() == [] and j.unfinished() == 4
    j.resume(4)
    f = j._f
    j._f = _Pieces()
    rec = {"r": "step", "n": 4, "from": 1, "to": 7}
    assert j.append(rec) == j.lines - 1
    parts = j._f.parts
    line = json.dumps(rec) + "\n"
    assert "".join(parts) == line
    assert len(parts) > 4 and max(len(p) for p in parts) < len(line) // 2, parts
    f.write("".join(parts[:-1]))          # the power cut: all but the newline
    f.close()
    j2 = Journal(d)
    assert j2.scan() == []
    assert j2.latest.torn and j2.lines == 5 and j2.unfinished() == 4
    j2.resume(4)
    j2.append(rec)
    j2.close()
    with open(d + "/g00004.jsonl") as f:
        lines = [ln for ln in f]
    assert len(lines) == 6 and json.loads(lines[-2]) == json.loads(lines[-1]) == rec
    with open(d + "/g00004.jsonl", "a") as f:
        f.write("".join(parts[:3]))       # a cut inside the record
    j3 = Journal(d)
    assert j3.scan() == [] and j3.latest.torn and j3.lines == 6
    _cleanup(d)
