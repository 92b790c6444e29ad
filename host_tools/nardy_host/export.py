"""``nardy export``: a game journal to GNU Backgammon's .mat, a long-nardy text
record, or JSON; and reading such a text record back.

A GAME is one journal (JSON lines, ``nardy.record``): pulled from a board, from the
virtual board, or written by ``nardy selfplay --log DIR``.

Short nardy becomes a Jellyfish ``.mat`` file, the match format gnubg imports: one
numbered line per pair of turns, white's turn on the left, black's on the right,
each as ``dice: from/to ...`` in the mover's gnubg point numbers (25 = bar, 0 = off,
``*`` for a hit), then ``Wins N point(s)`` under the winner.

Long nardy has no such standard, so the text record keeps the same layout in the
long-nardy path numbers of RULES.md (each side counts from its head, 1, to 24; 0 is
never used, 25 = off)::

    ; nardy long-nardy record 1
    ; options: home_mars
    ; first: white
     1 point match

     Game 1
     White : 0                           Black : 0
      1) 65: 1/7 7/12                     31: 1/4 4/5
      2) 44: -                            ...
                                          Wins 2 points (mars)

``-`` is a turn with no legal move (the dice are lost, C5); a turn the opponent
accepted although it broke a rule ends with ``!L3`` (its rule, seed 001 §3.4) and
shows the moves as they were read off the board. ``nardy export --read FILE``
replays such a record through the engine and checks every turn.
"""

import json
import os
import sys

from nardy import movesvc
from nardy.notation import parse_position_id
from nardy.rules import BLACK, COLORS, WHITE

HEADER = "; nardy long-nardy record 1"


def register(sub):
    p = sub.add_parser(
        "export", help="export a game journal (gnubg .mat, long-nardy text, json)",
        description=__doc__, formatter_class=_raw())
    p.add_argument("game", metavar="GAME", help="journal file (.jsonl), or with --read a "
                   "long-nardy text record")
    p.add_argument("--format", choices=("mat", "text", "json"), default=None,
                   help="mat for short nardy, text for long nardy (the defaults), json")
    p.add_argument("--out", metavar="FILE", help="write here (default: stdout)")
    p.add_argument("--read", action="store_true",
                   help="read a long-nardy text record back and check it with the engine")
    p.set_defaults(func=run)


def _raw():
    import argparse
    return argparse.RawDescriptionHelpFormatter


class Game:
    """A journal read and checked: header, turns, end."""

    def __init__(self, header, turns, end):
        self.header = header
        self.turns = turns
        self.end = end
        self.variant = movesvc.variant_for(header["variant"], header.get("options") or {})
        self.start = parse_position_id(header["start"])[1]


def read_journal(path):
    """Read a journal, tolerating a torn last line; unknown record kinds (newer
    firmware) are skipped. Raises ValueError with the line number on bad input."""
    from nardy_host.cli import UserError
    header, turns, end = None, [], None
    try:
        with open(path) as f:
            lines = [ln for ln in f if ln.strip()]
    except OSError as e:
        raise UserError("cannot read %s: %s" % (path, e.strerror)) from None
    for i, line in enumerate(lines):
        try:
            rec = json.loads(line)
            if not isinstance(rec, dict):
                raise ValueError
        except ValueError:
            if i == len(lines) - 1:
                break  # a power cut during the last write
            raise UserError("%s:%d: not a journal line" % (path, i + 1)) from None
        kind = rec.get("r")
        if kind == "game":
            header = rec
        elif kind == "turn":
            turns.append(rec)
        elif kind == "end":
            end = rec
    if header is None:
        raise UserError("%s: no game line: not a journal" % path)
    try:
        return Game(header, turns, end)
    except (KeyError, ValueError) as e:
        raise UserError("%s: bad game line: %s" % (path, e)) from None


def _steps(turn):
    return tuple((s[0], s[1]) for s in turn["steps"])


def positions(game):
    """Yield (turn record, position before it) and check each turn against the
    engine: a turn not accepted as illegal must be legal and reach its ``pos``."""
    from nardy_host.cli import UserError
    v = game.variant
    pos = game.start
    for t in game.turns:
        side = COLORS.index(t["side"])
        if pos.turn != side:
            pos = pos.copy()
            pos.turn = side
        yield t, pos
        after = parse_position_id(t["pos"])[1]
        if not t.get("accepted"):
            final = pos
            for s in _steps(t):
                final = v.apply_step(final, s)
            verdict = v.check_turn(pos, tuple(t["dice"]), final)
            if verdict is not None or final.board != after.board:
                raise UserError("turn %s (%s %d-%d) is not legal: %s" % (
                    t["n"], t["side"], t["dice"][0], t["dice"][1],
                    verdict and "%s %s" % verdict or "the position does not match"))
        pos = after


def _mat_move(v, pos, turn):
    """``dice: f/t f/t`` in gnubg numbers, one part per die, hits marked."""
    d = "%d%d: " % (turn["dice"][0], turn["dice"][1])
    cur = pos
    parts = []
    for f, t in _steps(turn):
        hit = t < 25 and cur.count(1 - cur.turn, v.opp_point(t)) == 1
        parts.append("%d/%d%s" % (25 - f, 25 - t, "*" if hit else ""))
        cur = v.apply_step(cur, (f, t))
    return d + " ".join(parts)


def _text_move(turn):
    d = "%d%d: " % (turn["dice"][0], turn["dice"][1])
    steps = _steps(turn)
    body = " ".join("%d/%d" % s for s in steps) if steps else "-"
    if turn.get("accepted"):
        body += " !%s" % (turn.get("rule") or "?")
    return d + body


def _layout(game, fmt):
    """The numbered two-column lines of a game."""
    v = game.variant
    rows = []
    cells = [None, None]
    for turn, pos in positions(game):
        if fmt == "mat":
            if turn.get("accepted"):
                from nardy_host.cli import UserError
                raise UserError("turn %s was accepted although it broke %s: gnubg's .mat "
                                "cannot hold an illegal move (use --format json)"
                                % (turn["n"], turn.get("rule")))
            text = _mat_move(v, pos, turn) if turn["steps"] else (
                "%d%d: " % (turn["dice"][0], turn["dice"][1]))
        else:
            text = _text_move(turn)
        side = COLORS.index(turn["side"])
        if side == WHITE and (cells[0] is not None or cells[1] is not None):
            rows.append(cells)
            cells = [None, None]
        cells[side] = text
        if side == BLACK:
            rows.append(cells)
            cells = [None, None]
    if cells != [None, None]:
        rows.append(cells)
    out = []
    for i, (w, b) in enumerate(rows):
        out.append(("%3d) %-32s %s" % (i + 1, w or "", b or "")).rstrip())
    if game.end and game.end.get("winner") in COLORS:
        pts = game.end["points"]
        kind = game.end.get("kind", "")
        words = "Wins %d point%s" % (pts, "" if pts == 1 else "s")
        if fmt == "text" and kind:
            words += " (%s)" % kind
        pad = 5 if game.end["winner"] == "white" else 38
        out.append(" " * pad + words)
    return out


def export(game, fmt, length=None, names=("White", "Black"), score=(0, 0)):
    """The text of one game in ``fmt`` ("mat" or "text")."""
    meta = game.header.get("meta") or {}
    length = length or meta.get("match") or 1
    lines = []
    if fmt == "text":
        on = sorted(k for k, val in game.variant.options.items() if val)
        lines += [HEADER, "; options: %s" % (" ".join(on) or "-"),
                  "; first: %s" % COLORS[game.start.turn]]
    lines += [" %d point match" % length, "", " Game %d" % meta.get("game", 1),
              " %s : %d%s%s : %d" % (names[0], score[0], " " * 27, names[1], score[1])]
    lines += [" " + ln for ln in _layout(game, fmt)]
    return "\n".join(lines) + "\n"


def as_json(game):
    return json.dumps({"game": game.header, "turns": game.turns, "end": game.end},
                      indent=1) + "\n"


def read_text(text):
    """Parse a long-nardy text record and replay it through the engine. Returns a
    list of (dice, steps, position after, accepted rule or None) per turn."""
    from nardy.longnardy import LongNardy
    from nardy_host.cli import UserError
    lines = text.splitlines()
    if not lines or lines[0].strip() != HEADER:
        raise UserError("not a nardy long-nardy record (first line must be %r)" % HEADER)
    opts = {}
    turns = []
    first = "white"
    for ln in lines[1:]:
        s = ln.strip()
        if s.startswith("; first:"):
            first = s.split(":", 1)[1].strip()
            if first not in COLORS:
                raise UserError("; first: must be white or black")
            continue
        if s.startswith("; options:"):
            for name in s.split(":", 1)[1].split():
                if name != "-":
                    opts[name] = True
            continue
        if ")" not in s or not s.split(")")[0].strip().isdigit():
            continue
        turns.extend(_split_cells(s.split(")", 1)[1]))
    try:
        v = LongNardy(**opts)
    except ValueError as e:
        raise UserError(str(e)) from None
    pos = v.start_position(turn=COLORS.index(first))
    out = []
    for dice, moves, rule in turns:
        steps = []
        for m in moves:
            try:
                f, t = (int(x) for x in m.split("/"))
            except ValueError:
                raise UserError("bad move %r" % m) from None
            steps.append((f, t))
        final = pos
        try:
            for st in steps:
                final = v.apply_step(final, st)
        except ValueError as e:
            raise UserError("turn %d-%d %s: %s" % (dice[0], dice[1], moves, e)) from None
        verdict = v.check_turn(pos, dice, final)
        if verdict is not None and rule is None:
            raise UserError("turn %d-%d %s is illegal: %s %s" % (
                dice[0], dice[1], " ".join(moves), verdict[0], verdict[1]))
        final.turn = 1 - pos.turn
        out.append((dice, tuple(steps), final, rule))
        pos = final
    return out


def _split_cells(body):
    """'65: 1/7 7/12      31: 1/4' -> [((6,5), ['1/7','7/12'], None), ...]"""
    toks = body.split()
    cells = []
    cur = None
    for tok in toks:
        if tok.endswith(":") and len(tok) == 3 and tok[:2].isdigit():
            cur = [(int(tok[0]), int(tok[1])), [], None]
            cells.append(cur)
        elif cur is None:
            continue
        elif tok == "-":
            pass
        elif tok.startswith("!"):
            cur[2] = tok[1:]
        else:
            cur[1].append(tok)
    return [tuple(c) for c in cells]


def run(args):
    from nardy_host.cli import UserError
    if args.read:
        try:
            with open(args.game) as f:
                text = f.read()
        except OSError as e:
            raise UserError("cannot read %s: %s" % (args.game, e.strerror)) from None
        turns = read_text(text)
        print("%d turns, all legal or accepted; final position %s" % (
            len(turns), _pid(turns)))
        return 0
    game = read_journal(args.game)
    fmt = args.format or ("mat" if game.variant.name == "short" else "text")
    if fmt == "mat" and game.variant.name != "short":
        raise UserError("gnubg's .mat is for short nardy (backgammon); use --format text")
    if fmt == "text" and game.variant.name != "long":
        raise UserError("the text record is for long nardy; use --format mat")
    text = as_json(game) if fmt == "json" else export(game, fmt)
    if fmt == "json":
        list(positions(game))  # still check every turn
    if args.out:
        tmp = args.out + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, args.out)
    else:
        sys.stdout.write(text)
    return 0


def _pid(turns):
    from nardy.longnardy import LongNardy
    from nardy.notation import position_id
    if not turns:
        return "-"
    return position_id(LongNardy(), turns[-1][2])
