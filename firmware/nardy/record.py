"""Game records: the journal format (one JSON object per line) and its ONE reader.

The board appends to one journal file per game on its flash and flushes every line
before it shows the step as done; self-play (``nardy selfplay --log DIR``) writes the
same lines, one ``.jsonl`` file per game. Everything that reads a journal (the board's
boot, resume, ``log`` and ``index``; the host's ``nardy log`` and ``nardy export``)
reads it through :class:`Reader`, so every reader applies the same rules.

Records (``"r"`` is the kind, ``"n"`` the turn number from 1, ``"side"`` "white" or
"black", positions are ``notation.position_id`` texts, steps are ``[from, to]`` in the
mover's path points, 0 = bar, 25 = off)::

    {"r": "game", "v": 1, "variant": "long", "options": {...}, "start": "Lw-...",
     "first": "white" | "black" | null, "meta": {...}}  first line of every journal
    {"r": "open", "rolls": [[3, 5], [2, 2], ...], "first": "black"}   opening roll (C2)
    {"r": "roll", "n": 1, "side": "white", "dice": [6, 5]}
    {"r": "step", "n": 1, "from": 1, "to": 7}           a committed step
    {"r": "undo", "n": 1, "from": 1, "to": 7}           the step was taken back
    {"r": "warn", "n": 1, "rule": "L3", "text": "...", "points": [24, 18]}
    {"r": "turn", "n": 1, "side": "white", "dice": [6, 5], "steps": [[1, 7], [7, 12]],
     "pos": "Lb-...", "accepted": false, "rule": null}  the turn as finally played
    {"r": "end", "winner": "white", "kind": "oin", "points": 1}   (+ "resigned": side)
    {"r": "end", "winner": null, "kind": "abandoned", "points": 0}  a new match was
                                                        started before this game ended

Who moved first (``Reader.first``), stated once and unambiguously: the ``open``
record's ``first`` (the opening winner, C2: every try is in ``rolls`` as [white,
black]); a game without an opening roll (long nardy after the first game of a match,
L8; self-play) has it in the ``game`` line's ``first``. ``start`` is the position
before the first turn; its side to move is only meaningful when ``first`` is in the
``game`` line (the board writes the header before the opening is rolled). Journals
written before ``first`` existed: the side of the first ``roll``/``turn`` record.

``turn`` lines are authoritative: replaying a journal applies their ``pos``; roll,
step, undo and warn lines tell the story of the turn (and let a rebooted board resume
a turn in progress). ``accepted`` is true when the opponent accepted an illegal turn
as played (seed 001 §3.4); ``rule`` then names the rule it broke. ``steps`` may be
empty for an accepted turn whose steps the board could not tell. A game always ends
with an ``end`` record (finished, resigned, or abandoned); a journal without one is
the game being played (or one cut off by a power failure before it ended).

Reading (:class:`Reader`): a line at a time, at most ``_MAX_LINE`` bytes held, never
an exception for what is in the file. The torn-tail rule: an unreadable LAST line (a
power cut during a write, an erased-flash tail of 0xFF or NUL bytes) is dropped and
``torn`` is set; an unreadable line with a readable one after it makes the whole
file unreadable (``problem`` says which line and why; nothing after it is read).
Unreadable: not UTF-8, not JSON, longer than ``_MAX_LINE``, a kind this module does
not know, or a field of the wrong type or range (``check``).
"""

import json

from micropython import const  # CPython: the shim nardy/__init__.py installs

from nardy.notation import parse_position_id, position_id
from nardy.rules import COLORS

_VERSION = const(1)
KINDS = ("game", "open", "roll", "step", "undo", "warn", "turn", "end")
_END_KINDS = const(("oin", "mars", "home_mars", "koks", "draw", "abandoned"))
_MAX_LINE = const(2048)         # bytes: the longest record the board writes is ~600
_PIECE = const(256)


def _side(first):
    return None if first is None else COLORS[first]


def game(variant, start, meta=None, first=None):
    """The header. ``first``: the colour that moves first when no opening roll
    decides it (else None: the ``open`` record will say)."""
    return {"r": "game", "v": _VERSION, "variant": variant.name,
            "options": dict(variant.options), "start": position_id(variant, start),
            "first": _side(first), "meta": meta or {}}


def opening(rolls, first):
    return {"r": "open", "rolls": [[w, b] for w, b in rolls], "first": COLORS[first]}


def roll(n, side, dice):
    return {"r": "roll", "n": n, "side": COLORS[side], "dice": [dice[0], dice[1]]}


def step(n, st, undo=False):
    return {"r": "undo" if undo else "step", "n": n, "from": st[0], "to": st[1]}


def warn(n, rule, text, points=()):
    return {"r": "warn", "n": n, "rule": rule, "text": text, "points": list(points)}


def turn(variant, n, side, dice, steps, pos, accepted=False, rule=None):
    return {"r": "turn", "n": n, "side": COLORS[side], "dice": [dice[0], dice[1]],
            "steps": [[s[0], s[1]] for s in steps], "pos": position_id(variant, pos),
            "accepted": bool(accepted), "rule": rule}


def end(winner, kind, points):
    return {"r": "end", "winner": _side(winner), "kind": kind, "points": points}


def abandoned():
    return end(None, "abandoned", 0)


def dumps(rec):
    """One journal line (no newline)."""
    return json.dumps(rec)


# -- checking ------------------------------------------------------------------------
# (few functions and few distinct texts: each costs heap on the board even when the
# code itself stays in flash)
_N = const(99999)
_MAYBE_SIDE = const((None, "white", "black"))   # None and COLORS


def _is_int(v, lo, hi):
    return type(v) is int and lo <= v <= hi


def _is_pair(v, lo, hi):
    return type(v) is list and len(v) == 2 and _is_int(v[0], lo, hi) and _is_int(v[1], lo, hi)


def _is_options(opts):
    if type(opts) is not dict:
        return False
    for name in opts:
        if type(opts[name]) is not bool:
            return False
    return True


def _is_match(m):
    """``meta.match`` as the board writes it (also the shape of match.json)."""
    return (type(m) is dict and _is_int(m.get("length"), 1, 99)
            and _is_int(m.get("game"), 1, 9999) and _is_int(m.get("no", 1), 1, 999999)
            and m.get("white_player", 0) in (0, 1) and _is_pair(m.get("score"), 0, 999))


def check_match(m):
    """The board's match state between games (``match.json``): ``{"variant",
    "options", "length", "score", "white_player", "game" (games played), "no"}``;
    returns it, or ValueError."""
    if (type(m) is not dict or m.get("variant") not in ("long", "short")
            or not _is_options(m.get("options", {})) or not _is_match(m)):
        raise ValueError("not a match")
    return m


def check(rec):
    """``rec`` if it is a journal record with fields of the right types and ranges,
    else ValueError saying which field is wrong ("roll: bad dice")."""
    if type(rec) is not dict:
        raise ValueError("not a journal record")
    k = rec.get("r")
    g = rec.get
    bad = None
    if k in ("roll", "step", "undo", "warn", "turn") and not _is_int(g("n"), 1, _N):
        bad = "n"
    elif k == "game":
        if g("v") != _VERSION:
            raise ValueError("journal version %r" % (g("v"),))
        meta = g("meta", {})
        if g("variant") not in ("long", "short"):
            bad = "variant"
        elif not _is_options(g("options", {})):
            bad = "options"
        elif type(g("start")) is not str:
            bad = "start"
        elif g("first") not in _MAYBE_SIDE:
            bad = "first"
        elif type(meta) is not dict:
            bad = "meta"
        elif "match" in meta and type(meta["match"]) is not int and not _is_match(
                meta["match"]):
            bad = "meta.match"
        else:
            parse_position_id(rec["start"])
    elif k == "open":
        rolls = g("rolls")
        if type(rolls) is not list or not rolls:
            bad = "rolls"
        else:
            for x in rolls:
                if not _is_pair(x, 1, 6):
                    bad = "rolls"
        if g("first") not in _MAYBE_SIDE:
            bad = "first"
    elif k in ("roll", "turn"):
        if g("side") not in COLORS:
            bad = "side"
        elif not _is_pair(g("dice"), 1, 6):
            bad = "dice"
        elif k == "turn":
            steps = g("steps")
            if type(steps) is not list:
                bad = "steps"
            else:
                for x in steps:
                    if not _is_pair(x, 0, 25):
                        bad = "steps"
            if type(g("pos")) is not str:
                bad = "pos"
            elif type(g("accepted")) is not bool:
                bad = "accepted"
            elif g("rule") is not None and type(g("rule")) is not str:
                bad = "rule"
            else:
                parse_position_id(rec["pos"])
    elif k in ("step", "undo"):
        if not _is_int(g("from"), 0, 25):
            bad = "from"
        elif not _is_int(g("to"), 0, 25):
            bad = "to"
    elif k == "warn":
        if g("rule") is not None and type(g("rule")) is not str:
            bad = "rule"
        elif type(g("text")) is not str:
            bad = "text"
        elif type(g("points", [])) is not list:
            bad = "points"
    elif k == "end":
        if g("winner") not in _MAYBE_SIDE:
            bad = "winner"
        elif g("kind") not in _END_KINDS:
            bad = "kind"
        elif not _is_int(g("points"), 0, 99):
            bad = "points"
        elif g("resigned") not in _MAYBE_SIDE:
            bad = "resigned"
    else:
        raise ValueError("not a journal record")
    if bad:
        raise ValueError("%s: bad %s" % (k, bad))
    return rec


def loads(line):
    """Parse and check one line (str or bytes); ValueError if it is not a journal
    record."""
    return check(_parse(line))


def _parse(line):
    """A line's JSON value, unchecked; ValueError if it is not UTF-8 or not JSON:
    the damage a power cut can leave (a torn write, an erased tail)."""
    if isinstance(line, (bytes, bytearray)):
        if len(line) > _MAX_LINE:
            raise ValueError("line too long")
        try:
            text = bytes(line).decode()
        except (UnicodeError, ValueError):
            raise ValueError("not UTF-8") from None
        if len(text) != len(line):
            # not all ASCII (the board writes ASCII): strictly UTF-8? MicroPython's
            # decode takes overlong forms, which ``log`` would then send on
            from nardy.protocol import bad_bytes
            if bad_bytes(line, len(line), False):
                raise ValueError("not UTF-8")
        line = text
    if len(line) > _MAX_LINE:
        raise ValueError("line too long")
    try:
        return json.loads(line)
    except (ValueError, TypeError, RuntimeError, MemoryError):
        # RuntimeError: CPython's RecursionError on a deeply nested line
        raise ValueError("not JSON") from None


# -- reading ---------------------------------------------------------------------------
class Reader:
    """Stream the records of one journal file, a line at a time.

    ``for rec in Reader(path): ...`` yields every readable record in order (checked
    by ``check``); the file is open only while iterating. Afterwards (also after
    ``scan()``, which just reads to the end) these tell what was in the file:

    - ``problem``: None, or why the file cannot be read ("line 7: not UTF-8", "no
      game line", "empty", "cannot open: ..."). Records yielded before a problem
      was found must then be thrown away: the file as a whole is unreadable.
    - ``header``, ``end``: the ``game`` and ``end`` records (or None);
      ``finished``: an ``end`` record was read;
    - ``first``: "white"/"black", who moved first (see the module docstring), None
      while not known;
    - ``lines``: readable records; ``keep``: bytes up to the end of the last
      readable line; ``torn``: the file has a torn tail (an unreadable last line, or
      a last line without its newline) that a writer must cut off (``keep``) before
      appending; ``damaged``: None, or why that last line cannot be a power cut's
      (it is whole, newline-ended JSON that fails ``check``: dice [0, 7], side
      "green"): damage the journal reports and sets aside instead of cutting.
    """

    def __init__(self, src):
        self.src = src          # a path, or a binary file object (not closed here)
        self.problem = None
        self.header = None
        self.end = None
        self.first = None
        self.lines = 0
        self.keep = 0
        self.torn = False
        self.newline = True     # the last readable line ended with a newline
        self.raw = None         # the bytes of the line just yielded (for ``log``)
        self.damaged = None     # why a torn last line is no power cut (see above)

    @property
    def finished(self):
        return self.end is not None

    def scan(self):
        for _ in self:
            pass
        return self

    @staticmethod
    def _lines(f):
        """(bytes of a line with its newline, its length), or (None, length) for a
        line over ``_MAX_LINE`` (skipped, never held). Read ``_PIECE`` bytes at a
        time: a file's readline goes a byte at a time, and a fragmented heap has no
        2 KB block to spare for every line."""
        rest = b""
        skipped = 0         # bytes of an over-long line dropped so far
        while True:
            i = rest.find(b"\n")
            if i >= 0:
                yield rest[:i + 1], i + 1
                rest = rest[i + 1:]
                continue
            piece = f.read(_PIECE)
            if not piece:
                break
            if skipped:
                j = piece.find(b"\n")
                if j < 0:
                    skipped += len(piece)
                    continue
                yield None, skipped + j + 1
                skipped = 0
                rest = piece[j + 1:]
                continue
            rest += piece
            if len(rest) > _MAX_LINE:
                skipped = len(rest)
                rest = b""
        if skipped:
            yield None, skipped
        elif rest:
            yield rest, len(rest)

    def __iter__(self):
        src = self.src
        if isinstance(src, str):
            try:
                f = open(src, "rb")  # noqa: SIM115 - closed in finally
            except OSError as e:
                self.problem = "cannot open: %s" % e
                return
        else:
            f = src
        try:
            yield from self._records(f)
        except OSError as e:
            # (not MemoryError: a full heap is the board's problem, not the file's)
            self.problem = "cannot read: %s" % e
        finally:
            if f is not src:
                f.close()

    def _records(self, f):
        at = 0            # bytes read so far
        no = 0            # line number
        bad = None        # (line number, why) of an unreadable line not yet known torn
        checked = False   # that line is whole (newline-ended) JSON that failed ``check``
        for ln, n in self._lines(f):
            no += 1
            at += n
            if ln is not None and not ln.strip():
                continue
            if bad is not None:
                # an unreadable line with more after it: not a torn tail
                self.problem = "line %d: %s" % bad
                return
            if ln is None:
                bad = (no, "line too long")
                continue
            try:
                rec = _parse(ln)
            except ValueError as e:
                bad = (no, str(e))
                continue
            try:
                rec = check(rec)
            except ValueError as e:
                # JSON that is no record: kept as damage if it turns out to be the
                # last line and whole (see ``damaged``)
                bad = (no, str(e))
                checked = ln[-1] == 10
                continue
            k = rec["r"]
            if self.header is None:
                if k != "game":
                    self.problem = "no game line"
                    return
                self.header = rec
                self.first = rec.get("first")
            elif k == "game":
                self.problem = "line %d: a second game line" % no
                return
            elif self.end is not None:
                self.problem = "line %d: a record after the end" % no
                return
            elif k == "open":
                self.first = rec.get("first") or self._opening_winner(rec["rolls"][-1])
            elif k in ("roll", "turn") and self.first is None:
                self.first = rec["side"]
            elif k == "end":
                self.end = rec
            self.lines += 1
            self.keep = at
            self.newline = ln[-1] == 10
            self.raw = ln
            yield rec
        if self.header is None and self.problem is None:
            self.problem = "line %d: %s" % bad if bad else "empty"
        self.torn = bad is not None or not self.newline
        if bad is not None and checked:
            self.damaged = "line %d: %s" % bad

    @staticmethod
    def _opening_winner(d):
        return None if d[0] == d[1] else COLORS[0 if d[0] > d[1] else 1]


def replay(src):
    """Read a whole journal (a path, a binary file, or a list of lines): (header,
    turn records, end record or None, the last position as (variant name,
    Position)); ValueError if it is unreadable. Holds every turn record: for host
    tools and tests, not the board."""
    if isinstance(src, list):
        import io
        src = io.BytesIO("".join(ln + "\n" for ln in src).encode())
    r = Reader(src)
    turns = []
    last = None
    for rec in r:
        if rec["r"] == "game":
            last = parse_position_id(rec["start"])
        elif rec["r"] == "turn":
            turns.append(rec)
            last = parse_position_id(rec["pos"])
    if r.problem:
        raise ValueError(r.problem)
    return r.header, turns, r.end, last
