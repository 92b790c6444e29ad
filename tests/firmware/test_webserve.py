"""The board's own page (nardy.webserve) without a network: a page that stops
reading its event stream is dropped instead of filling the board's heap; the log's
lines in the board's printed labels."""

import asyncio

from nardy import webserve

if not hasattr(asyncio, "sleep_ms"):                       # CPython
    asyncio.sleep_ms = lambda ms: asyncio.sleep(ms / 1000)  # noqa: E731


class FakeSSE:
    """microdot's SSE: what is sent waits in ``queue`` for the socket."""

    def __init__(self):
        self.queue = []

    async def send(self, data, event=None, event_id=None):
        self.queue.append(data)


class FakeBoard:
    display = None


class FakeApp:
    def __init__(self):
        self.frame = bytearray(6)
        self.board = FakeBoard()


class FakeWeb:
    def __init__(self, n):
        self.app = FakeApp()
        self.lines = [{"id": k, "ev": "text", "text": "line %d" % k} for k in range(n)]
        self.n = n
        self.streams = 0

    def frames(self):
        return "00" * 6, None


def _run(coro):
    return asyncio.run(coro)


def test_a_page_that_stops_reading_is_dropped():
    web = FakeWeb(12)
    sse = FakeSSE()

    async def main():
        # nobody takes the queued events (a socket that is not read): the stream
        # must end by itself, its slot freed
        await asyncio.wait_for(webserve._stream(None, sse, web, 0, stall=4), 5)
    _run(main())
    assert web.streams == 0
    assert len(sse.queue) == 13         # the twelve lines and one LED frame, no more


def test_a_page_that_reads_is_kept():
    web = FakeWeb(12)
    sse = FakeSSE()
    done = []

    async def reader():
        for _ in range(40):
            del sse.queue[:]
            await asyncio.sleep_ms(10)

    async def main():
        t = asyncio.create_task(webserve._stream(None, sse, web, 0, stall=4))
        await reader()
        done.append(web.streams)
        t.cancel()
        try:
            await t
        except asyncio.CancelledError:
            pass
    _run(main())
    assert done == [1]
    assert web.streams == 0


class FakeVariant:
    name = "short"      # (a bar: short nardy's)

    def physical(self, colour, k):
        return k if colour == 0 else 25 - k


class FakeGame:
    variant = FakeVariant()


def test_log_lines_use_the_printed_labels():
    import os
    app = FakeApp()
    app.game = FakeGame()
    app.board.urandom = os.urandom
    sent = []
    app.emit = sent.append
    web = webserve.Web(app, "/nowhere", "password")
    say = web.describe
    assert say("roll", {}, {"side": "black", "dice": [6, 5]}) == "black rolls 6-5"
    # black's own point 24 is the board's P1 here; the bar and the tray by name
    assert say("turn", {}, {"side": "black", "steps": [[24, 18], [0, 3], [2, 25]]}) == \
        "black played 1/7 bar/22 23/off"
    assert say("warn", {}, {"rule": "L3", "text": "a closed point"}) == \
        "warning L3: a closed point"
    assert say("game_end", {}, {"winner": None, "kind": "abandoned"}) == \
        "game over: abandoned, nobody scores"
    assert say("leds", {}, {}) is None
    # what the game emits goes on to USB, and into the page's log
    app.game.emit({"ev": "refused", "text": "set up the board first"})
    assert sent == [{"ev": "refused", "text": "set up the board first"}]
    assert web.lines[-1]["text"] == "refused: set up the board first"
