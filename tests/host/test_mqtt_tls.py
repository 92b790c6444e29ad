"""The broadcast over TLS (firmware/nardy/mqttcast.py, settings ``"tls": true``)
against mosquitto on a TLS-only listener with a self-signed certificate made here
by ``openssl``: the unix port's ssl module (mbedTLS) is the board's. With the
broker's CA on the board's flash (mqtt_ca.der) the certificate is verified: a game
arrives; a broker whose certificate another CA signed is refused; without a CA file
the link is encrypted but unverified (docs/NETWORK.md)."""

import random
import subprocess

import pytest
from mqttutil import Mosquitto, Subscriber, dedup
from test_mqtt import _board, _journal, _net_states, _new_game, _set_broker, _turns


def _cert(d, name):
    """A self-signed certificate for 127.0.0.1 (PEM cert, PEM key, DER cert)."""
    key, pem, der = (str(d / (name + x)) for x in (".key", ".pem", ".der"))
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
                    "-keyout", key, "-out", pem, "-days", "2", "-subj", "/CN=" + name,
                    "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
                   check=True, capture_output=True)
    subprocess.run(["openssl", "x509", "-in", pem, "-outform", "der", "-out", der],
                   check=True, capture_output=True)
    return pem, key, der


@pytest.fixture
def tls_broker(tmp_path):
    pem, key, der = _cert(tmp_path, "broker")
    broker = Mosquitto(str(tmp_path / "mq"), tls=(pem, key))
    sub = Subscriber(broker.port, tls_ca=pem)
    try:
        yield broker, sub, der
    finally:
        sub.close()
        broker.stop()


def _with_ca(tmp_path, der):
    data = tmp_path / "vb"
    data.mkdir(exist_ok=True)
    if der is not None:
        with open(der, "rb") as f:
            (data / "mqtt_ca.der").write_bytes(f.read())


@pytest.mark.parametrize("ca,host", [("broker", "127.0.0.1"), ("broker", "localhost"),
                                     ("none", "127.0.0.1")])
def test_a_game_arrives_over_tls(tmp_path, board_path, tls_broker, ca, host):
    """(``localhost``: a broker given by name, looked up by the board once, and
    its certificate checked against that name.)"""
    broker, sub, der = tls_broker
    _with_ca(tmp_path, der if ca == "broker" else None)
    b = _board(tmp_path)
    try:
        _set_broker(b, host=host, port=broker.port, id="tls1", tls=True)
        _new_game(b, "short")
        assert _turns(b, random.Random(2), 3)
        gid = b.dump()["game"]
        recs = _journal(b, gid)
        assert sub.wait_for(lambda s: len(dedup(s.events())) >= len(recs)), _net_states(b)
        assert [e["rec"] for e in dedup(sub.events())] == recs
        assert _net_states(b) == ["connected"]
    finally:
        b.close()


def test_a_broker_with_a_certificate_from_another_ca_is_refused(tmp_path, board_path,
                                                                 tls_broker):
    broker, sub, _ = tls_broker
    _, _, other = _cert(tmp_path, "other")
    _with_ca(tmp_path, other)
    b = _board(tmp_path)
    try:
        _set_broker(b, host="127.0.0.1", port=broker.port, id="tls2", tls=True)
        _new_game(b, "short")
        for _ in range(100):
            if _net_states(b):
                break
            b.sync()
            threading_wait(0.1)
        states = _net_states(b)
        assert states and states[0].startswith("down"), states
        assert "connected" not in states
        assert not sub.events()
    finally:
        b.close()


def threading_wait(s):
    import threading
    threading.Event().wait(s)


def test_tls_is_the_default_on_port_8883(tmp_path, board_path):
    b = _board(tmp_path)
    try:
        m = _set_broker(b, host="127.0.0.1", port=8883)["settings"]["mqtt"]
        assert m["tls"] is True
        m = _set_broker(b, host="127.0.0.1", port=8883, tls=False)["settings"]["mqtt"]
        assert "tls" not in m
        b.send({"cmd": "set", "mqtt": {"host": "h", "tls": "yes"}})
        assert "tls" in b.wait("error")["error"]
    finally:
        b.close()
