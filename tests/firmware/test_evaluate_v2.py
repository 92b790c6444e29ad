"""Weights file version 2 (the 12 extra long-nardy inputs, nardy.evaluate._extras),
under CPython and MicroPython: the integer net equals a plain re-computation whose
extras are written out from their definition, version 1 files still read, bad
version 2 headers refused, and the chooser plays with a version 2 net."""

import array
import binascii
import struct
import sys

from test_bot import TMP, Lcg, _inputs, _positions, _refused, _write

from nardy.bot import Bot
from nardy.evaluate import BLOCK, Net, _extras, _out
from nardy.longnardy import LongNardy
from nardy.netfile import EXTRAS, INPUTS, MAGIC
from nardy.rules import Position

_HEAD = len(MAGIC) + struct.calcsize("<BBBBBBBBI")   # a weights file's header
_MP = sys.implementation.name == "micropython"


def _pieces_v2(hidden, seed, extras=EXTRAS):
    """A random version 2 net's weights in file order, as ``(name, array)``: lin,
    b1, then w1 a row (an input's ``hidden`` weights) at a time, wx, w2, b2."""
    r = Lcg(seed)

    def words(n, lo, span, code="h"):
        # a generator, not a list: a 128-unit net's list would not fit the unix
        # port's 112wK heap beside its array
        return array.array(code, (r.next(span) - lo for _ in range(n)))

    yield "lin", words(INPUTS, 1000, 2001)
    yield "b1", words(hidden, 2000, 4001)
    for _ in range(INPUTS):
        yield "w1", words(hidden, 300, 601)
    yield "wx", words(extras * hidden, 1500, 3001)
    yield "w2", words(hidden, 1000, 2001)
    yield "b2", words(1, 5000, 10001, "i")


def _head_v2(crc, hidden, variant_code=0, extras=EXTRAS, version=2, high=None):
    """A header; version 4 keeps the hidden size's high byte in the reserved one
    (``high``: that byte as written, by default the size's own)."""
    if high is None:
        high = hidden >> 8
    return MAGIC + struct.pack("<BBBBBBBBI", version, variant_code, hidden & 255, 8, 8, 8,
                               extras, high, crc & 0xFFFFFFFF)


def _weights_v2(hidden, seed, variant_code=0, extras=EXTRAS, version=2):
    """A small random version 2 file image and its parts (b1, w1, wx, w2, b2)."""
    parts = {"w1": array.array("h")}
    crc = 0
    payload = b""
    for name, a in _pieces_v2(hidden, seed, extras):
        crc = binascii.crc32(a, crc)
        payload += bytes(a)
        if name == "w1":
            parts["w1"].extend(a)
        else:
            parts[name] = a
    head = _head_v2(crc, hidden, variant_code, extras, version)
    return head + payload, (parts["b1"], parts["w1"], parts["wx"], parts["w2"],
                            parts["b2"][0])


def _write_v2(hidden, seed, version=2):
    """``_weights_v2``'s file of ``hidden`` units written to ``TMP`` a row at a
    time, the header's checksum written last: a 128-unit file (57 KB) built in
    memory, beside its arrays, finds no free block in the unix port's 112wK heap.
    Returns the path and the parts, whose w1 reads a row back from the file."""
    parts = {}
    crc = 0
    with open(TMP, "wb") as f:
        f.write(bytes(_HEAD))
        for name, a in _pieces_v2(hidden, seed):
            crc = binascii.crc32(a, crc)
            f.write(a)
            if name != "w1":
                parts[name] = a
        f.seek(0)
        f.write(_head_v2(crc, hidden, version=version))
    first = _HEAD + 2 * (INPUTS + hidden)

    def w1_row(i):
        with open(TMP, "rb") as f:
            f.seek(first + 2 * hidden * i)
            return array.array("h", f.read(2 * hidden))

    return TMP, (parts["b1"], w1_row, parts["wx"], parts["w2"], parts["b2"][0])


def _opp_path(q):
    """L1: the other side's path point q is my path point (q + 11) % 24 + 1."""
    return (q + 11) % 24 + 1


def _half(board, s, o):
    """Six extras of the side at offset ``s`` against the side at ``o``, plainly."""
    held_o = [q for q in range(1, 25) if board[o + q]]
    rear_o = held_o[0] if held_o else 25
    ahead = [board[s + _opp_path(q)] > 0 and q > rear_o for q in range(1, 25)]
    prime = run = 0
    for a in ahead:
        run = run + 1 if a else 0
        prime = max(prime, run)
    front = sum(1 for q in range(1, 25) if ahead[q - 1] and q <= rear_o + 6)
    held_s = [p for p in range(1, 25) if board[s + p]]
    rear_s = held_s[0] if held_s else 25
    mars = board[o + 25] if board[s + 25] == 0 else 0
    pips = sum(board[s + k] * (25 - k) for k in range(26))
    return [min(prime, 6), front, 25 - rear_s, 1 if any(ahead) else 0, mars, pips // 8]


def _plain_extras(pos):
    me, op = 26 * pos.turn, 26 - 26 * pos.turn
    a, b = _half(pos.board, me, op), _half(pos.board, op, me)
    if a[3] or b[3]:
        a[5] = b[5] = 0
    return a + b


def _reference(parts, hidden, pos):
    """The net's value written out plainly; ``w1`` may be a function of the input
    index returning that input's row (``_write_v2``)."""
    b1, w1, wx, w2, b2 = parts
    x, e = _inputs(pos), _plain_extras(pos)
    acc = list(b1)
    for i in range(INPUTS):
        if x[i]:
            row = w1(i) if callable(w1) else w1[i * hidden:(i + 1) * hidden]
            for j in range(hidden):
                acc[j] += x[i] * row[j]
    for i in range(EXTRAS):
        for j in range(hidden):
            acc[j] += e[i] * wx[i * hidden + j]
    out = b2
    for j in range(hidden):
        if acc[j] > 0:
            out += acc[j] * w2[j]
    return out


def _race_and_mars():
    """Hand-made boards where the race and mars extras are not zero."""
    race = Position(turn=0)
    race.board[26 * 0 + 20] = 10       # white all home (19..24)
    race.board[26 * 0 + 23] = 5
    race.board[26 * 1 + 21] = 15       # black all home: nobody reaches the other
    mars = Position(turn=1)
    mars.board[26 * 0 + 25] = 6        # white has six off ...
    mars.board[26 * 0 + 22] = 9
    mars.board[26 * 1 + 9] = 15        # ... black none, still far away
    return [race, mars]


def test_extras_equal_their_definition():
    v = LongNardy()
    out = bytearray(EXTRAS)
    seen_prime = seen_reach = 0
    for pos in _positions(v, 60, 5) + _race_and_mars():
        _extras(pos.board, 26 * pos.turn, 26 - 26 * pos.turn, out)
        want = _plain_extras(pos)
        assert list(out) == want, (bytes(pos.board), pos.turn, list(out), want)
        seen_prime += out[0] > 1
        seen_reach += out[3]
    race, mars = _race_and_mars()
    _extras(race.board, 0, 26, out)
    assert out[5] == (10 * 5 + 5 * 2) // 8 and out[3] == 0 and out[9] == 0
    _extras(mars.board, 26, 0, out)
    assert out[4] == 6 and out[10] == 0          # black (to move) may be marsed (L6)
    assert seen_prime and seen_reach


def test_version_2_net_equals_plain_computation():
    v = LongNardy()
    data, parts = _weights_v2(5, 9)
    net = Net(_write(data), "long")
    assert net.extras == EXTRAS
    for pos in _positions(v, 30, 4) + _race_and_mars():
        assert net.value(pos) == _reference(parts, 5, pos)


def test_a_128_unit_net_equals_plain_computation_and_256_needs_version_4():
    v = LongNardy()
    path, parts = _write_v2(128, 12)
    net = Net(path, "long")
    assert net.hidden == 128
    for pos in _positions(v, 6, 8):
        assert net.value(pos) == _reference(parts, 128, pos)
    del net, parts
    # version 2 and 3 headers keep the byte above the size at 0: a size of 256 or
    # more is version 4's (refused from the header, before any weight is read)
    _refused(_head_v2(0, 256, version=2) + _weights_v2(1, 12)[0][_HEAD:], "long",
             ["reserved byte", "version 4"])


def test_a_version_4_net_of_256_units_equals_plain_computation():
    # version 4: the hidden size in 16 bits (a mean of two 128-unit nets as one,
    # nardy_host.train --average), read like the others. The unix port's 112wK heap
    # holds no 256-unit net beside the others' leftovers: there a version 4 file of
    # 130 units (the board plays its 256-unit net in place, from ROMFS: test_soak)
    hidden = 130 if _MP else 256
    v = LongNardy()
    path, parts = _write_v2(hidden, 21, version=4)
    net = Net(path, "long")
    assert net.hidden == hidden and net.extras == EXTRAS
    # summed a block of units at a time: no more heap than a 64-unit net's, and the
    # sums are a results-table chunk's 256 bytes (nardy.bot lends them its table)
    assert len(net.acc) == BLOCK == 64
    net.acc[0] = 0xFFFFFFFF             # unsigned words, as a table chunk's
    assert net.acc[0] == 0xFFFFFFFF
    positions = _positions(v, 3, 8) + _race_and_mars()[:1]
    for pos in positions:
        assert net.value(pos) == _reference(parts, hidden, pos)
    if _MP:
        # the blocks cost no heap: an evaluation allocates nothing (a ``for`` over
        # ``range(0, h, BLOCK)`` made a range object each time: 32 bytes)
        import gc
        gc.collect()
        gc.disable()
        try:
            before = gc.mem_alloc()
            for pos in positions:
                for _ in range(5):
                    net.value_of(pos.board, pos.turn)
            grew = gc.mem_alloc() - before
        finally:
            gc.enable()
        assert grew <= 64, grew


def test_version_4_hidden_sizes_up_to_512():
    # the most hidden units a file may have (the format's: the sums are made a block
    # at a time); the size is refused from the header, before any weight is read
    rest = _weights_v2(1, 12)[0][_HEAD:]
    for bad in (0, 513, 65535):
        _refused(_head_v2(0, bad, version=4) + rest, "long", ["hidden size %d" % bad])
    _refused(_head_v2(0, 300, version=5) + rest, "long", ["version 5"])
    # 512 passes the header: the body is then too short (MicroPython: no room for
    # the arrays of a 512-unit net outside ROMFS, which the board meets as a
    # MemoryError and answers with the smaller net, nardy.botplay)
    try:
        _refused(_head_v2(0, 512, version=4) + rest, "long", ["truncated"])
    except MemoryError:
        assert _MP


def test_the_output_sum_is_exact_in_32_bit_pieces():
    # evaluate._out sums acc[j] * w2[j] of a block of units (BLOCK) in four sums of
    # 7-bit pieces, each of which must fit a 32-bit machine word (viper on the
    # ESP32) with evaluate._OUT0 added, positive in the unsigned acc: the largest
    # units (below 2**28) and weights (-2**15 .. 2**15 - 1) over a whole block, and
    # random ones, give the exact sum
    r = Lcg(77)
    top = 2 ** 28 - 1
    out0 = 0x10000000       # evaluate._OUT0 (a private const: not an attribute there)

    def cases():
        # one case at a time, as arrays: 43 of them as lists would not fit the
        # unix port's 112wK heap
        for unit, weight in ((top, -32768), (top, 32767),
                             (127 | (127 << 7) | (127 << 14) | (127 << 21), -32768)):
            yield (array.array("I", (unit for _ in range(BLOCK))),
                   array.array("h", (weight for _ in range(BLOCK))))
        for _ in range(40):
            h = 1 + r.next(BLOCK)
            yield (array.array("I", (r.next(2 ** 28) for _ in range(h))),
                   array.array("h", (r.next(65536) - 32768 for _ in range(h))))

    for units, w2 in cases():
        h = len(units)
        want = sum(u * w for u, w in zip(units, w2))
        acc = units if h >= 4 else units + array.array("I", [0] * (4 - h))
        _out(w2, acc, 0, h)
        assert all(0 < acc[k] < 2 ** 30 for k in range(4))   # small ints on the ESP32
        got = [acc[k] - out0 for k in range(4)]
        assert got[0] + (got[1] << 7) + (got[2] << 14) + (got[3] << 21) == want


def test_a_mapped_weights_file_is_read_in_place_with_the_same_values():
    # ROMFS: every weight array, the output's w2 too, is a view of the file
    # (netfile._View over a memoryview) holding the file's own weights; on
    # MicroPython, where viper reads such a view as int16 words, the net's values
    # are the copied net's
    import sys

    from nardy import netfile
    data, (b1, w1, wx, w2, b2) = _weights_v2(7, 3)

    class _Mapped:
        variant = "long"

    mv = memoryview(data)
    mapped = _Mapped()
    netfile._load(mapped, netfile._View(mv), mv)
    for got, want in ((mapped.b1, b1), (mapped.wx, wx), (mapped.w2, w2)):
        assert isinstance(got, memoryview) and bytes(got) == bytes(want)
    assert b"".join(bytes(p) for p in mapped.parts) == bytes(w1)
    assert mapped.b2 == b2
    assert Net.in_place(mapped) and not Net(_write(data), "long").in_place()
    if sys.implementation.name == "micropython":
        net = Net(_write(data), "long")
        for pos in _positions(LongNardy(), 20, 5):
            assert Net.value_of(mapped, pos.board, pos.turn) == net.value(pos)


def test_version_2_headers_checked():
    data, _ = _weights_v2(4, 2)
    _refused(data, "short", ("not for short",))
    _refused(_weights_v2(4, 2, variant_code=1)[0], "short", ("extra inputs",))
    _refused(_weights_v2(4, 2, extras=5)[0], "long", ("extra inputs",))
    # version 1 has no extras: a count there is a bad file, not ignored
    _refused(_weights_v2(4, 2, version=1)[0], "long", ("extra inputs",))
    _refused(_weights_v2(4, 2, version=5)[0], "long", ("version 5",))
    # version 4's extras are its variant's: a long file holds long nardy's
    _refused(_weights_v2(4, 2, version=4)[0], "short", ("not for short",))
    assert Net(_write(_weights_v2(4, 2, version=4)[0]), "long").extras == EXTRAS


def test_bot_plays_the_version_2_nets_best():
    v = LongNardy()
    data, parts = _weights_v2(4, 13)
    bot = Bot(v, Net(_write(data), "long"))
    for pos in _positions(v, 12, 8):
        dice = (3, 5)
        steps, result = bot.choose(pos, dice)
        results = [t[1].board for t in v.legal_turns(pos, dice)]
        assert result.board in results
        if len(results) <= bot.keep:     # every result rated: the net's own best
            best = min(_reference(parts, 4, t[1]) for t in v.legal_turns(pos, dice))
            assert _reference(parts, 4, result) == best
