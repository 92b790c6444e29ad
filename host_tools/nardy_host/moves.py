"""``nardy moves``: the rules engine's legal turns, in CPython or in real MicroPython."""

import json
import os
import subprocess
import sys

from nardy.notation import format_turn, parse_position_id, position_id
from nardy.posjson import from_json, to_json
from nardy.variants import find_variant
from nardy_host import movesvc
from nardy_host.errors import UserError
from nardy_host.mpunix import firmware_dir, micropython


def register(sub):
    p = sub.add_parser(
        "moves", help="list the legal turns for a position and dice",
        description="List the legal turns (distinct resulting positions) for a "
        "position and dice. --batch reads JSON lines on stdin and writes one JSON "
        "line per input line.")
    p.add_argument("--variant", choices=("long", "short"), default="long")
    p.add_argument("--dice", nargs=2, type=int, metavar=("A", "B"))
    p.add_argument("--position", metavar="ID",
                   help="position id (see `nardy moves --json`); default: the start")
    p.add_argument("--black", action="store_true", help="black to move at the start")
    p.add_argument("--option", action="append", default=[], metavar="NAME",
                   help="turn on a rules option (RULES.md), e.g. first_turn_any_double")
    p.add_argument("--json", action="store_true", help="print the JSON reply")
    p.add_argument("--batch", action="store_true", help="JSON lines on stdin -> stdout")
    p.add_argument("--micropython", action="store_true",
                   help="run the engine inside the unix MicroPython port (heap 112wK)")
    p.add_argument("--heap", default="112wK", help="MicroPython heap (with --micropython)")
    p.set_defaults(func=run)


def micropython_cmd(heap="112wK"):
    # the service is host code on the firmware's engine: both directories on the path
    code = ("import sys; sys.path.insert(0, %r); sys.path.insert(0, %r); "
            "from nardy_host.movesvc import main; main()") % (
        firmware_dir(), os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return [micropython(), "-X", "heapsize=" + heap, "-c", code]


def run(args):
    if args.batch:
        if args.micropython:
            return subprocess.call(micropython_cmd(args.heap))
        movesvc.main(sys.stdin.buffer, sys.stdout)
        return 0
    if not args.dice:
        raise UserError("--dice A B is required (or use --batch)")
    options = {name: True for name in args.option}
    try:
        v = find_variant(args.variant, options)
    except ValueError as e:
        raise UserError(str(e)) from None
    if args.position:
        try:
            name, pos = parse_position_id(args.position)
        except ValueError as e:
            raise UserError(str(e)) from None
        if name != args.variant:
            raise UserError("that position id is for %s nardy" % name)
        from_json(v, to_json(pos))  # validate
    else:
        pos = v.start_position(turn=1 if args.black else 0)
    request = {"variant": args.variant, "options": options, "position": to_json(pos),
               "dice": list(args.dice)}
    if args.micropython:
        r = subprocess.run(micropython_cmd(args.heap), input=json.dumps(request) + "\n",
                           capture_output=True, text=True)
        if r.returncode:
            raise UserError("micropython failed: " + r.stderr.strip())
        reply = json.loads(r.stdout)
    else:
        reply = json.loads(movesvc.answer_line(json.dumps(request)))
    if "error" in reply:
        raise UserError(reply["error"])
    if args.json:
        print(json.dumps(reply))
        return 0
    a, b = args.dice
    who = "white" if pos.turn == 0 else "black"
    print("%s nardy, %s to move, dice %d-%d: %d legal turn%s" % (
        args.variant, who, a, b, reply["n"], "" if reply["n"] == 1 else "s"))
    for m in reply["moves"]:
        steps = tuple(tuple(s) for s in m["steps"])
        res = from_json(v, m["position"])
        print("  %-24s %s" % (format_turn(v, pos, steps), position_id(v, res)))
    return 0
