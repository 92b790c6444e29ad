"""The move chooser: the board's own player, for both games. Pure.

    from nardy.bot import Bot
    bot = Bot(LongNardy(), "weights/long.bin")
    steps, result = bot.choose(pos, dice)     # one of v.turns(pos, dice)

Every legal result of the roll (exactly the rules engine's ``turns``, read from its
enumeration as packed step codes and played on one scratch board, so no Position is
built per result) is scored by the evaluator's linear pre-filter (the occupied points' weights);
the best ``keep`` of them are rated by the net, and the result leaving the opponent
the lowest equity is played. A result that ends the game is played at once (the most
points first). An exact tie goes to the smaller step sequence, so the choice is
deterministic: the same on the board, the unix port and the host.
"""

from array import array

from nardy.evaluate import Net, quick
from nardy.rules import CHECKERS, OFF, Position, apply_code, new_table, steps_of
from nardy.scoring import game_result

# Results the net rates after the linear pre-filter (~4 ms each on an ESP32). Long
# nardy's 128-unit net: 64 find its own choice (every result rated instead gains
# +0.001 ± 0.012 a game over 64), where 24 lost 0.064 a game; short nardy: 64 gain
# nothing over 24 (+0.001 ± 0.010). docs/ENGINE.md, "How many results the net rates".
KEEP = 24
KEEP_LONG = 64


def keep_for(variant_name):
    """How many of a roll's results the net rates in ``variant_name``."""
    return KEEP_LONG if variant_name == "long" else KEEP


class Bot:
    def __init__(self, variant, weights, keep=None):
        self.variant = variant
        # The weights first: their reader (nardy.netfile) needs the holes the buffers
        # below would take (made first, a 56wK board could not load its player at
        # ``new``). Buffers that then fail free the weights with them.
        own = not isinstance(weights, Net)
        self.net = Net(weights, variant.name) if own else weights
        try:
            self._setup(variant, keep)
        except BaseException:
            if own:
                self.net.free()     # its weights leave the heap with this failed Bot
            raise

    def _setup(self, variant, keep):
        if self.net.variant != variant.name:
            raise ValueError("weights are for %s nardy" % self.net.variant)
        keep = self.keep = keep or keep_for(variant.name)
        # allocated once: the candidates' quick scores and packed steps [0, keep),
        # each array's last slot the best game-ending result's points and steps
        # (fewer attributes: the instance's dict fits 12 slots, not 17), and two
        # boards. Two arrays of 260 bytes at long nardy's 64, not one of 520: the
        # block a fragmented 56wK heap must find at each game's start
        self._score = array("i", bytes(4 * (keep + 1)))
        self._code = array("i", bytes(4 * (keep + 1)))
        self._score[keep] = self._code[keep] = -1    # none yet
        self._start = bytearray(52)
        self._board = bytearray(52)
        # the table other rolls' results go to, kept from one choice to the next
        # (Variant.each_result: 4 chunks, what it keeps). Its first chunk is the
        # net's ``acc``: the table is read to its end before the net rates a result
        # and emptied (zeroed) before the next search, and ``acc`` is scratch within
        # one rating, so one 256-byte block serves both (a 56wK board in a game it
        # plays has under 1 KB to spare)
        self._out = t = new_table(3)
        t[0].insert(0, self.net.acc)
        # _take's state over one search: the mover's side, the roll's dice order,
        # how many are kept and the weakest
        self._me = self._n = self._worst = 0
        self._root = None

    def choose(self, pos, dice):
        """``(steps, position)``: the turn to play; ``steps == ()`` if none is legal."""
        v = self.variant
        chunks = self._out[0]
        if chunks[0] is not self.net.acc:
            # the table grew (a double searched in full order: rules' _grow made
            # it new chunks); the next search keeps four of them: the first is the
            # net's acc again, and the chunk it replaces leaves the heap
            chunks[0] = self.net.acc
        self._start[:] = pos.board
        self._me = 26 * pos.turn
        # The engine's own enumeration (what ``v.turns`` iterates), each result as a
        # packed step code played on one scratch board and scored there, so no
        # Position is built until the chosen one. A double's results come to _take
        # as the search finds them (in the order the table would hold them), so even
        # a 1,800-result double keeps no table; other rolls' results are in the table.
        table = v.each_result(pos, dice, self._take, self._out)
        take = self._take
        for chunk in table[0]:
            for e in chunk:
                if e:
                    take((e & 0xFFFFFF) - 1)
        root = self._root
        me = self._me
        op = 26 - me
        opp_of = v.opp_of
        hits = v.HITS
        codes = self._code
        keep = self.keep
        if codes[keep] >= 0:        # a result that ends the game
            return self._build(codes[keep], root, me, op, opp_of, hits, pos.turn)
        net = self.net
        b = self._board
        start = self._start
        best = 0
        best_v = 0
        for i in range(self._n):
            code = codes[i]
            b[:] = start
            apply_code(code, root, b, me, op, opp_of, hits)
            val = -net.value_of(b, 1 - pos.turn)
            if i == 0 or val > best_v or (
                    val == best_v and steps_of(code, root) < steps_of(codes[best], root)):
                best, best_v = i, val
        return self._build(codes[best], root, me, op, opp_of, hits, pos.turn)

    # (Bytecode, not @micropython.native: the board drops this module after each game
    # it plays and imports it again for the next, and native code is never freed,
    # the ESP32 copies it to IRAM at every import. As bytecode it is 3-5% slower at
    # p99 and allocates less: a short-nardy choice 7.5 KB at most instead of 38.7 KB,
    # ``make bench``.)
    def _take(self, code):
        """One legal result of the roll (its packed step code), in the engine's
        order: the linear pre-filter keeps the best ``keep``; a result that ends the
        game is remembered apart (the most points). -1: a search starts (again)."""
        score = self._score
        codes = self._code
        keep = self.keep
        if code < 0:
            self._root = self.variant.dice_order
            self._n = self._worst = 0
            score[keep] = codes[keep] = -1      # no game-ending result yet
            return
        v = self.variant
        b = self._board
        b[:] = self._start
        me = self._me
        op = 26 - me
        apply_code(code, self._root, b, me, op, v.opp_of, v.HITS)
        if b[me + OFF] == CHECKERS:
            pts = self._points(b, me // 26)
            if pts > score[keep]:
                score[keep] = pts
                codes[keep] = code
            return
        # the opponent moves next: the lower its score, the better for the mover
        s = -quick(self.net.lin, b, op, me)
        n = self._n
        if n < keep:
            score[n] = s
            codes[n] = code
            n += 1
            self._n = n
            if n == keep:
                self._worst = _lowest(score, n)
        elif s > score[self._worst]:
            w = self._worst
            score[w] = s
            codes[w] = code
            self._worst = _lowest(score, n)

    def _build(self, code, root, me, op, opp_of, hits, turn):
        new = Position(self._start, 1 - turn)
        apply_code(code, root, new.board, me, op, opp_of, hits)
        return steps_of(code, root), new

    def _points(self, b, turn):
        r = game_result(self.variant, Position(b, 1 - turn), True)
        return r[2] if r and r[0] == turn else 0


def _lowest(score, n):
    w = 0
    for i in range(1, n):
        if score[i] < score[w]:
            w = i
    return w
