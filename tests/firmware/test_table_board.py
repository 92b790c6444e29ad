"""The app at the table (issue 21): the lights on the first scan of a lift, the
auto-end setting read at boot. The whole app on the virtual board (nardy.hal_virtual)."""

import json
import sys

import fakemachine
from apputil import readings, rmtree, tmpdir

from nardy.app import App
from nardy.game import MOVE
from nardy.ui import DEFAULT_COLOURS, led_frame

_here = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
PINMAP = _here + "/../../firmware/pinmap/esp32s3.json"


def _virtual_board(*args, **kw):
    made = fakemachine.install_framebuf()   # CPython: a stand-in for MicroPython's
    try:
        from nardy.hal_virtual import Board
        return Board(*args, **kw)
    finally:
        if made:
            fakemachine.remove_framebuf()
            sys.modules.pop("nardy.hal_virtual", None)


def _app(name, settings=None):
    d = tmpdir(name)
    if settings is not None:
        with open(d + "/settings.json", "w") as f:
            f.write(json.dumps(settings))
    events = []
    b = _virtual_board(PINMAP, d, out=events.append)
    app = App(b, d)
    app.boot()
    return app, b, d, events


def _settle(app, b):
    while not b.idle():
        app.cycle()


def _kinds(app, zone):
    """The LED kinds lit on ``zone`` now."""
    b = app.board
    led_frame(app.frame, b.pinmap.led_zones, app.game, b.ticks_ms(),
              app.settings["brightness"], b.pinmap.led_max)     # as App.redraw
    names = {v: k for k, v in DEFAULT_COLOURS.items()}
    out = []
    zones = b.pinmap.led_zones
    bright = min(app.settings["brightness"], b.pinmap.led_max)
    for i in range(len(zones)):
        if zones[i] == zone:
            rgb = tuple(app.frame[3 * i:3 * i + 3])
            for colour, k in names.items():
                if rgb == tuple(c * bright // 255 for c in colour) and any(rgb):
                    out.append(k)
    return out


def test_the_targets_light_on_the_first_scan_that_shows_the_lift():
    app, b, d, events = _app("early")
    try:
        app.handle(b'{"cmd": "new", "variant": "short", "match": 1}')
        g = app.game
        lay = app.layout
        start = readings(lay, g.variant, g.pos)
        b.sense(start, 400)
        _settle(app, b)
        g.dice_src.load([6, 1, 6, 5])
        app.button("ok", "short")
        app.button("ok", "short")
        assert g.phase == MOVE and g.dice == (6, 5)
        v = g.variant
        pos = g.pos
        lifted = readings(lay, v, pos, hand=(pos.turn, 12))      # a point of five
        z = v.physical(pos.turn, 12)
        target = v.physical(pos.turn, 18)
        b.sense(lifted, b.period_ms)                              # one scan
        _settle(app, b)
        assert g.tracker.lifted == [] and not [e for e in events if e["ev"] == "lift"]
        assert "target" in _kinds(app, target) and "lifted" in _kinds(app, z)
        b.sense(start, b.period_ms)                               # the reading returns
        _settle(app, b)
        assert _kinds(app, target) == [] and g.early_targets is None
        b.sense(lifted, 400)                                      # a real lift
        _settle(app, b)
        assert g.tracker.lifted == [z] and target in g.tracker.targets
        assert "target" in _kinds(app, target)
        assert [e for e in events if e["ev"] == "lift"]
    finally:
        app.journal.close()
        rmtree(d)


def test_the_auto_end_setting_is_read_at_boot_and_a_bad_one_is_reported():
    app, b, d, events = _app("autoboot", {"variant": "long", "auto_end": 1500})
    try:
        assert app.settings["auto_end"] == 1500
        app.handle(b'{"cmd": "set", "auto_end": 0}')
        assert app.settings["auto_end"] == 0
        with open(d + "/settings.json") as f:
            assert json.loads(f.read())["auto_end"] == 0
    finally:
        app.journal.close()
        rmtree(d)
    app, b, d, events = _app("autobad", {"variant": "long", "auto_end": -2})
    try:
        assert "auto_end" not in app.settings
        assert [e for e in events if e["ev"] == "error" and "auto_end" in e["error"]]
        assert app.game.settings.get("auto_end", 0) == 0
    finally:
        app.journal.close()
        rmtree(d)


def test_menu_answers_an_open_resign_question_with_play_on():
    app, b, d, events = _app("resignmenu")
    try:
        app.handle(b'{"cmd": "new", "variant": "long", "match": 1}')
        g = app.game
        b.sense(readings(app.layout, g.variant, g.pos), 400)
        _settle(app, b)
        app.button("ok", "short")                  # the opening roll: ROLL
        assert g.phase == "roll"
        app.button("back", "long")
        assert g.resigning
        app.button("menu", "short")
        assert app.menu is None and not g.resigning and g.result is None
        app.button("menu", "short")                # now the menu opens
        assert app.menu is not None
    finally:
        app.journal.close()
        rmtree(d)
