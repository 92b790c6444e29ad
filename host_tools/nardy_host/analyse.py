"""``nardy analyse GAME``: rate every turn of a logged game (a journal, ``.jsonl``:
``nardy log`` or ``nardy selfplay --log``).

Each turn's legal results (the rules engine's ``turns``) are rated for the mover:
short nardy by GNU Backgammon's 0-ply evaluation (gnubg-nn, cubeless equity), long
nardy by the board's own net (``firmware/weights/long.bin``). For each turn: the
played turn, the best turn, and the equity lost; then the worst mistakes first.
Moves are written in the board's printed labels P1..P24 (``24/18``), as the table
shows them on the OLED and the page (docs/RULES.md, "One numbering at the table").
An accepted illegal turn (not among the legal results) is listed as such, unrated.
"""

import json

from nardy import record
from nardy.longnardy import LongNardy
from nardy.notation import format_turn, parse_position_id, point_label
from nardy.rules import BLACK, CHECKERS, COLORS, OFF, WHITE
from nardy.scoring import game_result
from nardy.shortnardy import ShortNardy
from nardy_host.errors import UserError


class AnalyseError(ValueError):
    """The file is not a journal we can replay."""


def _variant(header):
    opts = header.get("options") or {}
    cls = LongNardy if header.get("variant") == "long" else ShortNardy
    try:
        return cls(**opts)
    except TypeError as e:
        raise AnalyseError("unknown variant option in the journal: %s" % e) from None


def rater(v, weights=None):
    """A function (pos, dice) -> [(equity for the mover, steps, result)], best first."""
    if v.name == "long":
        from nardy.evaluate import Net
        from nardy.netfile import WeightsError
        from nardy_host.duel import weights_path
        try:
            net = Net(weights or weights_path("long"), "long")
        except WeightsError as e:
            raise AnalyseError(str(e)) from None

        def equity(res):
            return net.value(res) / net.scale    # the board's own net
    else:
        from nardy_host.train import gnubg_equity as equity

    def rate(pos, dice):
        out = []
        for steps, res in v.turns(pos, dice):
            if res.board[26 * pos.turn + OFF] == CHECKERS:
                r = game_result(v, res, True)
                eq = float(r[2]) if r and r[0] == pos.turn else 0.0
            else:
                eq = -equity(res)       # the opponent is to move in ``res``
            out.append((eq, steps, res))
        out.sort(key=lambda e: -e[0])
        return out
    return rate


def _position(text, v, what):
    """The Position of a journal's position id, checked against the game: the
    variant's letter and 15 checkers a side (a hand-edited file could say more,
    which the evaluators were never made for)."""
    name, pos = parse_position_id(text)
    if name != v.name:
        raise AnalyseError("%s: a %s nardy position in a %s nardy game" % (what, name,
                                                                         v.name))
    for c in (WHITE, BLACK):
        if sum(pos.side(c)) != CHECKERS:
            raise AnalyseError("%s: %s has %d checkers, not %d" % (
                what, COLORS[c], sum(pos.side(c)), CHECKERS))
    return pos


def rate_turns(lines, weights=None, max_turns=None, table=True):
    """(variant, [(row, before, after, best, steps)]): ``row`` as :func:`analyse`
    gives it (moves in the board's printed labels, as the table shows them
    everywhere, docs/RULES.md; ``table=False``: the mover's own numbers), the
    positions before and after the played turn, the best turn as the rater gives it
    (equity, steps, result; None when there is no legal move) and the
    played steps (the mover's path points, as recorded)."""
    try:
        header, turns, _, _ = record.replay(lines)
    except ValueError as e:
        raise AnalyseError("not a game journal: %s" % e) from None
    if max_turns is not None and len(turns) > max_turns:
        raise AnalyseError("%d turns: at most %d are analysed" % (len(turns), max_turns))
    v = _variant(header)
    rate = rater(v, weights)
    pos = _position(header["start"], v, "the game's start")
    out = []
    for rec in turns:
        dice = tuple(rec["dice"])
        after = _position(rec["pos"], v, "turn %d" % rec["n"])
        mover = WHITE if rec["side"] == "white" else BLACK
        if pos.turn != mover:
            pos.turn = mover
        rated = rate(pos, dice)
        try:
            played_text = format_turn(v, pos, rec["steps"], table) if rec["steps"] else "-"
        except (ValueError, IndexError, KeyError):
            # an accepted illegal turn the notation cannot replay: step by step
            side = mover if table else None
            played_text = " ".join("%s/%s" % (point_label(v, f, True, side),
                                               point_label(v, t, False, side))
                                   for f, t in rec["steps"])
        row = {"n": rec["n"], "side": rec["side"], "dice": list(dice), "played": played_text}
        played = [e for e in rated if e[2].board == after.board]
        best = None
        if rated and rated[0][1]:
            best = rated[0]
            row["best"] = format_turn(v, pos, best[1], table)
            row["best_equity"] = round(best[0], 4)
        else:
            row["best"] = "-"
            row["best_equity"] = None
        if played and best is not None:
            row["equity"] = round(played[0][0], 4)
            row["loss"] = round(best[0] - played[0][0], 4)
        else:
            row["equity"] = None
            row["loss"] = None if best is not None else 0.0
            if not played:
                row["note"] = "not a legal turn (accepted as played)"
        out.append((row, pos, after, best, [tuple(st) for st in rec["steps"]]))
        pos = after
    return v, out


def analyse(lines, weights=None):
    """Rows, one per turn: dict(n, side, dice, played, best, equity, best_equity, loss)."""
    v, rated = rate_turns(lines, weights)
    return v, [t[0] for t in rated]


def judge(v):
    return "gnubg 0-ply" if v.name == "short" else "the board's net"


# -- for the simulator's page (``nardy sim``: simweb's /api/analyse) -------------------
MAX_TURNS = 1000       # a game has a few hundred turns at most; more is not a game


def board_zones(v, pos):
    """The checkers of ``pos`` by board zone, as the page draws a reported position:
    ``{"13": ["wwwww"], ...}`` (zones as P-numbers; 25 bar, 26/27 the trays)."""
    from nardy.game import zone_of
    out = {}
    for c in (WHITE, BLACK):
        for k in range(26):
            n = pos.count(c, k)
            if n:
                z = str(zone_of(v, c, k))
                out.setdefault(z, [""])
                out[z][0] += "wb"[c] * n
    return out


def _zone_steps(v, colour, steps):
    from nardy.game import zone_of
    return [[zone_of(v, colour, f), zone_of(v, colour, t)] for f, t in steps]


def page_report(lines, weights=None):
    """The analysis as the simulator's page shows it: every turn (its row, the
    positions before it, after the played turn and after the best one, and the steps
    of both as board zones), ``worst``: the turns' indexes by equity lost, the worst
    first, and what each side lost in all. AnalyseError for anything but a journal
    of one game of at most ``MAX_TURNS`` turns."""
    v, rated = rate_turns(lines, weights, MAX_TURNS)
    turns = []
    for row, before, after, best, steps in rated:
        colour = WHITE if row["side"] == "white" else BLACK
        t = dict(row)
        t["before"] = board_zones(v, before)
        t["after"] = board_zones(v, after)
        t["best_after"] = board_zones(v, best[2]) if best is not None else None
        t["best_steps"] = _zone_steps(v, colour, best[1]) if best is not None else []
        t["played_steps"] = _zone_steps(v, colour, steps)
        turns.append(t)
    worst = sorted((i for i, t in enumerate(turns) if t["loss"]),
                   key=lambda i: (-turns[i]["loss"], i))
    lost = {side: round(sum(t["loss"] for t in turns if t["side"] == side and t["loss"]),
                        4) for side in COLORS}
    return {"variant": v.name, "judge": judge(v), "turns": turns, "worst": worst,
            "lost": lost}


def register(sub):
    p = sub.add_parser("analyse", help="rate every turn of a logged game")
    p.add_argument("game", metavar="GAME", help="a journal file (.jsonl)")
    p.add_argument("--worst", type=int, default=5, help="how many mistakes to list")
    p.add_argument("--weights", help="long nardy weights (default firmware/weights/)")
    p.add_argument("--json", action="store_true", help="one JSON line per turn")
    p.set_defaults(func=run)


def run(args):
    try:
        with open(args.game) as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise UserError("cannot read %s: %s" % (args.game, e)) from None
    try:
        v, rows = analyse(lines, args.weights)
    except AnalyseError as e:
        raise UserError(str(e)) from None
    if args.json:
        for r in rows:
            print(json.dumps(r))
        return 0
    print("%s nardy, %d turns, rated by %s (equity for the mover, cubeless)"
          % (v.name, len(rows), judge(v)))
    print("%4s %-6s %-4s %-24s %-24s %7s" % ("n", "side", "dice", "played", "best", "lost"))
    for r in rows:
        lost = "" if r["loss"] is None else "%7.3f" % r["loss"]
        print("%4d %-6s %d-%d  %-24s %-24s %7s%s" % (
            r["n"], r["side"], r["dice"][0], r["dice"][1], r["played"], r["best"], lost,
            "  " + r["note"] if "note" in r else ""))
    rated = [r for r in rows if r["loss"]]
    rated.sort(key=lambda r: -r["loss"])
    print("worst mistakes first:")
    for r in rated[:args.worst]:
        print("  turn %d %s %d-%d: played %s, best %s, lost %.3f" % (
            r["n"], r["side"], r["dice"][0], r["dice"][1], r["played"], r["best"],
            r["loss"]))
    if not rated:
        print("  none")
    for side in ("white", "black"):
        lost = sum(r["loss"] for r in rows if r["side"] == side and r["loss"])
        print("%s lost %.3f in all" % (side, lost))
    return 0
