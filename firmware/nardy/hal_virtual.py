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
import select
import sys
from array import array

import framebuf

from nardy.pinmap import load

_HEX = "0123456789abcdef"


def hexlify(b):
    import binascii
    return binascii.hexlify(b).decode()


class Display(framebuf.FrameBuffer):
    """128x64 MONO_VLSB like the SSD1306; ``show()`` sends the buffer when it
    changed (and when the host asked for OLED frames)."""

    def __init__(self, board, width=128, height=64):
        self.width = width
        self.height = height
        self.buffer = bytearray(width * height // 8)
        self._last = bytearray(len(self.buffer))
        self.board = board
        super().__init__(self.buffer, width, height, framebuf.MONO_VLSB)

    def show(self):
        if self.buffer == self._last:
            return
        self._last[:] = self.buffer
        if self.board.send_oled:
            self.board.out({"ev": "oled", "w": self.width, "h": self.height,
                            "fb": hexlify(self.buffer)})


class Board:
    virtual = True

    def __init__(self, pinmap_path, flash_dir, out=None, period_ms=20, flash_bytes=-1):
        self.pinmap = load(pinmap_path)
        self.flash_dir = flash_dir
        self.period_ms = period_ms
        self.flash_bytes = flash_bytes      # a quota to test a full flash; -1: none
        self.raw = array("H", [0] * self.pinmap.layout.n)
        self.have = False
        self.budget = 0
        self.clock = 0
        self.events = []
        self.send_oled = True
        self.send_leds = True
        self._leds = None
        self.display = Display(self)
        self.out = out or self._print
        self._poll = select.poll()
        self._poll.register(sys.stdin, select.POLLIN)
        self.eof = False
        self._reader = None

    @staticmethod
    def _print(obj):
        sys.stdout.write(json.dumps(obj))
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
        self.have = True
        self.budget += ms

    def press(self, name, kind):
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
        buf[:] = self.raw
        return True

    def poll_buttons(self, now):
        ev = self.events
        self.events = []
        return ev

    def show_leds(self, frame):
        if self._leds == frame:
            return
        self._leds = bytes(frame)
        if self.send_leds:
            self.out({"ev": "leds", "rgb": hexlify(frame)})

    def show_display(self):
        self.display.show()

    def flash_free(self):
        if self.flash_bytes < 0:
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
        return self.flash_bytes - used

    def urandom(self, n):
        return os.urandom(n)

    def readline(self):
        """A whole line (bytes) from stdin if one is waiting, else None; at the end
        of input ``eof`` is set. The host writes whole lines, so readline() after
        poll() does not wait."""
        if self.eof or not self._poll.poll(0):
            return None
        ln = sys.stdin.buffer.readline()
        if not ln:
            self.eof = True
            return None
        return ln

    async def read_line(self):
        """The next line from stdin, or None at the end of input. Waits on the
        file descriptor in the asyncio loop (no polling interval: a scripted host
        gets its replies as fast as the firmware makes them)."""
        import asyncio
        if self._reader is None:
            self._reader = asyncio.StreamReader(sys.stdin.buffer)
        while not self.eof:
            try:
                ln = await self._reader.readline()
            except OSError:
                # a pty with nobody on the other side (the cable is out): wait
                await asyncio.sleep_ms(50)
                continue
            if not ln:
                self.eof = True
                return None
            return ln
        return None
