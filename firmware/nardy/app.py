"""The application: asyncio tasks wiring the hardware layer, sensing, the match
flow, the UI, the journal and the USB protocol.

Tasks: ``scan`` (scan -> sensing -> tracker -> buttons; never waits on anything
else), ``ui`` (LEDs, then the OLED: a change within 10 ms, the LED frame at least
every 50 ms), ``usb`` (protocol lines in, assembled without waiting for the rest
of a line on the board (nardy.lines); events out). A global exception handler
shows the error on the OLED, appends it to ``errors.log`` and reports it over USB;
the scan keeps running.
"""

import asyncio
import gc
import json
import sys
from array import array

from nardy import __version__, protocol
from nardy.calibration import load as load_calibration
from nardy.dice import Dice
from nardy.game import MOVE, Game
from nardy.journal import Journal
from nardy.lines import TOO_LONG
from nardy.menu import Menu, defaults
from nardy.sensing import Sensing
from nardy.ui import draw, led_frame


class App:
    def __init__(self, board, data_dir):
        self.board = board
        self.dir = data_dir
        pm = board.pinmap
        self.layout = pm.layout
        cal = load_calibration(data_dir + "/calib.json", self.layout.n, pm.slots)
        self.sensing = Sensing(self.layout, cal)
        self.raw = array("H", [0] * self.layout.n)
        self.settings = self._load_settings()
        self.journal = Journal(data_dir + "/journal", board.flash_free)
        self.game = Game(self.journal, self.layout, self.emit, Dice(board.urandom),
                         self.settings)
        self.menu = None
        self.have_obs = False
        self.frame = bytearray(3 * pm.led_count)
        self.drawn = -1
        self.ready = False
        self.note = None
        self.busy = 0        # protocol commands being worked on (for ping)

    # -- output ---------------------------------------------------------------------
    def emit(self, obj):
        self.board.out(obj)

    # -- settings ---------------------------------------------------------------------
    def _load_settings(self):
        s = defaults()
        try:
            with open(self.dir + "/settings.json") as f:
                d = json.loads(f.read())
            for k in s:
                if k in d and type(d[k]) is type(s[k]):
                    s[k] = d[k]
        except (OSError, ValueError):
            pass
        return s

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
        for gid, why in self.journal.scan():
            self.emit({"ev": "error", "error": "journal %d skipped: %s" % (gid, why),
                       "game": gid})
        gid = self.journal.unfinished()
        if gid is not None:
            try:
                self.game.resume(gid, self.journal.records(gid))
                self.journal.resume(gid)
            except (ValueError, KeyError, TypeError, IndexError) as e:
                self.journal.index[gid]["broken"] = str(e)
                self.journal.index[gid]["finished"] = True
                self.emit({"ev": "error", "error": "journal %d not resumed: %s" % (gid, e),
                           "game": gid})
        self.ready = True
        self.emit(self.hello())

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
                self.game.tick(s, s.still_ms(now))
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
                m = self.menu
                self.menu = None
                self.save_settings()
                if m.action == "new":
                    self.game.new_match()
                elif m.action in ("calibrate", "selftest"):
                    from nardy.selftest import at_next_boot
                    self.note = at_next_boot(self.board, self.dir, m.action)
            self.drawn = -1
            return
        if name == "menu" and self.game.phase != MOVE:
            self.menu = Menu(self.settings, self.board.pinmap.led_max)
            self.drawn = -1
            return
        self.game.press(name, kind, obs)

    async def scan_task(self):
        b = self.board
        while True:
            if self.cycle():
                await asyncio.sleep_ms(0)
            else:
                await asyncio.sleep_ms(2 if b.virtual else 1)

    # -- UI ---------------------------------------------------------------------------
    def redraw(self, force=False):
        b = self.board
        g = self.game
        # the LEDs first: they show a lifted checker's targets; the OLED (about
        # 25 ms over I2C on the board) after them
        bright = self.settings["brightness"]
        led_frame(self.frame, b.pinmap.led_zones, g, b.ticks_ms(), bright, b.pinmap.led_max)
        b.show_leds(self.frame)
        if force or g.revision != self.drawn:
            self.drawn = g.revision
            if b.display is not None:
                draw(b.display, g, self.menu, self.note)
                b.show_display()

    async def ui_task(self):
        """A change is drawn within 10 ms; the LED frame is also refreshed every
        50 ms of board time (blinking)."""
        b = self.board
        last = b.ticks_ms()
        while True:
            now = b.ticks_ms()
            if self.drawn != self.game.revision or (now - last) & 0x3FFFFFFF >= 50:
                last = now
                self.redraw()
            await asyncio.sleep_ms(10)

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
        except (ValueError, KeyError, TypeError, OSError) as e:
            self.emit(protocol.error("%s failed: %s" % (cmd.get("cmd"), e)))

    def _command(self, cmd):
        c = cmd["cmd"]
        g = self.game
        b = self.board
        if c == "hello":
            self.emit(self.hello())
        elif c == "dump":
            st = g.state()
            st["ev"] = "dump"
            st["journal"] = self.journal.listing()
            st["flash"] = self.journal.space()
            st["settings"] = self.settings
            self.emit(st)
        elif c == "log":
            gid = cmd["game"]
            if gid not in self.journal.index:
                raise ValueError("no game %d" % gid)
            n = 0
            for ln in self.journal.raw_lines(gid):
                b.out({"ev": "log", "game": gid, "seq": n, "line": ln})
                n += 1
            self.emit({"ev": "log_end", "game": gid, "lines": n})
        elif c == "confirm":
            ok = self.journal.confirm(cmd["game"])
            self.emit({"ev": "confirm", "game": cmd["game"], "deleted": ok})
        elif c == "new":
            self.settings["variant"] = cmd.get("variant", "long")
            self.settings["match"] = cmd.get("match", 1)
            self.settings["options"][self.settings["variant"]] = cmd.get("options", {})
            self.save_settings()
            g.new_match()
        elif c == "set":
            for k in ("brightness", "dice"):
                if k in cmd:
                    self.settings[k] = cmd[k]
            if "oled" in cmd and b.virtual:
                b.send_oled = cmd["oled"]
            if "leds" in cmd and b.virtual:
                b.send_leds = cmd["leds"]
            self.save_settings()
            self.emit({"ev": "set", "settings": self.settings})
        elif c == "sense":
            if not b.virtual:
                raise ValueError("sense is for the virtual board")
            b.sense(cmd["raw"], cmd.get("ms", 20))
        elif c == "button":
            if not b.virtual:
                raise ValueError("button is for the virtual board")
            b.press(cmd["name"], cmd.get("press", "short"))
        elif c == "roll":
            if self.settings["dice"] != "manual" or not g.enter_dice(cmd["dice"]):
                raise ValueError("dice are entered only in manual mode, before a turn")
        elif c == "oled":
            self.redraw(force=True)
            if b.display is not None:
                from nardy.hal_virtual import hexlify
                self.emit({"ev": "oled", "w": 128, "h": 64, "fb": hexlify(b.display.buffer)})
        elif c == "ping":
            self.emit({"ev": "pong", "id": cmd.get("id")})
        elif c == "mem":
            self.emit(self.mem())

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
            ln = await b.read_line()
            if ln is None:
                return                 # the host closed the line (virtual board)
            self.line_in(ln)
            if b.virtual:
                # virtual time: the readings of a ``sense`` line are scanned for
                # their whole ``ms`` (and a button is taken) before the next line is
                # read, so a script sees the same thing on any machine; a ``ping``
                # is then answered once everything before it is done
                while not b.idle():
                    self.cycle()
                    await asyncio.sleep_ms(0)

    # -- errors -------------------------------------------------------------------------
    def crashed(self, exc):
        text = "%s: %s" % (type(exc).__name__, exc)
        try:
            with open(self.dir + "/errors.log", "a") as f:
                f.write(text + "\n")
                pe = getattr(sys, "print_exception", None)   # MicroPython: where
                if pe is not None:
                    pe(exc, f)
        except (OSError, MemoryError):
            pass
        self.note = ("ERR " + text)[:16]
        self.emit({"ev": "error", "error": "crash: " + text})
        try:
            self.redraw(force=True)
        except Exception:  # noqa: BLE001 - the display itself may be what failed
            pass

    async def guarded(self, task):
        """Run a subsystem's task; if it fails (a MemoryError on a fragmented heap, a
        bug), say so on the OLED, in errors.log and on USB, then start it again: the
        game state lives in the game and the journal, not in the task."""
        while True:
            try:
                return await task()
            except Exception as e:  # noqa: BLE001 - any failure: report, go on
                gc.collect()
                self.crashed(e)
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
            usb = asyncio.create_task(self.guarded(self.usb_task))
            asyncio.create_task(self.guarded(self.scan_task))
            asyncio.create_task(self.guarded(self.ui_task))
            await usb

        asyncio.run(main())
