"""The club configuration of docs/NETWORK.md ("A club's broker"): mosquitto with a
login per board and the document's own ACL file (read from the document, so the two
cannot drift), under which a board publishes only under its own topic. A paho client
and a virtual board, both logged in as table1, try to publish into table2's topic:
the room (logged in as the document's reader) never sees it, while table1's own
records arrive."""

import os
import re
import threading

import paho.mqtt.client as paho
import pytest
from mqttutil import NET_HEAP, Mosquitto, Subscriber
from test_mqtt import _journal, _new_game, _set_broker
from vboard import ROOT, VBoard

USERS = {"table1": "pw-table-1", "table2": "pw-table-2", "room": "pw-room"}


def documented_acl():
    """The ACL file of docs/NETWORK.md's club section (its ``acl`` code block)."""
    with open(os.path.join(ROOT, "docs", "NETWORK.md")) as f:
        text = f.read()
    m = re.search(r"## A club's broker.*?```acl\n(.*?)```", text, re.S)
    assert m, "docs/NETWORK.md has no club ACL block"
    return m.group(1)


@pytest.fixture
def club(tmp_path, board_path):
    broker = Mosquitto(str(tmp_path / "mq"), users=USERS, acl=documented_acl())
    room = Subscriber(broker.port, "nardy/#", user="room", password=USERS["room"])
    try:
        yield broker, room
    finally:
        room.close()
        broker.stop()


def _client(port, user):
    c = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id="paho-" + user)
    c.username_pw_set(user, USERS[user])
    c.connect("127.0.0.1", port)
    c.loop_start()
    return c


def _board(tmp_path, name):
    b = VBoard(str(tmp_path / name), heap=NET_HEAP)
    t = threading.Timer(120, b.kill)     # a hang fails the test (no timed assertion)
    t.daemon = True
    t.start()
    b.send({"cmd": "set", "oled": False})
    b.sync()
    return b


def test_a_board_cannot_publish_into_another_boards_topic(club):
    broker, room = club
    c = _client(broker.port, "table1")
    try:
        # the forged message first: the broker keeps one client's QoS 1 messages in
        # order, so once the genuine one is seen the forged one would have been too
        c.publish("nardy/table2/event", b'{"forged": 1}', qos=1).wait_for_publish(10)
        c.publish("nardy/table1/event", b'{"genuine": 1}', qos=1).wait_for_publish(10)
        assert room.wait_for(lambda s: any(t == "nardy/table1/event" for t, _, _ in s.got))
        assert not [t for t, _, _ in room.got if t.startswith("nardy/table2/")]
    finally:
        c.loop_stop()
        c.disconnect()
    other = _client(broker.port, "table2")      # table2 may: the ACL is per login
    try:
        other.publish("nardy/table2/event", b'{"own": 2}', qos=1).wait_for_publish(10)
        assert room.wait_for(lambda s: any(t == "nardy/table2/event" for t, _, _ in s.got))
    finally:
        other.loop_stop()
        other.disconnect()


def test_a_board_logged_in_as_table1_reaches_only_its_own_topic(club, tmp_path):
    broker, room = club
    liar = _board(tmp_path, "liar")         # logged in as table1, naming itself table2
    honest = _board(tmp_path, "honest")     # logged in as table1, as table1
    try:
        _set_broker(liar, host="127.0.0.1", port=broker.port, user="table1",
                    password=USERS["table1"], id="table2")
        _set_broker(honest, host="127.0.0.1", port=broker.port, user="table1",
                    password=USERS["table1"], id="table1")
        _new_game(liar, "short")
        _new_game(honest, "short")
        n = len(_journal(honest, honest.dump()["game"]))
        assert room.wait_for(lambda s: len([t for t, _, _ in s.got
                                            if t == "nardy/table1/event"]) >= n)
        # the broker took the liar's login and refused each of its records (its log
        # says so) ...
        recs = len(_journal(liar, liar.dump()["game"]))
        assert recs >= 2
        assert room.wait_for(lambda s: broker.log().count(
            "Denied PUBLISH from table2 ") >= recs), broker.log()[-2000:]
        assert {"ev": "net", "state": "connected"} in liar.events
        # ... and the room never saw one of them
        assert not [t for t, _, _ in room.got if t.startswith("nardy/table2/")]
    finally:
        liar.close()
        honest.close()
