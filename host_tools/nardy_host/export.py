"""``nardy export``: game journals to GNU Backgammon's .mat or .sgf, a long-nardy
text record, or JSON; and reading such a text record back.

A GAME is one journal (JSON lines, ``nardy.record``) as the board keeps it: pulled
with ``nardy log``, downloaded from the simulator page, written by the virtual
board or by ``nardy selfplay --log DIR``. Several GAMEs, or a folder of them, go to
``--out-dir DIR`` as DIR/NAME.mat (.sgf, .txt, .json). A file that is not a readable
game gets one error line and exit status 2; the others are still exported.

Short nardy becomes a Jellyfish ``.mat`` file, the match format gnubg imports: one
numbered line per pair of turns, white's turn on the left, black's on the right,
each as ``dice: from/to ...`` in the mover's gnubg point numbers (25 = bar, 0 = off,
``*`` for a hit), then ``Wins N point(s)`` under the winner. A game with a turn the
opponent accepted although it broke a rule (seed 001 §3.4) cannot be a .mat (gnubg
replays and checks every move of one): it becomes gnubg's SGF (``load match`` in
gnubg), where that turn is marked with the rule and holds the position the board
saw (see ``nardy_host.sgf``).

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

``; first:`` is the side that won the opening roll (C2); when it is black, the first
row's white cell is empty. ``-`` is a turn with no legal move (the dice are lost,
C5); a turn the opponent accepted although it broke a rule ends with ``!L3`` (its
rule) and shows the moves as they were read off the board. ``nardy export --read
FILE`` replays such a record through the engine and checks every turn. The JSON
export is the journal's own records plus ``first``.
"""

import json
import os
import sys

from nardy.rules import BLACK, COLORS, WHITE
from nardy_host import gamefile, sgf
from nardy_host.errors import UserError

HEADER = "; nardy long-nardy record 1"


def register(sub):
    p = sub.add_parser(
        "export", help="export game journals (gnubg .mat/.sgf, long-nardy text, json)",
        description=__doc__, formatter_class=_raw())
    p.add_argument("game", metavar="GAME", nargs="+",
                   help="journal file (.jsonl) or a folder of them (as `nardy log` "
                   "keeps them); with --read one long-nardy text record")
    p.add_argument("--format", choices=FORMATS, default=None,
                   help="mat or sgf for short nardy (default: mat, or sgf for a game "
                   "with an accepted illegal turn), text for long nardy, json")
    p.add_argument("--out", metavar="FILE", help="write here (default: stdout); "
                   "one GAME only")
    p.add_argument("--out-dir", metavar="DIR",
                   help="write each game to DIR/NAME.EXT (needed for several games)")
    p.add_argument("--read", action="store_true",
                   help="read a long-nardy text record back and check it with the engine")
    p.set_defaults(func=run)


FORMATS = ("mat", "sgf", "text", "json")
EXTENSIONS = {"mat": ".mat", "sgf": ".sgf", "text": ".txt", "json": ".json"}


def _raw():
    import argparse
    return argparse.RawDescriptionHelpFormatter


def read_journal(path):
    """A checked :class:`gamefile.Game`, or UserError naming the file."""
    try:
        return gamefile.read(path)
    except gamefile.BadGame as e:
        raise UserError("%s: %s" % (path, e)) from None


def _steps(turn):
    return tuple((s[0], s[1]) for s in turn["steps"])


def _turn_words(t):
    return "turn %s (%s %d-%d)" % (t["n"], t["side"], t["dice"][0], t["dice"][1])


def positions(game):
    """Yield (turn record, position before it, position after it) and check each
    turn against the engine: a turn not accepted as illegal must be legal and reach
    its ``pos``. A turn that is neither is a gamefile.BadGame."""
    v = game.variant
    pos = game.start.copy()
    pos.turn = game.first
    for t, after in zip(game.turns, game.afters):
        side = COLORS.index(t["side"])
        if pos.turn != side:
            pos = pos.copy()
            pos.turn = side
        if not t.get("accepted"):
            final = pos
            verdict = None
            try:
                for s in _steps(t):
                    final = v.apply_step(final, s)
            except ValueError as e:
                verdict = ("", str(e))
            if verdict is None:
                verdict = v.check_turn(pos, tuple(t["dice"]), final)
            if verdict is not None or final.board != after.board:
                raise gamefile.BadGame("%s is not legal: %s" % (
                    _turn_words(t),
                    verdict and ("%s %s" % verdict).strip() or "the position does not match"))
        yield t, pos, after
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
    for turn, pos, _ in positions(game):
        if fmt == "mat":
            if turn.get("accepted"):
                raise gamefile.BadGame(
                    "turn %s was accepted although it broke %s: gnubg's .mat cannot hold "
                    "an illegal move (use --format sgf)" % (turn["n"], turn.get("rule")))
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
        kind = game.end.get("kind")
        words = "Wins %d point%s" % (pts, "" if pts == 1 else "s")
        if fmt == "text" and kind:
            words += " (%s)" % kind
        pad = 5 if game.end["winner"] == "white" else 38
        out.append(" " * pad + words)
    return out


def export(game, fmt, names=("White", "Black")):
    """The text of one game in ``fmt`` ("mat", "sgf", "text" or "json")."""
    if fmt == "json":
        list(positions(game))  # check every turn
        return as_json(game)
    if fmt == "sgf":
        return sgf.export(game, positions(game))
    lines = []
    if fmt == "text":
        on = sorted(k for k, val in game.variant.options.items() if val)
        lines += [HEADER, "; options: %s" % (" ".join(on) or "-"),
                  "; first: %s" % COLORS[game.first]]
    score = game.score
    lines += [" %d point match" % game.length, "", " Game %d" % game.number,
              " %s : %d%s%s : %d" % (names[0], score[0], " " * 27, names[1], score[1])]
    lines += [" " + ln for ln in _layout(game, fmt)]
    return "\n".join(lines) + "\n"


def as_json(game):
    """The game's own records, and who moved first (the board's start position
    always says white; the opening roll decides)."""
    return json.dumps({"game": game.header, "first": COLORS[game.first],
                       "turns": game.turns, "end": game.end}, indent=1) + "\n"


def read_text(text):
    """Parse a long-nardy text record and replay it through the engine. Returns a
    list of (dice, steps, position after, accepted rule or None) per turn."""
    from nardy.longnardy import LongNardy
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
        if not (1 <= dice[0] <= 6 and 1 <= dice[1] <= 6):
            raise UserError("bad dice %d%d" % dice)
        for m in moves:
            try:
                f, t = (int(x) for x in m.split("/"))
            except ValueError:
                raise UserError("bad move %r" % m) from None
            if not (1 <= f <= 24 and 1 <= t <= 25):    # long-nardy path points
                raise UserError("bad move %r: points are 1..24, 25 = off" % m)
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
    if args.read:
        return _run_read(args)
    if args.out and args.out_dir:
        raise UserError("give --out FILE or --out-dir DIR, not both")
    paths = _journals(args.game)
    if len(paths) > 1 and not args.out_dir:
        raise UserError("%d games: give --out-dir DIR" % len(paths))
    fmt_hint = args.format or (_format_of(args.out) if args.out else None)
    bad = 0
    for path in paths:
        try:
            game = gamefile.read(path)
            fmt = _format(game, fmt_hint)
            text = export(game, fmt)
        except gamefile.BadGame as e:
            print("nardy export: error: %s: %s" % (path, e), file=sys.stderr)
            bad += 1
            continue
        if args.out_dir:
            _write(os.path.join(args.out_dir, _stem(path) + EXTENSIONS[fmt]), text)
        elif args.out:
            _write(args.out, text)
        else:
            sys.stdout.write(text)
    if len(paths) > 1:
        print("nardy export: %d of %d games exported to %s" % (
            len(paths) - bad, len(paths), args.out_dir), file=sys.stderr)
    return 2 if bad else 0


def _run_read(args):
    if len(args.game) != 1:
        raise UserError("--read takes one text record")
    try:
        with open(args.game[0], encoding="utf-8") as f:
            text = f.read(gamefile.MAX_BYTES + 1)
    except (OSError, UnicodeError) as e:
        raise UserError("cannot read %s: %s" % (
            args.game[0], getattr(e, "strerror", None) or e)) from None
    turns = read_text(text)
    print("%d turns, all legal or accepted; final position %s" % (
        len(turns), _pid(turns)))
    return 0


def _journals(names):
    """The files to export: each name, or the .jsonl files in a folder."""
    out = []
    for name in names:
        if os.path.isdir(name):
            found = sorted(os.path.join(name, n) for n in os.listdir(name)
                           if n.endswith(".jsonl"))
            if not found:
                raise UserError("%s: no .jsonl journals in this folder" % name)
            out.extend(found)
        else:
            out.append(name)
    return out


def _format_of(path):
    for fmt, ext in EXTENSIONS.items():
        if path.endswith(ext):
            return fmt
    return None


def _format(game, wanted):
    """The format for this game: the one asked for, if it fits the variant."""
    name = game.variant.name
    if wanted is None:
        if name == "long":
            return "text"
        return "sgf" if any(t.get("accepted") for t in game.turns) else "mat"
    if wanted in ("mat", "sgf") and name != "short":
        raise gamefile.BadGame("gnubg's .%s is for short nardy (backgammon); a long-nardy "
                               "game: use --format text" % wanted)
    if wanted == "text" and name != "long":
        raise gamefile.BadGame("the text record is for long nardy; use --format mat")
    return wanted


def _stem(path):
    base = os.path.basename(path)
    return base[:-6] if base.endswith(".jsonl") else base


def _write(path, text):
    """Whole or not at all: a temporary file renamed into place."""
    tmp = path + ".tmp"
    try:
        d = os.path.dirname(path)
        if d:
            os.makedirs(d, exist_ok=True)
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except OSError as e:
        raise UserError("cannot write %s: %s" % (path, e.strerror or e)) from None


def _pid(turns):
    from nardy.longnardy import LongNardy
    from nardy.notation import position_id
    if not turns:
        return "-"
    return position_id(LongNardy(), turns[-1][2])
