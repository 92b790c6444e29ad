"""``nardy calibrate``: measure the board's hall sensors and save their calibration.

Guided, in three steps (press Enter after each, or ``--yes``):

1. the empty board: every channel's zero-field level (its baseline; channels that
   read a rail are marked dead);
2. the sample, white: one white checker on slot 1 (the edge slot) of P1..P6, then a
   second white checker on top of each;
3. the sample, black: the same on P7..P12.

The sample gives the magnets' strength on this board (the gain of one and of two
stacked checkers of each colour, the median over the sample); every channel gets
the model's levels (``nardy.magnet.default_calibration``) scaled by that gain and
moved by its own baseline. The result has the shape of ``nardy.calibration``
(``calib.json``) and is saved to the board:

- a real board (PORT a serial device): with mpremote, to ``/data/calib.json`` (the
  protocol's ``set`` does not carry a calibration), then the board is reset; the
  readings are taken the same way (mpremote runs the firmware's own scanner);
- the virtual board (``vboard:DIR``): to ``DIR/calib.json``, its flash. Its
  "sensors" are the magnetic model (``nardy_host.physical``), with the sensor
  spread and magnet strength given by ``--sim-offset``/``--sim-gain``.

``--save FILE`` also keeps a copy (``nardy deploy --calibration FILE`` writes it).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from nardy.calibration import LEVELS, Calibration, model_defaults
from nardy.rules import BLACK, WHITE
from nardy.sensing import Layout

SAMPLE = {WHITE: range(1, 7), BLACK: range(7, 13)}
SCANS = 16


def register(sub):
    p = sub.add_parser("calibrate", help="guided calibration of the hall sensors",
                       description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--port", required=True, metavar="PORT",
                   help="the board's serial port, or vboard:DIR")
    p.add_argument("--yes", action="store_true", help="do not wait for Enter")
    p.add_argument("--save", metavar="FILE", help="also write calib.json here")
    p.add_argument("--dry-run", action="store_true", help="measure, but save nowhere")
    p.add_argument("--scans", type=int, default=SCANS, help="scans averaged per step")
    p.add_argument("--root", default="/", help="the board's root directory (default /)")
    p.add_argument("--sim-offset", type=float, default=25.0,
                   help="vboard: sensor offset spread in counts (default 25)")
    p.add_argument("--sim-gain", type=float, default=1.0,
                   help="vboard: magnet strength against the model (default 1)")
    p.add_argument("--sim-seed", type=int, default=1, help="vboard: sensor spread seed")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


# -- where readings come from ----------------------------------------------------------------
class ModelSensors:
    """The virtual board's sensors: the magnetic model, with a sensor spread and a
    magnet strength; the 'user' puts the checkers where the guide says."""

    def __init__(self, slots=5, offset_sd=25.0, gain=1.0, seed=1):
        import random

        from nardy_host.physical import PhysBoard
        self.layout = Layout(slots)
        self.board = PhysBoard(self.layout, rng=random.Random(seed), offset_sd=offset_sd)
        self.gain = gain

    def place(self, step):
        b = self.board
        b.clear()
        if step == "empty":
            return
        colour = WHITE if step == "white" else BLACK
        for z in SAMPLE[colour]:
            b.put(z, colour)
            b.put(z, colour, mode="top")

    def read(self, scans):
        raw = self.board.read()
        base = self.board.base
        return [max(0, min(4095, int(round(base + self.gain * (r - off - base) + off))))
                for r, off in zip(raw, self.board.offset)]

    def readings_of(self, variant, pos):
        """Raw readings of ``pos`` (for checking a calibration)."""
        from nardy.game import zone_of
        zt = [[zone_of(variant, c, k) for k in range(26)] for c in (WHITE, BLACK)]
        self.board.set_position(variant, pos, zt)
        return self.read(1)


class BoardSensors:
    """A real board: mpremote runs the firmware's scanner and prints averages."""

    SNIPPET = ("import sys, json\nsys.path.insert(0, %(root)r)\n"
               "from array import array\nfrom nardy.pinmap import load\n"
               "from nardy.hal_esp32 import Board\n"
               "b = Board.from_pinmap(load(%(pm)r))\n"
               "n = b.pinmap.layout.n\nbuf = array('H', [0] * n)\nacc = [0] * n\n"
               "for i in range(%(scans)d):\n b.scan(buf)\n for j in range(n):\n"
               "  acc[j] += buf[j]\n"
               "print('RAW' + json.dumps([a // %(scans)d for a in acc]))\n")

    def __init__(self, port, root="/"):
        from nardy_host.deploy import _mpremote
        self.port = port
        self.root = root
        self.cmd = _mpremote() + ["connect", port]
        self.layout = Layout(5)

    def place(self, step):
        pass                    # the user does it

    def read(self, scans):
        from nardy_host.cli import UserError
        pm = self.root.rstrip("/") + "/pinmap.json"
        code = self.SNIPPET % {"root": self.root, "pm": pm, "scans": scans}
        r = subprocess.run(self.cmd + ["exec", code], capture_output=True, text=True,
                           stdin=subprocess.DEVNULL)
        for ln in r.stdout.splitlines():
            if ln.startswith("RAW"):
                raw = json.loads(ln[3:])
                self.layout = Layout(_slots_for(len(raw)))
                return raw
        msg = (r.stderr.strip() or r.stdout.strip()).splitlines()
        raise UserError("reading the sensors failed: %s" % (msg[-1] if msg else "no output"))


def _slots_for(n):
    for s in range(1, 7):
        if Layout(s).n == n:
            return s
    return 5


# -- the computation -----------------------------------------------------------------------------
def compute(layout, empty, white, black):
    """A Calibration from the three averaged scans (see the module docstring)."""
    d = model_defaults(layout.slots)
    b0 = d["baseline"]
    gains = {}
    for colour, scan, names in ((WHITE, white, ("white1", "white2")),
                                (BLACK, black, ("black1", "black2"))):
        chans = [layout.channel(z, 1) for z in SAMPLE[colour]]
        # the sample stacks two checkers; one checker's level is taken to scale
        # by the same gain (the magnets are alike)
        g2 = [(scan[ch] - empty[ch]) / (d[names[1]] - b0) for ch in chans]
        gains[names[1]] = statistics.median(g2)
        gains[names[0]] = gains[names[1]]
    default = dict(d)
    for k in LEVELS[1:]:
        default[k] = int(round(b0 + gains[k] * (d[k] - b0)))
    cal = Calibration(layout.n, default, d.get("hysteresis"), layout.slots)
    cal.set_baselines(empty)
    return cal, gains


def _check_sample(layout, empty, scan, colour):
    from nardy_host.cli import UserError
    sign = 1 if colour == WHITE else -1
    for z in SAMPLE[colour]:
        ch = layout.channel(z, 1)
        if sign * (scan[ch] - empty[ch]) < 200:
            raise UserError("no %s checkers seen on slot 1 of P%d (reading %d, empty %d): "
                            "place them as shown and run again"
                            % ("white" if colour == WHITE else "black", z, scan[ch],
                               empty[ch]))


GUIDE = {
    "empty": "Take every checker off the board (points, bar and trays).",
    "white": "Put two white checkers stacked on the edge slot of each of P1..P6 "
             "(nothing else on the board).",
    "black": "Take them off; put two black checkers stacked on the edge slot of each "
             "of P7..P12.",
}


def save_to_board(args, cal):
    from nardy_host.cli import UserError
    text = cal.dumps()
    if args.port.startswith("vboard:"):
        d = args.port[7:]
        os.makedirs(d, exist_ok=True)
        tmp = os.path.join(d, "calib.tmp")
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, os.path.join(d, "calib.json"))
        return os.path.join(d, "calib.json")
    from nardy_host.deploy import _join, _mpremote, _run
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        f.write(text)
    try:
        conn = _mpremote() + ["connect", args.port]
        data = _join(args.root, "data")
        _run(conn + ["exec", "import os\ntry:\n os.mkdir(%r)\nexcept OSError:\n pass\n"
                     % data], "creating %s on the board" % data)
        _run(conn + ["fs", "cp", f.name, ":" + data + "/calib.json", "+", "reset"],
             "saving the calibration")
    except UserError:
        raise
    finally:
        os.unlink(f.name)
    return ":" + data + "/calib.json"


def run(args):
    from nardy_host.cli import UserError
    if args.port.startswith("vboard:"):
        sensors = ModelSensors(offset_sd=args.sim_offset, gain=args.sim_gain,
                               seed=args.sim_seed)
    else:
        if not os.path.exists(args.port):
            raise UserError("no such port: %s" % args.port)
        sensors = BoardSensors(args.port, args.root)
    scans = {}
    bar = None
    if not args.quiet:
        from tqdm import tqdm
        bar = tqdm(total=3, unit="step", desc="calibrating", file=sys.stderr)
    try:
        for step in ("empty", "white", "black"):
            print("\n" + GUIDE[step], file=sys.stderr, flush=True)
            if not args.yes:
                try:
                    input("Press Enter when done (Ctrl-C to stop) ")
                except EOFError:
                    raise UserError("no answer (use --yes when not interactive)") from None
            sensors.place(step)
            scans[step] = sensors.read(args.scans)
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    layout = sensors.layout
    if len(scans["empty"]) != layout.n:
        raise UserError("the board sent %d readings, expected %d"
                        % (len(scans["empty"]), layout.n))
    _check_sample(layout, scans["empty"], scans["white"], WHITE)
    _check_sample(layout, scans["empty"], scans["black"], BLACK)
    cal, gains = compute(layout, scans["empty"], scans["white"], scans["black"])
    print("magnet gain: white %.2f, black %.2f; %d channel(s) dead; %d channel(s) off "
          "the default levels" % (gains["white2"], gains["black2"], len(cal.dead),
                                  len(cal.channels)), file=sys.stderr)
    if args.save:
        with open(args.save, "w") as f:
            f.write(cal.dumps())
    if not args.dry_run:
        where = save_to_board(args, cal)
        print("saved to %s" % where, file=sys.stderr)
    return 0
