"""The compact font's Cyrillic letters for the OLED, and how they are drawn
(``nardy.oled`` imports this module the first time it draws a character outside
ASCII: an English board never loads it).

``GLYPHS``: А..я (U+0410..U+044F) in code point order, five column bytes a glyph,
least significant bit at the top (framebuf.MONO_VLSB), as ``nardy.oled.GLYPHS`` holds
ASCII; read in place (320 bytes, a constant of the module). Letters drawn like Latin
ones (А, В, Е, ..., а, е, о, ...) repeat the Latin glyph: drawing needs no lookup.
nardy_host.oledtext.CYR_ART is the same font as pixel art (a host test checks they
agree, and that the reader tells every other letter apart).
"""

try:
    import framebuf
except ImportError:   # CPython: drawn pixel by pixel
    framebuf = None

FIRST = 0x410   # А
GLYPHS = (
    b"\x7e\x09\x09\x09\x7e\x7f\x49\x49\x49\x31\x7f\x49\x49\x49\x36\x7f\x01\x01\x01\x01"  # АБВГ
    b"\x60\x3e\x21\x21\x7f\x7f\x49\x49\x49\x41\x63\x14\x7f\x14\x63\x22\x49\x49\x49\x36"  # ДЕЖЗ
    b"\x7f\x10\x08\x04\x7f\x7c\x11\x09\x05\x7c\x7f\x08\x14\x22\x41\x40\x3e\x01\x01\x7f"  # ИЙКЛ
    b"\x7f\x02\x0c\x02\x7f\x7f\x08\x08\x08\x7f\x3e\x41\x41\x41\x3e\x7f\x01\x01\x01\x7f"  # МНОП
    b"\x7f\x09\x09\x09\x06\x3e\x41\x41\x41\x22\x01\x01\x7f\x01\x01\x27\x48\x48\x48\x3f"  # РСТУ
    b"\x1c\x22\x7f\x22\x1c\x63\x14\x08\x14\x63\x7f\x40\x40\x7f\xc0\x07\x08\x08\x08\x7f"  # ФХЦЧ
    b"\x7f\x40\x7f\x40\x7f\x7f\x40\x7f\x40\xff\x01\x7f\x48\x48\x30\x7f\x48\x30\x00\x7f"  # ШЩЪЫ
    b"\x7f\x48\x48\x48\x30\x22\x41\x49\x49\x3e\x7f\x08\x3e\x41\x3e\x46\x29\x19\x09\x7f"  # ЬЭЮЯ
    b"\x20\x54\x54\x54\x78\x3c\x4a\x4a\x49\x31\x7c\x54\x54\x54\x28\x7c\x04\x04\x04\x04"  # абвг
    b"\x60\x38\x24\x3c\x60\x38\x54\x54\x54\x18\x6c\x10\x7c\x10\x6c\x28\x44\x54\x54\x28"  # дежз
    b"\x7c\x20\x10\x08\x7c\x7c\x21\x11\x09\x7c\x7c\x10\x10\x28\x44\x40\x38\x04\x04\x7c"  # ийкл
    b"\x7c\x08\x10\x08\x7c\x7c\x10\x10\x10\x7c\x38\x44\x44\x44\x38\x7c\x04\x04\x04\x7c"  # мноп
    b"\xfc\x24\x24\x24\x18\x38\x44\x44\x44\x20\x04\x04\x7c\x04\x04\x1c\xa0\xa0\xa0\x7c"  # рсту
    b"\x18\x24\xff\x24\x18\x44\x28\x10\x28\x44\x7c\x40\x40\x7c\xc0\x0c\x10\x10\x10\x7c"  # фхцч
    b"\x7c\x40\x7c\x40\x7c\x7c\x40\x7c\x40\xfc\x04\x7c\x50\x50\x20\x7c\x50\x20\x00\x7c"  # шщъы
    b"\x7c\x50\x50\x50\x20\x00\x44\x54\x54\x38\x7c\x10\x38\x44\x38\x48\x34\x14\x14\x7c"  # ьэюя
)

_FB = None if framebuf is None else (GLYPHS, len(GLYPHS), 8, framebuf.MONO_VLSB)


def code(b, i):
    """The code point of the UTF-8 sequence that starts at ``b[i]`` (a byte over
    127), and the index after it."""
    o = b[i]
    if o < 0xE0:
        return ((o & 0x1F) << 6) | (b[i + 1] & 0x3F), i + 2
    if o < 0xF0:
        return ((o & 0x0F) << 12) | ((b[i + 1] & 0x3F) << 6) | (b[i + 2] & 0x3F), i + 3
    return (((o & 0x07) << 18) | ((b[i + 1] & 0x3F) << 12) | ((b[i + 2] & 0x3F) << 6)
            | (b[i + 3] & 0x3F)), i + 4


def glyph(o, ascii_glyphs, ascii_fb):
    """(font table, blit source, offset) of the code point ``o`` (not ASCII) in the
    compact font: its Cyrillic letter (Ё, ё as Е, е), or "?" of the ASCII font the
    caller passes (``nardy.oled``'s table ``ascii_glyphs``, blit source ``ascii_fb``:
    this module never imports its owner back) for a character the font has no glyph
    of. (A code point, not a character: see ``nardy.oled.small_text``.)"""
    if o == 0x401 or o == 0x451:
        o += 0x14 if o == 0x401 else -0x1C
    if FIRST <= o < FIRST + 64:
        return GLYPHS, _FB, 5 * (o - FIRST)
    return ascii_glyphs, ascii_fb, 5 * 31


def big(fb, o, x, y, c, ascii_glyphs, ascii_fb):
    """The code point ``o`` in an 8x8 cell, bold as framebuf's own font is, only its lit pixels
    (as framebuf's ``text``), pixel by pixel: a few big titles in Russian keep no
    buffer for it. Bold: a lit pixel also lights its right neighbour unless that
    closes a one-pixel gap (Ш, Ж keep their strokes apart;
    nardy_host.oledtext.bold_column reads it back)."""
    g, _, o = glyph(o, ascii_glyphs, ascii_fb)
    prev = 0
    for i in range(6):
        cur = g[o + i] if i < 5 else 0
        nxt = g[o + i + 1] if i < 4 else 0
        col = cur | (prev & ~nxt & 0xFF)
        prev = cur
        for r in range(8):
            if (col >> r) & 1:
                fb.pixel(x + 1 + i, y + r, c)
