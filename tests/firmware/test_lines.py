"""USB input on the board: lines assembled from bytes that arrive in random chunks
(nardy.lines, used by nardy.hal_esp32)."""

from fwutil import Rand

from nardy.lines import TOO_LONG, LineReader


class ChunkStream:
    """Bytes arrive in chunks: ``ready()`` is true only for what has "arrived";
    ``arrive()`` lets the next random-sized chunk in. Reading past what has arrived
    would block on the board: here it fails the test."""

    def __init__(self, data, rand, most=40):
        self.data = data
        self.rand = rand
        self.most = most
        self.arrived = 0
        self.pos = 0
        self.reads = 0

    def arrive(self):
        n = self.rand(1)[0] % self.most
        self.arrived = min(len(self.data), self.arrived + n)

    def ready(self):
        return self.pos < self.arrived

    def readinto(self, buf):
        assert self.pos < self.arrived, "read would block"
        assert len(buf) == 1
        buf[0] = self.data[self.pos]
        self.pos += 1
        self.reads += 1
        return 1


def _collect(stream, reader, budget=16):
    out = []
    for _ in range(100000):
        stream.arrive()
        while True:
            before = stream.reads
            ln = reader.readline(budget)
            assert stream.reads - before <= budget
            if ln is None:
                break
            out.append(ln)
        if stream.pos == len(stream.data):
            break
    return out


def test_lines_from_random_chunks():
    rand = Rand(12345)
    lines = []
    for i in range(80):
        n = rand(1)[0] % 90 + 1
        lines.append(('{"cmd": "ping", "id": %d, "x": "%s"}' % (i, "a" * n)).encode())
    data = b"\n".join(lines) + b"\n"
    s = ChunkStream(data, rand)
    got = _collect(s, LineReader(s, s.ready, 256))
    assert got == lines


def test_crlf_and_blank_lines():
    rand = Rand(7)
    s = ChunkStream(b'{"cmd": "hello"}\r\n\r\n\n{"cmd": "dump"}\r{"cmd": "mem"}\n', rand, 5)
    got = _collect(s, LineReader(s, s.ready, 64))
    assert got == [b'{"cmd": "hello"}', b'{"cmd": "dump"}', b'{"cmd": "mem"}']


def test_over_long_line_is_reported_once_and_dropped():
    rand = Rand(99)
    data = b"a" * 31 + b"\n" + b"b" * 32 + b"\n" + b"c" * 200 + b"\nok\n"
    s = ChunkStream(data, rand, 7)
    got = _collect(s, LineReader(s, s.ready, 32))
    # 32 bytes fit; 33 do not: one TOO_LONG per over-long line, and the next line
    # is read whole
    assert got == [b"a" * 31, b"b" * 32, TOO_LONG, b"ok"]


def test_partial_line_waits_without_reading_more():
    rand = Rand(3)
    s = ChunkStream(b'{"cmd": "hello"}\n', rand)
    r = LineReader(s, s.ready, 64)
    s.arrived = 5
    assert r.readline() is None
    assert s.pos == 5          # everything that had arrived was taken, nothing more
    s.arrived = len(s.data)
    assert r.readline() == b'{"cmd": "hello"}'


def test_budget_bounds_one_call():
    rand = Rand(5)
    s = ChunkStream(b"x" * 1000 + b"\n", rand)
    s.arrived = len(s.data)
    r = LineReader(s, s.ready, 2000)
    calls = 0
    ln = None
    while ln is None:
        ln = r.readline(64)
        calls += 1
    assert ln == b"x" * 1000
    assert calls == 16       # 1001 bytes, 64 at a time


def test_end_of_stream():
    class Empty:
        def readinto(self, buf):
            return 0

    r = LineReader(Empty(), lambda: True, 16)
    assert r.readline() is None
    assert r.eof



class _Starved:
    """A binary stream whose reads fail with MemoryError (a loaded heap) at the
    reads numbered in ``fail`` (counted from 0)."""

    def __init__(self, data, fail):
        import io
        self.inp = io.BytesIO(data)
        self.fail = fail
        self.reads = 0

    def readline(self, size=-1):
        self.reads += 1
        if self.reads - 1 in self.fail:
            raise MemoryError("memory allocation failed")
        return self.inp.readline(size)


class _Out:
    """The batch's output, one answer per line, each kept as its ``n`` or ``error``
    only (16 positions of moves are ~5 KB a line: a 112wK heap has no room for
    the whole output in one piece)."""

    def __init__(self):
        self.parts = []
        self.got = []

    def write(self, s):
        if s != "\n":
            self.parts.append(s)
            return
        import json
        a = json.loads("".join(self.parts))
        self.parts = []
        self.got.append({"error": a["error"]} if "error" in a else {"n": a["n"]})


def test_a_memory_error_reading_one_batch_line_is_that_lines_answer():
    # issue 22: a MemoryError while `nardy moves --batch --micropython` read a line
    # ended the batch (exit 1, later lines unanswered)
    import json

    from nardy import movesvc
    from nardy.posjson import to_json
    from nardy.shortnardy import ShortNardy
    good = json.dumps({"variant": "short", "position": to_json(
        ShortNardy().start_position()), "dice": [3, 1]}).encode()
    big = b'{"variant": "long", "x": "' + b"a" * 2000 + b'"}'
    data = b"\n".join([good, good, big, good]) + b"\n"
    for fail in ({1}, {3}, {2, 3, 4}, {0}):
        out = _Out()
        movesvc.main(_Starved(data, fail), out)
        got = out.got
        assert len(got) == 4, (fail, got)
        assert "error" in got[2]                    # no position, or out of memory
        for i in (0, 1, 3):
            assert got[i].get("n") == 16 or got[i]["error"] == "out of memory", got
        assert sum(g.get("error") == "out of memory" for g in got) >= 1, got
    # the failing reads are those of a line: the others are answered in full
    out = _Out()
    movesvc.main(_Starved(data, {1}), out)
    got = out.got
    assert [g.get("n") for g in got] == [16, None, None, 16]
    assert got[1]["error"] == "out of memory" and got[2]["error"] != "out of memory"
