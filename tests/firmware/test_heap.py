"""Modules needed only now and then are not kept on the heap (56wK with the code in
flash has no room for them beside a game): the move service while a game's variant
is made, the menu while it is closed. (Runs under CPython and unix MicroPython; only
MicroPython drops modules, CPython keeps them.)"""

import gc
import sys

from nardy import drop_module
from nardy.app import App
from nardy.game import SETUP, variant_for

MICROPYTHON = sys.implementation.name == "micropython"


def test_making_a_variant_leaves_no_move_service_behind():
    v = variant_for("long", {})
    assert v.name == "long"
    if MICROPYTHON:
        assert "nardy.movesvc" not in sys.modules
        assert "nardy.posjson" not in sys.modules
        assert "nardy.variants" not in sys.modules    # the registry imports both games
        # the other variant's module is not kept either
        assert "nardy.shortnardy" not in sys.modules
    assert v.legal_turns(v.start_position(), (6, 5))
    s = variant_for("short", {})
    assert s.name == "short"
    assert len(s.legal_turns(s.start_position(), (6, 5))) == 7
    assert v.legal_turns(v.start_position(), (6, 5))    # the long game still plays
    try:
        variant_for("tavla", {})
    except ValueError as e:
        assert "variant" in str(e)
    else:
        raise AssertionError("an unknown variant was accepted")
    if MICROPYTHON:
        assert "nardy.variants" not in sys.modules    # dropped on an error too


def test_protocol_checks_options_without_keeping_the_registry():
    # (the refusal itself: test_variants)
    from nardy import protocol
    line = '{"cmd": "new", "variant": "%s", "options": {"home_mars": true}}'
    assert protocol.parse(line % "long")
    refused = None
    try:
        protocol.parse(line % "short")
    except ValueError as e:
        refused = str(e)
    assert refused is not None and "home_mars" in refused
    if MICROPYTHON:
        assert "nardy.variants" not in sys.modules
    from nardy import variants
    assert protocol.VARIANTS == variants.NAMES


def test_drop_module_forgets_the_module_and_the_package_attribute():
    import nardy
    from nardy import lines
    assert lines.TOO_LONG is not None
    drop_module("nardy.lines")
    if MICROPYTHON:
        assert "nardy.lines" not in sys.modules
        assert "lines" not in nardy.__dict__
    drop_module("nardy.lines")          # twice: nothing to do, no error
    from nardy import lines as again
    assert again.TOO_LONG == lines.TOO_LONG


class _Pinmap:
    led_max = 128


class _Board:
    pinmap = _Pinmap()


class _Game:
    phase = SETUP

    def __init__(self):
        self.new = 0

    def new_match(self):
        self.new += 1


class _AppStub:
    """What ``App.button`` uses while the menu opens and closes."""

    def __init__(self):
        self.board = _Board()
        self.game = _Game()
        self.menu = None
        self.have_obs = False
        self.sensing = None
        self.drawn = 0
        self.saved = 0
        self.settings = {"variant": "long", "match": 1, "options": {"long": {}, "short": {}},
                         "brightness": 16, "dice": "auto"}

    def save_settings(self):
        self.saved += 1


def test_the_menu_is_on_the_heap_only_while_open():
    app = _AppStub()
    App.button(app, "menu", "short")
    assert app.menu is not None
    assert "nardy.menu" in sys.modules
    App.button(app, "ok", "short")               # the first item: the variant
    assert app.settings["variant"] == "short"
    App.button(app, "menu", "short")             # closes it, saves
    assert app.menu is None
    assert app.saved == 1
    gc.collect()
    if MICROPYTHON:
        assert "nardy.menu" not in sys.modules
    App.button(app, "menu", "short")             # opens again: imported again
    assert app.menu is not None
    App.button(app, "menu", "short")
    assert app.saved == 2 and app.game.new == 0


class _BootBoard:
    """What ``App`` needs at boot, without a display or USB."""

    virtual = True

    def __init__(self):
        from nardy.pinmap import load
        here = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
        self.pinmap = load(here + "/../../firmware/pinmap/esp32s3.json")
        self.events = []

    def out(self, obj):
        self.events.append(obj)

    def flash_free(self):
        return -1

    def urandom(self, n):
        import os
        return os.urandom(n)


def test_the_boot_code_is_dropped_after_boot():
    import os
    import time
    path = "/tmp/nardy-heaptest-%d" % (time.ticks_ms() if hasattr(time, "ticks_ms")
                                       else int(time.time() * 1000))
    os.mkdir(path)
    with open(path + "/settings.json", "w") as f:
        f.write('{"variant": "short", "match": 300, "brightness": 40}')
    b = _BootBoard()
    try:
        app = App(b, path)
        app.boot()
        # the settings were read (a bad match length gets its default) and reported
        assert app.settings["variant"] == "short"
        assert app.settings["brightness"] == 40
        assert app.settings["match"] == 1
        assert [e for e in b.events if e["ev"] == "error" and "match" in e["error"]]
        assert b.events[-1]["ev"] == "hello"
        app.game.new_match()
        st = app.game.state()                   # dump: the position as JSON
        assert st["variant"] == "short" and st["position"]["turn"] in ("white", "black")
        # a host command is answered by the command table
        app.line_in(b'{"cmd": "ping", "id": 7}')
        assert b.events[-1] == {"ev": "pong", "id": 7}
        app.line_in(b'{"cmd": "dump"}')
        assert b.events[-1]["ev"] == "dump" and b.events[-1]["variant"] == "short"
        if MICROPYTHON:
            assert "nardy.posjson" not in sys.modules
            assert "nardy.appboot" not in sys.modules
            assert "nardy.menu" not in sys.modules
    finally:
        for d in (path + "/journal", path):
            for n in os.listdir(d):
                if d == path and n == "journal":
                    continue
                os.remove(d + "/" + n)
            os.rmdir(d)
