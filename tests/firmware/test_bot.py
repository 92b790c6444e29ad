"""The evaluator (nardy.evaluate) and the chooser (nardy.bot), under CPython and
MicroPython: integer net equal to a plain re-computation, weights file checks, the
chooser's choice is legal, deterministic, the net's best, and allocation-stable."""

import array
import binascii
import gc
import struct

from fwutil import build

from nardy.bot import Bot
from nardy.evaluate import INPUTS, MAGIC, Net, WeightsError
from nardy.longnardy import LongNardy
from nardy.rules import WHITE
from nardy.shortnardy import ShortNardy

_HERE = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
WEIGHTS = _HERE + "/../../firmware/weights/"
TMP = "/tmp/nardy_test_weights.bin"


class Lcg:
    """A deterministic pseudo-random source that is the same on every port."""

    def __init__(self, seed):
        self.x = seed

    def next(self, n):
        self.x = (self.x * 1103515245 + 12345) & 0x7FFFFFFF
        return (self.x >> 8) % n


def _weights(variant_code, hidden, seed):
    """A small random weights file image and its raw parts."""
    r = Lcg(seed)
    lin = array.array("h", [r.next(2001) - 1000 for _ in range(INPUTS)])
    b1 = array.array("h", [r.next(4001) - 2000 for _ in range(hidden)])
    w1 = array.array("h", [r.next(601) - 300 for _ in range(INPUTS * hidden)])
    w2 = array.array("h", [r.next(2001) - 1000 for _ in range(hidden)])
    b2 = array.array("i", [r.next(10001) - 5000])
    payload = bytes(lin) + bytes(b1) + bytes(w1) + bytes(w2) + bytes(b2)
    crc = binascii.crc32(payload) & 0xFFFFFFFF
    head = MAGIC + struct.pack("<BBBBBBHI", 1, variant_code, hidden, 8, 8, 8, 0, crc)
    return head + payload, (lin, b1, w1, w2, b2[0])


_NETS = {}


def _net(name):
    """The committed weights, each read once (a 20 KB array wants an unfragmented
    heap: on the board the net is read once, before play)."""
    if name not in _NETS:
        gc.collect()
        _NETS[name] = Net(WEIGHTS + name + ".bin", name)
    return _NETS[name]


def _write(data):
    with open(TMP, "wb") as f:
        f.write(data)
    return TMP


def _inputs(pos):
    x = []
    for color in (pos.turn, 1 - pos.turn):
        for k in range(26):
            c = pos.board[26 * color + k]
            x.append(1 if c >= 1 else 0)
            x.append(1 if c >= 2 else 0)
            x.append(1 if c >= 3 else 0)
            x.append(c - 3 if c > 3 else 0)
    return x


def _reference(parts, hidden, pos):
    """The net written out plainly (all inputs, no skipping), integers."""
    lin, b1, w1, w2, b2 = parts
    x = _inputs(pos)
    out = b2
    for j in range(hidden):
        a = b1[j]
        for i in range(INPUTS):
            a += x[i] * w1[i * hidden + j]
        if a > 0:
            out += a * w2[j]
    q = 0
    for i in range(INPUTS):
        q += x[i] * lin[i]
    return out, q


def _positions(v, n, seed):
    r = Lcg(seed)
    pos = v.start_position()
    out = []
    while len(out) < n:
        dice = (r.next(6) + 1, r.next(6) + 1)
        turns = v.legal_turns(pos, dice)
        pos = turns[r.next(len(turns))][1]
        if pos.board[25] == 15 or pos.board[51] == 15:
            pos = v.start_position()
            continue
        out.append(pos)
    return out


def test_net_equals_plain_computation():
    for v, code in ((LongNardy(), 0), (ShortNardy(), 1)):
        data, parts = _weights(code, 5, 7 + code)
        net = Net(_write(data), v.name)
        for pos in _positions(v, 40, 3 + code):
            want, want_q = _reference(parts, 5, pos)
            assert net.value(pos) == want
            assert net.quick(pos) == want_q
            # evaluated for the side to move: the other side's view differs
            assert net.equity(pos) == want / net.scale


def test_committed_weights_load():
    for v in (LongNardy(), ShortNardy()):
        net = _net(v.name)
        assert net.hidden >= 8
        pos = v.start_position()
        assert -3.0 <= net.equity(pos) <= 3.0


def _refused(data, variant, words):
    try:
        Net(_write(data), variant)
    except WeightsError as e:
        msg = str(e)
        for w in words:
            assert w in msg, msg
        return
    raise AssertionError("accepted a bad weights file")


def test_bad_weights_files():
    data, _ = _weights(0, 4, 1)
    _refused(b"XXXX" + data[4:], "long", ("magic",))
    _refused(data[:100], "long", ("truncated",))
    _refused(data, "short", ("not for short",))
    _refused(data + b"\0", "long", ("longer",))
    bad = bytearray(data)
    bad[200] ^= 1
    _refused(bytes(bad), "long", ("checksum",))
    bad = bytearray(data)
    bad[4] = 9
    _refused(bytes(bad), "long", ("version",))
    try:
        Net("/nonexistent/weights.bin", "long")
        raise AssertionError("opened a missing file")
    except WeightsError as e:
        assert "cannot open" in str(e)


def test_choice_is_legal_and_the_nets_best():
    for v, code in ((LongNardy(), 0), (ShortNardy(), 1)):
        data, _ = _weights(code, 4, 11)
        net = Net(_write(data), v.name)
        bot = Bot(v, net)
        r = Lcg(5)
        for pos in _positions(v, 12, 9):
            dice = (r.next(6) + 1, r.next(6) + 1)
            results = [t[1].board for t in v.legal_turns(pos, dice)]
            every = Bot(v, net, keep=len(results))      # the net rates every result
            steps, res = every.choose(pos, dice)
            assert res.board in results
            best = max(-net.value(t[1]) for t in v.legal_turns(pos, dice))
            assert -net.value(res) == best
            again = bot.choose(pos, dice)
            assert again[1].board in results
            assert bot.choose(pos, dice)[1].board == again[1].board     # deterministic


def test_bot_bears_off_the_last_checker():
    v = ShortNardy()
    net = _net("short")
    pos = build(v, {24: 1, 23: 1}, {1: 5}, turn=WHITE)
    steps, res = Bot(v, net).choose(pos, (6, 5))
    assert res.board[25] == 15
    assert len(steps) == 2


def test_no_allocation_growth_over_a_game():
    v = LongNardy()
    bot = Bot(v, _net("long"))
    r = Lcg(2)
    pos = v.start_position()
    seen = []
    for _ in range(60):
        dice = (r.next(6) + 1, r.next(6) + 1)
        steps, pos = bot.choose(pos, dice)
        if pos.board[25] == 15 or pos.board[51] == 15:
            break
        gc.collect()
        seen.append(gc.mem_alloc() if hasattr(gc, "mem_alloc") else 0)
    # after the first turns the live heap stays flat: nothing accumulates per turn
    assert max(seen[5:]) - min(seen[5:]) < 4096, seen


def _reference_choice(v, net, pos, dice, keep):
    """The chooser written plainly on the public ``turns``: pre-filter, keep the best
    ``keep`` (a new result replaces the first weakest only if strictly better), then
    the net; an exact tie goes to the smaller steps."""
    kept = []
    for steps, res in v.turns(pos, dice):
        if res.board[26 * pos.turn + 25] == 15:
            return steps, res                   # (no double win in these positions)
        s = -net.quick(res)
        if len(kept) < keep:
            kept.append([s, steps, res])
        else:
            w = 0
            for i in range(1, keep):
                if kept[i][0] < kept[w][0]:
                    w = i
            if s > kept[w][0]:
                kept[w] = [s, steps, res]
    best = None
    for _s, steps, res in kept:
        val = -net.value(res)
        if best is None or val > best[0] or (val == best[0] and steps < best[1]):
            best = (val, steps, res)
    return best[1], best[2]


def test_choice_equals_plain_chooser_with_prefilter():
    for v in (LongNardy(), ShortNardy()):
        net = _net(v.name)
        bot = Bot(v, net, keep=3)           # a small keep: the pre-filter decides often
        r = Lcg(21)
        for pos in _positions(v, 25, 13):
            dice = (r.next(6) + 1, r.next(6) + 1)
            steps, res = bot.choose(pos, dice)
            want = _reference_choice(v, net, pos, dice, 3)
            assert steps == want[0] and res.board == want[1].board, (steps, want[0])
