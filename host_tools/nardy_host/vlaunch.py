"""The virtual board for host tools (runs under unix MicroPython, not CPython).

    micropython vlaunch.py FIRMWARE_DIR DATA_DIR PINMAP.json [--flash-size=BYTES]
                           [--web=PORT]

``--flash-size`` gives the flash a size, as ``firmware/main.py`` does (a full flash
tried on the simulator page or in a script: docs/PROTOCOL.md "Limits"); ``--web``
serves the board's own page on 127.0.0.1:PORT, as ``firmware/main.py`` does
(``nardy.webserve``; microdot must be on ``MICROPYPATH``: ``mpunix.web_env``).
Exactly ``firmware/main.py``'s virtual board, plus one host-only line that never
reaches the firmware's protocol: ``{"cmd": "_dice", "dice": [w, b, ...]}`` loads the
board's electronic dice with the next values (a script's ``opening W B`` and
``dice A B``) through ``Dice.load``, so the firmware rolls them through its normal
code path. Host tools start it with ``nardy_host.mpunix.virtual_board_cmd``.
"""

import json
import os
import sys

sys.path.insert(0, sys.argv[1])

from nardy.app import App  # noqa: E402
from nardy.hal_virtual import Board  # noqa: E402


class HostBoard(Board):
    app = None

    async def read_line(self):
        while True:
            ln = await Board.read_line(self)
            if ln is None or not ln.startswith(b'{"cmd": "_dice"'):
                return ln
            try:
                self.app.game.dice_src.load(json.loads(ln)["dice"])
            except (ValueError, KeyError, TypeError, AttributeError) as e:
                self.out({"ev": "error", "error": "_dice: %s" % e})


def flash_size(args):
    """The ``--flash-size=BYTES`` among the arguments after the pin map; -1: none."""
    size = -1
    for a in args:
        if a.startswith("--flash-size="):
            size = int(a.split("=", 1)[1])
    return size


def web_port(args):
    """The ``--web=PORT`` among the arguments after the pin map; None: none."""
    port = None
    for a in args:
        if a.startswith("--web="):
            port = int(a.split("=", 1)[1])
    return port


def main():
    data = sys.argv[2]
    try:  # noqa: SIM105 - MicroPython has no contextlib
        os.mkdir(data)
    except OSError:
        pass
    b = HostBoard(sys.argv[3], data, flash_bytes=flash_size(sys.argv[4:]))
    port = web_port(sys.argv[4:])
    if port is not None:
        b.web = ("127.0.0.1", port)
    app = App(b, data)
    b.app = app
    app.run()


main()
