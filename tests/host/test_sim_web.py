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


def test_play_in_the_browser(browser, sim):
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(sim.url)
    page.wait_for_selector("body[data-ready='1']", timeout=WAIT)
    page.select_option("#variant", "short")
    page.click("#new")
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

    page.screenshot(path=os.path.join(ROOT, "docs", "sim.png"))

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
    assert not errors, errors
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
    assert sim.httpd.server_address[0] == "127.0.0.1"
    ip = _other_address()
    if ip is not None:
        with pytest.raises(OSError), socket.create_connection((ip, sim.port), timeout=5):
            pass


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
        # hands and buttons belong to the real board
        assert call(srv, "/api/action", {"action": "lift", "zone": 13})[0] == 409
        assert call(srv, "/api/action", {"action": "press", "button": "ok"})[0] == 409
        page.close()
    finally:
        srv.stop()
        s.close()
        vl.kill()
