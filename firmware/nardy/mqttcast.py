"""Live broadcast of the journal through an MQTT broker (docs/NETWORK.md).

Layer: app (the network task beside scan, UI and USB). Imports ``nardy.journal``'s
file names through the app's journal, the game's state, and micropython-lib's
``umqtt.simple`` (installed with mip on a board, put on the path of a virtual board;
never copied in here). Imported only when a broker is configured (``App.start_net``):
a board without one never pays its heap.

What it publishes, under ``<prefix>/<id>/``:

- ``event``: every journal record, QoS 1, in order, as ``{"game": 3, "seq": 12,
  "rec": {...}}``; ``game`` and ``seq`` are the journal's (the line's number in the
  game's file, as the USB protocol's events carry them), so a subscriber can tell a
  repeat from a gap;
- ``state``: the position's snapshot after the last record published, retained;
- ``online``: ``1`` retained while connected, ``0`` (the broker's last will) when
  the connection is lost.

The records are read back from the journal on flash, not kept in RAM: the cursor
(game, line, byte offset) moves on only when the broker has acknowledged a record
(PUBACK). After a lost connection the task connects again and publishes from the
cursor: what the broker missed, nothing lost; a record the broker had taken but
whose PUBACK was lost comes again with the same ``seq`` (QoS 1 is "at least once").
The cursor is kept on flash (netcur.json) every ``_SAVE_EVERY`` records and when the
journal is idle, so a reboot goes on from there, not from the game's record 0.

Never stalling the scan: ``umqtt.simple`` writes and reads its socket blocking (a
broker that is slow to answer would hold the whole board). Here it writes its
packets into a pipe (``_Pipe``; this module is umqtt's ``socket`` module) and never
reads: this task sends the bytes and reads the broker's replies with asyncio's
streams, each wait bounded (``_REPLY_MS``).
"""

import asyncio
import json

from micropython import const  # CPython: the shim nardy/__init__.py installs

from nardy import drop_module

_REPLY_MS = const(5000)        # a CONNACK or PUBACK later than this: the link is down
_IDLE_MS = const(50)           # between two looks at the journal when nothing is new
_KEEPALIVE_S = const(60)       # the broker drops a silent board after 1.5x this
_PING_MS = const(30000)        # a PINGREQ after this long without a packet
_RETRY_FIRST_MS = const(500)   # the first wait before connecting again
_RETRY_MAX_MS = const(30000)   # ... doubled up to this
# The broker's cursor on flash (netcur.json): kept every _SAVE_EVERY acknowledged
# records, and once the journal has had nothing new for _SAVE_IDLE_MS (a player
# thinking, a game over); not after every record: the journal already writes each
# record once, and a rewritten file costs littlefs a block (flash wear). After a
# power cut the broker gets again at most the records since the last save.
_SAVE_EVERY = const(16)
_SAVE_IDLE_MS = const(3000)
_CURSOR_MAX = const(256)       # bytes of netcur.json read
_LOOKUP_AFTER = const(4)       # failed connections before a broker's name is looked up again
_PACKET_MAX = const(4096)      # the longest packet read from the broker (a record is < 1 KB)
_POLL_MS = const(5)            # between two looks for an awaited acknowledgement


class _Pipe:
    """The socket ``umqtt.simple`` sees: what it writes is kept for the task to
    send; a read ends its call with OSError (the task reads the broker's reply
    itself). Its calls touch no other socket: any OSError they raise is this one."""

    def __init__(self):
        self.out = bytearray()

    def write(self, b, n=None):
        self.out.extend(b if n is None else memoryview(b)[:n])

    def read(self, n):
        raise OSError(11)       # EAGAIN: the reply is the task's to wait for

    def connect(self, addr):
        pass

    def settimeout(self, t):    # (newer umqtt.simple sets one)
        pass


# This module stands for the ``socket`` module inside ``umqtt.simple``: these two.
def socket(*args):
    return _Pipe()


def getaddrinfo(host, port, *args):
    return ((0, 0, 0, "", (host, port)),)


def _client(cfg, prefix):
    import sys

    from umqtt import simple
    simple.socket = sys.modules[__name__]
    c = simple.MQTTClient(cfg["id"], cfg["host"], cfg["port"], user=cfg.get("user"),
                          password=cfg.get("password"), keepalive=_KEEPALIVE_S)
    c.set_last_will(prefix + "online", b"0", retain=True, qos=1)
    return c


def _target(cfg):
    """The broker a cursor is about: another broker has seen none of it."""
    if not cfg:
        return None
    return "%s:%d/%s/%s" % (cfg["host"], cfg["port"], cfg["prefix"], cfg["id"])


def _load_cursor(path):
    """(target, game, seq, offset) of netcur.json, or None (none, or unusable)."""
    try:
        with open(path) as f:
            d = json.loads(f.read(_CURSOR_MAX))
        c = (d["to"], d["game"], d["seq"], d["off"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    for v in c[1:]:
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            return None
    return c


def _tls_context(data_dir):
    """TLS to the broker (settings ``"tls": true``): the broker's certificate is
    verified against the CA in ``mqtt_ca.der`` (DER or PEM) on the board's flash
    when there is one; without it the link is encrypted but the broker not
    verified (CERT_NONE: a machine posing as the broker could read it)."""
    import ssl
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    try:
        with open(data_dir + "/mqtt_ca.der", "rb") as f:
            ctx.load_verify_locations(cadata=f.read())
        ctx.verify_mode = ssl.CERT_REQUIRED
    except OSError:
        ctx.verify_mode = ssl.CERT_NONE
    return ctx


_running = None     # the Cast whose task runs


def start(app):
    """Start the broadcast task unless it runs (``App.run`` at boot with a broker,
    ``set`` naming one)."""
    global _running
    if _running is None:
        _running = Cast(app)
        asyncio.create_task(_running.run())


class Cast:
    def __init__(self, app):
        self.app = app
        self.gid = None         # the game being followed (its file)
        self.seq = 0            # the next line of it to publish
        self.off = 0            # ... its byte offset in the file
        self.snap = None        # (gid, seq) of the last snapshot the broker took
        self.addr = None        # (host, its IP address): a name looked up once
        self.fails = 0          # connections failed in a row
        self.state = None       # "connected", or why not (sent once per change)
        self.client = None
        self.r = self.w = None
        self.quiet = 0          # ms since the last packet sent
        self.reader = None      # the task reading the broker's packets (``_read_loop``)
        self.acked = None       # the packet id of the last PUBACK or SUBACK read
        self.failed = None      # why the reader stopped (the link is down)
        self.peer = None        # remote play's Peer (nardy.remote) with a ``peer`` set

    # -- the journal's cursor ----------------------------------------------------------
    def _start_cursor(self, cfg):
        """Where the broker's acknowledgements stopped before the reboot (the saved
        cursor, when it names this broker and a game still on flash); else the
        beginning of the game in play."""
        j = self.app.journal
        self.gid = j.current if j.current is not None else j.last + 1
        self.seq = 0
        self.off = 0
        self.unsaved = 0
        self.idle = 0
        self.to = _target(cfg)
        c = _load_cursor(self.app.dir + "/netcur.json")
        if c is None or c[0] != self.to or c[1] > self.gid:
            return
        import os
        try:
            size = os.stat(j.name(c[1]))[6]
        except OSError:
            return              # that game is gone: the one in play, from its start
        if c[3] <= size:
            self.gid, self.seq, self.off = c[1], c[2], c[3]

    def _save_cursor(self):
        """The cursor on flash (write, then rename: a power cut keeps the old one)."""
        import os
        path = self.app.dir + "/netcur.json"
        try:
            with open(path + ".tmp", "w") as f:
                f.write(json.dumps({"to": self.to, "game": self.gid, "seq": self.seq,
                                    "off": self.off}))
            os.rename(path + ".tmp", path)
            self.unsaved = 0
        except OSError:
            pass                # a full flash: the broker gets a few records twice

    def _next_line(self):
        """The next whole line of the journal after the cursor (bytes, without its
        newline) or None; moves the cursor to the next game when this one is
        done (a later game started) or gone (deleted after the host took it)."""
        import os
        j = self.app.journal
        while True:
            if j.current == self.gid and j.lines <= self.seq:
                return None                 # nothing new: no file opened
            try:
                with open(j.name(self.gid), "rb") as f:
                    f.seek(self.off)
                    ln = f.readline()
            except OSError:
                ln = b""
            if ln.endswith(b"\n"):
                return ln[:-1]
            cur = j.current
            if cur is None or cur <= self.gid:
                return None     # the game goes on (or a line is still held in RAM)
            g = self.gid + 1
            while g < cur:
                try:
                    os.stat(j.name(g))
                    break
                except OSError:
                    g += 1
            self.gid = g
            self.seq = 0
            self.off = 0

    # -- the connection ------------------------------------------------------------------
    def _say(self, state):
        if state != self.state:
            self.state = state
            self.app.emit({"ev": "net", "state": state})
            if self.peer is not None:
                self.peer.net(state == "connected")

    async def _send(self):
        out = self.client.sock.out
        self.w.write(bytes(out))
        out[:] = b""
        await self.w.drain()
        self.quiet = 0

    async def _packet(self):
        """One packet from the broker: (type byte, body)."""
        r = self.r
        op = (await r.readexactly(1))[0]
        n = 0
        shift = 0
        while True:             # the remaining length: 7 bits a byte, low first
            b = (await r.readexactly(1))[0]
            n |= (b & 0x7F) << shift
            if not b & 0x80:
                break
            shift += 7
            if shift > 21:
                raise OSError("bad packet length")
        if n > _PACKET_MAX:
            raise OSError("packet too long: %d" % n)
        body = await r.readexactly(n) if n else b""
        return op, body

    async def _read_loop(self):
        """The only reader of the socket once connected: acknowledgements for the
        publishing side, PUBLISH packets (a peer's records) for remote play."""
        try:
            while True:
                op, body = await self._packet()
                kind = op & 0xF0
                if kind == 0x30:
                    self._incoming(op, body)
                elif (kind == 0x40 or kind == 0x90) and len(body) >= 2:
                    self.acked = body[0] << 8 | body[1]
                # (a PINGRESP: nothing to do)
        except Exception as e:      # (not a cancel: the session ends it)
            self.failed = e

    def _incoming(self, op, body):
        n = body[0] << 8 | body[1]
        topic = bytes(body[2:2 + n]).decode()
        i = 2 + n
        pid = None
        if op & 0x06:               # QoS 1: acknowledged once taken
            pid = body[i] << 8 | body[i + 1]
            i += 2
        if self.peer is not None:
            self.peer.incoming(topic, body[i:], pid)
        elif pid is not None:
            self.w.write(bytes((0x40, 2, pid >> 8, pid & 0xFF)))

    async def _acked(self, pid):
        """Wait (at most ``_REPLY_MS``) for the reader to see ``pid`` acknowledged."""
        waited = 0
        while self.acked != pid:
            if self.failed is not None:
                raise self.failed
            if waited >= _REPLY_MS:
                raise OSError("no acknowledgement")
            await asyncio.sleep_ms(_POLL_MS)
            waited += _POLL_MS

    async def _peer_acks(self):
        """Remote play: acknowledge the peer's records this board has taken."""
        p = self.peer
        p.settle()
        if p.acks:
            for pid in p.acks:
                self.w.write(bytes((0x40, 2, pid >> 8, pid & 0xFF)))
            p.acks = []
            await self.w.drain()

    def _address(self, cfg):
        """The broker's IP address. A name is looked up with the socket module's
        getaddrinfo, which blocks the whole board (scan included) until the DNS
        answers or gives up; so it is looked up once and kept, and again only
        after _LOOKUP_AFTER failed connections in a row (the broker may have moved):
        at most one lookup per ~2 minutes while the broker is unreachable. An IP
        address is used as it is (lwIP and libc answer it at once)."""
        h = cfg["host"]
        a = self.addr
        if a is not None and a[0] == h and (self.fails == 0 or self.fails % _LOOKUP_AFTER):
            return a[1]
        import socket
        sa = socket.getaddrinfo(h, cfg["port"])[0][-1]
        if isinstance(sa, tuple):
            ip = sa[0]                      # the ESP32: ("192.168.1.5", 1883)
        else:
            ip = "%d.%d.%d.%d" % (sa[4], sa[5], sa[6], sa[7])    # unix: sockaddr_in
        self.addr = (h, ip)
        return ip

    async def _connect(self, cfg, prefix):
        c = self.client = _client(cfg, prefix)
        ip = self._address(cfg)
        if cfg.get("tls"):
            self.r, self.w = await asyncio.open_connection(
                ip, cfg["port"], ssl=_tls_context(self.app.dir),
                server_hostname=cfg["host"])
        else:
            self.r, self.w = await asyncio.open_connection(ip, cfg["port"])
        try:
            # remote play: a session the broker keeps (the peer's records wait)
            c.connect("peer" not in cfg)
        except OSError:
            pass        # at the CONNACK: the pipe's EAGAIN
        await self._send()
        op, body = await asyncio.wait_for(self._packet(), _REPLY_MS / 1000)
        if op != 0x20 or len(body) != 2:
            raise OSError("not an MQTT broker")
        if body[1]:
            raise OSError("broker refused: %s" % (
                "bad user or password" if body[1] in (4, 5) else "code %d" % body[1]))
        self.failed = None
        self.acked = None
        self.reader = asyncio.create_task(self._read_loop())
        if "peer" in cfg:
            await self._subscribe(cfg)
        await self._publish(prefix + "online", b"1", True)

    async def _subscribe(self, cfg):
        """Remote play: the peer's records and whether it is online (before this
        board says it is online: the peer then knows its records are kept here)."""
        c = self.client
        c.cb = 1        # (umqtt asserts one: its reads are never made, this task reads)
        for t in ("event", "online"):
            try:
                c.subscribe("%s/%s/%s" % (cfg["prefix"], cfg["peer"], t), 1)
            except (OSError, AssertionError):
                pass    # at the SUBACK: the pipe's EAGAIN
            await self._send()
            await self._acked(c.pid)

    async def _publish(self, topic, msg, retain=False):
        c = self.client
        try:
            c.publish(topic, msg, retain, 1)
        except OSError:
            pass        # at the PUBACK: the pipe's EAGAIN
        await self._send()
        await self._acked(c.pid)

    def _close(self):
        if self.reader is not None:
            self.reader.cancel()
            self.reader = None
        if self.w is not None:
            try:
                self.w.close()
            except OSError:
                pass
        self.r = self.w = self.client = None

    async def _session(self, cfg, prefix):
        """Publish until the settings change (returns) or the link fails (raises)."""
        await self._connect(cfg, prefix)
        self._say("connected")
        self.fails = 0
        app = self.app
        while app.settings.get("mqtt") is cfg:
            if self.failed is not None:
                raise self.failed
            if self.peer is not None:
                await self._peer_acks()
            ln = self._next_line()
            if ln is not None:
                msg = b'{"game":%d,"seq":%d,"rec":' % (self.gid, self.seq) + ln + b"}"
                await self._publish(prefix + "event", msg)
                self.off += len(ln) + 1
                self.seq += 1
                self.unsaved += 1
                self.idle = 0
                if self.unsaved >= _SAVE_EVERY:
                    self._save_cursor()
                continue
            if self.snap != (self.gid, self.seq) and self.seq:
                snap = (self.gid, self.seq)
                st = {"game": self.gid, "seq": self.seq, "state": app.game.state()}
                if "peer" in cfg:       # remote play: a room shows the pair
                    st["peer"] = cfg["peer"]
                    st["side"] = cfg["side"]
                st = json.dumps(st)
                await self._publish(prefix + "state", st.encode(), True)
                st = None
                self.snap = snap
                continue
            if self.quiet >= _PING_MS:
                self.client.ping()
                await self._send()
            if self.unsaved and self.idle >= _SAVE_IDLE_MS:
                self._save_cursor()
            await asyncio.sleep_ms(_IDLE_MS)
            self.quiet += _IDLE_MS
            self.idle += _IDLE_MS

    async def run(self):
        """The task: connect, publish, and after any failure wait (doubling up to
        ``_RETRY_MAX_MS``) and connect again, until the broker is unset."""
        global _running
        app = self.app
        self._start_cursor(app.settings.get("mqtt"))
        wait = _RETRY_FIRST_MS
        try:
            while True:
                cfg = app.settings.get("mqtt")
                if not cfg:
                    return
                prefix = "%s/%s/" % (cfg["prefix"], cfg["id"])
                self.peer = None
                if "peer" in cfg:
                    from nardy import remote
                    self.peer = remote.peer(app.game)
                try:
                    await self._session(cfg, prefix)
                    wait = _RETRY_FIRST_MS      # settings changed: at once
                    continue
                except ImportError:
                    self._say("no umqtt.simple: mip install umqtt.simple")
                    return
                except (OSError, EOFError, ValueError, AssertionError, IndexError,
                        asyncio.TimeoutError, MemoryError) as e:
                    if self.state == "connected":
                        wait = _RETRY_FIRST_MS      # it was up: try again soon
                    self.fails += 1
                    self._say("down: %s: %s" % (type(e).__name__, e))
                finally:
                    self._close()
                await asyncio.sleep_ms(wait)
                wait = min(wait * 2, _RETRY_MAX_MS)
        finally:
            _running = None
            self._say("off")
            drop_module("nardy.mqttcast")
