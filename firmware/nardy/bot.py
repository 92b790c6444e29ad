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

import micropython

from nardy.evaluate import Net, _quick
from nardy.rules import CHECKERS, OFF, Position, _apply_board, _steps_of
from nardy.scoring import game_result

KEEP = 24    # results the net rates after the pre-filter (~6 ms each on an ESP32)


class Bot:
    def __init__(self, variant, weights, keep=KEEP):
        self.variant = variant
        self.net = weights if isinstance(weights, Net) else Net(weights, variant.name)
        if self.net.variant != variant.name:
            raise ValueError("weights are for %s nardy" % self.net.variant)
        self.keep = keep
        # allocated once: the candidates' quick scores and packed steps, two boards
        self._score = [0] * keep
        self._codes = [0] * keep
        self._start = bytearray(52)
        self._board = bytearray(52)

    @micropython.native
    def choose(self, pos, dice):
        """``(steps, position)``: the turn to play; ``steps == ()`` if none is legal."""
        v = self.variant
        # The engine's own enumeration (what ``v.turns`` iterates): the distinct results
        # as packed step codes. Each is played on one scratch board and scored there,
        # so a 1,800-result double builds no Position until the chosen one.
        table = v._exact(v._enumerate, pos, dice)[0]
        root = v._root
        opp_of = v._O
        hits = v.HITS
        start = self._start
        b = self._board
        start[:] = pos.board
        me = 26 * pos.turn
        op = 26 - me
        keep = self.keep
        score = self._score
        codes = self._codes
        lin = self.net.lin
        n = 0
        worst = 0                    # index of the weakest kept candidate
        end_code = -1
        end_pts = -1
        for chunk in table:
            for e in chunk:
                if not e:
                    continue
                code = (e & 0xFFFFFF) - 1
                b[:] = start
                _apply_board(code, root, b, me, op, opp_of, hits)
                if b[me + OFF] == CHECKERS:
                    pts = self._points(b, pos.turn)
                    if pts > end_pts:
                        end_pts, end_code = pts, code
                    continue
                # the opponent moves next: the lower its score, the better for the mover
                s = -_quick(lin, b, op, me)
                if n < keep:
                    score[n] = s
                    codes[n] = code
                    n += 1
                    if n == keep:
                        worst = _lowest(score, n)
                elif s > score[worst]:
                    score[worst] = s
                    codes[worst] = code
                    worst = _lowest(score, n)
        if end_code >= 0:
            return self._build(end_code, root, me, op, opp_of, hits, pos.turn)
        net = self.net
        best = 0
        best_v = 0
        for i in range(n):
            b[:] = start
            _apply_board(codes[i], root, b, me, op, opp_of, hits)
            val = -net.value_of(b, 1 - pos.turn)
            if i == 0 or val > best_v or (
                    val == best_v and _steps_of(codes[i], root) < _steps_of(codes[best], root)):
                best, best_v = i, val
        return self._build(codes[best], root, me, op, opp_of, hits, pos.turn)

    def _build(self, code, root, me, op, opp_of, hits, turn):
        new = Position(self._start, 1 - turn)
        _apply_board(code, root, new.board, me, op, opp_of, hits)
        return _steps_of(code, root), new

    def _points(self, b, turn):
        r = game_result(self.variant, Position(b, 1 - turn), True)
        return r[2] if r and r[0] == turn else 0

    def rate(self, pos, dice):
        """Every legal turn with the net's equity for the mover, best first: a list of
        ``(equity, steps, position)`` (host analysis; allocates a list)."""
        out = []
        for steps, res in self.variant.turns(pos, dice):
            if res.board[26 * pos.turn + OFF] == CHECKERS:
                r = game_result(self.variant, res, True)
                eq = float(r[2]) if r and r[0] == pos.turn else 0.0
            else:
                eq = -self.net.equity(res)
            out.append((eq, steps, res))
        out.sort(key=lambda e: -e[0])
        return out


def _lowest(score, n):
    w = 0
    for i in range(1, n):
        if score[i] < score[w]:
            w = i
    return w
