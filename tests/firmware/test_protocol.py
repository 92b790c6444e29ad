"""Protocol commands are checked whole before the app changes anything (pure parse)."""

from nardy import protocol


def refused(line, why):
    """``line`` is refused by the protocol's parser, saying ``why``."""
    try:
        protocol.parse(line)
    except ValueError as e:
        assert why in str(e), (line, str(e))
    else:
        raise AssertionError("accepted: %s" % line)


def test_new_is_checked_whole():
    ok = protocol.parse('{"cmd": "new", "variant": "long", "match": 3, '
                        '"options": {"home_mars": true}}')
    assert ok["options"] == {"home_mars": True}
    refused('{"cmd": "new", "options": {"home_mars": "false"}}', "true or false")
    refused('{"cmd": "new", "options": {"nonsense": true}}', "unknown option")
    # an option of the other variant is unknown here
    refused('{"cmd": "new", "variant": "short", "options": {"home_mars": true}}',
             "unknown option")
    refused('{"cmd": "new", "match": 0}', "match")
    refused('{"cmd": "new", "match": true}', "match")
    refused('{"cmd": "new", "colour": "red"}', "unknown field")
    refused('{"cmd": "new", "options": [1]}', "options must be an object")


def test_deep_nesting_is_refused_before_parsing():
    deep = '{"cmd": "new", "options": {"home_mars": ' + "[" * 1500 + "]" * 1500 + "}}"
    refused(deep, "too deeply nested")
    refused(b'{"cmd": "ping", "id": ' + b"[" * 40 + b"]" * 40 + b"}", "too deeply nested")


def test_ping_ids_must_make_valid_json():
    assert protocol.parse('{"cmd": "ping", "id": 7}')["id"] == 7
    assert protocol.parse('{"cmd": "ping", "id": "a7"}')["id"] == "a7"
    assert protocol.parse('{"cmd": "ping"}').get("id") is None
    assert protocol.parse('{"cmd": "ping", "id": 1.5}')["id"] == 1.5
    refused('{"cmd": "ping", "id": 1e999}', "id must be")
    refused('{"cmd": "ping", "id": -1e999}', "id must be")
    refused('{"cmd": "ping", "id": [1]}', "id must be")
    refused('{"cmd": "ping", "id": {"a": 1}}', "id must be")
    refused('{"cmd": "ping", "id": "%s"}' % ("x" * 100), "id must be")


def test_set_and_index_fields():
    refused('{"cmd": "set", "brightness": 300}', "brightness")
    refused('{"cmd": "set", "volume": 3}', "unknown field")
    refused('{"cmd": "set", "dice": "loaded"}', "dice")
    assert protocol.parse('{"cmd": "index"}')["cmd"] == "index"
    assert protocol.parse('{"cmd": "index", "after": 12, "limit": 8}')["after"] == 12
    refused('{"cmd": "index", "limit": 0}', "limit")
    refused('{"cmd": "index", "limit": 9}', "limit")
    refused('{"cmd": "index", "after": -1}', "after")
    refused('{"cmd": "index", "after": "3"}', "after")


def test_settings_are_checked_by_type_and_range():
    good = {"variant": "long", "match": 1, "options": {"long": {}, "short": {}},
            "brightness": 16, "dice": "auto"}
    assert protocol.check_settings(good) == []
    bad = dict(good)
    bad.update(variant="chess", match=0)
    assert protocol.check_settings(bad) == ["variant", "match"]
    bad = dict(good)
    bad["options"] = {"long": {"home_mars": "false"}, "short": {}}
    assert protocol.check_settings(bad) == ["options.long"]
    bad["options"] = {"long": {}, "short": {}, "chess": {}}
    assert protocol.check_settings(bad) == ["options"]
    assert protocol.check_settings([]) == ["not an object"]
    bad = dict(good)
    bad.update(brightness=True, dice=None)
    assert protocol.check_settings(bad) == ["brightness", "dice"]


def test_nul_and_control_bytes_arerefused():
    # issue 22: '{"cmd":"hello"}\x00' was accepted (MicroPython's json stops at a NUL)
    assert protocol.parse(b'{"cmd":"hello"}\r')["cmd"] == "hello"
    assert protocol.parse(b'{"cmd":\t"hello"}')["cmd"] == "hello"
    for line in (b'{"cmd":"hello"}\x00', b'\x00{"cmd":"hello"}', b'{"cmd":"hello"}\x1b',
                 b'{"cmd":"ping", "id": "a\x01b"}', b'{"cmd":"hello"}\x7f'):
        refused(line, "control byte")
        refused(line.decode(), "control byte")


# (name, bytes) that strict UTF-8 refuses; MicroPython's decode takes most of them
_NOT_UTF8 = (("overlong /", b"\xc0\xaf"), ("overlong 3", b"\xc0\xb3"),
             ("overlong 3-byte", b"\xe0\x80\xaf"), ("surrogate", b"\xed\xa0\x80"),
             ("past U+10FFFF", b"\xf4\x90\x80\x80"), ("F5", b"\xf5\x80\x80\x80"),
             ("lone continuation", b"\x80"), ("cut sequence", b"\xe2\x82"),
             ("FF", b"\xff"))


def test_only_strict_utf8_is_parsed_or_echoed():
    for name, bad in _NOT_UTF8:
        line = b'{"cmd": "ping", "id": "' + bad + b'"}'
        refused(line, "not UTF-8")
        e = protocol.error("not UTF-8", line)
        assert e["line"] == "<binary>", (name, e)
    for ok in ("\u00e9", "\u20ac", "\U0001f600"):
        line = ('{"cmd": "ping", "id": "%s"}' % ok).encode()
        assert protocol.parse(line)["id"] == ok


def test_an_echo_is_cut_between_characters():
    for ch in ("\u00e9", "\u20ac", "\U0001f600"):
        line = ('{"cmd": "x' + ch * 40 + '"}').encode()
        echo = protocol.error("unknown cmd", line)["line"]
        b = echo.encode()
        assert 50 < len(b) <= 60 and line.startswith(b), (ch, echo)


def test_the_auto_end_setting_is_ms_or_zero_for_off():
    # issue 21: the turn's end on stillness is a setting, off (0) by default
    assert protocol.parse('{"cmd": "set", "auto_end": 0}')["auto_end"] == 0
    assert protocol.parse('{"cmd": "set", "auto_end": 1500}')["auto_end"] == 1500
    for bad in ("-1", "60001", "true", '"1000"', "1.5"):
        refused('{"cmd": "set", "auto_end": %s}' % bad, "auto_end")
    good = {"variant": "long", "match": 1, "options": {"long": {}, "short": {}},
            "brightness": 16, "dice": "auto"}
    assert protocol.check_settings(dict(good, auto_end=1000)) == []
    assert protocol.check_settings(dict(good, auto_end=-5)) == ["auto_end"]
