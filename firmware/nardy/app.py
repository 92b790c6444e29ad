"""The application: asyncio tasks wiring the hardware layer, sensing, the match
flow, the UI, the journal and the USB protocol.

Tasks: ``scan`` (scan -> sensing -> tracker -> buttons; never waits on anything
else), ``ui`` (LEDs, then the OLED: a change within 10 ms, the LED frame at least
every 50 ms), ``usb`` (protocol lines in, assembled without waiting for the rest
of a line on the board (nardy.lines); events out). A global exception handler
shows the error on the OLED, appends it to ``errors.log`` and reports it over USB;
the scan keeps running.

Boot always reaches ``hello``: every file read at boot (settings.json, calib.json,
match.json, the journal: ``nardy.appboot``, dropped after boot) is size-capped and
checked; one that cannot be used is reported (OLED, an ``error`` event, errors.log)
and set aside (renamed ``.bad``), and the board goes on with defaults. errors.log
is kept under ``_ERRORS_MAX`` bytes (the older half goes to errors.old).
"""

import asyncio
import gc
import json
from array import array

# The biggest modules first, each on a heap collected after the one before:
# compiled from source (the virtual board at 112wK) they need the largest free
# blocks, and the heap is left in fewer pieces (a 4 KB line still finds room).
from nardy import tracker  # noqa: F401, I001  (isort: keep this first)

gc.collect()
from nardy.game import MOVE, Game  # noqa: E402, I001

gc.collect()

from micropython import const  # noqa: E402  (CPython: the shim nardy/__init__.py installs)

from nardy import __version__, code_in_flash, drop_module, protocol  # noqa: E402
from nardy.dice import Dice  # noqa: E402
from nardy.journal import Journal, file_size  # noqa: E402
from nardy.lines import TOO_LONG  # noqa: E402
from nardy.sensing import Sensing  # noqa: E402
from nardy.ui import draw, led_frame  # noqa: E402

_ERRORS_MAX = const(8192)         # bytes of errors.log before it is rotated


def _board_commands(board):
    """The protocol commands the board answers itself (``nardy.hal``), or None."""
    if hasattr(board, "commands"):
        return board.commands() or None
    return None


class App:
    # What another task shows on the board's display until the game changes
    # (nardy.radio's join and address screens): (game revision, draw(fb)). On the
    # class: an instance that never shows one keeps no slot for it (and no getattr
    # with a default, which would make an AttributeError on every redraw); named
    # as the board's display, a name every board has (see nardy.radio).
    display = None

    def __init__(self, board, data_dir):
        self.board = board
        self.dir = data_dir
        self.problems = []   # what boot found wrong on flash (reported by boot())
        self.note = None
        pm = board.pinmap
        self.layout = pm.layout
        from nardy import appboot
        self.sensing = Sensing(self.layout, appboot.calibration(self, pm))
        self.raw = array("H", [0] * self.layout.n)
        self.settings = appboot.settings(self)
        appboot = None
        drop_module("nardy.appboot")    # boot() imports it again for the journal
        self.journal = Journal(data_dir + "/journal", board.flash_free,
                               opener=getattr(board, "flash_open", None))
        self.journal.warn = self.report     # a flash getting full: OLED, USB, errors.log
        self.game = Game(self.journal, self.layout, self.emit, Dice(board.urandom),
                         self.settings)
        self.menu = None
        self.have_obs = False
        self.frame = bytearray(3 * pm.led_count)
        self.drawn = -1
        self.ready = False
        self.board_commands = _board_commands(board)   # looked up before appcmds
        # The host's command table (nardy.appcmds, ~1 KB): with the code in flash it
        # is imported for each command and dropped after it (a few function objects);
        # with the code in RAM it is loaded now, while the heap is whole, and kept.
        self.drop_cmds = code_in_flash()
        if not self.drop_cmds:
            from nardy import appcmds  # noqa: F401
        # only the line marker (TOO_LONG) is used from nardy.lines here; a board's
        # line reader keeps its own class
        drop_module("nardy.lines")

    # -- output ---------------------------------------------------------------------
    def emit(self, obj):
        self.board.out(obj)

    def save_settings(self):
        try:
            with open(self.dir + "/settings.tmp", "w") as f:
                f.write(json.dumps(self.settings))
            import os
            os.rename(self.dir + "/settings.tmp", self.dir + "/settings.json")
        except OSError as e:
            self.emit(protocol.error("settings not saved: %s" % e))

    # -- boot -------------------------------------------------------------------------
    def boot(self):
        # Collect when a quarter of the free heap has been used, not only when an
        # allocation fails: a 56 KB heap fragments less (MicroPython's advice).
        gc.collect()
        if hasattr(gc, "threshold"):
            gc.threshold(gc.mem_free() // 4 + gc.mem_alloc())  # pyright: ignore
        for why in self.problems:
            self.report(why)
        self.problems = []
        try:
            from nardy import appboot
            appboot.journal(self)
        except Exception as e:  # noqa: BLE001 - boot must reach hello whatever flash holds
            self.report("journal: %s: %s" % (type(e).__name__, e))
        appboot = None
        drop_module("nardy.appboot")
        gc.collect()
        self.ready = True
        self.emit(self.hello())

    def report(self, text, gid=None):
        """Something on flash is wrong: USB, errors.log and the OLED say so."""
        ev = {"ev": "error", "error": text}
        if gid is not None:
            ev["game"] = gid
        self.emit(ev)
        self.log_error(text)
        self.note = ("ERR " + text)[:16]

    def hello(self):
        g = self.game
        return {"ev": "hello", "fw": __version__, "board": self.board.pinmap.name,
                "virtual": bool(self.board.virtual),
                "variant": g.variant.name if g.variant else self.settings["variant"],
                "match": g.state().get("match"), "phase": g.phase, "game": g.gid}

    # -- the scan ---------------------------------------------------------------------
    def cycle(self):
        """One pass of the scan task (also the unit the benchmark times)."""
        b = self.board
        scanned = b.scan(self.raw)
        now = b.ticks_ms()
        s = self.sensing
        if scanned:
            s.scan(self.raw, now)
            if s.ready(now):
                self.have_obs = True
                self.game.observe(s)
            if self.have_obs:
                g = self.game
                g.tick(s, s.still_ms(now))
                if g.lights_now:
                    # a lift's targets, on the scan that first shows it: the LEDs
                    # now, not at the UI task's next look (up to 10 ms later)
                    g.lights_now = False
                    self.show_leds()
        for name, kind in b.poll_buttons(now):
            self.button(name, kind)
        return scanned

    def button(self, name, kind):
        # A press rolls the dice or ends a turn: the engine's biggest searches. A
        # collection first (about 40 ms on the ESP32, while a finger is still on
        # the button) hands them a compact heap instead of a fragmented one.
        gc.collect()
        obs = self.sensing if self.have_obs else None
        if self.menu is not None:
            if not self.menu.press(name):
                m = self.close_menu()
                if m.action == "new":
                    self.game.new_match()
                elif m.action in ("calibrate", "selftest"):
                    from nardy.selftest import at_next_boot
                    self.note = at_next_boot(self.board, self.dir, m.action)
            self.drawn = -1
            return
        # an open "resign?" is the game's to answer (MENU: play on), not the menu's;
        # no menu over a turn being played, but one while the other board's player
        # plays theirs (remote play: a turn awaited, nothing shown to carry out yet)
        g = self.game
        if name == "menu" and not g.resigning and (
                g.phase != MOVE or g.shown is not None and g.shown.result is None):
            from nardy.menu import Menu
            self.menu = Menu(self.settings, self.board.pinmap.led_max)
            self.drawn = -1
            return
        self.game.press(name, kind, obs)

    def close_menu(self):
        """Close the open menu, keep its settings; returns it."""
        m = self.menu
        self.menu = None
        # the menu's code is on the heap only while it is open
        drop_module("nardy.menu")
        self.save_settings()
        self.drawn = -1
        return m

    async def scan_task(self):
        b = self.board
        while True:
            try:
                if self.cycle():
                    await asyncio.sleep_ms(0)
                else:
                    await asyncio.sleep_ms(2 if b.virtual else 1)
            except Exception as e:  # noqa: BLE001 - any failure: report, go on
                await self.recover(e)

    # -- UI ---------------------------------------------------------------------------
    def show_leds(self):
        b = self.board
        led_frame(self.frame, b.pinmap.led_zones, self.game, b.ticks_ms(),
                  self.settings["brightness"], b.pinmap.led_max)
        b.show_leds(self.frame)

    def redraw(self, force=False):
        b = self.board
        g = self.game
        # the LEDs first: they show a lifted checker's targets; the OLED (about
        # 25 ms over I2C on the board) after them
        self.show_leds()
        if self.menu is not None and g.shown is not None and g.shown.result is not None:
            self.close_menu()       # the board's own move is never hidden (issue 21)
        if force or g.revision != self.drawn:
            self.drawn = g.revision
            if b.display is not None:
                sc = self.display
                if sc and sc[0] == g.revision and not self.menu:
                    sc[1](b.display)
                else:
                    draw(b.display, g, self.menu, self.note)
                b.show_display()

    async def ui_task(self):
        """A change is drawn within 10 ms; the LED frame is also refreshed every
        50 ms of board time (blinking)."""
        b = self.board
        last = b.ticks_ms()
        while True:
            try:
                now = b.ticks_ms()
                if self.drawn != self.game.revision or (now - last) & 0x3FFFFFFF >= 50:
                    last = now
                    self.redraw()
                await asyncio.sleep_ms(10)
            except Exception as e:  # noqa: BLE001 - any failure: report, go on
                await self.recover(e)

    # -- USB --------------------------------------------------------------------------
    def handle(self, line):
        """One protocol line in; replies go out through ``emit``. Never raises."""
        try:
            cmd = protocol.parse(line)
        except ValueError as e:
            self.emit(protocol.error(str(e), line))
            return
        try:
            self._command(cmd)
        except (ValueError, KeyError, TypeError, OSError, MemoryError) as e:
            gc.collect()
            self.emit(protocol.error("%s failed: %s" % (cmd.get("cmd"), e)))

    def _command(self, cmd):
        c = cmd["cmd"]
        own = self.board_commands
        f = own.get(c) if own is not None else None
        if f is not None:
            f(self, cmd)
            return
        if c == "mem":
            # the heap as the game has it: measured without the handlers loaded
            self.emit(self.mem())
            return
        if c == "ping":
            # the host's most frequent line (after every batch): answered here
            self.emit({"ev": "pong", "id": cmd.get("id")})
            return
        # The host's other commands: a table (``nardy.appcmds.COMMANDS``), on the
        # heap only while one runs when the code is in flash (``drop_cmds``).
        from nardy import appcmds
        try:
            f = appcmds.COMMANDS.get(c)
            if f is None:
                # parse() knows the command: it is one another kind of board answers
                raise ValueError("%s is for the virtual board" % c)
            f(self, cmd)
        finally:
            if self.drop_cmds:
                appcmds = f = None
                drop_module("nardy.appcmds")

    def set_settings(self, cmd):
        """``set``: the settings it names (a board's own switches are the board's)."""
        for k in ("brightness", "dice", "bot", "auto_end", "lang"):
            if k in cmd:
                self.settings[k] = cmd[k]
        shown = self.settings
        if "mqtt" in cmd or "mqtt" in shown or "radio" in cmd or "radio" in shown:
            # a broker or a home network (nardy.netcfg): loaded only on a board that
            # names one
            from nardy import netcfg
            shown = netcfg.on_set(self, cmd)
            netcfg = None
            drop_module("nardy.netcfg")
            if self.settings.get("mqtt"):
                from nardy import mqttcast
                mqttcast.start(self)    # (a running one follows the new settings)
            if "radio" in cmd and self.board.radio is not None:
                from nardy import radio
                radio.start(self)       # (a running one follows the new settings)
        g = self.game
        if g.phase == MOVE and g.shown is None:
            # the turn being played follows it (the board's own turn ends when its
            # move is on the board)
            g.tracker.auto_end_ms = self.settings.get("auto_end", 0)
        self.save_settings()
        self.emit({"ev": "set", "settings": shown})

    def mem(self):
        """The heap after a collection (MicroPython); -1 where there is no such
        figure (CPython)."""
        gc.collect()
        try:
            free = gc.mem_free()    # pyright: ignore[reportAttributeAccessIssue]
            alloc = gc.mem_alloc()  # pyright: ignore[reportAttributeAccessIssue]
        except AttributeError:
            return {"ev": "mem", "free": -1, "alloc": -1, "heap": -1}
        return {"ev": "mem", "free": free, "alloc": alloc, "heap": free + alloc}

    def line_in(self, ln):
        """One line from the USB reader: a command, a blank line, or the marker of
        an over-long line (``nardy.lines.TOO_LONG``)."""
        if ln == TOO_LONG:
            self.emit(protocol.error("line too long"))
        elif ln.strip():
            self.handle(ln)

    async def usb_task(self):
        b = self.board
        while True:
            try:
                ln = await b.read_line()
                if ln is None:
                    return                 # the host closed the line (virtual board)
                self.line_in(ln)
                if b.virtual:
                    # virtual time: the readings of a ``sense`` line are scanned for
                    # their whole ``ms`` (and a button is taken) before the next line
                    # is read, so a script sees the same thing on any machine; a
                    # ``ping`` is then answered once everything before it is done
                    while not b.idle():
                        self.cycle()
                        await asyncio.sleep_ms(0)
            except Exception as e:  # noqa: BLE001 - any failure: report, go on
                await self.recover(e)

    # -- errors -------------------------------------------------------------------------
    def log_error(self, text, exc=None):
        """Append to errors.log, which never grows past _ERRORS_MAX: when full it
        becomes errors.old (the one before is dropped)."""
        path = self.dir + "/errors.log"
        try:
            n = file_size(path)
            if n == -2:
                return          # a directory in its way: USB and the OLED still say it
            if n > _ERRORS_MAX:
                import os
                try:
                    os.remove(self.dir + "/errors.old")
                except OSError:
                    pass
                os.rename(path, self.dir + "/errors.old")
            with open(path, "a") as f:
                f.write(text[:200] + "\n")
                # imported here: one name less keeps the module's dict at 23 slots
                import sys

                pe = getattr(sys, "print_exception", None)   # MicroPython: where
                if exc is not None and pe is not None:
                    pe(exc, f)
        except (OSError, MemoryError):
            pass

    def crashed(self, exc):
        text = "%s: %s" % (type(exc).__name__, exc)
        self.log_error(text, exc)
        self.note = ("ERR " + text)[:16]
        self.emit({"ev": "error", "error": "crash: " + text})
        try:
            self.redraw(force=True)
        except Exception:  # noqa: BLE001 - the display itself may be what failed
            pass

    async def recover(self, exc):
        """A subsystem's task failed (a MemoryError on a fragmented heap, a bug): say
        so on the OLED, in errors.log and on USB; the task then goes on with its next
        pass (the game state lives in the game and the journal, not in the task).
        Each task catches its own failures: a supervising coroutine around each would
        keep three more frames on the heap.

        A MemoryError also lets the board's player go (its weights, tables and
        module: 4-5 KB with the weights in flash, read again at its next turn): on a
        heap too full for one more block every pass of a task could fail the same
        way, for good (a 55.5wK board playing both sides whose USB reader found no
        216-byte block, pass after pass, and never read a line again)."""
        gc.collect()
        self.crashed(exc)
        if isinstance(exc, MemoryError):
            import sys
            bp = sys.modules.get("nardy.botplay")
            if bp is not None and bp.loaded():
                bp.release()
        await asyncio.sleep_ms(100)

    def run(self):
        def handler(loop, ctx):
            exc = ctx.get("exception")
            if isinstance(exc, SystemExit):
                raise exc
            self.crashed(exc)

        async def main():
            asyncio.get_event_loop().set_exception_handler(handler)
            self.boot()
            usb = asyncio.create_task(self.usb_task())
            asyncio.create_task(self.scan_task())
            asyncio.create_task(self.ui_task())
            if getattr(self.board, "web", None):
                # the board's own page: only when asked for (docs/NETWORK.md)
                from nardy import webserve
                webserve.start(self)
                webserve = None     # (held by the server's task while it serves)
            await usb

        asyncio.run(main())
