"""The broker's settings (nardy.netcfg): checked whole through ``set`` and
settings.json, completed once, and never sent back with the password."""

from test_protocol import refused

from nardy import netcfg, protocol


def test_set_mqtt_is_checked():
    ok = protocol.parse('{"cmd": "set", "mqtt": {"host": "10.0.0.2", "port": 1884, '
                        '"user": "b7", "password": "pw", "prefix": "club/hall"}}')
    assert ok["mqtt"]["port"] == 1884
    assert protocol.parse('{"cmd": "set", "mqtt": null}')["mqtt"] is None
    refused('{"cmd": "set", "mqtt": {}}', "mqtt host")
    refused('{"cmd": "set", "mqtt": "10.0.0.2"}', "object or null")
    refused('{"cmd": "set", "mqtt": {"host": "h", "port": 0}}', "port")
    refused('{"cmd": "set", "mqtt": {"host": "h", "port": 65536}}', "port")
    refused('{"cmd": "set", "mqtt": {"host": "h", "port": true}}', "port")
    refused('{"cmd": "set", "mqtt": {"host": "a b"}}', "no spaces")
    refused('{"cmd": "set", "mqtt": {"host": "h", "password": "p"}}', "needs a user")
    refused('{"cmd": "set", "mqtt": {"host": "h", "prefix": "a/#"}}', "prefix")
    refused('{"cmd": "set", "mqtt": {"host": "h", "prefix": "/a"}}', "prefix")
    refused('{"cmd": "set", "mqtt": {"host": "h", "id": "a/b"}}', "mqtt id")
    refused('{"cmd": "set", "mqtt": {"host": "h", "id": "%s"}}' % ("x" * 24), "mqtt id")
    refused('{"cmd": "set", "mqtt": {"host": "h", "tls": 1}}', "tls must be true or false")
    refused('{"cmd": "set", "mqtt": {"host": "h", "tls": true, "ca": "x"}}', "unknown field")
    refused('{"cmd": "set", "mqtt": {"host": "%s"}}' % ("h" * 65), "1..64")


def _saved(**kw):
    from nardy.menu import defaults
    s = defaults()
    s.update(kw)
    return s


def test_complete_fills_defaults_and_makes_an_id_once():
    m = netcfg.complete({"host": "h"}, lambda n: bytes([0x3f, 0xa2][:n]))
    assert m == {"host": "h", "port": 1883, "prefix": "nardy", "id": "nardy-3fa2"}
    netcfg.check(m)
    kept = netcfg.complete(dict(m, user="u", password="p"), lambda n: b"\0" * n)
    assert kept["id"] == "nardy-3fa2" and kept["password"] == "p"
    assert netcfg.complete(None, None) is None


def test_public_never_has_the_password():
    s = _saved(mqtt={"host": "h", "port": 1883, "prefix": "p", "id": "b",
                     "user": "u", "password": "secret"})
    shown = netcfg.public(s)
    assert "password" not in shown["mqtt"] and shown["mqtt"]["password_set"] is True
    assert s["mqtt"]["password"] == "secret"        # the saved settings keep it
    plain = _saved()
    assert netcfg.public(plain) is plain


def test_a_refused_line_is_echoed_without_its_password():
    for line in ('{"cmd": "set", "mqtt": {"host": "h", "password": "s3cret"}}',
                 b'{"cmd":"set","mqtt":{"password":"s3cret","host":"h"}}'):
        e = protocol.error("mqtt password needs a user", line)
        assert "s3cret" not in e["line"] and '"password": ...' in e["line"], e
    assert protocol.error("x", '{"cmd": "hello"}')["line"] == '{"cmd": "hello"}'


def test_a_peer_is_checked_and_kept():
    # remote play (docs/NETWORK.md "Remote play"): the other board's id and the side
    # this board's player has, both or neither
    ok = protocol.parse('{"cmd": "set", "mqtt": {"host": "h", "id": "a", "peer": "b", '
                        '"side": "black"}}')
    m = netcfg.complete(ok["mqtt"], lambda n: b"\0" * n)
    assert m["peer"] == "b" and m["side"] == "black"
    netcfg.check(m)
    assert "peer" not in netcfg.complete({"host": "h"}, lambda n: b"\0" * n)
    refused('{"cmd": "set", "mqtt": {"host": "h", "peer": "b"}}', "go together")
    refused('{"cmd": "set", "mqtt": {"host": "h", "side": "white"}}', "go together")
    refused('{"cmd": "set", "mqtt": {"host": "h", "peer": "b", "side": "red"}}', "side")
    refused('{"cmd": "set", "mqtt": {"host": "h", "peer": "b/c", "side": "white"}}',
            "mqtt peer")
    refused('{"cmd": "set", "mqtt": {"host": "h", "id": "b", "peer": "b", '
            '"side": "white"}}', "another board")
