"""The room page (``nardy room --web``, host_tools/nardy_host/roomweb.py): every board
on a broker, one card each, live in a browser. Real mosquitto, real Chromium, virtual
boards at NET_HEAP publishing through umqtt.simple; the room's model (``Roster``) and
server on their own for what a board could send that no board does."""

import json
import random
import re
import subprocess
import sys
import threading
import urllib.error
import urllib.request

import paho.mqtt.client as paho
import pytest
from mqttutil import Mosquitto
from test_mqtt import _board, _journal, _new_game, _set_broker
from test_room import _Lines, _stop, _words
from test_sim_web import WAIT, browser, new_page  # noqa: F401 - the fixture
from test_vboard import play_turn

from nardy.posjson import from_json
from nardy.variants import find_variant
from nardy.zonefit import zone_counts
from nardy_host import cli
from nardy_host.netcast import Room
from nardy_host.roomweb import MAX_BOARDS, RoomServer, Roster, web_address

SNAP = {"game": 4, "seq": 9, "state": {
    "phase": "move", "variant": "short", "options": {}, "dice": [6, 5],
    "match": {"length": 3, "score": [1, 0], "white_player": 0, "game": 2, "over": False},
    "position": {"turn": "white", "white": [2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0,
                                            3, 0, 5, 0, 0, 0, 0, 0],
                 "black": [2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 3, 0, 5, 0, 0,
                           0, 0, 0],
                 "bar": {"white": 0, "black": 0}, "off": {"white": 0, "black": 0}}}}
HOSTILE = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>'
EVIL_ID = '<img src=x onerror="window.pwned=4"><b>t'     # (a topic level: no "/")


def _rec(game, seq, rec):
    return json.dumps({"game": game, "seq": seq, "rec": rec}).encode()


def _card(roster, board):
    return next(c for c in roster.state()["cards"] if c["board"] == board)


# -- the model: what a board sends, good and bad ----------------------------------------

def test_a_card_from_the_snapshot_then_the_records_each_once():
    r = Roster("nardy")
    r.message("nardy/t1/online", b"1")
    r.message("nardy/t1/state", json.dumps(SNAP).encode())
    c = _card(r, "t1")
    assert (c["online"], c["variant"], c["game"], c["turn"], c["dice"]) == (
        True, "short", 4, "white", [6, 5])
    assert c["match"] == {"length": 3, "white": 1, "black": 0}
    # the score is by player: with player 1 on white, white's is the second
    swapped = json.loads(json.dumps(SNAP))
    swapped["seq"] = 10
    swapped["state"]["match"]["white_player"] = 1
    r.message("nardy/t1/state", json.dumps(swapped).encode())
    assert _card(r, "t1")["match"] == {"length": 3, "white": 0, "black": 1}
    v = find_variant("short")
    w, b = zone_counts(v, from_json(v, SNAP["state"]["position"]))
    assert [z[0] for z in c["zones"][1:]] == list(w[1:28])
    assert [z[1] for z in c["zones"][1:]] == list(b[1:28])
    # (a made-up turn whose position has every white checker off, black on its 1)
    gone = "Sb-" + "0" * 25 + "f-" + "0f" + "0" * 24
    turn = {"r": "turn", "n": 1, "side": "white", "dice": [6, 5], "steps": [[1, 7], [1, 6]],
            "pos": gone, "accepted": False, "rule": None}
    r.message("nardy/t1/event", _rec(4, 9, turn))
    r.message("nardy/t1/event", _rec(4, 9, turn))      # a QoS 1 repeat: once
    c = _card(r, "t1")
    # (in the table's labels: the snapshot says short nardy)
    assert c["lines"] == [{"game": 4, "seq": 9, "text": "white played 24/18 24/19"}]
    assert c["records"] == 1
    # the turn's position (all white off, all black on its start point), black to play
    assert (c["zones"][26], sum(z[1] for z in c["zones"]), c["turn"], c["dice"]) == (
        [15, 0], 15, "black", None)
    # the retained snapshot from before the turn, delivered again late: not shown
    r.message("nardy/t1/state", json.dumps(SNAP).encode())
    assert _card(r, "t1")["zones"][26] == [15, 0]


def test_a_board_without_a_snapshot_still_gets_a_card():
    r = Roster("nardy")
    r.message("nardy/quiet/event", _rec(2, 5, {"r": "roll", "n": 3, "side": "black",
                                              "dice": [2, 2]}))
    c = _card(r, "quiet")
    assert (c["snapshot"], c["zones"], c["turn"], c["dice"], c["online"]) == (
        False, None, "black", [2, 2], None)
    assert c["lines"][0]["text"] == "black rolls 2-2"


@pytest.mark.parametrize("topic,payload", [
    ("nardy/b/event", b"not json"),
    ("nardy/b/event", b"5"),
    ("nardy/b/event", b'{"game": "x", "seq": 1, "rec": {}}'),
    ("nardy/b/event", b'{"game": 5, "seq": 2, "rec": {"r": "turn", "steps": [[1, 2, 3]]}}'),
    ("nardy/b/event", b'{"game": 5, "seq": 2, "rec": {"r": "turn", "pos": "Lw-zz"}}'),
    ("nardy/b/event", b'{"game": 5, "seq": 2, "rec": {"r": "roll", "dice": 7}}'),
    ("nardy/b/state", b"[1, 2]"),
    ("nardy/b/state", b'{"game": 5, "seq": 2, "state": {"variant": "long", "position": 5}}'),
    ("nardy/b/state", b'{"game": 5, "seq": 2, "state": {"variant": "chess", '
                      b'"position": {}}}'),
    ("nardy/b/state", json.dumps({"game": 5, "seq": 2, "state": dict(
        SNAP["state"], position=dict(SNAP["state"]["position"], white=[15] * 24))}).encode()),
    ("nardy/b/online", b"true"),
    ("nardy/b/online", b"2"),
    ("nardy/b/event", b"[" * 100000),
    ("nardy/b/event", b'{"game": 1, "seq": 1, "rec": {"r": "x"}, "pad": "' + b"a" * 20000 +
     b'"}'),
    ("nardy/b/other", b"{}"),
    ("nardy/b", b"1"),
])
def test_garbage_is_said_on_the_card_and_loses_nothing(topic, payload):
    r = Roster("nardy")
    r.message("nardy/b/online", b"1")
    r.message("nardy/b/state", json.dumps(SNAP).encode())
    before = _card(r, "b")
    r.message(topic, payload)           # never raises
    c = _card(r, "b")
    assert c["online"] is True and c["zones"] == before["zones"]
    # said on the card, or a record the words could not read is a line saying so
    assert c["problem"] or "unreadable" in c["lines"][-1]["text"]
    # and the board's next record still arrives
    r.message("nardy/b/event", _rec(9, 10, {"r": "roll", "n": 2, "side": "black",
                                           "dice": [3, 1]}))
    assert _card(r, "b")["lines"][-1]["text"] == "black rolls 3-1"


def test_topics_outside_the_prefix_and_too_many_boards_are_left_out():
    r = Roster("club")
    r.message("other/x/online", b"1")
    r.message("clubhouse/x/online", b"1")
    r.message("club//online", b"1")
    assert r.state()["cards"] == [] and r.state()["ignored"] == 3
    for i in range(MAX_BOARDS + 5):
        r.message("club/b%d/online" % i, b"1")
    assert len(r.state()["cards"]) == MAX_BOARDS


def test_the_text_room_survives_garbage_too():
    """A board's garbage on the text room: a line saying so, never an exception
    (paho re-raises one from its callback, which ended ``nardy room``)."""
    lines = []
    r = Room("n", lines.append)
    r.message("n/a/event", b"5")
    r.message("n/a/state", b"[1]")
    r.message("n/a/event", b'{"game": 5, "seq": 2, "rec": {"r": "turn", "steps": [[1]]}}')
    r.message("n/a/event", b'{"rec": {"r": "roll"}}')
    r.message("n/a/event", _rec(1, 3, {"r": "roll", "n": 1, "side": "white",
                                       "dice": [1, 2]}))
    assert lines == ["a: unreadable event message", "a: unreadable state message",
                     "a: unreadable event message", "a: unreadable event message",
                     "a: game 1 #3 white rolls 1-2"]


def test_a_remote_pair_from_the_snapshot():
    r = Roster("nardy")
    r.message("nardy/a-white/state", json.dumps(dict(SNAP, peer="b-black",
                                                     side="white")).encode())
    c = _card(r, "a-white")
    assert (c["peer"], c["side"]) == ("b-black", "white")


def test_web_address():
    assert web_address("8090") == ("127.0.0.1", 8090)
    assert web_address("0.0.0.0:0") == ("0.0.0.0", 0)
    assert web_address("[::1]:8090") == ("::1", 8090)
    for bad in ("", "x", "h:", "h:70000", ":80"):
        with pytest.raises(ValueError):
            web_address(bad)


@pytest.mark.parametrize("bad", ["x", "h:99999"])
def test_a_bad_web_address_is_a_user_error(bad, capsys):
    assert cli.main(["room", "--web", bad]) == 2
    assert "[HOST:]PORT" in capsys.readouterr().err


# -- the server --------------------------------------------------------------------------

@pytest.fixture
def served():
    roster = Roster("nardy")
    srv = RoomServer(roster).start()
    yield roster, srv
    srv.stop()


def _call(srv, path, method="GET", body=None, headers=None):
    req = urllib.request.Request(srv.url.rstrip("/") + path, data=body, method=method,
                                 headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def test_the_room_is_read_only(served):
    roster, srv = served
    for path in ("/", "/room.js", "/roomwords.js", "/words.js", "/room.css", "/api/state"):
        assert _call(srv, path)[0] == 200, path
    assert _call(srv, "/nope")[0] == 404
    assert _call(srv, "/app.js")[0] == 404          # only the room's files
    for method in ("POST", "PUT", "DELETE", "PATCH", "OPTIONS"):
        code, headers, _ = _call(srv, "/api/state", method, b"{}",
                                 {"Content-Type": "application/json"})
        assert code == 405 and headers["Allow"] == "GET, HEAD", method
    assert json.loads(_call(srv, "/api/state")[2])["cards"] == []


def _sse(srv, headers=None, n=1):
    """The first ``n`` events of the stream: (event, id, data)."""
    req = urllib.request.Request(srv.url + "api/events", headers=headers or {})
    out, ev = [], {}
    with urllib.request.urlopen(req, timeout=30) as r:
        for ln in r:
            ln = ln.decode().rstrip("\n")
            if not ln:
                if "data" in ev:
                    out.append((ev.get("event"), int(ev["id"]), json.loads(ev["data"])))
                    if len(out) == n:
                        return out
                ev = {}
            elif not ln.startswith(":"):
                k, _, v = ln.partition(": ")
                ev[k] = v
    return out


def test_the_stream_gives_the_roster_first_then_each_change_in_order(served):
    roster, srv = served
    roster.message("nardy/t1/online", b"1")
    roster.message("nardy/t1/state", json.dumps(SNAP).encode())
    ((kind, n, st),) = _sse(srv)
    assert kind == "roster" and n == 1 and st["next"] == 2
    assert [c["board"] for c in st["cards"]] == ["t1"]
    # a page that reconnects from item 0 gets item 1, then what comes
    got = []
    t = threading.Thread(target=lambda: got.extend(_sse(srv, {"Last-Event-ID": "0"}, 3)))
    t.start()
    for seq in (9, 10):
        roster.message("nardy/t1/event", _rec(4, seq, {"r": "roll", "n": seq, "side": "white",
                                                      "dice": [1, seq - 7]}))
    t.join(30)
    assert [(k, n) for k, n, _ in got] == [(None, 1), (None, 2), (None, 3)]
    assert [it["line"]["seq"] for _, _, it in got[1:]] == [9, 10]
    # an id the server no longer has (or never had): the roster again
    assert _sse(srv, {"Last-Event-ID": "99"})[0][0] == "roster"


def test_too_many_pages_at_once_get_503():
    roster = Roster("nardy")
    srv = RoomServer(roster, max_clients=2).start()
    streams = []
    try:
        for _ in range(2):
            streams.append(urllib.request.urlopen(srv.url + "api/events", timeout=30))
            assert streams[-1].readline().startswith(b"event: roster")
        assert _call(srv, "/api/state")[0] == 503
        streams.pop().close()
        # (the server notices a closed stream when it writes to it: after a change;
        # on a loaded machine its thread may take seconds to get there)
        served = False
        for i in range(600):
            roster.message("nardy/t/online", b"%d" % (i % 2))
            if _call(srv, "/api/state")[0] == 200:
                served = True
                break
            threading.Event().wait(0.1)
        assert served, "the closed stream's slot never came back"
    finally:
        for st in streams:
            st.close()
        srv.stop()


def test_a_request_right_after_another_is_not_refused_at_the_cap():
    # A page's next request can reach the server before the thread that answered its
    # last one has let go of its slot (in CI, on a loaded machine: a 503 right after a
    # 200). Here each thread lets go of its slot 0.2 s late, every time.
    roster = Roster("nardy")
    srv = RoomServer(roster, max_clients=2).start()
    slots = srv.httpd.slots
    real = slots.release
    slots.release = lambda: threading.Timer(0.2, real).start()
    stream = urllib.request.urlopen(srv.url + "api/events", timeout=30)
    try:
        assert stream.readline().startswith(b"event: roster")
        assert [_call(srv, "/api/state")[0] for _ in range(5)] == [200] * 5
    finally:
        stream.close()
        srv.stop()


def test_the_room_on_ipv6_loopback():
    srv = RoomServer(Roster("nardy"), *web_address("[::1]:0")).start()
    try:
        assert srv.url.startswith("http://[::1]:")
        assert _call(srv, "/api/state")[0] == 200
    finally:
        srv.stop()


# -- in the browser ------------------------------------------------------------------------

def _nardy(*args):
    return subprocess.Popen([sys.executable, "-u", "-m", "nardy_host.cli", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _room_page(broker_port):
    """``nardy room --web 0`` on the broker: (process, its lines, the page's url)."""
    p = _nardy("room", "--broker", "127.0.0.1:%d" % broker_port, "--web", "127.0.0.1:0")
    lines = _Lines(p)
    assert lines.wait(lambda ls: any("room page on" in x for x in ls)), (
        lines.lines, p.stderr.read() if p.poll() is not None else "")
    url = re.search(r"http://\S+", next(x for x in lines.lines if "room page on" in x))[0]
    return p, lines, url


def _open(browser, url, size=(1366, 768)):  # noqa: F811
    ctx, page, errors, _ = new_page(browser, size)
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']", timeout=WAIT)
    return ctx, page, errors


def _card_sel(board):
    return 'section.card[data-board="%s"]' % board


def _wait_line(page, board, seq, text):
    page.wait_for_function(
        """([b, seq, t]) => [...document.querySelectorAll('section.card')]
            .filter(c => c.dataset.board === b)
            .some(c => [...c.querySelectorAll('li')].some(
                li => li.dataset.seq === String(seq) && li.textContent.includes(t)))""",
        arg=[board, seq, text], timeout=WAIT)


def _drawn(page, board):
    """The checkers the card draws: {zone: (white, black)}."""
    return {int(z): (w, b) for z, w, b in page.eval_on_selector_all(
        _card_sel(board) + " svg g[data-zone]",
        "gs => gs.map(g => [g.dataset.zone, +g.dataset.white, +g.dataset.black])")}


def _wanted(b):
    d = b.dump()
    v = find_variant(d["variant"], d["options"] or {})
    w, k = zone_counts(v, from_json(v, d["position"]))
    return {z: (w[z], k[z]) for z in range(1, 28)}


def test_the_room_page_shows_every_board_live(tmp_path, board_path, browser):  # noqa: F811
    broker = Mosquitto(str(tmp_path / "mq"))
    room = boards = None
    ctxs = []
    try:
        boards = [_board(tmp_path, name) for name in ("t1", "t2")]
        for b, name, variant in zip(boards, ("table-1", "table-2"), ("short", "long")):
            _set_broker(b, host="127.0.0.1", port=broker.port, id=name)
            _new_game(b, variant)
        room, out, url = _room_page(broker.port)
        ctx, page, errors = _open(browser, url)
        ctxs.append(ctx)
        # both cards, from the retained snapshots
        for name in ("table-1", "table-2"):
            page.wait_for_selector(_card_sel(name) + "[data-online='true']", timeout=WAIT)
        assert "short nardy" in page.inner_text(_card_sel("table-1"))
        assert "long nardy" in page.inner_text(_card_sel("table-2"))
        # a turn played on table-1: its words and its checkers on table-1's card
        rng = random.Random(5)
        b1 = boards[0]
        gid = b1.dump()["game"]
        for _ in range(2):
            assert play_turn(b1, rng) is not None
        recs = _journal(b1, gid)
        words = _words(recs)
        seq = max(i for i, r in enumerate(recs) if r["r"] == "turn")
        assert re.search(r"played \d+/\d+", words[seq])       # the table's labels
        _wait_line(page, "table-1", seq, words[seq])
        want = _wanted(b1)
        page.wait_for_function(
            """([sel, want]) => Object.entries(want).every(([z, [w, b]]) => {
                const g = document.querySelector(sel + ' svg g[data-zone="' + z + '"]');
                return g && +g.dataset.white === w && +g.dataset.black === b; })""",
            arg=[_card_sel("table-1"), {str(z): list(v) for z, v in want.items()}],
            timeout=WAIT)
        assert _drawn(page, "table-1") == want
        # each record once, in order: the card's lines are the journal's newest
        shown = page.eval_on_selector_all(_card_sel("table-1") + " li",
                                          "ls => ls.map(l => [+l.dataset.seq, l.textContent])")
        assert shown == [[i, "#%d %s" % (i, words[i])]
                         for i in range(len(recs) - len(shown), len(recs))]
        # table-2 untouched by table-1's turns
        assert _drawn(page, "table-2") == _wanted(boards[1])
        # the text room says the same
        assert out.wait(lambda ls: "table-1: game %d #%d %s" % (gid, seq, words[seq]) in ls)
        # a page opened now gets the current state at once
        ctx2, late, errors2 = _open(browser, url)
        ctxs.append(ctx2)
        assert _drawn(late, "table-1") == want
        _wait_line(late, "table-1", seq, words[seq])
        # table-2 loses its power: the broker's last will, "offline" on both pages
        boards[1].kill()
        for p in (page, late):
            p.wait_for_selector(_card_sel("table-2") + "[data-online='false']", timeout=WAIT)
        assert "offline" in page.inner_text(_card_sel("table-2"))
        assert errors == [] and errors2 == []
    finally:
        for c in ctxs:
            c.close()
        for b in boards or ():
            b.close()
        if room is not None:
            _stop(room)
        broker.stop()


def _publisher(port):
    c = paho.Client(paho.CallbackAPIVersion.VERSION2)
    c.connect("127.0.0.1", port)
    c.loop_start()
    return c


def test_what_a_board_sends_is_shown_as_text(tmp_path, browser):  # noqa: F811
    """A board id and a record that look like HTML, garbage and a topic outside the
    prefix: shown as text, no script runs, and the page goes on."""
    broker = Mosquitto(str(tmp_path / "mq"))
    room = ctx = None
    pub = _publisher(broker.port)
    try:
        room, out, url = _room_page(broker.port)
        ctx, page, errors = _open(browser, url)
        evil = "nardy/%s/" % EVIL_ID
        for topic, payload in (
                (evil + "online", b"1"),
                (evil + "event", _rec(1, 1, {"r": "warn", "n": 1, "rule": HOSTILE,
                                             "text": HOSTILE})),
                (evil + "event", b"<script>window.pwned=3</script>"),
                ("elsewhere/x/online", b"1"),
                ("nardy/fine/online", b"1")):
            pub.publish(topic, payload, qos=1).wait_for_publish(10)
        page.wait_for_selector(_card_sel("fine"), timeout=WAIT)
        page.wait_for_function("() => document.querySelectorAll('.problem').length",
                               timeout=WAIT)
        card = page.locator("section.card").first
        assert card.get_attribute("data-board") == EVIL_ID
        assert card.locator("h2 .id").inner_text() == EVIL_ID
        assert HOSTILE in card.locator("li").first.inner_text()
        assert "unreadable event message" in card.locator(".problem").inner_text()
        assert page.evaluate("() => window.pwned") is None
        assert page.evaluate("() => document.querySelectorAll('#cards img, #cards script')"
                             ".length") == 0
        assert page.locator("section.card").count() == 2        # not "elsewhere"
        assert errors == []
        assert room.poll() is None                              # the room goes on
    finally:
        if ctx is not None:
            ctx.close()
        pub.loop_stop()
        pub.disconnect()
        if room is not None:
            _stop(room)
        broker.stop()


def test_a_phone_shows_one_card_a_row(served, browser):  # noqa: F811
    roster, srv = served
    for i in range(3):
        roster.message("nardy/table-%d-with-a-long-name-%s/state" % (i, "x" * 40),
                       json.dumps(SNAP).encode())
    ctx, page, errors, _ = new_page(browser, (390, 844))
    try:
        page.goto(srv.url)
        page.wait_for_selector("body[data-ready='1']", timeout=WAIT)
        boxes = [page.locator("section.card").nth(i).bounding_box() for i in range(3)]
        for a, b in zip(boxes, boxes[1:]):
            assert b["y"] >= a["y"] + a["height"]               # one a row
        for bx in boxes:
            assert bx["x"] >= 0 and bx["x"] + bx["width"] <= 390
        assert page.evaluate("() => document.scrollingElement.scrollWidth") <= 390
        assert errors == []
    finally:
        ctx.close()


def test_a_remote_pair_is_shown_as_one_against_the_other(tmp_path, board_path, browser):  # noqa: F811,E501
    from test_remote import Player, _online, _wait
    broker = Mosquitto(str(tmp_path / "mq"))
    room = ctx = None
    players = []
    try:
        room, out, url = _room_page(broker.port)
        players = [Player(tmp_path, "a-white", "white", "b-black", broker.port),
                   Player(tmp_path, "b-black", "black", "a-white", broker.port)]
        _wait(lambda: all(_online(p) for p in players), "both online")
        for p in players:
            # the new game's header is published, and the snapshot after it
            p.b.send({"cmd": "new", "variant": "short", "match": 1})
            p.b.sync()
        ctx, page, errors = _open(browser, url)
        for me, peer, side in (("a-white", "b-black", "white"), ("b-black", "a-white",
                                                                   "black")):
            page.wait_for_function(
                "([sel, t]) => { const c = document.querySelector(sel);"
                " return c && c.querySelector('.pair') &&"
                " c.querySelector('.pair').textContent === t; }",
                arg=[_card_sel(me), "%s (%s) vs %s (%s)" % (
                    me, side, peer, "black" if side == "white" else "white")],
                timeout=WAIT)
        assert errors == []
    finally:
        if ctx is not None:
            ctx.close()
        for p in players:
            p.close()
        if room is not None:
            _stop(room)
        broker.stop()
