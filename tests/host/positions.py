"""Random positions for property tests and the gnubg comparison (CPython only)."""


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
    pos = Position(turn=rng.choice((WHITE, BLACK)))
    kind = rng.random()
    free = set(range(1, 25))   # physical points, in white's path numbering
    for color in (WHITE, BLACK):
        side = pos.side(color)
        if kind < 0.35:      # contact, anywhere
            region, off, bar = range(1, 25), 0, rng.choice((0, 0, 0, 1, 2))
        elif kind < 0.55:    # bar-heavy
            region, off, bar = range(1, 25), 0, rng.randint(1, 4)
        elif kind < 0.8:     # bearing off, maybe with a straggler
            region, off, bar = range(13, 25), rng.randint(0, 12), 0
        else:                # all home, bearing off
            region, off, bar = range(19, 25), rng.randint(0, 14), 0
        mine = [k for k in region if (k if color == WHITE else 25 - k) in free]
        rng.shuffle(mine)
        pts = mine[:rng.randint(1, min(8, len(mine)))]
        if kind >= 0.55 and kind < 0.8 and rng.random() < 0.6:
            pts = [k for k in pts if k >= 19] or pts   # mostly home, a straggler or not
        side[0] = bar
        side[25] = off
        for k, n in _spread(rng, 15 - bar - off, pts).items():
            side[k] = n
            free.discard(k if color == WHITE else 25 - k)
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
