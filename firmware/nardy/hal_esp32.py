"""The ESP32 hardware layer: the only firmware module that imports ``machine``,
``neopixel`` and ``ssd1306``.

Drivers take their hardware as arguments (pins, ADCs, a NeoPixel, a display), the
way micropython-lib drivers do, so tests drive them with fakes; ``Board.from_pinmap``
builds the real objects from the pin map. The imports of ``machine`` & co. happen in
the factory functions only, so this file also imports on the unix port (for tests).
"""

import time

import micropython
from micropython import const  # CPython: the shim nardy/__init__.py installs

from nardy import hal
from nardy.buttons import Buttons
from nardy.pinmap import NONE

_ADC_SHIFT = const(4)   # read_u16() is 0..65535; the thresholds are 12-bit counts
_MCP_START = const(0x06)   # MCP3208: start bit + single-ended, then D2 of the channel
# USB bytes taken per look before the scan gets its turn again (Board.read_line)
_READ_BUDGET = const(64)


def _sleep_us(us):
    time.sleep_us(us)  # type: ignore[attr-defined]  # MicroPython's time


class Mcp3208:
    """Microchip MCP3208 (DS21298), 12-bit SAR ADC on SPI, mode 0.

    One conversion is three bytes (DS21298 section 6.1, "Using the MCP3204/3208 with
    microcontroller SPI ports"): ``0000 01 SGL D2``, ``D1 D0 xxxxxx``, ``0``; the
    answer's low nibble of byte 1 and byte 2 are the 12 bits. VREF and VDD are tied to
    the sensor rail 3V3S, so a reading is Vout / VCC of the hall sensor: ratiometric.
    The buffers are made once; ``select`` rewrites two bytes, ``read`` allocates
    nothing."""

    def __init__(self, spi, cs):
        self.spi = spi
        self.cs = cs
        self._tx = bytearray(3)
        self._rx = bytearray(3)
        cs.value(1)
        self.select(0)

    def select(self, ch):
        tx = self._tx
        tx[0] = _MCP_START | (ch >> 2)
        tx[1] = (ch & 3) << 6

    def read(self):
        cs = self.cs
        rx = self._rx
        cs.value(0)
        self.spi.write_readinto(self._tx, rx)
        cs.value(1)
        return ((rx[1] & 0x0F) << 8) | rx[2]


class McpInput:
    """One MCP3208 input as the scanner sees it: ``begin()`` when its mux's group
    starts, then ``read()`` per multiplexer channel (12-bit counts)."""

    def __init__(self, chip, ch):
        self.chip = chip
        self.ch = ch

    def begin(self):
        self.chip.select(self.ch)

    def read(self):
        return self.chip.read()


class InternalInput:
    """FALLBACK: the ESP32's own ADC1 on a mux output. Not ratiometric: the reading
    is turned into the counts a ratiometric ADC would give at the nominal sensor supply
    (``full_scale_mV``), from ``read_uv()`` (eFuse-calibrated) where the port has it,
    else from the raw ``read_u16()`` (the chip's reference varies 1000-1200 mV: see
    hardware/README.md, "Fallback: the ESP32's own ADC")."""

    def __init__(self, adc, full_scale_mV=3300):
        self.adc = adc
        self._uv = getattr(adc, "read_uv", None)
        self._fs_uv = full_scale_mV * 1000

    def begin(self):
        pass

    def read(self):
        uv = self._uv
        if uv is None:
            return self.adc.read_u16() >> _ADC_SHIFT
        c = (uv() * 4096) // self._fs_uv
        return c if c < 4095 else 4095


class Scanner:
    """One full scan of every multiplexed hall sensor into a preallocated buffer.

    ``select``: the four shared select lines S0..S3 (Pin-like: ``value(v)``).
    ``adcs``: one input per multiplexer (``McpInput``: an MCP3208 channel, the
    reference build; ``InternalInput``: the ESP32's ADC, the fallback), or a single
    shared one (classic ESP32 fallback, the multiplexer outputs joined). An input has
    ``begin()`` and ``read()`` (12-bit counts).
    ``order``: ``PinMap.order`` (mux * nch + select -> logical channel or NONE).
    ``decoder`` / ``enable``: the 74HC138 address lines A0..A2 and its E3 input;
    output n (low) powers sensor group n and enables multiplexer n, so exactly one
    group draws current at a time (the USB power budget, hardware/README.md).
    """

    def __init__(self, select, adcs, order, nmux, nch=16, decoder=(), enable=None,
                 settle_us=10, on_us=400, samples=1, sleep_us=None):
        if len(select) != 4:
            raise ValueError("four select lines expected")
        self.select = select
        self.adcs = adcs
        self.order = order
        self.nmux = nmux
        self.nch = nch
        self.decoder = decoder
        self.enable = enable
        self.settle_us = settle_us
        self.on_us = on_us
        self.samples = samples
        self._sleep = sleep_us or _sleep_us
        self._sel = -1
        # The reference build's hot path: every input on one MCP3208, one sample
        # each; its pins, bus and buffers are taken out once here.
        self._mcp = None
        if adcs and all(isinstance(a, McpInput) and a.chip is adcs[0].chip for a in adcs):
            self._mcp = adcs[0].chip
            self._chans = bytearray([a.ch for a in adcs])
        self.off()

    @micropython.native
    def _scan_mcp(self, buf, chip):
        # The loop of scan() with the MCP3208's transfer inlined: a method call per
        # channel costs the ESP32 about as much as the 24 us SPI transfer itself.
        cs = chip.cs
        xfer = chip.spi.write_readinto
        tx = chip._tx
        rx = chip._rx
        order = self.order
        nch = self.nch
        sleep = self._sleep
        settle = self.settle_us
        s0, s1, s2, s3 = self.select
        chans = self._chans
        prev = self._sel
        for m in range(self.nmux):
            self._group(m)
            ch = chans[m]
            tx[0] = 6 | (ch >> 2)
            tx[1] = (ch & 3) << 6
            base = m * nch
            for c in range(nch):
                i = order[base + c]
                if i == 0xFFFF:
                    continue
                diff = (c ^ prev) if prev >= 0 else 15
                if diff & 1:
                    s0.value(c & 1)
                if diff & 2:
                    s1.value((c >> 1) & 1)
                if diff & 4:
                    s2.value((c >> 2) & 1)
                if diff & 8:
                    s3.value((c >> 3) & 1)
                prev = c
                if settle:
                    sleep(settle)
                cs.value(0)
                xfer(tx, rx)
                cs.value(1)
                buf[i] = ((rx[1] & 0x0F) << 8) | rx[2]
        self._sel = prev

    def off(self):
        """Every sensor group unpowered (also the state at reset, held by R9)."""
        if self.enable is not None:
            self.enable.value(0)

    def _group(self, m):
        if self.enable is None:
            return
        self.enable.value(0)
        d = self.decoder
        for b in range(len(d)):
            d[b].value((m >> b) & 1)
        self.enable.value(1)
        self._sleep(self.on_us)

    def _address(self, c):
        # only the lines that change are written: four pin writes per channel would
        # cost more than the settle time itself
        diff = c ^ self._sel if self._sel >= 0 else 0xF
        s = self.select
        for b in range(4):
            if diff & (1 << b):
                s[b].value((c >> b) & 1)
        self._sel = c

    def scan(self, buf):
        """Fill ``buf`` (array of the Layout's channel count) in logical order."""
        mcp = self._mcp
        if mcp is not None and self.samples == 1:
            self._scan_mcp(buf, mcp)
            self.off()
            return buf
        order = self.order
        nch = self.nch
        samples = self.samples
        shared = len(self.adcs) == 1
        sleep = self._sleep
        settle = self.settle_us
        for m in range(self.nmux):
            self._group(m)
            adc = self.adcs[0] if shared else self.adcs[m]
            adc.begin()
            read = adc.read
            base = m * nch
            for c in range(nch):
                i = order[base + c]
                if i == NONE:
                    continue
                self._address(c)
                sleep(settle)
                if samples == 1:
                    buf[i] = read()
                    continue
                acc = 0
                for _ in range(samples):
                    acc += read()
                buf[i] = acc // samples
        self.off()
        return buf


class Leds:
    """WS2812 chain through the built-in ``neopixel`` (injected ``np``: indexable
    with (r, g, b) tuples, ``write()``). ``show(frame)`` takes the composed frame
    (3 bytes per LED in chain order, already brightness-capped by
    ``nardy.ui.led_frame``)."""

    def __init__(self, np, count):
        self.np = np
        self.count = count

    def show(self, frame):
        np = self.np
        for i in range(self.count):
            j = 3 * i
            np[i] = (frame[j], frame[j + 1], frame[j + 2])
        np.write()


class PinButtons(Buttons):
    """Three buttons on GPIOs (active low with pull-ups per the pin map)."""

    def __init__(self, pins, active_low=True, debounce_ms=30, long_ms=800):
        Buttons.__init__(self, debounce_ms, long_ms)
        self.pins = pins
        self.active_low = active_low
        self._levels = bytearray(len(pins))

    def read(self, now):
        lv = self._levels
        for i in range(len(self.pins)):
            v = self.pins[i].value()
            lv[i] = (not v) if self.active_low else bool(v)
        self.poll(lv, now)


class WlanRadio:
    """The ESP32's Wi-Fi (the contract: ``nardy.hal.Board.radio``) through
    ``network.WLAN``: ``AP_IF`` is the board's own network, ``STA_IF`` a home
    network. ``network`` is imported by the first call: a board whose radio stays
    off (settings ``"radio": false``) never loads it nor powers the radio."""

    def __init__(self):
        self._sta = None

    def start_ap(self, ssid, password):
        import network
        self._stop_sta(network)
        ap = network.WLAN(network.AP_IF)
        ap.active(True)
        # WPA2 with the board's own key (nardy.apcred: never a constant)
        ap.config(ssid=ssid, key=password, security=network.AUTH_WPA2_PSK)
        return ap.ifconfig()[0]

    def join(self, ssid, password, hostname):
        import network
        network.hostname(hostname)      # before the link is up: DHCP and mDNS use it
        network.WLAN(network.AP_IF).active(False)
        sta = self._sta = network.WLAN(network.STA_IF)
        sta.active(True)
        sta.connect(ssid, password)     # returns at once; status() follows it

    def status(self):
        import network
        sta = self._sta
        if sta is None:
            return "off"
        st = sta.status()
        if st == network.STAT_GOT_IP:
            return "connected" if sta.isconnected() else "no network"
        if st == network.STAT_CONNECTING:
            return "connecting"
        if st == network.STAT_WRONG_PASSWORD:
            return "wrong password"
        if st == network.STAT_NO_AP_FOUND or st == network.STAT_BEACON_TIMEOUT:
            return "no network"
        return "failed"

    def address(self):
        import network
        if self._sta is not None:
            return self._sta.ifconfig()[0] if self._sta.isconnected() else None
        ap = network.WLAN(network.AP_IF)
        return ap.ifconfig()[0] if ap.active() else None

    def _stop_sta(self, network):
        if self._sta is not None:
            self._sta.disconnect()
            self._sta.active(False)
            self._sta = None

    def off(self):
        import network
        self._stop_sta(network)
        network.WLAN(network.AP_IF).active(False)


class Board(hal.Board):
    """The ESP32 board (the contract: ``nardy.hal.Board``)."""

    web = None      # (host, port) of the board's own page (``web_on``), or None: off

    def __init__(self, pinmap, scanner, leds, display, buttons, flash_dir="/", usb=None,
                 write=None, radio=None):
        self.pinmap = pinmap
        self.scanner = scanner
        self.leds = leds
        self.display = display
        self.buttons = buttons
        self.flash_dir = flash_dir
        self.usb = usb            # nardy.lines.LineReader over the USB serial, or None
        self.write = write        # str -> None; default: sys.stdout (the USB serial)
        self.radio = radio        # WlanRadio (nardy.radio drives it), or None

    def out(self, obj):
        import json
        w = self.write
        if w is None:
            # written as it is made (json.dump to the USB serial): no block the size
            # of the line, which a fragmented heap may not have at the end of a turn
            import sys
            json.dump(obj, sys.stdout)
            sys.stdout.write("\n")
        else:
            w(json.dumps(obj) + "\n")

    def send_display(self):
        d = self.display
        if d is None:
            return
        import binascii
        import sys
        w = self.write or sys.stdout.write
        w('{"ev": "oled", "w": %d, "h": %d, "fb": "' % (d.width, d.height))
        buf = memoryview(d.buffer)
        for i in range(0, len(buf), 64):
            w(binascii.hexlify(buf[i:i + 64]).decode())  # pyright: ignore[reportArgumentType]
        w('"}\n')

    async def read_line(self):
        # At most _READ_BUDGET bytes at a time, the other tasks run in between: a
        # half-sent line never holds up the scan.
        import asyncio
        u = self.usb
        while True:
            if u is None:
                await asyncio.sleep_ms(100)
                continue
            ln = u.readline(_READ_BUDGET)
            if ln is not None:
                return ln
            u.eof = False           # the USB serial has no end; a host comes back
            # more bytes waiting: let the scan run, then go on; else look again soon
            await asyncio.sleep_ms(0 if u.ready() else 5)

    def ticks_ms(self):
        return time.ticks_ms()  # type: ignore[attr-defined]

    def scan(self, buf):
        self.scanner.scan(buf)
        return True

    def poll_buttons(self, now):
        self.buttons.read(now)
        ev = self.buttons.events
        self.buttons.events = []
        return ev

    def show_leds(self, frame):
        self.leds.show(frame)

    def flash_free(self):
        import os
        try:
            st = os.statvfs(self.flash_dir)
            return st[0] * st[3]
        except (OSError, AttributeError):
            return -1

    @staticmethod
    def from_pinmap(pm, usb=True):
        """Build the real drivers (ESP32 only; tests pass fake ``machine`` and
        ``neopixel`` modules). ``usb=False``: no USB line reader (a script that only
        scans, like ``nardy calibrate``'s)."""
        from machine import I2C, Pin
        from neopixel import NeoPixel

        sel = [Pin(n, Pin.OUT, value=0) for n in pm.select]
        adcs = adc_inputs(pm)
        dec = [Pin(n, Pin.OUT, value=0) for n in pm.decoder]
        en = Pin(pm.enable, Pin.OUT, value=0) if pm.enable is not None else None
        scanner = Scanner(sel, adcs, pm.order, pm.nmux, pm.nch, dec, en, pm.settle_us,
                          pm.on_us, pm.samples)
        np = NeoPixel(Pin(pm.led_pin, Pin.OUT), pm.led_count)
        leds = Leds(np, pm.led_count)
        display = None
        try:
            import ssd1306  # micropython-lib, installed by mip at deploy
            i2c = I2C(0, sda=Pin(pm.i2c["sda"]), scl=Pin(pm.i2c["scl"]),
                      freq=pm.i2c.get("freq", 400000))
            display = ssd1306.SSD1306_I2C(pm.oled.get("width", 128),
                                          pm.oled.get("height", 64), i2c,
                                          addr=pm.oled.get("addr", 0x3C))
        except (ImportError, OSError):
            display = None     # no display: the board still plays and talks over USB
        b = pm.buttons
        if b.get("pull_up", True):
            pins = [Pin(b[n], Pin.IN, Pin.PULL_UP) for n in ("ok", "back", "menu")]
        else:
            pins = [Pin(b[n], Pin.IN) for n in ("ok", "back", "menu")]
        buttons = PinButtons(pins, b.get("active_low", True))
        board = Board(pm, scanner, leds, display, buttons,
                      usb=usb_reader() if usb else None, radio=WlanRadio())
        board.web = web_on("/data/web.on")
        return board


def web_on(path):
    """(host, port) of the board's own page (nardy.webserve) when ``path`` exists
    (``nardy deploy --web`` writes it; it holds the port, 80 when empty), else None."""
    try:
        with open(path) as f:
            return ("0.0.0.0", int(f.read(8).strip() or 80))
    except (OSError, ValueError):
        return None


def adc_inputs(pm):
    """The scanner's inputs for the pin map's ADC (ESP32 only)."""
    from machine import ADC, SPI, Pin
    if pm.adc_kind == "mcp3208":
        sp = pm.spi
        spi = SPI(sp.get("id", 1), baudrate=sp.get("baud", 1000000), polarity=0, phase=0,
                  sck=Pin(sp["sck"]), mosi=Pin(sp["mosi"]), miso=Pin(sp["miso"]))
        chip = Mcp3208(spi, Pin(sp["cs"], Pin.OUT, value=1))
        return [McpInput(chip, c) for c in pm.adc_channel]
    atten = {0: ADC.ATTN_0DB, 2: ADC.ATTN_2_5DB, 6: ADC.ATTN_6DB}.get(pm.atten_db,
                                                                    ADC.ATTN_11DB)
    out = []
    for n in pm.outs:
        adc = ADC(Pin(n), atten=atten)
        out.append(InternalInput(adc, pm.full_scale_mV))
    return out


def usb_reader(stream=None, max_line=4096):
    """A LineReader on the USB serial (``sys.stdin``): bytes are taken only when a
    zero-timeout poll says one is there, so reading never waits."""
    import select
    import sys

    from nardy.lines import LineReader
    s = stream or sys.stdin
    raw = getattr(s, "buffer", s)
    p = select.poll()
    p.register(s, select.POLLIN)
    ipoll = getattr(p, "ipoll", None)

    if ipoll is not None:
        def ready():
            for _ in ipoll(0):
                return True
            return False
    else:
        def ready():
            return bool(p.poll(0))
    return LineReader(raw, ready, max_line)
