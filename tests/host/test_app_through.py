"""The app's own code paths through a real ``App`` on a (CPython) board: the crash
report and the asyncio loop's exception handler, the menu's settings surviving a
reboot, a manual ``roll`` command, the ``opening_dice_played`` option, and the USB
reader of the ESP32 board. CPython: the whole app does not fit the firmware test
runner's 112wK heap next to a test."""

import asyncio
import contextlib
import json
import os

from apputil import Obs, rmtree, tmpdir
from test_oledtext import Canvas

from nardy.app import App
from nardy.dice import Dice
from nardy.game import ENTRY, MOVE, OPENING, ROLL
from nardy.hal_esp32 import Board, usb_reader
from nardy.pinmap import load

HERE = os.path.dirname(os.path.abspath(__file__))
PINMAP = os.path.join(HERE, "..", "..", "firmware", "pinmap", "esp32s3.json")

if not hasattr(asyncio, "sleep_ms"):                       # CPython
    asyncio.sleep_ms = lambda ms: asyncio.sleep(ms / 1000)  # noqa: E731


class Leds:
    def show(self, frame):
        self.frame = bytes(frame)


class CpyBoard(Board):
    """The ESP32 board without its hardware: no scan, no buttons, lines from a list."""

    lines = ()

    def ticks_ms(self):       # CPython's time has no ticks_ms
        return 0

    def scan(self, buf):
        return False

    def poll_buttons(self, now):
        return ()

    async def read_line(self):
        await asyncio.sleep(0)
        if not self.lines:
            return None
        ln = self.lines[0]
        self.lines = self.lines[1:]
        if callable(ln):
            return ln()
        return ln


def _app(data, display=True):
    out = []
    board = CpyBoard(load(PINMAP), None, Leds(), Canvas() if display else None, None,
                     flash_dir=data, write=out.append)
    app = App(board, data)
    return app, board, out


@contextlib.contextmanager
def booted(name, boot=True):
    """A booted app on a fresh flash directory: (app, board, out, data)."""
    data = tmpdir(name)
    try:
        app, board, out = _app(data)
        if boot:
            app.boot()
        yield app, board, out, data
        app.journal.close()
    finally:
        rmtree(data)


def _events(out, kind=None):
    evs = [json.loads(x) for x in out]
    return [e for e in evs if kind is None or e.get("ev") == kind]


def _errors_log(data):
    with open(data + "/errors.log") as f:
        return f.read()


def test_a_crash_is_logged_reported_and_shown():
    with booted("crash") as (app, board, out, data):
        app.crashed(KeyError("bug"))
        assert "KeyError: 'bug'" in _errors_log(data)
        assert _events(out, "error")[-1]["error"] == "crash: KeyError: 'bug'"
        assert app.note == "ERR KeyError: 'b"           # 16 characters on the OLED

        # a display that fails is what crashed: the report still gets out
        def broken():
            raise OSError(19, "ENODEV")
        board.display.show = broken
        app.crashed(MemoryError("allocating 808 bytes"))
        assert _events(out, "error")[-1]["error"] == "crash: MemoryError: allocating 808 bytes"
        assert _errors_log(data).count("\n") >= 2


class _Stop(BaseException):
    """Ends the scan task of a test (as SystemExit would: not a failure)."""


def test_a_failing_scan_of_a_real_app_is_reported_and_the_scan_goes_on():
    with booted("guard", boot=False) as (app, board, out, data):
        runs = []

        def cycle():
            runs.append(1)
            if len(runs) == 1:
                raise MemoryError("memory allocation failed")
            raise _Stop()

        app.cycle = cycle
        with contextlib.suppress(_Stop):
            asyncio.run(app.scan_task())
        assert len(runs) == 2
        assert "MemoryError: memory allocation failed" in _errors_log(data)
        assert [e["error"] for e in _events(out, "error")] == [
            "crash: MemoryError: memory allocation failed"]


def test_the_loops_exception_handler_reports_what_no_task_caught():
    with booted("loop", boot=False) as (app, board, out, data):

        def boom():
            raise ZeroDivisionError("in a callback")

        def schedule():
            asyncio.get_event_loop().call_soon(boom)
            return b'{"cmd": "ping", "id": 1}'

        board.lines = [schedule, b'{"cmd": "ping", "id": 2}']
        app.run()                      # ends when the lines do
        assert [e["id"] for e in _events(out, "pong")] == [1, 2]
        assert "crash: ZeroDivisionError: in a callback" in [
            e["error"] for e in _events(out, "error")]
        assert "ZeroDivisionError: in a callback" in _errors_log(data)


def test_menu_settings_survive_a_reboot():
    data = tmpdir("menu")
    try:
        app, board, out = _app(data)
        app.boot()
        app.button("menu", "short")
        assert app.menu is not None
        app.button("ok", "short")      # variant: long -> short
        app.button("back", "short")    # next item: the sides the board plays
        app.button("back", "short")    # next item: match length
        app.button("ok", "short")      # 1 -> 3
        app.button("menu", "short")    # close: saved
        assert app.menu is None
        app.journal.close()

        app2, _, _ = _app(data)        # the board starts again on the same flash
        assert app2.settings["variant"] == "short" and app2.settings["match"] == 3
        app2.boot()
        app2.button("ok", "short")     # a new match with those settings
        assert app2.game.variant.name == "short" and app2.game.match.length == 3
        app2.journal.close()
    finally:
        rmtree(data)


def _opened(app, variant, options=None):
    cmd = {"cmd": "new", "variant": variant, "match": 1}
    if options is not None:
        cmd["options"] = options
    app.line_in(json.dumps(cmd).encode())
    g = app.game
    obs = Obs(app.layout).show(g.variant, g.pos)
    g.observe(obs)
    app.have_obs = True
    app.sensing = obs
    assert g.phase == OPENING
    app.button("ok", "short")          # the opening roll
    return g


def test_a_manual_roll_command_starts_the_turn():
    with booted("roll") as (app, board, out, data):
        app.line_in(b'{"cmd": "set", "dice": "manual"}')
        g = _opened(app, "short")
        assert g.phase == ROLL
        app.line_in(b'{"cmd": "roll", "dice": [6, 2]}')
        assert _events(out, "error") == []
        assert g.phase == MOVE and g.dice == (6, 2)
        rolls = [e["rec"] for e in _events(out) if e.get("ev") == "roll"]
        assert rolls[-1]["dice"] == [6, 2], rolls
        # a second roll in the same turn is refused, and changes nothing
        app.line_in(b'{"cmd": "roll", "dice": [1, 1]}')
        assert "manual mode" in _events(out, "error")[-1]["error"]
        assert g.dice == (6, 2)


def test_a_roll_press_in_manual_mode_waits_for_the_dice():
    with booted("entry") as (app, board, out, data):
        app.line_in(b'{"cmd": "set", "dice": "manual"}')
        g = _opened(app, "long")
        app.button("ok", "short")
        assert g.phase == ENTRY
        app.line_in(b'{"cmd": "roll", "dice": [4, 4]}')
        assert g.phase == MOVE and g.dice == (4, 4)


def test_opening_dice_played_starts_the_first_turn_with_them():
    for on in (True, False):
        data = tmpdir("odp")
        try:
            app, board, out = _app(data)
            app.boot()
            app.game.dice_src = Dice(lambda n: bytes([4, 1] + [0] * (n - 2)))  # 5, 2
            g = _opened(app, "short", {"opening_dice_played": on})
            assert g.variant.options["opening_dice_played"] is on
            if on:
                assert g.phase == MOVE and g.dice == (5, 2)
                assert g.pos.turn == 0         # white rolled the higher die (C2)
            else:
                assert g.phase == ROLL and g.dice is None
            app.journal.close()
        finally:
            rmtree(data)


def test_usb_reader_takes_only_the_bytes_that_are_there():
    r, w = os.pipe()
    with open(r, "rb", buffering=0) as f:
        reader = usb_reader(f, max_line=64)
        assert reader.readline() is None               # nothing sent: no waiting
        os.write(w, b'{"cmd": "ping"}\r\n{"cmd": "he')
        assert reader.readline() == b'{"cmd": "ping"}'
        assert reader.readline() is None               # half a line: not yet
        os.write(w, b'llo"}\n' + b"x" * 100 + b"\n")
        assert reader.readline() == b'{"cmd": "hello"}'
        got = None
        for _ in range(5):
            got = reader.readline() or got
        assert got == b"\x00too long"
        os.close(w)


def test_the_menu_opens_while_the_other_boards_player_plays():
    """No menu over a turn being played, and a move to carry out closes it (issue 21:
    the board's move is never hidden); but in remote play the other player's turn
    may take minutes, and while it is awaited (nothing shown to carry out yet: the
    ``Shown`` remote.start makes) MENU opens the settings."""
    from nardy.botplay import Shown
    from nardy.zonefit import zone_of

    with booted("menuremote") as (app, board, out, data):
        app.button("ok", "short")               # a new match: the opening
        app.show_leds = lambda: None            # (the LEDs of a turn faked here)
        g = app.game
        g.phase = MOVE
        v, pos = g.variant, g.pos
        steps = [next(iter(v.legal_turns(pos, (6, 5))))[0][0]]
        done = Shown(v, pos, steps, v.apply_step(pos, steps[0]), zone_of)
        g.shown = done                          # a move to carry out: no menu
        app.button("menu", "short")
        assert app.menu is None
        waiting = Shown(v, pos, (), pos, lambda v, s, k: 0)
        waiting.result = None                   # the other board's turn, awaited
        g.shown = waiting
        app.button("menu", "short")
        assert app.menu is not None
        app.redraw()
        assert app.menu is not None             # nothing to hide yet: it stays
        g.shown = done                          # the other player's move comes
        app.redraw()
        assert app.menu is None
