"""The board's own page (issue 26 point 2): the virtual board serves the simulator's
page itself (microdot on the unix MicroPython port, ``nardy.webserve``), here at the
heap of an ESP32-S3 with PSRAM (512wK).

- a spectator page in real Chromium follows a game played through USB lines, line
  by line, with the board's position (the event -> page latency is printed: a
  figure for docs/NETWORK.md, never asserted);
- a wrong password is refused, and after five the login locks, even for the right
  one; the owner logs in on the page;
- a request that changes something without the session, without its token, or from
  another origin (also a page of another origin in the owner's browser) is refused;
- the journal downloaded from the page is the file ``nardy log`` saves; a finished
  game deleted from the page is gone.
"""

import functools
import http.server
import json
import os
import random
import statistics
import threading
import time
import urllib.error
import urllib.request

import pytest
from test_sim_web import WAIT, browser  # noqa: F401 (browser: a fixture)
from test_vboard import _state, play_turn
from vboard import ROOT, VBoard

from nardy_host import log as nardy_log
from nardy_host.analyse import board_zones
from nardy_host.mpunix import virtual_board_cmd, web_env

HEAP = "512wK"


def _free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_board(data, heap=HEAP, serving=True):
    """A virtual board serving its page; ``url`` and the owner's ``password`` from
    its ``web`` event on USB (``serving`` False: the event, whatever it says)."""
    b = VBoard(data, env=web_env(),
               cmd=virtual_board_cmd(data, heap=heap, web=_free_port()))
    ev = b.wait("web")
    if not serving:
        b.web_event = ev
        return b
    assert "url" in ev, ev
    b.url = ev["url"].rstrip("/")
    b.password = ev["password"]
    return b


@pytest.fixture()
def board(tmp_path):
    b = start_board(str(tmp_path / "flash"))
    yield b
    b.p.kill()
    b.p.wait()


def call(b, path, body=None, headers=None, method=None, cookie=None, token=None,
         origin="same"):
    """(status, headers, body bytes). ``origin`` "same": the page's own Origin, as a
    browser sends it on a POST; None: none (a client that is not a browser)."""
    h = dict(headers or {})
    data = None
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        h.setdefault("Content-Type", "application/json")
    if origin == "same":
        origin = b.url
    if origin is not None and (data is not None or method == "POST"):
        h["Origin"] = origin
    if cookie:
        h["Cookie"] = cookie
    if token is not None:
        h["X-Nardy-Token"] = token
    req = urllib.request.Request(b.url + path, data=data, headers=h, method=method)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def login(b, password=None):
    """(cookie, token) of an owner's session."""
    code, h, body = call(b, "/api/login", {"password": password or b.password})
    assert code == 200, body
    cookie = h["Set-Cookie"].split(";")[0]
    assert "HttpOnly" in h["Set-Cookie"] and "SameSite=Strict" in h["Set-Cookie"]
    return cookie, json.loads(body)["token"]


def new_game(b, variant="short"):
    b.send({"cmd": "new", "variant": variant, "match": 1})
    b.sync()
    v, pos, d = _state(b)
    b.sense(v, pos)
    b.button("ok")       # the opening roll
    b.sync()
    return d["game"]


def test_a_spectator_page_follows_the_board_live(board, browser):  # noqa: F811
    b = board
    page = browser.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(b.url + "/")
    page.wait_for_selector("body[data-ready='1']", timeout=WAIT)
    assert page.text_content("#mode") == "(the board's own page)"
    assert page.is_visible("#login") and not page.is_visible("#tab-analysis")
    assert not page.is_visible("#download")          # the journal is the owner's
    # every log line the page adds, with the browser's clock (the same machine's)
    page.evaluate("""() => { window.seen = [];
        new MutationObserver(ms => { for (const m of ms) for (const n of m.addedNodes)
            if (n.tagName === 'LI') window.seen.push([n.firstChild.textContent, Date.now()]);
        }).observe(document.getElementById('log'), {childList: true}); }""")
    turns = []                      # (the turn event, when the test read it off USB)
    read = b.read

    def timed():
        ev = read()
        if ev["ev"] == "turn":
            turns.append((ev, time.time()))
        return ev
    b.read = timed
    new_game(b)
    rng = random.Random(5)
    for _ in range(14):
        if play_turn(b, rng) is None:
            break
    assert len(turns) >= 10
    page.wait_for_function("n => window.seen.filter(s => / played /.test(s[0])).length >= n",
                           arg=len(turns), timeout=WAIT)
    seen = [s for s in page.evaluate("window.seen") if " played " in s[0]]
    assert len(seen) == len(turns)
    for (ev, _), (text, _) in zip(turns, seen, strict=True):
        assert text.startswith(ev["rec"]["side"] + " played "), (text, ev)
        n = len(ev["rec"]["steps"])
        assert n == 0 or text.count("/") == n, (text, ev)
    lat = [ms - t * 1000 for (_, t), (_, ms) in zip(turns, seen, strict=True)]
    print("\nboard page: USB turn event -> spectator page: median %.0f ms, max %.0f ms "
          "over %d turns (loopback, %s)" % (statistics.median(lat), max(lat), len(lat), HEAP))
    # the board the page draws is the board's position
    v, pos, _ = _state(b)
    code, _, body = call(b, "/api/state")
    assert code == 200
    st = json.loads(body)
    assert st["board"] == board_zones(v, pos)
    assert st["owner"] is False and "token" not in st
    page.wait_for_function("() => Number(document.body.dataset.oledFrames) > 1", timeout=WAIT)
    # a spectator's press is refused: the buttons are the owner's
    page.click('button[data-button="ok"]')
    page.wait_for_function("() => document.getElementById('status').textContent"
                           ".includes('log in')", timeout=WAIT)
    assert _state(b)[2]["phase"] == "move" or turns
    assert not errors, errors
    page.close()


def test_wrong_passwords_are_refused_then_locked_out(board, browser):  # noqa: F811
    b = board
    page = browser.new_page()
    page.goto(b.url + "/")
    page.wait_for_selector("body[data-ready='1']", timeout=WAIT)
    page.fill("#password", "not-the-password")
    page.click("#login-btn")
    page.wait_for_function("() => document.getElementById('owner-status').textContent"
                           ".includes('wrong password')", timeout=WAIT)
    assert page.get_attribute("body", "data-owner") == "0"
    # the owner logs in on the page: the session is the page's
    page.fill("#password", b.password)
    page.click("#login-btn")
    page.wait_for_selector("body[data-owner='1']", timeout=WAIT)
    assert page.is_visible("#download") and not page.is_visible("#login")
    page.click("#logout")
    page.wait_for_selector("body[data-owner='0']", timeout=WAIT)
    page.close()
    codes = [call(b, "/api/login", {"password": "guess-%d" % i})[0] for i in range(5)]
    assert codes == [401] * 5, codes
    code, h, body = call(b, "/api/login", {"password": "guess-5"})
    assert code == 429 and h["Retry-After"] == "30", (code, body)
    code, h, body = call(b, "/api/login", {"password": b.password})
    assert code == 429 and "Set-Cookie" not in h, (code, body)


def test_changes_need_the_session_its_token_and_the_same_origin(board, browser, tmp_path):  # noqa: F811
    b = board
    gid = new_game(b)
    new = {"action": "new", "variant": "long", "match": 1}
    for path in ("/api/games", "/api/log?game=%d" % gid):
        assert call(b, path)[0] == 401, path
    assert call(b, "/api/action", new)[0] == 401                  # no session
    cookie, token = login(b)
    assert call(b, "/api/action", new, cookie=cookie)[0] == 403   # no token
    assert call(b, "/api/action", new, cookie=cookie, token="0" * 32)[0] == 403
    code, _, body = call(b, "/api/action", new, cookie=cookie, token=token,
                         origin="http://evil.example")
    assert code == 403 and b"cross-origin" in body
    code, _, _ = call(b, "/api/action", new, cookie=cookie, token=token,
                      headers={"Sec-Fetch-Site": "cross-site"})
    assert code == 403
    assert b.dump()["game"] == gid                               # nothing changed
    # the owner's settings: checked by the board (a bad one changes nothing)
    code, _, body = call(b, "/api/action", {"action": "set", "settings": {"brightness": 40}},
                         cookie=cookie, token=token)
    assert code == 200, body
    assert b.dump()["settings"]["brightness"] == 40
    for bad in ({"brightness": 999}, {"mqtt": None}, {}):
        code, _, body = call(b, "/api/action", {"action": "set", "settings": bad},
                             cookie=cookie, token=token)
        assert code == 409, (bad, body)
    assert b.dump()["settings"]["brightness"] == 40
    # a page of another origin in the owner's browser (logged in there) posts to
    # the board: refused, nothing changes
    ctx = browser.new_context()
    page = ctx.new_page()
    page.goto(b.url + "/")
    page.wait_for_selector("body[data-ready='1']", timeout=WAIT)
    page.fill("#password", b.password)
    page.click("#login-btn")
    page.wait_for_selector("body[data-owner='1']", timeout=WAIT)
    evil_dir = tmp_path / "evil"
    evil_dir.mkdir()
    (evil_dir / "index.html").write_text("<!doctype html><title>evil</title>")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(evil_dir))
    evil = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    try:
        other = ctx.new_page()
        other.goto("http://127.0.0.1:%d/" % evil.server_address[1])
        for ctype in ("text/plain", "application/json"):
            other.evaluate("""([url, ctype]) => fetch(url + '/api/action', {method: 'POST',
                mode: 'no-cors', credentials: 'include', headers: {'Content-Type': ctype},
                body: JSON.stringify({action: 'new', variant: 'long', match: 1})})
                .catch(() => null)""", [b.url, ctype])
        time.sleep(0.5)
        assert b.dump()["game"] == gid
        # the owner's own page can: a new match from the page (it asks first: a game
        # is in progress)
        page.on("dialog", lambda d: d.accept())
        page.click("#new")
        page.wait_for_function("g => document.getElementById('log').textContent"
                               ".includes('game ' + g + ': short nardy')",
                               arg=gid + 1, timeout=WAIT)
        assert b.dump()["game"] == gid + 1
    finally:
        evil.shutdown()
        ctx.close()


class _Usb:
    """``nardy log``'s link over the virtual board's USB lines."""

    def __init__(self, b):
        self.b = b

    def send(self, obj):
        self.b.send(obj)

    def read(self, timeout):
        return self.b.read()


def test_the_journal_download_is_nardy_logs_file(board, tmp_path):
    b = board
    gid = new_game(b)
    rng = random.Random(11)
    for _ in range(400):
        if play_turn(b, rng) is None:
            break
    assert b.dump()["phase"] in ("game_end", "match_end")
    cookie, token = login(b)
    code, h, got = call(b, "/api/log?game=%d" % gid, cookie=cookie)
    assert code == 200 and h["Content-Type"] == "application/x-ndjson"
    lines = nardy_log.fetch(_Usb(b), gid)
    path = nardy_log.save(str(tmp_path), gid, lines)
    with open(path, "rb") as f:
        assert got == f.read()
    assert got.count(b"\n") > 40
    # the owner's list of games, then the finished game deleted from the page
    code, _, body = call(b, "/api/games", cookie=cookie)
    assert code == 200 and gid in [g["game"] for g in json.loads(body)["games"]]
    code, _, body = call(b, "/api/action", {"action": "delete", "game": gid},
                         cookie=cookie, token=token)
    assert code == 200, body
    assert call(b, "/api/log?game=%d" % gid, cookie=cookie)[0] == 404
    assert call(b, "/api/log?game=x1", cookie=cookie)[0] == 400
    assert call(b, "/api/log?game=999", cookie=cookie)[0] == 404


def _mem(b):
    b.send({"cmd": "mem"})
    return b.wait("mem")["free"]


def test_heap_with_the_page_served(tmp_path):
    """The figures for docs/NETWORK.md (printed): free heap after boot without and
    with the page, and after serving it, at 512wK (a board with PSRAM); at 112wK (no
    PSRAM) the board says it has not the heap and plays on without the page."""
    plain = VBoard(str(tmp_path / "plain"), heap=HEAP)
    free_plain = _mem(plain)
    plain.p.kill()
    b = start_board(str(tmp_path / "web"))
    try:
        free_boot = _mem(b)
        for p in ("/", "/app.js", "/words.js", "/style.css", "/api/state"):
            assert call(b, p)[0] == 200, p
        free_served = _mem(b)
    finally:
        b.p.kill()
        b.p.wait()
    print("\n%s: free after boot %d without the page, %d with it (the server: %d); "
          "%d after serving the page" % (HEAP, free_plain, free_boot, free_plain - free_boot,
                                         free_served))
    small = start_board(str(tmp_path / "small"), heap="112wK", serving=False)
    try:
        ev = small.web_event
        assert "url" not in ev and "not enough heap" in ev["error"], ev
        print("112wK: %s; free after boot %d" % (ev["error"], _mem(small)))
        gid = new_game(small)                       # the game goes on without it
        assert play_turn(small, random.Random(1)) is not None
        assert small.dump()["game"] == gid
    finally:
        small.p.kill()
        small.p.wait()


def test_deploy_web_stages_microdot_the_page_and_the_switch(tmp_path):
    from nardy_host import deploy
    from nardy_host.mpunix import WEB, WEB_FILES
    files = deploy.stage(str(tmp_path / "a"), "esp32s3", web=8080)
    mpy = tmp_path / "a" / "lib" / "microdot" / "microdot.mpy"
    assert ("lib/microdot/microdot.mpy", "lib/microdot/microdot.mpy") in files
    assert mpy.read_bytes()[0:1] == b"M"             # compiled, never the source
    assert not any(r.endswith(".py") for _, r in files if "microdot" in r)
    for name in WEB_FILES:
        assert ("web/" + name, "web/" + name) in files
        with open(os.path.join(WEB, name), "rb") as f:
            assert (tmp_path / "a" / "web" / name).read_bytes() == f.read()
    assert (tmp_path / "a" / "data" / "web.on").read_text() == "8080\n"
    assert ("data/web.on", "data/web.on") in files
    # with ROMFS the page's files are in the image, read in place
    files = deploy.stage(str(tmp_path / "b"), "esp32s3", romfs=True, web=80)
    assert (tmp_path / "b" / "rom" / "web" / "app.js").exists()
    assert not any(r.startswith("web/") for _, r in files)
    # without --web nothing of it
    files = deploy.stage(str(tmp_path / "c"), "esp32s3")
    assert not any("microdot" in r or r == "data/web.on" for _, r in files)
    # microdot is never copied into this repository
    assert not any("microdot" in n.lower() and n.endswith(".py")
                   for _, _, names in os.walk(os.path.join(ROOT, "firmware")) for n in names)


def test_nardy_sim_board_page_serves_the_boards_own_page(tmp_path):
    """The README's command: ``nardy sim --board-page PORT`` says where the board's
    own page is and the owner's password, and the password opens a session there."""
    import re
    import subprocess
    import sys
    port = _free_port()
    exe = os.path.join(os.path.dirname(sys.executable), "nardy")
    p = subprocess.Popen([exe, "sim", "--no-browser", "--board-page", str(port), "--data",
                          str(tmp_path / "d")], stdout=subprocess.PIPE, text=True)
    said = []
    threading.Thread(target=lambda: said.extend(iter(p.stdout.readline, "")),
                     daemon=True).start()
    try:
        m = None
        deadline = time.monotonic() + 60
        while m is None and time.monotonic() < deadline and p.poll() is None:
            time.sleep(0.1)
            m = re.search(r"the board's own page: (\S+)/  \(owner's password: (\S+)\)",
                          "".join(said))
        assert m and m.group(1) == "http://127.0.0.1:%d" % port, said

        class B:
            url, password = m.group(1), m.group(2)
        assert call(B, "/")[0] == 200
        cookie, _ = login(B)
        assert call(B, "/api/games", cookie=cookie)[0] == 200
    finally:
        p.terminate()
        p.wait(30)
        p.stdout.close()


def test_hostile_requests_never_reach_the_usb_line(board):
    """Malformed requests get an HTTP error; nothing but protocol events reaches USB
    (microdot would print a traceback on stdout, the board's USB line), and the game
    goes on."""
    import socket
    host, port = board.url[len("http://"):].split(":")
    for data in (b"GARBAGE\r\n\r\n", b"GET / HTTP/1.0\r\nX: " + b"a" * 5000 + b"\r\n\r\n",
                 b"POST /api/login HTTP/1.0\r\nContent-Type: application/json\r\n"
                 b"Content-Length: 99999\r\n\r\n{}",
                 b"POST /api/login HTTP/1.0\r\nContent-Type: application/json\r\n"
                 b"Content-Length: 5\r\n\r\n\xff\xfe{}}"):
        with socket.create_connection((host, int(port)), timeout=30) as s:
            s.sendall(data)
            got = s.recv(200)
        assert got.startswith(b"HTTP/1.0 4"), (data[:40], got)
    gid = new_game(board)           # every line read on USB is JSON (VBoard.read)
    board.sync()
    assert board.dump()["game"] == gid


def test_a_port_in_use_is_said_and_the_game_goes_on(tmp_path):
    import socket
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        data = str(tmp_path / "flash")
        b = VBoard(data, env=web_env(), cmd=virtual_board_cmd(data, heap=HEAP, web=port))
        try:
            while True:                 # the page's event, or the crash it must not be
                ev = b.read()
                if ev["ev"] == "web" or (ev["ev"] == "error" and "crash" in ev["error"]):
                    break
            assert ev["ev"] == "web" and "cannot serve on 127.0.0.1:%d" % port in ev["error"], ev
            gid = new_game(b)
            assert b.dump()["game"] == gid
        finally:
            b.p.kill()
            b.p.wait()
