"""The rules engine core, shared by both games (RULES.md C1-C7).

Pure: no ``machine``, no I/O, no asyncio, nothing CPython-only. A game is a subclass
of :class:`Variant` (``nardy.longnardy.LongNardy``, ``nardy.shortnardy.ShortNardy``)
that sets a few class attributes and the point mapping; the search lives here.

Coordinates. Every side counts along its own path: path point 1 is where its
journey starts, 24 the last point, home is 19..24. In step tuples ``(from, to)``,
0 is the bar and 25 is off. A :class:`Position` keeps both sides in one
``bytearray(52)``: white's ``[bar, 1..24, off]`` at 0..25, black's at 26..51.

>>> from nardy.longnardy import LongNardy
>>> v = LongNardy()
>>> pos = v.start_position()
>>> [steps for steps, _ in v.legal_turns(pos, (6, 5))]
[((1, 7), (7, 12))]

Only one checker may leave the head (L3), so 6-5 from the start gives a single
resulting position, reached by two step orders (1/7/12 and 1/6/12);
``legal_turns`` keeps one step sequence per distinct result.

Speed and memory matter because this runs on an ESP32: the search works in place on
two small bytearrays (make/unmake), deduplicates transpositions in a hash table of
packed step sequences (a hit is confirmed by replaying the steps, no key is built), and
the tracker-facing queries (:meth:`Variant.next_steps`, :meth:`Variant.check_turn`)
stop as soon as they have their answer instead of enumerating every turn.
"""

from array import array

import micropython
from micropython import const  # CPython: the shim nardy/__init__.py installs

WHITE = 0
BLACK = 1
_BAR = const(0)
OFF = 25
COLORS = ("white", "black")
CHECKERS = 15

# Why a step or a turn is illegal. Negative returns of Variant._try use these;
# Variant.rule_id() maps them to the ids of RULES.md (the game decides L2 vs S2).
_E_EMPTY = const(1)      # no own checker on the source point (C3)
_E_CLOSED = const(2)     # target held by the opponent (L2) / by two or more (S2)
_E_HEAD = const(3)       # a second checker from the head (L3/L4)
_E_BLOCK = const(4)      # a six-block with no opposing checker ahead of it (L5)
_E_BAR = const(5)        # checkers on the bar must enter first (S3)
_E_NOT_HOME = const(6)   # bearing off before all 15 are home (C6)
_E_OVERBEAR = const(7)   # bearing off with a larger die while a checker stands further back (C6)
_E_MAXUSE = const(8)     # the dice are not used to the maximum (C5)
_E_LARGER = const(9)     # only one die can be played: it must be the larger (C5)
_E_DICE = const(10)      # no die (or combination) matches the move (C3)
_E_COUNT = const(11)     # checkers appeared or vanished (C1)
_E_OPPONENT = const(12)  # the opponent's checkers moved (C1)
_E_BACKWARD = const(13)  # a checker moved backwards (C3)
_E_HEAD_FIRST = const(14)  # a second head checker on a first turn the exception does not cover (L4)
_E_HIT_LEFT = const(15)  # a blot landed on stays on the point (S2)

# Bits for Variant relaxations: the final-position check asks "which single rule,
# if lifted, would make this position reachable?" to name the broken rule.
_R_CLOSED = const(1)
_R_HEAD = const(2)
_R_BLOCK = const(4)
_R_BAR = const(8)
_R_BEAROFF = const(16)
_R_OVERBEAR = const(32)
_LOW_BIT = const((0, 0, 1, 0, 2, 0, 1, 0, 3, 0, 1, 0, 2, 0, 1, 0))  # lowest set bit of 0..15
_CHUNK_BITS = const(6)
_CHUNK = const(1 << _CHUNK_BITS)      # entries per chunk (256 bytes); a table grows by doubling
_CHUNK_MASK = const(_CHUNK - 1)
_HMASK = const(0x1FFFFFFF)  # 29 bits: sums and differences stay small ints on the ESP32

# Reasons by E_* code (a tuple: less RAM than a dict on the board)
_REASONS = (
    "illegal",
    "no own checker on that point",  # _E_EMPTY
    "point is closed",  # _E_CLOSED
    "only one checker may leave the head",  # _E_HEAD
    "six-block with no opposing checker ahead",  # _E_BLOCK
    "enter from the bar first",  # _E_BAR
    "bear off only when all 15 are home",  # _E_NOT_HOME
    "a checker further back must move first",  # _E_OVERBEAR
    "the dice must be used to the maximum",  # _E_MAXUSE
    "the larger die must be played",  # _E_LARGER
    "the move does not match the dice",  # _E_DICE
    "checkers missing or extra",  # _E_COUNT
    "the opponent's checkers moved",  # _E_OPPONENT
    "checkers move forward only",  # _E_BACKWARD
    "a 2nd head checker only if the 1st is blocked",  # _E_HEAD_FIRST
    "a hit checker goes to the bar",  # _E_HIT_LEFT
)


class Position:
    """Checkers of both sides plus the side to move.

    ``board`` is a bytearray(52): ``board[26*c + k]`` is the number of checkers of
    colour ``c`` on its own path point ``k`` (0 = bar, 25 = off).

    >>> p = Position()
    >>> p.side(WHITE)[1] = 15
    >>> p.count(WHITE, 1), p.count(BLACK, 1)
    (15, 0)
    """

    def __init__(self, board=None, turn=WHITE):
        self.board = bytearray(52) if board is None else bytearray(board)
        self.turn = turn

    def side(self, color):
        """A writable view of one side's 26 counters."""
        return memoryview(self.board)[26 * color:26 * color + 26]

    def count(self, color, point):
        return self.board[26 * color + point]

    def copy(self):
        return Position(self.board, self.turn)

    def key(self):
        """Bytes that identify the position (both sides and the side to move)."""
        return bytes(self.board) + bytes((self.turn,))

    def __eq__(self, other):
        return (isinstance(other, Position) and self.turn == other.turn
                and self.board == other.board)

    def __hash__(self):
        return hash(self.key())

    def __repr__(self):
        return "Position(%s, %s, %s)" % (COLORS[self.turn], list(self.board[:26]),
                                         list(self.board[26:]))

    def pips(self, color):
        """Pips still to travel, bar = 25 away from off."""
        o = 26 * color
        b = self.board
        return sum(b[o + k] * (25 - k) for k in range(25))

    def borne_off(self, color):
        return self.board[26 * color + OFF]


class Variant:
    """A game: its start position, geometry and step rules; the search is shared.

    Subclasses set ``name``, ``CLOSED_AT`` (how many opposing checkers close a point),
    ``HITS``, ``BAR_RULE``, ``HEAD_RULE``, ``BLOCK_RULE``, ``OPTIONS`` (name ->
    default) and implement ``opp_point`` (mover's path point -> the opponent's path
    point for the same physical point) and ``physical``.
    """

    name = ""
    CLOSED_AT = 1
    HITS = False
    BAR_RULE = False
    HEAD_RULE = False
    BLOCK_RULE = False
    OPTIONS = {}

    def __init__(self, **options):
        opts = dict(self.OPTIONS)
        for k in options:
            if k not in opts:
                raise ValueError("unknown option %r for %s nardy" % (k, self.name))
            opts[k] = bool(options[k])
        self.options = opts
        # my path point -> opponent's path point, and back: the same table, as the
        # mapping is its own inverse in both games (L1; tests/firmware/test_rules_common.py)
        self.opp_of = bytes([0] + [self.opp_point(p) for p in range(1, 25)] + [0])
        path = []
        for color in (WHITE, BLACK):
            t = bytearray(25)
            for k in range(1, 25):
                t[self.physical(color, k)] = k
            path.append(bytes(t))
        self._path = path
        # search buffers, allocated once (no allocation per query on the ESP32)
        self._me = bytearray(26)
        self._opp = bytearray(26)
        # the mover's and the opponent's counters at the search's start, and the same
        # with a table entry's steps replayed (_probe, _grow)
        self._start = (bytearray(26), bytearray(26), bytearray(26), bytearray(26))
        # MicroPython looks an attribute up in the instance dict before the class
        # dicts: copies here make the flags on the search's hot path cheaper to read.
        for name in ("CLOSED_AT", "HITS", "BAR_RULE", "HEAD_RULE", "BLOCK_RULE"):
            setattr(self, name, getattr(self, name))
        self._closed = bytearray(26)
        self._full_order = False
        self._canon = False
        self._canon_l5 = False
        # _effective's last answer, one list changed in place (no allocation per
        # query): [key, dice, steps, full order, still set up, its hash, its
        # checkers outside the home]; no answer while the key is None
        self._eff = [None, None, 0, False, False, 0, 0]
        # the search's state, set by every query (_setup, _enumerate, _check_turn):
        # named here so the instance's dict has its full size from the start instead
        # of growing in the middle of a game's first search. 26 names: the dict's
        # table is 29 slots (464 bytes on the 64-bit unix port); with 30 to 37 it is
        # 37 (592 bytes, the block a fragmented 56 KB heap lacked at ``new``,
        # tests/host/test_soak.py). And not 27 to 29: every method call looks in this
        # dict first and misses, and a miss ends only at an empty slot; a full table
        # (with the module's, also full) made the search 7% slower (bench/mp_rules.py
        # under callgrind, docs/ARCHITECTURE.md).
        # tests/firmware/test_rules_common.py counts them.
        self._h = self._outside = self._relax = self._head0 = 0
        self._head_limit = 15
        self.dice_order = self._want = self._results = None
        self._goal = None   # _check_turn's target: (slack, final mover, final opponent)
        self._sink = None   # see each_result

    # -- geometry ---------------------------------------------------------------
    def opp_point(self, p):
        raise NotImplementedError

    def physical(self, color, k):
        """Physical point P1..P24 of ``color``'s path point ``k``."""
        raise NotImplementedError

    def path_point(self, color, p):
        """Inverse of :meth:`physical`."""
        return self._path[color][p]

    def start_position(self, turn=WHITE):
        raise NotImplementedError

    def rule_id(self, code):
        """RULES.md id for an E_* code."""
        if code == _E_CLOSED:
            return "S2" if self.HITS else "L2"
        if code == _E_HIT_LEFT:
            return "S2"
        if code == _E_HEAD:
            return "L3"
        if code == _E_HEAD_FIRST:
            return "L4"
        if code == _E_BLOCK:
            return "L5"
        if code == _E_BAR:
            return "S3"
        if code in (_E_NOT_HOME, _E_OVERBEAR):
            return "C6"
        if code in (_E_MAXUSE, _E_LARGER):
            return "C5"
        if code in (_E_COUNT, _E_OPPONENT):
            return "C1"
        return "C3"

    def verdict(self, code):
        """(rule id, short reason) for an E_* code, as warnings and logs show it."""
        return (self.rule_id(code), _REASONS[code] if 0 < code < len(_REASONS) else "illegal")

    # -- one step ---------------------------------------------------------------
    def apply_step(self, pos, step):
        """A new position with one step played (hits go to the bar). No legality
        check: see :meth:`step_error`."""
        f, t = step
        new = pos.copy()
        b = new.board
        mo = 26 * pos.turn
        oo = 26 - mo
        if b[mo + f] == 0:
            raise ValueError("no checker on %d" % f)
        b[mo + f] -= 1
        b[mo + t] += 1
        if self.HITS and 1 <= t <= 24:
            q = oo + self.opp_of[t]
            if b[q] == 1:
                b[q] = 0
                b[oo] += 1
        return new

    # -- the search ---------------------------------------------------------------
    # State: self._me / self._opp (bytearray(26): the mover's and the opponent's
    # counters, each in its own path numbering), self._h (an additive hash of both,
    # kept below 2**29 so it stays a small int on a 32-bit port) and self.dice_order (the
    # dice of the turn, high to low, four equal ones for doubles). Which dice are
    # still unused is a bit mask over self.dice_order. A step sequence is packed in one
    # small int (see _child): transposition tables map hash -> packed steps, and a
    # hit is confirmed by replaying those steps, so no bytes key is ever built.
    #
    # _longest, _enum, _extends and _reach each spell out the same loop over
    # (unused die, source point) on purpose: it is the hottest code on the board, and
    # a shared generator would allocate on every node and cost a call per child.

    def _setup(self, pos, root, relax=0):
        """Load a position into the search state."""
        mo = 26 * pos.turn
        oo = 26 - mo
        b = pos.board
        me, opp = self._me, self._opp
        me0, opp0, _, _ = self._start
        # the start arrays change: _effective's answer no longer has them set
        self._eff[4] = False
        me[:] = b[mo:mo + 26]
        opp[:] = b[oo:oo + 26]
        me0[:] = me
        opp0[:] = opp
        out = 0
        for k in range(19):
            out += me[k]
        # A point closed now stays closed all turn (two or more are never hit), so
        # the landing test is one lookup. Index 25 (off) is never closed.
        closed = self._closed
        to_opp = self.opp_of
        at = self.CLOSED_AT
        for t in range(1, 25):
            closed[t] = opp[to_opp[t]] >= at
        self._h = _hash(me, opp)
        self._outside = out
        self._relax = relax
        self.dice_order = root
        self._head0 = me[1]
        self._head_limit = self._head_allowance(root) if self.HEAD_RULE else 15
        # Doubles are searched in canonical order (sources never decreasing): each
        # distinct result then comes up once. That is exact unless a step was refused
        # for a transient six-block (L5); callers redo the search in full order then.
        self._canon = len(root) > 2 and not self._full_order

    def _head_allowance(self, dice):
        return 1

    @micropython.native
    def _try(self, f, d):
        """Where a checker on ``f`` lands with die ``d``, or -E_* if it may not."""
        me = self._me
        if me[f] == 0:
            return -_E_EMPTY
        relax = self._relax
        if self.BAR_RULE and f and me[0] and not relax & _R_BAR:
            return -_E_BAR
        t = f + d
        if t >= 25:
            if self._outside and not relax & _R_BEAROFF:
                return -_E_NOT_HOME
            if t > 25 and not relax & _R_OVERBEAR:
                for p in range(19, f):
                    if me[p]:
                        return -_E_OVERBEAR
            return 25
        if self._closed[t] and not relax & _R_CLOSED:
            return -_E_CLOSED
        if (f == 1 and self.HEAD_RULE and self._head0 - me[1] >= self._head_limit
                and not relax & _R_HEAD):
            return -_E_HEAD
        if self.BLOCK_RULE and me[t] == 0 and not relax & _R_BLOCK:
            me[f] -= 1
            me[t] = 1
            blocked = self._makes_block(t)
            me[t] = 0
            me[f] += 1
            if blocked:
                if self._canon:
                    self._canon_l5 = True
                return -_E_BLOCK
        return t

    def _makes_block(self, t):
        return False

    @micropython.native
    def _do(self, f, t):
        """Play f->t in the search state; returns 1 if it hit a blot."""
        me = self._me
        me[f] -= 1
        me[t] += 1
        h = self._h - _ZME[f] + _ZME[t]
        if f < 19 <= t:
            self._outside -= 1
        hit = 0
        if self.HITS and t < 25:
            opp = self._opp
            q = self.opp_of[t]
            if opp[q] == 1:
                opp[q] = 0
                opp[0] += 1
                h += _ZOPP[0] - _ZOPP[q]
                hit = 1
        self._h = h & _HMASK
        return hit

    @micropython.native
    def _undo(self, f, t, hit):
        me = self._me
        me[t] -= 1
        me[f] += 1
        h = self._h + _ZME[f] - _ZME[t]
        if f < 19 <= t:
            self._outside += 1
        if hit:
            opp = self._opp
            q = self.opp_of[t]
            opp[q] = 1
            opp[0] -= 1
            h += _ZOPP[q] - _ZOPP[0]
        self._h = h & _HMASK

    def _lim(self):
        """Sources to try are range(lim): only the bar while it holds a checker."""
        if self.BAR_RULE and self._me[0] and not self._relax & _R_BAR:
            return 1
        return 25

    @staticmethod
    def _child(code, i, f):
        """Packed steps plus one step from ``f`` with die index ``i``: bits 0-2 hold
        the number of steps, bit 3 the index of the first die used (the other die
        follows), then 5 bits per step for its source point."""
        n = code & 7
        if n == 0:
            return 1 | (i << 3) | (f << 4)
        return (code + 1) | (f << (4 + 5 * n))

    def _mask_of(self, code):
        """Unused-dice mask after the packed steps ``code``."""
        root = self.dice_order
        n = code & 7
        if len(root) == 2:
            if n == 0:
                return 3
            if n == 1:
                return 3 ^ (1 << ((code >> 3) & 1))
            return 0
        return ((1 << len(root)) - 1) & ~((1 << n) - 1)

    # The transposition tables themselves are this module's functions below the
    # class ("The search's tables"): the search asks them ``_visit`` (a new state is
    # remembered) and ``_has``; only which search gets a memo is the variant's to say.

    def _memo(self, need=4):
        """A transposition table for a search that can use one, else None. Only a
        double searched in full order meets a state twice: canonical order never
        does; after one of two different dice no state repeats (the two first steps
        would have to land the same checker on the same point); and ``_extends``
        remembers only states with two or more steps still to go (``need`` > 2 at
        the top). Each None is a 256-byte chunk not asked for: on a fragmented 56 KB
        heap, the block the board's own move failed on. A memo only saves work: with
        no room for one the search runs without it, and one that cannot grow starts
        over empty (_grow); slower, the same answer. (Its third item marks it.)"""
        if self._canon or len(self.dice_order) < 3 or need < 3:
            return None
        try:
            return [[array("I", _ZEROS)], 0, True]
        except MemoryError:
            return None

    @staticmethod
    def _dice_list(dice):
        a, b = dice
        if not (1 <= a <= 6 and 1 <= b <= 6):
            raise ValueError("dice must be 1..6")
        return (a, a, a, a) if a == b else (max(a, b), min(a, b))

    # The search loop -------------------------------------------------------------
    # Every search walks the same tree: for each unused die (a double's equal dice
    # once), each source ``f`` from ``fmin`` (canonical order) below ``_lim()`` that
    # holds a checker, the step ``_try`` allows; made (``_do``), looked at, unmade
    # (``_undo``). The loop is written once per search, not once for all: what each
    # does at a node is its own (the longest count, the results kept, "can ``need``
    # more steps follow", the targets reached, the step counts that reach a target
    # position), and the loop is the engine's innermost code, run once per node.
    # Calling a shared visitor at each node (a method call, the least any shared
    # loop costs: a generator would also allocate its frame) was measured on
    # ``_enum`` alone: 5% more instructions for the whole enumeration (391 against
    # 372 million on 335 of bench/positions.py's positions, the unix port under
    # callgrind). The copies: ``_longest`` (C5's maximum), ``_enum`` (the distinct
    # results), ``_extends`` (the tracker's queries), ``_next_steps`` and ``_walk``
    # (one step over the partial turn's remainders, one source), ``_step_error``
    # (one step), ``_reach`` (the verdict's rule, with the slack bookkeeping).

    # Maximum use (C5) -----------------------------------------------------------
    def _exact(self, fn, *args):
        """Run a search; if canonical order met a six-block (see _setup), run it
        again in full order so that no result is missed."""
        self._canon_l5 = False
        r = fn(*args)
        if self._canon_l5:
            self._full_order = True
            try:
                r = fn(*args)
            finally:
                self._full_order = False
        return r

    @micropython.native
    def _longest(self, mask, code, seen, fmin=0):
        """Most steps playable from the current state (stops once all are used). A
        copy of the search loop (see "The search loop")."""
        n = code & 7
        if not mask:
            return n
        me = self._me
        root = self.dice_order
        lim = self._lim()
        if mask & (mask - 1) == 0:
            # one die left: any legal step uses it
            d = root[_LOW_BIT[mask]]
            for f in range(fmin if self._canon else 0, lim):
                if me[f] and self._try(f, d) >= 0:
                    return n + 1
            return n
        best = n
        # no table (see _memo): no state repeats in this search, or no room for one
        memo = seen is not None
        last = 0
        for i in range(len(root)):
            if not (mask >> i) & 1 or root[i] == last:
                continue
            d = last = root[i]
            m2 = mask ^ (1 << i)
            for f in range(fmin if self._canon else 0, lim):
                if not me[f]:
                    continue
                t = self._try(f, d)
                if t < 0:
                    continue
                c2 = self._child(code, i, f)
                hit = self._do(f, t)
                if not memo or _visit(self, seen, c2, m2):
                    r = self._longest(m2, c2, seen, f)
                else:
                    r = n + 1
                self._undo(f, t, hit)
                if r > best:
                    best = r
                    if best == len(root):
                        return best
        return best

    def _effective(self, pos, dice):
        """(dice to play, maximum steps M) after C5: when only one die can be
        played, only the larger may be (if it can). The tracker asks again after
        every step of the same turn, so the last answer is kept.
        The search state is left set up for the returned dice.

        The answer keeps (its items 4-6) whether the search's start arrays, the
        closed points and the hash still hold that position (no other _setup
        since): a query on it then copies the start back instead of loading it
        again: 62-67k instructions of the 153-306k a tracker query on an opening
        costs (the closed points, the hash; bench/app_bench.py's "cycle after the
        roll" asks one a scan).
        """
        key = bytes(pos.board) + bytes((pos.turn, dice[0], dice[1], self._full_order))
        eff = self._eff
        if key == eff[0]:
            if eff[3]:
                self._canon_l5 = True  # the cached answer came from a full-order rerun
            root = eff[1]
            if eff[4]:
                # what _setup(pos, root) would do, less what is still set
                me = self._me
                me0, opp0, _, _ = self._start
                me[:] = me0
                self._opp[:] = opp0
                self._h = eff[5]
                self._outside = eff[6]
                self._relax = 0
                self.dice_order = root
                self._head0 = me[1]
                self._head_limit = self._head_allowance(root) if self.HEAD_RULE else 15
                self._canon = len(root) > 2 and not self._full_order
            else:
                self._setup(pos, root)
                eff[4] = True
                eff[5] = self._h
                eff[6] = self._outside
            return root, eff[2]
        root = self._dice_list(dice)
        eff[0] = None           # no answer until this one is found
        self._setup(pos, root)
        h0 = self._h
        out0 = self._outside
        m = self._longest((1 << len(root)) - 1, 0, self._memo())
        if m == 1 and root[0] != root[1]:
            big = root[0]
            root = (root[1],)
            for f in range(self._lim()):
                if self._me[f] and self._try(f, big) >= 0:
                    root = (big,)
                    break
            # the state is the start position again; only the dice changed
            self.dice_order = root
            self._canon = False
        eff[0] = key
        eff[1] = root
        eff[2] = m
        eff[3] = self._canon_l5
        eff[4] = True
        eff[5] = h0
        eff[6] = out0
        return root, m

    def max_steps(self, pos, dice):
        """How many dice (steps) the turn must use (C5).

        >>> from nardy.longnardy import LongNardy
        >>> v = LongNardy(); v.max_steps(v.start_position(), (6, 6))
        2
        """
        return self._exact(self._effective, pos, dice)[1]

    # Full enumeration -------------------------------------------------------------
    def turns(self, pos, dice):
        """Iterate over the legal turns as distinct resulting positions, yielding
        ``(steps, position)``: ``steps`` is one step sequence that reaches it and the
        position has the opponent to move. A turn with no legal step yields one entry
        with ``steps == ()`` and the position unchanged (the dice are lost).

        The distinct results are held as packed small ints (a few bytes each); each
        Position is built only when yielded, so a 1,800-result double fits an ESP32.
        """
        table = self._exact(self._enumerate, pos, dice)
        root = self.dice_order
        opp_of = self.opp_of
        hits = self.HITS
        start = bytes(pos.board)
        mo = 26 * pos.turn
        turn = 1 - pos.turn
        for chunk in table[0]:
            for e in chunk:
                if not e:
                    continue
                code = (e & 0xFFFFFF) - 1
                new = Position(None, turn)
                b = new.board
                b[:] = start
                apply_code(code, root, b, mo, 26 - mo, opp_of, hits)
                yield steps_of(code, root), new

    def legal_turns(self, pos, dice):
        """``list(self.turns(pos, dice))``.

        >>> from nardy.shortnardy import ShortNardy
        >>> v = ShortNardy(); len(v.legal_turns(v.start_position(), (6, 5)))
        7
        """
        return list(self.turns(pos, dice))

    def count_turns(self, pos, dice):
        """How many distinct legal results there are."""
        return self._exact(self._enumerate, pos, dice)[1]

    def each_result(self, pos, dice, sink, out):
        """The board's own player's enumeration (nardy.bot): every distinct legal
        result of the roll as a packed step code (``steps_of`` and ``apply_code``
        read it with ``dice_order``). A double's results, which canonical order finds
        once each, are handed to ``sink(code)`` as they are found instead of being
        stored: a 1,800-result double then needs no table at all. ``sink(-1)`` comes
        first: a search of the roll starts (again, when a six-block makes it run in
        full order). Other rolls' results are in the returned table: ``out``
        (``new_table(4)``: 4 is _OUT_CHUNKS), emptied here, which the caller keeps from one
        search to the next, so the board's player asks for no new chunk on a heap that
        may have none."""
        self._sink = sink
        try:
            try:
                return self._exact(self._enumerate, pos, dice, out)
            except MemoryError:
                # A double that met a six-block (L5) is searched again in full order,
                # which can want kilobytes of tables. With none to spare, the board
                # chooses among the results canonical order found: every one legal,
                # a few may be missing. (The host never gets here.)
                return self._enumerate(pos, dice, out)
        finally:
            self._sink = None

    def _enumerate(self, pos, dice, out=None):
        """The distinct results as a table of packed step codes (into ``out`` if
        given; a double's to ``_sink`` if set: see each_result)."""
        root, m = self._effective(pos, dice)
        self._want = m
        if self._sink is not None:
            self._sink(-1)
        # Canonical doubles give every result once: their codes are only collected.
        full = (1 << len(root)) - 1
        if m and self._canon and self._sink is not None:
            results = [(), 0]       # every result goes to the sink: nothing is stored
        elif out is not None:
            results = out
            _empty(results)
        else:
            results = new_table()
        self._results = results
        if m == 0:
            _visit(self, results, 0, full)
        else:
            self._enum(full, 0, self._memo())
        self._results = None
        return results

    @micropython.native
    def _enum(self, mask, code, seen, fmin=0):
        """The distinct results below the current state, into ``_results`` (or the
        sink). A copy of the search loop (see "The search loop")."""
        n = code & 7
        leaf = n + 1 == self._want
        me = self._me
        root = self.dice_order
        lim = self._lim()
        results = self._results
        canon = self._canon
        if leaf and canon:
            # the last step of a canonical double: each legal one is a new result,
            # its packed code is all we keep (the position is rebuilt when asked for)
            sink = self._sink
            for i in range(len(root)):
                if (mask >> i) & 1:
                    d = root[i]
                    shift = 4 + 5 * n
                    if sink is not None:
                        for f in range(fmin, lim):
                            if me[f] and self._try(f, d) >= 0:
                                sink((code + 1) | (f << shift))
                        return
                    base = code + 2  # one more step, +1 for the stored form
                    table = results
                    chunks = table[0]
                    k = table[1]
                    try_ = self._try
                    for f in range(fmin, lim):
                        if me[f] and try_(f, d) >= 0:
                            if k >> _CHUNK_BITS >= len(chunks):
                                chunks.append(array("I", _ZEROS))
                            chunks[k >> _CHUNK_BITS][k & _CHUNK_MASK] = base | (f << shift)
                            k += 1
                    table[1] = k
                    return
        last = 0
        for i in range(len(root)):
            if not (mask >> i) & 1 or root[i] == last:
                continue
            d = last = root[i]
            m2 = mask ^ (1 << i)
            for f in range(fmin if self._canon else 0, lim):
                if not me[f]:
                    continue
                t = self._try(f, d)
                if t < 0:
                    continue
                c2 = self._child(code, i, f)
                hit = self._do(f, t)
                if leaf:
                    _visit(self, results, c2, m2)
                elif seen is None or _visit(self, seen, c2, m2):
                    self._enum(m2, c2, seen, f)
                self._undo(f, t, hit)

    # Partial turns (what the tracker asks while a turn is being played) -------------
    @micropython.native
    def _extends(self, mask, code, need, failed, fmin=0):
        """Can ``need`` more steps be played from the current state? ``failed``
        remembers states already known to fall short (shared by calls whose
        ``need - unused dice`` is the same). A copy of the search loop (see "The
        search loop"), the hottest: every lift and every placed checker asks it."""
        if need == 0:
            return True
        me = self._me
        root = self.dice_order
        lim = self._lim()
        if need == 1:
            # one step to go: any legal step will do, no need to play it
            for i in range(len(root)):
                if (mask >> i) & 1:
                    d = root[i]
                    for f in range(fmin if self._canon else 0, lim):
                        if me[f] and self._try(f, d) >= 0:
                            return True
            return False
        last = 0
        for i in range(len(root)):
            if not (mask >> i) & 1 or root[i] == last:
                continue
            d = last = root[i]
            m2 = mask ^ (1 << i)
            for f in range(fmin if self._canon else 0, lim):
                if not me[f]:
                    continue
                t = self._try(f, d)
                if t < 0:
                    continue
                c2 = self._child(code, i, f)
                hit = self._do(f, t)
                if self._canon:
                    # canonical continuations depend on fmin: no shared memo
                    ok = self._extends(m2, c2, need - 1, failed, f)
                elif failed is not None and _has(self, failed, m2):
                    ok = False
                else:
                    ok = self._extends(m2, c2, need - 1, failed)
                    if not ok and failed is not None:
                        _visit(self, failed, c2, m2)
                self._undo(f, t, hit)
                if ok:
                    return True
        return False

    def _replay(self, mask, code, played, j, acc):
        """Collect every (unused-dice mask, packed steps) that can follow
        ``played[j:]`` (the state is left as it was)."""
        if j == len(played):
            for m, _ in acc:
                if m == mask:
                    return
            acc.append((mask, code))
            return
        f, t = played[j]
        root = self.dice_order
        last = 0
        for i in range(len(root)):
            if not (mask >> i) & 1 or root[i] == last:
                continue
            d = last = root[i]
            if (f + d == t or (t == 25 and f + d > 25)) and self._try(f, d) == t:
                hit = self._do(f, t)
                self._replay(mask ^ (1 << i), self._child(code, i, f), played, j + 1, acc)
                self._undo(f, t, hit)

    def _after(self, pos, dice, played):
        """Set up the state after ``played``; returns (list of (mask, code) that
        can follow, steps still needed). An illegal prefix gives ([], 0)."""
        root, m = self._effective(pos, dice)
        acc = []
        self._replay((1 << len(root)) - 1, 0, tuple(played), 0, acc)
        if not acc:
            return acc, 0
        for f, t in played:
            self._do(f, t)
        return acc, m - len(played)

    def next_steps(self, pos, dice, played=()):
        return self._exact(self._next_steps, pos, dice, played)

    def targets(self, pos, dice, played, src):
        """Where the checker lifted from ``src`` may legally go now: ``{to: steps}``
        with one die or several dice in a row (each intermediate point a legal
        landing, C3), keeping only moves that begin a maximal turn."""
        return self._exact(self._targets, pos, dice, played, src)

    def step_error(self, pos, dice, played, step):
        """None if ``step`` may follow ``played``; else (rule id, reason).

        >>> from nardy.longnardy import LongNardy
        >>> v = LongNardy(); p = v.start_position()
        >>> v.step_error(p, (6, 5), [(1, 7)], (1, 6))
        ('L3', 'only one checker may leave the head')
        """
        return self._exact(self._step_error, pos, dice, played, step)

    def check_turn(self, pos, dice, final):
        """None if ``final`` is a legal result of the turn; else (rule id, reason).

        Searches only for step sequences that can still end in ``final`` (checkers
        never move back, so the running count of own checkers from the rear may never
        drop below the final one), which keeps it fast even for doubles.

        >>> from nardy.longnardy import LongNardy
        >>> v = LongNardy(); p = v.start_position()
        >>> v.check_turn(p, (6, 5), v.apply_step(v.apply_step(p, (1, 7)), (7, 12)))
        >>> v.check_turn(p, (6, 5), v.apply_step(v.apply_step(p, (1, 7)), (1, 6)))
        ('L3', 'only one checker may leave the head')
        """
        return self._exact(self._check_turn, pos, dice, final)

    def _next_steps(self, pos, dice, played=()):
        """Legal next single steps after the partial turn ``played``: a step is
        legal only if some maximal legal turn begins with ``played`` + that step.

        >>> from nardy.longnardy import LongNardy
        >>> v = LongNardy(); p = v.start_position()
        >>> v.next_steps(p, (6, 5))
        [(1, 7), (1, 6)]
        >>> v.next_steps(p, (6, 5), [(1, 7)])
        [(7, 12)]
        """
        rems, need = self._after(pos, dice, played)
        if need <= 0:
            return []
        failed = self._memo(need)
        me = self._me
        root = self.dice_order
        found = bytearray()        # the steps found, two bytes each (from, to)
        for mask, code in rems:
            last = 0
            for i in range(len(root)):
                if not (mask >> i) & 1 or root[i] == last:
                    continue
                d = last = root[i]
                m2 = mask ^ (1 << i)
                for f in range(self._lim()):
                    if not me[f]:
                        continue
                    t = self._try(f, d)
                    if t < 0:
                        continue
                    k = 0           # found already? (no helper: a name in the
                    n = len(found)  # resident module's dict, see test_heap)
                    while k < n and (found[k] != f or found[k + 1] != t):
                        k += 2
                    if k < n:
                        continue
                    hit = self._do(f, t)
                    if self._extends(m2, self._child(code, i, f), need - 1, failed):
                        found.append(f)
                        found.append(t)
                    self._undo(f, t, hit)
        # One list of the exact size. Grown by append it doubles its slots: 17 to 32
        # steps took 32, a 256-byte block on the unix port (128 on the ESP32) beside
        # the 16 it grew from, and a 56wK heap once had no such block at a turn's
        # first query, just after the board's choice.
        out = [None] * (len(found) >> 1)
        for i in range(len(out)):
            out[i] = (found[2 * i], found[2 * i + 1])
        return out

    def _targets(self, pos, dice, played, src):
        rems, need = self._after(pos, dice, played)
        found = {}
        failed = self._memo(need)
        for mask, code in rems:
            self._walk(src, mask, code, need, [], found, failed)
        return found

    @micropython.native
    def _walk(self, f, mask, code, need, path, found, failed):
        if need <= 0 or f == 25 or not self._me[f] or self._lim() <= f:
            return
        root = self.dice_order
        last = 0
        for i in range(len(root)):
            if not (mask >> i) & 1 or root[i] == last:
                continue
            d = last = root[i]
            t = self._try(f, d)
            if t < 0:
                continue
            m2 = mask ^ (1 << i)
            c2 = self._child(code, i, f)
            hit = self._do(f, t)
            path.append((f, t))
            if self._extends(m2, c2, need - 1, failed):
                if t not in found:
                    found[t] = tuple(path)
                self._walk(t, m2, c2, need - 1, path, found, failed)
            path.pop()
            self._undo(f, t, hit)

    def _step_error(self, pos, dice, played, step):
        # The loop over the remaining dice repeats _next_steps' on purpose: this is the
        # hot path of every placed checker, and a shared generator or callback would
        # cost an allocation and a call per die on the ESP32 (bench/mp_rules.py).
        f, t = step
        rems, need = self._after(pos, dice, played)
        if rems and need > 0:
            root = self.dice_order
            for mask, code in rems:
                last = 0
                for i in range(len(root)):
                    if not (mask >> i) & 1 or root[i] == last:
                        continue
                    d = last = root[i]
                    if not (f + d == t or (t == 25 and f + d > 25)):
                        continue
                    if self._try(f, d) != t:
                        continue
                    hit = self._do(f, t)
                    ok = self._extends(mask ^ (1 << i), self._child(code, i, f), need - 1,
                                       self._memo(need))
                    self._undo(f, t, hit)
                    if ok:
                        return None
        return self.verdict(self._blame(pos, dice, played, step, need))

    def _blame(self, pos, dice, played, step, need):
        """The E_* code a player would name for the illegal ``step`` after the legal
        partial turn ``played``, asked in the order a player looks: whose checker and
        the bar first (S3), the direction (C3), the landing point (L2/S2), the head
        (L3/L4), bearing off early (C6), the dice (C3), then what the die itself
        breaks (C6, L5), and last the maximum use of the dice (C5). Judged against
        the whole roll: C5 may have cut the dice the search plays with, but a player
        names the rule the step breaks (seed 001's 4-4 after a 5-5: "only one from
        the head", not "no die left")."""
        f, t = step
        full = self._dice_list(dice)
        self._setup(pos, full)
        left = list(full)
        for f0, t0 in played:
            self._do(f0, t0)
            d0 = t0 - f0
            if d0 in left:
                left.remove(d0)
            else:
                # bearing off with a larger die: the smallest that does it
                big = [x for x in left if x > d0]
                if big:
                    left.remove(min(big))
        me = self._me
        if not 0 <= f <= 24 or not me[f]:
            return _E_EMPTY
        if self.BAR_RULE and f and me[0]:
            return _E_BAR
        if t <= f:
            return _E_BACKWARD
        if t < 25 and self._closed[t]:
            return _E_CLOSED
        if (f == 1 and self.HEAD_RULE and self._head_limit == 1
                and self._head0 - me[1] >= 1):
            # a first turn with a double the L4 exception names, which it did not cover
            if self._head0 == CHECKERS and len(full) == 4 and (
                    full[0] in (3, 4, 6) or self.options.get("first_turn_any_double")):
                return _E_HEAD_FIRST
            return _E_HEAD
        if t == 25 and self._outside:
            return _E_NOT_HOME
        d = t - f
        use = 0
        if d in left:
            use = d
        elif t == 25:
            big = [x for x in left if x > d]
            if big:
                use = min(big)
        if not use:
            return _E_DICE
        r = self._try(f, use)
        if r < 0:
            return -r
        return _E_LARGER if use < full[0] and need == 1 else _E_MAXUSE

    # Final position check --------------------------------------------------------------
    def _check_turn(self, pos, dice, final):
        mo = 26 * pos.turn
        oo = 26 - mo
        fb = final.board
        for base in (mo, oo):
            n = 0
            for k in range(26):
                n += fb[base + k]
            if n != CHECKERS:
                return self.verdict(_E_COUNT)
        fme = fb[mo:mo + 26]
        fopp = fb[oo:oo + 26]
        start = pos.board
        # The opponent only changes by being hit (short nardy).
        if self.HITS:
            for k in range(1, 26):
                if fopp[k] > start[oo + k]:
                    return self.verdict(_E_OPPONENT)
        elif fopp != start[oo:oo + 26]:
            return self.verdict(_E_OPPONENT)
        # Both colours on one point: a point holding the opponent's checkers is closed
        # (L2, S2), and in short nardy a blot landed on goes to the bar (S2). A point
        # that held both at the start (an earlier turn accepted so, seed 001 §3.4)
        # faults only a turn that adds to it: the legal steps never do.
        to_opp = self.opp_of
        for k in range(1, 25):
            n = fopp[to_opp[k]]
            if n and fme[k] > start[mo + k]:
                if self.HITS and n == 1:
                    return self.verdict(_E_HIT_LEFT)
                return self.verdict(_E_CLOSED)
        # Own checkers only move forward: cumulative counts from the rear.
        slack = bytearray(26)
        cs = cf = 0
        for k in range(26):
            cs += start[mo + k]
            cf += fme[k]
            if cs < cf:
                return self.verdict(_E_DICE)
            slack[k] = cs - cf
        root, m = self._effective(pos, dice)
        self._goal = (slack, fme, fopp)
        depths = self._reach_from(pos, root, 0)
        if depths & (1 << m):
            return None
        full = self._dice_list(dice)
        if root != full:
            depths = self._reach_from(pos, full, 0)
        if depths:
            if m == 1 and root != full and depths & 2:
                return self.verdict(_E_LARGER)
            return self.verdict(_E_MAXUSE)
        for bit, code in ((_R_BAR, _E_BAR), (_R_HEAD, _E_HEAD), (_R_BLOCK, _E_BLOCK),
                          (_R_CLOSED, _E_CLOSED), (_R_BEAROFF, _E_NOT_HOME),
                          (_R_OVERBEAR, _E_OVERBEAR)):
            if self._reach_from(pos, full, bit):
                return self.verdict(code)
        return self.verdict(_E_DICE)

    def _reach_from(self, pos, root, relax):
        self._setup(pos, root, relax)
        return self._reach((1 << len(root)) - 1, 0, self._memo())

    @micropython.native
    def _reach(self, mask, code, seen, fmin=0):
        """Bitmask of step counts after which the state equals the target. A copy of
        the search loop (see "The search loop") that also keeps the slack: how many
        checkers may still pass each point."""
        found = 0
        slack, fme, fopp = self._goal
        if self._me == fme and (not self.HITS or self._opp == fopp):
            found = 1 << (code & 7)
        if not mask:
            return found
        me = self._me
        root = self.dice_order
        last = 0
        for i in range(len(root)):
            if not (mask >> i) & 1 or root[i] == last:
                continue
            d = last = root[i]
            m2 = mask ^ (1 << i)
            for f in range(fmin if self._canon else 0, self._lim()):
                if not me[f] or slack[f] == 0:
                    continue
                t = self._try(f, d)
                if t < 0:
                    continue
                ok = True
                for k in range(f + 1, t):
                    if slack[k] == 0:
                        ok = False
                        break
                if not ok:
                    continue
                if self.HITS and t < 25:
                    q = self.opp_of[t]
                    if self._opp[q] == 1 and fopp[q]:
                        continue  # a hit cannot be undone within the turn
                c2 = self._child(code, i, f)
                hit = self._do(f, t)
                if seen is None or _visit(self, seen, c2, m2):
                    for j in range(f, t):
                        slack[j] -= 1
                    found |= self._reach(m2, c2, seen, f)
                    for j in range(f, t):
                        slack[j] += 1
                self._undo(f, t, hit)
        return found


# A chunk's zeros (4 * _CHUNK bytes) as a literal: it stays in the code (flash with
# ROMFS), where array("I", bytes(4 * _CHUNK)) would first build a 257-byte bytes
# object on the heap for every chunk of every search, the block a fragmented 56 KB
# heap fails to find first.
_ZEROS = (
    b"\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
    b"\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
    b"\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
    b"\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
    b"\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
    b"\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
    b"\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
    b"\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
)


# The search's tables -----------------------------------------------------------
# A transposition table: [chunks, count] (a third item marks a memo, Variant._memo),
# open addressing over chunks of _CHUNK entries in array('I'), 4 bytes an entry on
# every port: (packed steps + 1) in bits 0-23 and 6 bits of the hash in 24-29 (below
# 2**30, so reading an entry never allocates). An entry matches only if replaying its
# steps from the search's start gives exactly the variant's current state and unused
# dice: the functions take the variant whose search the table belongs to. Functions
# of the module, not a class: a Table class cost 351 bytes more of resident heap on
# the unix port (a class object and its dict, bench/heap_modules.py; the same
# instructions), and the bot-both soak at 56wK then failed 5 runs of 5 at ``new``
# (issue 24). As functions they cost what the methods did, but for the module's
# dict: 30 names, 37 slots (128 bytes more than 29 on the 64-bit port). Not 27 to 29
# names in 29 slots: every builtin the search calls (``range``, ``len``) is looked
# up here first and missed, and a miss ends only at an empty slot; a full table made
# the engine 7% slower with the variant's also full (bench/mp_rules.py under
# callgrind, docs/ARCHITECTURE.md). The same holds for the
# variant's own dict (see __init__). tests/firmware/test_heap.py counts the names.

def new_table(n=1):
    """An empty transposition table of ``n`` chunks (a power of two): [list of array
    chunks, count]."""
    return [[array("I", _ZEROS) for _ in range(n)], 0]


def _has(v, table, mask):
    """Is ``v``'s current state (with these unused dice) in ``table``?"""
    return _probe(v, table, (v._h + _ZREST[mask]) & _HMASK, mask) < 0


@micropython.native
def _probe(v, table, h, mask):
    """-1 if ``v``'s current state is present, else the index of the free slot where
    it would go."""
    chunks = table[0]
    cap1 = len(chunks) * _CHUNK - 1
    i = h & cap1
    tag = h >> 23
    while True:
        e = chunks[i >> _CHUNK_BITS][i & _CHUNK_MASK]
        if e == 0:
            return i
        if e >> 24 == tag:
            old = (e & 0xFFFFFF) - 1
            if v._mask_of(old) == mask:
                me0, opp0, sme, sopp = v._start
                _apply(old, v.dice_order, me0, opp0, sme, sopp, v.opp_of, v.HITS)
                if sme == v._me and sopp == v._opp:
                    return -1
        i = (i + 1) & cap1


def _visit(v, table, code, mask):
    """True (and remembered) the first time ``v``'s current state is seen."""
    h = (v._h + _ZREST[mask]) & _HMASK
    i = _probe(v, table, h, mask)
    if i < 0:
        return False
    table[0][i >> _CHUNK_BITS][i & _CHUNK_MASK] = (code + 1) | ((h >> 23) << 24)
    table[1] += 1
    if table[1] * 4 > len(table[0]) * _CHUNK * 3:
        _grow(v, table)
    return True


def _grow(v, table):
    # Twice the chunks. Chunks of 256 bytes keep working in a fragmented heap where
    # one large block could not be found.
    old = table[0]
    try:
        new = [array("I", _ZEROS) for _ in range(2 * len(old))]
    except MemoryError:
        if len(table) < 3:
            raise           # results: every entry counts
        _empty(table)       # a memo (Variant._memo): forgetting is always right
        return
    cap1 = len(new) * _CHUNK - 1
    me0, opp0, sme, sopp = v._start
    root = v.dice_order
    for chunk in old:
        for e in chunk:
            if e:
                code = (e & 0xFFFFFF) - 1
                _apply(code, root, me0, opp0, sme, sopp, v.opp_of, v.HITS)
                h = _hash(sme, sopp) + _ZREST[v._mask_of(code)]
                i = h & _HMASK & cap1
                while new[i >> _CHUNK_BITS][i & _CHUNK_MASK]:
                    i = (i + 1) & cap1
                new[i >> _CHUNK_BITS][i & _CHUNK_MASK] = e
    table[0] = new


# The chunks a table kept from search to search (each_result's ``out``) keeps when it is emptied: 4
# hold 192 results before the table must grow, and two different dice gave at most
# 139 in 54,540 long-nardy rolls of self-play (96 in short nardy). A table that grew
# for a double searched in full order gives its extra chunks back.
_OUT_CHUNKS = const(4)


@micropython.native
def l5_block(v, t):
    """Long nardy's L5 test (``LongNardy._makes_block``: see there). Here because it
    is native code and this module stays loaded; nardy.longnardy is imported again
    at each ``new``, and machine code is never freed."""
    me = v._me
    to_opp = P = v.opp_of   # (its own inverse: P maps the opponent's points back)
    o = to_opp[t]
    lo = o
    while lo > 1 and me[P[lo - 1]]:
        lo -= 1
    hi = o
    while hi < 24 and me[P[hi + 1]]:
        hi += 1
    if hi - lo < 5:
        return False
    opp = v._opp
    if v.options["block_until_opponent_home"]:
        # seed 000: a block is fine once the opponent has a checker home
        for q in range(19, 26):
            if opp[q]:
                return False
        return True
    if opp[25]:
        return False  # a borne-off checker has passed every block
    for q in range(hi + 1, 25):
        if opp[q]:
            return False
    return True


@micropython.native
def _empty(table):
    """Empty ``table`` for another search, keeping up to _OUT_CHUNKS chunks (zeroed in
    place: a fresh one is the 256-byte block a fragmented heap may lack)."""
    chunks = table[0]
    del chunks[_OUT_CHUNKS:]
    for c in chunks:
        for i in range(_CHUNK):
            c[i] = 0
    table[1] = 0


@micropython.native
def _hash(me, opp):
    h = 0
    for k in range(26):
        h += me[k] * _ZME[k] + opp[k] * _ZOPP[k]
    return h & _HMASK


def _zobrist(n, seed):
    """Fixed pseudo-random weights for the additive position hash."""
    out = []
    x = seed
    for _ in range(n):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        out.append((x >> 1) & _HMASK)
    return tuple(out)


_ZME = _zobrist(26, 0x2545F491)
_ZOPP = _zobrist(26, 0x1B873593)
_ZREST = _zobrist(16, 0x3C6EF372)


@micropython.native
def _die_at(root, code, j):
    if len(root) == 2:
        i0 = (code >> 3) & 1
        return root[i0] if j == 0 else root[1 - i0]
    return root[0]


@micropython.native
def steps_of(code, root):
    """Unpack a step sequence into ((from, to), ...)."""
    out = []
    for j in range(code & 7):
        f = (code >> (4 + 5 * j)) & 31
        t = f + _die_at(root, code, j)
        out.append((f, 25 if t > 25 else t))
    return tuple(out)


@micropython.native
def apply_code(code, root, b, mo, oo, opp_of, hits):
    """Play the packed steps on a whole 52-byte board in place."""
    for j in range(code & 7):
        f = (code >> (4 + 5 * j)) & 31
        t = f + _die_at(root, code, j)
        if t > 25:
            t = 25
        b[mo + f] -= 1
        b[mo + t] += 1
        if hits and t < 25:
            q = oo + opp_of[t]
            if b[q] == 1:
                b[q] = 0
                b[oo] += 1


@micropython.native
def _apply(code, root, me0, opp0, me, opp, opp_of, hits):
    """me/opp := me0/opp0 with the packed steps played (hits to the bar)."""
    me[:] = me0
    opp[:] = opp0
    for j in range(code & 7):
        f = (code >> (4 + 5 * j)) & 31
        t = f + _die_at(root, code, j)
        if t > 25:
            t = 25
        me[f] -= 1
        me[t] += 1
        if hits and t < 25:
            q = opp_of[t]
            if opp[q] == 1:
                opp[q] = 0
                opp[0] += 1
