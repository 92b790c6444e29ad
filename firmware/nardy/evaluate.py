"""The position evaluator: a small integer neural net whose weights live in one
compact binary file (``firmware/weights/long.bin``, ``short.bin``). Pure: no I/O
beyond reading that file once into preallocated buffers (``nardy.netfile``; where
the file lies in memory-mapped flash, a ROMFS, none: the weights are read in place).

Inputs: for each side (the side to move first, then the other) and each of its own
path points k = 0 (bar) .. 25 (off), four features of the count c there: c >= 1,
c >= 2, c >= 3 and max(c - 3, 0) (the TD-Gammon encoding, in path points so both
games and both colours share it). 2 x 26 x 4 = 208 inputs, all small integers.

Two stages, because a double can have ~1,800 legal results:

- ``quick(net.lin, board, me, op)``: a linear score of the same inputs (its own
  scale), summed from the 208 int16 weights of the occupied points. The chooser keeps
  the best few results by this score (a pre-filter, fitted to the net's own values on
  the host).
- ``value(pos)``: the net, 208 -> H hidden (ReLU) -> 1, in integers: inputs times
  int16 weights (scale 2**Q1), ReLU, times int16 output weights (scale 2**Q2).
  Only occupied points cost anything (an empty point has all four inputs 0).

Both rate the position for the side to move, in points per game (cubeless equity)
times ``scale``: ``value(pos) / scale`` is the equity. Views the host needs (the
pre-filter as a table, the input weights in one array) are in ``nardy_host.duel``:
every function here is a function object on the board's heap.

The weights file's format, its constants and ``WeightsError`` are ``nardy.netfile``'s.

Version 2 (long nardy only) adds E = ``nardy.netfile.EXTRAS`` = 12 inputs that are not linear in
the raw ones, six per side (the side to move first), computed by ``_extras`` (the
host's vectorised twin and the full description: ``nardy_host.features``): the
longest run of points held ahead of the opponent's rearmost checker (its prime,
capped at six, L5), the points held in the six in front of it, how far the side's
own rearmost checker has to go, whether the side still reaches ahead of the
opponent's rearmost checker, the opponent's checkers off while the side has none
(mars danger, L6), and the side's pips // 8 in a race. The pre-filter stays on the
208 raw inputs.

Version 3 (short nardy only) adds as many short-nardy inputs, computed by
``_short_extras`` (described in ``nardy_host.features``): per side, the rolls of 36
that hit a blot of the other side, the prime and the points held in front of the
other side's rearmost checker, how far its own rearmost checker has to go, whether
the game is a race, and its pips // 8 in a race.

Version 4 is a net of more than 255 hidden units (up to 512) with its game's extras:
the mean of several nets written as one (``nardy_host.train --average``). The hidden
units are summed ``BLOCK`` at a time, so its sums take no more heap than a 64-unit
net's.
"""

import micropython
from micropython import const

try:
    ptr8  # noqa: B018 (defined only inside viper functions)
except NameError:   # CPython (and MicroPython outside viper): the annotations' names
    ptr8 = ptr16 = ptr32 = None

# Added to the output's four sums in ``acc`` (an unsigned array: each |sum| < 2**28,
# see _out), so they stay positive. Defined before its first use: a private const
# is folded where it is used, and is no name of the module.
_OUT0 = const(0x10000000)


class Net:
    """Weights for one game, read from ``path`` (or a binary stream) into arrays
    allocated once; evaluations then allocate nothing but small ints.

    ``variant`` is "long" or "short": a file for the other game is refused
    (``nardy.netfile.WeightsError``).
    """

    def __init__(self, path, variant):
        self.variant = variant
        # The file's reader (nardy.netfile) runs once per game: it leaves the heap
        # after, as the board has no room to keep it beside a game.
        from nardy import drop_module, netfile
        try:
            netfile.load(self, path)
        except BaseException:
            self.free()     # a part-read net holds nothing, even if a stale word keeps it
            raise
        finally:
            drop_module("nardy.netfile")

    def free(self):
        """Drop the weights (28-57 KB in the heap when not read in place): the net is
        not used after. MicroPython's collector is conservative: a stale word on the
        stack that looks like a pointer to this net can keep it alive after its last
        reference is gone (seen at 112wK: a released 28 KB net still in the heap
        when the next game read its own), but then it keeps only this object."""
        self.lin = self.b1 = self.parts = self.wx = self.ex = self.w2 = self.acc = None

    def in_place(self):
        """True if the weights are read in place from mapped flash (ROMFS): then
        they hold no heap (``nardy.botplay.load`` weighs the heap by it)."""
        return isinstance(self.w2, memoryview)

    def value(self, pos):
        """The net's rating of ``pos`` for its side to move (units of ``scale``)."""
        return self.value_of(pos.board, pos.turn)

    def value_of(self, board, turn):
        """``value`` of a bare 52-byte board with ``turn`` to move. The hidden units
        are summed ``BLOCK`` at a time into ``acc``: a wider net (the mean of four,
        512 units) needs no more heap than a 64-unit one."""
        acc = self.acc
        me, op = 26 * turn, 26 - 26 * turn
        ex = None
        if self.extras:
            ex = self.ex
            if self.variant == "long":
                _extras(board, me, op, ex)
            else:       # short nardy (version 3, or 4)
                _short_extras(board, me, op, ex)
                ex[0] = _shots(board, me, op)
                ex[6] = _shots(board, op, me)
        h = self.hidden
        total = self.b2
        j0 = 0
        while j0 < h:       # (a ``for`` over range(0, h, BLOCK) made a range object)
            m = h - j0 if h - j0 < BLOCK else BLOCK
            _acc(self.b1, acc, j0, m, 1)
            _hidden(self.parts, acc, h, j0, m, board, me, op)
            if ex is not None:
                _xpiece(self.wx, acc, h, j0, m, ex, self.extras)
            _acc(self.b1, acc, j0, m, 0)
            _out(self.w2, acc, j0, m)
            total += (acc[0] - _OUT0 + ((acc[1] - _OUT0) << 7) + ((acc[2] - _OUT0) << 14)
                      + ((acc[3] - _OUT0) << 21))
            j0 += BLOCK
        return total


# Viper: machine-word arithmetic on raw buffers, ~20x the bytecode's speed (CPython
# runs the same code through the no-op decorator in nardy/__init__.py). Viper reads
# ptr16 as unsigned, hence the explicit sign fix; values stay far below 2**31.
@micropython.viper
def quick(w: ptr16, b: ptr8, me: int, op: int) -> int:
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


# Hidden units summed at a time (``Net.acc`` holds as many): 64, so that ``acc`` is a
# results-table chunk's 256 bytes and the board's player keeps one block less
# (nardy.bot lends it to its table between ratings; 128 before 2026-11-28).
BLOCK = const(64)


def _hidden(parts, acc, h, j0, m, b, me, op):
    """The raw inputs' part of the sums of hidden units ``j0 .. j0 + m - 1`` (of
    ``h``) into ``acc[0 .. m - 1]`` (the ReLU follows the extras): point-major, one
    piece of the input weights at a time; empty points cost one test."""
    _piece(parts[0], acc, h, j0, m, b, me, 7)
    _piece(parts[1], acc, h, j0, m, b, me + 7, 7)
    _piece(parts[2], acc, h, j0, m, b, me + 14, 6)
    _piece(parts[3], acc, h, j0, m, b, me + 20, 6)
    _piece(parts[4], acc, h, j0, m, b, op, 7)
    _piece(parts[5], acc, h, j0, m, b, op + 7, 7)
    _piece(parts[6], acc, h, j0, m, b, op + 14, 6)
    _piece(parts[7], acc, h, j0, m, b, op + 20, 6)


# The checker counts 1, 2, 3 and 4+ are unrolled on purpose here and in quick (the
# same four-deep read of an int16 weight, deliberately repeated): a loop over the
# count would cost the viper code a counter and a branch per weight, on the bot's
# hottest path.
@micropython.viper
def _piece(w: ptr16, acc: ptr32, h: int, j0: int, m: int, b: ptr8, o: int, n: int):
    for k in range(n):
        c = int(b[o + k])
        if c == 0:
            continue
        i0 = 4 * k * h + j0
        for j in range(m):
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
def _acc(b1: ptr16, acc: ptr32, j0: int, m: int, start: int):
    """``start``: each sum of units ``j0 .. j0 + m - 1`` starts at its bias; else
    the ReLU of each sum."""
    for j in range(m):
        if start:
            a = int(b1[j0 + j])
            if a > 32767:
                a -= 65536
            acc[j] = a + _ACC0
        else:
            a = int(acc[j]) - _ACC0
            acc[j] = a if a > 0 else 0


@micropython.viper
def _out(w2: ptr16, acc: ptr32, j0: int, m: int):
    """The output's sum of ``acc[j] * w2[j0 + j]`` (``m`` hidden units after the ReLU),
    left in ``acc[0..3]`` as four sums, of each unit's bits 0-6, 7-13, 14-20 and 21
    up: ``value_of`` adds them shifted. Viper works in machine words, and one
    product (a unit below 2**28, a weight below 2**15) would not fit 32 bits; a
    piece's (at most 127 times 2**15) does, and so do a block's (``BLOCK`` = 64:
    127 * 2**15 * 64 < 2**28), each stored plus ``_OUT0``, so positive in the
    unsigned ``acc``. ``w2`` is then read in place from a mapped file, like the
    input weights."""
    s0 = 0
    s1 = 0
    s2 = 0
    s3 = 0
    for j in range(m):
        x = int(w2[j0 + j])
        if x > 32767:
            x -= 65536
        a = int(acc[j])
        s0 += (a & 127) * x
        s1 += ((a >> 7) & 127) * x
        s2 += ((a >> 14) & 127) * x
        s3 += (a >> 21) * x
    acc[0] = s0 + _OUT0
    acc[1] = s1 + _OUT0
    acc[2] = s2 + _OUT0
    acc[3] = s3 + _OUT0


@micropython.viper
def _xpiece(w: ptr16, acc: ptr32, h: int, j0: int, m: int, ex: ptr8, n: int):
    """The extra inputs' part of the sums of units ``j0 .. j0 + m - 1``: ``ex[e]``
    times row ``e``."""
    for e in range(n):
        c = int(ex[e])
        if c == 0:
            continue
        i0 = e * h + j0
        for j in range(m):
            x = int(w[i0 + j])
            if x > 32767:
                x -= 65536
            acc[j] = int(acc[j]) + c * x


@micropython.viper
def _extras(b: ptr8, me: int, op: int, out: ptr8):
    """The 12 extra inputs of version 2 (long nardy; see the module's docstring and
    ``nardy_host.features``) into ``out``: six for the side at ``me``, then six for
    the side at ``op``. A side's points are seen along the other side's path, where
    L1 puts its path point q at our q + 12 (q <= 12) or q - 12."""
    for half in range(2):
        s = me if half == 0 else op
        o = op if half == 0 else me
        base = 6 * half
        rear_o = 25                 # the other side's rearmost checker (25: none)
        for q in range(1, 25):
            if int(b[o + q]) > 0:
                rear_o = q
                break
        run = 0
        prime = 0
        front = 0
        reach = 0
        for q in range(rear_o + 1, 25):
            p = q + 12 if q <= 12 else q - 12
            if int(b[s + p]) > 0:
                run += 1
                if run > prime:
                    prime = run
                reach = 1
                if q <= rear_o + 6:
                    front += 1
            else:
                run = 0
        rear = 25
        for p in range(1, 25):
            if int(b[s + p]) > 0:
                rear = p
                break
        mars = 0
        if int(b[s + 25]) == 0:
            mars = int(b[o + 25])
        pips = 0
        for k in range(25):
            pips += int(b[s + k]) * (25 - k)
        out[base] = prime if prime < 6 else 6
        out[base + 1] = front
        out[base + 2] = 25 - rear
        out[base + 3] = reach
        out[base + 4] = mars
        out[base + 5] = pips >> 3
    if int(out[3]) or int(out[9]):   # either side still reaches: no race
        out[5] = 0
        out[11] = 0


@micropython.viper
def _shots(b: ptr8, s: int, o: int) -> int:
    """Of the 36 rolls, those on which the side at ``s`` hits a blot (one checker,
    C7) of the side at ``o`` with one checker: on a die's number, or on both dice
    (a double: up to four steps) through points the other side does not hold (S3:
    two or more). The other side's path point q is our 25 - q (S1)."""
    n = 0
    for a in range(1, 7):
        for d in range(a, 7):
            hit = 0
            for p in range(25):
                if hit:
                    break
                if int(b[s + p]) == 0:
                    continue
                if a == d:
                    q = p
                    for _ in range(4):
                        q += a
                        if q > 24:
                            break
                        x = int(b[o + 25 - q])
                        if x == 1:
                            hit = 1
                        if x != 0:
                            break
                else:
                    if p + a <= 24 and int(b[o + 25 - p - a]) == 1:
                        hit = 1
                    if p + d <= 24 and int(b[o + 25 - p - d]) == 1:
                        hit = 1
                    q = p + a + d       # both dice: through p + a or through p + d
                    if q <= 24 and int(b[o + 25 - q]) == 1 and (
                            int(b[o + 25 - p - a]) < 2 or int(b[o + 25 - p - d]) < 2):
                        hit = 1
            if hit:
                n += 1 if a == d else 2
    return n


@micropython.viper
def _short_extras(b: ptr8, me: int, op: int, out: ptr8):
    """The 12 extra inputs of version 3 (short nardy; see the module's docstring and
    ``nardy_host.features``) into ``out``: six for the side at ``me``, then six for
    the side at ``op``, but for each side's shots (0 and 6: ``_shots``, called
    beside it). A side's points are seen along the other side's path, where S1
    puts its path point q at our 25 - q; a point is held by two checkers (S3)."""
    rears = 0
    for half in range(2):
        s = me if half == 0 else op
        o = op if half == 0 else me
        base = 6 * half
        rear_o = 25                 # the other side's rearmost checker (0: the bar)
        for q in range(25):
            if int(b[o + q]) > 0:
                rear_o = q
                break
        run = 0
        prime = 0
        front = 0
        for q in range(rear_o + 1, 25):
            if int(b[s + 25 - q]) > 1:
                run += 1
                if run > prime:
                    prime = run
                if q <= rear_o + 6:
                    front += 1
            else:
                run = 0
        rear = 25
        for p in range(25):
            if int(b[s + p]) > 0:
                rear = p
                break
        rears += rear
        pips = 0
        for k in range(25):
            pips += int(b[s + k]) * (25 - k)
        out[base + 1] = prime if prime < 6 else 6
        out[base + 2] = front
        out[base + 3] = 25 - rear
        out[base + 5] = pips >> 3
    race = 1 if rears >= 25 else 0      # no checker has the other side's to pass
    out[4] = race
    out[10] = race
    if not race:
        out[5] = 0
        out[11] = 0
