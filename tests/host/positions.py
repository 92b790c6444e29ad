"""Random positions for property tests and the gnubg comparison (CPython only)."""

import random

from nardy.rules import BLACK, WHITE, Position


def _spread(rng, n, slots):
    """Drop n checkers one by one onto random slots (a list of path points)."""
    out = {}
    for _ in range(n):
        k = rng.choice(slots)
        out[k] = out.get(k, 0) + 1
    return out


def random_short(rng):
    """A short-nardy position with the variety the engine must handle: contact,
    checkers on the bar, bear-off and late endgames. Each side's points are in its
    own path numbering; a physical point is never held by both colours."""
    while True:
        kind = rng.random()
        pos = Position(turn=rng.choice((WHITE, BLACK)))
        taken = set()  # physical points in white's path numbering
        ok = True
        for color in (WHITE, BLACK):
            side = pos.side(color)
            if kind < 0.35:      # contact, anywhere
                slots = list(range(1, 25))
                off = 0
                bar = rng.choice((0, 0, 0, 1, 2))
            elif kind < 0.55:    # bar-heavy
                slots = list(range(1, 25))
                off = 0
                bar = rng.randint(1, 4)
            elif kind < 0.8:     # bearing off, maybe with a straggler
                slots = list(range(19, 25)) * 4 + list(range(13, 19))
                off = rng.randint(0, 12)
                bar = 0
            else:                # all home, bearing off
                slots = list(range(19, 25))
                off = rng.randint(0, 14)
                bar = 0
            side[0] = bar
            side[25] = off
            for k, n in _spread(rng, 15 - bar - off, slots).items():
                w = k if color == WHITE else 25 - k
                if w in taken:
                    ok = False
                side[k] += n
            for k in range(1, 25):
                if side[k]:
                    taken.add(k if color == WHITE else 25 - k)
        if ok:
            return pos


def random_long(rng):
    """A long-nardy position: each side anywhere along its path, no shared points."""
    from nardy.longnardy import LongNardy
    v = LongNardy()
    while True:
        pos = Position(turn=rng.choice((WHITE, BLACK)))
        phys = {}
        ok = True
        for color in (WHITE, BLACK):
            side = pos.side(color)
            kind = rng.random()
            if kind < 0.6:
                slots = list(range(1, 25))
                off = 0
            else:
                slots = list(range(19, 25))
                off = rng.randint(0, 14)
            side[25] = off
            for k, n in _spread(rng, 15 - off, slots).items():
                p = v.physical(color, k)
                if phys.get(p, color) != color:
                    ok = False
                phys[p] = color
                side[k] = n
        if ok:
            return pos
