"""``nardy selftest``: run the board's self-test and print its report.

The self-test is the firmware's own (``nardy.selftest``): every sensor channel
(rail, stuck, noise, empty-board level), every LED, the OLED, the three buttons,
flash space. Take every checker off the board first; press OK, BACK and MENU when the
board asks (within 10 s each; ``--no-buttons`` skips that step).

- a real board (PORT a serial device): mpremote runs the self-test on the board;
- the virtual board (``vboard:DIR``): the firmware on unix MicroPython, whose sensors
  are the emulation (``nardy_host.physical``: the magnetic model with a little
  noise); ``--inject KIND:CHANNEL`` (dead, stuck, noisy, checker) puts a fault on a
  channel, and the host presses the buttons unless ``--no-buttons``.

Exit status 0 when everything passed, 1 when the report names a fault, 2 for bad
input (no such port, a bad --inject).
"""

import json
import os
import random
import subprocess
import sys

from nardy_host import boardexec
from nardy_host.errors import UserError

INJECT = ("dead", "stuck", "noisy", "checker")


def register(sub):
    p = boardexec.add_parser(sub, "selftest", "run the board's self-test", __doc__)
    p.add_argument("--no-buttons", action="store_true", help="skip the button check")
    p.add_argument("--inject", action="append", default=[], metavar="KIND:CHANNEL",
                   help="vboard: a fault on a channel (%s)" % ", ".join(INJECT))
    p.add_argument("--pinmap", default=None, help="vboard: pin map (default esp32s3)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=run)


def parse_inject(items, n):
    return boardexec.parse_faults(items, INJECT, "--inject", n)


def sense_lines(n, faults, scans=None, seed=1):
    """The emulated empty board's readings, one ``sense`` line per scan, with the
    injected faults."""
    from nardy.rules import WHITE
    from nardy.selftest import SCANS
    from nardy.zones import Layout
    from nardy_host.magnet import MagnetModel
    from nardy_host.physical import PhysBoard
    if scans is None:
        scans = SCANS + 6          # a few to spare
    rng = random.Random(seed)
    lay = Layout(5)
    board = PhysBoard(lay, MagnetModel(), noise=2.0, rng=rng, offset_sd=20.0)
    for kind, ch in faults:
        if kind == "checker":
            z = lay.zone[ch]
            board.put_at(z, ch - lay.start[z], WHITE)
    out = []
    for _ in range(scans):
        raw = board.read()
        for kind, ch in faults:
            if kind == "dead":
                raw[ch] = 0
            elif kind == "stuck":
                raw[ch] = 2111
            elif kind == "noisy":
                raw[ch] = max(0, min(4095, raw[ch] + rng.choice((-60, 60))))
        out.append(json.dumps({"cmd": "sense", "raw": raw, "ms": 20}))
    return out


def run_vboard(args, d):
    from nardy_host.mpunix import compiled_firmware, micropython, pinmap_path
    mp = micropython()          # UserError when the unix port is missing
    fw = compiled_firmware()    # as the board runs it (nardy_host.mpunix)
    pm = args.pinmap or pinmap_path()
    if not os.path.exists(pm):
        raise UserError("no such pin map: %s" % pm)
    n = 128
    faults = parse_inject(args.inject, n)
    lines = sense_lines(n, faults)
    if not args.no_buttons:
        for b in ("ok", "back", "menu"):
            lines.append(json.dumps({"cmd": "button", "name": b, "press": "short"}))
    cmd = [mp, "-X", "heapsize=112wK", os.path.join(fw, "main.py"), d, pm, "--selftest"]
    if args.no_buttons:
        cmd.append("--no-buttons")
    try:
        r = subprocess.run(cmd, input="\n".join(lines) + "\n", capture_output=True,
                           text=True, timeout=120)
    except subprocess.TimeoutExpired:
        raise UserError("the virtual board did not finish its self-test") from None
    return r.stdout, r.stderr


def run_board(args):
    root = boardexec.board_root(args.root)
    body = ("from nardy.calibration import load as lc\nfrom nardy import selftest\n"
            "selftest.run_board(b, lc(%r, pm.layout.n, pm.slots), buttons=%r)\n"
            % (root + "/data/calib.json", not args.no_buttons))
    r = subprocess.run(boardexec.exec_command(args.port, args.root, body),
                       capture_output=True, text=True, stdin=subprocess.DEVNULL)
    return r.stdout, r.stderr


def checked(checks):
    """What the self-test covered, for its last line: "channels 128 (32 scans),
    leds 28, buttons 3 of 3, oled, flash, calibration" (a check it could not do
    says so: "no oled")."""
    parts = []
    if "channels" in checks:
        parts.append("channels %d (%d scans)" % (checks["channels"], checks.get("scans", 0)))
    if "leds" in checks:
        parts.append("leds %d" % checks["leds"])
    if "buttons" in checks:
        parts.append("buttons %d of 3" % checks["buttons"])
    for k in ("oled", "flash", "calibration"):
        if k in checks:
            parts.append(k if checks[k] else "no " + k)
    return ", ".join(parts) or "no checks reported"


def run(args):
    d = boardexec.vboard_dir(args.port)
    if d is not None:
        out, err = run_vboard(args, d)
    else:
        out, err = run_board(args)
    report = None
    for ln in out.splitlines():
        if ln.startswith("{") and '"selftest"' in ln:
            try:
                obj = json.loads(ln)
            except ValueError:
                continue
            if obj.get("ev") == "selftest":
                report = obj
            elif obj.get("ev") == "selftest_prompt" and not args.json:
                print("press %s" % obj.get("press", "?").upper(), file=sys.stderr)
    if report is None:
        msg = (err.strip() or out.strip()).splitlines()
        raise UserError("no self-test report from the board: %s"
                        % (msg[-1] if msg else "no output"))
    if args.json:
        print(json.dumps(report))
    else:
        for note in report.get("notes", []):
            print("  ok    %s" % note)
        for f in report.get("faults", []):
            print("  FAULT %s" % f)
        print("self-test: %s (%s)" % (
            "all OK" if report.get("ok") else "%d fault(s)" % len(report.get("faults", [])),
            checked(report.get("checks", {}))))
    return 0 if report.get("ok") else 1
