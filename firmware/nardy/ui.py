"""OLED screens and LED frames, composed from the game state. Pure.

``draw(fb, game, menu=None, note=None, boxes=None)`` draws a 128x64 screen on any
object with the ``framebuf.FrameBuffer`` drawing methods (the screens, their layout
and the compact font are in ``nardy.oled``, imported on the first draw: the board
boots, and parses its pin map, without them on the heap). ``led_frame(...)`` fills a
bytearray of 3 bytes per LED in the chain order of the pin map.
"""

from nardy.game import MOVE, OPENING, ROLL
from nardy.zones import ZONE_OFF_B, ZONE_OFF_W

# 25 is nardy.zones.ZONE_BAR and "hit" nardy.game.HIT (tests/firmware/test_game.py
# checks it): each name imported would take a slot in this module's dict, which is at
# the size the heap allows

_screens = None


def draw(fb, game, menu=None, note=None, boxes=None):
    global _screens
    if _screens is None:
        # the first draw loads the screens; a collection first hands the import
        # (a compile, when the firmware runs from source) a compact heap
        import gc
        gc.collect()
        from nardy import oled
        _screens = oled
    _screens.draw(fb, game, menu, note, boxes)


# -- LEDs ------------------------------------------------------------------------------

DEFAULT_COLOURS = {
    "lifted": (255, 160, 0),     # where the checker in the hand came from
    "target": (0, 255, 0),       # legal places for it
    "illegal": (255, 0, 0),      # blinking: a step that breaks a rule
    "last": (0, 0, 255),         # the opponent's last move, until the next roll
    "sync": (255, 0, 255),       # the board differs from the game here
    "off": (0, 255, 255),        # the bear-off tray is a legal target
    "need": (255, 255, 255),     # set-up: this point still needs checkers
    "from": (255, 255, 0),       # the board's own turn: the next step's source
    "to": (96, 0, 255),          # ... and its target
    "nomove": (255, 0, 96),      # the checker in the hand has no legal step
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
        targets = t.targets
        lifted = t.lifted
        if not lifted and game.early_targets is not None and game.shown is None:
            # a lift on its first scan (before the debounce): its targets at once
            targets = game.early_targets
            lifted = (game.early_lift,)
        for z in targets:
            want[z] = "off" if z in (ZONE_OFF_W, ZONE_OFF_B) else "target"
        for z in lifted:
            want[z] = "nomove" if t.stuck else "lifted"
        if game.shown is not None:
            _shown_step(want, game)
        bs = game.back_shown
        if bs is not None:
            # BACK: the step to take back, from where the checker is to where it was
            want[bs[1]] = "lifted"
            want[bs[0]] = "target"
        w = game.warning()
        hit = game.turn_state() == "hit"
        if hit:
            # a hit half done: the blot's point, and the bar it goes to (S2); not
            # the differences it makes
            want[t.hit] = "lifted"
            want[25] = "target"
        elif w is not None and (now_ms // 300) & 1:
            zs = w[2]
            if not zs:
                # a whole-turn verdict names no point: the turn's own steps blink
                zs = game.turn_zones()
            for z in zs:
                want[z] = "illegal"
        d = None if hit else game.sync_diff()
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


def _shown_step(want, game):
    """The board's own turn: the next step it shows, source and target (instead
    of every legal target: the hands carry out this one)."""
    sh = game.shown
    t = game.tracker
    i = sh.next_step(t.played)
    if i >= len(sh.zones):
        return
    zf, zt = sh.zones[i]
    for z in t.targets:
        if want.get(z) in ("target", "off"):
            del want[z]
    if zf not in t.lifted:
        want[zf] = "from"
    want[zt] = "to"
