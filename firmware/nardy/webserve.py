"""The board's own page (issue 26): the simulator's page (``nardy sim``), served by
the board itself with microdot on MicroPython, to anyone on its network.

Loaded only when the page is served (``start``: the virtual board's ``--web=PORT``,
or a ``web.on`` file on the board's flash, which ``nardy deploy --web`` writes and
``nardy.hal_esp32.web_on`` reads); a board without it never imports this module,
microdot nor ``nardy.webauth``. Without heap enough for it (``_MIN_FREE`` once microdot is
loaded: a board without PSRAM) it says so on USB and the game goes on without it.
microdot itself is not in this repository: ``nardy deploy`` installs the host's
pip-installed package on the board (compiled with mpy-cross), and the virtual board
finds it on ``MICROPYPATH``.

The page's files (``index.html``, ``app.js``, ``words.js``, ``style.css``) come
from a ``web/`` folder: the flash's ``DATA/web``, else the first on ``sys.path``
(the ROMFS ``/rom/web``, the flash's ``/web``, the compiled firmware's ``web/``).

Endpoints (the simulator's, docs/SIMULATOR.md, where the board has them):

- ``GET /``, ``/app.js``, ``/words.js``, ``/style.css``: the page, from flash.
- ``GET /api/state``: the snapshot the page draws (``mode`` "board"); anyone.
- ``GET /api/events?since=N``: Server-Sent Events: log lines (``id`` = number),
  the newest LED and OLED frames; anyone (at most ``_STREAMS`` at once).
- ``POST /api/login`` ``{"password": ...}``: the owner's session (a cookie,
  ``HttpOnly; SameSite=Strict``) and its CSRF token; wrong passwords are limited
  (``nardy.webauth``). ``POST /api/logout`` ends it.
- ``POST /api/action``: the owner's actions: ``new``, ``press``, ``lang``,
  ``set`` (``settings``: brightness, dice, bot, auto_end, lang), ``delete``
  (``game``: a finished game, the protocol's ``confirm``).
- ``GET /api/games``, ``GET /api/log?game=N``: the owner's list of games and a
  game's journal, the file ``nardy log`` saves.

Every POST must come from the page itself: an ``Origin`` (and ``Sec-Fetch-Site``)
naming another site is refused, and every POST but the login needs the session's
cookie and its token in an ``X-Nardy-Token`` header (a page of another origin can
send neither: the header needs a CORS preflight the board never allows).
"""

import asyncio
import gc
import json
import sys
import time

from micropython import const

from nardy import webauth
from nardy.notation import point_label

_KEEP = const(32)          # log lines kept for the page (a reload draws the newest)
_POLL_MS = const(25)       # an event stream looks for news this often
_IDLE_POLLS = const(600)   # ... and sends a comment after this many quiet looks
_STREAMS = const(4)        # event streams at once (each holds a socket and buffers)
_BACKLOG = const(4)        # events waiting for a page's socket before it is slowed
_STALL_POLLS = const(400)  # ... and after this many looks (10 s) still waiting, dropped
_MAX_BODY = const(1024)    # a POST's body
# Free heap the game keeps once microdot is loaded, or the page is not served: at
# 112wK (a board without PSRAM) ~28 KB is left then, ~7 KB once the server runs, and
# the page's requests failed with MemoryError while starving the game (NETWORK.md).
_MIN_FREE = const(32768)
_TYPES = {"html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8",
          "css": "text/css; charset=utf-8"}
_FILES = ("index.html", "app.js", "words.js", "style.css")
_SETTABLE = ("brightness", "dice", "bot", "auto_end", "lang")
_COOKIE = "nardy_s"

_web = None


def _seconds():
    """The board's real clock in seconds (the game's clock is the board's own)."""
    return int(time.time())


def web_root(data_dir):
    """The folder holding the page's files (see the module's notes), or None."""
    import os
    for d in [data_dir] + [p for p in sys.path if isinstance(p, str)]:
        try:
            os.stat(d + "/web/index.html")
            return d + "/web"
        except OSError:
            pass
    return None


def _zones(game):
    """The checkers by board zone, as the page draws a reported position:
    ``{"13": ["wwwww"], ...}`` (P-numbers; 25 the bar, 26/27 the trays)."""
    v, pos = game.variant, game.pos
    out = {}
    if v is None or pos is None:
        return out
    for c in (0, 1):
        for k in range(26):
            n = pos.count(c, k)
            if n:
                z = str(25 if k == 0 else (26 + c if k == 25 else v.physical(c, k)))
                out[z] = [out.get(z, [""])[0] + "wb"[c] * n]
    return out


def _label(v, c, k):
    """Side ``c``'s path point ``k`` in the board's printed labels (as the USB log)."""
    return point_label(v, k, True, c)


class Web:
    """What the page sees: the log's newest lines, the board's frames, the owner."""

    def __init__(self, app, root, password):
        self.app = app
        self.root = root
        self.guard = webauth.Guard(password, app.board.urandom, _seconds)
        self.lines = []            # the newest log items (dicts), at most _KEEP
        self.n = 0                 # the number of the next line
        self.dice = None
        self.mover = 0
        self.in_progress = False
        self.capture = None        # error texts while the page's command runs
        self.streams = 0
        emit = app.emit

        def tap(ev):
            emit(ev)
            try:
                self.see(ev)
            except Exception:  # noqa: BLE001 - the page must never break the game
                pass
        app.emit = app.game.emit = tap

    # -- the log ---------------------------------------------------------------------
    def see(self, ev):
        k = ev.get("ev")
        if k == "error" and self.capture is not None:
            self.capture.append(ev.get("error"))
        text = self.describe(k, ev, ev.get("rec") or {})
        if text is None:
            return
        self.lines.append({"id": self.n, "ev": k, "text": text,
                           "warn": k == "warn" and not ev.get("clear")})
        self.n += 1
        del self.lines[:-_KEEP]

    def describe(self, k, ev, r):
        """One line of the page's log for a board event (None: not shown), in the
        board's printed labels (one numbering at the table)."""
        g = self.app.game
        if k == "game":
            self.in_progress = False
            self.dice = None
            return "game %s: %s nardy" % (ev.get("game"), r.get("variant"))
        if k == "roll":
            if r.get("r") == "open":
                w, b = (r.get("rolls") or [[0, 0]])[-1]
                return "opening roll: white %s, black %s" % (w, b)
            self.in_progress = True
            self.mover = 0 if r.get("side") == "white" else 1
            self.dice = r.get("dice")
            return "%s rolls %s" % (r.get("side"), "-".join(str(d) for d in self.dice or ()))
        if k == "step":
            mv = "%s/%s" % (_label(g.variant, self.mover, r.get("from")),
                            _label(g.variant, self.mover, r.get("to")))
            return ("%s takes back %s" if r.get("r") == "undo" else "%s %s") % (
                ("white", "black")[self.mover], mv)
        if k == "turn":
            c = 0 if r.get("side") == "white" else 1
            self.dice = None
            steps = " ".join("%s/%s" % (_label(g.variant, c, f), _label(g.variant, c, t))
                             for f, t in r.get("steps") or ())
            return "%s played %s" % (r.get("side"), steps or "nothing (no legal move)")
        if k == "warn":
            if ev.get("clear"):
                return "warning cleared"
            return "warning %s: %s" % (r.get("rule"), r.get("text"))
        if k == "game_end":
            self.in_progress = False
            self.dice = None
            if r.get("winner") is None:
                return "game over: %s, nobody scores" % (r.get("kind") or "no winner")
            return "game over: %s wins, +%s" % (r.get("winner"), r.get("points"))
        if k == "refused":
            return "refused: %s" % ev.get("text")
        if k == "error":
            return "board error: %s" % ev.get("error")
        return None

    # -- the snapshot ----------------------------------------------------------------
    def frames(self):
        """(LEDs, OLED) as hex, as the virtual board sends them."""
        import binascii
        app = self.app
        d = app.board.display
        fb = None if d is None else binascii.hexlify(d.buffer).decode()
        return binascii.hexlify(app.frame).decode(), fb

    def state(self, token):
        app = self.app
        g = app.game
        leds, oled = self.frames()
        s = {"mode": "board", "virtual": False, "on": True, "board": _zones(g),
             "hand": [], "led_zones": list(app.board.pinmap.led_zones), "leds": leds,
             "oled": oled, "game": g.gid, "variant": g.variant.name if g.variant else None,
             "match": g.match.length if g.match is not None else None,
             "in_progress": self.in_progress, "games": [], "dice": self.dice,
             "log": self.lines, "feed": self.n, "owner": token is not None}
        if token is not None:
            s["token"] = token
        return s

    # -- the owner's actions -----------------------------------------------------------
    def command(self, cmd):
        """A protocol command run as if it came over USB; the board's error, if
        any, as a ValueError."""
        self.capture = []
        try:
            self.app.handle(json.dumps(cmd))
            errors = self.capture
        finally:
            self.capture = None
        if errors:
            raise ValueError(errors[0])

    def action(self, a):
        kind = a.get("action")
        if kind == "new":
            self.command({"cmd": "new", "variant": a.get("variant", "long"),
                          "match": a.get("match", 1)})
        elif kind == "press":
            name, press = a.get("button"), a.get("kind", "short")
            if name not in ("ok", "back", "menu") or press not in ("short", "long"):
                raise ValueError("button must be ok, back or menu; kind short or long")
            self.app.button(name, press)
        elif kind == "lang":
            self.command({"cmd": "set", "lang": a.get("lang")})
        elif kind == "set":
            s = a.get("settings")
            if not isinstance(s, dict) or not s or any(k not in _SETTABLE for k in s):
                raise ValueError("settings: an object of %s" % ", ".join(_SETTABLE))
            cmd = dict(s)
            cmd["cmd"] = "set"
            self.command(cmd)
        elif kind == "delete":
            self.command({"cmd": "confirm", "game": a.get("game")})
        elif kind in ("lift", "place", "move", "setup", "dice"):
            raise LookupError("the checkers and dice of a real board are the board's")
        else:
            raise ValueError("unknown action")

    def journal_lines(self, gid):
        """A game's lines as ``nardy log`` saves them (each raw line of the journal,
        with its newline), one at a time: a long game never in RAM whole."""
        r = self.app.journal.reader(gid)
        if r is None:
            return None

        def lines():
            for _ in r:
                yield r.raw.decode().rstrip() + "\n"
        return lines()


def _error(code, text, headers=None):
    from microdot import Response
    return Response({"error": text, "status": code}, code, headers)


def _cross_origin(req):
    """Why a POST comes from another site's page, or None (docs/NETWORK.md)."""
    origin = req.headers.get("Origin")
    if origin is not None and origin != "http://" + (req.headers.get("Host") or ""):
        return "cross-origin requests are refused"
    site = req.headers.get("Sec-Fetch-Site")
    if site is not None and site not in ("same-origin", "none"):
        return "cross-origin requests are refused"
    return None


def _body(req):
    """The POST's JSON object, or an error response."""
    ctype = (req.headers.get("Content-Type") or "").split(";")[0].strip()
    if ctype != "application/json":
        return _error(415, "send application/json")
    try:
        a = json.loads(req.body.decode())
    except (ValueError, UnicodeError):
        return _error(400, "the body is not JSON")
    if not isinstance(a, dict):
        return _error(400, "the body must be a JSON object")
    return a


def make_app(web):
    from microdot import Microdot, Request, Response
    from microdot import microdot as core

    def quiet(exc):
        # microdot prints a failed request's traceback on stdout: on a board that is
        # the USB line, where the host reads protocol events. errors.log instead
        web.app.log_error("web: %s: %s" % (type(exc).__name__, exc))
    core.print_exception = quiet
    Request.max_content_length = _MAX_BODY
    Request.max_body_length = _MAX_BODY
    Request.max_readline = 1024
    m = Microdot()

    def session(req):
        """The owner's CSRF token when the request carries a session, else None."""
        return web.guard.token(req.cookies.get(_COOKIE))

    def owner_post(req):
        """None for the owner's own page; else the refusing response."""
        tok = session(req)
        if tok is None:
            return _error(401, "log in as the board's owner first")
        if not webauth.same(req.headers.get("X-Nardy-Token"), tok):
            return _error(403, "the page's token is missing or wrong")
        return None

    @m.before_request
    def checks(req):
        if req.method not in ("GET", "HEAD"):
            why = _cross_origin(req)
            if why:
                return _error(403, why)
        return None

    @m.after_request
    def no_cache(req, res):
        res.headers["Cache-Control"] = "no-store"
        res.headers["X-Content-Type-Options"] = "nosniff"
        return res

    def static(req, name):
        return Response.send_file(web.root + "/" + name,
                                  content_type=_TYPES[name.rsplit(".", 1)[1]])

    m.route("/", methods=["GET"])(lambda req: static(req, "index.html"))
    for n in _FILES:
        m.route("/" + n, methods=["GET"])(lambda req, n=n: static(req, n))

    @m.get("/api/state")
    def state(req):
        return web.state(session(req))

    @m.post("/api/login")
    def login(req):
        a = _body(req)
        if not isinstance(a, dict):
            return a
        try:
            sid, tok = web.guard.login(a.get("password"))
        except webauth.Refused as e:
            return _error(e.code, str(e), {"Retry-After": str(e.wait)} if e.wait else None)
        return Response({"ok": True, "token": tok}, 200, {
            "Set-Cookie": "%s=%s; Path=/; HttpOnly; SameSite=Strict" % (_COOKIE, sid)})

    @m.post("/api/logout")
    def logout(req):
        bad = owner_post(req)
        if bad:
            return bad
        web.guard.logout(req.cookies.get(_COOKIE))
        return Response({"ok": True}, 200, {
            "Set-Cookie": "%s=; Path=/; Max-Age=0; SameSite=Strict" % _COOKIE})

    @m.post("/api/action")
    def action(req):
        bad = owner_post(req)
        if bad:
            return bad
        a = _body(req)
        if not isinstance(a, dict):
            return a
        try:
            web.action(a)
        except LookupError as e:
            return _error(409, str(e))
        except (ValueError, TypeError) as e:
            return _error(400 if "unknown" in str(e) else 409, str(e))
        return {"ok": True, "feed": web.n}

    @m.get("/api/games")
    def games(req):
        if session(req) is None:
            return _error(401, "log in as the board's owner first")
        from nardy import jindex
        gc.collect()
        ids, nxt = jindex.index_page(web.app.journal, 0, 8)
        return {"games": ids, "next": nxt}

    @m.get("/api/log")
    def game_log(req):
        if session(req) is None:
            return _error(401, "log in as the board's owner first")
        g = req.args.get("game")
        gid = web.app.game.gid if g is None else (int(g) if g.isdigit() and len(g) < 9
                                                    else -1)
        if gid is None:
            return _error(404, "no game yet")
        if gid < 0:
            return _error(400, "game must be a number")
        body = web.journal_lines(gid)
        if body is None:
            return _error(404, "the board has no game %d" % gid)
        return Response(body, 200, {
            "Content-Type": "application/x-ndjson",
            "Content-Disposition": 'attachment; filename="g%05d.jsonl"' % gid})

    @m.get("/api/events")
    def events(req):
        from microdot.sse import sse_response
        since = req.args.get("since", "0")
        last = req.headers.get("Last-Event-ID")
        i = int(last) + 1 if last and last.isdigit() else (
            int(since) if since.isdigit() else 0)
        if web.streams >= _STREAMS:
            return _error(503, "too many pages watching (at most %d)" % _STREAMS)
        return sse_response(req, _stream, web, i)

    return m


async def _stream(req, sse, web, i, stall=_STALL_POLLS):
    """New log lines from number ``i`` and the newest LED and OLED frames whenever
    they change, until the page goes away (or stops reading for ``stall`` looks)."""
    import binascii
    web.streams += 1
    try:
        sent = (None, None)
        quiet = 0
        stalled = 0
        while True:
            # microdot's SSE queues what is sent without a limit: a page that stops
            # reading (a phone asleep) would fill the board's heap. Wait for it; drop
            # it when it does not come back (its EventSource reconnects from the
            # last line it has)
            if len(sse.queue) > _BACKLOG:
                stalled += 1
                if stalled > stall:
                    return
                await asyncio.sleep_ms(_POLL_MS)
                continue
            stalled = 0
            first = web.n - len(web.lines)
            if i < first:
                await sse.send({"ev": "reset"})
                return
            for it in web.lines[i - first:]:
                await sse.send(it, event_id=str(it["id"]))
                i += 1
                quiet = 0
            app = web.app
            d = app.board.display
            now = (binascii.crc32(app.frame),
                   None if d is None else binascii.crc32(d.buffer))
            if now != sent:
                leds, oled = web.frames()
                if now[0] != sent[0]:
                    await sse.send({"ev": "leds", "rgb": leds})
                if oled is not None and now[1] != sent[1]:
                    await sse.send({"ev": "oled", "w": 128, "h": 64, "fb": oled})
                sent = now
                quiet = 0
            quiet += 1
            if quiet >= _IDLE_POLLS:
                quiet = 0
                await sse.send("idle", event="ping")
            await asyncio.sleep_ms(_POLL_MS)
    finally:
        web.streams -= 1


def start(app):
    """Serve the page (once) at the board's ``web`` (host, port): the virtual
    board's ``--web=PORT`` (127.0.0.1), a board's ``web.on``
    (``nardy.hal_esp32.web_on``). Says where on USB, with the owner's password (USB
    is the owner's own line)."""
    global _web
    if _web is not None:
        return _web
    b = app.board
    host, port = b.web
    root = web_root(app.dir)
    if root is None:
        app.emit({"ev": "web", "error": "no web/index.html on flash: nardy deploy --web"})
        return None
    try:
        import microdot  # noqa: F401
    except ImportError:
        app.emit({"ev": "web", "error": "no microdot: nardy deploy --web installs it"})
        return None
    gc.collect()
    free = gc.mem_free() if hasattr(gc, "mem_free") else _MIN_FREE
    if free < _MIN_FREE:
        from nardy import drop_module
        for name in ("microdot", "microdot.microdot", "microdot.helpers", "nardy.webauth",
                     "nardy.webserve"):
            drop_module(name)
        app.emit({"ev": "web", "error": "not enough heap for the page (%d bytes free "
                  "with microdot loaded, %d needed): a board with PSRAM serves it"
                  % (free, _MIN_FREE)})
        return None
    _web = Web(app, root, webauth.owner_password(app.dir, b.urandom))
    m = make_app(_web)
    asyncio.create_task(_serve(_web, m, host, port))
    return _web


async def _serve(web, m, host, port):
    """microdot's server; the ``web`` event once it listens (a page may be asked for
    at once), or why it cannot."""
    app = web.app
    listening = asyncio.create_task(_listening(web, m, host, port))
    try:
        await m.start_server(host=host, port=port)
    except OSError as e:
        listening.cancel()
        app.emit({"ev": "web", "error": "cannot serve on %s:%d: %s" % (host, port, e)})


async def _listening(web, m, host, port):
    while getattr(m, "server", None) is None:
        await asyncio.sleep_ms(5)
    web.app.emit({"ev": "web", "url": "http://%s:%d/" % (host, port),
                  "password": web.guard.password})
