"""The evaluator's inputs for many boards at once (numpy): what ``nardy.evaluate``
computes for one board, vectorised for training and the host players.

- the 208 raw inputs (both versions of the weights file): per side (the side to move
  first) and own path point 0..25, c >= 1, c >= 2, c >= 3, max(c - 3, 0);
- version 2 adds ``EXTRAS`` = 12 long-nardy inputs (``nardy.evaluate._extras``), six
  per side (the side to move first), each a small integer. A side's block and reach
  are seen along the other side's path (L1: my path p is its path p -+ 12), where the
  other side must pass them (L2: any checker closes a point, L5: six in a row):

  0 prime: the longest run of points the side holds ahead of the other side's
    rearmost checker (capped at 6, a full six-block);
  1 front: points the side holds among the six in front of that checker;
  2 rear: 25 - the side's own rearmost path point (how far its last checker has to
    go; 0 when all are off);
  3 reach: 1 if the side holds any point ahead of the other side's rearmost checker
    (it can still block: no race yet);
  4 mars danger: the checkers the other side has borne off while this side has none
    off (L6: a mars is a loss with none off);
  5 race pips: the side's pip count // 8, only in a race (neither side reaches).

Version 3 (short nardy) has ``EXTRAS`` = 12 short-nardy inputs instead
(``nardy.evaluate._short_extras``, ``short_extras`` here), six per side (the side to
move first). The other side's path point q is my path point 25 - q (S1: the sides
move in opposite directions); a point is held by two or more checkers (S3):

  0 shots: of the 36 rolls, those on which the side can hit a blot of the other
    side (C7) with one checker: a die's number, or both dice (a double: up to four
    times) through points the other side does not hold;
  1 prime: the longest run of points the side holds ahead of the other side's
    rearmost checker (capped at 6, a full prime);
  2 front: points the side holds among the six in front of that checker;
  3 rear: 25 - the side's own rearmost path point (the bar 0 counts: 25);
  4 race: 1 when no checker of either side has the other side's still to pass;
  5 race pips: the side's pip count // 8, only in a race.

The raw inputs and their sums (pips, checkers home) are linear, which the net can
learn by itself; the extras are not (maxima, runs, products).
"""

import numpy as np

EXTRAS = 12
RAW = 208
PER_SIDE = 6
_Q = np.arange(1, 25)
# L1: the other side's path point q is my path point q + 12 (q <= 12) or q - 12
_MINE_AT = np.where(_Q <= 12, _Q + 12, _Q - 12)
_PIP_WEIGHT = 25 - np.arange(26)          # a checker on path k has 25 - k to go
_BITS = np.int64(1) << np.arange(24, dtype=np.int64)
_RAW_OF_COUNT = np.array([[c >= 1, c >= 2, c >= 3, max(c - 3, 0)] for c in range(16)],
                         np.int32)


def boards_of(positions):
    return np.frombuffer(b"".join(bytes(p.board) for p in positions),
                         dtype=np.uint8).reshape(len(positions), 52)


def sides(boards, turn):
    """(side to move, other side): (N, 26) int views of the 52-byte boards."""
    b = boards.astype(np.int32)
    return b[:, 26 * turn:26 * turn + 26], b[:, 26 * (1 - turn):26 * (1 - turn) + 26]


def raw(me, op):
    # one table look-up: a point's count (0..15) -> its four inputs
    both = np.concatenate([me, op], axis=1)
    return _RAW_OF_COUNT[both].reshape(len(me), RAW)


def _rearmost(side):
    """The lowest own path point 1..24 holding a checker; 25 when none does."""
    held = side[:, 1:25] > 0
    return np.where(held.any(1), held.argmax(1) + 1, 25)


def _prime_front(ahead, rear_op):
    """(the longest run of held points ahead of op's rearmost checker, capped at 6;
    how many of the six points in front of it are held), from ``ahead``: the held
    points along op's path q = 1..24 beyond ``rear_op``."""
    # the longest run: a run of k + 1 leaves bits after k shifted ANDs
    bits = ahead.astype(np.int64) @ _BITS
    prime = np.zeros(len(ahead), np.int32)
    for _ in range(6):
        prime += bits != 0
        bits &= bits >> 1
    front = (ahead & (_Q[None, :] <= rear_op[:, None] + 6)).sum(1)
    return prime, front


def _half(me, op):
    """The six extras of ``me`` against ``op`` (race pips not yet masked), and
    whether ``me`` reaches ahead of ``op``'s rearmost checker."""
    held = me[:, _MINE_AT] > 0                 # my points along op's path, q = 1..24
    rear_op = _rearmost(op)
    ahead = held & (_Q[None, :] > rear_op[:, None])
    prime, front = _prime_front(ahead, rear_op)
    reach = ahead.any(1).astype(np.int32)
    rear = 25 - _rearmost(me)
    mars = np.where(me[:, 25] == 0, op[:, 25], 0)
    pips = (me * _PIP_WEIGHT).sum(1) // 8
    return np.stack([prime, front, rear, reach, mars, pips], axis=1), reach


def extras(me, op):
    # both halves in one pass (rows: me against op, then op against me): half the
    # array calls, which cost more than the arithmetic on a roll's few results
    n = len(me)
    both, reach = _half(np.concatenate([me, op]), np.concatenate([op, me]))
    race = (reach[:n] | reach[n:]) == 0
    both[:, 5] *= np.concatenate([race, race])         # race pips only in a race
    return np.concatenate([both[:n], both[n:]], axis=1).astype(np.int32)


# -- short nardy (weights version 3) ---------------------------------------------------
# the 21 distinct rolls and how many of the 36 each is
_ROLLS = [(a, b, 1 if a == b else 2) for a in range(1, 7) for b in range(a, 7)]


def _shots(me, op):
    """Of the 36 rolls, those on which ``me`` hits a blot of ``op`` with one checker
    (``nardy.evaluate._short_extras``' rule), for every row."""
    n = len(me)
    # op's count at my path point p is op[25 - p]; past point 24 nothing is hit and
    # nothing passes (a blot False, a block True), as the board's loop stops there
    at = op[:, ::-1][:, :25]                   # my p = 0..24 (p = 0: op's off, unused)
    pad = 25 + 24
    blot = np.zeros((n, pad), bool)
    block = np.ones((n, pad), bool)
    blot[:, 1:25] = at[:, 1:25] == 1
    block[:, 1:25] = at[:, 1:25] >= 2
    have = me[:, :25] > 0
    out = np.zeros(n, np.int32)

    def ahead(arr, d):
        return arr[:, d:d + 25]
    for a, b, ways in _ROLLS:
        if a == b:
            hit = ahead(blot, 4 * a)
            for k in (3, 2, 1):
                hit = ahead(blot, k * a) | (~ahead(block, k * a) & hit)
        else:
            open_ = ~ahead(block, a) | ~ahead(block, b)
            hit = ahead(blot, a) | ahead(blot, b) | (open_ & ahead(blot, a + b))
        out += ways * (have & hit).any(1)
    return out


def _held_rear(side):
    """The lowest own path point 0..24 holding a checker (the bar 0); 25 when none."""
    held = side[:, :25] > 0
    return np.where(held.any(1), held.argmax(1), 25)


def _short_half(me, op):
    """The six short-nardy extras of ``me`` against ``op`` (race and race pips filled
    in by ``short_extras``)."""
    n = len(me)
    # my points along op's path q = 1..24: my path point 25 - q, held with 2+ (S3)
    held = me[:, 24:0:-1] >= 2
    rear_op = _held_rear(op)
    ahead = held & (_Q[None, :] > rear_op[:, None])
    prime, front = _prime_front(ahead, rear_op)
    rear = 25 - _held_rear(me)
    pips = (me * _PIP_WEIGHT).sum(1) // 8
    zero = np.zeros(n, np.int32)
    return np.stack([_shots(me, op), prime, front, rear, zero, pips], axis=1)


def short_extras(me, op):
    n = len(me)
    both = _short_half(np.concatenate([me, op]), np.concatenate([op, me]))
    # contact: my rearmost checker (path p) has op's rearmost (my 25 - q) still ahead
    race = (_held_rear(me) + _held_rear(op) >= 25).astype(np.int32)
    both[:, 4] = np.concatenate([race, race])
    both[:, 5] *= both[:, 4]
    return np.concatenate([both[:n], both[n:]], axis=1).astype(np.int32)


def encode(boards, turn, n_extras=0, variant="long"):
    """(N, 52) uint8 boards, ``turn`` to move in every row -> (N, 208 [+ 12]) int32;
    the extras are ``variant``'s (long: version 2, short: version 3)."""
    me, op = sides(boards, turn)
    x = raw(me, op)
    if n_extras:
        more = extras if variant == "long" else short_extras
        x = np.concatenate([x, more(me, op)], axis=1)
    return x


def inputs_for(n_extras):
    if n_extras not in (0, EXTRAS):
        raise ValueError("extra inputs: 0 or %d" % EXTRAS)
    return RAW + n_extras
