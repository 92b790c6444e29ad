"""``nardy sim``: the board in the browser, or (``--text``) on the rules engine alone.

By default the real firmware runs on unix MicroPython (the virtual board) behind a
web server on 127.0.0.1 and the browser shows the board: drag checkers (or click
to lift, click to place), press the buttons, watch the LEDs and the OLED
(``nardy_host.simweb``).

``--pair``: two virtual boards playing each other through an embedded MQTT broker,
a page for each (white plays on one, black on the other: ``nardy_host.simpair``,
docs/NETWORK.md "Remote play").

``--text``: a text-mode board in the terminal: the engine rolls, you type each turn in
the board's notation, and an illegal turn is refused with the rule id (docs/RULES.md) and reason
(or accepted as played, seed 001 §3.4, when you type ``accept``).
"""

import random
import sys

from nardy.notation import apply_text, format_turn, parse_turn
from nardy.rules import BLACK, COLORS, WHITE
from nardy.scoring import Match, game_result, opening_winner
from nardy.variants import find_variant
from nardy_host.errors import UserError
from nardy_host.script import add_flash_size

HELP = ("type a turn (%s), 'moves' to list the legal turns, 'accept' to accept the "
        "last refused turn as played, 'quit' to stop")


def register(sub):
    p = sub.add_parser("sim", help="the board in the browser (the real firmware, no "
                                   "hardware); --text: a text board on the rules engine",
                       description=__doc__,
                       formatter_class=__import__("argparse").RawDescriptionHelpFormatter)
    p.add_argument("--text", action="store_true",
                   help="the text-mode board in the terminal instead of the browser")
    p.add_argument("--port", dest="http_port", type=int, default=0, metavar="N",
                   help="web server port on 127.0.0.1 (default: a free one); with "
                        "--pair white's page")
    p.add_argument("--pair", action="store_true",
                   help="two virtual boards (white's and black's) playing each other "
                        "through an embedded MQTT broker, a page for each")
    p.add_argument("--black-port", type=int, default=0, metavar="N",
                   help="--pair: black's page on 127.0.0.1:N (default: a free one)")
    p.add_argument("--broker-port", type=int, default=0, metavar="N",
                   help="--pair: the embedded broker on 127.0.0.1:N (default: a free one)")
    p.add_argument("--umqtt", metavar="DIR",
                   help="--pair: a directory holding micropython-lib's umqtt/simple.py "
                        "(default: fetched from PyPI once, kept in ~/.cache/nardy)")
    p.add_argument("--no-browser", action="store_true", help="do not open the browser")
    p.add_argument("--data", metavar="DIR",
                   help="the virtual board's flash directory (default: a temporary one; "
                        "--pair: DIR/table-a and DIR/table-b)")
    add_flash_size(p)
    p.add_argument("--board-page", type=int, default=None, metavar="PORT",
                   help="the virtual board also serves its own page (the one a board "
                        "serves on Wi-Fi) on 127.0.0.1:PORT (docs/NETWORK.md)")
    p.add_argument("--noise", dest="noise_counts", type=float, default=0.0,
                   metavar="COUNTS", help="ADC noise of the emulated sensors (default 0)")
    p.add_argument("--variant", choices=("long", "short"), default="long",
                   help="--text, --pair: the variant (default long)")
    p.add_argument("--match", type=int, default=1, metavar="N", help="--text, --pair: match length")
    p.add_argument("--seed", type=int, default=None,
                   help="--text: dice seed (reproducible games)")
    p.add_argument("--option", action="append", default=[], metavar="NAME",
                   help="--text: a rules option (docs/RULES.md)")
    p.set_defaults(func=dispatch)


def dispatch(args):
    if args.pair:
        if args.text or args.board_page is not None:
            raise UserError("--pair is two boards in the browser: not with --text or "
                            "--board-page")
        from nardy_host import simpair
        return simpair.run_pair(args)
    if args.text:
        return run(args)
    from nardy_host import simweb
    return simweb.run_sim(args)


def board_text(v, pos):
    """The physical board from white's seat: P13..P24 on top, P12..P1 below."""
    cells = {}
    for c in (WHITE, BLACK):
        side = pos.side(c)
        for k in range(1, 25):
            if side[k]:
                cells[v.physical(c, k)] = "%s%d" % ("WB"[c], side[k])

    def row(points):
        left = " ".join("%4s" % cells.get(p, ".") for p in points[:6])
        right = " ".join("%4s" % cells.get(p, ".") for p in points[6:])
        return left + " |" + right

    top = list(range(13, 25))
    bottom = list(range(12, 0, -1))
    lines = [
        " ".join("%4s" % ("P%d" % p) for p in top[:6]) + " |"
        + " ".join("%4s" % ("P%d" % p) for p in top[6:]),
        row(top), "", row(bottom),
        " ".join("%4s" % ("P%d" % p) for p in bottom[:6]) + " |"
        + " ".join("%4s" % ("P%d" % p) for p in bottom[6:]),
    ]
    b = pos.board
    lines.append("bar W%d B%d   off W%d B%d" % (b[0], b[26], b[25], b[51]))
    return "\n".join(lines)


def run(args):
    v = find_variant(args.variant, {n: True for n in args.option})
    rng = random.Random(args.seed)
    out = sys.stdout
    match = Match(v, args.match)
    example = "1/7 7/12" if v.name == "long" else "24/18 13/11"
    out.write("%s nardy, match to %d. %s\n" % (v.name, args.match, HELP % example))
    while not match.over:
        while True:  # C2: the opening roll
            w, b = rng.randint(1, 6), rng.randint(1, 6)
            first = opening_winner(w, b)
            out.write("opening roll: white %d, black %d%s\n" % (
                w, b, "" if first is not None else " - equal, again"))
            if first is not None:
                break
        pos = v.start_position(turn=first)
        dice = (w, b) if v.options["opening_dice_played"] else None
        while game_result(v, pos) is None:
            if dice is None:
                dice = (rng.randint(1, 6), rng.randint(1, 6))
            out.write("\n%s\n%s to move, dice %d-%d\n" % (
                board_text(v, pos), COLORS[pos.turn], dice[0], dice[1]))
            if v.max_steps(pos, dice) == 0:
                out.write("no legal move: the dice are lost (C5)\n")
                pos.turn = 1 - pos.turn
                dice = None
                continue
            refused = None
            while True:
                out.write("> ")
                out.flush()
                line = sys.stdin.readline()
                if not line or line.strip() == "quit":
                    return 0
                line = line.strip()
                if line == "moves":
                    for steps, _res in v.turns(pos, dice):
                        out.write("  %s\n" % format_turn(v, pos, steps))
                    continue
                if line == "accept" and refused is not None:
                    out.write("accepted as played (seed 001 §3.4)\n")
                    pos = refused
                    pos.turn = 1 - pos.turn
                    break
                try:
                    _, pos2 = parse_turn(v, pos, dice, line)
                except ValueError:
                    try:
                        final = apply_text(v, pos, line)
                    except ValueError as e:
                        out.write("cannot read that: %s\n" % e)
                        continue
                    verdict = v.check_turn(pos, dice, final)
                    if verdict is None:
                        verdict = ("C3", "the move does not match the dice")
                    out.write("illegal (%s): %s\n" % verdict)
                    refused = final
                    continue
                pos = pos2
                break
            dice = None
        result = game_result(v, pos, last_roll_done=True)
        winner, kind, points = result
        match.record(result)
        out.write("\n%s\ngame over: %s wins %s (%d) - match %d:%d\n" % (
            board_text(v, pos), COLORS[winner] if winner is not None else "nobody", kind,
            points, match.score[0], match.score[1]))
    return 0
