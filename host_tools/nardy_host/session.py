"""A board on the other end of a JSON-lines link, shared by ``nardy script``,
``nardy sim`` and ``nardy live``.

Links:
- ``VirtualLink``: the real firmware on unix MicroPython (``vlaunch.py``) as a
  subprocess on pipes, or behind a pseudo-terminal (``pty=True``: the host side is
  then a serial port path, exactly like a board on USB); ``kill()`` is a power cut,
  ``start()`` boots it again on the same flash directory.
- ``SerialLink``: a board on a serial port (pyserial), a real one or a pty.

``Session`` keeps the latest events (numbered from the start, the oldest dropped
past ``EventLog.keep``: a day-long session must not grow without bound), answers
``sync()`` (ping/pong: all earlier input processed) and, for the virtual board,
owns the physical board (``physical.PhysBoard``: checkers with magnets over the
hall sensors, the same model as self-play) so that hands' actions become the raw ``sense`` readings.
"""

import contextlib
import json
import os
import subprocess
import threading
import time

from nardy.notation import parse_position_id
from nardy.pinmap import load as load_pinmap
from nardy.rules import BLACK, WHITE
from nardy.variants import find_variant
from nardy.zonefit import zone_table
from nardy.zones import NZONES, ZONE_BAR, ZONE_OFF_B, ZONE_OFF_W, Layout
from nardy_host.errors import LinkError  # noqa: F401 (session.LinkError: re-exported)
from nardy_host.magnet import MagnetModel
from nardy_host.mpunix import pinmap_path, virtual_board_cmd
from nardy_host.physical import PhysBoard

PINMAP = pinmap_path()
NOISE = {"none": 0.0, "low": 4.0, "realistic": 8.0, "high": 12.0}
TIMEOUT = 60.0   # seconds a reply may take before the board counts as hung


# The host's zone names (scripts, the simulator, messages): one spelling, read back
# by parse_zone along with the short forms. The OLED has its own, shorter ones
# (nardy.oled.zone_name); zones are numbered in nardy.sensing.
ZONE_WORDS = {"bar": ZONE_BAR, "off-white": ZONE_OFF_W, "ow": ZONE_OFF_W,
              "off-black": ZONE_OFF_B, "ob": ZONE_OFF_B}


def zone_label(z):
    if z == ZONE_BAR:
        return "bar"
    if z == ZONE_OFF_W:
        return "off-white"
    if z == ZONE_OFF_B:
        return "off-black"
    return "P%d" % z


def parse_zone(text):
    """P1..P24, bar, off-white / off-black (also ow / ob, or zone numbers 1..27)."""
    t = text.strip().lower()
    if t in ZONE_WORDS:
        return ZONE_WORDS[t]
    if t.startswith("p"):
        t = t[1:]
    try:
        z = int(t)
    except ValueError:
        raise ValueError("not a zone: %r (P1..P24, bar, off-white, off-black)" % text) \
            from None
    if not 1 <= z < NZONES:
        raise ValueError("not a zone: %r" % text)
    return z


class EventLog:
    """Events numbered from 0 as they arrive, only the newest ``keep`` retained.

    Indexing and slicing take absolute numbers, as a list of every event would; a
    slice that starts before the oldest retained event starts at ``first``, and
    ``len()`` is the number of events ever appended. Trimming happens in batches
    (a quarter of ``keep``), so an append costs O(1) amortized."""

    def __init__(self, keep=5000):
        self.keep = keep
        self.first = 0            # the number of the oldest event retained
        self._evs = []

    def __len__(self):
        return self.first + len(self._evs)

    def append(self, ev):
        self._evs.append(ev)
        if len(self._evs) > self.keep + self.keep // 4:
            drop = len(self._evs) - self.keep
            del self._evs[:drop]
            self.first += drop

    def __getitem__(self, i):
        if isinstance(i, slice):
            start, stop, step = i.indices(len(self))
            start = max(start, self.first)
            stop = max(stop, start)
            return self._evs[start - self.first:stop - self.first:step]
        if i < 0:
            i += len(self)
        if not self.first <= i < len(self):
            raise IndexError("event %d is not retained (%d..%d are)" % (
                i, self.first, len(self) - 1))
        return self._evs[i - self.first]


class _Link:
    def __init__(self, on_event):
        self.on_event = on_event
        self.reader = None

    def _read_loop(self, readline):
        while True:
            try:
                ln = readline()
            except (OSError, ValueError, TypeError):   # pyserial while closing
                ln = b""
            if not ln:
                break
            if isinstance(ln, bytes):
                ln = ln.decode("utf-8", "replace")
            ln = ln.strip()
            if not ln:
                continue
            try:
                ev = json.loads(ln)
            except ValueError:
                ev = {"ev": "text", "text": ln}
            if not isinstance(ev, dict):
                ev = {"ev": "text", "text": ln}
            self.on_event(ev)
        self.on_event(None)

    @staticmethod
    def _write_line(out, line, gone):
        """``line`` and its newline to the board's input ``out``; LinkError with
        ``gone`` when that is closed."""
        try:
            out.write(line.encode() + b"\n")
            out.flush()
        except (OSError, ValueError) as e:
            raise LinkError("%s: %s" % (gone, e)) from None

    def _start_reader(self, readline):
        self.reader = threading.Thread(target=self._read_loop, args=(readline,),
                                       daemon=True)
        self.reader.start()


class VirtualLink(_Link):
    virtual = True

    def __init__(self, data_dir, on_event, pinmap=PINMAP, pty=False, flash_size=None,
                 web=None, heap=None, env=None):
        super().__init__(on_event)
        self.data = data_dir
        self.flash_size = flash_size    # bytes (--flash-size); None: no size
        self.web = web                  # the board's own page on this port (None: off)
        self.heap = heap                # MicroPython's heap (None: as start() says)
        self.env = env                  # its environment (None: this process's)
        self.pinmap = pinmap
        self.pty = pty
        self.proc = None
        self.port = None        # the serial-port path of the pty (pty=True)
        self._fds = []
        self._fout = None

    def start(self):
        # the board's own page is for a board with PSRAM (docs/NETWORK.md): 512wK
        heap = self.heap or os.environ.get("NARDY_VBOARD_HEAP",
                                           "512wK" if self.web else "112wK")
        cmd = virtual_board_cmd(self.data, heap=heap, pinmap=self.pinmap,
                                flash_size=self.flash_size, web=self.web)
        env = self.env
        if self.web is not None:
            from nardy_host.mpunix import web_env
            env = web_env(env)
        if not self.pty:
            self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, env=env)
            self._fout = self.proc.stdin
            self._start_reader(self.proc.stdout.readline)
            return
        import pty
        import tty
        # two pty pairs and a bridge between their masters: the board on one slave,
        # the host's serial port (``port``) on the other, like a USB CDC link
        bm, bs = pty.openpty()
        hm, hs = pty.openpty()
        tty.setraw(bs)
        tty.setraw(hs)
        self.proc = subprocess.Popen(cmd, stdin=bs, stdout=bs, stderr=subprocess.DEVNULL,
                                     env=env, close_fds=True)
        os.close(bs)
        self._fds = [bm, hm, hs]
        self.port = os.ttyname(hs)
        self.reader = threading.Thread(target=self._bridge, args=(bm, hm), daemon=True)
        self.reader.start()

    def _bridge(self, bm, hm):
        import select
        while True:
            try:
                r, _, _ = select.select([bm, hm], [], [], 0.5)
            except (OSError, ValueError):
                return
            if self.proc is None or (not r and self.proc.poll() is not None):
                return
            for fd in r:
                try:
                    data = os.read(fd, 4096)
                except OSError:
                    return        # the board's side closed: it died
                if not data:
                    return
                out = hm if fd == bm else bm
                while data:
                    try:
                        n = os.write(out, data)
                    except OSError:
                        return
                    data = data[n:]

    def send_line(self, line):
        if self.pty:
            raise LinkError("the pty is for a serial client")
        self._write_line(self._fout, line, "virtual board gone")

    def kill(self):
        """Power cut: SIGKILL; what the board wrote before it died is still read."""
        if self.proc is None:
            return
        self.proc.kill()
        self.proc.wait()
        if self.reader is not None:
            self.reader.join(10)
        self._close()

    def stderr_tail(self):
        if self.proc is None or self.proc.stderr is None:
            return ""
        try:
            return self.proc.stderr.read().decode("utf-8", "replace")[-2000:]
        except (OSError, ValueError):
            return ""

    def _close(self):
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr) if self.proc else ():
            if f is not None:
                with contextlib.suppress(OSError):
                    f.close()
        for fd in self._fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._fds = []

    def close(self):
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                if self.proc.stdin:
                    self.proc.stdin.close()
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        if self.reader is not None:
            self.reader.join(10)
        self._close()
        self.proc = None


class SerialLink(_Link):
    virtual = False

    def __init__(self, port, on_event, baud=115200):
        super().__init__(on_event)
        self.port = port
        self.baud = baud
        self.ser = None

    def start(self):
        import serial
        try:
            self.ser = serial.Serial(self.port, self.baud, timeout=None)
        except (serial.SerialException, OSError) as e:
            raise LinkError("cannot open %s: %s" % (self.port, e)) from None
        self._start_reader(self.ser.readline)

    def send_line(self, line):
        self._write_line(self.ser, line, "serial port gone")

    def close(self):
        if self.ser is not None:
            self.ser.cancel_read()
            if self.reader is not None:
                self.reader.join(5)
            self.ser.close()
            self.ser = None


class Session:
    """Events in, commands and (virtual board) hands' actions out."""

    def __init__(self, link_factory, virtual=True, noise=0.0, seed=0, hold_ms=300,
                 pinmap=PINMAP, keep_events=5000):
        self.cond = threading.Condition()
        self.events = EventLog(keep_events)   # the newest events, numbered in order
        self.alive = False
        self.hidden = set()         # numbers of internal replies (pong, dumps we asked)
        self._factory = link_factory
        self.link = None
        self.virtual = virtual
        self.hold_ms = hold_ms
        self.ping_id = 0
        self.pm = load_pinmap(pinmap)
        self.layout = Layout(self.pm.slots)
        self.phys = None
        self.hand = []              # checkers in the hand: (colour, zone it came from)
        self.variant = None
        self.start_pos = None
        self.leds = None
        self.oled = None
        self.listeners = []
        if virtual:
            import random
            self.phys = PhysBoard(self.layout, MagnetModel(slots=self.layout.slots),
                                  noise=noise, rng=random.Random(seed))

    # -- events -------------------------------------------------------------------------
    def _on_event(self, ev):
        with self.cond:
            if ev is None:
                self.alive = False
            else:
                k = ev.get("ev")
                if k == "leds":
                    self.leds = ev.get("rgb")
                elif k == "oled":
                    self.oled = ev
                elif k == "game":
                    self._game(ev.get("rec") or {})
                elif k == "hello" and ev.get("variant") and (
                        self.variant is None or self.variant.name != ev["variant"]):
                    self.variant = find_variant(ev["variant"], {})
                first = self.events.first
                self.events.append(ev)
                if self.events.first != first and self.hidden:
                    self.hidden = {i for i in self.hidden if i >= self.events.first}
            # listeners (quick ones) see the event before anyone waiting on it wakes
            for fn in list(self.listeners):
                fn(ev)
            self.cond.notify_all()

    def _game(self, rec):
        try:
            self.variant = find_variant(rec["variant"], rec.get("options") or {})
            self.start_pos = parse_position_id(rec["start"])[1]
        except (KeyError, ValueError, TypeError):
            pass

    def start(self):
        self.link = self._factory(self._on_event)
        with self.cond:
            n0 = len(self.events)
            self.alive = True
        self.link.start()
        if self.virtual:
            self.wait_for("hello", n0)
            self.sense(self.hold_ms)

    def wait_for(self, kind, since, timeout=TIMEOUT, match=None):
        """The first event of ``kind`` at index >= since; raises LinkError."""
        end = time.monotonic() + timeout
        with self.cond:
            i = since
            while True:
                i = max(i, self.events.first)
                while i < len(self.events):
                    ev = self.events[i]
                    if (ev.get("ev") == kind or (isinstance(kind, tuple) and ev.get("ev")
                                                 in kind)) and (match is None or match(ev)):
                        return i, ev
                    i += 1
                if not self.alive:
                    tail = self.link.stderr_tail() if hasattr(self.link, "stderr_tail") \
                        else ""
                    raise LinkError("the board went away" + (": " + tail if tail else ""))
                left = end - time.monotonic()
                if left <= 0:
                    # what the board did say instead (errors first), for the report
                    said = [e for e in self.events[since:] if e.get("ev") not in
                            ("leds", "oled", "pong", "sync", "lift")][-3:]
                    raise LinkError("no %s from the board in %.0f s%s" % (
                        kind, timeout, ("; it said: " + json.dumps(said)[:600]) if said
                        else ""))
                self.cond.wait(left)

    def send(self, obj):
        if self.link is None:
            raise LinkError("the board is off (power cut): boot it first")
        self.link.send_line(obj if isinstance(obj, str) else json.dumps(obj))

    def sync(self):
        """Returns once the board processed everything sent so far."""
        self.ping_id += 1
        pid = self.ping_id
        n0 = len(self.events)
        self.send({"cmd": "ping", "id": pid})
        i, _ = self.wait_for("pong", n0, match=lambda e: e.get("id") == pid)
        self.hidden.add(i)

    def request(self, obj, kind):
        n0 = len(self.events)
        self.send(obj)
        i, ev = self.wait_for(kind, n0)
        self.hidden.add(i)
        return ev

    def refresh(self):
        """Make the board draw its LEDs and OLED now (the UI task runs on real time,
        so after a ``sync`` the last frame may still be pending)."""
        return self.request({"cmd": "oled"}, "oled")

    def dump(self):
        return self.request({"cmd": "dump"}, "dump")

    def game_log(self, gid):
        n0 = len(self.events)
        self.send({"cmd": "log", "game": gid})
        i, end = self.wait_for(("log_end", "error"), n0)
        if end.get("ev") == "error":
            self.hidden.add(i)
            return []
        with self.cond:
            lines = [e["line"] for e in self.events[n0:i]
                     if e.get("ev") == "log" and e.get("game") == gid]
            self.hidden.update(j for j in range(max(n0, self.events.first), i + 1)
                               if self.events[j].get("ev") in ("log", "log_end"))
        return lines

    # -- power ---------------------------------------------------------------------------
    def kill(self):
        if self.link is not None:
            self.link.kill()
            self.link = None

    def boot(self):
        if self.link is not None:
            raise ValueError("the board is on")
        self.start()

    def close(self):
        if self.link is not None:
            self.link.close()
            self.link = None

    # -- the physical board (virtual board only) --------------------------------------------
    def _need_phys(self):
        if self.phys is None:
            raise ValueError("hands on the board need the virtual board")

    def sense(self, ms=None):
        """Send the readings of the board as it lies now, held for ``ms``. With noise,
        one fresh reading per scan period."""
        self._need_phys()
        ms = self.hold_ms if ms is None else ms
        if self.phys.noise and not self.phys.loose:
            left = ms
            while left > 0:
                self.send({"cmd": "sense", "raw": self.phys.read(), "ms": 20})
                left -= 20
        else:
            self.send({"cmd": "sense", "raw": self.phys.read(), "ms": max(0, int(ms))})

    def setup(self, pos=None):
        """Put the checkers in the start position of the current game."""
        self._need_phys()
        pos = pos or self.start_pos
        if self.variant is None or pos is None:
            raise ValueError("no game to set up")
        zt = [zone_table(self.variant, c) for c in (WHITE, BLACK)]
        self.phys.set_position(self.variant, pos, zt)
        self.hand = []
        self.sense()

    def top_colour(self, z):
        st = self.phys.stacks[z]
        best = None
        for s in range(len(st)):
            if st[s] and (best is None or len(st[s]) >= len(st[best])):
                best = s
        return None if best is None else st[best][-1]

    def lift(self, z, colour=None):
        self._need_phys()
        if colour is None:
            colour = self.top_colour(z)
            if colour is None:
                raise ValueError("no checker on %s" % zone_label(z))
        if not self.phys.count(z, colour):
            raise ValueError("no %s checker on %s" % (("white", "black")[colour],
                                                        zone_label(z)))
        self.phys.take(z, colour)
        self.hand.append((colour, z))
        self.sense()

    def place(self, z, top=False):
        self._need_phys()
        if not self.hand:
            raise ValueError("nothing in the hand to place")
        colour, _ = self.hand.pop()
        self.phys.put(z, colour, "top" if top else "row")
        self.sense()

    def slide(self, zf, zt):
        """Lift from zf, slide the checker over the board to zt (the sensors see it
        pass, one scan per position), put it down."""
        self._need_phys()
        colour = self.top_colour(zf)
        if colour is None:
            raise ValueError("no checker on %s" % zone_label(zf))
        self.phys.take(zf, colour)
        x0, y0 = self.phys.zone_xy(zf, 0)
        x1, y1 = self.phys.zone_xy(zt, 0)
        n = 10
        pol = 1 if colour == WHITE else -1
        for i in range(1, n):
            f = i / n
            self.phys.loose["slide"] = (x0 + f * (x1 - x0), y0 + f * (y1 - y0), 0, pol)
            self.send({"cmd": "sense", "raw": self.phys.read(), "ms": 20})
        self.phys.loose.pop("slide", None)
        self.phys.put(zt, colour)
        self.sense()

    def set_noise(self, level):
        self._need_phys()
        if level in NOISE:
            self.phys.noise = NOISE[level]
            return
        try:
            v = float(level)
        except ValueError:
            raise ValueError("noise is none, low, realistic, high or counts") from None
        if not 0 <= v <= 200:
            raise ValueError("noise must be 0..200 counts")
        self.phys.noise = v

    def board_state(self):
        """Checkers per zone and slot (bottom first), 'w'/'b', for the page."""
        if self.phys is None:
            return None
        out = {}
        for z in range(1, NZONES):
            out[str(z)] = ["".join("wb"[c] for c in st) for st in self.phys.stacks[z]]
        return out
