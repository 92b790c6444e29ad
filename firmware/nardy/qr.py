"""A QR code (ISO/IEC 18004) for the OLED: byte mode, error correction level L,
versions 1 to 4 (up to 78 bytes: a Wi-Fi network's name and password, which a
phone joins by scanning).

Layer: ui. Imports nothing but ``micropython.const``; loaded only while a code is
shown, and holds one bytearray of the modules (33 x 33 at most) while it runs.
"""

from micropython import const  # CPython: the shim nardy/__init__.py installs

# per version 1..4 at level L (one block each): (data codewords, EC codewords)
_BLOCKS = const(((19, 7), (34, 10), (55, 15), (80, 20)))
_FORMAT_L = const(1)            # the level's two bits (L = 01)


def _gf_tables():
    exp = bytearray(512)
    log = bytearray(256)
    x = 1
    for i in range(255):
        exp[i] = x
        log[x] = i
        x <<= 1
        if x & 0x100:
            x ^= 0x11D
    for i in range(255, 512):
        exp[i] = exp[i - 255]
    return exp, log


def _ec(data, n, exp, log):
    """Reed-Solomon: the ``n`` error-correction codewords of ``data``."""
    gen = bytearray([1])            # the generator: (x - a^0)...(x - a^(n-1))
    for i in range(n):
        nxt = bytearray(len(gen) + 1)
        for j in range(len(gen)):
            nxt[j] ^= gen[j]
            if gen[j]:
                nxt[j + 1] ^= exp[log[gen[j]] + i]
        gen = nxt
    rem = bytearray(n)
    for d in data:
        f = d ^ rem[0]
        rem[:-1] = rem[1:]
        rem[-1] = 0
        if f:
            lf = log[f]
            for j in range(n):
                if gen[j + 1]:
                    rem[j] ^= exp[lf + log[gen[j + 1]]]
    return rem


def _codewords(text):
    """(version, data + EC codewords) for bytes ``text``; ValueError if too long."""
    for v in range(1, 5):
        nd, ne = _BLOCKS[v - 1]
        if len(text) + 2 <= nd:         # mode and count: 12 bits, the terminator
            break
    else:
        raise ValueError("QR: at most %d bytes" % (_BLOCKS[3][0] - 2))
    bits = bytearray()

    def put(val, k):
        for i in range(k - 1, -1, -1):
            bits.append((val >> i) & 1)

    put(4, 4)                   # byte mode
    put(len(text), 8)
    for c in text:
        put(c, 8)
    put(0, min(4, nd * 8 - len(bits)))
    while len(bits) % 8:
        bits.append(0)
    data = bytearray(nd)
    for i in range(len(bits) // 8):
        b = 0
        for j in range(8):
            b = b << 1 | bits[i * 8 + j]
        data[i] = b
    for i in range(len(bits) // 8, nd):
        data[i] = 0xEC if (i - len(bits) // 8) % 2 == 0 else 0x11
    exp, log = _gf_tables()
    return v, data + _ec(data, ne, exp, log)


class Code:
    """The modules of a QR code: ``size`` x ``size``, ``dark(row, col)``."""

    def __init__(self, text, mask=None):
        """``mask`` 0..7, or None: the one with the lowest penalty (ISO 18004's
        rules, which keep a code easy to read)."""
        if isinstance(text, str):
            text = text.encode()
        v, words = _codewords(text)
        self.version = v
        n = self.size = 17 + 4 * v
        self.m = bytearray(n * n)       # bit 0: dark; bit 1: a function module
        self._function_patterns()
        self._place(words)
        if mask is None:
            best = None
            for k in range(8):
                self._mask(k)
                self._format(k)
                p = self.penalty()
                if best is None or p < best:
                    best = p
                    mask = k
                self._mask(k)           # (a mask undoes itself)
        self.mask = mask
        self._mask(mask)
        self._format(mask)

    def penalty(self):
        """ISO 18004's penalty: runs of five or more, 2x2 blocks, finder-like
        patterns, and dark modules far from half."""
        n = self.size
        total = 0
        dark = 0
        for line in range(2 * n):
            run = 0
            prev = -1
            hist = 0                # the last 11 modules, as bits
            for i in range(n):
                d = self.dark(line, i) if line < n else self.dark(i, line - n)
                dark += d if line < n else 0
                if d == prev:
                    run += 1
                    if run == 5:
                        total += 3
                    elif run > 5:
                        total += 1
                else:
                    run = 1
                    prev = d
                hist = (hist << 1 | d) & 0x7FF
                if i >= 10 and hist in (0x5D0, 0x05D):     # 1011101 with 0000
                    total += 40
        for r in range(n - 1):
            for c in range(n - 1):
                d = self.dark(r, c)
                if d == self.dark(r, c + 1) == self.dark(r + 1, c) == self.dark(r + 1, c + 1):
                    total += 3
        k = abs(dark * 20 - n * n * 10) // (n * n)      # steps of 5% from half
        return total + 10 * k

    def dark(self, r, c):
        return self.m[r * self.size + c] & 1

    def _set(self, r, c, d):
        self.m[r * self.size + c] = 2 | (1 if d else 0)

    def _finder(self, r0, c0):
        n = self.size
        for r in range(-1, 8):
            for c in range(-1, 8):
                rr = r0 + r
                cc = c0 + c
                if 0 <= rr < n and 0 <= cc < n:
                    ring = max(abs(r - 3), abs(c - 3))
                    self._set(rr, cc, ring != 2 and ring != 4)

    def _function_patterns(self):
        n = self.size
        self._finder(0, 0)
        self._finder(0, n - 7)
        self._finder(n - 7, 0)
        for i in range(8, n - 8):           # timing patterns
            self._set(6, i, i % 2 == 0)
            self._set(i, 6, i % 2 == 0)
        if self.version > 1:                # one alignment pattern (versions 2..6)
            a = n - 7
            for r in range(-2, 3):
                for c in range(-2, 3):
                    self._set(a + r, a + c, max(abs(r), abs(c)) != 1)
        for i in range(9):                  # the format's places, kept free
            for r, c in ((8, i), (i, 8)):
                if not self.m[r * n + c] & 2:
                    self._set(r, c, 0)
        for i in range(8):
            self._set(8, n - 1 - i, 0)
            self._set(n - 1 - i, 8, 0)
        self._set(n - 8, 8, 1)              # the dark module

    def _place(self, words):
        n = self.size
        m = self.m
        i = 0
        total = len(words) * 8
        up = True
        col = n - 1
        while col > 0:
            if col == 6:
                col -= 1                    # the vertical timing pattern
            for k in range(n):
                r = n - 1 - k if up else k
                for c in (col, col - 1):
                    if m[r * n + c] & 2:
                        continue
                    d = 0
                    if i < total:
                        d = (words[i >> 3] >> (7 - (i & 7))) & 1
                    i += 1
                    m[r * n + c] = d
            up = not up
            col -= 2

    def _mask(self, mask):
        n = self.size
        m = self.m
        for r in range(n):
            for c in range(n):
                if m[r * n + c] & 2:
                    continue
                if _flip(mask, r, c):
                    m[r * n + c] ^= 1

    def _format(self, mask):
        n = self.size
        d = _FORMAT_L << 3 | mask
        rem = d << 10
        for i in range(14, 9, -1):          # BCH(15, 5), generator 0x537
            if rem & (1 << i):
                rem ^= 0x537 << (i - 10)
        bits = (d << 10 | rem) ^ 0x5412
        for i in range(15):
            b = (bits >> i) & 1
            # around the top-left finder
            if i < 6:
                self._set(i, 8, b)
            elif i < 8:
                self._set(i + 1, 8, b)
            elif i == 8:
                self._set(8, 7, b)
            else:
                self._set(8, 14 - i, b)
            # beside the other two
            if i < 8:
                self._set(8, n - 1 - i, b)
            else:
                self._set(n - 15 + i, 8, b)


def _flip(mask, r, c):
    if mask == 0:
        return (r + c) % 2 == 0
    if mask == 1:
        return r % 2 == 0
    if mask == 2:
        return c % 3 == 0
    if mask == 3:
        return (r + c) % 3 == 0
    if mask == 4:
        return (r // 2 + c // 3) % 2 == 0
    if mask == 5:
        return (r * c) % 2 + (r * c) % 3 == 0
    if mask == 6:
        return ((r * c) % 2 + (r * c) % 3) % 2 == 0
    return ((r + c) % 2 + (r * c) % 3) % 2 == 0


def draw(fb, code, x, y, scale=2, quiet=2):
    """Draw ``code`` on a FrameBuffer: dark modules unlit on a lit square with a
    quiet zone of ``quiet`` modules (a phone reads dark on light). Returns the
    square's side in pixels."""
    side = (code.size + 2 * quiet) * scale
    fb.fill_rect(x, y, side, side, 1)
    ox = x + quiet * scale
    oy = y + quiet * scale
    for r in range(code.size):
        for c in range(code.size):
            if code.dark(r, c):
                fb.fill_rect(ox + c * scale, oy + r * scale, scale, scale, 0)
    return side


def wifi_text(ssid, password):
    """The text phones read as Wi-Fi credentials (WPA), with ``\\ ; , : "`` escaped."""
    def esc(s):
        out = ""
        for ch in s:
            if ch in '\\;,:"':
                out += "\\"
            out += ch
        return out
    return "WIFI:T:WPA;S:%s;P:%s;;" % (esc(ssid), esc(password))


def draw_join(fb, ssid, password):
    """The OLED's "join the board's Wi-Fi" screen (128 x 64): the network and the
    password in text on the left, their QR code on the right (scale 2 with a
    one-module quiet zone where it fits: 62 pixels for up to 53 bytes)."""
    fb.fill(0)
    code = Code(wifi_text(ssid, password))
    scale = 2 if (code.size + 2) * 2 <= 64 else 1
    side = (code.size + 2) * scale
    draw(fb, code, 128 - side, (64 - side) // 2, scale, 1)
    fb.text("Wi-Fi", 0, 0, 1)
    y = 12
    for part in (ssid, password):
        for i in range(0, len(part), 8):
            fb.text(part[i:i + 8], 0, y, 1)
            y += 9
        y += 3
    return code
