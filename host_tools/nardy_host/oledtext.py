"""Read the text on the OLED back from its framebuffer (the virtual board's ``oled``
events): the firmware writes with MicroPython's built-in 8x8 font (big text) and its
own compact 5x7 font (``nardy.oled.GLYPHS``, 6x8 cells; Cyrillic from
``nardy.cyrillic``, compact and, in big text, made bold), so every text cell is an
exact glyph, lit on dark or (warnings) dark on lit.

``lines(fb_hex)`` gives the text lines found, top to bottom; a run of blank columns
between glyphs reads as one space. ``FONT_HEX`` is MicroPython's font as
``framebuf.FrameBuffer.text`` draws it (column bytes, LSB at the top);
tests/host/test_script.py checks it against the real ``framebuf``. ``SMALL_ART`` is
the compact font drawn as pixel art (rows top to bottom, ``#`` lit, an eighth row
for descenders): ``nardy.oled.GLYPHS`` is built from it (tests/host/test_oledtext.py
checks the two agree).
"""

W = 128
H = 64

FONT_HEX = (
    "0000000000000000 0000004f4f000000 0007070000070700 147f7f14147f7f14 00242e6b6b3a1200 "
    "006333180c666300 00327f4d4d777250 0000000406030100 00001c3e63410000 000041633e1c0000 "
    "082a3e1c1c3e2a08 0008083e3e080800 000080e060000000 0008080808080800 0000006060000000 "
    "00406030180c0602 003e7f49457f3e00 0040447f7f404000 00627351494f4600 00226349497f3600 "
    "00181814167f7f10 00276745457d3900 003e7f49497b3200 000303797d070300 00367f49497f3600 "
    "00266f49497f3e00 0000002424000000 000080e464000000 00081c3663414100 0014141414141400 "
    "00414163361c0800 00020351590f0600 003e7f414d4f2e00 007c7e0b0b7e7c00 007f7f49497f3600 "
    "003e7f4141632200 007f7f41633e1c00 007f7f4949414100 007f7f0909010100 003e7f41497b3a00 "
    "007f7f08087f7f00 0000417f7f410000 002060417f3f0100 007f7f1c36634100 007f7f4040404000 "
    "007f7f060c067f7f 007f7f0e1c7f7f00 003e7f41417f3e00 007f7f09090f0600 001e3f21617f5e00 "
    "007f7f19396f4600 00266f49497b3200 0001017f7f010100 003f7f40407f3f00 001f3f60603f1f00 "
    "007f7f3018307f7f 0063771c1c776300 00070f78780f0700 006171594d474300 00007f7f41410000 "
    "0002060c18306040 000041417f7f0000 00080c06060c0800 c0c0c0c0c0c0c0c0 0000010306040000 "
    "00207454547c7800 007f7f44447c3800 00387c44446c2800 00387c44447f7f00 00387c54545c5800 "
    "00087e7f09030200 0098bca4a4fc7c00 007f7f04047c7800 0000007d7d000000 0040c08080fd7d00 "
    "007f7f30386c4400 0000417f7f400000 007c7c1830187c7c 007c7c04047c7800 00387c44447c3800 "
    "00fcfc24243c1800 00183c2424fcfc00 007c7c04040c0800 00485c5454742000 04043f7f44642000 "
    "003c7c40407c3c00 001c3c60603c1c00 001c7c3018307c1c 00446c38386c4400 009cbca0a0fc7c00 "
    "004464745c4c4400 0008083e77414100 000000ffff000000 004141773e080800 0002030103020301 "
)

SMALL_ART = {
    ' ': '.....|.....|.....|.....|.....|.....|.....',
    '!': '..#..|..#..|..#..|..#..|..#..|.....|..#..',
    '"': '.#.#.|.#.#.|.....|.....|.....|.....|.....',
    '#': '.#.#.|#####|.#.#.|.#.#.|.#.#.|#####|.#.#.',
    '$': '..#..|.####|#.#..|.###.|..#.#|####.|..#..',
    '%': '##...|##..#|...#.|..#..|.#...|#..##|...##',
    '&': '.##..|#..#.|#.#..|.#...|#.#.#|#..#.|.##.#',
    "'": '..#..|..#..|.....|.....|.....|.....|.....',
    '(': '...#.|..#..|.#...|.#...|.#...|..#..|...#.',
    ')': '.#...|..#..|...#.|...#.|...#.|..#..|.#...',
    '*': '.....|..#..|#.#.#|.###.|#.#.#|..#..|.....',
    '+': '.....|..#..|..#..|#####|..#..|..#..|.....',
    ',': '.....|.....|.....|.....|.....|..#..|..#..|.#...',
    '-': '.....|.....|.....|#####|.....|.....|.....',
    '.': '.....|.....|.....|.....|.....|.....|..#..',
    '/': '.....|....#|...#.|..#..|.#...|#....|.....',
    '0': '.###.|#...#|#..##|#.#.#|##..#|#...#|.###.',
    '1': '..#..|.##..|..#..|..#..|..#..|..#..|.###.',
    '2': '.###.|#...#|....#|...#.|..#..|.#...|#####',
    '3': '#####|...#.|..#..|...#.|....#|#...#|.###.',
    '4': '...#.|..##.|.#.#.|#..#.|#####|...#.|...#.',
    '5': '#####|#....|####.|....#|....#|#...#|.###.',
    '6': '..##.|.#...|#....|####.|#...#|#...#|.###.',
    '7': '#####|....#|...#.|..#..|.#...|.#...|.#...',
    '8': '.###.|#...#|#...#|.###.|#...#|#...#|.###.',
    '9': '.###.|#...#|#...#|.####|....#|...#.|.##..',
    ':': '.....|.....|..#..|.....|.....|..#..|.....',
    ';': '.....|.....|..#..|.....|.....|..#..|..#..|.#...',
    '<': '...#.|..#..|.#...|#....|.#...|..#..|...#.',
    '=': '.....|.....|#####|.....|#####|.....|.....',
    '>': '.#...|..#..|...#.|....#|...#.|..#..|.#...',
    '?': '.###.|#...#|....#|...#.|..#..|.....|..#..',
    '@': '.###.|#...#|....#|.##.#|#.#.#|#.#.#|.###.',
    'A': '.###.|#...#|#...#|#####|#...#|#...#|#...#',
    'B': '####.|#...#|#...#|####.|#...#|#...#|####.',
    'C': '.###.|#...#|#....|#....|#....|#...#|.###.',
    'D': '###..|#..#.|#...#|#...#|#...#|#..#.|###..',
    'E': '#####|#....|#....|####.|#....|#....|#####',
    'F': '#####|#....|#....|####.|#....|#....|#....',
    'G': '.###.|#...#|#....|#.###|#...#|#...#|.####',
    'H': '#...#|#...#|#...#|#####|#...#|#...#|#...#',
    'I': '.###.|..#..|..#..|..#..|..#..|..#..|.###.',
    'J': '..###|...#.|...#.|...#.|...#.|#..#.|.##..',
    'K': '#...#|#..#.|#.#..|##...|#.#..|#..#.|#...#',
    'L': '#....|#....|#....|#....|#....|#....|#####',
    'M': '#...#|##.##|#.#.#|#.#.#|#...#|#...#|#...#',
    'N': '#...#|#...#|##..#|#.#.#|#..##|#...#|#...#',
    'O': '.###.|#...#|#...#|#...#|#...#|#...#|.###.',
    'P': '####.|#...#|#...#|####.|#....|#....|#....',
    'Q': '.###.|#...#|#...#|#...#|#.#.#|#..#.|.##.#',
    'R': '####.|#...#|#...#|####.|#.#..|#..#.|#...#',
    'S': '.####|#....|#....|.###.|....#|....#|####.',
    'T': '#####|..#..|..#..|..#..|..#..|..#..|..#..',
    'U': '#...#|#...#|#...#|#...#|#...#|#...#|.###.',
    'V': '#...#|#...#|#...#|#...#|#...#|.#.#.|..#..',
    'W': '#...#|#...#|#...#|#.#.#|#.#.#|#.#.#|.#.#.',
    'X': '#...#|#...#|.#.#.|..#..|.#.#.|#...#|#...#',
    'Y': '#...#|#...#|#...#|.#.#.|..#..|..#..|..#..',
    'Z': '#####|....#|...#.|..#..|.#...|#....|#####',
    '[': '.###.|.#...|.#...|.#...|.#...|.#...|.###.',
    '\\': '.....|#....|.#...|..#..|...#.|....#|.....',
    ']': '.###.|...#.|...#.|...#.|...#.|...#.|.###.',
    '^': '..#..|.#.#.|#...#|.....|.....|.....|.....',
    '_': '.....|.....|.....|.....|.....|.....|.....|#####',
    '`': '.#...|..#..|.....|.....|.....|.....|.....',
    'a': '.....|.....|.###.|....#|.####|#...#|.####',
    'b': '#....|#....|####.|#...#|#...#|#...#|####.',
    'c': '.....|.....|.###.|#....|#....|#...#|.###.',
    'd': '....#|....#|.####|#...#|#...#|#...#|.####',
    'e': '.....|.....|.###.|#...#|#####|#....|.###.',
    'f': '..##.|.#..#|.#...|###..|.#...|.#...|.#...',
    'g': '.....|.....|.####|#...#|#...#|.####|....#|.###.',
    'h': '#....|#....|#.##.|##..#|#...#|#...#|#...#',
    'i': '..#..|.....|.##..|..#..|..#..|..#..|.###.',
    'j': '...#.|.....|..##.|...#.|...#.|...#.|#..#.|.##..',
    'k': '#....|#....|#..#.|#.#..|##...|#.#..|#..#.',
    'l': '.##..|..#..|..#..|..#..|..#..|..#..|.###.',
    'm': '.....|.....|##.#.|#.#.#|#.#.#|#.#.#|#.#.#',
    'n': '.....|.....|#.##.|##..#|#...#|#...#|#...#',
    'o': '.....|.....|.###.|#...#|#...#|#...#|.###.',
    'p': '.....|.....|####.|#...#|#...#|####.|#....|#....',
    'q': '.....|.....|.####|#...#|#...#|.####|....#|....#',
    'r': '.....|.....|#.##.|##..#|#....|#....|#....',
    's': '.....|.....|.####|#....|.###.|....#|####.',
    't': '.#...|.#...|###..|.#...|.#...|.#..#|..##.',
    'u': '.....|.....|#...#|#...#|#...#|#..##|.##.#',
    'v': '.....|.....|#...#|#...#|#...#|.#.#.|..#..',
    'w': '.....|.....|#...#|#...#|#.#.#|#.#.#|.#.#.',
    'x': '.....|.....|#...#|.#.#.|..#..|.#.#.|#...#',
    'y': '.....|.....|#...#|#...#|#...#|.####|....#|.###.',
    'z': '.....|.....|#####|...#.|..#..|.#...|#####',
    '{': '...#.|..#..|..#..|.#...|..#..|..#..|...#.',
    '|': '..#..|..#..|..#..|..#..|..#..|..#..|..#..',
    '}': '.#...|..#..|..#..|...#.|..#..|..#..|.#...',
    '~': '.....|.....|.#...|#.#.#|...#.|.....|.....',
}

# The compact font's Cyrillic letters, А..я (U+0410..U+044F; Ё and ё are drawn as Е
# and е), as pixel art in the same cells: ``nardy.cyrillic.GLYPHS`` is built from it
# (tests/host/test_oledtext.py checks the two agree). A letter drawn like a Latin one
# (А, В, Е, ..., а, е, о, ...) names that letter: the reader takes it as Latin and
# ``_cyrillic_words`` turns it back inside a Russian word.
CYR_ART = {
    'А': SMALL_ART['A'],
    'Б': '#####|#....|#....|####.|#...#|#...#|####.',
    'В': SMALL_ART['B'],
    'Г': '#####|#....|#....|#....|#....|#....|#....',
    'Д': '..###|.#..#|.#..#|.#..#|.#..#|#####|#...#',
    'Е': SMALL_ART['E'],
    'Ж': '#.#.#|#.#.#|.###.|..#..|.###.|#.#.#|#.#.#',
    'З': '.###.|#...#|....#|.###.|....#|#...#|.###.',
    'И': '#...#|#...#|#..##|#.#.#|##..#|#...#|#...#',
    'Й': '.###.|.....|#..##|#.#.#|##..#|#...#|#...#',
    'К': SMALL_ART['K'],
    'Л': '..###|.#..#|.#..#|.#..#|.#..#|.#..#|#...#',
    'М': SMALL_ART['M'],
    'Н': SMALL_ART['H'],
    'О': SMALL_ART['O'],
    'П': '#####|#...#|#...#|#...#|#...#|#...#|#...#',
    'Р': SMALL_ART['P'],
    'С': SMALL_ART['C'],
    'Т': SMALL_ART['T'],
    'У': '#...#|#...#|#...#|.####|....#|#...#|.###.',
    'Ф': '..#..|.###.|#.#.#|#.#.#|#.#.#|.###.|..#..',
    'Х': SMALL_ART['X'],
    'Ц': '#..#.|#..#.|#..#.|#..#.|#..#.|#..#.|#####|....#',
    'Ч': '#...#|#...#|#...#|.####|....#|....#|....#',
    'Ш': '#.#.#|#.#.#|#.#.#|#.#.#|#.#.#|#.#.#|#####',
    'Щ': '#.#.#|#.#.#|#.#.#|#.#.#|#.#.#|#.#.#|#####|....#',
    'Ъ': '##...|.#...|.#...|.###.|.#..#|.#..#|.###.',
    'Ы': '#...#|#...#|#...#|##..#|#.#.#|#.#.#|##..#',
    'Ь': '#....|#....|#....|####.|#...#|#...#|####.',
    'Э': '.###.|#...#|....#|..###|....#|#...#|.###.',
    'Ю': '#..#.|#.#.#|#.#.#|###.#|#.#.#|#.#.#|#..#.',
    'Я': '.####|#...#|#...#|.####|..#.#|.#..#|#...#',
    'а': SMALL_ART['a'],
    'б': '...##|.##..|#....|####.|#...#|#...#|.###.',
    'в': '.....|.....|####.|#...#|####.|#...#|####.',
    'г': '.....|.....|#####|#....|#....|#....|#....',
    'д': '.....|.....|..##.|.#.#.|.#.#.|#####|#...#',
    'е': SMALL_ART['e'],
    'ж': '.....|.....|#.#.#|#.#.#|.###.|#.#.#|#.#.#',
    'з': '.....|.....|.###.|#...#|..##.|#...#|.###.',
    'и': '.....|.....|#...#|#..##|#.#.#|##..#|#...#',
    'й': '.###.|.....|#...#|#..##|#.#.#|##..#|#...#',
    'к': '.....|.....|#...#|#..#.|###..|#..#.|#...#',
    'л': '.....|.....|..###|.#..#|.#..#|.#..#|#...#',
    'м': '.....|.....|#...#|##.##|#.#.#|#...#|#...#',
    'н': '.....|.....|#...#|#...#|#####|#...#|#...#',
    'о': SMALL_ART['o'],
    'п': '.....|.....|#####|#...#|#...#|#...#|#...#',
    'р': SMALL_ART['p'],
    'с': SMALL_ART['c'],
    'т': '.....|.....|#####|..#..|..#..|..#..|..#..',
    'у': SMALL_ART['y'],
    'ф': '..#..|..#..|.###.|#.#.#|#.#.#|.###.|..#..|..#..',
    'х': SMALL_ART['x'],
    'ц': '.....|.....|#..#.|#..#.|#..#.|#..#.|#####|....#',
    'ч': '.....|.....|#...#|#...#|.####|....#|....#',
    'ш': '.....|.....|#.#.#|#.#.#|#.#.#|#.#.#|#####',
    'щ': '.....|.....|#.#.#|#.#.#|#.#.#|#.#.#|#####|....#',
    'ъ': '.....|.....|##...|.#...|.###.|.#..#|.###.',
    'ы': '.....|.....|#...#|#...#|##..#|#.#.#|##..#',
    'ь': '.....|.....|#....|#....|####.|#...#|####.',
    'э': '.....|.....|.###.|....#|..###|....#|.###.',
    'ю': '.....|.....|#..#.|#.#.#|###.#|#.#.#|#..#.',
    'я': '.....|.....|.####|#...#|.####|.#..#|#...#',
}


def small_columns(ch):
    """The compact glyph of ``ch`` (ASCII or Cyrillic) as 5 column bytes (LSB at the
    top)."""
    rows = (SMALL_ART.get(ch) or CYR_ART[ch]).split("|")
    out = bytearray(5)
    for y, r in enumerate(rows):
        for x in range(5):
            if r[x] == "#":
                out[x] |= 1 << y
    return bytes(out)


def big_columns(ch):
    """The 8x8 cell ``nardy.oled.big_text`` draws for a Cyrillic letter: the compact
    glyph made bold (``bold_column``) in columns 1..6, like framebuf's own font."""
    g = small_columns(ch)
    return bytes([0] + [bold_column(g, i) for i in range(6)] + [0])


def bold_column(g, i):
    """Column ``i`` (0..5) of glyph ``g`` (5 column bytes) drawn bold: each lit pixel
    also lights the pixel to its right, unless that would close a one-pixel gap
    (Ш, Ж keep their strokes apart). nardy.cyrillic.big does the same."""
    cur = g[i] if i < 5 else 0
    prev = g[i - 1] if i > 0 else 0
    nxt = g[i + 1] if i < 4 else 0
    return cur | (prev & ~nxt & 0xFF)


GLYPHS = {}
for _i, _h in enumerate(FONT_HEX.split()):
    GLYPHS.setdefault(bytes.fromhex(_h), chr(32 + _i))
for _c in CYR_ART:                 # a letter drawn like a Latin one reads as Latin
    GLYPHS.setdefault(big_columns(_c), _c)
_INVERSE = {bytes(255 - b for b in k): v for k, v in GLYPHS.items()}
SMALL = {small_columns(_c) + b"\0": _c for _c in SMALL_ART}
for _c in CYR_ART:
    SMALL.setdefault(small_columns(_c) + b"\0", _c)
_SMALL_INVERSE = {bytes(255 - b for b in k): v for k, v in SMALL.items()}


def pixels(fb_hex, w=W, h=H):
    """Rows of 0/1 from SSD1306 MONO_VLSB bytes."""
    fb = bytes.fromhex(fb_hex)
    return [[(fb[(y // 8) * w + x] >> (y % 8)) & 1 for x in range(w)] for y in range(h)]


def _columns(px, y, w):
    """Column bytes of the 8 rows from ``y`` (LSB = row ``y``)."""
    out = bytearray(w)
    for r in range(8):
        row = px[y + r]
        bit = 1 << r
        for x in range(w):
            if row[x]:
                out[x] |= bit
    return bytes(out)


def _ink(cells, inverse):
    return sum(bin(255 - b if inverse else b).count("1") for b in cells)


def _read_row(cols, w):
    """(hits, ink, text) of one pixel row: glyphs left to right, big ones first.
    ``ink`` (pixels the glyphs explain) tells a glyph from the same glyph shifted up
    into a window that cuts its bottom row off ("P" two rows down reads as "p")."""
    out = []
    hits = 0
    ink = 0
    x = 0
    end = None            # where the last glyph ended
    while x < w:
        g = None
        c = b""
        if x + 8 <= w:
            c = cols[x:x + 8]
            g = GLYPHS.get(c) or _INVERSE.get(c)
            step = 8
        inverse = g is not None and c not in GLYPHS
        if g is None or g == " ":
            g = None
            if x + 6 <= w:
                c = cols[x:x + 6]
                g = SMALL.get(c)
                inverse = g is None
                if inverse:
                    g = _SMALL_INVERSE.get(c)
                step = 6
        if g is None or g == " ":
            x += 1
            continue
        if end is not None and x - end >= 3:
            out.append(" ")
        out.append(g)
        ink += _ink(c, inverse)
        if g not in "_-.,'":   # a bar, a rule or a dot also match plain shapes
            hits += 1
        x += step
        end = x
    return hits, ink, "".join(out)


# Cyrillic letters drawn like Latin ones, and the Latin letter each reads as
_LOOKALIKE = {small_columns(_c): _c for _c in SMALL_ART}
_AS_CYRILLIC = {}
for _c in CYR_ART:
    _l = _LOOKALIKE.get(small_columns(_c))
    if _l is not None:
        _AS_CYRILLIC[_l] = _c


def _cyrillic_words(text):
    """A word with a Cyrillic letter in it is Russian: its Latin look-alikes (read
    from glyphs both alphabets share) are the Cyrillic letters."""
    out = []
    for word in text.split(" "):
        if any("\u0400" <= ch <= "\u04ff" for ch in word):
            word = "".join(_AS_CYRILLIC.get(ch, ch) for ch in word)
        out.append(word)
    return " ".join(out)


def lines(fb_hex, w=W, h=H):
    px = pixels(fb_hex, w, h)
    rows = []
    for y in range(h - 7):
        hits, ink, text = _read_row(_columns(px, y, w), w)
        rows.append((hits, ink, y, text))
    taken = []
    for hits, _, y, text in sorted(rows, key=lambda r: (-r[0], -r[1], r[2])):
        if hits == 0:
            break
        if any(abs(y - t) < 8 for t, _ in taken):
            continue
        taken.append((y, text))
    return [_cyrillic_words(text) for _, text in sorted(taken)]


def text(fb_hex):
    return "\n".join(lines(fb_hex))


# -- pictures of screens (docs, bug reports) -------------------------------------------
_LIT = (150, 215, 255)       # an OLED's pale blue on black
_DARK = (0, 0, 0)


def png(rows, scale=4):
    """PNG bytes of a screen given as rows of 0/1 (``pixels``), each pixel ``scale``
    square, with a one-pixel gap so the panel's grid shows."""
    import struct
    import zlib

    h = len(rows)
    w = len(rows[0]) if rows else 0
    raw = bytearray()
    for y in range(h * scale):
        raw.append(0)
        r = rows[y // scale]
        for x in range(w * scale):
            lit = r[x // scale] and x % scale != scale - 1 and y % scale != scale - 1
            raw.extend(_LIT if lit else _DARK)

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    head = struct.pack(">IIBBBBB", w * scale, h * scale, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", head) +
            chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + chunk(b"IEND", b""))


def art_rows(text):
    """Rows of 0/1 from a golden screen's text art ('#' lit, '.' dark)."""
    return [[1 if ch == "#" else 0 for ch in ln] for ln in text.splitlines() if ln]


def main(argv=None):
    """``python -m nardy_host.oledtext OUT_DIR GOLDEN.txt...``: one PNG per screen
    (OUT_DIR/oled-NAME.png)."""
    import os
    import sys

    args = sys.argv[1:] if argv is None else argv
    if len(args) < 2:
        sys.stderr.write("usage: python -m nardy_host.oledtext OUT_DIR GOLDEN.txt...\n")
        return 2
    out = args[0]
    for path in args[1:]:
        try:
            with open(path) as f:
                rows = art_rows(f.read())
        except (OSError, UnicodeError) as e:
            sys.stderr.write("error: %s: %s\n" % (path, e))
            return 2
        if len(rows) != H or any(len(r) != W for r in rows):
            sys.stderr.write("error: %s: not a %dx%d screen\n" % (path, W, H))
            return 2
        name = os.path.splitext(os.path.basename(path))[0]
        dst = os.path.join(out, "oled-%s.png" % name)
        with open(dst, "wb") as f:
            f.write(png(rows))
        print(dst)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
