"""One game journal read and checked for export: every shape the board, the virtual
board, the simulator page and ``nardy selfplay --log`` write, and nothing else.

Anything wrong with a file is a :class:`BadGame` naming the file (and the line where
there is one), never another exception: ``nardy export`` reports it and goes on with
the next file. The checks here are those export needs on top of reading the lines:
types and ranges of every field it uses, positions of the game's variant with 15
checkers a side, turns alternating between the sides.

Shapes of ``meta`` in the ``game`` line (informational: a shape not known here is
read as "game 1 of a 1-point match", never an error):

- the board and the virtual board: ``{"match": {"length": N, "score": [w, b],
  "game": G, "no": M, "white_player": 0|1}}``
- older test journals: ``{"match": N, "game": G}``
- self-play: ``{"seed": S}``
"""

import json

from nardy import movesvc
from nardy.notation import parse_position_id
from nardy.posjson import from_json, to_json
from nardy.rules import COLORS
from nardy.scoring import opening_winner

# A long game is ~100 KB on the board; anything far bigger is not a journal and
# would only cost memory and time.
MAX_BYTES = 8 * 1024 * 1024
MAX_STEPS = 24          # an accepted turn may have more steps than the dice allow
MAX_MATCH = 99


class BadGame(ValueError):
    """A file that is not a journal export can read; the text says where and why."""


class Game:
    """A journal read and checked: header, turns, end, and who moved first."""

    def __init__(self, path, header, turns, afters, end, opening):
        self.path = path
        self.header = header
        self.turns = turns
        self.afters = afters    # the position after each turn (its ``pos``)
        self.end = end
        self.variant = _variant(header)
        self.start = _position(self.variant, header.get("start"), "game line: start")
        self.first = _first_mover(self.start, turns, opening)
        self.length, self.number, self.score = match_info(header.get("meta"))


def _int(x, lo, hi):
    return isinstance(x, int) and not isinstance(x, bool) and lo <= x <= hi


def match_info(meta):
    """(match length, game number, score [white, black]) from any known ``meta``."""
    length, number, score = 1, 1, [0, 0]
    if not isinstance(meta, dict):
        return length, number, score
    m = meta.get("match")
    if isinstance(m, dict):                     # the board
        if _int(m.get("length"), 1, MAX_MATCH):
            length = m["length"]
        if _int(m.get("game"), 1, 10 ** 6):
            number = m["game"]
        s = m.get("score")
        if (isinstance(s, list) and len(s) == 2
                and all(_int(x, 0, length - 1) for x in s)):
            score = [s[0], s[1]]
    elif _int(m, 1, MAX_MATCH):                 # older test journals
        length = m
        if _int(meta.get("game"), 1, 10 ** 6):
            number = meta["game"]
    return length, number, score


def _variant(header):
    name = header.get("variant")
    opts = header.get("options")
    if opts is None:
        opts = {}
    if not isinstance(opts, dict) or not all(isinstance(v, bool) for v in opts.values()):
        raise BadGame("game line: options must map names to true/false")
    try:
        return movesvc.variant_for(name, opts)
    except (ValueError, TypeError) as e:
        raise BadGame("game line: %s" % e) from None


def _position(variant, text, where):
    """A position id of ``variant`` with 15 checkers a side, one colour per point."""
    if not isinstance(text, str) or len(text) > 64:
        raise BadGame("%s: not a position id" % where)
    try:
        name, pos = parse_position_id(text)
        if name != variant.name:
            raise ValueError("a %s-nardy position in a %s-nardy game" % (name, variant.name))
        from_json(variant, to_json(pos))
    except ValueError as e:
        raise BadGame("%s: %s" % (where, e)) from None
    return pos


def _first_mover(start, turns, opening):
    """The side that plays the first turn. The board's start position always says
    white: its opening roll (``open``, C2) decides. Journals without one (self-play,
    a long-nardy game after the first of a match, L8) have it in the start position
    or, failing that, in the first turn."""
    if opening is not None:
        return opening
    if turns:
        return COLORS.index(turns[0]["side"])
    return start.turn


def _check_turn(t, variant):
    if not _int(t.get("n"), 0, 10 ** 6):
        raise ValueError("n must be a turn number")
    if t.get("side") not in COLORS:
        raise ValueError('side must be "white" or "black"')
    d = t.get("dice")
    if not isinstance(d, list) or len(d) != 2 or not all(_int(x, 1, 6) for x in d):
        raise ValueError("dice must be two numbers 1..6")
    steps = t.get("steps")
    if (not isinstance(steps, list) or len(steps) > MAX_STEPS
            or not all(isinstance(s, list) and len(s) == 2
                       and all(_int(x, 0, 25) for x in s) for s in steps)):
        raise ValueError("steps must be a list of [from, to] points 0..25")
    if not isinstance(t.get("accepted", False), bool):
        raise ValueError("accepted must be true or false")
    rule = t.get("rule")
    if rule is not None and (not isinstance(rule, str) or len(rule) > 16):
        raise ValueError("rule must be a rule id")
    return _position(variant, t.get("pos"), "pos")


def _check_end(e):
    if e.get("winner") not in COLORS + (None,):
        raise ValueError('winner must be "white", "black" or null')
    if e.get("winner") is not None and not _int(e.get("points"), 1, 3):
        raise ValueError("points must be 1..3")
    kind = e.get("kind")
    if kind is not None and (not isinstance(kind, str) or len(kind) > 16):
        raise ValueError("kind must be a short word")


def _opening(rec):
    rolls = rec.get("rolls")
    if (not isinstance(rolls, list) or not rolls or not isinstance(rolls[-1], list)
            or len(rolls[-1]) != 2 or not all(_int(x, 1, 6) for x in rolls[-1])):
        raise ValueError("rolls must be a list of [white, black] dice")
    return opening_winner(rolls[-1][0], rolls[-1][1])


def _lines(path):
    """The journal's lines as text, with their numbers. A file that is too big, not
    UTF-8 or cannot be read is a BadGame."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except OSError as e:
        raise BadGame("cannot read it: %s" % (e.strerror or e)) from None
    if len(data) > MAX_BYTES:
        raise BadGame("larger than %d MB: not a journal" % (MAX_BYTES // 2 ** 20))
    out = []
    for i, raw in enumerate(data.split(b"\n")):
        if raw.strip():
            out.append((i + 1, raw))
    return out


def _parse(raw):
    try:
        rec = json.loads(raw.decode("utf-8"))
    except (UnicodeError, ValueError, RecursionError):
        return None
    return rec if isinstance(rec, dict) else None


def read(path):
    """A :class:`Game` from the journal at ``path``; :class:`BadGame` otherwise.

    A broken last line is a power cut during the write (dropped, as the board does);
    a broken line elsewhere, a second ``game`` line, anything after ``end``, or a
    record export needs that is malformed makes the file bad. Kinds export does not
    use (roll, step, undo, warn, and newer ones) are skipped."""
    lines = _lines(path)
    header, turns, afters, end, opening = None, [], [], None, None
    for k, (no, raw) in enumerate(lines):
        rec = _parse(raw)
        if rec is None:
            if k == len(lines) - 1 and k > 0:
                break                       # torn tail
            raise BadGame("line %d: not a journal line" % no)
        kind = rec.get("r")
        try:
            if header is None:
                if kind != "game":
                    raise ValueError("the first line is not a game line: not a journal")
                if rec.get("v") != 1:
                    raise ValueError("journal version %r, this tool reads 1"
                                     % (rec.get("v") if _int(rec.get("v"), 0, 99) else "?"))
                header = rec
                variant = _variant(header)
            elif end is not None:
                raise ValueError("a %s line after the game's end"
                                 % (kind if kind in ("game", "turn", "end") else "record"))
            elif kind == "game":
                raise ValueError("a second game line")
            elif kind == "open":
                opening = _opening(rec)
            elif kind == "turn":
                afters.append(_check_turn(rec, variant))
                turns.append(rec)
            elif kind == "end":
                _check_end(rec)
                end = rec
        except BadGame as e:
            raise BadGame("line %d: %s" % (no, e)) from None
        except ValueError as e:
            raise BadGame("line %d: %s" % (no, e)) from None
    if header is None:
        raise BadGame("empty: not a journal")
    game = Game(path, header, turns, afters, end, opening)
    _check_sides(game)
    return game


def _check_sides(game):
    """Turns alternate: the first is the opening winner's, then one each."""
    side = game.first
    for t in game.turns:
        if COLORS.index(t["side"]) != side:
            raise BadGame("turn %d: %s moves, but it is %s's turn"
                          % (t["n"], t["side"], COLORS[side]))
        side = 1 - side
