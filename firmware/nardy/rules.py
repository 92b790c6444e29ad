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
two small bytearrays (make/unmake), deduplicates transpositions by a bytes key, and
the tracker-facing queries (:meth:`Variant.next_steps`, :meth:`Variant.check_turn`)
stop as soon as they have their answer instead of enumerating every turn.
"""

WHITE = 0
BLACK = 1
BAR = 0
OFF = 25
COLORS = ("white", "black")
CHECKERS = 15

# Why a step or a turn is illegal. Negative returns of Variant._try use these;
# Variant.rule_id() maps them to the ids of RULES.md (the game decides L2 vs S2).
E_EMPTY = 1      # no own checker on the source point (C3)
E_CLOSED = 2     # target held by the opponent (L2) / by two or more (S2)
E_HEAD = 3       # a second checker from the head (L3/L4)
E_BLOCK = 4      # a six-block with no opposing checker ahead of it (L5)
E_BAR = 5        # checkers on the bar must enter first (S3)
E_NOT_HOME = 6   # bearing off before all 15 are home (C6)
E_OVERBEAR = 7   # bearing off with a larger die while a checker stands further back (C6)
E_MAXUSE = 8     # the dice are not used to the maximum (C5)
E_LARGER = 9     # only one die can be played: it must be the larger (C5)
E_DICE = 10      # no die (or combination) matches the move (C3)
E_COUNT = 11     # checkers appeared or vanished (C1)
E_OPPONENT = 12  # the opponent's checkers moved (C1)

# Bits for Variant relaxations: the final-position check asks "which single rule,
# if lifted, would make this position reachable?" to name the broken rule.
R_CLOSED = 1
R_HEAD = 2
R_BLOCK = 4
R_BAR = 8
R_BEAROFF = 16
R_OVERBEAR = 32

_REASONS = {
    E_EMPTY: "no own checker on that point",
    E_CLOSED: "point is closed",
    E_HEAD: "only one checker may leave the head",
    E_BLOCK: "six-block with no opposing checker ahead",
    E_BAR: "enter from the bar first",
    E_NOT_HOME: "bear off only when all 15 are home",
    E_OVERBEAR: "a checker further back must move first",
    E_MAXUSE: "the dice must be used to the maximum",
    E_LARGER: "the larger die must be played",
    E_DICE: "the move does not match the dice",
    E_COUNT: "checkers missing or extra",
    E_OPPONENT: "the opponent's checkers moved",
}


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
        # my path point -> opponent's path point, and back (same table by symmetry)
        self._O = bytes([0] + [self.opp_point(p) for p in range(1, 25)] + [0])
        inv = bytearray(26)
        for p in range(1, 25):
            inv[self._O[p]] = p
        self._P = bytes(inv)
        phys = []
        for color in (WHITE, BLACK):
            phys.append(bytes([0] + [self.physical(color, k) for k in range(1, 25)] + [0]))
        self._phys = phys
        path = []
        for color in (WHITE, BLACK):
            t = bytearray(25)
            for k in range(1, 25):
                t[phys[color][k]] = k
            path.append(bytes(t))
        self._path = path

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
        if code == E_CLOSED:
            return "S2" if self.HITS else "L2"
        if code == E_HEAD:
            return "L3"
        if code == E_BLOCK:
            return "L5"
        if code == E_BAR:
            return "S3"
        if code in (E_NOT_HOME, E_OVERBEAR):
            return "C6"
        if code in (E_MAXUSE, E_LARGER):
            return "C5"
        if code == E_COUNT or code == E_OPPONENT:
            return "C1"
        return "C3"

    def verdict(self, code):
        """(rule id, short reason) for an E_* code, as warnings and logs show it."""
        return (self.rule_id(code), _REASONS.get(code, "illegal"))

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
            q = oo + self._O[t]
            if b[q] == 1:
                b[q] = 0
                b[oo] += 1
        return new

    # -- the search ---------------------------------------------------------------
    def _setup(self, pos, dice, relax=0):
        """Load a position into the search state (me/opp bytearrays)."""
        mo = 26 * pos.turn
        oo = 26 - mo
        self._me = me = bytearray(pos.board[mo:mo + 26])
        self._opp = bytearray(pos.board[oo:oo + 26])
        self._turn = pos.turn
        self._relax = relax
        out = 0
        for k in range(19):
            out += me[k]
        self._outside = out
        self._head0 = me[1]
        self._head_limit = self._head_allowance(dice) if self.HEAD_RULE else 15

    def _head_allowance(self, dice):
        return 1

    def _try(self, f, d):
        """Where a checker on ``f`` lands with die ``d``, or -E_* if it may not."""
        me = self._me
        if me[f] == 0:
            return -E_EMPTY
        relax = self._relax
        if self.BAR_RULE and f and me[0] and not relax & R_BAR:
            return -E_BAR
        t = f + d
        if t >= 25:
            if self._outside and not relax & R_BEAROFF:
                return -E_NOT_HOME
            if t > 25 and not relax & R_OVERBEAR:
                for p in range(19, f):
                    if me[p]:
                        return -E_OVERBEAR
            return 25
        if self._opp[self._O[t]] >= self.CLOSED_AT and not relax & R_CLOSED:
            return -E_CLOSED
        if (f == 1 and self.HEAD_RULE and self._head0 - me[1] >= self._head_limit
                and not relax & R_HEAD):
            return -E_HEAD
        if self.BLOCK_RULE and me[t] == 0 and not relax & R_BLOCK:
            me[f] -= 1
            me[t] = 1
            blocked = self._makes_block(t)
            me[t] = 0
            me[f] += 1
            if blocked:
                return -E_BLOCK
        return t

    def _makes_block(self, t):
        return False

    def _do(self, f, t):
        """Play f->t in the search state; returns 1 if it hit a blot."""
        me = self._me
        me[f] -= 1
        me[t] += 1
        if f < 19 <= t:
            self._outside -= 1
        if self.HITS and t < 25:
            opp = self._opp
            q = self._O[t]
            if opp[q] == 1:
                opp[q] = 0
                opp[0] += 1
                return 1
        return 0

    def _undo(self, f, t, hit):
        me = self._me
        me[t] -= 1
        me[f] += 1
        if f < 19 <= t:
            self._outside += 1
        if hit:
            opp = self._opp
            opp[self._O[t]] = 1
            opp[0] -= 1

    def _key(self):
        if self.HITS:
            return bytes(self._me) + bytes(self._opp)
        return bytes(self._me)

    def _sources(self):
        """Points worth trying as a step's source, rear first."""
        me = self._me
        if self.BAR_RULE and me[0] and not self._relax & R_BAR:
            return (0,)
        return [k for k in range(25) if me[k]]

    @staticmethod
    def _dice_list(dice):
        a, b = dice
        if not (1 <= a <= 6 and 1 <= b <= 6):
            raise ValueError("dice must be 1..6")
        return (a, a, a, a) if a == b else (max(a, b), min(a, b))

    @staticmethod
    def _rest(rem, d):
        """``rem`` (a tuple sorted high to low) without one ``d``."""
        i = rem.index(d)
        return rem[:i] + rem[i + 1:]

    # Maximum use (C5) -----------------------------------------------------------
    def _longest(self, rem, depth, seen):
        """Most steps playable from the current state with dice ``rem`` (stops early
        once every die is used)."""
        if not rem:
            return depth
        best = depth
        full = depth + len(rem)
        last = 0
        for d in rem:
            if d == last:
                continue
            last = d
            rest = self._rest(rem, d)
            for f in self._sources():
                t = self._try(f, d)
                if t < 0:
                    continue
                hit = self._do(f, t)
                k = self._key() + bytes(rest)
                if k in seen:
                    n = depth + 1
                else:
                    seen.add(k)
                    n = self._longest(rest, depth + 1, seen)
                self._undo(f, t, hit)
                if n > best:
                    best = n
                    if best == full:
                        return best
        return best

    def _effective(self, pos, dice):
        """(dice tuple to play, maximum steps M) after C5: when only one die can be
        played, only the larger may be (if it can)."""
        rem = self._dice_list(dice)
        self._setup(pos, rem)
        m = self._longest(rem, 0, set())
        if m == 1 and rem[0] != rem[1]:
            big = rem[0]
            for f in self._sources():
                if self._try(f, big) >= 0:
                    return (big,), 1
            return (rem[1],), 1
        return rem, m

    def max_steps(self, pos, dice):
        """How many dice (steps) the turn must use (C5).

        >>> from nardy.longnardy import LongNardy
        >>> v = LongNardy(); v.max_steps(v.start_position(), (6, 6))
        2
        """
        return self._effective(pos, dice)[1]

    # Full enumeration -------------------------------------------------------------
    def legal_turns(self, pos, dice):
        """All legal turns as distinct resulting positions: a list of
        ``(steps, position)``. ``steps`` is one step sequence that reaches it. The
        resulting position has the opponent to move. A turn with no legal step gives
        one entry with ``steps == ()`` and the position unchanged (the dice are lost).
        """
        rem, m = self._effective(pos, dice)
        self._setup(pos, rem)
        self._results = {}
        self._want = m
        self._enum(rem, [], set())
        out = []
        mo = 26 * pos.turn
        for k, steps in self._results.items():
            b = bytearray(pos.board)
            b[mo:mo + 26] = k[:26]
            if self.HITS:
                b[26 - mo:52 - mo] = k[26:52]
            out.append((steps, Position(b, 1 - pos.turn)))
        self._results = None
        return out

    def _enum(self, rem, steps, seen):
        if len(steps) == self._want:
            k = self._key()
            if k not in self._results:
                self._results[k] = tuple(steps)
            return
        last = 0
        for d in rem:
            if d == last:
                continue
            last = d
            rest = self._rest(rem, d)
            for f in self._sources():
                t = self._try(f, d)
                if t < 0:
                    continue
                hit = self._do(f, t)
                k = self._key() + bytes(rest)
                if k not in seen:
                    seen.add(k)
                    steps.append((f, t))
                    self._enum(rest, steps, seen)
                    steps.pop()
                self._undo(f, t, hit)

    # Partial turns (what the tracker asks while a turn is being played) -------------
    def _extends(self, rem, need, failed):
        """Can ``need`` more steps be played from the current state? ``failed``
        remembers states (with their dice) already known to fall short; it may be
        shared by calls whose ``need - len(rem)`` is the same."""
        if need == 0:
            return True
        last = 0
        for d in rem:
            if d == last:
                continue
            last = d
            rest = self._rest(rem, d)
            for f in self._sources():
                t = self._try(f, d)
                if t < 0:
                    continue
                hit = self._do(f, t)
                k = self._key() + bytes(rest)
                ok = False
                if k not in failed:
                    ok = self._extends(rest, need - 1, failed)
                    if not ok:
                        failed.add(k)
                self._undo(f, t, hit)
                if ok:
                    return True
        return False

    def _dice_for(self, f, t, rem):
        """Distinct dice in ``rem`` with which f->t is a legal step now."""
        out = []
        last = 0
        for d in rem:
            if d == last:
                continue
            last = d
            if f + d == t or (t == 25 and f + d > 25):
                if self._try(f, d) == t:
                    out.append(d)
        return out

    def _replay(self, rem, played, i, acc):
        """Collect every remaining-dice tuple after playing ``played[i:]`` (the
        state is left as it was)."""
        if i == len(played):
            if rem not in acc:
                acc.append(rem)
            return
        f, t = played[i]
        for d in self._dice_for(f, t, rem):
            hit = self._do(f, t)
            self._replay(self._rest(rem, d), played, i + 1, acc)
            self._undo(f, t, hit)

    def _after(self, pos, dice, played):
        """Set up the state after ``played``; returns (list of possible remaining
        dice tuples, steps still needed). An illegal prefix gives ([], 0)."""
        rem, m = self._effective(pos, dice)
        self._setup(pos, rem)
        acc = []
        self._replay(rem, tuple(played), 0, acc)
        if not acc:
            return [], 0
        for f, t in played:
            self._do(f, t)
        return acc, m - len(played)

    def next_steps(self, pos, dice, played=()):
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
        out = []
        if need <= 0:
            return out
        failed = set()
        for rem in rems:
            last = 0
            for d in rem:
                if d == last:
                    continue
                last = d
                rest = self._rest(rem, d)
                for f in self._sources():
                    t = self._try(f, d)
                    if t < 0 or (f, t) in out:
                        continue
                    hit = self._do(f, t)
                    if self._extends(rest, need - 1, failed):
                        out.append((f, t))
                    self._undo(f, t, hit)
        return out

    def targets(self, pos, dice, played, src):
        """Where the checker lifted from ``src`` may legally go now: ``{to: steps}``
        with one die or several dice in a row (each intermediate point a legal
        landing, C3), keeping only moves that begin a maximal turn."""
        rems, need = self._after(pos, dice, played)
        found = {}
        failed = set()
        for rem in rems:
            self._walk(src, rem, need, [], found, failed)
        return found

    def _walk(self, f, rem, need, path, found, failed):
        if need <= 0 or f == 25:
            return
        last = 0
        for d in rem:
            if d == last:
                continue
            last = d
            t = self._try(f, d)
            if t < 0:
                continue
            rest = self._rest(rem, d)
            hit = self._do(f, t)
            path.append((f, t))
            if self._extends(rest, need - 1, failed):
                if t not in found:
                    found[t] = tuple(path)
                self._walk(t, rest, need - 1, path, found, failed)
            path.pop()
            self._undo(f, t, hit)

    def step_error(self, pos, dice, played, step):
        """None if ``step`` may follow ``played``; else (rule id, reason).

        >>> from nardy.longnardy import LongNardy
        >>> v = LongNardy(); p = v.start_position()
        >>> v.step_error(p, (6, 5), [(1, 7)], (1, 6))
        ('L3', 'only one checker may leave the head')
        """
        f, t = step
        rems, need = self._after(pos, dice, played)
        if not rems:
            return self.verdict(E_DICE)
        if need <= 0:
            return self.verdict(E_DICE)
        worst = E_DICE
        for rem in rems:
            last = 0
            for d in rem:
                if d == last:
                    continue
                last = d
                if not (f + d == t or (t == 25 and f + d > 25)):
                    continue
                r = self._try(f, d)
                if r < 0:
                    worst = -r
                    continue
                hit = self._do(f, t)
                ok = self._extends(self._rest(rem, d), need - 1, set())
                self._undo(f, t, hit)
                if ok:
                    return None
                worst = E_MAXUSE
        if worst == E_DICE:
            # C5 may have cut the dice down to one: judge the step against the roll.
            full = self._dice_list(dice)
            for d in full:
                if f + d == t or (t == 25 and f + d > 25):
                    r = self._try(f, d)
                    if r < 0:
                        worst = -r
                    elif r == t:
                        worst = E_LARGER if d < full[0] and need == 1 else E_MAXUSE
        if worst == E_DICE and self.BAR_RULE and f and self._me[0]:
            worst = E_BAR
        return self.verdict(worst)

    # Final position check --------------------------------------------------------------
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
        mo = 26 * pos.turn
        oo = 26 - mo
        fb = final.board
        for base in (mo, oo):
            n = 0
            for k in range(26):
                n += fb[base + k]
            if n != CHECKERS:
                return self.verdict(E_COUNT)
        fme = fb[mo:mo + 26]
        fopp = fb[oo:oo + 26]
        start = pos.board
        # The opponent only changes by being hit (short nardy).
        if self.HITS:
            for k in range(1, 26):
                if fopp[k] > start[oo + k]:
                    return self.verdict(E_OPPONENT)
        elif fopp != start[oo:oo + 26]:
            return self.verdict(E_OPPONENT)
        # Own checkers only move forward: cumulative counts from the rear.
        slack = bytearray(26)
        cs = cf = 0
        for k in range(26):
            cs += start[mo + k]
            cf += fme[k]
            if cs < cf:
                return self.verdict(E_DICE)
            slack[k] = cs - cf
        rem, m = self._effective(pos, dice)
        self._slack = slack
        self._fme = fme
        self._fopp = fopp
        depths = self._reach_from(pos, rem, 0)
        if depths & (1 << m):
            return None
        full = self._dice_list(dice)
        if rem != full:
            depths = self._reach_from(pos, full, 0)
        if depths:
            if m == 1 and rem != full and depths & 2:
                return self.verdict(E_LARGER)
            return self.verdict(E_MAXUSE)
        for bit, code in ((R_BAR, E_BAR), (R_HEAD, E_HEAD), (R_BLOCK, E_BLOCK),
                          (R_CLOSED, E_CLOSED), (R_BEAROFF, E_NOT_HOME),
                          (R_OVERBEAR, E_OVERBEAR)):
            if self._reach_from(pos, full, bit):
                return self.verdict(code)
        return self.verdict(E_DICE)

    def _reach_from(self, pos, rem, relax):
        self._setup(pos, rem, relax)
        return self._reach(rem, 0, set())

    def _at_target(self):
        if self._me != self._fme:
            return False
        return not self.HITS or self._opp == self._fopp

    def _reach(self, rem, depth, seen):
        """Bitmask of step counts after which the state equals the target."""
        found = 0
        if self._at_target():
            found = 1 << depth
        if not rem:
            return found
        slack = self._slack
        last = 0
        for d in rem:
            if d == last:
                continue
            last = d
            rest = self._rest(rem, d)
            for f in self._sources():
                if slack[f] == 0:
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
                    q = self._O[t]
                    if self._opp[q] == 1 and self._fopp[q]:
                        continue  # a hit cannot be undone within the turn
                hit = self._do(f, t)
                k = self._key() + bytes(rest)
                if k not in seen:
                    seen.add(k)
                    for j in range(f, t):
                        slack[j] -= 1
                    found |= self._reach(rest, depth + 1, seen)
                    for j in range(f, t):
                        slack[j] += 1
                self._undo(f, t, hit)
        return found
