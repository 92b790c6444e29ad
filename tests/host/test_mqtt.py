"""Live broadcast over MQTT (firmware/nardy/mqttcast.py, docs/NETWORK.md) against a
real broker: Debian's mosquitto on 127.0.0.1, the virtual board (unix MicroPython
with micropython-lib's umqtt.simple on its path) publishing a played game, and a
paho-mqtt subscriber checking every journal record arrives, once, in order."""

import json
import random
import socket
import threading

import pytest
from mqttutil import NET_HEAP, Mosquitto, Subscriber, dedup
from test_vboard import play_turn
from vboard import VBoard

from nardy.posjson import from_json
from nardy.variants import find_variant


def _board(tmp_path, name="vb"):
    b = VBoard(str(tmp_path / name), heap=NET_HEAP)
    # a board that hangs fails the test instead of holding it (no timed assertion:
    # only a stall longer than this fails)
    t = threading.Timer(240, b.kill)
    t.daemon = True
    t.start()
    b.watchdog = t
    b.send({"cmd": "set", "oled": False})
    b.sync()        # (its ``set`` reply read: the next one is the broker's)
    return b


def _new_game(b, variant):
    b.send({"cmd": "new", "variant": variant, "match": 1})
    b.sync()
    d = b.dump()
    v = find_variant(d["variant"], d["options"] or {})
    b.sense(v, from_json(v, d["position"]))
    b.button("ok")       # opening roll
    b.sync()


def _turns(b, rng, n):
    """Up to ``n`` turns; False once the game is over."""
    return all(play_turn(b, rng) is not None for _ in range(n))


def _journal(b, gid):
    return [json.loads(x) for x in b.log(gid)]


def _net_states(b):
    return [e["state"] for e in b.events if e["ev"] == "net"]


def _set_broker(b, **mqtt):
    b.send({"cmd": "set", "mqtt": mqtt})
    return b.wait("set")


@pytest.fixture
def rig(tmp_path, board_path):
    """A mosquitto, a subscriber to every board on it, and a virtual board."""
    broker = Mosquitto(str(tmp_path / "mq"))
    sub = Subscriber(broker.port)
    b = _board(tmp_path)
    try:
        yield broker, sub, b
    finally:
        b.close()
        sub.close()
        broker.stop()


def test_a_played_game_arrives_once_in_order(rig):
    broker, sub, b = rig
    _set_broker(b, host="127.0.0.1", port=broker.port, id="table1")
    _new_game(b, "short")
    rng = random.Random(5)
    while _turns(b, rng, 10):
        pass
    d = b.dump()
    assert d["phase"] == "match_end"
    gid = d["game"]
    recs = _journal(b, gid)
    assert recs[-1]["r"] == "end"
    assert sub.wait_for(lambda s: len(s.events()) >= len(recs)), (
        len(sub.events()), len(recs), _net_states(b))
    got = sub.events()
    # every record, once, in order, with the journal's own numbering
    assert [(e["game"], e["seq"]) for e in got] == [(gid, i) for i in range(len(recs))]
    assert [e["rec"] for e in got] == recs
    # the retained snapshot is the final position, numbered after the last record
    assert sub.wait_for(lambda s: any(
        t == "nardy/table1/state" and m["seq"] == len(recs) for t, m, _ in s.got))
    snap = [m for t, m, _ in sub.got if t == "nardy/table1/state"][-1]
    assert snap["game"] == gid and snap["state"]["position"] == d["position"]
    late = Subscriber(broker.port, "nardy/table1/+")    # joins after the game
    assert late.wait_for(lambda s: any(t.endswith("/state") and r for t, _, r in s.got))
    assert [m for t, m, r in late.got if t.endswith("/online")] == [1]
    late.close()
    assert _net_states(b) == ["connected"]


def test_broker_killed_mid_game_loses_nothing(rig):
    broker, sub, b = rig
    _set_broker(b, host="127.0.0.1", port=broker.port, id="table2")
    _new_game(b, "long")
    rng = random.Random(11)
    _turns(b, rng, 4)
    gid = b.dump()["game"]
    before = len(_journal(b, gid))
    assert sub.wait_for(lambda s: len(dedup(s.events())) >= before)
    broker.stop()
    # the board plays on without its broker: records are journaled, not published
    assert _turns(b, rng, 6)
    during = len(_journal(b, gid))
    assert during > before
    assert any(s.startswith("down") for s in _net_states(b))
    broker.start()
    assert _turns(b, rng, 2)
    recs = _journal(b, gid)
    assert sub.wait_for(lambda s: len(dedup(s.events())) >= len(recs), 60), (
        len(dedup(sub.events())), len(recs), _net_states(b))
    got = sub.events()
    once = dedup(got)
    assert [(e["game"], e["seq"]) for e in once] == [(gid, i) for i in range(len(recs))]
    assert [e["rec"] for e in once] == recs
    # QoS 1 may repeat only the record in flight when the broker went away
    assert len(got) - len(once) <= 1
    b.sync()
    states = _net_states(b)
    assert states[0] == "connected" and states[-1] == "connected", states
    assert any(s.startswith("down") for s in states[1:-1]), states


def _silent_listener():
    """A TCP port that accepts and never answers (a broker that hangs)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(4)
    return s


@pytest.mark.parametrize("kind", ["down", "silent", "refused"])
def test_a_bad_broker_never_stalls_the_board(tmp_path, board_path, kind):
    held = None
    broker = None
    if kind == "down":
        from mqttutil import free_port
        port = free_port()
        cfg = {"port": port}
    elif kind == "silent":
        held = _silent_listener()
        cfg = {"port": held.getsockname()[1]}
    else:
        broker = Mosquitto(str(tmp_path / "mq"), users={"board": "right"})
        cfg = {"port": broker.port, "user": "board", "password": "wrong"}
    b = _board(tmp_path)
    try:
        _set_broker(b, host="127.0.0.1", **cfg)
        _new_game(b, "short")
        rng = random.Random(3)
        # the whole game is played while the network task fails: scan, UI and USB
        # answer every line (a blocking client would hang here: the watchdog)
        while _turns(b, rng, 10):
            pass
        assert b.dump()["phase"] == "match_end"
        if kind == "silent":
            # a CONNACK that never comes is given up after _REPLY_MS (5 s)
            for _ in range(100):
                if _net_states(b):
                    break
                b.sync()
                threading.Event().wait(0.1)
        states = _net_states(b)
        assert states and states[0].startswith("down"), states
        assert "connected" not in states
        if kind == "refused":
            assert "bad user or password" in states[0]
    finally:
        b.close()
        if held is not None:
            held.close()
        if broker is not None:
            broker.stop()


def test_the_password_is_kept_and_never_sent_back(tmp_path, board_path):
    b = _board(tmp_path)
    try:
        ev = _set_broker(b, host="127.0.0.1", port=1, user="u", password="s3cret-pw")
        m = ev["settings"]["mqtt"]
        assert m["password_set"] is True and "password" not in m
        assert m["id"].startswith("nardy-") and m["prefix"] == "nardy"
        d = b.dump()
        assert "s3cret-pw" not in json.dumps(d) and "s3cret-pw" not in json.dumps(ev)
        b.send({"cmd": "hello"})
        assert "s3cret-pw" not in json.dumps(b.wait("hello"))
    finally:
        b.close()
    saved = json.loads((tmp_path / "vb" / "settings.json").read_text())
    assert saved["mqtt"]["password"] == "s3cret-pw"
    b = _board(tmp_path)            # after a reboot: the same broker, the same id
    try:
        assert b.dump()["settings"]["mqtt"]["id"] == m["id"]
        b.send({"cmd": "set", "mqtt": None})
        assert "mqtt" not in b.wait("set")["settings"]
    finally:
        b.close()
    assert "mqtt" not in json.loads((tmp_path / "vb" / "settings.json").read_text())


def test_a_bad_broker_in_settings_json_is_reported_and_dropped(tmp_path, board_path):
    data = tmp_path / "vb"
    data.mkdir()
    (data / "settings.json").write_text(json.dumps(
        {"variant": "long", "brightness": 9, "mqtt": {"host": "h", "port": 0}}))
    b = _board(tmp_path)
    try:
        errors = [e["error"] for e in b.events if e["ev"] == "error"]
        assert any("bad mqtt" in e and "port" in e for e in errors), errors
        s = b.dump()["settings"]
        assert "mqtt" not in s and s["brightness"] == 9      # the rest is kept
        assert not _net_states(b)
    finally:
        b.close()
