"""``nardy analyse GAME``: rate every turn of a logged game (a journal, ``.jsonl``:
``nardy log`` or ``nardy selfplay --log``).

Each turn's legal results (the rules engine's ``turns``) are rated for the mover:
short nardy by GNU Backgammon's 0-ply evaluation (gnubg-nn, cubeless equity), long
nardy by the board's own net (``firmware/weights/long.bin``). For each turn: the
played turn, the best turn, and the equity lost; then the worst mistakes first.
An accepted illegal turn (not among the legal results) is listed as such, unrated.
"""

import json

from nardy import record
from nardy.longnardy import LongNardy
from nardy.notation import format_turn, parse_position_id
from nardy.rules import CHECKERS, OFF, WHITE
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
        from nardy.bot import Bot
        from nardy.evaluate import WeightsError
        from nardy_host.duel import weights_path
        try:
            bot = Bot(v, weights or weights_path("long"))
        except WeightsError as e:
            raise AnalyseError(str(e)) from None
        return bot.rate
    from nardy_host.train import gnubg_equity

    def by_gnubg(pos, dice):
        out = []
        for steps, res in v.turns(pos, dice):
            if res.board[26 * pos.turn + OFF] == CHECKERS:
                r = game_result(v, res, True)
                eq = float(r[2])
            else:
                eq = -gnubg_equity(res)
            out.append((eq, steps, res))
        out.sort(key=lambda e: -e[0])
        return out
    return by_gnubg


def analyse(lines, weights=None):
    """Rows, one per turn: dict(n, side, dice, played, best, equity, best_equity, loss)."""
    try:
        header, turns, _, _ = record.replay(lines)
    except ValueError as e:
        raise AnalyseError("not a game journal: %s" % e) from None
    v = _variant(header)
    rate = rater(v, weights)
    _, pos = parse_position_id(header["start"])
    rows = []
    for rec in turns:
        dice = tuple(rec["dice"])
        _, after = parse_position_id(rec["pos"])
        mover = WHITE if rec["side"] == "white" else 1 - WHITE
        if pos.turn != mover:
            pos.turn = mover
        rated = rate(pos, dice)
        row = {"n": rec["n"], "side": rec["side"], "dice": list(dice),
               "played": format_turn(v, pos, rec["steps"]) if rec["steps"] else "-"}
        played = [e for e in rated if e[2].board == after.board]
        if rated and rated[0][1]:
            best = rated[0]
            row["best"] = format_turn(v, pos, best[1])
            row["best_equity"] = round(best[0], 4)
        else:
            row["best"] = "-"
            row["best_equity"] = None
        if played and rated[0][1]:
            row["equity"] = round(played[0][0], 4)
            row["loss"] = round(rated[0][0] - played[0][0], 4)
        else:
            row["equity"] = None
            row["loss"] = None if rated and rated[0][1] else 0.0
            if not played:
                row["note"] = "not a legal turn (accepted as played)"
        rows.append(row)
        pos = after
    return v, rows


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
    judge = "gnubg 0-ply" if v.name == "short" else "the board's net"
    print("%s nardy, %d turns, rated by %s (equity for the mover, cubeless)"
          % (v.name, len(rows), judge))
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
