"""The weights file: its format, read into a ``nardy.evaluate.Net`` once per game,
checked (magic, version, game, sizes, CRC-32). Pure. A module of its own because the
board drops it after the read (``nardy.drop_module``): its functions would otherwise
stay on the heap through the game for nothing.

Where the file lies in memory-mapped flash (a ROMFS), the big arrays are used in
place: only the header and the few small arrays are copied.

The format (little-endian; see ``host_tools/nardy_host/train.py``, ``write_weights``)::

    b"NRDW", version u8 (1 to 4), variant u8 (0 long, 1 short), hidden H u8, q1 u8,
    q2 u8, qlin u8, extras E u8 (0 in version 1, ``EXTRAS`` in 2: long nardy's, and
    in 3: short nardy's), reserved u8 (0; version 4: H's high byte),
    crc32 u32 of everything after the header,
    lin      int16[208]       linear pre-filter, scale 2**qlin
    b1       int16[H]         hidden biases, scale 2**q1
    w1       int16[208 * H]   input-major: the H weights of input i are together
    wx       int16[E * H]     versions 2 to 4: the extra inputs' weights, input-major
    w2       int16[H]         scale 2**q2
    b2       int32[1]         scale 2**(q1 + q2)

Version 4 is for nets of more than 255 hidden units (up to ``MAX_HIDDEN``): H is 16
bits (the header's byte 6 and, above it, byte 11), and its extras, if any, are its
variant's. The host writes it only for such nets (the mean of several nets, made one
wider net: ``nardy_host.train --average``), so smaller files keep their version and
their bytes.

The evaluator's inputs (what the 208 and the E are) are described in ``nardy.evaluate``.
"""

import array
import binascii

from micropython import const  # CPython: the shim nardy/__init__.py installs

MAGIC = b"NRDW"
VERSION = const(4)       # the newest version written; versions 1 to 3 are read too
MAX_HIDDEN = const(512)  # evaluate._out's 32-bit sums hold 512 units
INPUTS = const(208)      # the evaluator's raw inputs: 2 sides x 26 path points x 4
EXTRAS = const(12)       # version 2's and 3's extra inputs (nardy.evaluate._extras,
                         # _short_extras)
VARIANTS = ("long", "short")     # the header's variant byte: its index here


class WeightsError(ValueError):
    """The weights file is missing, truncated, for the other game or corrupt. The board
    drops this module after each read, so each read makes the class anew: catch
    ValueError there (``nardy.botplay`` does)."""


_HEADER = const(16)
_BLOCK = const(64)       # nardy.evaluate.BLOCK: hidden units summed at a time
_SPANS = const(((0, 7), (7, 7), (14, 6), (20, 6)))   # (first path point, points) of a piece


def load(net, path):
    """Fill ``net`` (its ``variant`` set) from ``path``, a file name or a binary
    stream. WeightsError for a file that is missing or not right."""
    if net.variant not in VARIANTS:
        raise WeightsError("unknown variant %r" % (net.variant,))
    if not isinstance(path, str):
        _load(net, path)
        return
    try:
        f = open(path, "rb")  # noqa: SIM115 (closed below; open errors named)
    except OSError:
        raise WeightsError("cannot open weights file " + path) from None
    with f:
        mv = _mapped(f)
        if mv is not None:
            _load(net, _View(mv), mv)
        else:
            _load(net, f)


def _u16(b, i):
    return b[i] | (b[i + 1] << 8)


def _u32(b, i):
    return _u16(b, i) | (_u16(b, i + 2) << 16)


def _load(net, f, mapped=None):
    head = f.read(_HEADER)
    if len(head) != _HEADER or head[:4] != MAGIC:
        raise WeightsError("not a nardy weights file (bad magic)")
    if not 1 <= head[4] <= VERSION:
        raise WeightsError("weights file version %d, expected 1 to %d" % (head[4], VERSION))
    if head[5] >= len(VARIANTS) or VARIANTS[head[5]] != net.variant:
        raise WeightsError("weights file is not for %s nardy" % net.variant)
    # version 2: the extra inputs of long nardy (nardy.evaluate._extras); version 3:
    # those of short nardy (_short_extras); version 4: those of its variant
    version = head[4]
    if head[11] and version < 4:
        raise WeightsError("weights file: reserved byte set (more than 255 hidden units "
                           "is version 4)")
    extras = head[10] if version > 1 else 0
    if (version == 1 and head[10]) or extras not in (0, EXTRAS) or (
            extras and version < 4 and net.variant != VARIANTS[version - 2]):
        raise WeightsError("weights file: %d extra inputs (this board reads %d, long "
                           "nardy version 2, short version 3)" % (head[10], EXTRAS))
    net.extras = extras
    h = head[6] | (head[11] << 8 if version == 4 else 0)
    if not 1 <= h <= MAX_HIDDEN:
        raise WeightsError("weights file: bad hidden size %d" % h)
    net.hidden = h
    q1, q2, qlin = head[7], head[8], head[9]
    if q1 > 14 or q2 > 14 or qlin > 14:
        raise WeightsError("weights file: bad scales")
    crc = _u32(head, 12)
    # the linear pre-filter, the hidden biases, the input and output weights are read
    # by viper only: in a mapped file (ROMFS) they are used in place, no heap at all
    at = _HEADER
    if mapped is not None and len(mapped) >= at + 2 * INPUTS + 2 * h:
        net.lin = mapped[at:at + 2 * INPUTS]
        net.b1 = mapped[at + 2 * INPUTS:at + 2 * INPUTS + 2 * h]
    else:
        net.lin = _words("h", 2 * INPUTS)
        net.b1 = _words("h", 2 * h)
    # The input weights, the big part, in eight pieces (6-7 points of one side
    # each, ``_SPANS``): blocks of 1.5-3 KB find room on a fragmented heap where
    # one of 13-20 KB does not.
    at = _HEADER + 2 * INPUTS + 2 * h
    parts = net.parts = []
    for _side in range(2):
        for _first, n in _SPANS:
            size = 2 * 4 * n * h
            if mapped is not None and len(mapped) >= at + size:
                # the file lies in memory-mapped flash (ROMFS): used in place
                parts.append(mapped[at:at + size])
            else:
                parts.append(_words("h", size))
            at += size
    net.wx = None
    if extras:
        size = 2 * extras * h
        if mapped is not None and len(mapped) >= at + size:
            net.wx = mapped[at:at + size]
        else:
            net.wx = _words("h", size)
        net.ex = bytearray(extras)
        at += size
    size = 2 * h
    if mapped is not None and len(mapped) >= at + size:
        net.w2 = mapped[at:at + size]
    else:
        net.w2 = _words("h", size)
    b2 = array.array("i", bytes(4))
    got = _crc(_fill(f, net.lin, 2, "lin"), 0)
    got = _crc(_fill(f, net.b1, 2, "b1"), got)
    for part in parts:
        got = _crc(_fill(f, part, 2, "w1"), got)
    if extras:
        got = _crc(_fill(f, net.wx, 2, "wx"), got)
    got = _crc(_fill(f, net.w2, 2, "w2"), got)
    got = _crc(_fill(f, b2, 4, "b2"), got)
    if f.read(1):
        raise WeightsError("weights file longer than its header says")
    if got != crc:
        raise WeightsError("weights file corrupt (checksum)")
    net.b2 = b2[0]
    # value() is in units of 2**(q1+q2)
    net.scale = 1 << (q1 + q2)
    # the sums of a block of hidden units (evaluate.BLOCK; its first 4: the output's),
    # kept positive: unsigned words of a table chunk's size, so that the board's
    # player can lend it to its results table between ratings (nardy.bot)
    net.acc = array.array("I", bytes(4 * _BLOCK))


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
