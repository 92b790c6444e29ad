"""The evaluator (nardy.evaluate) and the chooser (nardy.bot), under CPython and
MicroPython: integer net equal to a plain re-computation, weights file checks, the
chooser's choice is legal, deterministic, the net's best, and allocation-stable."""

import array
import binascii
import gc
import struct

from fwutil import build

from nardy.bot import Bot
from nardy.evaluate import Net, quick
from nardy.longnardy import LongNardy
from nardy.netfile import INPUTS, MAGIC
from nardy.rules import WHITE, steps_of
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
    """The committed weights, read once while a test asks for the same game (a
    28-57 KB array wants an unfragmented heap: on the board the net is read once,
    before play). One net at a time, as the board holds: both (57 KB each since 128
    hidden units) leave the other tests of this module too little of the 112wK heap.
    The one before is freed as ``botplay`` frees it, whoever still holds it (a test's
    local ``net`` or ``Bot`` of the last game)."""
    if name not in _NETS:
        _drop_nets()
        try:
            _NETS[name] = Net(WEIGHTS + name + ".bin", name)
        except MemoryError:
            # the 512-unit short net (224 KB) does not fit the unix port's 112wK
            # heap beside this module: as on a board without room (botplay.load),
            # the smaller net of the game (CPython reads the big one)
            gc.collect()
            _NETS[name] = Net(WEIGHTS + name + "-small.bin", name)
    return _NETS[name]


def _drop_nets():
    for net in _NETS.values():
        net.free()
    _NETS.clear()
    gc.collect()


def teardown_function(function):
    """After each test (pytest's hook; tests/mprun.py calls it too): the committed
    net it read goes, so the next test has the heap a board has between games."""
    _drop_nets()


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
            assert quick(net.lin, pos.board, 26 * pos.turn, 26 - 26 * pos.turn) == want_q


def test_committed_weights_load():
    for v in (LongNardy(), ShortNardy()):
        net = _net(v.name)
        assert net.hidden >= 8
        pos = v.start_position()
        assert -3.0 <= net.value(pos) / net.scale <= 3.0


def _weights_error(e):
    """A ``nardy.netfile.WeightsError``: by name, as MicroPython drops the module after
    each read, so each load makes the class anew (the board catches ValueError)."""
    return isinstance(e, ValueError) and type(e).__name__ == "WeightsError"


def _refused(data, variant, words):
    try:
        Net(_write(data), variant)
    except ValueError as e:
        assert _weights_error(e), e
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
    _refused(data, "chess", ("unknown variant",))
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
    except ValueError as e:
        assert _weights_error(e) and "cannot open" in str(e)


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
        seen.append(_live())
    # after the first turns the live heap stays flat: nothing accumulates per turn
    assert len(seen) > 10 and max(seen[5:]) - min(seen[5:]) < _LIVE_SLACK, seen


def _live():
    """What the heap holds after a collection: bytes under MicroPython; under CPython
    (no gc.mem_alloc) the number of objects the collector tracks, which grows as
    surely when something accumulates."""
    gc.collect()
    if hasattr(gc, "mem_alloc"):
        return gc.mem_alloc()
    return len(gc.get_objects())


# bytes (MicroPython) or tracked objects (CPython) the live heap may wander by
_LIVE_SLACK = 4096 if hasattr(gc, "mem_alloc") else 64


def test_the_live_heap_measure_sees_an_accumulation():
    # the check above can fail: a list kept growing by a few objects a turn shows
    kept = []
    seen = []
    for _ in range(30):
        kept.append([[bytearray(200)] for _k in range(8)])
        seen.append(_live())
    assert max(seen[5:]) - min(seen[5:]) >= _LIVE_SLACK, seen


def _reference_choice(v, net, pos, dice, keep):
    """The chooser written plainly on the public ``turns``: pre-filter, keep the best
    ``keep`` (a new result replaces the first weakest only if strictly better), then
    the net; an exact tie goes to the smaller steps."""
    kept = []
    for steps, res in v.turns(pos, dice):
        if res.board[26 * pos.turn + 25] == 15:
            return steps, res                   # (no double win in these positions)
        s = -quick(net.lin, res.board, 26 * res.turn, 26 - 26 * res.turn)
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


def _streamed(v, pos, dice):
    """What the chooser is handed for a roll (``Variant.each_result``): the codes after
    the last -1 (a search starting), then the results the table stores, as step
    sequences; also how many searches started and how many results were stored."""
    got = []
    table = v.each_result(pos, dice, got.append, None)
    last = len(got) - 1 - got[::-1].index(-1)
    codes = got[last + 1:] + [(e & 0xFFFFFF) - 1 for c in table[0] for e in c if e]
    return [steps_of(c, v.dice_order) for c in codes], got.count(-1), table[1]


def test_a_double_hands_its_results_over_as_found_and_stores_none():
    # the bot's enumeration of a double keeps no table (a 1,800-result double would
    # need ~7 KB of it); it sees every result once, in the order turns() gives
    for v in (LongNardy(), ShortNardy()):
        for pos in _positions(v, 8, 31):
            for d in range(1, 7):
                want = [steps for steps, _ in v.turns(pos, (d, d))]
                steps, starts, stored = _streamed(v, pos, (d, d))
                assert steps == want and starts == 1, (d, steps, want)
                assert stored == 0 or want == [()], stored     # () is stored: no move
            a, b = 6, 2
            steps, starts, stored = _streamed(v, pos, (a, b))   # not a double: stored
            assert steps == [s for s, _ in v.turns(pos, (a, b))] and stored == len(steps)


def test_a_double_that_meets_a_six_block_is_searched_again_in_full_order():
    # 1-1, 2-2, 3-3 from here can close my 5..10 (L5) with every opposing checker
    # behind it: canonical order may then miss results, so the engine searches again
    # (a second -1) and the first search's results must not count twice
    v = LongNardy()
    p = build(v, {1: 8, 3: 1, 5: 1, 6: 1, 7: 1, 8: 2, 10: 1}, {4: 1, 13: 14})
    bot = Bot(v, _net("long"), keep=3)
    net = bot.net
    for d in (1, 2, 3):
        want = [steps for steps, _ in v.turns(p, (d, d))]
        steps, starts, stored = _streamed(v, p, (d, d))
        assert starts == 2 and steps == want and stored == len(want)
        got = bot.choose(p, (d, d))
        ref = _reference_choice(v, net, p, (d, d), 3)
        assert got[0] == ref[0] and got[1].board == ref[1].board
        assert v._sink is None


def test_the_nets_acc_is_the_results_tables_first_chunk_again_after_it_grew():
    # one 256-byte block serves the net's sums and the table (the table is read out
    # before a rating and zeroed before a search); a table that grew has new chunks,
    # and the next choice puts the acc back in the four it keeps
    v = LongNardy()
    bot = Bot(v, _net("long"))
    net = bot.net
    p = v.start_position()
    assert bot._out[0][0] is net.acc and len(bot._out[0]) == 4
    first = bot.choose(p, (6, 2))
    bot._out[0][:] = [array.array("I", bytes(256)) for _ in range(8)]   # as _grow leaves it
    assert bot.choose(p, (6, 2)) == first
    assert bot._out[0][0] is net.acc and len(bot._out[0]) == 4
    ref = _reference_choice(v, net, p, (5, 3), bot.keep)
    got = bot.choose(p, (5, 3))
    assert got[0] == ref[0] and got[1].board == ref[1].board


def test_the_board_player_asks_for_no_new_table_per_move():
    # each table is a 256-byte chunk, the block a fragmented 56 KB heap lacks first:
    # the chooser keeps one for the results of two different dice, a double hands
    # its results over as found, and neither needs a transposition table
    from nardy import rules
    real = rules.new_table
    calls = []

    def counting(n=1):
        calls.append(n)
        return real(n)

    for v in (LongNardy(), ShortNardy()):
        bot = Bot(v, _net(v.name))
        positions = _positions(v, 15, 17)
        rules.new_table = counting
        try:
            for pos in positions:
                for dice in ((6, 5), (4, 4), (2, 1), (3, 3), (6, 6)):
                    bot.choose(pos, dice)
        finally:
            rules.new_table = real
        assert not calls, (v.name, len(calls))


def test_with_no_room_for_the_full_order_search_a_double_is_still_played():
    # the six-block position above, on a heap with no room for a new chunk while the
    # engine searches in full order: its memos are done without, and when the
    # chooser's results table cannot grow (one chunk here: 72 results need two) the
    # board plays one of the results canonical order found
    from nardy import rules
    v = LongNardy()
    p = build(v, {1: 8, 3: 1, 5: 1, 6: 1, 7: 1, 8: 2, 10: 1}, {4: 1, 13: 14})
    want = {d: (v.next_steps(p, (d, d)), v.targets(p, (d, d), [], 3),
                v.step_error(p, (d, d), [], (3, 3 + d)), v.max_steps(p, (d, d)))
            for d in (1, 2, 3)}
    legal = [r.board for _, r in v.legal_turns(p, (1, 1))]
    bot = Bot(v, _net("long"))
    bot._out = rules.new_table(1)
    real = rules.array
    refused = []

    def no_room(code, init):
        if v._full_order:
            refused.append(code)
            raise MemoryError("no room")
        return real(code, init)

    rules.array = no_room
    try:
        got = {d: (v.next_steps(p, (d, d)), v.targets(p, (d, d), [], 3),
                   v.step_error(p, (d, d), [], (3, 3 + d)), v.max_steps(p, (d, d)))
               for d in (1, 2, 3)}
        assert got == want and refused        # the same answers without the memos
        del refused[:]
        steps, res = bot.choose(p, (1, 1))
    finally:
        rules.array = real
    assert refused and v._sink is None and not v._full_order
    assert res.board in legal and len(steps) == 4


def test_the_players_objects_keep_their_dicts_within_12_slots():
    # The board's player stays on the heap through a game of the board's (at 56wK
    # with the code in flash, the soak's peak was 96 bytes over its limit). An
    # instance's dict grows only when full, 12 slots -> 17 (16 bytes each on the
    # 64-bit port): the Bot held 14 attributes (two arrays and the game-ending
    # result's code and points are one array now) and the Net 13 (``mapped``,
    # which nothing read, is gone).
    net = _net("long")
    bot = Bot(LongNardy(), net)
    assert len(bot.__dict__) <= 12, sorted(bot.__dict__)
    assert len(net.__dict__) <= 12, sorted(net.__dict__)
