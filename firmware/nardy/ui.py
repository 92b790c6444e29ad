"""OLED screens and LED frames, composed from the game state. Pure.

``draw(fb, game, menu=None, note=None)`` draws a 128x64 screen on any object with
the ``framebuf.FrameBuffer`` drawing methods (the SSD1306 driver is one; tests use
a RAM FrameBuffer). ``led_frame(...)`` fills a bytearray of 3 bytes per LED in the
chain order of the pin map.
"""

from nardy.game import ENTRY, GAME_END, MATCH_END, MOVE, OPENING, ROLL, SETUP
from nardy.rules import COLORS
from nardy.sensing import ZONE_BAR, ZONE_OFF_B, ZONE_OFF_W

W = 128
H = 64

# pip positions on a 3x3 grid per face (row-major cells 0..8)
_PIPS = ((4,), (0, 8), (0, 4, 8), (0, 2, 6, 8), (0, 2, 4, 6, 8), (0, 2, 3, 5, 6, 8))


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


def draw_die(fb, x, y, value, size=20, dim=False):
    fb.rect(x, y, size, size, 1)
    if dim:
        # a used die: a diagonal line across (the die is spent)
        fb.line(x, y + size - 1, x + size - 1, y, 1)
    step = size // 4
    for cell in _PIPS[value - 1]:
        cx = x + step * (1 + cell % 3)
        cy = y + step * (1 + cell // 3)
        fb.fill_rect(cx - 1, cy - 1, 3, 3, 1)


def _wrap(text, width=16):
    words = text.split(" ")
    lines = []
    cur = ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > width:
            lines.append(cur)
            cur = w
        else:
            cur = w if not cur else cur + " " + w
    if cur:
        lines.append(cur)
    return lines


def _header(fb, game):
    if game.variant is None:
        fb.text("Nardy", 0, 0, 1)
        return
    name = "Long" if game.variant.name == "long" else "Short"
    fb.text(name, 0, 0, 1)
    m = game.match
    if m is not None:
        s = "%d-%d/%d" % (m.score[0], m.score[1], m.length)
        fb.text(s, W - 8 * len(s), 0, 1)
    fb.hline(0, 9, W, 1)


def _dice_row(fb, game, y):
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
        draw_die(fb, x, y, f, 20, dim=used)
        x += 24


def draw(fb, game, menu=None, note=None):
    fb.fill(0)
    if menu is not None:
        menu.draw(fb)
        return
    _header(fb, game)
    ph = game.phase
    y = 12
    side = game.side_to_move()
    who = _cap(COLORS[side]) if side is not None else ""
    lines = []
    if ph == SETUP:
        lines = ["OK: new game", "MENU: settings"]
    elif ph == OPENING:
        lines = ["Opening roll", "OK: one die each"]
    elif ph == ROLL:
        lines = [who + " to roll"]
        if game.opening and game.n == 0:
            w, b = game.opening[-1]
            lines.append("open W%d B%d" % (w, b))
    elif ph == ENTRY:
        e = game.entry
        lines = ["Enter dice:", "%d %d" % (e.values[0], e.values[1]),
                 "BACK +1  OK next"]
    elif ph == MOVE:
        fb.text(who, 0, y, 1)
        _dice_row(fb, game, y + 10)
        y = 34
        w = game.warning()
        d = game.sync_diff()
        st = game.tracker.state_name()
        if w is not None:
            fb.fill_rect(0, y - 1, W, 10, 1)
            fb.text("! " + w[0], 0, y, 0)
            lines = _wrap(w[1])[:2]
            y += 10
        elif d is not None:
            lines = _sync_lines(d)
        elif st == "confirm":
            lines = ["Which move? %d/%d" % (game.cand_i + 1, len(game.tracker.candidates)),
                     "BACK next OK pick"]
        elif game.tracker.lifted:
            lines = ["to " + " ".join(zone_name(z) for z in game.tracker.targets[:4])]
    elif ph in (GAME_END, MATCH_END):
        r = game.result
        if r is not None:
            if r[0] is None:
                lines = ["Draw"]
            else:
                lines = ["%s wins" % _cap(COLORS[r[0]]), "%s +%d" % (r[1], r[2])]
        lines.append("Match over" if ph == MATCH_END else "OK: next game")
    if ph in (ROLL, OPENING):
        d = game.sync_diff()
        if d is not None:
            lines = lines[:1] + _sync_lines(d)
    if game.message is not None and ph != MOVE:
        rule, text = game.message
        lines = lines[:2] + _wrap(((rule + " ") if rule else "") + text)[:2]
    if note:
        lines = lines[:3] + [note[:16]]
    for ln in lines[:5]:
        fb.text(ln[:16], 0, y, 1)
        y += 10


def _sync_lines(d):
    z, c, expect, seen = d
    return ["Fix %s:" % zone_name(z),
            "%s %d, sees %d" % ("white" if c == 0 else "black", expect, seen)]


# -- LEDs ------------------------------------------------------------------------------

DEFAULT_COLOURS = {
    "lifted": (255, 160, 0),     # where the checker in the hand came from
    "target": (0, 255, 0),       # legal places for it
    "illegal": (255, 0, 0),      # blinking: a step that breaks a rule
    "last": (0, 0, 255),         # the opponent's last move, until the next roll
    "sync": (255, 0, 255),       # the board differs from the game here
    "off": (0, 255, 255),        # the bear-off tray is a legal target
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
            for z in w[2]:
                want[z] = "illegal"
    d = game.sync_diff()
    if d is not None and (now_ms // 500) & 1:
        want[d[0]] = "sync"
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
