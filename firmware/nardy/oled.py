"""OLED screens, composed from the game state. Pure. (``nardy.ui.draw`` imports this
module on the first draw: after boot's peak, the pin map's parse.)

``draw(fb, game, menu=None, note=None, boxes=None)`` draws a 128x64 screen on any
object with the ``framebuf.FrameBuffer`` drawing methods (the SSD1306 driver is one;
tests use a RAM FrameBuffer).

Layout: nothing overlaps, nothing is cut. Big text (framebuf's 8x8 font, 16 a line)
says who and what; details, prompts and warnings use a compact 5x7 font (``GLYPHS``,
21 a line) and are wrapped, never cut: a screen leaves out a whole detail line
rather than a part of a warning's reason. Every box drawn can be recorded
(``boxes``, a list of (kind, x, y, w, h, text)) so tests check the layout.

- header (rows 0-8, a rule at row 9): who moves or the variant, score on the right;
- dice (rows 11-30), 20 px faces, spent ones struck through;
- lines below, 8 px apart, in the compact font;
- a warning is a screen of its own: an inverted bar with "! RULE" and the mover,
  the whole reason, then what to do (who presses what).

Language: every text is written here, and in the modules that send messages, in
English; ``T`` puts it in the board's language (settings "lang") at the display
edge: for "ru" through ``nardy.lang_ru`` (a catalog, imported only while the board
speaks Russian). Letters outside ASCII come from ``nardy.cyrillic`` (compact, and
made bold in big text), imported on the first such letter.
"""

from micropython import const  # CPython: the shim nardy/__init__.py installs

from nardy.game import (
    ACCEPT,
    CONFIRM,
    ENTRY,
    GAME_END,
    ILLEGAL,
    LIFTED,
    MATCH_END,
    MOVE,
    OPENING,
    ROLL,
    SETUP,
    SYNC,
    TAKE_BACK,
    TURN_DONE,
    misplaced,
)

# nardy.sensing's zones (tests/firmware/test_ui.py checks them): consts, not imported
# names, and ``framebuf`` deleted once the font is made, keep this module's dict at
# 47 entries (one more and it grows to 59 slots: 192 bytes of the 56wK heap)
_ZONE_BAR = const(25)
_ZONE_OFF_W = const(26)
_ZONE_OFF_B = const(27)

try:
    import framebuf
except ImportError:   # CPython: glyphs are drawn pixel by pixel
    framebuf = None

W = 128
H = 64
_ADVANCE = const(6)          # compact font: pixels per character (5 + a blank column)
HEIGHT = 8           # rows per compact line (7 + a descender row)
COLS = W // _ADVANCE  # 21 compact characters a line
_BIG = const(8)              # framebuf's font: 8x8 cells
NAMES = ("White", "Black")

# pip positions on a 3x3 grid per face (row-major cells 0..8)
_PIPS = const(((4,), (0, 8), (0, 4, 8), (0, 2, 6, 8), (0, 2, 4, 6, 8), (0, 2, 3, 5, 6, 8)))

# The compact font: printable ASCII (32..126), five column bytes a glyph, least
# significant bit at the top (framebuf.MONO_VLSB). nardy_host.oledtext holds the
# same glyphs as pixel art (its SMALL_ART; a host test checks they agree) and reads
# them back from the virtual board's frames.
GLYPHS = (
    b"\x00\x00\x00\x00\x00\x00\x00\x5f\x00\x00\x00\x03\x00\x03\x00\x22\x7f\x22\x7f\x22"  #  !"#
    b"\x24\x2a\x7f\x2a\x12\x23\x13\x08\x64\x62\x36\x49\x55\x22\x50\x00\x00\x03\x00\x00"  # $%&'
    b"\x00\x1c\x22\x41\x00\x00\x41\x22\x1c\x00\x14\x08\x3e\x08\x14\x08\x08\x3e\x08\x08"  # ()*+
    b"\x00\x80\x60\x00\x00\x08\x08\x08\x08\x08\x00\x00\x40\x00\x00\x20\x10\x08\x04\x02"  # ,-./
    b"\x3e\x51\x49\x45\x3e\x00\x42\x7f\x40\x00\x42\x61\x51\x49\x46\x21\x41\x45\x4b\x31"  # 0123
    b"\x18\x14\x12\x7f\x10\x27\x45\x45\x45\x39\x3c\x4a\x49\x49\x30\x01\x71\x09\x05\x03"  # 4567
    b"\x36\x49\x49\x49\x36\x06\x49\x49\x29\x1e\x00\x00\x24\x00\x00\x00\x80\x64\x00\x00"  # 89:;
    b"\x08\x14\x22\x41\x00\x14\x14\x14\x14\x14\x00\x41\x22\x14\x08\x02\x01\x51\x09\x06"  # <=>?
    b"\x32\x49\x79\x41\x3e\x7e\x09\x09\x09\x7e\x7f\x49\x49\x49\x36\x3e\x41\x41\x41\x22"  # @ABC
    b"\x7f\x41\x41\x22\x1c\x7f\x49\x49\x49\x41\x7f\x09\x09\x09\x01\x3e\x41\x49\x49\x7a"  # DEFG
    b"\x7f\x08\x08\x08\x7f\x00\x41\x7f\x41\x00\x20\x40\x41\x3f\x01\x7f\x08\x14\x22\x41"  # HIJK
    b"\x7f\x40\x40\x40\x40\x7f\x02\x0c\x02\x7f\x7f\x04\x08\x10\x7f\x3e\x41\x41\x41\x3e"  # LMNO
    b"\x7f\x09\x09\x09\x06\x3e\x41\x51\x21\x5e\x7f\x09\x19\x29\x46\x46\x49\x49\x49\x31"  # PQRS
    b"\x01\x01\x7f\x01\x01\x3f\x40\x40\x40\x3f\x1f\x20\x40\x20\x1f\x3f\x40\x38\x40\x3f"  # TUVW
    b"\x63\x14\x08\x14\x63\x07\x08\x70\x08\x07\x61\x51\x49\x45\x43\x00\x7f\x41\x41\x00"  # XYZ[
    b"\x02\x04\x08\x10\x20\x00\x41\x41\x7f\x00\x04\x02\x01\x02\x04\x80\x80\x80\x80\x80"  # \]^_
    b"\x00\x01\x02\x00\x00\x20\x54\x54\x54\x78\x7f\x44\x44\x44\x38\x38\x44\x44\x44\x20"  # `abc
    b"\x38\x44\x44\x44\x7f\x38\x54\x54\x54\x18\x08\x7e\x09\x01\x02\x18\xa4\xa4\xa4\x7c"  # defg
    b"\x7f\x08\x04\x04\x78\x00\x44\x7d\x40\x00\x40\x80\x84\x7d\x00\x7f\x10\x28\x44\x00"  # hijk
    b"\x00\x41\x7f\x40\x00\x7c\x04\x78\x04\x78\x7c\x08\x04\x04\x78\x38\x44\x44\x44\x38"  # lmno
    b"\xfc\x24\x24\x24\x18\x18\x24\x24\x24\xfc\x7c\x08\x04\x04\x08\x48\x54\x54\x54\x24"  # pqrs
    b"\x04\x3f\x44\x40\x20\x3c\x40\x40\x20\x7c\x1c\x20\x40\x20\x1c\x3c\x40\x30\x40\x3c"  # tuvw
    b"\x44\x28\x10\x28\x44\x1c\xa0\xa0\xa0\x7c\x44\x64\x54\x4c\x44\x00\x08\x36\x41\x00"  # xyz{
    b"\x00\x00\x7f\x00\x00\x00\x41\x36\x08\x00\x08\x04\x08\x10\x08"  # |}~
)

# A glyph is blitted out of the font table into a 6x8 cell, then the cell onto the
# screen: two blits a character, nothing allocated; dark-on-lit text goes through a
# palette that swaps the colours. (Native code copying the columns was faster, but
# it lives on the heap, which the 56wK build cannot spare.)
_CELL = bytearray(_ADVANCE)
_CELL_FB = None
_FONT_FB = None
_SWAP = None
if framebuf is not None:
    _CELL_FB = framebuf.FrameBuffer(_CELL, _ADVANCE, HEIGHT, framebuf.MONO_VLSB)
    _FONT_FB = (GLYPHS, len(GLYPHS), HEIGHT, framebuf.MONO_VLSB)
    _SWAP = framebuf.FrameBuffer(bytearray(1), 2, 1, framebuf.MONO_HLSB)
    _SWAP.pixel(0, 0, 1)
del framebuf
_CYR = None          # nardy.cyrillic, from the first character outside ASCII


def _cyrillic():
    global _CYR
    if _CYR is None:
        from nardy import cyrillic
        _CYR = cyrillic
    return _CYR


_RU = None       # nardy.lang_ru while the board speaks Russian


def speak(lang):
    """The language of the screens drawn next ("en" or "ru"): the Russian catalog is
    on the heap only while it is the board's language."""
    global _RU, _CYR
    if lang == "ru":
        if _RU is None:
            from nardy import lang_ru
            _RU = lang_ru
    elif _RU is not None:
        _RU = _CYR = None
        from nardy import drop_module
        drop_module("nardy.lang_ru")
        drop_module("nardy.cyrillic")


def T(text):
    """``text`` (an English message, or a template before its ``%``) in the board's
    language."""
    return text if _RU is None else _RU.tr(text)


def zone_name(z):
    if z == _ZONE_BAR:
        return T("bar")
    if z == _ZONE_OFF_W:
        return T("W off")
    if z == _ZONE_OFF_B:
        return T("B off")
    return "P%d" % z


def _box(boxes, kind, x, y, w, h, text=None):
    if boxes is not None:
        boxes.append((kind, x, y, w, h, text))


# Text is read as its UTF-8 bytes, never character by character: MicroPython makes a
# str's character a qstr the first time it is iterated (or indexed), and when the qstr
# pool is full the next one takes a new block of 0.5-2 KB, which a fragmented 56 KB
# heap may not have. The bot-both soak crashed so (a 1,280-byte block, drawing a
# status line mid-game) in about one run of ten. The bytes cost one small block a
# call; a character never seen before costs nothing. (A byte over 127 starts a
# character outside ASCII: nardy.cyrillic, loaded for its glyph anyway, decodes it.)
def small_text(fb, s, x, y, c=1, boxes=None):
    """Draw ``s`` in the compact font, whole 6x8 cells (background ``1 - c``)."""
    _box(boxes, "text", x, y, _ADVANCE * len(s), HEIGHT, s)
    fast = _CELL_FB is not None and hasattr(fb, "blit")
    b = s.encode()
    i, n = 0, len(b)
    while i < n:
        o = b[i]
        if o < 0x80:
            i += 1
        else:
            o, i = _cyrillic().code(b, i)
        o -= 32
        if 0 <= o < 95:         # ASCII: its glyph is at hand
            table = GLYPHS
            src = _FONT_FB
            o *= 5
        else:
            table, src, o = _cyrillic().glyph(o + 32, GLYPHS, _FONT_FB)
        if fast:
            _CELL_FB.blit(src, -o, 0)
            _CELL[5] = 0
            fb.blit(_CELL_FB, x, y, -1, None if c else _SWAP)
        else:
            # anything else with pixel() (CPython, test recorders): the same cells
            for k in range(_ADVANCE):
                col = table[o + k] if k < 5 else 0
                for r in range(HEIGHT):
                    fb.pixel(x + k, y + r, ((col >> r) & 1) ^ (1 - c))
        x += _ADVANCE


def big_text(fb, s, x, y, c=1, boxes=None):
    """Draw ``s`` in 8x8 cells: framebuf's font for ASCII, the compact Cyrillic
    glyphs made bold for Russian letters (only the lit pixels, as framebuf draws)."""
    _box(boxes, "text", x, y, _BIG * len(s), _BIG, s)
    b = s.encode()
    if len(b) == len(s):
        fb.text(s, x, y, c)        # all ASCII (one byte a character): one call
        return
    # (bytes, not characters: see small_text; a slice of a str is a copy, no qstr)
    i, k, n = 0, 0, len(b)
    while i < n:
        o = b[i]
        if o < 0x80:
            fb.text(s[k:k + 1], x, y, c)
            i += 1
        else:
            o, i = _cyrillic().code(b, i)
            _cyrillic().big(fb, o, x, y, c, GLYPHS, _FONT_FB)
        k += 1
        x += _BIG


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


def _add(fb, y, text, boxes, c=1):
    """Draw ``text`` wrapped in compact lines from row ``y``; the row after it, or
    ``y`` unchanged (nothing drawn) if it does not fit whole."""
    ls = wrap(text)
    if y + HEIGHT * len(ls) > H:
        return y
    for ln in ls:
        small_text(fb, ln, 0, y, c, boxes)
        y += HEIGHT
    return y


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


def _header(fb, game, left, boxes, variant=False):
    """``left`` in big text; the score (and, with ``variant``, the variant: ``left``
    names the mover) in compact text on the right; a rule under both."""
    big_text(fb, left, 0, 0, 1, boxes)
    m = game.match
    right = "%d-%d/%d" % (m.score[0], m.score[1], m.length) if m is not None else ""
    v = game.variant
    if v is not None and variant:
        right = T("Long %s" if v.name == "long" else "Short %s") % right
    if right:
        small_text(fb, right, W - _ADVANCE * len(right), 0, 1, boxes)
    _box(boxes, "rule", 0, 9, W, 1)
    fb.hline(0, 9, W, 1)


def draw(fb, game, menu=None, note=None, boxes=None):
    fb.fill(0)
    if menu is not None:
        speak(menu.s.get("lang"))
        menu.draw(fb, boxes)
        return
    speak(game.settings.get("lang"))
    w = game.warning()
    if w is not None:
        _warning_screen(fb, game, w, boxes)
    elif game.phase == MOVE:
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
    ts = game.turn_state()
    _box(boxes, "bar", 0, 0, W, 9)
    fb.fill_rect(0, 0, W, 9, 1)
    big_text(fb, "! " + w[0] if w[0] else "!", 0, 0, 0, boxes)
    side = game.side_to_move()
    who = T(NAMES[side]) if side is not None else ""
    small_text(fb, who, W - _ADVANCE * len(who) - 1, 0, 0, boxes)
    y = _add(fb, 11, T(w[1]), boxes) + 2
    if ts == ACCEPT:
        _add(fb, y, T("Opponent: hold OK to accept, BACK to take back"), boxes)
    elif ts == TAKE_BACK:
        who = T(NAMES[side].lower()) if side is not None else ""
        _add(fb, y, T("Refused: %s must play a legal turn") % who, boxes)
    elif ts == ILLEGAL:
        msg = game.message
        # BACK said which checker goes back where (Game._back_hint): that, instead
        _add(fb, y, msg[1] if msg is not None and msg[0] is None
             else T("Take it back, or OK: end turn (opponent decides)"), boxes)


def _sync_text(d):
    z, c, expect, seen = d
    return T("Fix %s: %s %d, sees %d") % (zone_name(z), T(NAMES[c].lower()), expect, seen)


def _move_screen(fb, game, boxes):
    side = game.side_to_move()
    _header(fb, game, T(NAMES[side]), boxes, True)
    if game.dice:
        # the dice, spent ones struck through
        d = game.dice
        avail = list(game.left())
        x = 0
        for f in ([d[0]] * 4 if d[0] == d[1] else [d[0], d[1]]):
            used = f not in avail
            if not used:
                avail.remove(f)
            draw_die(fb, x, 11, f, 20, dim=used, boxes=boxes)
            x += 24
    y = 32
    t = game.tracker
    ts = game.turn_state()
    msg = game.message
    if game.shown is not None:
        # the board's own turn: what the hands are to carry out
        y = _add(fb, y, T("Board: %s") % game.shown.text, boxes)
    if ts == SYNC:
        d = game.sync_diff()
        if d is not None:
            y = _add(fb, y, _sync_text(d), boxes)
        if msg is None:
            y = _add(fb, y, T("BACK: next  OK: end turn as it stands") if len(t.diffs) > 1
                     else T("fix it, or OK: end turn as it stands"), boxes)
    elif ts == CONFIRM:
        y = _add(fb, y, T("Which result? %d of %d") % (game.cand_i + 1, len(t.candidates)),
                 boxes)
        y = _add(fb, y, T("BACK: next  OK: this one"), boxes)
    elif ts == LIFTED:
        y = _add(fb, y, T("to %s") % " ".join(zone_name(z) for z in t.targets) if t.targets
                 else T("no legal place for it"), boxes)
    elif ts == TURN_DONE:
        left = game.left()
        # dice left that no step can use (C5) are lost: said, not "to play"
        y = _add(fb, y, T("cannot play: %s") % " ".join(str(x) for x in left) if left
                 else T("All dice played"), boxes)
        y = _add(fb, y, T("OK: end turn"), boxes)
    else:
        y = _add(fb, y, T("to play: %s") % " ".join(str(x) for x in game.left()), boxes)
    if msg is not None:
        _add(fb, y, ((msg[0] + " ") if msg[0] else "") + T(msg[1]), boxes)


def _end_lines(game, r):
    """The end of a game: (title, lines). The points in the variant's own words
    (nardy.scoring.kind_name: backgammon's in short nardy, L6/S5); a resignation
    (S6) says who gave up."""
    from nardy.scoring import kind_name
    if r[0] is None:
        return T("Draw"), []
    kind = T(kind_name(game.variant.name if game.variant else "long", r[1]))
    if game.resigned is not None:
        return (T("%s resigns") % T(NAMES[game.resigned]),
                [T("%s wins: %s +%d") % (T(NAMES[r[0]]), kind, r[2])])
    return T("%s wins") % T(NAMES[r[0]]), ["%s +%d" % (kind, r[2])]


def _other_screen(fb, game, boxes):
    ph = game.phase
    v = game.variant
    _header(fb, game, T("Nardy" if v is None else "Long" if v.name == "long" else "Short"),
            boxes)
    side = game.side_to_move()
    msg = game.message
    msg = None if msg is None else ((msg[0] + " ") if msg[0] else "") + T(msg[1])
    title = None
    lines = []
    # remote play: the other board's id when this roll is rolled there (the opening
    # by the board whose id sorts first, C2; each side's turns on its own board): OK
    # does not roll it here (docs/NETWORK.md, "Remote play")
    # (two comparisons, not ``in (OPENING, ROLL)``: that tuple would be built on the
    # heap at every draw, and the 56wK soak's heap is that tight)
    there = None
    m = game.settings.get("mqtt") if ph == OPENING or ph == ROLL else None  # noqa: SIM109
    if m and "peer" in m and (
            m["peer"] < m["id"] if ph == OPENING else NAMES[side].lower() != m["side"]):
        there = m["peer"]
    if ph == SETUP:
        title = T("New game?")
        lines = [T("OK: new game"), T("MENU: settings")]
    elif ph in (ROLL, OPENING) and game.setup:
        # the board differs from the position: what to place (the LEDs light the
        # points that still need checkers); the first point to fix, if room is left
        title = T("Set up board")
        need_w, need_b, extra = misplaced(game.setup, game.layout.cap)
        counts = []
        if need_w:
            counts.append(T("white %d") % need_w)
        if need_b:
            counts.append(T("black %d") % need_b)
        if counts:
            lines.append(T("To place: %s") % ", ".join(counts))
        if extra:
            lines.append(T("%d on wrong points") % extra)
        if game.may_roll_anyway():
            lines.append(T("hold OK: roll anyway"))
        if msg:
            lines.append(msg)
            msg = None
        lines.append(_sync_text(game.setup[0]))
    elif ph == OPENING:
        title = T("Opening roll")
        lines = ([T("rolled on %s") % there] if there
                 else [T("OK: one die each"), T("the higher die starts")])
    elif ph == ROLL:
        title = T("%s to roll") % T(NAMES[side])
        lines = [T("rolled on %s") % there if there else T("OK: roll the dice")]
        if msg:
            lines.append(msg)   # first: it says why (a pass, L7)
            msg = None
        elif game.opening and game.n == 0:
            lines.append(T("opening: W %d, B %d") % game.opening[-1])
    elif ph == ENTRY:
        e = game.entry
        title = T("Dice: %d %d") % (e[0], e[1])
        lines = [T("BACK: die +1  OK: next die")]
    elif ph in (GAME_END, MATCH_END):
        r = game.result
        if r is not None:
            title, lines = _end_lines(game, r)
        lines += ([T("Match over"), T("OK: new match")] if ph == MATCH_END
                  else [T("OK: next game")])
    if msg:
        lines.append(msg)
    y = 12
    if title:
        big_text(fb, title, 0, 12, 1, boxes)
        y = 22
    for ln in lines:
        y = _add(fb, y, ln, boxes)
