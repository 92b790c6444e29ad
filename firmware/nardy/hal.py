"""The board interface (HAL), written once: everything the app (``nardy.app``) needs
from the hardware, behind one object. Two boards provide it, as subclasses of
``Board`` below:

- ``nardy.hal_esp32.Board``: the ESP32 (ADC scan through the multiplexers, NeoPixel
  LEDs, the SSD1306 OLED, three buttons, the USB serial);
- ``nardy.hal_virtual.Board``: the virtual board on the unix port, whose sensors,
  buttons and clock are driven by protocol lines (``virtual = True``).

``Board`` is the contract as a base class (as mpremote's ``Transport``): the methods
each board implements (those raising ``NotImplementedError``), with their meaning;
the others have the default of a board without that part. Every board overrides the
abstract ones with the same signature (``tests/firmware/test_hal_contract.py``, under
CPython and MicroPython).

A board may answer protocol commands of its own (``commands``): the virtual board's
``sense`` and ``button`` lines and its ``oled``/``leds`` switches of ``set`` are its
business, not the app's (``nardy.vcommands``).
"""


class Board:
    virtual = False      # True: time passes only as ``sense`` lines say (scripts)
    pinmap = None        # nardy.pinmap.PinMap: layout, LED zones, limits
    display = None       # a framebuf with ``buffer`` and ``show()``, or None
    # How the journal opens its files for writing: None, the builtin ``open`` (a
    # full littlefs raises OSError 28, ENOSPC, from a write, and may leave part of
    # what was written: nardy.journal copes), or a method (path, mode) of a board
    # whose flash is simulated (the virtual board's ``--flash-size``)
    flash_open = None
    # The Wi-Fi radio (nardy.radio drives it), or None: a board without one, or a
    # virtual board started without ``--radio``. Its methods: ``start_ap(ssid,
    # password)`` opens the board's own WPA2 network and returns its address;
    # ``join(ssid, password, hostname)`` starts joining a home network (returns at
    # once; mDNS answers ``hostname.local``); ``status()``: "connected",
    # "connecting", "no network", "wrong password", "failed" or "off"; ``address()``:
    # the board's address on the network it is on (None when on none); ``off()``
    radio = None

    def out(self, obj):
        """Send one protocol event (a dict) to the host as one JSON line."""
        raise NotImplementedError

    async def read_line(self):
        """The next protocol line (bytes; ``b""`` for one the board used itself,
        ``lines.TOO_LONG`` after an over-long one), or None when the host closed
        the line. Never holds up the scan: waits in the asyncio loop."""
        raise NotImplementedError

    def ticks_ms(self):
        """Milliseconds, wrapping at 2**30 like ``time.ticks_ms`` on the ESP32."""
        raise NotImplementedError

    def idle(self):
        """True when nothing queued waits for the scan (real time: always)."""
        return True

    def scan(self, buf):
        """Fill ``buf`` (array "H", one reading per channel) with a scan; False when
        there was nothing to scan (virtual time used up)."""
        raise NotImplementedError

    def poll_buttons(self, now):
        """Button presses since the last poll: a sequence of (name, "short"|"long")."""
        raise NotImplementedError

    def show_leds(self, frame):
        """Show ``frame`` (3 bytes per LED in chain order, already capped)."""
        raise NotImplementedError

    def show_display(self):
        """Push the display's buffer to the screen (if there is one)."""
        if self.display is not None:
            self.display.show()

    def send_display(self):
        """The display's frame to the host now, as one ``oled`` event (the answer to
        its ``oled`` request). Boards write it in pieces: as one hex string and one
        JSON line the 1 KB frame needs two 2 KB blocks, which a fragmented heap (the
        engine's searches) does not always have."""
        raise NotImplementedError

    def flash_free(self):
        """Bytes free for the journal, -1 when unknown."""
        return -1

    def urandom(self, n):
        """``n`` random bytes (the dice)."""
        import os
        return os.urandom(n)

    def commands(self):
        """Protocol commands this board answers itself: {name: handler(app, cmd)},
        or None."""
        return None
