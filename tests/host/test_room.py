"""The host's side of the broadcast (host_tools/nardy_host/netcast.py): ``nardy
broker`` (embedded amqtt) with a virtual board publishing to it, and ``nardy room``
printing every board live, each record once."""

import json
import random
import subprocess
import sys
import threading

import pytest
from mqttutil import Mosquitto, free_port
from test_mqtt import _board, _journal, _new_game, _set_broker, _turns

from nardy_host import cli
from nardy_host.netcast import Room, Words, describe_record, host_port


def _nardy(*args):
    return subprocess.Popen([sys.executable, "-u", "-m", "nardy_host.cli", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


class _Lines:
    """A process's stdout lines, read in a thread."""

    def __init__(self, p):
        self.p = p
        self.lines = []
        self.cv = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for ln in self.p.stdout:
            with self.cv:
                self.lines.append(ln.rstrip("\n"))
                self.cv.notify_all()

    def wait(self, cond, timeout=30):
        with self.cv:
            return self.cv.wait_for(lambda: cond(self.lines), timeout)


def _stop(p):
    if p.poll() is None:
        p.terminate()
        p.wait(timeout=10)


def _words(recs):
    """A journal's records in the room's words (the table's labels)."""
    w = Words()
    return [w.say(r) for r in recs]


def test_room_follows_a_board_on_the_embedded_broker(tmp_path, board_path):
    port = free_port()
    broker = _nardy("broker", "--bind", "127.0.0.1:%d" % port)
    room = None
    b = None
    try:
        out = _Lines(broker)
        assert out.wait(lambda ls: any("MQTT on" in x for x in ls)), (
            out.lines, broker.stderr.read() if broker.poll() is not None else "")
        b = _board(tmp_path)
        _set_broker(b, host="127.0.0.1", port=port, id="hall-3")
        _new_game(b, "short")
        rng = random.Random(8)
        _turns(b, rng, 3)
        gid = b.dump()["game"]
        first = len(_journal(b, gid))
        # the room joins mid-game: the position first, then the records as they come
        room = _nardy("room", "--broker", "127.0.0.1:%d" % port)
        seen = _Lines(room)
        assert seen.wait(lambda ls: any(x.startswith("hall-3: game %d," % gid)
                                        for x in ls)), seen.lines
        while _turns(b, rng, 10):
            pass
        recs = _journal(b, gid)
        assert recs[-1]["r"] == "end"
        words = _words(recs)
        want = ["hall-3: game %d #%d %s" % (gid, i, words[i])
                for i in range(len(recs)) if i >= first]
        assert seen.wait(lambda ls: want[-1] in ls), (want[-1], seen.lines[-5:])
        got = [x for x in seen.lines if x.startswith("hall-3: game %d #" % gid)]
        # each record once, in order, from the first one after the room joined
        # (earlier ones were published before it subscribed)
        assert got[-len(want):] == want
        assert len(got) == len(set(got))
        assert "game over" in got[-1]
    finally:
        if b is not None:
            b.close()
        for p in (room, broker):
            if p is not None:
                _stop(p)


def test_room_prints_each_record_once_and_a_board_once_on_join():
    lines = []
    r = Room("club", lines.append)
    rec = {"r": "roll", "n": 1, "side": "white", "dice": [6, 5]}
    snap = {"game": 4, "seq": 9, "state": {"phase": "move", "position": {
        "turn": "white", "off": {"white": 0, "black": 2}}}}
    r.message("club/b1/online", b"1")
    r.message("club/b1/state", json.dumps(snap).encode())
    r.message("club/b1/event", json.dumps({"game": 4, "seq": 9, "rec": rec}).encode())
    r.message("club/b1/event", json.dumps({"game": 4, "seq": 9, "rec": rec}).encode())
    r.message("club/b1/state", json.dumps(snap).encode())        # not a join: quiet
    r.message("club/b2/event", json.dumps({"game": 4, "seq": 9, "rec": rec}).encode())
    r.message("other/b1/event", b"{}")
    r.message("club/b1/event", b"not json")
    assert lines == ["b1: online",
                     "b1: game 4, white to play, white 0 off, black 2 off (move)",
                     "b1: game 4 #9 white rolls 6-5",
                     "b2: game 4 #9 white rolls 6-5",
                     "b1: unreadable event message"]


def test_the_snapshot_line_on_join():
    lines = []
    r = Room("nardy/", lines.append)
    r.message("nardy/x/state", json.dumps({"game": 2, "seq": 5, "state": {
        "phase": "move", "position": {"turn": "black",
                                      "off": {"white": 3, "black": 1}}}}).encode())
    assert lines == ["x: game 2, black to play, white 3 off, black 1 off (move)"]


def test_records_in_words():
    assert describe_record({"r": "turn", "side": "black", "dice": [2, 2],
                            "steps": [[1, 3], [3, 5]]}) == "black played 1/3 3/5"
    assert describe_record({"r": "turn", "side": "white", "steps": []}) == \
        "white played nothing (pass)"
    assert describe_record({"r": "end", "winner": "white", "kind": "mars",
                            "points": 2}) == "game over: white wins, mars, 2 point(s)"
    assert describe_record({"r": "warn", "rule": "L3", "text": "t"}) == "warning L3: t"


def test_moves_in_the_tables_labels():
    """With the variant known, the points are the board's printed labels for both
    players (the OLED's and the board's own page's notation), not each mover's own
    path numbers."""
    from nardy.variants import find_variant
    long_, short = find_variant("long"), find_variant("short")
    white = {"r": "turn", "side": "white", "steps": [[1, 7], [7, 12]]}
    black = {"r": "turn", "side": "black", "steps": [[1, 7], [22, 25]]}
    assert describe_record(white, long_) == "white played 24/18 18/13"
    assert describe_record(black, long_) == "black played 12/6 15/off"
    assert describe_record(white, short) == "white played 24/18 18/13"
    assert describe_record(black, short) == "black played 1/7 22/off"
    assert describe_record({"r": "turn", "side": "white", "steps": [[0, 3]]}, short) == \
        "white played bar/22"
    # a step says no side: the mover is the one who rolled
    w = Words()
    assert w.say({"r": "game", "v": 1, "variant": "long", "options": {}}) == "new long game"
    w.say({"r": "roll", "n": 1, "side": "black", "dice": [6, 5]})
    assert w.say({"r": "step", "n": 1, "from": 1, "to": 7}) == "step 12-6"
    assert w.say({"r": "undo", "n": 1, "from": 1, "to": 7}) == "step taken back 12-6"
    # the snapshot tells a room that joins late
    w = Words()
    w.snapshot({"variant": "short", "options": {}, "position": {"turn": "white"}})
    assert w.say({"r": "step", "n": 4, "from": 1, "to": 7}) == "step 24-18"


@pytest.mark.parametrize("bad", ["", "host:", ":1883", "h:0", "h:70000", "h:x"])
def test_bad_addresses_are_user_errors(bad, capsys):
    assert cli.main(["room", "--broker", bad]) == 2
    assert "HOST:PORT" in capsys.readouterr().err


def test_host_port():
    assert host_port("10.0.0.1:1884") == ("10.0.0.1", 1884)
    assert host_port("broker.local") == ("broker.local", 1883)


def test_room_says_when_there_is_no_broker(capsys):
    assert cli.main(["room", "--broker", "127.0.0.1:%d" % free_port()]) == 2
    assert "no broker" in capsys.readouterr().err


def test_room_on_mosquitto_with_a_login(tmp_path):
    """A club's broker: a login per board; the room logs in too."""
    broker = Mosquitto(str(tmp_path / "mq"), users={"watcher": "pw"})
    room = _nardy("room", "--broker", "127.0.0.1:%d" % broker.port,
                  "--user", "watcher", "--password", "pw")
    try:
        seen = _Lines(room)
        assert seen.wait(lambda ls: any("watching" in x for x in ls))
        import paho.mqtt.client as paho
        c = paho.Client(paho.CallbackAPIVersion.VERSION2)
        c.username_pw_set("watcher", "pw")
        c.connect("127.0.0.1", broker.port)
        c.loop_start()
        rec = {"r": "open", "rolls": [[3, 5]], "first": "black"}
        for _ in range(50):
            c.publish("nardy/t9/event", json.dumps({"game": 1, "seq": 1, "rec": rec}),
                      qos=1).wait_for_publish(5)
            if seen.wait(lambda ls: any(x.startswith("t9:") for x in ls), 0.2):
                break
        assert "t9: game 1 #1 opening roll: black begins" in seen.lines
        c.loop_stop()
        c.disconnect()
    finally:
        _stop(room)
        broker.stop()
