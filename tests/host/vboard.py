"""Drive the virtual board (firmware/main.py on unix MicroPython) as a subprocess."""

import json
import os
import subprocess
import sys

from nardy.notation import parse_position_id
from nardy.variants import find_variant
from nardy.zones import Layout
from nardy_host.mpunix import (
    compiled_firmware,
    micropython,  # noqa: F401 (the tests import it from here)
)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MAIN = os.path.join(ROOT, "firmware", "main.py")
LAYOUT = Layout(5)
sys.path.insert(0, os.path.join(ROOT, "tests", "firmware"))   # also when run by bench/

from apputil import LEVEL  # noqa: E402,F401  (re-exported)
from apputil import readings as _readings  # noqa: E402


def readings(variant, pos, hand=None):
    """Raw readings of a board showing ``pos`` (see apputil.readings)."""
    return _readings(LAYOUT, variant, pos, hand)


class VBoard:
    def __init__(self, data, extra=(), heap="112wK", env=None, cmd=None):
        self.data = data
        main = os.path.join(compiled_firmware(), "main.py")    # as a board runs it
        # ``cmd``: another launcher (the host's, nardy_host.mpunix.virtual_board_cmd)
        self.p = subprocess.Popen(cmd or [micropython(), "-X", "heapsize=" + heap, main, data,
                                          os.path.join(ROOT, "firmware", "pinmap",
                                                       "esp32s3.json"), *extra],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, bufsize=1, env=env)
        self.events = []
        self.ping_id = 0
        self.hello = self.wait("hello")

    def send(self, obj):
        self.p.stdin.write((obj if isinstance(obj, str) else json.dumps(obj)) + "\n")
        self.p.stdin.flush()

    def read(self):
        ln = self.p.stdout.readline()
        if not ln:
            err = self.p.stderr.read()[-3000:]
            raise EOFError("virtual board exited (status %s): %s" % (self.p.wait(), err))
        ev = json.loads(ln)
        self.events.append(ev)
        return ev

    def wait(self, kind):
        while True:
            ev = self.read()
            if ev["ev"] == kind:
                return ev

    def sync(self):
        self.ping_id += 1
        self.send({"cmd": "ping", "id": self.ping_id})
        while True:
            ev = self.read()
            if ev["ev"] == "pong" and ev["id"] == self.ping_id:
                return

    def sense(self, variant, pos, hand=None, ms=300):
        self.send({"cmd": "sense", "raw": readings(variant, pos, hand), "ms": ms})

    def button(self, name="ok", press="short"):
        self.send({"cmd": "button", "name": name, "press": press})

    def dump(self):
        self.send({"cmd": "dump"})
        return self.wait("dump")

    def log(self, gid):
        """The lines of game ``gid``; a board that answers with an error instead of
        ``log_end`` fails the caller at once (it would otherwise wait for ever)."""
        self.send({"cmd": "log", "game": gid})
        out = []
        while True:
            ev = self.read()
            if ev["ev"] == "log":
                out.append(ev["line"])
            elif ev["ev"] == "log_end":
                return out
            elif ev["ev"] == "error":
                raise AssertionError("log %d: %s (after %d lines; events before: %s)"
                                     % (gid, ev["error"], len(out), self.events[-6:-1]))

    def close(self):
        if self.p.poll() is None:
            self.p.stdin.close()
            self.p.wait(timeout=30)
        self.p.stdout.close()
        self.p.stderr.close()

    def kill(self):
        self.p.kill()
        self.p.wait()


def state_of(board, variant_name, options=None):
    """(variant, position, dice) from the board's dump."""
    d = board.dump()
    v = find_variant(d["variant"], d["options"] or {})
    from nardy.posjson import from_json
    return v, from_json(v, d["position"], mixed=True), d["dice"], d


def committed(events):
    """The journal records the events announced, by (game, seq)."""
    out = {}
    for ev in events:
        if "seq" in ev and "rec" in ev:
            out[(ev["game"], ev["seq"])] = ev["rec"]
    return out


__all__ = ["VBoard", "readings", "committed", "parse_position_id", "state_of"]
