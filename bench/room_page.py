"""The room page (``nardy room --web``): how long a board's turn takes to reach a
room page watching the broker, on loopback. A virtual board at NET_HEAP publishes
through umqtt.simple to Debian's mosquitto; ``nardy room --web`` (its own process,
as a club runs it) follows the broker; Chromium shows the page. Each figure runs
from the board's USB ``turn`` event (the turn journaled: the board publishes it
from there) to the moment the turn's line is on the board's card in the page (a
MutationObserver's clock, the same wall clock), and to the moment the page's event
stream carried it (a plain HTTP client); and from the moment a plain subscriber on
the broker got the turn (the board published it) to the page. Run by ``make
bench``; never a test."""

import contextlib
import json
import os
import pathlib
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "host"))
sys.path.insert(0, os.path.join(ROOT, "firmware"))
sys.path.insert(0, os.path.join(ROOT, "host_tools"))

import paho.mqtt.client as paho  # noqa: E402
import sse  # noqa: E402  (bench/, beside this script)
from mqttutil import NET_HEAP, Mosquitto, umqtt_lib  # noqa: E402

TURNS = 30
BOARD = "bench-1"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# each turn's line, the first time the page's card shows it: [game, seq, ms]
OBSERVE = """() => {
    window.shown = []; const seen = new Set();
    new MutationObserver(() => {
        const t = Date.now();
        document.querySelectorAll('section.card li').forEach(li => {
            const k = li.dataset.game + '/' + li.dataset.seq;
            if (!seen.has(k) && li.textContent.includes(' played ')) {
                seen.add(k); window.shown.push([+li.dataset.game, +li.dataset.seq, t]); }
        });
    }).observe(document.getElementById('cards'), {childList: true, subtree: true});
}"""


def stream(url, seen, stop):
    """(game, seq, time) of each turn's record as the page's event stream carries it."""
    for it in sse.data(url, "/api/events", stop):
        line = it.get("line")
        if line and " played " in line["text"]:
            seen[(line["game"], line["seq"])] = time.time()


def room(port):
    p = subprocess.Popen([sys.executable, "-u", "-m", "nardy_host.cli", "room", "--broker",
                          "127.0.0.1:%d" % port, "--web", "127.0.0.1:0"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    for ln in p.stdout:
        m = re.search(r"room page on (http://\S+)", ln)
        if m:
            threading.Thread(target=lambda: [None for _ in p.stdout], daemon=True).start()
            return p, m.group(1)
    raise SystemExit("nardy room --web did not start")


def main():
    tmp = tempfile.mkdtemp(prefix="nardy-bench-room-")
    os.environ["MICROPYPATH"] = ".frozen:" + umqtt_lib(os.path.join(
        tempfile.gettempdir(), "nardy-bench-umqtt"))
    from playwright.sync_api import sync_playwright
    from test_mqtt import _board, _journal, _new_game, _set_broker
    from test_vboard import play_turn
    broker = Mosquitto(os.path.join(tmp, "mq"))
    proc, url = room(broker.port)
    b = _board(pathlib.Path(tmp))     # (test_mqtt's board: its path joins with /)
    b.watchdog.cancel()
    streamed, stop = {}, threading.Event()
    threading.Thread(target=stream, args=(url, streamed, stop), daemon=True).start()
    turns = {}          # the n-th turn -> its USB event's time
    read = b.read

    def timed():
        ev = read()
        if ev["ev"] == "turn":
            turns[len(turns)] = time.time()
        return ev
    b.read = timed
    # the moment the board published each turn: a plain subscriber's (loopback)
    published = {}
    sub = paho.Client(paho.CallbackAPIVersion.VERSION2)

    def on_message(client, userdata, msg):
        with contextlib.suppress(ValueError, KeyError, TypeError):
            body = json.loads(msg.payload)
            if body["rec"]["r"] == "turn":
                published.setdefault((body["game"], body["seq"]), time.time())
    sub.on_message = on_message
    sub.on_connect = lambda c, *a: c.subscribe("nardy/%s/event" % BOARD, qos=1)
    sub.connect("127.0.0.1", broker.port)
    sub.loop_start()
    try:
        with sync_playwright() as pw:
            br = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                    args=["--headless", "--no-sandbox", "--disable-gpu"])
            page = br.new_page()
            page.goto(url)
            page.wait_for_selector("body[data-ready='1']", timeout=30000)
            page.evaluate(OBSERVE)
            _set_broker(b, host="127.0.0.1", port=broker.port, id=BOARD)
            rng = random.Random(3)
            _new_game(b, "short")
            games = [b.dump()["game"]]
            while len(turns) < TURNS:
                if play_turn(b, rng) is None:
                    _new_game(b, "short")
                    games.append(b.dump()["game"])
            keys = [(g, i) for g in games for i, r in enumerate(_journal(b, g))
                    if r["r"] == "turn"][:len(turns)]
            page.wait_for_function("n => window.shown.length >= n", arg=len(keys),
                                   timeout=60000)
            shown = {(g, s): t / 1000 for g, s, t in page.evaluate("() => window.shown")}
            br.close()
    finally:
        stop.set()
        sub.loop_stop()
        sub.disconnect()
        b.close()
        proc.terminate()
        proc.wait(10)
        broker.stop()
    at = [turns[i] for i in range(len(keys))]
    page_ms = [(shown[k] - t) * 1000 for k, t in zip(keys, at)]
    sse_ms = [(streamed[k] - t) * 1000 for k, t in zip(keys, at) if k in streamed]
    print("## The room page (nardy room --web, mosquitto, a virtual board at %s, "
          "loopback)" % NET_HEAP)
    print("$ .venv/bin/python bench/room_page.py")
    pub_ms = [(shown[k] - published[k]) * 1000 for k in keys if k in published]
    for what, ms in (("the board publishes a turn (a subscriber gets it) -> the room page "
                      "shows it (Chromium)", pub_ms),
                     ("the board's turn (its USB event) -> the room page shows it", page_ms),
                     ("the board's turn (its USB event) -> the room's event stream", sse_ms)):
        print("%s: median %.0f ms, max %.0f ms over %d turns" % (
            what, statistics.median(ms), max(ms), len(ms)))


if __name__ == "__main__":
    main()
