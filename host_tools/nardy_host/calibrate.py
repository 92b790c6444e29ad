"""``nardy calibrate``: the board's guided calibration of its hall sensors, over USB.

The procedure is the firmware's own (``nardy.calibproc``; also in the board's menu):

1. the empty board: every channel's offset, noise and sanity window (dead, noisy and
   out-of-window channels are listed);
2. one white checker put on every slot, in any order: the board finds the slot,
   waits until the checker is still, records it and waits for the lift (its LED and
   the OLED show the progress); the rise over the model's one-checker step is the
   channel's gain;
3. every white checker, then every black checker, one after another on P1 slot 1
   (the reference slot): the magnets' mean strength per colour.

OK on the board ends a step early (slots not visited get the median gain and are
listed). The result, offsets and gains per channel and the board's level steps
(``nardy.calibration``, ``calib.json`` version 2, about 1.3 KB), is saved on the
board:

- a real board (PORT a serial device): mpremote runs the procedure on the board,
  which writes ``/data/calib.json`` itself; the host shows its progress;
- the virtual board (``vboard:DIR``): the procedure runs on the emulation
  (``nardy_host.physical``: a board built with the parts' spread, ``--sim-seed``,
  and an emulated hand placing the checkers) and the result goes to
  ``DIR/calib.json``, its flash.

``--save FILE`` also keeps a copy (``nardy deploy --calibration FILE`` writes it).
Exit status 1 when the procedure named faulty channels, 2 for bad input.
"""

import json
import os
import random
import subprocess
import sys

from nardy.calibproc import report_lines
from nardy.zones import Layout
from nardy_host import boardexec
from nardy_host.errors import UserError

GUIDE = {
    "empty": "Take every checker off the board (points, bar and trays).",
    "slots": "Put one white checker on every slot, one after another, any order; "
             "lift it when its slot is counted (OK on the board: skip the rest).",
    "ref_white": "Put each white checker in turn on P1 slot 1 (the edge slot).",
    "ref_black": "Now each black checker in turn on P1 slot 1.",
}


def register(sub):
    p = boardexec.add_parser(sub, "calibrate", "guided calibration of the hall sensors",
                             __doc__)
    p.add_argument("--save", metavar="FILE", help="also write calib.json here")
    p.add_argument("--dry-run", action="store_true",
                   help="vboard: measure, but save nowhere")
    p.add_argument("--checkers", type=int, default=15,
                   help="checkers per colour for the reference step (0 skips it)")
    p.add_argument("--sim-seed", type=int, default=1,
                   help="vboard: which build of the parts' spread (default 1)")
    p.add_argument("--sim-noise", type=float, default=8.0,
                   help="vboard: ADC noise in counts (default 8)")
    p.add_argument("--sim-fault", action="append", default=[], metavar="KIND:CHANNEL",
                   help="vboard: a broken channel (dead or noisy)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=run)


def emulated(seed=1, noise=8.0, faults=(), checkers=15, slots=5):
    """Calibrate a board of the parts' spread on the emulation: (Calibration, faults,
    hint)."""
    from nardy_host.magnet import MagnetModel
    from nardy_host.physical import Build, PhysBoard, calibrate
    rng = random.Random(seed)
    lay = Layout(slots)
    model = MagnetModel(slots=slots)
    board = PhysBoard(lay, model, noise=noise, rng=rng, build=Build(model, lay.n, rng))
    for kind, ch in faults:
        if kind == "dead":
            board.faults[ch] = 0
    if any(k == "noisy" for k, _ in faults):
        _noisy(board, [ch for k, ch in faults if k == "noisy"], rng)
    cal, f = calibrate(board, rng, slots, ref_count=checkers)
    return cal, f


def _noisy(board, chans, rng):
    """Make channels read with +-80 counts of extra noise (a bad contact)."""
    read = board.read

    def noisy_read():
        raw = read()
        for ch in chans:
            raw[ch] = max(0, min(4095, raw[ch] + rng.choice((-80, 80))))
        return raw
    board.read = noisy_read


def _faults_arg(items, n):
    return boardexec.parse_faults(items, ("dead", "noisy"), "--sim-fault", n)


def save_vboard(d, text):
    os.makedirs(d, exist_ok=True)
    tmp = os.path.join(d, "calib.tmp")
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, os.path.join(d, "calib.json"))
    return os.path.join(d, "calib.json")


def run_board(args):
    """The procedure on a real board over mpremote; returns (calib.json text or None,
    the board's final report)."""
    from nardy_host.deploy import _mpremote
    path = boardexec.board_root(args.root) + "/data/calib.json"
    cmd = boardexec.exec_command(args.port, args.root, (
        "from nardy.calibproc import run_board\nrun_board(b, %r, pm.slots, %d)\n"
        % (path, args.checkers)))
    report = None
    shown = None
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          stdin=subprocess.DEVNULL) as p:
        for ln in p.stdout:
            try:
                ev = json.loads(ln)
            except ValueError:
                continue
            if ev.get("ev") == "calib":
                if ev["phase"] != shown:
                    shown = ev["phase"]
                    print("\n" + GUIDE.get(shown, shown), file=sys.stderr)
                print("\r%s %d/%d" % (shown, ev["done"], ev["total"]), end="",
                      file=sys.stderr, flush=True)
            elif ev.get("ev") == "calibrated":
                report = ev
        err = p.stderr.read()
    if report is None:
        msg = err.strip().splitlines()
        raise UserError("the board did not finish the calibration: %s"
                        % (msg[-1] if msg else "no output"))
    text = None
    if report.get("path"):
        r = subprocess.run(_mpremote() + ["connect", args.port, "fs", "cat", path],
                           capture_output=True, text=True)
        text = r.stdout if r.returncode == 0 else None
    return text, report


def run(args):
    if args.checkers < 0 or args.checkers > 15:
        raise UserError("--checkers must be 0..15")
    d = boardexec.vboard_dir(args.port)
    if d is not None:
        faults = _faults_arg(args.sim_fault, Layout(5).n)
        for step in ("empty", "slots", "ref_white", "ref_black"):
            if step.startswith("ref") and not args.checkers:
                continue
            print(GUIDE[step] + " (emulated)", file=sys.stderr)
        cal, f = emulated(args.sim_seed, args.sim_noise, faults, args.checkers)
        lines = report_lines(f)
        text = cal.dumps()
        report = {"ok": not lines, "faults": lines}
        if not args.dry_run:
            report["path"] = save_vboard(d, text)
    else:
        text, report = run_board(args)
        if report.get("ok") is False and report.get("error"):
            raise UserError(report["error"])
        lines = report.get("faults", [])
    if args.save and text:
        with open(args.save, "w") as fo:
            fo.write(text)
    if args.json:
        print(json.dumps(report))
    else:
        for ln in lines:
            print("  FAULT %s" % ln)
        if report.get("path"):
            print("saved to %s" % report["path"])
    return 0 if not lines else 1
