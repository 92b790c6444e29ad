"""The ESP32 hardware layer against fake pins and ADCs (no machine module needed)."""

import json
from array import array

from nardy.buttons import LONG, SHORT, Button, Buttons
from nardy.hal_esp32 import InternalInput, Leds, Mcp3208, McpInput, PinButtons, Scanner
from nardy.pinmap import NONE, from_dict, load

_here = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
PINMAPS = _here + "/../../firmware/pinmap/"


class _CsPin:
    def __init__(self, rig):
        self.rig = rig

    def value(self, v=None):
        if v is None:
            return self.rig.cs
        self.rig.cs = v


class Rig:
    """Fake 74HC138 + CD74HC4067s + sensors: an ADC reads 1000 + 16 * mux + select,
    but only while that mux's group is powered and has been for ``on_us``, and the
    select lines have settled; anything else reads 7 (a floating input)."""

    def __init__(self, nmux, shared, on_us=400, settle_us=10, mcp=False):
        self.t = 0
        self.sel = [0, 0, 0, 0]
        self.dec = [0, 0, 0]
        self.en = 0
        self.on_at = 0
        self.sel_at = 0
        self.on_us = on_us
        self.settle_us = settle_us
        self.max_groups_on = 0
        self.reads = 0
        rig = self

        class P:
            def __init__(self, arr, i):
                self.arr = arr
                self.i = i

            def value(self, v=None):
                if v is None:
                    return self.arr[self.i]
                if self.arr is rig.sel and self.arr[self.i] != v:
                    rig.sel_at = rig.t
                self.arr[self.i] = v

        class En:
            def value(self, v=None):
                if v is None:
                    return rig.en
                if v and not rig.en:
                    rig.on_at = rig.t
                rig.en = v

        def reading(m):
            # what mux m's output carries now (m None: the joined outputs)
            rig.reads += 1
            g = rig.dec[0] | rig.dec[1] << 1 | rig.dec[2] << 2
            c = rig.sel[0] | rig.sel[1] << 1 | rig.sel[2] << 2 | rig.sel[3] << 3
            ok = (rig.en and (m is None or m == g)
                  and rig.t - rig.on_at >= rig.on_us and rig.t - rig.sel_at >= rig.settle_us)
            return (1000 + 16 * g + c) if ok else 7

        class A:
            """The ESP32's ADC (the fallback build)."""

            def __init__(self, m):
                self.m = m

            def read_u16(self):
                return reading(self.m) << 4

        class Spi:
            """An MCP3208 on SPI: its input k is wired to mux k's output."""

            def write_readinto(self, tx, rx):
                assert rig.cs == 0, "conversion without chip select"
                assert len(tx) == len(rx) == 3
                assert tx[0] & 0x06 == 0x06, "start bit and single-ended mode"
                ch = ((tx[0] & 1) << 2) | (tx[1] >> 6)
                v = reading(ch)
                rx[0] = 0xA5          # the chip drives nothing yet: any bits
                rx[1] = 0xE0 | (v >> 8)   # null bit and don't-care bits above
                rx[2] = v & 0xFF

        self.cs = 1
        self.spi = Spi()
        self.chip_select = _CsPin(self)
        self.select = [P(self.sel, i) for i in range(4)]
        self.decoder = [P(self.dec, i) for i in range(3)]
        self.enable = En()
        if mcp:
            chip = Mcp3208(self.spi, self.chip_select)
            self.adcs = [McpInput(chip, m) for m in range(nmux)]
        elif shared:
            self.adcs = [InternalInput(A(None))]
        else:
            self.adcs = [InternalInput(A(m)) for m in range(nmux)]

    def sleep(self, us):
        self.t += us


def _check_scan(name):
    pm = load(PINMAPS + name + ".json")
    rig = Rig(pm.nmux, pm.shared_adc, pm.on_us, pm.settle_us, pm.adc_kind == "mcp3208")
    sc = Scanner(rig.select, rig.adcs, pm.order, pm.nmux, pm.nch, rig.decoder, rig.enable,
                 pm.settle_us, pm.on_us, pm.samples, sleep_us=rig.sleep)
    buf = array("H", [0] * pm.layout.n)
    sc.scan(buf)
    assert rig.en == 0, "sensors must be unpowered after a scan"
    assert rig.reads == pm.layout.n * pm.samples
    with open(PINMAPS + name + ".json") as f:
        chans = json.loads(f.read())["channels"]
    for m in range(pm.nmux):
        for c in range(16):
            label = chans[m][c]
            i = pm.order[m * 16 + c]
            assert (label is None) == (i == NONE)
            if label is not None:
                assert buf[i] == 1000 + 16 * m + c, (label, buf[i])
    return pm, buf


def test_scan_esp32s3_mcp3208():
    pm, buf = _check_scan("esp32s3")
    assert pm.adc_kind == "mcp3208" and pm.adc_channel == list(range(8))
    assert (pm.spi["sck"], pm.spi["mosi"], pm.spi["miso"], pm.spi["cs"]) == (4, 5, 6, 7)
    # P1 slot 1 is logical channel 0 and sits on mux 0 input 0
    assert buf[0] == 1000
    # bar.1 is mux 2 input 15; logical: after 24 points * 5 slots
    assert buf[120] == 1000 + 16 * 2 + 15


def test_scan_esp32_mcp3208():
    pm, buf = _check_scan("esp32")
    assert pm.adc_kind == "mcp3208" and not pm.shared_adc
    assert (pm.spi["sck"], pm.spi["mosi"], pm.spi["miso"], pm.spi["cs"]) == (14, 15, 34, 5)


def test_mcp3208_frames_every_channel():
    sent = []

    class Spi:
        def write_readinto(self, tx, rx):
            sent.append(bytes(tx))
            rx[0] = 0xFF
            rx[1] = 0xFA      # garbage above the 4 data bits must be masked
            rx[2] = 0xBC

    class Cs:
        v = None

        def value(self, v=None):
            self.v = v

    chip = Mcp3208(Spi(), Cs())
    for ch in range(8):
        chip.select(ch)
        assert chip.read() == 0xABC
    assert sent == [bytes((0x06 | (ch >> 2), (ch & 3) << 6, 0)) for ch in range(8)]


def test_internal_adc_uses_calibrated_microvolts():
    class Adc:
        def read_uv(self):
            return 1650000          # half the sensor supply

        def read_u16(self):
            raise AssertionError("raw read used although read_uv exists")

    assert InternalInput(Adc(), 3300).read() == 2048

    class Over:
        def read_uv(self):
            return 3400000

    assert InternalInput(Over(), 3300).read() == 4095


def test_scan_esp32s3_internal_adc_fallback():
    pm, buf = _check_scan("esp32s3-internal-adc")
    assert pm.adc_kind == "internal" and not pm.shared_adc and len(pm.outs) == 8
    # P1 slot 1 is logical channel 0 and sits on mux 0 input 0
    assert buf[0] == 1000
    # bar.1 is mux 2 input 15; logical: after 24 points * 5 slots
    assert buf[120] == 1000 + 16 * 2 + 15


def test_scan_shared_internal_adc():
    with open(PINMAPS + "esp32.json") as f:
        d = json.loads(f.read())
    d["adc"] = {"kind": "internal", "samples": 2}
    d["mux"]["out"] = [36]
    pm = from_dict(d)
    assert pm.shared_adc
    rig = Rig(pm.nmux, True, pm.on_us, pm.settle_us)
    sc = Scanner(rig.select, rig.adcs, pm.order, pm.nmux, pm.nch, rig.decoder, rig.enable,
                 pm.settle_us, pm.on_us, pm.samples, sleep_us=rig.sleep)
    buf = array("H", [0] * pm.layout.n)
    sc.scan(buf)
    assert rig.reads == 2 * pm.layout.n
    assert buf[0] == 1000 and buf[120] == 1000 + 16 * 2 + 15


def test_pinmap_rejects_bad_adc():
    with open(PINMAPS + "esp32s3.json") as f:
        text = f.read()
    for change, word in ((("adc", "kind", "sigma-delta"), "kind"),
                         (("adc", "spi", {"sck": 4}), "mosi"),
                         (("mux", "adc_channel", [0, 1, 2, 3, 4, 5, 6, 8]), "0..7")):
        d = json.loads(text)
        d[change[0]][change[1]] = change[2]
        try:
            from_dict(d)
        except ValueError as e:
            assert word in str(e), (word, str(e))
        else:
            raise AssertionError("accepted %r" % (change,))


def test_scan_writes_only_changed_select_lines():
    pm = load(PINMAPS + "esp32s3.json")
    rig = Rig(pm.nmux, False, mcp=True)
    writes = [0]
    orig = rig.select

    class Count:
        def __init__(self, p):
            self.p = p

        def value(self, v=None):
            if v is not None:
                writes[0] += 1
            return self.p.value(v)

    sel = [Count(p) for p in orig]
    sc = Scanner(sel, rig.adcs, pm.order, pm.nmux, 16, rig.decoder, rig.enable,
                 10, 400, 1, sleep_us=rig.sleep)
    writes[0] = 0
    sc.scan(array("H", [0] * pm.layout.n))
    # a Gray-code-free binary count 0..15 flips 30 bits per pass (+ wrap to 0: 4)
    assert writes[0] <= 8 * 34, writes[0]


def test_pinmap_rejects_double_wiring():
    d = {"slots_per_point": 1, "mux": {"count": 2, "channels": 16, "select": [1, 2, 3, 4],
                                       "out": [5]},
         "channels": [["P1.1"] * 16, [None] * 16]}
    try:
        from_dict(d)
    except ValueError as e:
        assert "twice" in str(e)
    else:
        raise AssertionError("double wiring accepted")


def test_pinmap_led_zones_and_cap():
    pm = load(PINMAPS + "esp32s3.json")
    assert pm.led_count == len(pm.led_zones) == 28
    assert pm.led_zones[0] == 1 and pm.led_zones[23] == 24
    assert pm.led_zones[24] == 27 and pm.led_zones[25] == 26   # off_black, off_white
    assert pm.led_zones[26] == 25 and pm.led_zones[27] == 25
    assert pm.led_max == 16


def test_leds_driver_copies_frame():
    class NP:
        def __init__(self, n):
            self.px = [None] * n
            self.writes = 0

        def __setitem__(self, i, v):
            self.px[i] = v

        def write(self):
            self.writes += 1

    np = NP(3)
    Leds(np, 3).show(bytes([1, 2, 3, 4, 5, 6, 7, 8, 9]))
    assert np.px == [(1, 2, 3), (4, 5, 6), (7, 8, 9)] and np.writes == 1


def test_button_debounce_ignores_bounces():
    b = Button("ok", debounce_ms=30, long_ms=800)
    out = []
    # contact bounce: 1,0,1,0 within a few ms, then held for 100 ms and released
    for t, lv in ((0, 1), (3, 0), (5, 1), (8, 0), (10, 1), (50, 1), (110, 0), (115, 1),
                  (118, 0), (160, 0)):
        e = b.update(lv, t)
        if e:
            out.append((t, e))
    assert out == [(160, SHORT)], out


def test_button_long_press_fires_while_held_once():
    b = Button("back", debounce_ms=30, long_ms=800)
    out = []
    for t in range(0, 2000, 10):
        e = b.update(t < 1500, t)
        if e:
            out.append((t, e))
    assert out == [(800, LONG)], out


def test_button_short_spike_is_no_press():
    b = Button("menu")
    assert b.update(1, 0) is None
    assert b.update(0, 10) is None
    assert b.update(0, 100) is None
    assert not b.down


def test_button_tick_wrap():
    b = Button("ok")
    t0 = (1 << 30) - 20
    assert b.update(1, t0) is None
    assert b.update(1, t0 + 40) is None           # wraps past 2**30
    assert b.update(0, (t0 + 100) & 0x3FFFFFFF) is None
    assert b.update(0, (t0 + 140) & 0x3FFFFFFF) == SHORT


def test_pin_buttons_active_low():
    class Pin:
        def __init__(self):
            self.v = 1

        def value(self):
            return self.v

    pins = [Pin(), Pin(), Pin()]
    bb = PinButtons(pins, active_low=True)
    pins[2].v = 0          # menu pressed (pulled low)
    for t in range(0, 100, 10):
        bb.read(t)
    pins[2].v = 1
    for t in range(100, 200, 10):
        bb.read(t)
    assert bb.events == [("menu", SHORT)], bb.events


def test_buttons_group():
    bb = Buttons()
    for t in range(0, 1000, 10):
        bb.poll((1, 0, 0), t)
    assert bb.events == [("ok", LONG)]


def _fake_board(name):
    import fakemachine

    from nardy.hal_esp32 import Board
    fakemachine.install()
    try:
        pm = load(PINMAPS + name + ".json")
        board = Board.from_pinmap(pm, usb=False)
    finally:
        fakemachine.remove()
    return board, fakemachine


def test_from_pinmap_mcp3208_board():
    board, fm = _fake_board("esp32s3")
    spis = [o for o in fm.made if isinstance(o, fm.SPI)]
    assert len(spis) == 1 and spis[0].pins == (4, 5, 6, 7)[:3]
    assert spis[0].baudrate == 1000000
    # chip select idles high; no internal ADC is touched
    cs = [o for o in fm.made if isinstance(o, fm.Pin) and o.n == 7]
    assert cs and cs[0].v == 1
    assert not [o for o in fm.made if isinstance(o, fm.ADC)]
    board.scanner._sleep = lambda us: None
    buf = array("H", [0] * board.pinmap.layout.n)
    assert board.scan(buf)
    assert spis[0].frames == board.pinmap.layout.n
    assert buf[0] == 2000 and buf[120] == 2002          # P1.1 on mux 0, bar.1 on mux 2
    # buttons: pulled up, active low; a held OK gives an event after the debounce
    btn = [o for o in fm.made if isinstance(o, fm.Pin) and o.n in (39, 40, 47)]
    assert len(btn) == 3 and all(p.pull == fm.Pin.PULL_UP for p in btn)
    assert board.display is None          # no OLED answered: the board runs without
    ok = [p for p in btn if p.n == 39][0]
    ok.v = 0
    ev = []
    for t in (0, 40, 80):
        ev += board.poll_buttons(t)
    ok.v = 1
    for t in (120, 160, 200):
        ev += board.poll_buttons(t)
    assert [e for e in ev if e[0] == "ok"] and not [e for e in ev if e[0] != "ok"], ev
    assert SHORT in ev[0], ev
    np = [o for o in fm.made if isinstance(o, fm.NeoPixel)][0]
    board.show_leds(bytes(range(3 * 28)))
    assert np.writes == 1 and np.px[1] == (3, 4, 5)
    assert isinstance(board.flash_free(), int)


def test_from_pinmap_internal_adc_fallback():
    board, fm = _fake_board("esp32s3-internal-adc")
    adcs = [o for o in fm.made if isinstance(o, fm.ADC)]
    assert [a.pin.n for a in adcs] == [1, 2, 4, 5, 6, 7, 8, 9]
    assert all(a.atten == fm.ADC.ATTN_11DB for a in adcs)
    board.scanner._sleep = lambda us: None
    buf = array("H", [0] * board.pinmap.layout.n)
    board.scan(buf)
    assert buf[0] == 2048       # 1.65 V of a 3.3 V supply, from read_uv()


def _asyncio():
    import asyncio
    if not hasattr(asyncio, "sleep_ms"):         # CPython: MicroPython's sleep_ms
        asyncio.sleep_ms = lambda ms: asyncio.sleep(ms / 1000)
    return asyncio


def test_read_line_lets_the_scan_run_every_64_bytes():
    # The ESP32's USB lines: a 300-byte line that has arrived whole is taken 64 bytes
    # between two turns of the other tasks (the scan), not in one go; a line still
    # arriving is waited for without blocking; the USB serial has no end.
    from nardy.hal_esp32 import Board
    from nardy.lines import LineReader
    asyncio = _asyncio()

    class Serial:
        def __init__(self):
            self.data = bytearray()
            self.pos = 0
            self.reads = 0

        def ready(self):
            return self.pos < len(self.data)

        def readinto(self, buf):
            if self.pos >= len(self.data):
                return 0                     # nothing there (the reader sees "end")
            buf[0] = self.data[self.pos]
            self.pos += 1
            self.reads += 1
            return 1

    s = Serial()
    long = b'{"cmd": "ping", "id": 1, "pad": "' + b"x" * 260 + b'"}'
    s.data += long + b"\n" + b'{"cmd": "ping",'
    board = Board(load(PINMAPS + "esp32s3.json"), None, None, None, None,
                  usb=LineReader(s, s.ready, 4096))
    reads_per_turn = []

    async def scan():
        while True:
            reads_per_turn.append(s.reads)
            await asyncio.sleep_ms(0)

    async def main():
        task = asyncio.create_task(scan())
        first = await board.read_line()
        # the rest of the second line arrives later: read_line waits for it
        s.data += b' "id": 2}\n'
        second = await board.read_line()
        task.cancel()
        return first, second

    first, second = asyncio.run(main())
    assert first == long and second == b'{"cmd": "ping", "id": 2}'
    steps = [b - a for a, b in zip(reads_per_turn, reads_per_turn[1:])]
    assert max(steps) <= 64 and len(reads_per_turn) >= len(long) // 64, steps


def test_from_pinmap_attenuation_and_buttons_without_pull_ups():
    # each attenuation of the pin map reaches the ADC; external pull-ups: no internal
    # ones, and active-high buttons read a high level as pressed
    import fakemachine

    from nardy.hal_esp32 import Board
    with open(PINMAPS + "esp32s3-internal-adc.json") as f:
        text = f.read()
    for db, want in ((0, "ATTN_0DB"), (2, "ATTN_2_5DB"), (6, "ATTN_6DB"), (11, "ATTN_11DB")):
        d = json.loads(text)
        d["adc"]["atten_db"] = db
        d["buttons"]["pull_up"] = False
        d["buttons"]["active_low"] = False
        fakemachine.install()
        try:
            board = Board.from_pinmap(from_dict(d), usb=False)
        finally:
            fakemachine.remove()
        adcs = [o for o in fakemachine.made if isinstance(o, fakemachine.ADC)]
        assert adcs and all(a.atten == getattr(fakemachine.ADC, want) for a in adcs), db
    btn = [o for o in fakemachine.made if isinstance(o, fakemachine.Pin)
           and o.mode == fakemachine.Pin.IN]
    assert len(btn) == 3 and all(p.pull is None for p in btn)
    ok = [p for p in btn if p.n == d["buttons"]["ok"]][0]
    ev = []
    ok.v = 1                       # active high: pressed
    for t in (0, 40, 80):
        ev += board.poll_buttons(t)
    ok.v = 0
    for t in (120, 160, 200):
        ev += board.poll_buttons(t)
    assert ev == [("ok", SHORT)], ev


def test_usb_reader_reads_lines_after_a_zero_timeout_poll():
    # MicroPython takes the ipoll branch, CPython the poll one; a file is always
    # "ready", so the lines come whole and then the end shows as eof
    from nardy.hal_esp32 import usb_reader
    path = "/tmp/nardy-usb-reader-test"
    with open(path, "wb") as f:
        f.write(b'{"cmd": "ping"}\r\n' + b"y" * 80 + b'\n{"cmd": "dump"}\n')
    with open(path, "rb") as s:
        r = usb_reader(s, max_line=64)
        assert r.ready()
        got = []
        for _ in range(10):
            ln = r.readline(256)
            if ln is not None:
                got.append(ln)
    assert got == [b'{"cmd": "ping"}', b"\x00too long", b'{"cmd": "dump"}'], got
    assert r.eof
    import os
    os.remove(path)


class _Oled:
    """What the app needs of ssd1306.SSD1306_I2C: its size and its frame buffer."""
    width = 128
    height = 64

    def __init__(self):
        self.buffer = bytearray(i & 255 for i in range(1024))


def test_esp32_sends_the_oled_frame_in_pieces():
    # The host's `oled` request: one JSON line, written 64 frame bytes (128 hex
    # characters) at a time, never as one 2 KB string that a fragmented heap lacks.
    from nardy.hal_esp32 import Board
    writes = []
    board = Board(None, None, None, _Oled(), None, write=writes.append)
    board.send_display()
    line = "".join(writes)
    assert line.endswith("\n") and line.count("\n") == 1
    ev = json.loads(line)
    assert ev["ev"] == "oled" and (ev["w"], ev["h"]) == (128, 64)
    assert ev["fb"] == "".join("%02x" % b for b in board.display.buffer)
    assert max(len(w) for w in writes) <= 128, max(len(w) for w in writes)
    # a board built without an OLED answers nothing (and does not fail)
    writes.clear()
    Board(None, None, None, None, None, write=writes.append).send_display()
    assert writes == []


def test_esp32_writes_an_event_to_the_usb_serial_as_one_json_line():
    # no ``write`` given: the USB serial (sys.stdout), the line written as json.dump
    # makes it (no block the size of the line); CPython only (stdout swapped)
    import sys
    if sys.implementation.name == "micropython":
        return
    import io

    from nardy.hal_esp32 import Board
    saved = sys.stdout
    sys.stdout = buf = io.StringIO()
    try:
        Board(None, None, None, None, None).out({"ev": "turn", "steps": [[1, 7]], "n": 3})
    finally:
        sys.stdout = saved
    assert buf.getvalue().count("\n") == 1
    assert json.loads(buf.getvalue()) == {"ev": "turn", "steps": [[1, 7]], "n": 3}
