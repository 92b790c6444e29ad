"""``nardy sim --pair``: two virtual boards playing each other through the embedded
broker (docs/NETWORK.md, "Remote play"), each with its simulator page.

One command does what a club does with two boards: the embedded broker (amqtt,
``nardy broker``'s code) on 127.0.0.1 and a free port, two virtual boards (the same
firmware, unix MicroPython with micropython-lib's umqtt.simple, the network's heap)
set as each other's ``peer`` (table-a plays white, table-b black), and a page for
each. A move carried out on one page is shown on the other board's LEDs and OLED as
the remote player's; that board's player carries it out. Ctrl-C (or SIGTERM) stops
the pages, both boards and the broker.
"""

import asyncio
import contextlib
import logging
import os
import shutil
import signal
import socket
import tempfile
import threading
import time
import webbrowser

from nardy_host import umqttlib
from nardy_host.errors import LinkError, UserError
from nardy_host.netcast import serve_broker
from nardy_host.session import Session, VirtualLink
from nardy_host.simhub import ActionError, Hub
from nardy_host.simweb import HOST, Server

# (board id, its player's side): the id that sorts first rolls the opening (C2)
TABLES = (("table-a", "white"), ("table-b", "black"))
MEET_S = 60.0          # both boards on the broker within this, or the pair fails
START_S = 30.0         # the embedded broker listening within this


class EmbeddedBroker:
    """amqtt on 127.0.0.1:``port`` (0: a free one) in a thread of its own, as
    ``nardy broker`` runs it."""

    def __init__(self, port=0):
        self.port = port
        self.loop = None
        self.stop_event = None
        self.error = None
        self.ready = threading.Event()
        self.thread = None

    def start(self):
        # amqtt says every connection at INFO: the terminal is for the addresses
        logging.basicConfig(level=logging.WARNING)
        for name in ("amqtt.broker", "amqtt.mqtt.protocol.handler"):
            logging.getLogger(name).addFilter(_quiet)
        tries = 3 if self.port == 0 else 1
        for _ in range(tries):
            port = self.port or _free_port()
            self._run_thread(port)
            if self.error is None:
                self.port = port
                return self
            if not isinstance(self.error, OSError):
                break                   # not a port another program took meanwhile
        raise UserError("the embedded broker cannot listen on %s:%d: %s" % (
            HOST, port, self.error))

    def _run_thread(self, port):
        self.error = None
        self.ready.clear()
        self.thread = threading.Thread(target=self._run, args=(port,), daemon=True,
                                       name="nardy-broker")
        self.thread.start()
        if not self.ready.wait(START_S):
            self.error = TimeoutError("not listening after %g s" % START_S)
        elif self.error is not None:
            self.thread.join(5)

    def _run(self, port):
        self.loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self.loop)
        self.stop_event = asyncio.Event()
        try:
            self.loop.run_until_complete(
                serve_broker(HOST, port, self.ready.set, self.stop_event))
        except Exception as e:  # noqa: BLE001 - said by start(), never a traceback
            self.error = e
        finally:
            self.ready.set()
            self.loop.close()

    def stop(self):
        loop, ev = self.loop, self.stop_event
        if self.thread is None or not self.thread.is_alive():
            return
        with contextlib.suppress(RuntimeError):        # its loop already closed
            loop.call_soon_threadsafe(ev.set)
        self.thread.join(10)


# amqtt's log lines that are no news here (``_quiet``)
LATE_PUBACK = ("Timeout waiting for PUBACK", "Received PUBACK for unknown pending")
SAID_BY_US = ("Broker startup failed",)             # start() says why, in one line
AT_THE_END = ("messages not broadcasted",)          # the boards' goodbyes, at Ctrl-C


def _quiet(record):
    """False for amqtt's log lines that only alarm a newcomer. Above all its
    complaints about a late PUBACK: a board acknowledges its peer's record only once
    its player carried the move out (docs/NETWORK.md, "Nothing lost, nothing
    twice"), seconds later than amqtt's fixed 5 s. The move is there and is taken;
    only a resend after a lost connection is not amqtt's (docs/NETWORK.md, "Try it
    on one computer")."""
    hidden = LATE_PUBACK + SAID_BY_US + AT_THE_END
    text = record.getMessage()
    if any(s in text for s in hidden):
        return False
    exc = record.exc_info[1] if record.exc_info else None
    return not (exc is not None and any(s in str(exc) for s in LATE_PUBACK))


def _free_port():
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


class Table:
    """One virtual board of the pair, the session behind its page, and the page."""

    def __init__(self, name, side, peer, data, lib, flash_size=None, noise=0.0):
        self.name, self.side, self.peer = name, side, peer
        env = umqttlib.board_env(lib)
        self.s = Session(lambda cb: VirtualLink(data, cb, flash_size=flash_size,
                                                heap=umqttlib.NET_HEAP, env=env),
                         noise=noise, seed=0)
        # the page's log from the board's first event on: its link to the broker too
        self.hub = Hub(self.s, "sim")
        self.hub.describe.peer = peer
        self.hub.describe.side = side
        self.srv = None
        self.serving = False

    def bind(self, port):
        """The page's port taken now: a busy one is said before the boards start."""
        try:
            self.srv = Server(self.hub, port)
        except OSError as e:
            raise UserError("cannot serve %s's page on %s:%d: %s" % (self.name, HOST, port,
                                                                     e)) from None

    def start(self, broker_port):
        try:
            with self.hub.lock:     # (the page's clock senses only once the board is up)
                self.s.start()
        except LinkError as e:
            raise UserError("the virtual board %s did not start: %s" % (self.name, e)) \
                from None
        cmd = {"cmd": "set", "mqtt": {"host": HOST, "port": broker_port, "id": self.name,
                                      "peer": self.peer, "side": self.side}}
        ev = self.s.request(cmd, ("set", "error"))
        if ev.get("ev") == "error":
            raise UserError("%s refused the broker's settings: %s" % (self.name,
                                                                     ev.get("error")))

    def online(self):
        """Whether this board plays its peer now (its last ``peer`` event)."""
        return str(self.last_state()).startswith("playing")

    def last_state(self):
        with self.s.cond:
            states = [e.get("state") for e in self.s.events[self.s.events.first:]
                      if e.get("ev") == "peer"]
        return states[-1] if states else "no word from the broker yet"

    def new_game(self, variant, match=1):
        """A new match of ``variant``, the checkers set up (the page's New match)."""
        try:
            self.hub.action({"action": "new", "variant": variant, "match": match})
        except ActionError as e:
            raise UserError("%s cannot start the match: %s" % (self.name, e)) from None

    def serve(self):
        self.srv.start()
        self.serving = True

    def stop(self):
        self.hub.stopping = True
        if self.serving:
            self.srv.stop()
        elif self.srv is not None:
            self.srv.sock.close()
        self.s.close()


def meet(tables, timeout=MEET_S):
    """Until both boards play each other on the broker; UserError with what each
    said when they do not within ``timeout``."""
    end = time.monotonic() + timeout
    while not all(t.online() for t in tables):
        if time.monotonic() > end:
            raise UserError("the boards did not meet on the broker in %g s: %s" % (
                timeout, "; ".join("%s: %s" % (t.name, t.last_state()) for t in tables)))
        for t in tables:
            if not t.s.alive:
                raise UserError("the virtual board %s went away" % t.name)
        time.sleep(0.1)


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def run_pair(args):
    """``nardy sim --pair``: everything up, the addresses printed, until Ctrl-C."""
    if not 1 <= args.match <= 99:
        raise UserError("--match must be 1..99")
    lib = args.umqtt or umqttlib.umqtt_lib()
    if not umqttlib.has_umqtt(lib):
        raise UserError("%s has no umqtt/simple.py (or .mpy): --umqtt names the directory "
                        "that holds the umqtt folder" % lib)
    tmp = None
    data = args.data
    if data is None:
        tmp = tempfile.mkdtemp(prefix="nardy-pair-")
        data = tmp
    # SIGTERM stops everything as Ctrl-C does: no board or broker left behind
    old_term = signal.signal(signal.SIGTERM, _interrupt)
    broker = EmbeddedBroker(args.broker_port)
    tables = []
    try:
        for (name, side), (peer, _) in zip(TABLES, reversed(TABLES)):
            tables.append(Table(name, side, peer, os.path.join(data, name),
                                os.path.abspath(lib), args.flash_size, args.noise_counts))
        for t, port in zip(tables, (args.http_port, args.black_port)):
            t.bind(port)
        broker.start()
        for t in tables:
            t.start(broker.port)
        meet(tables)
        for t in tables:
            t.new_game(args.variant, args.match)
            t.serve()
        say_addresses(tables, broker.port)
        if not args.no_browser:
            for t in tables:
                webbrowser.open(t.srv.url)
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        # a second Ctrl-C (or SIGTERM) must not cut the stopping short: a board
        # would be left behind
        old_int = signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        try:
            for t in tables:
                t.stop()
            broker.stop()
            if tmp:
                shutil.rmtree(tmp, ignore_errors=True)
        finally:
            signal.signal(signal.SIGTERM, old_term)
            signal.signal(signal.SIGINT, old_int)
    return 0


def say_addresses(tables, broker_port):
    a, b = tables
    print("nardy sim --pair: %s and %s play each other through the embedded broker "
          "%s:%d\n"
          "  %s plays here: %s  (%s)\n"
          "  %s plays here: %s  (%s)\n"
          "Open both pages side by side; OK on %s's page rolls the opening.\n"
          "Watch the game: nardy room --broker %s:%d\n"
          "(Ctrl-C stops the pages, both boards and the broker)" % (
              a.name, b.name, HOST, broker_port, a.side, a.srv.url, a.name, b.side,
              b.srv.url, b.name, a.name, HOST, broker_port), flush=True)
