"""One game journal read and checked for export: every shape the board, the virtual
board, the simulator page and ``nardy selfplay --log`` write, and nothing else.

Anything wrong with a file is a :class:`BadGame` naming the file (and the line where
there is one), never another exception: ``nardy export`` reports it and goes on with
the next file. The checks here are those export needs on top of reading the lines:
types and ranges of every field it uses, positions of the game's variant with 15
checkers a side (one colour per point until a turn was accepted as played: the board
records the board it saw), turns alternating between the sides.

Shapes of ``meta`` in the ``game`` line (informational: a shape not known here is
read as "game 1 of a 1-point match", never an error):

- the board and the virtual board: ``{"match": {"length": N, "score": [w, b],
  "game": G, "no": M, "white_player": 0|1}}``
- older test journals: ``{"match": N, "game": G}``
- self-play: ``{"seed": S}``
"""

from nardy import record
from nardy.notation import parse_position_id
from nardy.posjson import from_json, to_json
from nardy.rules import BLACK, COLORS, WHITE
from nardy.variants import find_variant

MAX_BYTES = 8 * 1024 * 1024     # for a long-nardy text record (export --read)
MAX_TURNS = 5000        # a game of either variant ends long before; bounds memory
MAX_STEPS = 24          # an accepted turn may have more steps than the dice allow
MAX_MATCH = 99


class BadGame(ValueError):
    """A file that is not a journal export can read; the text says where and why."""


class Game:
    """A journal read and checked: header, turns, end, and who moved first."""

    def __init__(self, path, header, turns, afters, end, first):
        self.path = path
        self.header = header
        self.turns = turns
        self.afters = afters    # the position after each turn (its ``pos``)
        self.end = end
        self.variant = _variant(header)
        self.start = _position(self.variant, header.get("start"), "game line: start")
        self.first = _first_mover(self.start, first)
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
        return find_variant(name, opts)
    except (ValueError, TypeError) as e:
        raise BadGame("game line: %s" % e) from None


def _position(variant, text, where, mixed=False):
    """A position id of ``variant`` with 15 checkers a side, one colour per point
    unless ``mixed`` (after a turn the opponent accepted: ``read``)."""
    if not isinstance(text, str) or len(text) > 64:
        raise BadGame("%s: not a position id" % where)
    try:
        name, pos = parse_position_id(text)
        if name != variant.name:
            raise ValueError("a %s-nardy position in a %s-nardy game" % (name, variant.name))
        from_json(variant, to_json(pos), mixed)
    except ValueError as e:
        raise BadGame("%s: %s" % (where, e)) from None
    return pos


def shared_point(variant, pos):
    """The first physical point P1..P24 holding both colours in ``pos`` (a board
    the opponent accepted so, seed 001 §3.4), or 0."""
    for k in range(1, 25):
        if pos.count(WHITE, k) and pos.count(BLACK, variant.opp_point(k)):
            return variant.physical(WHITE, k)
    return 0


def _first_mover(start, first):
    """The side that plays the first turn: the reader's ``first`` (the opening
    roll's winner, C2, or the header's), else the start position's side to move."""
    if first is not None:
        return COLORS.index(first)
    return start.turn


def _turn_after(t, variant, mixed):
    """The position after a turn (record.check has checked the field types). Once a
    turn was accepted as played (seed 001 §3.4), the position may hold both colours
    on a point, as the board it was accepted on did; the board records what it
    sees."""
    if len(t["steps"]) > MAX_STEPS:
        raise BadGame("turn %d: %d steps" % (t["n"], len(t["steps"])))
    return _position(variant, t["pos"], "turn %d: pos" % t["n"], mixed)


def read(path):
    """A :class:`Game` from the journal at ``path``; :class:`BadGame` otherwise.

    The lines are read by ``record.Reader`` (the board's own reader: the torn-tail
    rule, field types and ranges); on top of it export needs real positions of the
    game's variant, known options, and turns that alternate from the first mover.
    Kinds export does not use (roll, step, undo, warn) are skipped."""
    reader = record.Reader(path)
    header, variant, turns, afters = None, None, [], []
    accepted = False
    for rec in reader:
        kind = rec["r"]
        if kind == "game":
            header = rec
            variant = _variant(rec)
        elif kind == "turn":
            if len(turns) >= MAX_TURNS:
                raise BadGame("more than %d turns: not a game" % MAX_TURNS)
            accepted = accepted or rec["accepted"]
            afters.append(_turn_after(rec, variant, accepted))
            turns.append(rec)
    if reader.problem:
        raise BadGame("not a readable journal: %s" % reader.problem)
    game = Game(path, header, turns, afters, reader.end, reader.first)
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
