"""What the OLED tests share (tests/firmware/test_ui.py, test_lang.py): a recording
canvas, the layout checks, the golden screens, a game to draw and the warnings the
firmware can show. A module of its own so that a test module that needs them does
not load test_ui's tests too: a 112wK heap holds one test module at a time."""

import os

from apputil import Obs, Rand, tmpdir

from nardy.dice import Dice
from nardy.game import Game
from nardy.journal import Journal
from nardy.pinmap import load
from nardy.ui import draw
from nardy.zones import Layout

try:
    import framebuf
except ImportError:   # CPython: no framebuf; the goldens are checked under MicroPython
    framebuf = None

_here = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
GOLDEN = _here + "/golden/"
LAYOUT = Layout(5)


class Recorder:
    """The framebuf drawing interface without framebuf (CPython): counts shapes; the
    text drawn is read from the layout boxes ``draw`` records."""

    def __init__(self):
        self.shapes = 0

    def fill(self, c):
        pass

    def text(self, s, x, y, c=1):
        pass

    def rect(self, *a):
        self.shapes += 1

    fill_rect = rect
    hline = rect
    vline = rect
    line = rect
    pixel = rect


def _inside(a, b):
    return b[1] <= a[1] and a[1] + a[3] <= b[1] + b[3] and \
        b[2] <= a[2] and a[2] + a[4] <= b[2] + b[4]


def _overlap(a, b):
    return a[1] < b[1] + b[3] and b[1] < a[1] + a[3] and \
        a[2] < b[2] + b[4] and b[2] < a[2] + a[4]


_MASK = bytearray(128 * 64 // 8)


def check_layout(boxes, fb=None):
    """Every box on the screen, no two texts or dice overlapping (text on an inverted
    bar lies inside the bar), and, given the frame buffer, no lit pixel outside the
    boxes (nothing drawn that the layout does not know of)."""
    for b in boxes:
        assert b[1] >= 0 and b[2] >= 0 and b[1] + b[3] <= 128 and b[2] + b[4] <= 64, b
    solid = [b for b in boxes if b[0] in ("text", "die")]
    bars = [b for b in boxes if b[0] == "bar"]
    for i in range(len(solid)):
        a = solid[i]
        for b in solid[i + 1:]:
            assert not _overlap(a, b), (a, b)
        for bar in bars:
            assert _inside(a, bar) or not _overlap(a, bar), (a, bar)
        for r in boxes:
            if r[0] == "rule":
                assert not _overlap(a, r), (a, r)
    if fb is not None:
        mask = _MASK      # one bit a pixel (8 KB of bytes would strain the heap)
        for i in range(len(mask)):
            mask[i] = 0
        for b in boxes:
            for y in range(b[2], b[2] + b[4]):
                for x in range(b[1], b[1] + b[3]):
                    k = 128 * y + x
                    mask[k >> 3] |= 1 << (k & 7)
        for y in range(64):
            for x in range(128):
                k = 128 * y + x
                if fb.pixel(x, y) and not mask[k >> 3] & (1 << (k & 7)):
                    raise AssertionError("pixel %d,%d outside the layout %r" % (x, y, boxes))


def _texts(boxes):
    return [b[5] for b in boxes if b[0] == "text"]


def _canvas():
    buf = bytearray(128 * 64 // 8)
    return framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB), buf


def _row(fb, y):
    return "".join("#" if fb.pixel(x, y) else "." for x in range(128)) + "\n"


def _golden(name, game, menu=None):
    boxes = []
    draw(Recorder(), game, menu, boxes=boxes)
    check_layout(boxes)
    if framebuf is None:
        return _texts(boxes)
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
    return _texts(boxes)


def _pinmap():
    return load(_here + "/../../firmware/pinmap/esp32s3.json")


def _rolled(name):
    """A short-nardy game after the opening and the first roll (see _game)."""
    g, j, d, obs = _game(name, "short")
    g.press("ok", "short", obs)
    g.press("ok", "short", obs)
    return g, j, d, obs


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


def _literals(path):
    """("RULE", "text") pairs and say(None, "text") hints written in a source file
    (line by line: the sources are too big for the heap at once)."""
    out = []
    with open(path) as f:
        for src in f:
            _line_literals(src, out)
    return out


def _line_literals(src, out):
    i = src.find('"', 0)
    while i >= 0:
        j = src.find('"', i + 1)
        if j < 0:
            break
        tok = src[i + 1:j]
        rule = None
        if 2 <= len(tok) <= 3 and tok[0] in "LSC" and tok[1:].isdigit():
            rule = tok
        elif src[i - 10:i] == "say(None, ":
            rule = ""
        if rule and src[j + 1:j + 4] == ', "':
            k = src.find('"', j + 4)
            out.append((rule, src[j + 4:k]))
            j = k
        elif rule == "":
            out.append((None, tok))
        i = src.find('"', j + 1)


def warning_texts():
    """Every (rule, reason) the engine, the tracker and the game can show: the
    engine's table of reasons for both variants and every literal pair written in
    rules.py, tracker.py and game.py (a new warning is covered without editing this
    test). Formats get the longest value they take."""
    from nardy import rules
    from nardy.longnardy import LongNardy
    from nardy.shortnardy import ShortNardy
    out = []
    for v in (LongNardy(), ShortNardy()):
        for code in range(1, len(rules._REASONS)):
            out.append(v.verdict(code))
    fw = _here + "/../../firmware/nardy/"
    for name in ("rules.py", "tracker.py", "game.py"):
        out.extend(_literals(fw + name))
    seen = []
    for rule, text in out:
        text = text.replace("%s", "black").replace("%d", "15")
        if (rule, text) not in seen:
            seen.append((rule, text))
    return seen


def _joined(boxes):
    return " ".join(_texts(boxes))
