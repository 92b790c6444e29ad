"""The virtual board: the firmware's hardware layer on the unix MicroPython port.

Sensor readings and button presses arrive as protocol lines (``sense``, ``button``)
on stdin; LED frames and OLED framebuffers leave as protocol lines (``leds``,
``oled``) on stdout; a directory stands in for the flash. Time is virtual: a
``sense`` line says how long its readings hold (``ms``), and the scan task scans
once per ``period_ms`` of that time, so a test gets the same result on a slow or a
busy machine.
"""

import json
import os
import sys
from array import array

import framebuf
from micropython import const

from nardy import hal
from nardy.lines import MAX_LINE, TOO_LONG

# The line buffer: a sense line (128 readings) fits in it; a longer line, up to
# lines.MAX_LINE, is gathered apart (rare: the host's commands are short).
_LINE_BUF = const(1024)


def hexlify(b):
    import binascii
    return binascii.hexlify(b).decode()


def write_hex_event(head, buf):
    """``head`` (a JSON object's text up to an opening quote) + ``buf`` in hex + the
    closing quote and brace, as one line on stdout. Written 64 bytes at a time: the
    OLED frame as one string would need 2 KB (then 2 KB more for the JSON line) in
    one piece, which a 56 KB heap cannot always find."""
    import binascii
    out = sys.stdout.buffer
    out.write(head)
    for i in range(0, len(buf), 64):
        out.write(binascii.hexlify(buf[i:i + 64]))
    out.write(b'"}\n')


_SENSE_HEAD = const(b'{"cmd": "sense", "raw": [')
_MS = const(b', "ms": ')


def parse_sense(buf, a, b, out):
    """The readings of a ``sense`` line (docs/PROTOCOL.md) in ``buf[a:b]``, written the way the host
    tools write it (``_SENSE_HEAD``, integers, ``], "ms": N}``), straight into the
    array ``out``; returns ``ms``, or None for any other shape (the line is then
    parsed as JSON, with its errors). ``out`` may be written to even then.

    The virtual board gets 50 of these a second: as JSON each would be a
    128-element list (1 KB in one piece on a 64-bit heap). Here nothing is
    allocated, which keeps a 56 KB heap from fragmenting.

    >>> from array import array
    >>> a = array("H", [0, 0])
    >>> ln = b'{"cmd": "sense", "raw": [12, 4095], "ms": 40}'
    >>> parse_sense(ln, 0, len(ln), a), list(a)
    (40, [12, 4095])
    >>> ln = b'{"cmd": "sense", "raw": [12, -1], "ms": 40}'
    >>> parse_sense(ln, 0, len(ln), a) is None
    True
    """
    i = a
    for c in _SENSE_HEAD:
        if i >= b or buf[i] != c:
            return None
        i += 1
    size = len(out)
    k = 0
    v = -1
    while i < b:
        c = buf[i]
        i += 1
        if 48 <= c <= 57:
            v = (0 if v < 0 else v * 10) + c - 48
            if v > 4095:
                return None
        elif c == 44 or c == 93:          # , ]
            if v < 0 or k >= size:
                return None
            out[k] = v
            k += 1
            v = -1
            if c == 93:
                break
        elif c != 32:
            return None
    if k != size:
        return None
    for c in _MS:
        if i >= b or buf[i] != c:
            return None
        i += 1
    ms = -1
    while i < b and 48 <= buf[i] <= 57:
        ms = (0 if ms < 0 else ms * 10) + buf[i] - 48
        i += 1
        if ms > 600000:
            return None
    while i < b and buf[i] == 32:
        i += 1
    if ms < 0 or i >= b or buf[i] != 125:      # }
        return None
    i += 1
    while i < b and buf[i] in (32, 13):
        i += 1
    return ms if i == b else None


class Display(framebuf.FrameBuffer):
    """128x64 MONO_VLSB like the SSD1306; ``show()`` sends the buffer when it
    changed (and when the host asked for OLED frames)."""

    def __init__(self, board, width=128, height=64):
        self.width = width
        self.height = height
        self.buffer = bytearray(width * height // 8)
        self._crc = -1        # of the frame last shown (a copy would be 1 KB of heap)
        self.board = board
        super().__init__(self.buffer, width, height, framebuf.MONO_VLSB)

    def show(self):
        import binascii
        crc = binascii.crc32(self.buffer)
        if crc == self._crc:
            return
        self._crc = crc
        if self.board.send_oled:
            self.send()

    def send(self):
        """The frame to the host now (also the answer to its ``oled`` request)."""
        b = self.board
        if b.out is Board._print:
            write_hex_event(b'{"ev": "oled", "w": %d, "h": %d, "fb": "' % (
                self.width, self.height), self.buffer)
        else:
            b.out({"ev": "oled", "w": self.width, "h": self.height,
                   "fb": hexlify(self.buffer)})


class Board(hal.Board):
    """The virtual board (the contract: ``nardy.hal.Board``)."""

    virtual = True

    def __init__(self, pinmap_path, flash_dir, out=None, period_ms=20, flash_bytes=-1):
        from nardy.pinmap import load
        pm = self.pinmap = load(pinmap_path)
        # no mux, ADC or I2C here: the scanner's tables go (1.5 KB of a 56 KB heap)
        pm.order = pm.select = pm.decoder = None  # pyright: ignore[reportAttributeAccessIssue]
        pm.adc_channel = pm.outs = None  # pyright: ignore[reportAttributeAccessIssue]
        pm.spi = pm.i2c = pm.oled = None  # pyright: ignore[reportAttributeAccessIssue]
        self.flash_dir = flash_dir
        self.period_ms = period_ms
        self.flash_bytes = flash_bytes      # a quota to test a full flash; -1: none
        n = self.pinmap.layout.n  # pyright: ignore[reportAttributeAccessIssue]
        self.raw = array("H", [0] * n)
        self.have = False
        self._fresh = None        # the buffer that already holds self.raw
        self.budget = 0
        self.clock = 0
        self.events = []
        self.send_oled = True
        self.send_leds = True
        self._leds = None
        self.display = Display(self)
        self.out = out or self._print
        self.eof = False
        self._ibuf = bytearray(0)  # the line buffer, made by the first read_line
        self._one = bytearray(1)
        self._scratch = array("H", self.raw)

    @staticmethod
    def _print(obj):
        # written as it is made (json.dump to the stream): no block the size of the
        # line, which a fragmented 56 KB heap may not have at the end of a turn
        json.dump(obj, sys.stdout)
        sys.stdout.write("\n")

    def ticks_ms(self):
        return self.clock & 0x3FFFFFFF

    # -- inputs from the protocol ---------------------------------------------------
    def sense(self, values, ms):
        if len(values) != len(self.raw):
            raise ValueError("sense needs %d readings" % len(self.raw))
        for i in range(len(values)):
            v = values[i]
            if not isinstance(v, int) or v < 0 or v > 4095:
                raise ValueError("readings must be integers 0..4095")
        for i in range(len(values)):
            self.raw[i] = values[i]
        self._fresh = None       # the next scan copies them
        self.have = True
        self.budget += ms

    def press(self, name, kind):
        """A button press, polled like the ESP32's (``button`` lines: nardy.vcommands
        and the self-test)."""
        self.events.append((name, kind))

    def idle(self):
        return self.budget <= 0 and not self.events

    # -- the HAL interface ------------------------------------------------------------
    def scan(self, buf):
        """One scan if virtual time is left; False otherwise (nothing to do)."""
        if self.budget <= 0:
            return False
        self.budget -= self.period_ms
        self.clock += self.period_ms
        if not self.have:
            return False
        if self._fresh is not buf:
            # new readings (or another buffer): copy once; a steady scan copies
            # nothing (a slice assignment allocates a slice object every time)
            buf[:] = self.raw
            self._fresh = buf
        return True

    def commands(self):
        from nardy.vcommands import COMMANDS
        return COMMANDS

    def poll_buttons(self, now):
        ev = self.events
        if not ev:
            return ()
        self.events = []
        return ev

    def show_leds(self, frame):
        if self._leds == frame:
            return
        if self._leds is None or len(self._leds) != len(frame):
            self._leds = bytearray(len(frame))
        self._leds[:] = frame
        if not self.send_leds:
            return
        if self.out is Board._print:
            write_hex_event(b'{"ev": "leds", "rgb": "', frame)
        else:
            self.out({"ev": "leds", "rgb": hexlify(frame)})

    def send_display(self):
        self.display.send()

    def flash_free(self):
        """Bytes free: with a size (``--flash-size``), that size less the files in
        the flash directory and its journal/; else the host filesystem's free space
        (-1 when it cannot tell)."""
        if self.flash_bytes < 0:
            try:
                st = os.statvfs(self.flash_dir)
                return st[1] * st[4]    # fragment size * blocks free to users
            except (OSError, AttributeError):
                return -1
        used = 0
        for d in (self.flash_dir, self.flash_dir + "/journal"):
            try:
                names = os.listdir(d)
            except OSError:
                continue
            for n in names:
                try:
                    st = os.stat(d + "/" + n)
                except OSError:
                    continue
                if st[0] & 0x8000:
                    used += st[6]
        return max(0, self.flash_bytes - used)

    def flash_open(self, path, mode):
        """A journal file; with a flash size, one whose writes stop with OSError 28
        (ENOSPC) at the size, writing what fits first, as a full littlefs does."""
        f = open(path, mode)  # noqa: SIM115 - the journal keeps it open for appends
        if self.flash_bytes < 0:
            return f
        from nardy.vquota import QuotaFile
        return QuotaFile(self, f)

    async def read_line(self):
        """The next line from stdin (bytes), ``lines.TOO_LONG`` after an over-long
        one, or None at the end of input. Waits for the line's first byte in the
        asyncio loop (no polling interval: a scripted host gets its replies as fast
        as the firmware makes them); the rest is already there, as the host writes
        whole lines.

        The bytes go one at a time into one preallocated buffer (a stream's
        ``readinto`` would wait to fill all of it), and a well-formed ``sense``
        line, this board's stand-in for the ADC, is applied right there without a
        copy (then ``b""`` is returned, which the app skips): at 50 lines a second
        a fresh 800-byte line each time would fragment a 56 KB heap."""
        import asyncio
        if not self._ibuf:
            self._ibuf = bytearray(_LINE_BUF)
        src = sys.stdin.buffer
        one = self._one
        buf = self._ibuf
        size = len(buf)
        while not self.eof:
            try:
                await _readable(src)  # pyright: ignore[reportGeneralTypeIssues]
                got = src.readinto(one)
            except OSError:
                # a pty with nobody on the other side (the cable is out): wait
                await asyncio.sleep_ms(50)
                continue
            n = 0
            big = None       # a line longer than the buffer (never a sense line)
            while True:
                if not got:
                    self.eof = True
                    break
                c = one[0]
                if c == 10:
                    break
                if n < size:
                    buf[n] = c
                    n += 1
                elif big is None:
                    big = bytearray(buf)
                    big.append(c)
                elif len(big) <= MAX_LINE:
                    big.append(c)
                got = src.readinto(one)
            if big is not None:
                return TOO_LONG if len(big) > MAX_LINE else bytes(big)
            if n or not self.eof:
                ms = parse_sense(buf, 0, n, self._scratch)
                if ms is None:
                    return bytes(memoryview(buf)[:n])
                self.sense(self._scratch, ms)
                return b""
        return None


def _readable(stream):
    """Wait in the asyncio loop, without polling, until ``stream`` has a byte to read:
    what ``asyncio.StreamReader.readinto`` does before its read. That class's module
    (asyncio.stream) would keep ~1.9 KB of this 64-bit port's heap (its functions,
    made in RAM) that the ESP32, which polls its USB serial, never loads."""
    # (MicroPython awaits a generator; the stubs know neither that nor asyncio.core)
    from asyncio import core  # pyright: ignore[reportAttributeAccessIssue]
    yield core._io_queue.queue_read(stream)
