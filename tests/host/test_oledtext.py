"""Reading the OLED back (nardy_host.oledtext): the compact font agrees with the
firmware's table, any text drawn in either font reads back, and the golden screens
read as the words the firmware drew."""

import glob
import os

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from nardy import oled
from nardy.cyrillic import GLYPHS as CYR
from nardy.oled import GLYPHS
from nardy_host import oledtext

HERE = os.path.dirname(__file__)
PRINTABLE = "".join(chr(c) for c in range(33, 127))


class Canvas:
    """Enough of framebuf for oled.small_text / big_text, MONO_VLSB out."""

    def __init__(self):
        self.px = [[0] * 128 for _ in range(64)]

    def pixel(self, x, y, c=None):
        if 0 <= x < 128 and 0 <= y < 64:
            if c is None:
                return self.px[y][x]
            self.px[y][x] = c
        return None

    def fill(self, c):
        self.fill_rect(0, 0, 128, 64, c)

    def hline(self, x, y, w, c):
        self.fill_rect(x, y, w, 1, c)

    def rect(self, x, y, w, h, c):
        self.fill_rect(x, y, w, 1, c)
        self.fill_rect(x, y + h - 1, w, 1, c)
        self.fill_rect(x, y, 1, h, c)
        self.fill_rect(x + w - 1, y, 1, h, c)

    def line(self, x0, y0, x1, y1, c):
        n = max(abs(x1 - x0), abs(y1 - y0))
        for i in range(n + 1):
            self.pixel(x0 + (x1 - x0) * i // n, y0 + (y1 - y0) * i // n, c)

    def show(self):
        pass

    def fill_rect(self, x, y, w, h, c):
        for yy in range(y, y + h):
            for xx in range(x, x + w):
                self.pixel(xx, yy, c)

    def text(self, s, x, y, c=1):
        font = oledtext.FONT_HEX.split()
        for i, ch in enumerate(s):
            cols = bytes.fromhex(font[ord(ch) - 32])
            for cx in range(8):
                for r in range(8):
                    if (cols[cx] >> r) & 1:
                        self.pixel(x + 8 * i + cx, y + r, c)

    def hex(self):
        out = bytearray(128 * 8)
        for y in range(64):
            for x in range(128):
                if self.px[y][x]:
                    out[(y // 8) * 128 + x] |= 1 << (y % 8)
        return out.hex()


def test_compact_font_matches_the_firmware_table():
    for i, ch in enumerate(sorted(oledtext.SMALL_ART, key=ord)):
        assert oledtext.small_columns(ch) == bytes(GLYPHS[5 * i:5 * i + 5]), ch
    assert len(GLYPHS) == 5 * len(oledtext.SMALL_ART) == 5 * 95
    # every glyph differs from every other (a reader could not tell them apart)
    assert len({oledtext.small_columns(c) for c in oledtext.SMALL_ART}) == 95


def test_cyrillic_font_matches_the_firmware_table():
    assert sorted(oledtext.CYR_ART, key=ord) == [chr(c) for c in range(0x410, 0x450)]
    for i, ch in enumerate(sorted(oledtext.CYR_ART, key=ord)):
        assert oledtext.small_columns(ch) == bytes(CYR[5 * i:5 * i + 5]), ch
    assert len(CYR) == 5 * 64
    # a letter is either drawn as a Latin one (and read as it) or unlike any other
    latin = {oledtext.small_columns(c): c for c in oledtext.SMALL_ART}
    own = [oledtext.small_columns(c) for c in oledtext.CYR_ART
           if oledtext.small_columns(c) not in latin]
    assert len(own) == len(set(own)) == 64 - len(oledtext._AS_CYRILLIC)
    assert "".join(sorted(oledtext._AS_CYRILLIC.values())) == "АВЕКМНОРСТХаеорсух"
    big = [oledtext.big_columns(c) for c in oledtext.CYR_ART]
    assert len(set(big)) == 64        # bold, every letter still its own
    framebuf_font = {bytes.fromhex(h) for h in oledtext.FONT_HEX.split()}
    assert not [c for c in oledtext.CYR_ART if oledtext.big_columns(c) in framebuf_font
                and c not in oledtext._AS_CYRILLIC.values()]     # big З is not 3


RUSSIAN = "".join(chr(c) for c in range(0x410, 0x450))
ru_words = st.text(alphabet=RUSSIAN + "0123456789:+-", min_size=1, max_size=6)


@settings(max_examples=150, deadline=None)
@given(st.lists(ru_words, min_size=1, max_size=3), st.booleans(), st.integers(0, 5))
def test_russian_text_reads_back(ws, inverse, x):
    """Compact and big Cyrillic, as the firmware draws it, reads back as written:
    letters drawn like Latin ones become Cyrillic again inside a Russian word."""
    assume(all(any("\u0400" <= ch <= "\u04ff" and ch not in "АВЕКМНОРСТХаеорсух"
                   for ch in w) for w in ws))
    s = " ".join(ws)[:oled.COLS - 1]
    big = " ".join(ws)[:16]
    assume(s.split() == ws[:len(s.split())] and big.split() == ws[:len(big.split())])
    c = Canvas()
    if inverse:
        c.fill_rect(0, 20, 128, 9, 1)
    oled.small_text(c, s, x, 20, 0 if inverse else 1)
    oled.big_text(c, big, 0, 40)
    assert oledtext.lines(c.hex()) == [" ".join(s.split()), " ".join(big.split())]


words = st.text(alphabet=PRINTABLE, min_size=1, max_size=6)


@settings(max_examples=150, deadline=None)
@given(st.lists(words, min_size=1, max_size=3), st.booleans(), st.integers(0, 5))
def test_compact_text_reads_back(ws, inverse, x):
    s = " ".join(ws)[:oled.COLS - 1]
    assume(any(ch.isalnum() for ch in s))   # a line of only dots and dashes is no text
    c = Canvas()
    if inverse:
        c.fill_rect(0, 20, 128, 9, 1)
    oled.small_text(c, s, x, 20, 0 if inverse else 1)
    assert oledtext.lines(c.hex()) == [" ".join(s.split())]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet=PRINTABLE, min_size=1, max_size=4), min_size=1,
                max_size=3))
def test_big_and_compact_lines_read_back(ws):
    big = " ".join(ws)[:16]
    small = " ".join(reversed(ws))[:21]
    assume(any(ch.isalnum() for ch in big) and any(ch.isalnum() for ch in small))
    c = Canvas()
    oled.big_text(c, big, 0, 0)
    oled.small_text(c, small, 0, 30)
    assert oledtext.lines(c.hex()) == [" ".join(big.split()), " ".join(small.split())]


def _golden_hex(path):
    c = Canvas()
    with open(path) as f:
        for y, row in enumerate(f.read().split("\n")[:64]):
            for x, ch in enumerate(row):
                c.px[y][x] = 1 if ch == "#" else 0
    return c.hex()


def test_golden_screens_read_as_drawn():
    screens = {os.path.basename(p)[:-4]: oledtext.text(_golden_hex(p))
               for p in glob.glob(os.path.join(HERE, "..", "firmware", "golden", "*.txt"))}
    assert "Opponent: hold OK to\naccept, BACK to take\nback" in screens["verdict"]
    assert screens["verdict"].startswith("! ")
    assert "Opening roll" in screens["opening"] and "0-0/1" in screens["opening"]
    assert "All dice played\nOK: end turn" in screens["turn_done"]
    assert "Set up board" in screens["setup"]
    assert "To place: white 15," in screens["setup"]


def test_png_of_a_golden_screen(tmp_path):
    import struct
    import zlib
    src = os.path.join(HERE, "..", "firmware", "golden", "verdict.txt")
    assert oledtext.main([str(tmp_path), src]) == 0
    data = (tmp_path / "oled-verdict.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    w, h = struct.unpack(">II", data[16:24])
    assert (w, h) == (512, 256)
    n = struct.unpack(">I", data[33:37])[0]
    raw = zlib.decompress(data[41:41 + n])
    assert len(raw) == h * (1 + 3 * w)
    # top-left of the warning bar is lit, the bottom-right corner dark
    assert raw[1:4] == bytes(oledtext._LIT) and raw[-3:] == bytes(oledtext._DARK)
    bad = tmp_path / "bad.txt"
    bad.write_text("#.#\n")
    assert oledtext.main([str(tmp_path), str(bad)]) == 2
    assert oledtext.main([str(tmp_path)]) == 2
