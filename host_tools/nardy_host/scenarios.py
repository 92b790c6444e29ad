"""Short-nardy starting positions the plain teacher games rarely reach, for the
gnubg-taught training (``nardy_host.train short --scenarios``): where the committed
net loses most (issue 25).

- ``koks``: the bearer (to move or not) has 1-4 checkers left in its home, the other
  side still has 1-3 checkers in that home (S5: a koks, 3 points, if it is not out
  before the bearer finishes), the rest of its checkers anywhere further on;
- ``containment``: a prime of 4-6 points (two or more checkers each, S2) in front of
  1-3 of the other side's checkers (some on the bar, S3);
- ``bearoff_contact``: the bearer has every checker home (some off) while the other
  side holds an anchor (two checkers) in that home.

Positions are built on own path points (0 bar, 1..24, 25 off); short nardy's
sides face each other (my path p is the other side's 25 - p), and no point holds
both colours. Each side has exactly 15 checkers.
"""

from nardy.rules import CHECKERS, Position

KINDS = ("koks", "containment", "bearoff_contact")


class _Builder:
    """Places checkers of side A (the bearer / the primer) and side B on one board."""

    def __init__(self, rng, a):
        self.rng = rng
        self.a, self.b = a, 1 - a
        self.pos = Position(turn=rng.randint(0, 1))

    def count(self, color, p):
        return self.pos.board[26 * color + p]

    def free(self, color, p):
        """No checker of the other colour on ``color``'s path point p (1..24)."""
        if p in (0, 25):
            return True
        return self.count(1 - color, 25 - p) == 0

    def put(self, color, p, n=1):
        assert self.free(color, p), (color, p)
        self.pos.board[26 * color + p] += n

    def left(self, color):
        return CHECKERS - sum(self.pos.board[26 * color:26 * color + 26])

    def scatter(self, color, points):
        """The side's remaining checkers, one at a time, on free points of ``points``."""
        points = [p for p in points if self.free(color, p)]
        for _ in range(self.left(color)):
            self.put(color, self.rng.choice(points))


def koks(rng):
    s = _Builder(rng, rng.randint(0, 1))
    caught = rng.randint(1, 3)
    home = list(range(19, 25))
    for _ in range(caught):                # B's checkers in A's home: B path 1..6
        s.put(s.b, 25 - rng.choice(home))
    for _ in range(rng.randint(1, 4)):
        p = rng.choice([q for q in home if s.free(s.a, q)])
        s.put(s.a, p)
    s.put(s.a, 25, s.left(s.a))
    s.scatter(s.b, range(7, 25))
    return s.pos


def containment(rng):
    s = _Builder(rng, rng.randint(0, 1))
    length = rng.randint(4, 6)
    start = rng.randint(13, 25 - length)    # A's prime on its path 13..24
    for p in range(start, start + length):
        s.put(s.a, p, 2)
    trapped = rng.randint(1, 3)
    for _ in range(trapped):                # behind the prime (B path below 25 - start
        q = rng.randint(0, 25 - start - length)   # - length + 1), or on the bar
        if s.free(s.b, q):
            s.put(s.b, q)
        else:
            s.put(s.b, 0)
    s.scatter(s.a, range(1, 25))
    s.scatter(s.b, range(7, 25))
    return s.pos


def bearoff_contact(rng):
    s = _Builder(rng, rng.randint(0, 1))
    anchor = rng.randint(19, 24)
    s.put(s.b, 25 - anchor, 2)
    off = rng.randint(0, 8)
    s.put(s.a, 25, off)
    s.scatter(s.a, range(19, 25))
    s.scatter(s.b, range(7, 25))
    return s.pos


def make(kind, rng):
    return {"koks": koks, "containment": containment,
            "bearoff_contact": bearoff_contact}[kind](rng)
