"""The position evaluator: a small integer neural net whose weights live in one
compact binary file (``firmware/weights/long.bin``, ``short.bin``). Pure: no I/O
beyond reading that file once into preallocated buffers (or, where the file lies
in memory-mapped flash, a ROMFS, none: the weights are read in place).

Inputs: for each side (the side to move first, then the other) and each of its own
path points k = 0 (bar) .. 25 (off), four features of the count c there: c >= 1,
c >= 2, c >= 3 and max(c - 3, 0) (the TD-Gammon encoding, in path points so both
games and both colours share it). 2 x 26 x 4 = 208 inputs, all small integers.

Two stages, because a double can have ~1,800 legal results:

- ``quick(pos)``: a linear score of the same inputs (its own scale), summed from
  the 208 int16 weights of the occupied points. The chooser keeps the best few
  results by this score (a pre-filter, fitted to the net's own values on the host).
- ``value(pos)``: the net, 208 -> H hidden (ReLU) -> 1, in integers: inputs times
  int16 weights (scale 2**Q1), ReLU, times int16 output weights (scale 2**Q2).
  Only occupied points cost anything (an empty point has all four inputs 0).

Both rate the position for the side to move, in points per game (cubeless equity)
times ``scale``; ``equity(pos)`` gives the float.

File format (little-endian; see ``host_tools/nardy_host/train.py``, ``write_weights``)::

    b"NRDW", version u8 = 1, variant u8 (0 long, 1 short), hidden H u8, q1 u8,
    q2 u8, qlin u8, reserved u16, crc32 u32 of everything after the header,
    lin      int16[208]       linear pre-filter, scale 2**qlin
    b1       int16[H]         hidden biases, scale 2**q1
    w1       int16[208 * H]   input-major: the H weights of input i are together
    w2       int16[H]         scale 2**q2
    b2       int32[1]         scale 2**(q1 + q2)
"""

import array
import binascii

import micropython
from micropython import const

try:
    ptr8  # noqa: B018 (defined only inside viper functions)
except NameError:   # CPython (and MicroPython outside viper): the annotations' names
    ptr8 = ptr16 = ptr32 = None

MAGIC = b"NRDW"
VERSION = const(1)
INPUTS = const(208)
_HEADER = const(16)
_COUNTS = const(16)          # a point holds 0..15 checkers
_BIAS = const(0x1000000)     # keeps the table's ints positive (|score| < 2**20)
_SPANS = const(((0, 7), (7, 7), (14, 6), (20, 6)))   # (first path point, points) of a piece
VARIANTS = ("long", "short")


class WeightsError(ValueError):
    """The weights file is missing, truncated, for the other game or corrupt."""


def _u16(b, i):
    return b[i] | (b[i + 1] << 8)


def _u32(b, i):
    return _u16(b, i) | (_u16(b, i + 2) << 16)


class Net:
    """Weights for one game, read from ``path`` (or a binary stream) into arrays
    allocated once; evaluations then allocate nothing but small ints.

    ``variant`` is "long" or "short": a file for the other game is refused.
    """

    def __init__(self, path, variant):
        if variant not in VARIANTS:
            raise WeightsError("unknown variant %r" % (variant,))
        self.variant = variant
        self.mapped = False
        if isinstance(path, str):
            try:
                f = open(path, "rb")  # noqa: SIM115 (closed below; open errors named)
            except OSError:
                raise WeightsError("cannot open weights file " + path) from None
            with f:
                mv = _mapped(f)
                if mv is not None:
                    self._load(_View(mv), mv)
                else:
                    self._load(f)
        else:
            self._load(path)

    def _load(self, f, mapped=None):
        head = f.read(_HEADER)
        if len(head) != _HEADER or head[:4] != MAGIC:
            raise WeightsError("not a nardy weights file (bad magic)")
        if head[4] != VERSION:
            raise WeightsError("weights file version %d, expected %d" % (head[4], VERSION))
        if head[5] >= len(VARIANTS) or VARIANTS[head[5]] != self.variant:
            raise WeightsError("weights file is not for %s nardy" % self.variant)
        h = head[6]
        if not 1 <= h <= 64:
            raise WeightsError("weights file: bad hidden size %d" % h)
        self.hidden = h
        self.q1, self.q2, qlin = head[7], head[8], head[9]
        if self.q1 > 14 or self.q2 > 14 or qlin > 14:
            raise WeightsError("weights file: bad scales")
        crc = _u32(head, 12)
        # the linear pre-filter, the hidden biases and the input weights are read by
        # viper only: in a mapped file (ROMFS) they are used in place, no heap at all
        at = _HEADER
        if mapped is not None and len(mapped) >= at + 2 * INPUTS + 2 * h:
            self.lin = mapped[at:at + 2 * INPUTS]
            self.b1 = mapped[at + 2 * INPUTS:at + 2 * INPUTS + 2 * h]
        else:
            self.lin = _words("h", 2 * INPUTS)
            self.b1 = _words("h", 2 * h)
        # The input weights, the big part, in eight pieces (6-7 points of one side
        # each, ``_SPANS``): blocks of 1.5-3 KB find room on a fragmented heap where
        # one of 13-20 KB does not.
        at = _HEADER + 2 * INPUTS + 2 * h
        self.parts = []
        for _side in range(2):
            for _first, n in _SPANS:
                size = 2 * 4 * n * h
                if mapped is not None and len(mapped) >= at + size:
                    # the file lies in memory-mapped flash (ROMFS): used in place
                    self.parts.append(mapped[at:at + size])
                    self.mapped = True
                else:
                    self.parts.append(_words("h", size))
                at += size
        self.w2 = array.array("h", bytes(2 * h))
        b2 = array.array("i", bytes(4))
        got = _crc(_fill(f, self.lin, 2, "lin"), 0)
        got = _crc(_fill(f, self.b1, 2, "b1"), got)
        for part in self.parts:
            got = _crc(_fill(f, part, 2, "w1"), got)
        got = _crc(_fill(f, self.w2, 2, "w2"), got)
        got = _crc(_fill(f, b2, 4, "b2"), got)
        if f.read(1):
            raise WeightsError("weights file longer than its header says")
        if got != crc:
            raise WeightsError("weights file corrupt (checksum)")
        self.b2 = b2[0]
        # value() is in units of 2**(q1+q2); quick() is rescaled to the same units
        self.scale = 1 << (self.q1 + self.q2)
        self.acc = array.array("i", bytes(4 * h))

    def quick(self, pos):
        """The linear pre-filter's score of ``pos`` for its side to move, in units of
        2**qlin (only compared with other quick scores)."""
        return _quick(self.lin, pos.board, 26 * pos.turn, 26 - 26 * pos.turn)

    @property
    def table(self):
        """The pre-filter as a table of one int per (side, point, count), plus
        2**24 each (host tools: a vectorised ``quick``; CPython)."""
        return _lin_table(self.lin, 0) + _lin_table(self.lin, 26)

    def value(self, pos):
        """The net's rating of ``pos`` for its side to move (units of ``scale``)."""
        return self.value_of(pos.board, pos.turn)

    def value_of(self, board, turn):
        """``value`` of a bare 52-byte board with ``turn`` to move."""
        acc = self.acc
        w2 = self.w2
        _hidden(self.parts, self.b1, acc, self.hidden, board, 26 * turn, 26 - 26 * turn)
        out = self.b2
        for j in range(self.hidden):
            out += acc[j] * w2[j]
        return out

    @property
    def w1(self):
        """The input weights in one array, input-major (host tools; CPython)."""
        out = self.parts[0]
        for p in self.parts[1:]:
            out = out + p
        return out

    def equity(self, pos):
        """Cubeless equity (points per game) for the side to move, a float."""
        return self.value(pos) / self.scale


def _mapped(f):
    """The whole file as a memoryview of flash, if it lies in a ROMFS (MicroPython's
    ROMFS files have the buffer protocol) at an even address (the viper code reads
    16-bit words: the Xtensa faults on odd ones); else None (read into arrays)."""
    try:
        mv = memoryview(f)
    except (TypeError, ValueError, OSError, AttributeError):
        return None
    try:
        import uctypes
        if uctypes.addressof(mv) & 1:
            return None
    except (ImportError, TypeError, AttributeError):
        return None
    return mv


class _View:
    """A mapped file read like a stream (the header and the small arrays are copied;
    ``readinto`` of the mapped ``w1`` itself only moves the offset)."""

    def __init__(self, mv):
        self.mv = mv
        self.at = 0

    def read(self, n):
        a = self.at
        self.at = min(a + n, len(self.mv))
        return bytes(self.mv[a:self.at])

    def readinto(self, buf, n):
        a = self.at
        n = min(n, len(self.mv) - a)
        if not isinstance(buf, memoryview):       # the mapped w1 is already in place
            import io
            io.BytesIO(bytes(self.mv[a:a + n])).readinto(buf)
        self.at = a + n
        return n


# MicroPython: buffers only viper reads are plain bytearrays (one allocation each;
# an array is built from a bytes object of its size, which doubles the peak)
_MP = __import__("sys").implementation.name == "micropython"


def _words(code, size):
    """A zeroed buffer of ``size`` bytes that viper reads as 16/32-bit words."""
    return bytearray(size) if _MP else array.array(code, bytes(size))


def _fill(f, buf, size, what):
    want = len(buf) if isinstance(buf, (memoryview, bytearray)) else len(buf) * size
    n = f.readinto(buf, want) if isinstance(f, _View) else f.readinto(buf)
    if n is None or n != want:
        raise WeightsError("weights file truncated (in %s)" % what)
    return buf


def _crc(buf, crc):
    return binascii.crc32(buf, crc) & 0xFFFFFFFF


def _lin_table(lin, first):
    """One int per (point, count) of one side (path points ``first`` .. +25 of the
    inputs): the linear score of that count there, plus _BIAS (host tools)."""
    t = array.array("i", bytes(4 * 26 * _COUNTS))
    for k in range(26):
        i = 4 * (first + k)
        w0, w1, w2, w3 = lin[i], lin[i + 1], lin[i + 2], lin[i + 3]
        t[k * _COUNTS] = _BIAS
        for c in range(1, _COUNTS):
            s = w0
            if c > 1:
                s += w1
            if c > 2:
                s += w2
            if c > 3:
                s += (c - 3) * w3
            t[k * _COUNTS + c] = s + _BIAS
    return t


# Viper: machine-word arithmetic on raw buffers, ~20x the bytecode's speed (CPython
# runs the same code through the no-op decorator in nardy/__init__.py). Viper reads
# ptr16 as unsigned, hence the explicit sign fix; values stay far below 2**31.
@micropython.viper
def _quick(w: ptr16, b: ptr8, me: int, op: int) -> int:
    # straight from the 208 linear weights (no table on the heap); empty points
    # cost one test
    s = 0
    for side in range(2):
        o = me if side == 0 else op
        row = side * 104
        for k in range(26):
            c = int(b[o + k])
            if c == 0:
                continue
            i = row + 4 * k
            x = int(w[i])
            if x > 32767:
                x -= 65536
            s += x
            if c > 1:
                x = int(w[i + 1])
                if x > 32767:
                    x -= 65536
                s += x
                if c > 2:
                    x = int(w[i + 2])
                    if x > 32767:
                        x -= 65536
                    s += x
                    if c > 3:
                        x = int(w[i + 3])
                        if x > 32767:
                            x -= 65536
                        s += (c - 3) * x
    return s


_ACC0 = const(0x10000000)   # keeps the hidden sums positive in the ptr32 array
                              # (|sum| < 2**27: 208 int16 weights, counts <= 15)


def _hidden(parts, b1, acc, h, b, me, op):
    """The hidden layer (ReLU) into ``acc``: point-major, one piece of the input
    weights at a time; empty points cost one test."""
    _acc(b1, acc, h, 1)
    _piece(parts[0], acc, h, b, me, 7)
    _piece(parts[1], acc, h, b, me + 7, 7)
    _piece(parts[2], acc, h, b, me + 14, 6)
    _piece(parts[3], acc, h, b, me + 20, 6)
    _piece(parts[4], acc, h, b, op, 7)
    _piece(parts[5], acc, h, b, op + 7, 7)
    _piece(parts[6], acc, h, b, op + 14, 6)
    _piece(parts[7], acc, h, b, op + 20, 6)
    _acc(b1, acc, h, 0)


# The checker counts 1, 2, 3 and 4+ are unrolled on purpose here and in _quick (the
# same four-deep read of an int16 weight, deliberately repeated): a loop over the
# count would cost the viper code a counter and a branch per weight, on the bot's
# hottest path.
@micropython.viper
def _piece(w: ptr16, acc: ptr32, h: int, b: ptr8, o: int, n: int):
    for k in range(n):
        c = int(b[o + k])
        if c == 0:
            continue
        i0 = 4 * k * h
        for j in range(h):
            i = i0 + j
            x = int(w[i])
            if x > 32767:
                x -= 65536
            a = x
            if c > 1:
                i += h
                x = int(w[i])
                if x > 32767:
                    x -= 65536
                a += x
                if c > 2:
                    i += h
                    x = int(w[i])
                    if x > 32767:
                        x -= 65536
                    a += x
                    if c > 3:
                        i += h
                        x = int(w[i])
                        if x > 32767:
                            x -= 65536
                        a += (c - 3) * x
            acc[j] = int(acc[j]) + a


@micropython.viper
def _acc(b1: ptr16, acc: ptr32, h: int, start: int):
    """``start``: each sum starts at its bias; else the ReLU of each sum."""
    for j in range(h):
        if start:
            a = int(b1[j])
            if a > 32767:
                a -= 65536
            acc[j] = a + _ACC0
        else:
            a = int(acc[j]) - _ACC0
            acc[j] = a if a > 0 else 0
