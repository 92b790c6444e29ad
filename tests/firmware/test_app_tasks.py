"""The app's tasks look after themselves: a pass that fails is reported and the
task goes on, so a MemoryError on a fragmented heap or a bug costs one pass, not
the board. (Runs under CPython and unix MicroPython.)"""

import asyncio

from nardy.app import App

if not hasattr(asyncio, "sleep_ms"):                       # CPython
    asyncio.sleep_ms = lambda ms: asyncio.sleep(ms / 1000)  # noqa: E731


class _Stop(BaseException):
    """Ends a test's task loop (as SystemExit would: not a failure to report)."""


class _Board:
    virtual = False

    def __init__(self, lines=()):
        self.lines = list(lines)

    def ticks_ms(self):
        return 0

    async def read_line(self):
        return self.lines.pop(0) if self.lines else None


class _App:
    """What the tasks use of an App, with passes that fail on cue."""

    recover = App.recover
    scan_task = App.scan_task
    usb_task = App.usb_task

    def __init__(self, failures, board=None):
        self.board = board or _Board()
        self.failures = list(failures)
        self.errors = []
        self.passes = 0
        self.handled = []

    def crashed(self, exc):
        self.errors.append(exc)

    def _pass(self):
        self.passes += 1
        if self.failures:
            raise self.failures.pop(0)

    def cycle(self):
        self._pass()
        if self.passes > 3:
            raise _Stop()
        return True

    def line_in(self, ln):
        self._pass()
        self.handled.append(ln)


def test_a_failing_scan_is_reported_and_the_scan_goes_on():
    app = _App([MemoryError("memory allocation failed, allocating 808 bytes"),
                KeyError("bug")])
    try:
        asyncio.run(app.scan_task())
    except _Stop:
        pass
    else:
        raise AssertionError("the scan ended by itself")
    assert app.passes == 4          # two failed passes, one good one, then the stop
    assert [type(e) for e in app.errors] == [MemoryError, KeyError]


def test_a_failing_line_is_reported_and_the_next_one_is_read():
    app = _App([ValueError("bug")], _Board([b"one", b"two"]))
    assert asyncio.run(app.usb_task()) is None      # the host closed the line
    assert app.handled == [b"two"]
    assert [type(e) for e in app.errors] == [ValueError]


def test_a_task_that_ends_is_not_restarted():
    app = _App([], _Board())
    assert asyncio.run(app.usb_task()) is None
    assert app.passes == 0 and app.errors == []


def test_a_memory_error_lets_the_boards_player_go():
    # A heap too full for the next pass could fail every pass of a task the same
    # way, for good: the board's player (read again at its next turn) goes.
    from nardy import botplay
    from nardy.variants import find_variant
    botplay.load(find_variant("short", {}))
    try:
        app = _App([ValueError("bug")], _Board([b"one", b"two"]))
        asyncio.run(app.usb_task())
        assert botplay.loaded(), "a bug is no reason to let the player go"
        app = _App([MemoryError("memory allocation failed, allocating 216 bytes")],
                   _Board([b"one", b"two"]))
        assert asyncio.run(app.usb_task()) is None
        assert app.handled == [b"two"] and not botplay.loaded()
        # with no player loaded a MemoryError is only reported
        app = _App([MemoryError("again")], _Board([b"three"]))
        asyncio.run(app.usb_task())
        assert [type(e) for e in app.errors] == [MemoryError] and not botplay.loaded()
    finally:
        botplay.release()
