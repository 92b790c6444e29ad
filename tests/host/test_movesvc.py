"""The move service (nardy_host.movesvc, ``nardy moves --batch``): host code, out of
the firmware package; it runs under CPython here and under unix MicroPython through
``nardy moves --micropython`` (tests/host/test_cli.py)."""

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

    from nardy.posjson import to_json
    from nardy.shortnardy import ShortNardy
    from nardy_host import movesvc
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
