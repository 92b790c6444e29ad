"""OLED screens (golden 128x64 buffers as text art under MicroPython's framebuf,
drawn strings everywhere) and LED frames."""

import os

from apputil import Obs, Rand, rmtree, tmpdir

from nardy.dice import Dice
from nardy.game import Game
from nardy.journal import Journal
from nardy.menu import Menu, defaults
from nardy.pinmap import load
from nardy.sensing import Layout
from nardy.ui import draw, led_frame

try:
    import framebuf
except ImportError:   # CPython: no framebuf; the goldens are checked under MicroPython
    framebuf = None

_here = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
GOLDEN = _here + "/golden/"
LAYOUT = Layout(5)


class Recorder:
    """The framebuf drawing interface, recording text and counting shapes."""

    def __init__(self):
        self.texts = []
        self.shapes = 0

    def fill(self, c):
        self.texts = []

    def text(self, s, x, y, c=1):
        assert 0 <= x < 128 and 0 <= y <= 56, (s, x, y)
        assert x + 8 * len(s) <= 128, s
        self.texts.append(s)

    def rect(self, *a):
        self.shapes += 1

    fill_rect = rect
    hline = rect
    vline = rect
    line = rect
    pixel = rect


def _canvas():
    buf = bytearray(128 * 64 // 8)
    return framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB), buf


def _row(fb, y):
    return "".join("#" if fb.pixel(x, y) else "." for x in range(128)) + "\n"


def _golden(name, game, menu=None):
    rec = Recorder()
    draw(rec, game, menu)
    if framebuf is None:
        return rec.texts
    fb, _ = _canvas()
    draw(fb, game, menu)
    path = GOLDEN + name + ".txt"
    if os.getenv("NARDY_GOLDEN_UPDATE"):
        with open(path, "w") as f:
            for y in range(64):
                f.write(_row(fb, y))
    # row by row: the whole text art (8 KB) at once would strain the heap
    with open(path) as f:
        for y in range(64):
            assert f.readline() == _row(fb, y), "screen %s differs from %s at row %d" % (
                name, path, y)
        assert f.readline() == ""
    return rec.texts


def _game(name, variant="long", seed=1, settings=None):
    d = tmpdir(name)
    j = Journal(d)
    j.scan()
    s = {"variant": variant}
    if settings:
        s.update(settings)
    g = Game(j, LAYOUT, lambda e: None, Dice(Rand(seed)), s)
    g.new_match()
    obs = Obs(LAYOUT).show(g.variant, g.pos)
    g.observe(obs)
    return g, j, d, obs


def _illegal(g):
    """A step from the 24-point by a distance no die shows, onto an open point."""
    v = g.variant
    for dist in range(1, 7):
        if dist not in g.dice and g.pos.count(1 - g.pos.turn, v.opp_point(1 + dist)) < 2:
            return v.apply_step(g.pos, (1, 1 + dist))
    raise AssertionError("no illegal step found")


def test_screens():
    g, j, d, obs = _game("ui", "short")
    t = _golden("opening", g)
    assert "Opening roll" in t and "0-0/1" in t
    g.press("ok", "short", obs)
    t = _golden("roll", g)
    assert (("White to roll" in t) or ("Black to roll" in t)), t
    g.press("ok", "short", obs)
    t = _golden("move", g)
    assert t[2] in ("White", "Black"), t
    # lift a checker off the head: the legal targets are named
    side = g.pos.turn
    obs.show(g.variant, g.pos, hand=(side, 1))
    g.observe(obs)
    t = _golden("lifted", g)
    assert t[-1].startswith("to P"), t
    # put it somewhere illegal: a second checker from the head, or a wrong point
    bad = _illegal(g)
    obs.show(g.variant, bad)
    g.observe(obs)
    t = _golden("warning", g)
    assert any(x.startswith("! ") for x in t), t
    g.press("back", "long", obs)
    t = _golden("game_end", g)
    assert "oin +1" in t and "Match over" in t, t
    assert "Short" in t
    j.close()
    rmtree(d)


def test_menu_screen_and_changes():
    s = defaults()
    m = Menu(s, cap=16)
    rec = Recorder()
    m.draw(rec)
    assert rec.texts[0] == "Settings" and rec.texts[1].startswith(">Game")
    assert m.press("ok") and s["variant"] == "short"
    m.press("back")
    m.press("ok")
    assert s["match"] == 3
    while m.items()[m.i][0] != "brightness":
        m.press("back")
    m.press("ok")
    assert s["brightness"] == 32 and m.items()[m.i][2] == "32*"   # above the cap: marked
    g, j, d, obs = _game("uimenu")
    _golden("menu", g, m)
    j.close()
    rmtree(d)
    assert not m.press("menu")


def test_sync_guidance_screen():
    g, j, d, obs = _game("uisync")
    pos = g.pos.copy()
    pos.side(0)[1] -= 3
    pos.side(0)[25] += 3
    obs.show(g.variant, pos)
    g.observe(obs)
    t = _golden("sync", g)
    # the head (12 of 15) still fills its slots; the three extra in the tray show
    assert "Fix W off:" in t and "white 0, sees 3" in t, t
    j.close()
    rmtree(d)


def test_led_frame_cap_and_content():
    pm = load(_here + "/../../firmware/pinmap/esp32s3.json")
    g, j, d, obs = _game("uileds", "short")
    g.press("ok", "short", obs)
    g.press("ok", "short", obs)
    side = g.pos.turn
    obs.show(g.variant, g.pos, hand=(side, 1))
    g.observe(obs)
    frame = bytearray(3 * pm.led_count)
    led_frame(frame, pm.led_zones, g, 0, 255, pm.led_max)
    assert max(frame) == pm.led_max            # capped by the pin map
    head = g.variant.physical(side, 1)
    i = head - 1                               # P-points are chain positions 0..23
    assert frame[3 * i:3 * i + 3] == bytes((16, 160 * 16 // 255, 0))   # lifted: amber
    lit = [k // 3 + 1 for k in range(0, 72, 3) if frame[k + 1] and not frame[k]]
    assert sorted(lit) == sorted(g.tracker.targets), (lit, g.tracker.targets)
    led_frame(frame, pm.led_zones, g, 0, 4, pm.led_max)
    assert max(frame) <= 4
    j.close()
    rmtree(d)


def test_illegal_step_blinks():
    pm = load(_here + "/../../firmware/pinmap/esp32s3.json")
    g, j, d, obs = _game("uiblink", "short")
    g.press("ok", "short", obs)
    g.press("ok", "short", obs)
    bad = _illegal(g)
    obs.show(g.variant, bad)
    g.observe(obs)
    assert g.warning() is not None
    frame = bytearray(3 * pm.led_count)
    zones = g.warning()[2]
    on = led_frame(frame, pm.led_zones, g, 300, 255, 255)
    red = [i for i in range(pm.led_count) if on[3 * i] == 255 and not on[3 * i + 1]]
    assert sorted(pm.led_zones[i] for i in red) == sorted(zones)
    off = led_frame(bytearray(3 * pm.led_count), pm.led_zones, g, 0, 255, 255)
    assert not [i for i in range(pm.led_count) if off[3 * i] == 255 and not off[3 * i + 1]]
    j.close()
    rmtree(d)
