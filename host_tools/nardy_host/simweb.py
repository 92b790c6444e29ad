"""The simulator's web page and server, for the virtual board (``nardy sim``) and for
a real board on USB serial (``nardy live``).

The server is microdot (the same framework runs on MicroPython, so a board could
one day serve this page itself) on asyncio in a background thread, bound to
127.0.0.1: requests from any other address, or with a Host header that is not this
machine's loopback name, get 403. Each request is answered and its connection
closed (HTTP/1.0), so a body can never be read as a second request. Every POST
from another site's page is refused (403: ``cross_origin``); a request must arrive
whole within ``IDLE_S`` seconds (408) and a reply be taken as fast (slowloris);
at most ``MAX_CLIENTS`` connections are open at once (503 to the next). The page
(``web/``: HTML, JS, CSS) gets its updates as Server-Sent Events and sends the
player's actions as JSON; the session behind it is ``simhub.Hub``.

Endpoints:
- ``GET /`` the page; ``GET /app.js``, ``/style.css`` its files.
- ``GET /api/state``: a snapshot: mode, checkers per zone (the physical board, or
  for a real board its reported position), what the hand holds, LED zones, the last
  LED frame and OLED framebuffer, the game, variant and match, whether a game is in
  progress, the newest log lines and ``feed`` (the next line's number).
- ``GET /api/events?since=N`` (or the ``Last-Event-ID`` header, which wins):
  ``text/event-stream`` of log lines (``id`` = the line's number) and frames
  (``{"ev": "leds"|"oled", ...}``, the newest only); ``{"ev": "reset"}`` when lines
  the client asked for are no longer kept (it then reloads the snapshot).
- ``POST /api/action`` with a JSON object (``Content-Type: application/json``,
  ``Content-Length``): ``{"action": "lift", "zone": 24, "colour": "black"}``
  (``colour`` optional: which checker of a point or the bar holding both),
  ``{"action": "place", "zone": 19}``, ``{"action": "move", "from": 24, "to": 19}``
  (a drag), ``{"action": "press", "button": "ok", "kind": "short"|"long"}``,
  ``{"action": "new", "variant": "long", "match": 1}``, ``{"action": "setup"}``,
  ``{"action": "dice", "dice": [6, 5]}`` (load the virtual board's next roll),
  ``{"action": "lang", "lang": "ru"}`` (the page's language, sent to the board as
  ``{"cmd": "set", "lang": ...}``; a board without that setting keeps its own).
  Replies ``{"ok": true, "feed": N}`` once the board processed it; 400 for a
  malformed action (also one nested deeper than 8), 409 for one the board cannot
  do now (nothing on that point, hands on a real board), 411 without a length (a
  chunked body), 413 for a body over 16 KB, 415 for another content type.
- ``GET /api/log?game=N``: that game's journal (JSON lines) as a download named by
  variant, game and date; without ``game``, the current game, and before the first
  game the page's log (text) so far.
- ``GET /api/moves``: the legal turns for the dice being played, in the board's
  printed labels: ``{"dice", "side", "played", "turns": [text...]}``; 409 when no
  dice are to be played.
- ``GET /api/analyse?game=N`` (without ``game``: the current game) rates every turn
  of a game the board logged (``nardy analyse``: short nardy by gnubg 0-ply, long
  by the board's net); ``POST /api/analyse`` does it for a journal sent as the body
  (``Content-Type: application/x-ndjson`` or ``text/plain``, at most
  ``MAX_JOURNAL`` bytes). The reply: ``{"variant", "judge", "turns": [{"n",
  "side", "dice", "played", "best", "equity", "best_equity", "loss", "before",
  "after", "best_after", "played_steps", "best_steps"}], "worst": [turn indexes,
  the biggest loss first], "lost": {"white", "black"}}``, positions as zones like
  ``board`` in the state. It runs in a worker thread, one at a time (429 while one
  runs), so the live view goes on meanwhile; 400 for a file that is not the
  journal of one game (or has more than ``analyse.MAX_TURNS`` turns), 404 for a
  game the board does not have, 411/413/415 as for actions.
"""

import asyncio
import concurrent.futures
import contextlib
import datetime
import json
import os
import re
import shutil
import sys
import tempfile
import threading
import webbrowser

from microdot import Microdot, Request, Response
from microdot.sse import sse_response

from nardy_host import analyse
from nardy_host.errors import UserError
from nardy_host.session import LinkError, SerialLink, Session, VirtualLink
from nardy_host.simhub import ActionError, Hub

WEB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "web")
STATIC = {"/": ("index.html", "text/html; charset=utf-8"),
          "/index.html": ("index.html", "text/html; charset=utf-8"),
          "/app.js": ("app.js", "text/javascript; charset=utf-8"),
          "/words.js": ("words.js", "text/javascript; charset=utf-8"),
          "/style.css": ("style.css", "text/css; charset=utf-8")}
HOST = "127.0.0.1"
HOSTNAMES = ("127.0.0.1", "localhost")
MAX_BODY = 16 * 1024            # an action
MAX_JOURNAL = 512 * 1024        # a journal to analyse (a long game is 20-60 KB)
JOURNAL_TYPES = ("application/x-ndjson", "text/plain")
POLL_S = 0.05          # an event stream looks for new lines this often
KEEPALIVE_S = 15.0     # ... and sends a comment after this long without one
EVENT_ID = re.compile(r"^[0-9]{1,15}$")
IDLE_S = 10.0          # a request must arrive whole within this; a write be taken
MAX_CLIENTS = 32       # connections at once (a page holds one event stream and a few)


def _error(code, text):
    return Response({"error": text, "status": code}, code)


class QuietMicrodot(Microdot):
    """Microdot whose unparsable requests get a plain 400 instead of a traceback on
    the terminal (a bad request line or header is the client's error, not ours)."""

    async def handle_request(self, reader, writer):
        bad = _error(400, "bad request")
        try:
            req = await Request.create(self, reader, writer,
                                       writer.get_extra_info("peername"))
        except TimeoutError:
            # (before OSError, its base class) a request that took too long to come
            req = None
            bad = _error(408, "the request took over %g s" % getattr(reader, "seconds", 0))
        except (ValueError, IndexError, UnicodeError, OSError):
            req = None
        if req is None:
            try:
                await bad.write(writer)
                await writer.aclose()
            except OSError:
                pass
            return
        # the request is read: let microdot answer it (it reads nothing more)
        res = await self.dispatch_request(req)
        try:
            if res != Response.already_handled:
                await res.write(writer)
            await writer.aclose()
        except OSError:
            pass


def make_app(hub):
    # microdot's limits are class-wide: a body over MAX_JOURNAL gets 413 unread, one
    # over MAX_BODY is left unread for the handler (only /api/analyse reads more)
    Request.max_content_length = MAX_JOURNAL
    Request.max_body_length = MAX_BODY
    app = QuietMicrodot()
    analyses = Analyses(hub)
    app.analyses = analyses

    @app.before_request
    def only_loopback(req):
        peer = req.client_addr[0] if req.client_addr else None
        if peer != HOST:
            return _error(403, "only 127.0.0.1 is served")
        host = (req.headers.get("Host") or "").rsplit(":", 1)[0]
        if host not in HOSTNAMES:
            return _error(403, "Host must be 127.0.0.1 or localhost")
        if "Transfer-Encoding" in req.headers:
            return _error(411, "send a Content-Length, not a chunked body")
        if req.method not in ("GET", "HEAD"):
            why = cross_origin(req)
            if why:
                return _error(403, why)
        return None

    @app.after_request
    def no_cache(req, res):
        res.headers["Cache-Control"] = "no-store"
        res.headers["X-Content-Type-Options"] = "nosniff"
        return res

    for code, text in ((404, "not found"), (405, "method not allowed"),
                       (413, "body too large (at most %d bytes)" % MAX_JOURNAL),
                       (400, "bad request")):
        app.errorhandler(code)(lambda req, code=code, text=text: _error(code, text))

    def static(path):
        name, ctype = STATIC[path]
        with open(os.path.join(WEB, name), "rb") as f:
            return Response(f.read(), 200, {"Content-Type": ctype,
                                            "Cache-Control": "no-store",
                                            "X-Content-Type-Options": "nosniff"})

    for path in STATIC:
        app.route(path, methods=["GET"])(lambda req, path=path: static(path))

    @app.get("/api/state")
    def state(req):
        return hub.state()

    @app.post("/api/action")
    def action(req):
        ctype = (req.headers.get("Content-Type") or "").split(";")[0].strip()
        if ctype != "application/json":
            return _error(415, "send the action as application/json")
        if "Content-Length" not in req.headers:
            return _error(411, "Content-Length required")
        if req.content_length > MAX_BODY:
            return _error(413, "an action is at most %d bytes" % MAX_BODY)
        try:
            a = json.loads(req.body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return _error(400, "the body is not JSON")
        except RecursionError:
            return _error(400, "the body is nested too deeply")
        try:
            return hub.action(a)
        except ActionError as e:
            return _error(e.code, str(e))

    @app.get("/api/moves")
    def moves(req):
        try:
            return hub.moves()
        except ActionError as e:
            return _error(e.code, str(e))

    @app.get("/api/log")
    def game_log(req):
        if req.args.get("game") is None and hub.gid is None:
            # before the first game: what the page's log shows so far
            return Response("".join(it["text"] + "\n" for it in hub.feed[hub.feed.first:]),
                            200, {"Content-Type": "text/plain; charset=utf-8",
                                  "Content-Disposition": 'attachment; filename="nardy-'
                                  'session-%s.txt"' % datetime.date.today().isoformat()})
        gid = _game_id(req, hub)
        if not isinstance(gid, int):
            return gid                      # the error response
        try:
            lines = hub.game_log(gid)
        except ActionError as e:
            return _error(e.code, str(e))
        if not lines:
            return _error(404, "the board has no game %d" % gid)
        return Response("".join(ln + "\n" for ln in lines), 200, {
            "Content-Type": "application/x-ndjson",
            "Content-Disposition": 'attachment; filename="%s"' % download_name(lines, gid)})

    @app.get("/api/analyse")
    async def analyse_game(req):
        gid = _game_id(req, hub)
        if not isinstance(gid, int):
            return gid                      # the error response
        return await analyses.run(analyses.board_game, gid)

    @app.post("/api/analyse")
    async def analyse_file(req):
        ctype = (req.headers.get("Content-Type") or "").split(";")[0].strip()
        if ctype not in JOURNAL_TYPES:
            return _error(415, "send the journal as application/x-ndjson or text/plain")
        if "Content-Length" not in req.headers:
            return _error(411, "Content-Length required")
        n = req.content_length
        body = req.body
        if n > len(body):
            # over MAX_BODY: microdot left it in the stream
            try:
                body = await req.stream.readexactly(n)
            except (asyncio.IncompleteReadError, OSError):
                return _error(400, "the body ended before its Content-Length")
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            return _error(400, "the journal is not UTF-8 text")
        return await analyses.run(analyses.journal, text.splitlines())

    @app.get("/api/events")
    async def events(req):
        since = req.args.get("since", "0")
        last = req.headers.get("Last-Event-ID")
        if last is not None:
            if not EVENT_ID.match(last):
                return _error(400, "Last-Event-ID must be a line number")
            i = int(last) + 1
        elif not EVENT_ID.match(since):
            return _error(400, "since must be a number >= 0")
        else:
            i = int(since)
        return sse_response(req, stream, hub, i)

    return app


class Analyses:
    """``nardy analyse`` for the page: one analysis at a time, in a worker thread of
    its own. A long game takes a second or more of CPU (and fetching a game from the
    board waits on the board): on the event loop that would freeze every event
    stream and request meanwhile."""

    def __init__(self, hub):
        self.hub = hub
        self.pool = concurrent.futures.ThreadPoolExecutor(
            1, thread_name_prefix="nardy-analyse")
        self.busy = threading.Lock()

    async def run(self, job, *args):
        """The job's result as the reply; its ActionError, or any failure, as a
        JSON error (never a traceback: the server goes on serving)."""
        if not self.busy.acquire(blocking=False):
            return _error(429, "an analysis is running: wait for it to finish")
        try:
            return await asyncio.get_running_loop().run_in_executor(self.pool, job, *args)
        except ActionError as e:
            return _error(e.code, str(e))
        except Exception as e:  # noqa: BLE001 - a bug must not take the server down
            return _error(500, "the analysis failed: %s: %s" % (type(e).__name__, e))
        finally:
            self.busy.release()

    def board_game(self, gid):
        lines = self.hub.game_log(gid)
        if not lines:
            raise ActionError(404, "the board has no game %d" % gid)
        return self.journal(lines)

    @staticmethod
    def journal(lines):
        try:
            return analyse.page_report(lines)
        except analyse.AnalyseError as e:
            raise ActionError(400, str(e)) from None


async def stream(req, sse, hub, i):
    """New log lines from number ``i``, and the newest LED and OLED frame whenever
    one changed, until the server stops or the page goes away."""
    frame_no = -1
    quiet = 0.0
    while not hub.stopping:
        items = hub.since(i)
        if items is None:
            await sse.send({"ev": "reset"})
            return
        for it in items:
            await sse.send(it, event_id=str(it["id"]))
        i += len(items)
        if frame_no != hub.frame_no:
            frame_no = hub.frame_no
            for k in ("leds", "oled"):
                f = hub.frames[k]
                if f is not None:
                    await sse.send(f)
        elif not items:
            quiet += POLL_S
            if quiet >= KEEPALIVE_S:
                quiet = 0.0
                await sse.send("idle", comment=True)
        await asyncio.sleep(POLL_S)


def cross_origin(req):
    """Why a request that changes something (every POST) comes from another site's
    page, or None. A browser names the page's origin (``Origin``, and
    ``Sec-Fetch-Site``) on every POST; it must be this server's own
    (``http://`` + the Host header, checked to be 127.0.0.1 or localhost). A client
    that is not a browser sends neither and is let through: no web page can make
    such a request. Without this, any page open in the browser could post a
    journal to /api/analyse (a "simple" text/plain request: no CORS preflight)
    and burn this machine's CPU, or play on the board."""
    origin = req.headers.get("Origin")
    if origin is not None and origin != "http://" + (req.headers.get("Host") or ""):
        return "cross-origin requests are refused (Origin %s)" % origin[:80]
    site = req.headers.get("Sec-Fetch-Site")
    if site is not None and site not in ("same-origin", "none"):
        return "cross-origin requests are refused (Sec-Fetch-Site %s)" % site[:20]
    return None


def _game_id(req, hub):
    """The game a request names (``?game=N``; none: the current one), or the error
    response that refuses it."""
    g = req.args.get("game")
    if g is None:
        if hub.gid is None:
            return _error(404, "no game yet")
        return hub.gid
    if not g.isascii() or not g.isdigit() or len(g) > 9:
        return _error(400, "game must be a number")
    return int(g)


def download_name(lines, gid):
    """nardy-short-game3-2026-11-22.jsonl: the variant from the journal's game record,
    the date of the download."""
    variant = "game"
    try:
        first = json.loads(lines[0])
        if first.get("variant") in ("long", "short"):
            variant = first["variant"]
    except (ValueError, AttributeError, IndexError):
        pass
    return "nardy-%s-game%d-%s.jsonl" % (variant, gid, datetime.date.today().isoformat())


class _Reader:
    """asyncio's StreamReader with a deadline: the whole request (line, headers,
    body) must arrive within ``seconds`` of the connection, or the read raises
    TimeoutError (answered 408, the socket closed). A client that sends a byte now
    and then (slowloris) holds no socket longer than that."""

    def __init__(self, r, seconds):
        self.r = r
        self.seconds = seconds
        self.deadline = asyncio.get_running_loop().time() + seconds

    async def _within(self, aw):
        left = self.deadline - asyncio.get_running_loop().time()
        if left <= 0:
            raise TimeoutError("request deadline passed")
        return await asyncio.wait_for(aw, left)

    async def readline(self):
        return await self._within(self.r.readline())

    async def read(self, n=-1):
        return await self._within(self.r.read(n))

    async def readexactly(self, n):
        return await self._within(self.r.readexactly(n))


class _Writer:
    """asyncio's StreamWriter with the ``awrite``/``aclose`` that microdot expects
    (MicroPython's streams have them). A write the client does not take within
    ``seconds`` (a page that stopped reading its event stream) fails with
    TimeoutError, an OSError: the response ends and the socket is closed."""

    def __init__(self, w, seconds=None):
        self.w = w
        self.seconds = seconds

    def get_extra_info(self, name):
        return self.w.get_extra_info(name)

    async def awrite(self, data):
        self.w.write(data)
        await asyncio.wait_for(self.w.drain(), self.seconds)

    async def aclose(self):
        self.w.close()
        with contextlib.suppress(OSError):
            await self.w.wait_closed()


async def _refuse(writer, n):
    """503 to a connection over the cap, unread, and the socket closed."""
    body = json.dumps({"error": "too many clients (at most %d)" % n, "status": 503})
    writer.write(("HTTP/1.0 503 Service Unavailable\r\nContent-Type: application/json"
                  "\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s"
                  % (len(body), body)).encode())
    with contextlib.suppress(OSError):
        await writer.drain()
        writer.close()
        await writer.wait_closed()


class Server:
    """The web server on ``host`` (127.0.0.1) for one hub, on asyncio in a background
    thread."""

    def __init__(self, hub, port=0, host=HOST, idle_s=IDLE_S, max_clients=MAX_CLIENTS):
        import socket
        self.hub = hub
        self.app = make_app(hub)
        self.idle_s = idle_s
        self.max_clients = max_clients
        self.clients = 0        # connections open now (event streams included)
        # bind here, so that a busy port is an error now and port 0 gets a free one
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self.sock.bind((host, port))
        except OSError:
            self.sock.close()
            raise
        self.sock.listen(16)
        self.address = self.sock.getsockname()
        self.port = self.address[1]
        self.url = "http://%s:%d/" % (host, self.port)
        self.loop = None
        self._ready = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        self.loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self.loop)

        async def main():
            async def serve(reader, writer):
                if self.clients >= self.max_clients:
                    await _refuse(writer, self.max_clients)
                    return
                self.clients += 1
                try:
                    await self.app.handle_request(_Reader(reader, self.idle_s),
                                                  _Writer(writer, self.idle_s))
                finally:
                    self.clients -= 1
            self.server = await asyncio.start_server(serve, sock=self.sock)
            self._ready.set()
            async with self.server:
                with contextlib.suppress(asyncio.CancelledError):
                    await self.server.serve_forever()

        try:
            self.loop.run_until_complete(main())
            # event streams end by themselves once the hub stops; wait for them
            rest = [t for t in asyncio.all_tasks(self.loop) if not t.done()]
            if rest:
                self.loop.run_until_complete(asyncio.wait(rest, timeout=2))
            for t in rest:
                t.cancel()
        finally:
            self.loop.close()

    def start(self):
        self.thread.start()
        self._ready.wait(30)
        return self

    def stop(self):
        self.hub.stopping = True
        if self.loop is not None and self.loop.is_running():
            self.loop.call_soon_threadsafe(self.server.close)
        self.thread.join(10)
        self.app.analyses.pool.shutdown(wait=False, cancel_futures=True)


def serve(hub, port, open_browser):
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
    tmp = None
    data = args.data
    if data is None:
        tmp = tempfile.mkdtemp(prefix="nardy-sim-")
        data = os.path.join(tmp, "flash")
    s = Session(lambda cb: VirtualLink(data, cb, flash_size=args.flash_size,
                                       web=getattr(args, "board_page", None)),
                noise=args.noise_counts, seed=0)
    s.listeners.append(_say_board_page)
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


def _say_board_page(ev):
    """``--board-page``: where the virtual board serves its own page, and the
    owner's password (its ``web`` event on the USB line), on the terminal."""
    if ev is None or ev.get("ev") != "web":
        return
    if ev.get("url"):
        print("the board's own page: %s  (owner's password: %s)" % (
            ev["url"], ev.get("password")), flush=True)
    else:
        print("the board's own page is not served: %s" % ev.get("error"), flush=True)


def run_live(args):
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
