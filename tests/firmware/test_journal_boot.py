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
    f = j.file
    j.file = _Pieces()
    rec = {"r": "step", "n": 4, "from": 1, "to": 7}
    assert j.append(rec) == j.lines - 1
    parts = j.file.parts
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


_HEADER = {"r": "game", "v": 1, "variant": "long", "options": {},
           "start": "Lw-0f000000000000000000000000-0f000000000000000000000000",
           "meta": {}}


def test_ids_past_99999_are_read_back_by_the_parser_of_the_writer():
    # issue 22: the game after a stray g99999 was written as g100000.jsonl, a name
    # the scan did not know: not listed, not resumed, and truncated by the next new
    d = _dir("wide")
    _write_game(d, 99999, 2)
    j = Journal(d)
    assert j.scan() == [] and j.last == 99999
    assert j.start(_HEADER) == 100000
    j.append({"r": "roll", "n": 1, "side": "white", "dice": [6, 5]})
    j.close()
    size = os.stat(d + "/g100000.jsonl")[6]
    j2 = Journal(d)
    assert j2.scan() == [] and j2.last == 100000 and j2.count == 2
    assert j2.unfinished() == 100000 and j2.lines == 2
    from nardy.jindex import index_page
    games, _ = index_page(j2)
    assert [g["game"] for g in games] == [99999, 100000]
    j2.resume(100000)
    j2.close()
    j3 = Journal(d)
    j3.scan()
    assert j3.start(_HEADER) == 100001
    j3.close()
    assert os.stat(d + "/g100000.jsonl")[6] == size     # never truncated
    _cleanup(d)


def test_parse_name_reads_exactly_the_names_the_journal_writes():
    from nardy.journal import Journal
    parse_name = Journal.parse_name
    from nardy.protocol import MAX_GAME
    d = _dir("names")
    j = Journal(d)
    for gid in (1, 42, 99999, 100000, 123456789, MAX_GAME):
        for ext in ("jsonl", "bad", "tmp"):
            assert parse_name(j.name(gid, ext)[len(d) + 1:]) == (gid, ext)
    os.rmdir(d)
    for n in ("g012345.jsonl", "g+1234.jsonl", "g 1234.jsonl", "g00000.jsonl",
              "g1234.jsonl", "g1000000000.jsonl", "g00001.txt", "g0000a.jsonl"):
        assert parse_name(n) == (None, None), n


def test_a_new_game_never_reuses_the_name_of_a_file_on_flash():
    d = _dir("reuse")
    _write_game(d, 6, 1, end=False)
    j = Journal(d)
    j.scan()
    j.last = 5          # as if the scan had missed g00006 (a name it cannot read)
    j.current = None
    assert j.start(_HEADER) == 7
    j.close()
    with open(d + "/g00006.jsonl") as f:
        assert len(f.read().splitlines()) == 2
    _cleanup(d)


def test_a_whole_last_record_that_fails_the_checks_is_reported_and_set_aside():
    # issue 22: a complete, newline-ended last line that is JSON but no valid record
    # cannot come from a power cut: it is damage, not a torn tail to cut silently
    for tag, tail in (
            ("dice", '{"r": "roll", "n": 3, "side": "white", "dice": [0, 7]}\n'),
            ("side", '{"r": "roll", "n": 3, "side": "green", "dice": [6, 5]}\n'),
            ("step", '{"r": "step", "n": 3, "from": "a", "to": "b"}\n')):
        d = _dir("check-" + tag)
        _write_game(d, 5, 2, end=False, tail=tail)
        j = Journal(d)
        reports = j.scan()
        assert len(reports) == 1 and reports[0][0] == 5, reports
        assert "line 4" in reports[0][1] and "set aside as g00005.bad" in reports[0][1]
        assert j.unfinished() is None
        assert os.listdir(d) == ["g00005.bad"]
        with open(d + "/g00005.bad") as f:
            assert f.read().endswith(tail)          # nothing cut
        _cleanup(d)


def test_a_torn_last_line_is_still_cut_quietly():
    d = _dir("torn2")
    _write_game(d, 8, 2, end=False, tail='{"r": "roll", "n": 3, "side": "wh')
    j = Journal(d)
    assert j.scan() == [] and j.unfinished() == 8 and j.lines == 3
    _cleanup(d)


class _Flash:
    """A flash of ``cap`` bytes holding directory ``d`` (as the virtual board's
    --flash-size): the journal's writes go through nardy.vquota, so a write that
    does not fit writes what does, then raises ENOSPC."""

    def __init__(self, d, cap):
        self.d = d
        self.cap = cap

    def used(self):
        try:
            return sum(os.stat(self.d + "/" + n)[6] for n in os.listdir(self.d))
        except OSError:
            return 0

    def leave(self, n):
        self.cap = self.used() + n

    def flash_free(self):
        return max(0, self.cap - self.used())

    def open(self, path, mode):
        from nardy.vquota import QuotaFile
        return QuotaFile(self, open(path, mode))


def test_records_that_do_not_fit_are_held_in_ram_and_written_when_room_returns():
    # issue 22: a full flash mid-game (ENOSPC) stopped the journal. Every cut point:
    # inside a record, just before its newline, and at a record's start
    rec = {"r": "roll", "n": 2, "side": "white", "dice": [6, 5]}
    size = len(json.dumps(rec)) + 1
    for left in (0, 5, size - 1, size, size + 3):
        d = _dir("held%d" % left)
        flash = _Flash(d, 100000)
        said = []
        j = Journal(d, flash.flash_free, low_bytes=0, full_bytes=0, opener=flash.open)
        j.warn = said.append
        j.scan()
        assert j.start(_HEADER) == 1
        flash.leave(left)
        seqs = [j.append(dict(rec, n=n)) for n in range(2, 6)]
        assert seqs == [1, 2, 3, 4] and j.lines == 5
        assert j.held and "kept in RAM" in said[-1], (left, said)
        assert not j.confirm(1)                  # the game in play: never deleted
        flash.leave(100000)
        j.append(dict(rec, n=6))
        assert not j.held
        j.close()
        recs = list(Journal(d).records(1))
        assert [r.get("n") for r in recs] == [None, 2, 3, 4, 5, 6], (left, recs)
        _cleanup(d)


def test_a_header_that_does_not_fit_leaves_no_game():
    d = _dir("nohdr")
    flash = _Flash(d, 10)
    j = Journal(d, flash.flash_free, low_bytes=0, full_bytes=0, opener=flash.open)
    j.scan()
    try:
        j.start(_HEADER)
    except OSError as e:
        assert e.args[0] == 28
    else:
        raise AssertionError("a game without room was started")
    assert os.listdir(d) == [] and j.current is None and j.count == 0
    os.rmdir(d)


def test_the_flash_getting_low_then_full_is_said_once_each():
    d = _dir("said")
    free = [100000]
    j = Journal(d, lambda: free[0], low_bytes=50000, full_bytes=10000)
    said = []
    j.warn = said.append
    j.scan()
    j.start(_HEADER)
    for f in (90000, 40000, 39000, 5000, 4000):
        free[0] = f
        for _ in range(8):      # the journal looks at the free space every 8 records
            j.append({"r": "roll", "n": 1, "side": "white", "dice": [6, 5]})
    assert len(said) == 2 and "flash low: 40000 bytes" in said[0] and "full" in said[1]
    assert j.free() == 4000 and not j.held
    j.close()
    _cleanup(d)


def test_the_full_flash_code_is_loaded_only_while_records_wait_in_ram():
    # issue 22's full-flash paths had grown the resident journal (+1.2 KB of heap
    # with the code in flash, +3.4 KB in RAM): they live in nardy.journalfull, on the
    # heap only while the flash cannot take a record, and boot's scan in
    # nardy.journalboot, dropped once the board is up. (CPython keeps its modules:
    # the drops are checked under MicroPython.)
    import sys
    micropython = sys.implementation.name == "micropython"
    from nardy import drop_module
    drop_module("nardy.journalfull")
    d = _dir("lazy")
    flash = _Flash(d, 100000)
    said = []
    j = Journal(d, flash.flash_free, low_bytes=0, full_bytes=0, opener=flash.open)
    j.warn = said.append
    j.scan()
    assert j.load_match() == (None, None)       # boot's last question to journalboot
    if micropython:
        assert "nardy.journalboot" not in sys.modules
    j.start(_HEADER)
    rec = {"r": "roll", "n": 2, "side": "white", "dice": [6, 5]}
    for _ in range(20):
        j.append(rec)
    assert not said
    if micropython:
        assert "nardy.journalfull" not in sys.modules     # a flash with room
    flash.leave(30)
    for _ in range(3):
        j.append(rec)
    assert j.held and "kept in RAM" in said[-1]
    assert "nardy.journalfull" in sys.modules              # held: it writes them later
    flash.leave(100000)
    j.append(rec)
    assert not j.held
    if micropython:
        assert "nardy.journalfull" not in sys.modules      # written: dropped again
    j.close()
    recs = list(Journal(d).records(1))
    assert len(recs) == 25 and recs[-1] == rec
    _cleanup(d)


class _NoRoomForModule:
    """A finder that fails the import of nardy.journalfull as a fragmented heap with
    the code in RAM would (MemoryError: no block for its bytecode). CPython only."""

    def find_spec(self, name, path=None, target=None):
        if name == "nardy.journalfull":
            raise MemoryError("memory allocation failed, allocating 1027 bytes")
        return None


def test_no_heap_for_the_full_flash_code_keeps_the_records_held():
    import sys
    if sys.implementation.name == "micropython":
        return          # (an import cannot be made to fail there; the logic is shared)
    import nardy
    saved = sys.modules.pop("nardy.journalfull", None)
    nardy.__dict__.pop("journalfull", None)
    sys.meta_path.insert(0, _NoRoomForModule())
    d = _dir("nomem")
    flash = _Flash(d, 100000)
    said = []
    try:
        j = Journal(d, flash.flash_free, low_bytes=0, full_bytes=0, opener=flash.open)
        j.warn = said.append
        j.scan()
        j.start(_HEADER)
        flash.leave(10)
        rec = {"r": "roll", "n": 2, "side": "white", "dice": [6, 5]}
        for _ in range(3):
            j.append(rec)
        assert len(j.held) >= 2 and said == ["flash full"]   # the short words
        flash.leave(100000)
        j.append(rec)
        assert len(j.held) >= 3                 # not written, not lost: tried again
    finally:
        sys.meta_path.pop(0)
        if saved is not None:
            sys.modules["nardy.journalfull"] = saved
    j.append(rec)                               # the module can load again
    assert not j.held
    j.close()
    assert len(list(Journal(d).records(1))) == 6
    _cleanup(d)
