"""The app's task supervisor: a subsystem task that fails is reported and started
again, so a MemoryError on a fragmented heap or a bug costs one cycle, not the board.
(Runs under CPython and unix MicroPython.)"""

import asyncio

from nardy.app import App

if not hasattr(asyncio, "sleep_ms"):                       # CPython
    asyncio.sleep_ms = lambda ms: asyncio.sleep(ms / 1000)  # noqa: E731


class _Reporter:
    def __init__(self):
        self.errors = []

    def crashed(self, exc):
        self.errors.append(exc)


def test_a_failing_task_is_reported_and_started_again():
    app = _Reporter()
    runs = []

    async def task():
        runs.append(len(runs))
        if len(runs) == 1:
            raise MemoryError("memory allocation failed, allocating 808 bytes")
        if len(runs) == 2:
            raise KeyError("bug")
        return "ended"

    assert asyncio.run(App.guarded(app, task)) == "ended"
    assert runs == [0, 1, 2]
    assert [type(e) for e in app.errors] == [MemoryError, KeyError]


def test_a_task_that_ends_is_not_restarted():
    app = _Reporter()
    runs = []

    async def task():
        runs.append(1)

    assert asyncio.run(App.guarded(app, task)) is None
    assert runs == [1] and app.errors == []
