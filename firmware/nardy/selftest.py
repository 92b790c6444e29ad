"""The self-test: every sensor channel, every LED, the OLED, the buttons, flash space.

Run from the menu, by holding MENU at power-up (``firmware/main.py``), by
``nardy selftest --port PORT`` (over mpremote on a board; ``vboard:DIR`` runs it on
the virtual board: ``main.py DIR PINMAP --selftest``). It talks to the hardware
only through the HAL (``Board``: scan, poll_buttons, show_leds, display, flash_free).

Channels, from ``scans`` scans of the EMPTY board:

- ``rail``: a reading at 0..16 or 4079..4095 (open input, short, no sensor supply);
  a whole group at a rail is named as the group (its P-FET, multiplexer or ribbon);
- ``stuck``: not one count of change over all the scans (a live sensor and ADC always
  show some noise; a frozen multiplexer or ADC does not);
- ``noisy``: peak to peak above ``calibproc.NOISE_MAX``;
- ``level``: the empty-board level away from the calibrated baseline by more than a
  quarter of a checker's step (a checker left on the board, a sensor that moved),
  or, on an uncalibrated board, outside the offset window around mid-scale.

LEDs are walked one by one (a person sees a dark one; the HAL cannot), the OLED shows
a test frame (absent: a fault), each button must be pressed when asked (within
``button_ms``), and the flash must have ``min_flash`` bytes free. The report goes to
the OLED and as one line over USB: ``{"ev": "selftest", "ok": ..., "faults": [...]}``.
"""

import time
from array import array

from micropython import const  # CPython: the shim nardy/__init__.py installs

from nardy.calibproc import BASE_WINDOW, NOISE_MAX, add_scan
from nardy.calibration import RAIL_HI, RAIL_LO

MIN_FLASH = 65536
# Scans of the empty board. A healthy channel must change by a count at least once in
# them: with the quietest plausible parts (DRV5055 at half its typical 0.57 counts rms,
# MCP3208 0.3: 0.41 rms, magnet.SPREAD) a reading centred in its code stays there with
# p = 0.78 a scan: 64 scans leave 1 board in 70,000 with a healthy channel called
# stuck, 128 scans 1 in 10^11 (1.5 s at 12 ms a scan). Checked by
# ``python -m nardy_host.buildspread --selftest`` (hardware/README.md).
SCANS = const(128)


def _ticks():
    t = getattr(time, "ticks_ms", None)
    if t is not None:
        return t()
    return int(time.time() * 1000)


def _elapsed(t0):
    d = getattr(time, "ticks_diff", None)
    if d is not None:
        return d(_ticks(), t0)
    return _ticks() - t0


def channel_faults(lo, hi, mean, cal, group=16):
    """Faults of the channels from per-channel min, max and mean over the scans:
    a list of (kind, channel or group, detail)."""
    n = len(lo)
    out = []
    rail = bytearray(n)
    for ch in range(n):
        if lo[ch] <= RAIL_LO or hi[ch] >= RAIL_HI:
            rail[ch] = 1
    # a whole group at a rail: one fault for the group, not sixteen
    whole = bytearray((n + group - 1) // group)
    for g in range(len(whole)):
        chans = range(g * group, min(n, (g + 1) * group))
        if all(rail[c] for c in chans):
            whole[g] = 1
    if all(whole):
        return [("supply", -1, "every channel at a rail: sensor supply 3V3S or the ADC")]
    for g in range(len(whole)):
        if whole[g]:
            out.append(("group", g, "channels %d-%d at a rail" % (
                g * group, min(n, (g + 1) * group) - 1)))
    for ch in range(n):
        if whole[ch // group]:
            continue
        if rail[ch]:
            out.append(("rail", ch, "reads %d..%d" % (lo[ch], hi[ch])))
            continue
        if hi[ch] == lo[ch]:
            out.append(("stuck", ch, "reads %d, no noise at all" % lo[ch]))
            continue
        if hi[ch] - lo[ch] > NOISE_MAX:
            out.append(("noisy", ch, "peak to peak %d" % (hi[ch] - lo[ch])))
        if cal is not None:
            lv = cal.levels(ch)
            if cal.measured:
                ref = lv[0]
                window = (lv[1] - lv[0]) // 4
            else:
                ref = cal.default[0]
                window = BASE_WINDOW
            if abs(mean[ch] - ref) > window:
                out.append(("level", ch, "empty board reads %d, expected %d +-%d"
                            % (mean[ch], ref, window)))
    return out


class SelfTest:
    def __init__(self, board, cal=None, scans=SCANS, button_ms=10000, min_flash=MIN_FLASH,
                 buttons=True):
        self.board = board
        self.cal = cal
        self.scans = scans
        self.button_ms = button_ms
        self.min_flash = min_flash
        self.buttons = buttons
        self.faults = []
        self.lines = []
        self.checks = {}         # what each check covered: {name: count}
        self.scanning = False    # the channel check still takes scans

    def _oled(self, lines):
        d = self.board.display
        if d is None:
            return
        d.fill(0)
        for i in range(min(len(lines), 8)):
            d.text(lines[i][:16], 0, 8 * i, 1)
        self.board.show_display()

    async def _wait(self, ms):
        import asyncio
        await asyncio.sleep_ms(ms)

    async def channels(self):
        b = self.board
        n = b.pinmap.layout.n
        buf = array("H", [0] * n)
        lo = array("H", [4095] * n)
        hi = array("H", [0] * n)
        acc = array("i", [0] * n)
        got = 0
        t0 = _ticks()
        self.scanning = True
        while got < self.scans:
            if not b.scan(buf):
                if getattr(b, "eof", False) and b.idle():
                    break
                if _elapsed(t0) > 60000:
                    break
                await self._wait(2)
                continue
            got += 1
            add_scan(buf, n, acc, lo, hi)
            await self._wait(0)
        self.scanning = False
        self.checks["scans"] = got
        if got < self.scans:
            self.faults.append("channels: only %d of %d scans came" % (got, self.scans))
            if not got:
                self.checks["channels"] = 0
                return
        self.checks["channels"] = n
        self.lines.append("channels: %d checked over %d scans" % (n, got))
        mean = array("H", [(acc[ch] + got // 2) // got for ch in range(n)])
        for kind, ch, detail in channel_faults(lo, hi, mean, self.cal):
            if kind == "supply":
                self.faults.append("sensors: " + detail)
            elif kind == "group":
                self.faults.append("sensor group %d: %s" % (ch, detail))
            else:
                self.faults.append("channel %d (%s): %s: %s" % (
                    ch, self.name(ch), kind, detail))

    def name(self, ch):
        lay = self.board.pinmap.layout
        z = lay.zone[ch]
        s = ch - lay.start[z] + 1
        if z <= 24:
            return "P%d.%d" % (z, s)
        return ("bar", "off_white", "off_black")[z - 25] + ".%d" % s

    async def leds(self):
        b = self.board
        count = b.pinmap.led_count
        frame = bytearray(3 * count)
        v = min(255, max(1, b.pinmap.led_max))
        for i in range(count):
            for j in range(3):
                frame[3 * i + j] = v
            b.show_leds(frame)
            await self._wait(60 if not b.virtual else 0)
            for j in range(3):
                frame[3 * i + j] = 0
        b.show_leds(frame)
        self.checks["leds"] = count
        self.lines.append("leds: %d walked" % count)

    def oled(self):
        d = self.board.display
        self.checks["oled"] = 0
        if d is None:
            self.faults.append("oled: no display answered on I2C")
            return
        d.fill(0)
        d.rect(0, 0, d.width, d.height, 1)
        d.text("SELF-TEST", 28, 28, 1)
        self.board.show_display()
        self.checks["oled"] = 1
        self.lines.append("oled: shown")

    async def press(self):
        b = self.board
        if not self.buttons:
            self.checks["buttons"] = 0
            self.lines.append("buttons: skipped")
            return
        pressed = []       # presses that came early count for their button
        for name in ("ok", "back", "menu"):
            self._oled(["SELF-TEST", "", "press " + name.upper()])
            b.out({"ev": "selftest_prompt", "press": name})
            t0 = _ticks()
            while name not in pressed and _elapsed(t0) < self.button_ms:
                for ev in b.poll_buttons(b.ticks_ms()):
                    pressed.append(ev[0])
                if name not in pressed:
                    await self._wait(10)
            if name not in pressed:
                self.faults.append("button %s: no press within %d s" % (
                    name, self.button_ms // 1000))
        got = sum(1 for name in ("ok", "back", "menu") if name in pressed)
        self.checks["buttons"] = got
        self.lines.append("buttons: %d of 3 pressed" % got)

    def flash(self):
        free = self.board.flash_free()
        self.checks["flash"] = 1 if free >= 0 else 0
        if free < 0:
            self.lines.append("flash: free space unknown")
        elif free < self.min_flash:
            self.faults.append("flash: only %d bytes free (need %d)" % (free,
                                                                        self.min_flash))
        else:
            self.lines.append("flash: %d KB free" % (free // 1024))

    async def run(self):
        """Every check; returns the report (also sent over USB and shown)."""
        cal = self.cal
        self.checks["calibration"] = 1 if cal is not None else 0
        if cal is not None and cal.error:
            self.faults.append("calibration file rejected: %s" % cal.error)
        self.oled()
        self._oled(["SELF-TEST", "", "clear the board", "channels..."])
        await self.channels()
        await self.leds()
        await self.press()
        self.flash()
        ok = not self.faults
        rep = {"ev": "selftest", "ok": ok, "faults": self.faults, "notes": self.lines,
               "checks": self.checks}
        self.board.out(rep)
        if ok:
            self._oled(["SELF-TEST", "", "all OK"] + self.lines)
        else:
            self._oled(["SELF-TEST: %d" % len(self.faults), "faults:"] + self.faults)
        return rep


def at_next_boot(board, data_dir, tool):
    """The menu's "Calibrate" / "Self-test": the board restarts into the tool (it then
    owns the sensors and the buttons alone) and comes back to the game after it. The
    virtual board cannot restart itself: it says how to start the tool."""
    with open(data_dir + "/tool", "w") as f:
        f.write(tool)
    if board.virtual:
        return "restart with --" + tool
    import machine
    machine.reset()
    return None


def run_virtual(board, cal, **kw):
    """The self-test on the virtual board: protocol lines (``sense``, ``button``) are
    taken while it runs; each sense line's time is scanned before the next is read."""
    import asyncio
    import json
    st = SelfTest(board, cal, **kw)

    async def reader():
        while True:
            ln = await board.read_line()
            if ln is None:
                return
            if ln:
                try:
                    obj = json.loads(ln)
                except ValueError:
                    continue
                if isinstance(obj, dict) and obj.get("cmd") == "button":
                    board.press(obj.get("name"), obj.get("press", "short"))
            while board.budget > 0 and st.scanning:
                await asyncio.sleep_ms(1)

    async def main():
        asyncio.create_task(reader())
        return await st.run()

    return asyncio.run(main())


def run_board(board, cal, **kw):
    """The self-test on the ESP32 (from the menu, at power-up, or over mpremote)."""
    import asyncio
    return asyncio.run(SelfTest(board, cal, **kw).run())
