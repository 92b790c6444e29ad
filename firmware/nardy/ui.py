"""OLED screens and LED frames, composed from the game state. Pure.

``draw(fb, game, menu=None, note=None, boxes=None)`` draws a 128x64 screen on any
object with the ``framebuf.FrameBuffer`` drawing methods (the SSD1306 driver is one;
tests use a RAM FrameBuffer). ``led_frame(...)`` fills a bytearray of 3 bytes per
LED in the chain order of the pin map.

Layout: nothing overlaps, nothing is cut. Big text (framebuf's 8x8 font, 16 a line)
says who and what; details, prompts and warnings use the compact 5x7 font
(``nardy.font``, 21 a line) and are wrapped, never cut: a screen drops a detail
line rather than a part of a warning's reason. Every box drawn can be recorded
(``boxes``, a list of (kind, x, y, w, h, text)) so tests check the layout.

- header (rows 0-8, a rule at row 9): variant / who moves, score on the right;
- dice (rows 11-30), 20 px faces, spent ones struck through;
- status lines from row 32, 8 px apart, compact font;
- a warning is a screen of its own: an inverted bar with "! RULE" and the mover,
  the whole reason, then what to do (who presses what).
"""

from nardy.font import ADVANCE, FIRST, GLYPHS, HEIGHT
from nardy.game import (
    ACCEPT,
    CHOOSE,
    ENTRY,
    GAME_END,
    LIFTED,
    MATCH_END,
    MOVE,
    OPENING,
    OUT_OF_SYNC,
    ROLL,
    SETUP,
    TAKE_BACK,
    TURN_DONE,
    WARNED,
    misplaced,
)
from nardy.rules import COLORS
from nardy.sensing import ZONE_BAR, ZONE_OFF_B, ZONE_OFF_W

try:
    import framebuf
except ImportError:   # CPython: glyphs are drawn pixel by pixel
    framebuf = None

W = 128
H = 64
COLS = W // ADVANCE          # 21 compact characters a line
BIG = 8                      # framebuf's font: 8x8 cells

# pip positions on a 3x3 grid per face (row-major cells 0..8)
_PIPS = ((4,), (0, 8), (0, 4, 8), (0, 2, 6, 8), (0, 2, 4, 6, 8), (0, 2, 3, 5, 6, 8))

# One text line's glyph columns, allocated once: a line is copied in (by native
# code on MicroPython) and blitted whole, one blit per line instead of per glyph.
_LINE = bytearray(W)

if framebuf is not None:
    import micropython

    @micropython.viper
    def _columns(line, font, text, n: int, inv: int):
        """Glyph columns of the ``n`` bytes of ``text`` into ``line`` (6 a glyph,
        the last one blank), xor ``inv`` (255: dark on lit)."""
        d = ptr8(line)    # noqa: F821 - viper's built-in pointer types
        g = ptr8(font)    # noqa: F821
        t = ptr8(text)    # noqa: F821
        x = 0
        for i in range(n):
            c = t[i]
            if c < 32 or c > 126:
                c = 63        # "?"
            o = (c - 32) * 5
            for k in range(5):
                d[x + k] = g[o + k] ^ inv
            d[x + 5] = inv
            x += 6


def _cap(s):
    # MicroPython's str has no capitalize()
    return s[:1].upper() + s[1:]


def zone_name(z):
    if z == ZONE_BAR:
        return "bar"
    if z == ZONE_OFF_W:
        return "W off"
    if z == ZONE_OFF_B:
        return "B off"
    return "P%d" % z


def _box(boxes, kind, x, y, w, h, text=None):
    if boxes is not None:
        boxes.append((kind, x, y, w, h, text))


def small_text(fb, s, x, y, c=1, boxes=None):
    """Draw ``s`` in the compact font; the 6x8 cells are drawn whole (background
    ``1 - c``), so inverted text needs no fill of its own."""
    _box(boxes, "text", x, y, ADVANCE * len(s), HEIGHT, s)
    inv = 0 if c else 255
    if framebuf is not None and hasattr(fb, "blit"):
        b = s.encode()
        n = len(b)
        if n > COLS:
            n = COLS
        _columns(_LINE, GLYPHS, b, n, inv)
        fb.blit((_LINE, ADVANCE * n, HEIGHT, framebuf.MONO_VLSB), x, y)
        return
    # anything else with pixel() (CPython, test recorders): the same cells
    for ch in s:
        o = ord(ch) - FIRST
        if not 0 <= o < 95:
            o = ord("?") - FIRST
        o *= 5
        for i in range(ADVANCE):
            col = (GLYPHS[o + i] if i < 5 else 0) ^ inv
            for r in range(HEIGHT):
                fb.pixel(x + i, y + r, (col >> r) & 1)
        x += ADVANCE


def big_text(fb, s, x, y, c=1, boxes=None):
    _box(boxes, "text", x, y, BIG * len(s), BIG, s)
    fb.text(s, x, y, c)


def wrap(text, width=COLS):
    """Words into lines of at most ``width`` characters (a longer word is split)."""
    lines = []
    cur = ""
    for w in text.split(" "):
        while len(w) > width:
            if cur:
                lines.append(cur)
                cur = ""
            lines.append(w[:width])
            w = w[width:]
        if cur and len(cur) + 1 + len(w) > width:
            lines.append(cur)
            cur = w
        else:
            cur = w if not cur else cur + " " + w
    if cur:
        lines.append(cur)
    return lines


class _Lines:
    """Compact status lines from row ``y`` down: whole paragraphs or nothing."""

    def __init__(self, fb, y, boxes):
        self.fb = fb
        self.y = y
        self.boxes = boxes

    def room(self):
        return (H - self.y) // HEIGHT

    def add(self, text, c=1):
        """Draw ``text`` wrapped; False (nothing drawn) if it does not fit whole."""
        ls = wrap(text)
        if len(ls) > self.room():
            return False
        for ln in ls:
            small_text(self.fb, ln, 0, self.y, c, self.boxes)
            self.y += HEIGHT
        return True


def draw_die(fb, x, y, value, size=20, dim=False, boxes=None):
    _box(boxes, "die", x, y, size, size)
    fb.rect(x, y, size, size, 1)
    if dim:
        # a used die: a diagonal line across (the die is spent)
        fb.line(x, y + size - 1, x + size - 1, y, 1)
    step = size // 4
    for cell in _PIPS[value - 1]:
        cx = x + step * (1 + cell % 3)
        cy = y + step * (1 + cell // 3)
        fb.fill_rect(cx - 1, cy - 1, 3, 3, 1)


def _who(game):
    side = game.side_to_move()
    return _cap(COLORS[side]) if side is not None else ""


def _score(game):
    m = game.match
    if m is None:
        return ""
    return "%d-%d/%d" % (m.score[0], m.score[1], m.length)


def _header(fb, game, left, boxes):
    """``left`` in big text, the variant and score in compact text on the right."""
    big_text(fb, left, 0, 0, 1, boxes)
    right = _score(game)
    if game.variant is not None and left not in ("Long", "Short"):
        right = ("Long " if game.variant.name == "long" else "Short ") + right
    if right:
        x = W - ADVANCE * len(right)
        if x >= BIG * len(left) + 2:
            small_text(fb, right, x, 0, 1, boxes)
    _box(boxes, "rule", 0, 9, W, 1)
    fb.hline(0, 9, W, 1)


def _dice_row(fb, game, y, boxes):
    if not game.dice:
        return
    left = game.left()
    d = game.dice
    faces = [d[0]] * 4 if d[0] == d[1] else [d[0], d[1]]
    avail = list(left)
    x = 0
    for f in faces:
        used = f not in avail
        if not used:
            avail.remove(f)
        draw_die(fb, x, y, f, 20, dim=used, boxes=boxes)
        x += 24


def _variant_name(game):
    if game.variant is None:
        return "Nardy"
    return "Long" if game.variant.name == "long" else "Short"


def draw(fb, game, menu=None, note=None, boxes=None):
    fb.fill(0)
    if menu is not None:
        menu.draw(fb)
        return
    ph = game.phase
    w = game.warning()
    if w is not None:
        _warning_screen(fb, game, w, boxes)
    elif ph == MOVE:
        _move_screen(fb, game, boxes)
    else:
        _other_screen(fb, game, boxes)
    if note:
        # an error note (the app's crash line) takes the bottom line
        fb.fill_rect(0, H - HEIGHT, W, HEIGHT, 0)
        if boxes is not None:
            for b in list(boxes):
                if b[2] + b[4] > H - HEIGHT:
                    boxes.remove(b)
        small_text(fb, note[:COLS], 0, H - HEIGHT, 1, boxes)


def _warning_screen(fb, game, w, boxes):
    rule, text = w[0], w[1]
    ts = game.turn_state()
    _box(boxes, "bar", 0, 0, W, 9)
    fb.fill_rect(0, 0, W, 9, 1)
    head = "! " + rule if rule else "!"
    big_text(fb, head, 0, 0, 0, boxes)
    who = _who(game)
    if who:
        small_text(fb, who, W - ADVANCE * len(who) - 1, 0, 0, boxes)
    out = _Lines(fb, 11, boxes)
    out.add(text)
    out.y += 2
    if ts == ACCEPT:
        out.add("Opponent: hold OK to accept, BACK to take back")
    elif ts == TAKE_BACK:
        out.add("Refused: %s must play a legal turn" % who.lower())
    elif ts == WARNED:
        out.add("Take it back, or OK: end turn (opponent decides)")


def _move_screen(fb, game, boxes):
    _header(fb, game, _who(game), boxes)
    _dice_row(fb, game, 11, boxes)
    out = _Lines(fb, 32, boxes)
    t = game.tracker
    ts = game.turn_state()
    if ts == OUT_OF_SYNC:
        d = game.sync_diff()
        if d is not None:
            out.add(_sync_text(d))
        if game.message is not None:
            _message(out, game.message)
            return
        out.add("BACK: next  OK: end turn as it stands" if len(t.diffs) > 1
                else "fix it, or OK: end turn as it stands")
    elif ts == CHOOSE:
        out.add("Which result? %d of %d" % (game.cand_i + 1, len(t.candidates)))
        out.add("BACK: next  OK: this one")
    elif ts == LIFTED:
        if t.targets:
            out.add("to " + " ".join(zone_name(z) for z in t.targets))
        else:
            out.add("no legal place for it")
    elif ts == TURN_DONE:
        out.add("All dice played")
        out.add("OK: end turn")
    else:
        out.add("to play: " + " ".join(str(x) for x in game.left()))
    if game.message is not None:
        _message(out, game.message)


def _message(out, msg):
    rule, text = msg
    out.add(((rule + " ") if rule else "") + text)


def _other_screen(fb, game, boxes):
    ph = game.phase
    _header(fb, game, _variant_name(game), boxes)
    out = _Lines(fb, 12, boxes)
    setup = game.setup if ph in (ROLL, OPENING) else ()
    if ph == SETUP:
        big_text(fb, "New game?", 0, 12, 1, boxes)
        out.y = 22
        out.add("OK: new game")
        out.add("MENU: settings")
    elif setup:
        _setup_lines(fb, game, out, boxes)
        return
    elif ph == OPENING:
        big_text(fb, "Opening roll", 0, 12, 1, boxes)
        out.y = 22
        out.add("OK: one die each")
        out.add("the higher die starts")
    elif ph == ROLL:
        big_text(fb, _who(game) + " to roll", 0, 12, 1, boxes)
        out.y = 22
        out.add("OK: roll the dice")
        if game.message is not None:
            _message(out, game.message)    # first: it says why (a pass, L7)
            return
        if game.opening and game.n == 0:
            w, b = game.opening[-1]
            out.add("opening: W %d, B %d" % (w, b))
    elif ph == ENTRY:
        e = game.entry
        big_text(fb, "Dice: %d %d" % (e.values[0], e.values[1]), 0, 12, 1, boxes)
        out.y = 22
        out.add("BACK: die +1  OK: next die")
    elif ph in (GAME_END, MATCH_END):
        r = game.result
        if r is not None:
            big_text(fb, "Draw" if r[0] is None else "%s wins" % _cap(COLORS[r[0]]),
                     0, 12, 1, boxes)
            out.y = 22
            if r[0] is not None:
                out.add("%s +%d" % (r[1], r[2]))
        else:
            out.y = 22
        if ph == MATCH_END:
            out.add("Match over")
            out.add("OK: new match")
        else:
            out.add("OK: next game")
    if game.message is not None:
        _message(out, game.message)


def _setup_lines(fb, game, out, boxes):
    """The board differs from the position: say what to place where (the LEDs
    light the points that still need checkers)."""
    big_text(fb, "Set up board", 0, 12, 1, boxes)
    out.y = 22
    need_w, need_b, extra = misplaced(game.setup, game.layout.cap)
    counts = []
    if need_w:
        counts.append("white %d" % need_w)
    if need_b:
        counts.append("black %d" % need_b)
    if counts:
        out.add("To place: " + ", ".join(counts))
    if extra:
        out.add("%d on wrong points" % extra)
    if game.may_roll_anyway():
        out.add("hold OK: roll anyway")
    if game.message is not None:
        _message(out, game.message)
    out.add(_sync_text(game.setup[0]))      # the first point to fix, if room is left


def _sync_text(d):
    z, c, expect, seen = d
    return "Fix %s: %s %d, sees %d" % (zone_name(z), "white" if c == 0 else "black",
                                     expect, seen)


# -- LEDs ------------------------------------------------------------------------------

DEFAULT_COLOURS = {
    "lifted": (255, 160, 0),     # where the checker in the hand came from
    "target": (0, 255, 0),       # legal places for it
    "illegal": (255, 0, 0),      # blinking: a step that breaks a rule
    "last": (0, 0, 255),         # the opponent's last move, until the next roll
    "sync": (255, 0, 255),       # the board differs from the game here
    "off": (0, 255, 255),        # the bear-off tray is a legal target
    "need": (255, 255, 255),     # set-up: this point still needs checkers
}


def led_frame(frame, zones, game, now_ms, brightness, cap, colours=None):
    """Fill ``frame`` (bytearray, 3 per LED) for ``zones`` (zone of each LED).

    ``brightness`` 0..255 scales every colour; ``cap`` (the pin map's
    led_max_brightness) bounds it, so the LED current stays inside the USB power
    budget whatever the settings say."""
    col = colours or DEFAULT_COLOURS
    b = brightness if brightness < cap else cap
    n = len(zones)
    for i in range(3 * n):
        frame[i] = 0
    want = {}
    ph = game.phase
    if ph in (ROLL, OPENING, MOVE):
        for z in game.last_move:
            want[z] = "last"
    if ph == MOVE:
        t = game.tracker
        for z in t.targets:
            want[z] = "off" if z in (ZONE_OFF_W, ZONE_OFF_B) else "target"
        for z in t.lifted:
            want[z] = "lifted"
        w = game.warning()
        if w is not None and (now_ms // 300) & 1:
            zs = w[2]
            if not zs:
                # a whole-turn verdict names no point: the turn's own steps blink
                zs = game.turn_zones()
            for z in zs:
                want[z] = "illegal"
        d = game.sync_diff()
        if d is not None and w is None and (now_ms // 500) & 1:
            want[d[0]] = "sync"
    elif ph in (ROLL, OPENING) and game.setup:
        # set-up guidance: every point still short of checkers is lit; a point with
        # checkers that do not belong there blinks
        blink = (now_ms // 500) & 1
        for z, _c, expect, seen in game.setup:
            if seen > expect:
                if blink:
                    want[z] = "sync"
            elif want.get(z) != "sync":
                want[z] = "need"
    for i in range(n):
        k = want.get(zones[i])
        if k is None:
            continue
        r, g, bl = col[k]
        j = 3 * i
        frame[j] = r * b // 255
        frame[j + 1] = g * b // 255
        frame[j + 2] = bl * b // 255
    return frame
