"""The simulator's web page and server, for the virtual board (``nardy sim``) and for
a real board on USB serial (``nardy live``).

The server is ``http.server`` bound to 127.0.0.1 only; requests from anywhere else,
or with a Host header that is not this machine's loopback name, get 403. The page
(``web/``: HTML, JS, CSS) gets the board's protocol events as Server-Sent Events and
sends the player's actions as JSON.

Endpoints:
- ``GET /`` the page; ``GET /app.js``, ``/style.css`` its files.
- ``GET /api/state``: mode, checkers per zone (the physical board, or for a real
  board its reported position), what the hand holds, LED zones, last LED frame and
  OLED framebuffer, number of events.
- ``GET /api/events?since=N``: ``text/event-stream``, one protocol event per message
  (``id`` = its number; internal replies such as ``pong`` left out).
- ``POST /api/action`` with a JSON object (``Content-Type: application/json``):
  ``{"action": "lift", "zone": 24}``, ``{"action": "place", "zone": 19}``,
  ``{"action": "move", "from": 24, "to": 19}`` (a drag), ``{"action": "press",
  "button": "ok", "kind": "short"|"long"}``, ``{"action": "new", "variant": "long",
  "match": 1}``, ``{"action": "setup"}``, ``{"action": "dice", "dice": [6, 5]}``
  (load the virtual board's next roll). Replies ``{"ok": true, "events": N}`` once
  the board processed it; 400 for a malformed action, 409 for one the board cannot
  do now (nothing on that point, hands on a real board).
- ``GET /api/log?game=N``: that game's journal (JSON lines) as a download; without
  ``game``, the current game.
"""

import json
import os
import shutil
import sys
import tempfile
import threading
import webbrowser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from nardy.rules import BLACK, WHITE
from nardy_host.session import LinkError, SerialLink, Session, VirtualLink, parse_zone, zone_label

WEB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "web")
STATIC = {"/": ("index.html", "text/html; charset=utf-8"),
          "/index.html": ("index.html", "text/html; charset=utf-8"),
          "/app.js": ("app.js", "text/javascript; charset=utf-8"),
          "/style.css": ("style.css", "text/css; charset=utf-8")}
HOST = "127.0.0.1"
MAX_BODY = 16 * 1024
QUIET = ("pong", "log", "log_end")


class HttpError(Exception):
    def __init__(self, code, text):
        super().__init__(text)
        self.code = code


class Hub:
    """The session behind the page: one action at a time."""

    def __init__(self, session, mode):
        self.s = session
        self.mode = mode              # "sim" or "live"
        self.lock = threading.Lock()
        self.stopping = False
        self.position = None          # live: the board's reported position
        self.gid = None
        self._want_dump = threading.Event()
        session.listeners.append(self._on_event)
        if mode == "live":
            threading.Thread(target=self._live_loop, daemon=True).start()

    def _on_event(self, ev):
        if ev is None:
            return
        k = ev.get("ev")
        if k in ("hello", "game") and ev.get("game") is not None:
            self.gid = ev["game"]
        if k == "dump" and "position" in ev:
            self.position = (ev.get("variant"), ev.get("options") or {}, ev["position"])
        if self.mode == "live" and k in ("hello", "game", "roll", "step", "turn", "warn",
                                         "sync", "lift", "game_end", "confirm"):
            self._want_dump.set()

    def _live_loop(self):
        """A real board sends no frames by itself: after each change ask for its
        position and screen."""
        while not self.stopping:
            if not self._want_dump.wait(0.5):
                continue
            self._want_dump.clear()
            try:
                with self.lock:
                    self.s.dump()
                    self.s.refresh()
            except (LinkError, OSError):
                pass

    # -- state ------------------------------------------------------------------------------
    def board(self):
        if self.s.phys is not None:
            return self.s.board_state()
        if self.position is None:
            return {}
        from nardy.game import zone_of
        from nardy.movesvc import variant_for
        from nardy.posjson import from_json
        name, opts, pj = self.position
        try:
            v = variant_for(name, opts)
            pos = from_json(v, pj)
        except (KeyError, ValueError, TypeError):
            return {}
        out = {}
        for c in (WHITE, BLACK):
            for k in range(26):
                n = pos.count(c, k)
                if n:
                    z = str(zone_of(v, c, k))
                    out.setdefault(z, [""])
                    out[z][0] += "wb"[c] * n
        return out

    def state(self):
        s = self.s
        with s.cond:
            return {"mode": self.mode, "virtual": s.phys is not None,
                    "on": s.link is not None, "board": self.board(),
                    "hand": ["wb"[c] + ":" + zone_label(z) for c, z in s.hand],
                    "led_zones": list(s.pm.led_zones), "leds": s.leds,
                    "oled": s.oled.get("fb") if s.oled else None,
                    "events": len(s.events), "game": self.gid}

    # -- actions ----------------------------------------------------------------------------
    def action(self, a):
        if not isinstance(a, dict):
            raise HttpError(400, "the body must be a JSON object")
        kind = a.get("action")
        handlers = {"lift": self._lift, "place": self._place, "move": self._move,
                    "press": self._press, "new": self._new, "setup": self._setup,
                    "dice": self._dice}
        if kind not in handlers:
            raise HttpError(400, "unknown action %r (one of: %s)" % (
                kind, ", ".join(sorted(handlers))))
        with self.lock:
            try:
                handlers[kind](a)
                self.s.sync()
                self.s.refresh()
                if self.mode == "live":
                    self.s.dump()
            except ValueError as e:
                raise HttpError(409, str(e)) from None
            except LinkError as e:
                raise HttpError(503, str(e)) from None
        return {"ok": True, "events": len(self.s.events)}

    def _hands(self):
        if self.s.phys is None:
            raise HttpError(409, "hands on the board need the virtual board (nardy sim)")

    @staticmethod
    def _zone(a, key):
        v = a.get(key)
        if isinstance(v, bool) or not isinstance(v, (int, str)):
            raise HttpError(400, "%r must be a zone (1..27 or P1..P24, bar, off-white, "
                                 "off-black)" % key)
        try:
            return parse_zone(str(v))
        except ValueError as e:
            raise HttpError(400, str(e)) from None

    def _lift(self, a):
        self._hands()
        self.s.lift(self._zone(a, "zone"))

    def _place(self, a):
        self._hands()
        self.s.place(self._zone(a, "zone"), top=bool(a.get("top")))

    def _move(self, a):
        self._hands()
        zf, zt = self._zone(a, "from"), self._zone(a, "to")
        self.s.lift(zf)
        self.s.sync()
        self.s.place(zt)

    def _press(self, a):
        if self.s.phys is None:
            raise HttpError(409, "a real board's buttons are on the board")
        name, kind = a.get("button"), a.get("kind", "short")
        if name not in ("ok", "back", "menu") or kind not in ("short", "long"):
            raise HttpError(400, "button must be ok, back or menu; kind short or long")
        self.s.send({"cmd": "button", "name": name, "press": kind})

    def _new(self, a):
        v, m = a.get("variant", "long"), a.get("match", 1)
        if v not in ("long", "short") or isinstance(m, bool) or not isinstance(m, int) \
                or not 1 <= m <= 99:
            raise HttpError(400, "variant must be long or short, match 1..99")
        self.s.send({"cmd": "new", "variant": v, "match": m})
        if self.s.phys is not None:
            self.s.sync()
            self.s.setup()

    def _setup(self, a):
        self._hands()
        self.s.setup()

    def _dice(self, a):
        self._hands()
        d = a.get("dice")
        if not isinstance(d, list) or not 1 <= len(d) <= 8 or any(
                isinstance(x, bool) or not isinstance(x, int) or not 1 <= x <= 6 for x in d):
            raise HttpError(400, "dice must be a list of integers 1..6")
        self.s.send({"cmd": "_dice", "dice": d})

    def game_log(self, gid):
        with self.lock:
            try:
                lines = self.s.game_log(gid)
            except LinkError as e:
                raise HttpError(503, str(e)) from None
        return lines


class Handler(BaseHTTPRequestHandler):
    server_version = "nardy-sim"
    protocol_version = "HTTP/1.1"
    hub = None            # set on the subclass made per server

    def log_message(self, fmt, *args):  # quiet: the page shows what matters
        pass

    # -- helpers ---------------------------------------------------------------------------
    def _send(self, code, body, ctype="application/json", extra=()):
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
        elif isinstance(body, str):
            body = body.encode()
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

    def _error(self, code, text):
        self._send(code, {"error": text, "status": code})

    def _check_origin(self):
        if self.client_address[0] != HOST:
            raise HttpError(403, "only 127.0.0.1 is served")
        host = (self.headers.get("Host") or "").rsplit(":", 1)[0]
        if host not in (HOST, "localhost"):
            raise HttpError(403, "Host must be 127.0.0.1 or localhost")

    def _route(self, method):
        try:
            self._check_origin()
            url = urlsplit(self.path)
            if url.path in STATIC or url.path.startswith("/api/"):
                fn = getattr(self, "_%s_%s" % (method, url.path.strip("/").replace(
                    "api/", "api_").replace(".", "_") or "root"), None)
                if url.path in STATIC and method in ("GET", "HEAD"):
                    return self._static(url.path)
                if fn is None:
                    known = {"/api/state", "/api/events", "/api/action", "/api/log"}
                    if url.path in known or url.path in STATIC:
                        raise HttpError(405, "%s is not allowed on %s" % (method, url.path))
                    raise HttpError(404, "no such endpoint: %s" % url.path)
                return fn(parse_qs(url.query, keep_blank_values=True))
            raise HttpError(404, "not found: %s" % url.path)
        except HttpError as e:
            self._error(e.code, str(e))
        except (BrokenPipeError, ConnectionResetError):
            pass

    def do_GET(self):
        self._route("GET")

    def do_HEAD(self):
        self._route("HEAD")

    def do_POST(self):
        self._route("POST")

    def do_PUT(self):
        self._route("PUT")

    def do_DELETE(self):
        self._route("DELETE")

    def _static(self, path):
        name, ctype = STATIC[path]
        with open(os.path.join(WEB, name), "rb") as f:
            self._send(200, f.read(), ctype)

    # -- API -----------------------------------------------------------------------------------
    def _GET_api_state(self, q):
        self._send(200, self.hub.state())

    def _GET_api_log(self, q):
        g = q.get("game", [None])[-1]
        if g is None:
            gid = self.hub.gid
            if gid is None:
                raise HttpError(404, "no game yet")
        else:
            try:
                gid = int(g)
            except ValueError:
                raise HttpError(400, "game must be a number") from None
        lines = self.hub.game_log(gid)
        if not lines:
            raise HttpError(404, "the board has no game %d" % gid)
        self._send(200, "".join(ln + "\n" for ln in lines), "application/x-ndjson",
                   [("Content-Disposition", 'attachment; filename="game%d.jsonl"' % gid)])

    def _POST_api_action(self, q):
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip()
        if ctype != "application/json":
            raise HttpError(415, "send the action as application/json")
        try:
            n = int(self.headers.get("Content-Length") or "")
        except ValueError:
            raise HttpError(411, "Content-Length required") from None
        if n < 0 or n > MAX_BODY:
            raise HttpError(413, "body too large (at most %d bytes)" % MAX_BODY)
        raw = self.rfile.read(n)
        try:
            a = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise HttpError(400, "the body is not JSON") from None
        self._send(200, self.hub.action(a))

    def _GET_api_events(self, q):
        try:
            i = int(q.get("since", ["0"])[-1])
        except ValueError:
            raise HttpError(400, "since must be a number") from None
        if i < 0:
            raise HttpError(400, "since must be >= 0")
        last = self.headers.get("Last-Event-ID")
        if last and last.isdigit():
            i = int(last) + 1
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        s = self.hub.s
        try:
            while not self.hub.stopping:
                with s.cond:
                    if i >= len(s.events):
                        s.cond.wait(1.0)
                    evs = s.events[i:]
                if not evs:
                    self.wfile.write(b": idle\n\n")
                    self.wfile.flush()
                    continue
                chunks = []
                for j, ev in enumerate(evs, i):
                    if ev.get("ev") in QUIET:
                        continue
                    chunks.append("id: %d\ndata: %s\n\n" % (j, json.dumps(ev)))
                i += len(evs)
                if chunks:
                    self.wfile.write("".join(chunks).encode())
                    self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, OSError):
            pass


class Server:
    """The web server on 127.0.0.1 for one hub, in a background thread."""

    def __init__(self, hub, port=0):
        handler = type("BoundHandler", (Handler,), {"hub": hub})
        self.hub = hub
        self.httpd = ThreadingHTTPServer((HOST, port), handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = "http://%s:%d/" % (HOST, self.port)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.hub.stopping = True
        self.httpd.shutdown()
        self.httpd.server_close()


def serve(hub, port, open_browser):
    from nardy_host.cli import UserError
    try:
        srv = Server(hub, port).start()
    except OSError as e:
        raise UserError("cannot serve on 127.0.0.1:%d: %s" % (port, e)) from None
    print("nardy %s: %s  (Ctrl-C to stop)" % (hub.mode, srv.url), flush=True)
    if open_browser:
        webbrowser.open(srv.url)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        srv.stop()
        hub.s.close()
    return 0


# -- commands ------------------------------------------------------------------------------

def add_web_args(p):
    p.add_argument("--port", type=int, default=0, metavar="N",
                   help="web server port on 127.0.0.1 (default: a free one)")
    p.add_argument("--no-browser", action="store_true", help="do not open the browser")


def run_sim(args):
    from nardy_host.cli import UserError
    tmp = None
    data = args.data
    if data is None:
        tmp = tempfile.mkdtemp(prefix="nardy-sim-")
        data = os.path.join(tmp, "flash")
    s = Session(lambda cb: VirtualLink(data, cb), noise=args.noise_counts, seed=0)
    try:
        try:
            s.start()
        except LinkError as e:
            raise UserError("the virtual board did not start: %s" % e) from None
        return serve(Hub(s, "sim"), args.http_port, not args.no_browser)
    finally:
        s.close()
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)


def register_live(sub):
    p = sub.add_parser(
        "live", help="the simulator's page for a real board on USB serial",
        description="Serve the simulator's page for a board on a serial port: its "
                    "position, OLED and events mirrored (the board asked for them after "
                    "each change). Only 127.0.0.1 is served.")
    p.add_argument("--port", required=True, metavar="PORT",
                   help="the board's serial port (/dev/ttyACM0, COM5, a pty)")
    p.add_argument("--http-port", type=int, default=0, metavar="N",
                   help="web server port on 127.0.0.1 (default: a free one)")
    p.add_argument("--no-browser", action="store_true", help="do not open the browser")
    p.set_defaults(func=run_live)


def run_live(args):
    from nardy_host.cli import UserError
    s = Session(lambda cb: SerialLink(args.port, cb), virtual=False)
    try:
        s.start()
    except LinkError as e:
        raise UserError(str(e)) from None
    try:
        s.send({"cmd": "hello"})
        return serve(Hub(s, "live"), args.http_port, not args.no_browser)
    finally:
        s.close()


if __name__ == "__main__":  # pragma: no cover
    sys.exit("use: nardy sim | nardy live")
