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
