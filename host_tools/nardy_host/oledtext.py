"""Read the text on the OLED back from its framebuffer (the virtual board's ``oled``
events): the firmware writes with MicroPython's built-in 8x8 font, so every text
cell is an exact glyph, black on white or (warnings) white on black.

``lines(fb_hex)`` gives the text lines found, top to bottom. The glyph table below
is MicroPython's font as ``framebuf.FrameBuffer.text`` draws it (column bytes, LSB
at the top); tests/host/test_script.py checks it against the real ``framebuf``.
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

GLYPHS = {}
for _i, _h in enumerate(FONT_HEX.split()):
    GLYPHS.setdefault(bytes.fromhex(_h), chr(32 + _i))
_INVERSE = {bytes(255 - b for b in k): v for k, v in GLYPHS.items()}


def pixels(fb_hex, w=W, h=H):
    """Rows of 0/1 from SSD1306 MONO_VLSB bytes."""
    fb = bytes.fromhex(fb_hex)
    return [[(fb[(y // 8) * w + x] >> (y % 8)) & 1 for x in range(w)] for y in range(h)]


def _cell(px, x, y):
    out = bytearray(8)
    for c in range(8):
        v = 0
        for r in range(8):
            if px[y + r][x + c]:
                v |= 1 << r
        out[c] = v
    return bytes(out)


def lines(fb_hex, w=W, h=H):
    px = pixels(fb_hex, w, h)
    rows = []
    for y in range(h - 7):
        cells = []
        hits = 0
        for x in range(0, w - 7, 8):
            c = _cell(px, x, y)
            g = GLYPHS.get(c)
            if g is None:
                g = _INVERSE.get(c)
            if g is None:
                cells.append("\0")
            else:
                cells.append(g)
                if g not in " _-":   # a bar or underline also matches a filled area
                    hits += 1
        rows.append((hits, y, cells))
    taken = []
    for hits, y, cells in sorted(rows, key=lambda r: (-r[0], r[1])):
        if hits == 0:
            break
        if any(abs(y - t) < 8 for t, _ in taken):
            continue
        taken.append((y, cells))
    out = []
    for _, cells in sorted(taken):
        text = "".join(cells).replace("\0", " ").rstrip()
        out.append(text)
    return out


def text(fb_hex):
    return "\n".join(lines(fb_hex))
