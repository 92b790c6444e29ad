"""Helpers for firmware tests (CPython and MicroPython alike)."""

from nardy.rules import BLACK, CHECKERS, WHITE, Position


def build(v, mine, theirs, turn=WHITE, my_bar=0, their_bar=0):
    """A position with ``turn`` to move. ``mine`` is {path point: n} in the mover's
    path numbering; ``theirs`` is {point: n} ALSO in the mover's numbering (so a
    test reads from one side). Checkers not placed are borne off."""
    pos = Position(turn=turn)
    me = pos.side(turn)
    op = pos.side(1 - turn)
    for k in mine:
        me[k] += mine[k]
    for k in theirs:
        op[v.opp_point(k)] += theirs[k]
    me[0] = my_bar
    op[0] = their_bar
    for side in (me, op):
        n = 0
        for k in range(25):
            n += side[k]
        assert n <= CHECKERS, "too many checkers"
        side[25] = CHECKERS - n
    return pos


def play(v, pos, steps):
    for s in steps:
        pos = v.apply_step(pos, s)
    return pos


def results(v, pos, dice):
    """Set of board bytes of the legal results."""
    return set(bytes(res.board) for _, res in v.legal_turns(pos, dice))


def final(v, pos, steps):
    return play(v, pos, steps)


def mine_after(v, pos, dice):
    """Set of tuples of the mover's counters in each legal result."""
    out = set()
    for _, res in v.legal_turns(pos, dice):
        out.add(tuple(res.side(pos.turn)))
    return out


def side_of(pos, color=None):
    c = pos.turn if color is None else color
    return tuple(pos.side(c))


class Rand:
    """A deterministic os.urandom stand-in (the same bytes on both runtimes)."""

    def __init__(self, seed):
        self.x = seed & 0xFFFFFFFF or 1

    def __call__(self, n):
        out = bytearray(n)
        x = self.x
        for i in range(n):
            x ^= (x << 13) & 0xFFFFFFFF
            x ^= x >> 17
            x ^= (x << 5) & 0xFFFFFFFF
            out[i] = x & 0xFF
        self.x = x
        return bytes(out)


__all__ = ["Rand", "build", "play", "results", "final", "mine_after", "side_of", "WHITE", "BLACK"]
