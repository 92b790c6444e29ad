"""The room page (``nardy room --web [HOST:]PORT``, docs/NETWORK.md): every board on
a broker live in a browser, one card per board: its id, online or not, variant,
match score, whose turn and the dice, the position drawn small, the last records in
the words ``nardy room`` prints, and "table-a vs table-b" for a remote pair.

``Roster`` is what the room knows, fed one MQTT message at a time (paho's thread):
a card per board, built from the retained snapshot (``state``) and kept up to date
by the records (``event``), each record once (QoS 1 may repeat one: same game and
seq). Each change is an item of a numbered feed; a page gets the whole roster first
and then the feed's items in order (Server-Sent Events), so a page that connects
late, or reconnects, loses nothing. Whatever a board sends is data to check, never
trusted: an unreadable message is said on its card and the room goes on.

The server is the standard library's ThreadingHTTPServer: read-only (GET and HEAD;
every other method 405), a connection cap (503), a socket timeout for a request
and for a page that stops reading its stream. The page escapes nothing because it
never writes HTML: every text a board sent goes into ``textContent``.
"""

import collections
import contextlib
import http.server
import json
import os
import socket
import threading
import urllib.parse

from nardy.notation import parse_position_id
from nardy.posjson import from_json
from nardy.rules import BLACK, WHITE
from nardy.variants import find_variant
from nardy.zonefit import zone_of
from nardy_host.netcast import Words

WEB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "web")
FILES = {"/": ("room.html", "text/html; charset=utf-8"),
         "/room.html": ("room.html", "text/html; charset=utf-8"),
         "/room.js": ("room.js", "text/javascript; charset=utf-8"),
         "/room.css": ("room.css", "text/css; charset=utf-8"),
         "/words.js": ("words.js", "text/javascript; charset=utf-8"),
         "/roomwords.js": ("roomwords.js", "text/javascript; charset=utf-8")}
NZONES = 28             # 1..24 the points, 25 the bar, 26/27 white's/black's tray
LINES = 12              # records kept per card
FEED = 2000             # feed items kept for a page that reconnects
MAX_BOARDS = 500        # cards; a broker with more (or a flood of made-up ids) is cut
MAX_ID = 64             # characters of a board id shown (the topic may be longer)
MAX_SEEN = 50000       # (game, seq) pairs remembered per board
MAX_PAYLOAD = 16 * 1024  # a board's longest record is ~600 bytes, a snapshot ~1.5 KB
KEEPALIVE_S = 15.0
IDLE_S = 10.0           # a read or a write on a page's socket waits at most this
MAX_CLIENTS = 64        # connections at once (each page holds one event stream)
# At the cap a connection waits this long for a slot before its 503: a page's next
# request can arrive before the thread that answered its last one has let go of its
# slot (a 503 right after a 200, seen on a loaded machine)
SLOT_WAIT_S = 0.5


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _zones(variant, pos):
    """[[white, black] per zone 0..27] of ``pos`` (zone 0 unused)."""
    out = [[0, 0] for _ in range(NZONES)]
    for c in (WHITE, BLACK):
        for k in range(26):
            n = pos.count(c, k)
            if n:
                out[zone_of(variant, c, k)][c] += n
    return out


class Card:
    """One board as the room knows it."""

    def __init__(self, board, no):
        self.board = board
        self.no = no                # the page's key: ids may be long, or look alike
        self.online = None          # the retained ``online``: True, False, or not yet
        self.game = None
        self.variant = None
        self.options = {}
        self.turn = None            # "white"/"black": the side to play
        self.dice = None
        self.phase = None
        self.match = None           # {"length", "white", "black"}: the score
        self.result = None          # {"winner", "kind", "points"}
        self.peer = None            # remote play: the other board's id
        self.side = None            # ... and this board's player's colour
        self.zones = None
        self.mark = (-1, -1)        # (game, seq): the position shown is after seq - 1
        self.seen = set()           # (game, seq) of the records taken
        self.lines = collections.deque(maxlen=LINES)
        self.records = 0
        self.problem = None         # the last thing the board sent that was unreadable
        self.snapshot = False       # a snapshot arrived
        self.words = Words()        # the records in the text room's words

    def view(self):
        return {"no": self.no, "board": self.board[:MAX_ID], "long_id": len(self.board) > MAX_ID,
                "online": self.online, "game": self.game, "variant": self.variant,
                "turn": self.turn, "dice": self.dice, "phase": self.phase,
                "match": self.match, "result": self.result, "peer": self.peer,
                "side": self.side, "zones": self.zones, "lines": list(self.lines),
                "records": self.records, "problem": self.problem,
                "snapshot": self.snapshot}

    # -- the position --------------------------------------------------------------------
    def _newer(self, mark):
        """Whether a position after ``mark`` (game, seq) is newer than the one shown."""
        if mark < self.mark:
            return False
        self.mark = mark
        return True

    def place(self, variant, pos):
        self.zones = _zones(variant, pos)
        self.turn = "white" if pos.turn == WHITE else "black"

    def snapshot_in(self, body):
        game, seq, st = body.get("game"), body.get("seq"), body.get("state")
        if not (_is_int(game) and _is_int(seq) and isinstance(st, dict)):
            raise ValueError("a snapshot without game, seq and state")
        self.snapshot = True
        if isinstance(body.get("peer"), str):
            self.peer = body["peer"][:MAX_ID]
            self.side = body.get("side") if body.get("side") in ("white", "black") else None
        else:
            self.peer = self.side = None
        if not self._newer((game, seq)):
            return
        self.words.snapshot(st)
        self.game = game
        if st.get("variant") in ("long", "short"):
            self.variant = st["variant"]
            self.options = st.get("options") if isinstance(st.get("options"), dict) else {}
        self.phase = st.get("phase") if isinstance(st.get("phase"), str) else None
        d = st.get("dice")
        self.dice = d if _dice(d) else None
        m = st.get("match")
        self.match = None
        if isinstance(m, dict) and _is_int(m.get("length")) and _pair(m.get("score")):
            # the score is by player; white_player says whose is white's this game
            wp = 1 if m.get("white_player") == 1 else 0
            self.match = {"length": m["length"], "white": m["score"][wp],
                          "black": m["score"][1 - wp]}
        r = st.get("result")
        self.result = _result(r) if isinstance(r, dict) else None
        if st.get("position") is None:
            self.zones = None
            return
        v = find_variant(self.variant, self.options)
        self.place(v, from_json(v, st["position"], mixed=True))

    def record_in(self, game, seq, rec):
        """A journal record; the words for it (or None for a repeat)."""
        if (game, seq) in self.seen:
            return None         # a QoS 1 repeat
        if len(self.seen) >= MAX_SEEN:      # (a flood of made-up numbers)
            self.seen = {k for k in self.seen if k[0] == game}
        self.seen.add((game, seq))
        self.records += 1
        r = rec.get("r")
        try:
            text = self.words.say(rec)
        except (TypeError, ValueError, AttributeError, KeyError):
            text = "unreadable %s record" % str(r)[:20]
        line = {"game": game, "seq": seq, "text": text[:300]}
        self.lines.append(line)
        if (game, seq + 1) >= self.mark:
            try:
                self._apply(game, seq, rec, r)
            except (ValueError, TypeError, AttributeError, KeyError) as e:
                self.problem = "unreadable %s record: %s" % (str(r)[:20], str(e)[:80])
        return line

    def _apply(self, game, seq, rec, r):
        if r == "game":
            if rec.get("variant") not in ("long", "short"):
                return
            self.game, self.variant = game, rec["variant"]
            self.options = rec.get("options") if isinstance(rec.get("options"), dict) else {}
            self.dice = self.result = None
            self.phase = "opening"
            self._position(game, seq, rec.get("start"))
            self.turn = None
        elif r == "roll" and _dice(rec.get("dice")) and rec.get("side") in ("white", "black"):
            self.game, self.dice, self.turn, self.phase = game, rec["dice"], rec["side"], "move"
        elif r == "turn":
            self.game, self.dice, self.phase = game, None, "roll"
            self._position(game, seq, rec.get("pos"))
        elif r == "end":
            self.game, self.dice, self.phase = game, None, "game_end"
            self.result = _result(rec)

    def _position(self, game, seq, text):
        if not isinstance(text, str):
            return
        name, pos = parse_position_id(text)     # ValueError for a bad one
        self.variant = name
        self.place(find_variant(name, self.options if name == self.variant else {}), pos)
        self.mark = (game, seq + 1)


def _dice(d):
    return isinstance(d, list) and len(d) == 2 and all(_is_int(x) and 1 <= x <= 6 for x in d)


def _pair(p):
    return isinstance(p, list) and len(p) == 2 and all(_is_int(x) for x in p)


def _result(r):
    w = r.get("winner")
    return {"winner": w if w in ("white", "black") else None,
            "kind": str(r.get("kind"))[:20], "points": r.get("points")
            if _is_int(r.get("points")) else None}


class Roster:
    """Every board on the broker, and the numbered feed of changes (thread-safe:
    paho's thread writes, each page's thread reads)."""

    def __init__(self, prefix):
        self.prefix = prefix.rstrip("/") + "/"
        self.cards = {}
        self.feed = collections.deque(maxlen=FEED)
        self.next = 0               # the number of the next feed item
        self.ignored = 0            # messages outside any board's topic, or over the cap
        self.cond = threading.Condition()
        self.stopping = False

    def message(self, topic, payload):
        """One MQTT message. Never raises: what cannot be read is said on the card."""
        if not topic.startswith(self.prefix):
            self.ignored += 1
            return
        board, _, kind = topic[len(self.prefix):].partition("/")
        with self.cond:
            card = self.cards.get(board)
            if card is None:
                if not board or len(self.cards) >= MAX_BOARDS:
                    self.ignored += 1
                    return
                card = self.cards[board] = Card(board, len(self.cards))
            line = None
            try:
                line = self._take(card, kind, payload)
            except (ValueError, TypeError, AttributeError, KeyError, RecursionError) as e:
                card.problem = "unreadable %s message: %s" % (kind[:20], str(e)[:80])
            self._publish(card, line)

    def _take(self, card, kind, payload):
        if len(payload) > MAX_PAYLOAD:
            raise ValueError("%d bytes" % len(payload))
        if kind == "online":
            body = json.loads(payload)
            if body not in (0, 1) or isinstance(body, bool):
                raise ValueError("not 1 or 0")
            card.online = body == 1
            return None
        if kind not in ("state", "event"):
            raise ValueError("not a topic of a board")
        body = json.loads(payload)
        if not isinstance(body, dict):
            raise ValueError("not an object")
        if kind == "state":
            card.snapshot_in(body)
            return None
        game, seq, rec = body.get("game"), body.get("seq"), body.get("rec")
        if not (_is_int(game) and _is_int(seq) and isinstance(rec, dict)):
            raise ValueError("a record without game, seq and rec")
        return card.record_in(game, seq, rec)

    def _publish(self, card, line):
        item = {"n": self.next, "card": card.view(), "line": line}
        self.feed.append(item)
        self.next += 1
        self.cond.notify_all()

    def state(self):
        """Every card now, and the number of the next feed item."""
        with self.cond:
            return {"next": self.next, "cards": [c.view() for c in self.cards.values()],
                    "ignored": self.ignored}

    def since(self, n, timeout=None):
        """The feed's items from number ``n`` (waiting up to ``timeout`` for one), or
        None when they are no longer kept (or never were): the page then takes the
        whole roster again."""
        with self.cond:
            if timeout and n == self.next and not self.stopping:
                self.cond.wait(timeout)
            first = self.next - len(self.feed)
            if n < first or n > self.next:
                return None
            return [self.feed[i - first] for i in range(n, self.next)]

    def stop(self):
        with self.cond:
            self.stopping = True
            self.cond.notify_all()


# -- the server ----------------------------------------------------------------------------

class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"
    server_version = "nardy-room"
    timeout = IDLE_S

    def log_message(self, *args):
        pass            # the terminal is the text room's

    def _send(self, code, body, ctype, extra=()):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, code, obj, extra=()):
        self._send(code, json.dumps(obj).encode(), "application/json", extra)

    def _refuse(self):
        self._json(405, {"error": "the room is read-only", "status": 405},
                   (("Allow", "GET, HEAD"),))

    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _refuse

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path in FILES:
            name, ctype = FILES[url.path]
            with open(os.path.join(WEB, name), "rb") as f:
                self._send(200, f.read(), ctype)
        elif url.path == "/api/state":
            self._json(200, self.server.roster.state())
        elif url.path == "/api/events":
            self._events(url)
        else:
            self._json(404, {"error": "not found", "status": 404})

    def _events(self, url):
        last = self.headers.get("Last-Event-ID")
        if last is None:
            last = urllib.parse.parse_qs(url.query).get("since", [None])[0]
        n = int(last) + 1 if last is not None and last.isdigit() and len(last) < 16 else -1
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        if self.command == "HEAD":
            return
        roster = self.server.roster
        try:
            items = roster.since(n) if n >= 0 else None
            while not roster.stopping:
                if items is None:
                    # the whole roster first (a new page, or one that fell too far behind)
                    st = roster.state()
                    self._event(st["next"] - 1, st, "roster")
                    n = st["next"]
                else:
                    for it in items:
                        self._event(it["n"], it)
                    n += len(items)
                    if not items:
                        self.wfile.write(b": idle\n\n")
                items = roster.since(n, KEEPALIVE_S)
        except OSError:
            pass        # the page went away, or stopped reading (the socket timed out)

    def _event(self, n, obj, kind=None):
        head = "event: %s\n" % kind if kind else ""
        self.wfile.write(("%sid: %d\ndata: %s\n\n" % (head, n, json.dumps(obj))).encode())


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address, roster, max_clients):
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        self.roster = roster
        self.slots = threading.BoundedSemaphore(max_clients)
        super().__init__(address, _Handler)

    def process_request(self, request, client_address):
        if not self.slots.acquire(timeout=SLOT_WAIT_S):
            body = b'{"error": "too many pages at once", "status": 503}'
            with contextlib.suppress(OSError):
                request.sendall(b"HTTP/1.0 503 Service Unavailable\r\nContent-Type: "
                                b"application/json\r\nContent-Length: %d\r\n\r\n%s"
                                % (len(body), body))
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()


class RoomServer:
    """The room page on ``host``:``port`` (0: a free one) for ``roster``, in a thread."""

    def __init__(self, roster, host="127.0.0.1", port=0, max_clients=MAX_CLIENTS):
        self.roster = roster
        self.httpd = _Server((host, port), roster, max_clients)
        h, p = self.httpd.server_address[:2]
        self.port = p
        self.url = "http://%s:%d/" % ("[%s]" % h if ":" in h else h, p)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.roster.stop()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(10)


def web_address(text):
    """(host, port) of ``--web [HOST:]PORT`` (port 0: a free one); ValueError."""
    host, sep, port = text.rpartition(":")
    if not sep:
        host = "127.0.0.1"
    if not host or not port.isdigit() or int(port) > 65535:
        raise ValueError("expected [HOST:]PORT, got %r" % text)
    return host.strip("[]"), int(port)
