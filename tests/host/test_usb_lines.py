"""The ESP32 board's USB path end to end (CPython: the whole app compiled from
source does not fit the firmware test runner's 112wK heap next to the test):
bytes in random chunks -> nardy.lines.LineReader -> App -> JSON lines out through
hal_esp32.Board.out. The reader itself is tested under both runtimes in
tests/firmware/test_lines.py."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "firmware"))

from test_lines import ChunkStream, Rand, _collect  # noqa: E402

from nardy.lines import LineReader  # noqa: E402


def test_board_app_answers_lines_sent_in_random_chunks():
    """The ESP32 board's path: bytes in random chunks -> LineReader -> App, replies
    as JSON lines through Board.out (no asyncio: the reader is pumped by hand)."""
    import json

    from apputil import rmtree, tmpdir

    from nardy.app import App
    from nardy.hal_esp32 import Board
    from nardy.pinmap import load

    here = os.path.dirname(os.path.abspath(__file__))
    pm = load(os.path.join(here, "..", "..", "firmware", "pinmap", "esp32s3.json"))
    data = tmpdir("lines")
    out = []
    lines = [b'{"cmd": "ping", "id": 1}', b"x" * 5000, b"", b"not json",
             b'{"cmd": "new", "variant": "short"}', b'{"cmd": "ping", "id": 2}']
    s = ChunkStream(b"\r\n".join(lines) + b"\n", Rand(21), 300)
    try:
        board = Board(pm, None, None, None, None, flash_dir=data,
                      usb=LineReader(s, s.ready, 4096), write=out.append)
        app = App(board, data)
        for ln in _collect(s, board.usb, 64):
            app.line_in(ln)
        app.journal.close()
    finally:
        rmtree(data)
    evs = [json.loads(x) for x in out]
    for x in out:
        assert x.endswith("\n") and x.count("\n") == 1
    kinds = [e["ev"] for e in evs]
    assert kinds[0] == "pong" and evs[0]["id"] == 1
    assert evs[1] == {"ev": "error", "error": "line too long"}
    assert evs[2]["ev"] == "error" and evs[2]["error"] == "not JSON"
    assert "game" in kinds
    assert kinds[-1] == "pong" and evs[-1]["id"] == 2
    assert kinds.count("error") == 2
