"""The boards on an MQTT broker (docs/NETWORK.md): ``nardy broker`` starts an
embedded broker (amqtt, a maintained pure-Python one) for a user who has none;
``nardy room`` prints every board on a broker live (and with ``--web`` serves the
room page, nardy_host.roomweb).

The boards publish (firmware/nardy/mqttcast.py) under ``<prefix>/<board id>/``:
``event`` (every journal record: ``{"game", "seq", "rec"}``, QoS 1), ``state`` (the
position's snapshot, retained) and ``online`` (``1``/``0``, retained). The room
shows each record once: QoS 1 may deliver one again after a lost connection, with
the same (game, seq), which is how it is recognised.
"""

import json
import sys
import threading

from nardy.notation import point_label
from nardy.rules import COLORS
from nardy.variants import find_variant
from nardy_host.errors import UserError


def register(sub):
    p = sub.add_parser(
        "broker", help="an embedded MQTT broker for the boards (amqtt)",
        description="Start an MQTT broker (amqtt, pure Python) for boards on this "
                    "network: point a board at it with the protocol's set command "
                    '({"cmd": "set", "mqtt": {"host": "THIS-COMPUTER", "port": 1883}}). '
                    "Anyone may connect: use it on a network you trust, or point the "
                    "boards at mosquitto with a login per board (docs/NETWORK.md).")
    p.add_argument("--bind", default="127.0.0.1:1883", metavar="HOST:PORT",
                   help="address to listen on (default 127.0.0.1:1883; 0.0.0.0:1883 "
                        "for boards on the network)")
    p.set_defaults(func=run_broker)

    p = sub.add_parser(
        "room", help="every board on an MQTT broker, live",
        description="Print every board on a broker as it plays: the position when a "
                    "board is first seen, then one line per journal record.")
    p.add_argument("--broker", default="127.0.0.1:1883", metavar="HOST:PORT",
                   help="the broker (default 127.0.0.1:1883)")
    p.add_argument("--prefix", default="nardy", help="the boards' topic prefix")
    p.add_argument("--user", help="login, if the broker wants one")
    p.add_argument("--password", help="... and its password")
    p.add_argument("--web", metavar="[HOST:]PORT",
                   help="also serve the room page (every board drawn, live) on this "
                        "address (HOST: 127.0.0.1 unless given; 0.0.0.0 for a hall's "
                        "screens and phones; PORT 0: a free one)")
    p.set_defaults(func=run_room)


def host_port(text, default_port=1883):
    """("host", port) of ``HOST:PORT`` (or ``HOST``); UserError when malformed."""
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = text, str(default_port)
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise UserError("expected HOST:PORT, got %r" % text)
    return host, int(port)


# -- the embedded broker -----------------------------------------------------------------

def broker_config(host, port):
    return {"listeners": {"default": {"type": "tcp", "bind": "%s:%d" % (host, port)}},
            "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin":
                        {"allow_anonymous": True}}}


async def serve_broker(host, port, started=None, stop=None):
    """Run amqtt on host:port until ``stop`` (an asyncio.Event) is set, or forever."""
    import asyncio

    from amqtt.broker import Broker
    b = Broker(broker_config(host, port))
    await b.start()
    if started is not None:
        started()
    try:
        if stop is None:
            await asyncio.Event().wait()
        else:
            await stop.wait()
    finally:
        await b.shutdown()


def run_broker(args):
    import asyncio
    import logging
    host, port = host_port(args.bind)
    logging.basicConfig(level=logging.WARNING)
    try:
        asyncio.run(serve_broker(host, port, lambda: print(
            "nardy broker: MQTT on %s:%d (Ctrl-C stops it)" % (host, port), flush=True)))
    except OSError as e:
        raise UserError("cannot listen on %s:%d: %s" % (host, port, e)) from None
    return 0


# -- the room ------------------------------------------------------------------------------

def _side(pos, who):
    return "%s %s off" % (who, pos.get("off", {}).get(who, 0))


def _labels(variant, side):
    """How a step's points are written: with the variant and the mover known, the
    board's printed labels (P1..P24 without the P: the table's notation, as the OLED
    and the board's own page write them; hits are not marked); else the mover's path
    points as the record has them."""
    if variant is None or side not in COLORS:
        return str
    c = COLORS.index(side)

    def label(k):
        if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k <= 25:
            return str(k)
        if k == 0:
            return "bar"
        return point_label(variant, k, True, c)
    return label


def describe_record(rec, variant=None, mover=None):
    """One journal record (firmware/nardy/record.py) in a few words; ``variant`` (a
    rules object) and ``mover`` (the side whose steps these are, for ``step`` and
    ``undo``, which do not say it) write the points in the table's labels."""
    r = rec.get("r")
    if r == "game":
        return "new %s game" % rec.get("variant", "?")
    if r == "open":
        return "opening roll: %s begins" % rec.get("first")
    if r == "roll":
        return "%s rolls %s" % (rec.get("side"), "-".join(map(str, rec.get("dice", ()))))
    if r in ("step", "undo"):
        label = _labels(variant, mover)
        return "%s %s-%s" % ("step" if r == "step" else "step taken back",
                             label(rec.get("from")), label(rec.get("to")))
    if r == "warn":
        return "warning %s: %s" % (rec.get("rule"), rec.get("text"))
    if r == "turn":
        label = _labels(variant, rec.get("side"))
        moves = " ".join("%s/%s" % (label(f), label(t)) for f, t in rec.get("steps") or ())
        return "%s played %s%s" % (rec.get("side"), moves or "nothing (pass)",
                                   " (accepted as played)" if rec.get("accepted") else "")
    if r == "end":
        if rec.get("kind") == "abandoned":
            return "game abandoned"
        return "game over: %s wins, %s, %s point(s)" % (
            rec.get("winner"), rec.get("kind"), rec.get("points"))
    return "%s %s" % (r, json.dumps(rec, separators=(",", ":"))[:120])


class Words:
    """A board's records in words (``describe_record``), with what the words need
    that a record may not say: the variant (from the snapshot or the ``game``
    record) and whose steps these are (the ``open`` and ``roll`` records, or the
    snapshot's side to move). The text room and the room page share it, so both
    say the same."""

    def __init__(self):
        self.variant = None
        self.mover = None

    def snapshot(self, st):
        """The snapshot's ``state`` (the board's ``dump``)."""
        if st.get("variant") is not None:
            self.variant = _variant(st.get("variant"), st.get("options"))
        pos = st.get("position")
        if isinstance(pos, dict) and pos.get("turn") in COLORS:
            self.mover = pos["turn"]

    def say(self, rec):
        r = rec.get("r")
        if r == "game":
            self.variant = _variant(rec.get("variant"), rec.get("options"))
        elif r == "open" and rec.get("first") in COLORS:
            self.mover = rec["first"]
        elif r == "roll" and rec.get("side") in COLORS:
            self.mover = rec["side"]
        return describe_record(rec, self.variant, self.mover)


def _variant(name, options):
    try:
        return find_variant(name, options if isinstance(options, dict) else {})
    except ValueError:
        return None


class Room:
    """What ``nardy room`` prints, one line per message (``out``); each journal
    record once per board, the snapshot only when a board is first seen."""

    def __init__(self, prefix, out=print):
        self.prefix = prefix.rstrip("/") + "/"
        self.out = out
        self.seen = {}          # board id -> set of (game, seq)
        self.words = {}         # board id -> its Words
        self.placed = set()     # boards whose position was shown (on join)
        self.lock = threading.Lock()

    def message(self, topic, payload):
        if not topic.startswith(self.prefix):
            return
        board, _, kind = topic[len(self.prefix):].partition("/")
        with self.lock:
            try:
                self._message(board, kind, json.loads(payload))
            except (ValueError, TypeError, AttributeError, KeyError, RecursionError):
                # (a board's garbage must not end the room: paho would re-raise it)
                self.out("%s: unreadable %s message" % (board, kind))

    def _message(self, board, kind, body):
        seen = self.seen.setdefault(board, set())
        words = self.words.setdefault(board, Words())
        if kind == "state" and isinstance(body, dict) and isinstance(body.get("state"), dict):
            words.snapshot(body["state"])
        if kind == "online":
            self.out("%s: %s" % (board, "online" if body == 1 else "offline"))
        elif kind == "state" and board not in self.placed:
            st = body.get("state") or {}
            pos = st.get("position") or {}
            text = "%s: game %s, %s to play, %s, %s (%s)" % (
                board, body.get("game"), pos.get("turn"), _side(pos, "white"),
                _side(pos, "black"), st.get("phase"))
            self.placed.add(board)
            self.out(text)
        elif kind == "event":
            key = (body.get("game"), body.get("seq"))
            if not isinstance(key[0], int) or not isinstance(key[1], int):
                raise ValueError("no game and seq")
            if key in seen:
                return          # a QoS 1 repeat
            text = words.say(body.get("rec") or {})
            seen.add(key)
            self.out("%s: game %s #%s %s" % (board, key[0], key[1], text))


def run_room(args):
    import paho.mqtt.client as paho
    host, port = host_port(args.broker)
    room = Room(args.prefix, lambda s: print(s, flush=True))
    page = _room_page(args.web, args.prefix) if args.web is not None else None
    c = paho.Client(paho.CallbackAPIVersion.VERSION2)
    if args.user:
        c.username_pw_set(args.user, args.password)

    def on_connect(client, userdata, flags, rc, props=None):
        if rc.is_failure:
            print("nardy room: the broker refused: %s" % rc, file=sys.stderr)
            client.disconnect()
            return
        client.subscribe(room.prefix + "#", qos=1)

    c.on_connect = on_connect
    def on_message(client, userdata, msg):
        room.message(msg.topic, msg.payload)
        if page is not None:
            page.roster.message(msg.topic, msg.payload)

    c.on_message = on_message
    try:
        try:
            c.connect(host, port)
        except OSError as e:
            raise UserError("no broker at %s:%d: %s" % (host, port, e)) from None
        print("nardy room: watching %s# on %s:%d (Ctrl-C stops)" % (room.prefix, host, port),
              flush=True)
        if page is not None:
            print("nardy room: the room page on %s" % page.url, flush=True)
        c.loop_forever()
    finally:
        if page is not None:
            page.stop()
    return 0


def _room_page(web, prefix):
    """The room page's server (nardy_host.roomweb), started; UserError when the
    address is malformed or taken."""
    from nardy_host import roomweb
    try:
        host, port = roomweb.web_address(web)
        return roomweb.RoomServer(roomweb.Roster(prefix), host, port).start()
    except ValueError as e:
        raise UserError(str(e)) from None
    except OSError as e:
        raise UserError("cannot serve the room page on %s: %s" % (web, e)) from None
