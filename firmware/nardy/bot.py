"""The move chooser: the board's own player, for both games. Pure.

    from nardy.bot import Bot
    bot = Bot(LongNardy(), "weights/long.bin")
    steps, result = bot.choose(pos, dice)     # one of v.turns(pos, dice)

Every legal result of the roll (the rules engine's ``turns``) is scored by the
evaluator's linear pre-filter (52 table look-ups); the best ``keep`` of them are rated
by the net, and the result leaving the opponent the lowest equity is played. A result
that ends the game is played at once (the most points first). Ties go to the first
result the engine yields, so the choice is deterministic: the same on the board, the
unix port and the host.
"""

import micropython

from nardy.evaluate import Net, _quick
from nardy.rules import CHECKERS, OFF
from nardy.scoring import game_result

KEEP = 24    # results the net rates after the pre-filter (~6 ms each on an ESP32)


class Bot:
    def __init__(self, variant, weights, keep=KEEP):
        self.variant = variant
        self.net = weights if isinstance(weights, Net) else Net(weights, variant.name)
        if self.net.variant != variant.name:
            raise ValueError("weights are for %s nardy" % self.net.variant)
        self.keep = keep
        # the candidates, allocated once: quick scores and (steps, position) pairs
        self._score = [0] * keep
        self._turn = [None] * keep

    @micropython.native
    def choose(self, pos, dice):
        """``(steps, position)``: the turn to play; ``steps == ()`` if none is legal."""
        keep = self.keep
        score = self._score
        cand = self._turn
        table = self.net.table
        n = 0
        worst = 0                    # index of the weakest kept candidate
        me = 26 * pos.turn
        op = 26 - me
        off = me + OFF
        best_end = None
        for t in self.variant.turns(pos, dice):
            b = t[1].board
            if b[off] == CHECKERS:
                r = game_result(self.variant, t[1], True)
                pts = r[2] if r and r[0] == pos.turn else 0
                if best_end is None or pts > best_end[0]:
                    best_end = (pts, t)
                continue
            # the opponent moves next: the lower its score, the better for the mover
            s = -_quick(table, b, op, me)
            if n < keep:
                score[n] = s
                cand[n] = t
                n += 1
                if n == keep:
                    worst = _lowest(score, n)
            elif s > score[worst]:
                score[worst] = s
                cand[worst] = t
                worst = _lowest(score, n)
        if best_end is not None:
            self._clear(n)
            return best_end[1]
        net = self.net
        best = 0
        best_v = 0
        for i in range(n):
            v = -net.value(cand[i][1])
            if i == 0 or v > best_v or (v == best_v and cand[i][0] < cand[best][0]):
                best, best_v = i, v
        t = cand[best]
        self._clear(n)
        return t

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

    def _clear(self, n):
        # drop the references so the positions can be collected between turns
        for i in range(n):
            self._turn[i] = None


def _lowest(score, n):
    w = 0
    for i in range(1, n):
        if score[i] < score[w]:
            w = i
    return w
