"""What ``nardy calibrate`` and ``nardy selftest`` share: the ``--port``/``--root``
options (a real board, or ``vboard:DIR``), faults put on emulated channels
(``KIND:CHANNEL``), and the mpremote command that runs a firmware procedure on a
real board with the board built from its pin map.
"""

import argparse
import os

from nardy_host.errors import UserError


def add_parser(sub, name, help, doc):
    """The subcommand's parser with ``--port`` and ``--root``."""
    p = sub.add_parser(name, help=help, description=doc,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--port", required=True, metavar="PORT",
                   help="the board's serial port, or vboard:DIR")
    p.add_argument("--root", default="/", help="the board's root directory (default /)")
    return p


def vboard_dir(port):
    """DIR of ``vboard:DIR``, or None for a real board's port."""
    if not port.startswith("vboard:"):
        return None
    if not port[7:]:
        raise UserError("vboard:DIR needs a directory")
    return port[7:]


def parse_faults(items, kinds, option, n):
    """[(kind, channel)] of ``KIND:CHANNEL`` items; UserError names ``option``."""
    out = []
    for it in items:
        kind, _, ch = it.partition(":")
        if kind not in kinds:
            raise UserError("%s: kind must be one of %s, not %r" % (
                option, ", ".join(kinds), kind))
        try:
            c = int(ch)
        except ValueError:
            raise UserError("%s: channel must be a number, not %r" % (option, ch)) from None
        if not 0 <= c < n:
            raise UserError("%s: channel must be 0..%d" % (option, n - 1))
        out.append((kind, c))
    return out


def board_root(root):
    """``--root`` as a prefix of the board's paths ("" for /)."""
    return root.rstrip("/")


def exec_command(port, root, body):
    """The mpremote command that runs ``body`` on the board at ``port``, after
    ``pm`` (its pin map, ROOT/pinmap.json) and ``b`` (its ``hal_esp32.Board``,
    without the USB line reader: mpremote has the serial) are made. UserError when
    there is no such port."""
    from nardy_host.deploy import _mpremote
    if not os.path.exists(port):
        raise UserError("no such port: %s" % port)
    root = board_root(root)
    code = ("import sys\nsys.path.insert(0, %r)\nfrom nardy.pinmap import load\n"
            "from nardy.hal_esp32 import Board\npm = load(%r)\ndel load\n"
            "b = Board.from_pinmap(pm, usb=False)\n" % (root or "/", root + "/pinmap.json")
            + body)
    return _mpremote() + ["connect", port, "exec", code]
