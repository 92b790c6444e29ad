"""The browser simulator in real headless Chromium (Debian's ``chromium``, driven by
Playwright; no browser is ever downloaded): load the page, roll, lift a checker and
see its targets lit, play a legal and an illegal step and see the warning on the
OLED image, download the game log; the layout at a laptop's 1366x768 and a phone's
390x844 (screenshots, boxes in the viewport, no overlap), a drag that follows the
pointer, a drop off the board, a hit while entering from the bar; the server's 4xx
answers (microdot), its bounded history and snapshot on reload; 127.0.0.1 only; and
``nardy live`` against the virtual board behind a pty."""

import json
import os
import re
import socket
import struct
import subprocess
import sys
import urllib.error
import urllib.request

import pytest
from vboard import ROOT

from nardy_host import oledtext
from nardy_host.session import SerialLink, Session, VirtualLink
from nardy_host.simweb import Hub, Server

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
WAIT = 30000       # ms: an upper bound for a page update, never a measured time


@pytest.fixture(scope="module")
def browser():
    if not os.path.exists(CHROMIUM):
        pytest.fail("Debian's chromium is needed: apt-get install chromium")
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture()
def sim(tmp_path):
    s = Session(lambda cb: VirtualLink(str(tmp_path / "flash"), cb))
    s.start()
    srv = Server(Hub(s, "sim")).start()
    yield srv
    srv.stop()
    s.close()


def call(srv, path, body=None, method=None, ctype="application/json", headers=None):
    data = None
    h = dict(headers or {})
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        if ctype:
            h["Content-Type"] = ctype
    req = urllib.request.Request(srv.url.rstrip("/") + path, data=data, headers=h,
                                 method=method)
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def act(srv, **a):
    code, body = call(srv, "/api/action", a)
    assert code == 200, body
    return json.loads(body)


def log_texts(page):
    return page.eval_on_selector_all("#log li", "els => els.map(e => e.textContent)")


def wait_log(page, text):
    page.wait_for_function(
        "t => [...document.querySelectorAll('#log li')].some(e => e.textContent.includes(t))",
        arg=text, timeout=WAIT)


def led_rgb(page, zone):
    v = page.get_attribute('#leds circle[data-zone="%d"]' % zone, "data-rgb")
    return tuple(int(x) for x in v.split(","))


def canvas_bits(page):
    """The OLED canvas as 0/1 rows, read back from the browser."""
    data = page.evaluate("""() => {
        const c = document.getElementById('oled');
        return Array.from(c.getContext('2d').getImageData(0, 0, 128, 64).data);
    }""")
    return [[1 if data[4 * (y * 128 + x)] else 0 for x in range(128)] for y in range(64)]


def wait_canvas(page, fb):
    """Until the canvas shows that framebuffer (frames arrive by the event stream)."""
    page.wait_for_function("""fb => {
        const d = document.getElementById('oled').getContext('2d')
            .getImageData(0, 0, 128, 64).data;
        for (let y = 0; y < 64; y++) for (let x = 0; x < 128; x++) {
            const i = (y >> 3) * 128 + x;
            const on = (parseInt(fb.substr(2 * i, 2), 16) >> (y & 7)) & 1;
            if ((d[4 * (y * 128 + x)] > 0 ? 1 : 0) !== on) return false;
        }
        return true; }""", arg=fb, timeout=WAIT)


def click_zone(page, zone):
    page.click('#zones rect[data-zone="%d"]' % zone)
    page.wait_for_function("() => document.body.dataset.busy === '0'", timeout=WAIT)


def _new_short_game(browser, sim):
    """A page on the simulator that started a short-nardy game; the page's script
    errors are collected in the list returned with it."""
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(sim.url)
    page.wait_for_selector("body[data-ready='1']", timeout=WAIT)
    page.select_option("#variant", "short")
    page.click("#new")
    return page, errors


def test_play_in_the_browser(browser, sim, tmp_path):
    page, errors = _new_short_game(browser, sim)
    page.wait_for_selector('#checkers g[data-zone="13"][data-count="5"]', timeout=WAIT)
    page.wait_for_selector('#checkers g[data-zone="19"][data-count="5"]', timeout=WAIT)
    # the opening roll (white 6, black 1: white starts), then white rolls 6-1
    act(sim, action="dice", dice=[6, 1])
    page.click('button[data-button="ok"]')
    wait_log(page, "opening roll: white 6, black 1")
    act(sim, action="dice", dice=[6, 1])
    page.click('button[data-button="ok"]')
    wait_log(page, "white rolls 6-1")

    # click P13: the checker is in the hand, its target P7 lights up
    click_zone(page, 13)
    wait_log(page, "lifted from P13: may go to P7, P6")
    page.wait_for_function(
        "() => { const e = document.querySelector('#leds circle[data-zone=\"7\"]');"
        " return e && e.dataset.rgb.split(',')[1] > 0; }", timeout=WAIT)
    r, g, b = led_rgb(page, 7)
    assert g > 0 and r == 0 and b == 0              # green: a legal target
    r, g, b = led_rgb(page, 13)
    assert r > 0 and g > 0 and b == 0               # amber: where it came from
    assert led_rgb(page, 20) == (0, 0, 0)
    assert "white from P13" in page.inner_text("#hand")
    click_zone(page, 7)                             # put it down: a legal step
    wait_log(page, "white 13/7")     # the move in notation, the place as P7
    page.wait_for_selector('#checkers g[data-zone="7"][data-count="1"]', timeout=WAIT)
    before = canvas_bits(page)
    assert "!" not in oledtext.text(json.loads(call(sim, "/api/state")[1])["oled"])

    # drag P8 -> P5: three points, no die shows 3 (the 1 is left): a warning
    box8 = page.locator('#zones rect[data-zone="8"]').bounding_box()
    box5 = page.locator('#zones rect[data-zone="5"]').bounding_box()
    page.mouse.move(box8["x"] + box8["width"] / 2, box8["y"] + box8["height"] - 30)
    page.mouse.down()
    page.mouse.move(box5["x"] + box5["width"] / 2, box5["y"] + box5["height"] - 30, steps=5)
    page.mouse.up()
    wait_log(page, "warning C")
    page.wait_for_function("() => document.body.dataset.busy === '0'", timeout=WAIT)
    fb = json.loads(call(sim, "/api/state")[1])["oled"]
    screen = oledtext.lines(fb)
    assert any(ln.startswith("! ") for ln in screen), screen
    # the canvas shows exactly the firmware's framebuffer, and the warning changed it
    wait_canvas(page, fb)
    after = canvas_bits(page)
    assert after == oledtext.pixels(fb)
    assert after != before
    # the inverted warning bar: a full-width line of lit pixels
    assert any(all(row) for row in after)
    warns = [t for t in log_texts(page) if t.startswith("warning ")]
    assert warns and "(P" in warns[-1], warns
    texts = log_texts(page)
    assert not [t for t in texts if t.rstrip().endswith(("targets", ":"))], texts

    # idle, the board runs on real time: the red LED of the warning blinks by itself
    n0 = int(page.evaluate("() => document.body.dataset.ledFrames || 0"))
    page.wait_for_function("n => Number(document.body.dataset.ledFrames || 0) >= n + 2",
                           arg=n0, timeout=WAIT)

    # the README's picture, taken while the warning's red LEDs are lit
    page.mouse.move(1, 760)
    page.wait_for_function(
        "() => { const e = document.querySelector('#leds circle[data-zone=\"5\"]');"
        " return e && Number(e.dataset.rgb.split(',')[0]) > 0; }", timeout=WAIT)
    # (NARDY_UPDATE_DOCS=1 writes it to docs/sim.png; a plain run leaves the tree alone)
    shot = (os.path.join(ROOT, "docs", "sim.png") if os.environ.get("NARDY_UPDATE_DOCS")
            else str(tmp_path / "sim.png"))
    page.screenshot(path=shot)
    assert os.path.getsize(shot) > 10000

    # the game log downloads as the board's journal
    with page.expect_download(timeout=WAIT) as dl:
        page.click("#download")
    assert re.fullmatch(r"nardy-short-game1-\d{4}-\d\d-\d\d\.jsonl",
                        dl.value.suggested_filename), dl.value.suggested_filename
    path = dl.value.path()
    with open(path) as f:
        recs = [json.loads(x) for x in f.read().splitlines()]
    assert recs[0]["r"] == "game" and recs[0]["variant"] == "short"
    assert any(r["r"] == "warn" for r in recs)

    # a reload draws the state as it is: the game in the variant box, the log lines
    page.reload()
    page.wait_for_selector("body[data-ready='1']", timeout=WAIT)
    assert page.input_value("#variant") == "short"
    wait_log(page, "white 13/7")
    # New match asks first while a game is in progress
    asked = []
    page.once("dialog", lambda d: (asked.append(d.message), d.dismiss()))
    page.select_option("#variant", "long")
    page.click("#new")
    page.wait_for_timeout(300)
    assert asked and "in progress" in asked[0]
    assert json.loads(call(sim, "/api/state")[1])["variant"] == "short"
    page.once("dialog", lambda d: d.accept())
    page.click("#new")
    wait_log(page, "game 2: long nardy")
    assert not errors, errors
    page.close()


def raw(srv, data, source=None, end=False):
    """Send raw bytes, return everything the server answers before it closes.
    ``end``: close the sending side after them (a body that ends early)."""
    with socket.create_connection(("127.0.0.1", srv.port), timeout=30,
                                  source_address=(source, 0) if source else None) as c:
        c.sendall(data)
        if end:
            c.shutdown(socket.SHUT_WR)
        out = b""
        while True:
            b = c.recv(65536)
            if not b:
                return out
            out += b


def stream_for(srv, headers, seconds=1.5):
    """What an event stream sends within ``seconds`` (it never ends by itself)."""
    with socket.create_connection(("127.0.0.1", srv.port), timeout=seconds) as c:
        c.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers + b"\r\n")
        out = b""
        try:
            while True:
                b = c.recv(65536)
                if not b:
                    return out
                out += b
        except TimeoutError:
            return out


def status(resp):
    return int(resp.split(b" ", 2)[1])


def test_hostile_requests_get_4xx_and_no_traceback(sim, capfd):
    """Issue 10: each of these dropped the connection with a traceback, or (chunked)
    parsed the body as a second request."""
    assert call(sim, "/api/action", {"action": []})[0] == 400          # unhashable
    assert call(sim, "/api/action", {"action": {"a": 1}})[0] == 400
    code, body = call(sim, "/api/action", b"[" * 8000 + b"]" * 8000)
    assert code == 400 and b"deep" in body
    nested = {"action": "lift", "zone": 3, "x": [[[[[[[[[[1]]]]]]]]]]}
    assert call(sim, "/api/action", nested)[0] == 400
    for bad in ("abc", "\u00b2", "-1", "9" * 30, "1.5", ""):
        h = {"Last-Event-ID": bad.encode("utf-8").decode("latin-1")}
        assert call(sim, "/api/events", headers=h)[0] == 400, bad
    assert call(sim, "/api/events?since=-3")[0] == 400
    chunk = b'{"action": "setup"}'
    resp = raw(sim, b"POST /api/action HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + b"%x\r\n" % len(chunk) + chunk + b"\r\n0\r\n\r\n"
                    b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert status(resp) == 411 and resp.count(b"HTTP/1.") == 1, resp
    assert status(raw(sim, b"GARBAGE\r\n\r\n")) == 400
    assert status(raw(sim, b"GET / HTTP/1.1\r\nno colon here\r\n\r\n")) == 400
    assert status(raw(sim, b"POST /api/action HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                           b"Content-Length: x\r\n\r\n")) == 400
    assert call(sim, "/api/state")[0] == 200                            # still serving
    err = capfd.readouterr().err
    assert "Traceback" not in err, err


def test_history_is_bounded_and_a_reload_is_a_snapshot(sim, browser):
    """A long session keeps a bounded history; a (re)load gets the current state and
    the newest log lines at once, and a client asking for dropped lines is told to
    reload its snapshot."""
    hub, s = sim.hub, sim.hub.s
    act(sim, action="new", variant="short")
    for i in range(30000):
        s._on_event({"ev": "text", "text": "line %d" % i})
        s._on_event({"ev": "leds", "rgb": "00" * 3})
    assert len(s.events) > 60000
    assert len(s.events._evs) <= s.events.keep * 5 // 4
    assert len(hub.feed._evs) <= hub.feed.keep * 5 // 4
    st = json.loads(call(sim, "/api/state")[1])
    assert len(st["log"]) == 200 and st["log"][-1]["text"] == "line 29999"
    resp = raw(sim, b"GET /api/events?since=0 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert b'data: {"ev": "reset"}' in resp
    # a client that reconnects with the last line it saw gets only what followed
    last = st["feed"] - 1
    resp = stream_for(sim, b"Last-Event-ID: %d\r\n" % (last - 2))
    assert status(resp) == 200 and b"text/event-stream" in resp
    ids = [int(x) for x in re.findall(rb"^id: (\d+)", resp, re.M)]
    assert ids == [last - 1, last], ids
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    page.goto(sim.url)
    page.wait_for_selector("body[data-ready='1']", timeout=WAIT)
    wait_log(page, "line 29999")
    assert page.eval_on_selector_all("#log li", "els => els.length") <= 300
    page.close()


def test_bad_requests_get_4xx(sim):
    assert call(sim, "/nope")[0] == 404
    assert call(sim, "/api/nope")[0] == 404
    assert call(sim, "/api/action")[0] == 405                  # GET
    assert call(sim, "/api/state", {"a": 1})[0] == 405         # POST
    assert call(sim, "/api/action", b"{}", ctype="text/plain")[0] == 415
    code, body = call(sim, "/api/action", b"{not json")
    assert code == 400 and b"not JSON" in body
    assert call(sim, "/api/action", [1, 2])[0] == 400
    assert call(sim, "/api/action", {"action": "fly"})[0] == 400
    assert call(sim, "/api/action", {"action": "lift", "zone": 31})[0] == 400
    assert call(sim, "/api/action", {"action": "lift", "zone": True})[0] == 400
    assert call(sim, "/api/action", {"action": "press", "button": "x"})[0] == 400
    assert call(sim, "/api/action", {"action": "dice", "dice": [0, 9]})[0] == 400
    assert call(sim, "/api/action", {"action": "new", "variant": "x"})[0] == 400
    code, body = call(sim, "/api/action", {"action": "lift", "zone": "P3"})
    assert code == 409 and b"no checker on P3" in body        # the board is empty
    assert call(sim, "/api/action", {"action": "place", "zone": 3})[0] == 409
    assert call(sim, "/api/action", b"x" * 20000)[0] == 413
    assert call(sim, "/api/events?since=x")[0] == 400
    assert call(sim, "/api/log?game=x")[0] == 400
    assert call(sim, "/api/log?game=9")[0] == 404
    code, body = call(sim, "/api/state", headers={"Host": "attacker.example"})
    assert code == 403
    assert json.loads(body)["status"] == 403
    # and the board is still fine
    assert call(sim, "/api/state")[0] == 200
    assert act(sim, action="new", variant="long")["ok"]


def _other_address():
    """A non-loopback address of this machine, or None."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 1))
            ip = s.getsockname()[0]
    except OSError:
        return None
    return None if ip.startswith("127.") else ip


def test_served_on_127_0_0_1_only(sim):
    """Bound to 127.0.0.1: another address of this machine (127.0.0.2 always exists
    on Linux's loopback; a LAN address when there is one) is refused, and a client
    on another address that reaches the server anyway gets 403."""
    assert sim.address[0] == "127.0.0.1"
    for ip in ("127.0.0.2", _other_address()):
        if ip is None:
            continue
        with pytest.raises(OSError), socket.create_connection((ip, sim.port), timeout=5):
            pass
    resp = raw(sim, b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
               source="127.0.0.2")
    assert status(resp) == 403 and b"only 127.0.0.1" in resp


def test_cli_sim_serves_on_the_port_given(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    exe = os.path.join(os.path.dirname(sys.executable), "nardy")
    p = subprocess.Popen([exe, "sim", "--no-browser", "--port", str(port), "--data",
                          str(tmp_path / "d")], stdout=subprocess.PIPE, text=True)
    try:
        line = p.stdout.readline()
        assert "http://127.0.0.1:%d/" % port in line
        with urllib.request.urlopen("http://127.0.0.1:%d/" % port, timeout=30) as r:
            assert b"Nardy board" in r.read()
    finally:
        p.terminate()
        p.wait(30)
        p.stdout.close()


def test_live_page_mirrors_a_board_on_a_serial_port(browser, tmp_path):
    """``nardy live``'s code against the virtual board behind a pty (a serial port)."""
    vl = VirtualLink(str(tmp_path / "flash"), lambda ev: None, pty=True)
    vl.start()
    s = Session(lambda cb: SerialLink(vl.port, cb), virtual=False)
    s.start()
    s.send({"cmd": "hello"})
    s.wait_for("hello", 0)
    srv = Server(Hub(s, "live")).start()
    try:
        page = browser.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(srv.url)
        page.wait_for_selector("body[data-ready='1']", timeout=WAIT)
        assert "live" in page.inner_text("#mode")
        page.select_option("#variant", "short")
        page.click("#new")
        page.wait_for_selector('#checkers g[data-zone="13"][data-count="5"]', timeout=WAIT)
        page.wait_for_selector('#checkers g[data-zone="1"][data-count="2"]', timeout=WAIT)
        page.wait_for_selector("body[data-oled-frames]", timeout=WAIT)
        assert not errors, errors
        fb = json.loads(call(srv, "/api/state")[1])["oled"]
        assert "Opening roll" in oledtext.text(fb)
        wait_canvas(page, fb)
        assert canvas_bits(page) == oledtext.pixels(fb)
        # the game is offered for analysis; read off the board, it has no turn yet
        gid = json.loads(call(srv, "/api/state")[1])["game"]
        assert [gid, "short"] in json.loads(call(srv, "/api/state")[1])["games"]
        code, body = call(srv, "/api/analyse?game=%d" % gid)
        assert code == 200 and json.loads(body)["turns"] == [], body
        # hands and buttons belong to the real board
        assert call(srv, "/api/action", {"action": "lift", "zone": 13})[0] == 409
        assert call(srv, "/api/action", {"action": "press", "button": "ok"})[0] == 409
        page.close()
    finally:
        srv.stop()
        s.close()
        vl.kill()


def new_page(browser, size):
    """A page at ``size`` (width, height): a phone (narrower than 700 px) has touch.
    Returns (context, page, errors the page raised, phone)."""
    w, h = size
    phone = w < 700
    ctx = browser.new_context(viewport={"width": w, "height": h}, has_touch=phone,
                              is_mobile=phone)
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    return ctx, page, errors, phone


def boxes(page, sels):
    return {s: page.locator(s).bounding_box() for s in sels}


def overlap(a, b):
    return not (a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"]
                or a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"])


@pytest.mark.parametrize("size", [(1366, 768), (390, 844)], ids=["laptop", "phone"])
def test_layout_fits_the_screen(browser, sim, tmp_path, size):
    """Issue 11: board, OLED and buttons in view without scrolling, nothing sideways,
    no box over another; on the phone the player plays with taps."""
    w, h = size
    ctx, page, _, phone = new_page(browser, size)
    page.goto(sim.url)
    page.wait_for_selector("body[data-ready='1']", timeout=WAIT)
    page.select_option("#variant", "short")
    page.click("#new")
    page.wait_for_selector('#checkers g[data-zone="13"][data-count="5"]', timeout=WAIT)
    shot = page.screenshot(path=str(tmp_path / ("sim-%dx%d.png" % size)), full_page=True)
    # the whole page, photographed: never wider than the screen, on a laptop no taller
    assert shot[:8] == b"\x89PNG\r\n\x1a\n"
    sw, sh = struct.unpack(">II", shot[16:24])
    assert sw == w and (phone or sh == h), (sw, sh)
    b = boxes(page, ["header", "#board", "#oled", "#buttons", "#new", "#download"])
    for sel, box in b.items():
        assert box["x"] >= 0 and box["y"] >= 0, (sel, box)
        assert box["x"] + box["width"] <= w + 0.5, (sel, box)
        assert box["y"] + box["height"] <= h + 0.5, (sel, box)
    for i, s1 in enumerate(["header", "#board", "#oled", "#buttons"]):
        for s2 in ["header", "#board", "#oled", "#buttons"][i + 1:]:
            assert not overlap(b[s1], b[s2]), (s1, b[s1], s2, b[s2])
    assert b["#board"]["width"] >= 0.9 * w if phone else b["#board"]["width"] >= 0.6 * w
    assert page.evaluate("() => document.documentElement.scrollWidth") <= w
    if not phone:
        assert page.evaluate("() => document.documentElement.scrollHeight") <= h
    # the tray labels are inside the board and drawn in a light colour
    for t in page.query_selector_all("text.tray-label"):
        assert page.evaluate("e => getComputedStyle(e).fill", t) == "rgb(243, 220, 180)"
    # play a step: roll, then press on P13's checker and on P7. Each roll is seen in
    # the log before the next dice are set: the dice go straight to the board, the
    # press through the page, and a loaded machine may deliver the press later
    for logged in ("opening roll: white 6, black 1", "white rolls 6-1"):
        act(sim, action="dice", dice=[6, 1])
        if phone:
            page.tap('button[data-button="ok"]')
        else:
            page.click('button[data-button="ok"]')
        wait_log(page, logged)
    top = checker_box(page, 13)
    target = page.locator('#zones rect[data-zone="7"]').bounding_box()
    if phone:
        page.touchscreen.tap(*centre(top))
        wait_log(page, "lifted from P13")
        page.touchscreen.tap(target["x"] + target["width"] / 2,
                             target["y"] + target["height"] - 10)
    else:
        page.mouse.click(top["x"] + top["width"] / 2, top["y"] + top["height"] / 2)
        wait_log(page, "lifted from P13")
        page.mouse.click(target["x"] + target["width"] / 2,
                         target["y"] + target["height"] - 10)
    wait_log(page, "white 13/7")
    ctx.close()


def checker_box(page, zone, colour=None):
    """The box of the outermost checker drawn on a zone (of that colour); the group is
    redrawn on every update, so ask again until one is there."""
    sel = '#checkers g[data-zone="%d"] circle.top' % zone
    if colour:
        sel += '[data-colour="%s"]' % colour
    return drawn_box(page, sel)


def drawn_box(page, sel):
    """The box of the last element ``sel`` matches, which the page redraws on every
    frame: asked until drawn."""
    for _ in range(100):
        box = page.locator(sel).last.bounding_box(timeout=WAIT)
        if box is not None:
            return box
        page.wait_for_timeout(50)
    raise AssertionError("not drawn: " + sel)


def centre(box, dy=0):
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2 + dy


def drag(page, src, dst, steps=6):
    """Press at src, move to dst in steps, release: returns the ghost's centre seen
    halfway (the checker follows the pointer)."""
    page.mouse.move(*src)
    page.mouse.down()
    mid = ((src[0] + dst[0]) / 2, (src[1] + dst[1]) / 2)
    page.mouse.move(*mid, steps=steps)
    g = page.locator("#ghost").bounding_box()
    page.mouse.move(*dst, steps=steps)
    page.mouse.up()
    page.wait_for_function("() => document.body.dataset.busy === '0'", timeout=WAIT)
    return mid, centre(g)


def zone_point(page, zone, dy=0):
    return centre(page.locator('#zones rect[data-zone="%d"]' % zone).bounding_box(), dy)


def roll(page, sim, dice):
    act(sim, action="dice", dice=dice)
    page.click('button[data-button="ok"]')


def test_drag_follows_the_pointer_and_a_hit_from_the_bar(browser, sim):
    """A dragged checker follows the pointer; dropped off the board it goes back; on a
    point or the bar holding both colours the player lifts the checker they press on:
    black hits on P23, then white enters from the bar hitting back (issue 11)."""
    page, errors = _new_short_game(browser, sim)
    page.wait_for_selector('#checkers g[data-zone="24"][data-count="2"]', timeout=WAIT)
    roll(page, sim, [6, 1])
    wait_log(page, "opening roll: white 6, black 1")
    roll(page, sim, [6, 1])
    wait_log(page, "white rolls 6-1")

    # dropped off the board: back on P13, nothing played
    src = centre(checker_box(page, 13, "w"))
    mid, seen = drag(page, src, (src[0], 20))
    assert abs(seen[0] - mid[0]) < 4 and abs(seen[1] - mid[1]) < 4, (mid, seen)
    page.wait_for_selector('#checkers g[data-zone="13"][data-count="5"]', timeout=WAIT)
    assert json.loads(call(sim, "/api/state")[1])["hand"] == []

    # white: 24/23 13/7, leaving a blot on P23
    drag(page, centre(checker_box(page, 24, "w")), zone_point(page, 23))
    wait_log(page, "white 24/23")
    drag(page, centre(checker_box(page, 13, "w")), zone_point(page, 7, 100))
    wait_log(page, "white 13/7")
    page.click('button[data-button="ok"]')
    wait_log(page, "white played")

    # black 4-2: 19/23 lands on white's blot; the player lifts the WHITE one off P23
    roll(page, sim, [4, 2])
    wait_log(page, "black rolls 4-2")
    drag(page, centre(checker_box(page, 19, "b")), zone_point(page, 23, 60))
    page.wait_for_function(
        "() => document.querySelectorAll('#checkers g[data-zone=\"23\"] circle.top')"
        ".length === 2", timeout=WAIT)
    drag(page, centre(checker_box(page, 23, "w")), zone_point(page, 25))
    drag(page, centre(checker_box(page, 17, "b")), zone_point(page, 19, 60))
    page.click('button[data-button="ok"]')
    wait_log(page, "black played")
    turn = [t for t in log_texts(page) if t.startswith("black played")][-1]
    assert "*" in turn and "accepted" not in turn, turn

    # white 2-6 enters from the bar hitting black's blot on P23, the blot first: the
    # bar then holds both colours and the player lifts the WHITE one
    roll(page, sim, [2, 6])
    wait_log(page, "white rolls 2-6")
    drag(page, centre(checker_box(page, 23, "b")), zone_point(page, 25))
    page.wait_for_function(
        "() => document.querySelectorAll('#checkers g[data-zone=\"25\"] circle.top')"
        ".length === 2", timeout=WAIT)
    drag(page, centre(checker_box(page, 25, "w")), zone_point(page, 23, 60))
    drag(page, centre(checker_box(page, 13, "w")), zone_point(page, 7, 100))
    page.click('button[data-button="ok"]')
    page.wait_for_function(
        "() => [...document.querySelectorAll('#log li')]"
        ".filter(e => e.textContent.startsWith('white played')).length === 2",
        timeout=WAIT)
    turn = [t for t in log_texts(page) if t.startswith("white played")][-1]
    assert turn.startswith("white played bar/") and "*" in turn, turn
    assert "accepted" not in turn, turn
    board = json.loads(call(sim, "/api/state")[1])["board"]
    assert "".join(board["25"]) == "b" and "".join(board["23"]) == "w", board
    assert not [t for t in log_texts(page) if t.startswith("warning")]

    # a long press on the page is the board's long press: hold BACK, then OK, resigns (S6)
    roll(page, sim, [3, 1])
    wait_log(page, "black rolls 3-1")
    page.hover('button[data-button="back"]')
    page.mouse.down()
    page.wait_for_selector('button[data-button="back"].long', timeout=WAIT)
    page.mouse.up()
    page.click('button[data-button="ok"]')      # the board asks first: OK resigns
    wait_log(page, "game over: white wins")
    assert not errors, errors
    page.close()
