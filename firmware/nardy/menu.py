"""The settings menu on the OLED: variant, the sides the board plays ("Board plays":
none, white, black, both; nardy.botplay), match length, "new match", the language
(English, Russian), a legend of the LED colours, LED brightness, dice mode, the
RULES.md options of the variant, calibration and self-test. Pure.

Buttons while the menu is open: BACK = next item, OK = change the item (or start
the new match, or show the legend), MENU = close. In the legend OK and BACK turn
the page, the last page back to the list. Settings are a plain dict the app saves as
JSON. The screen (``draw``) uses the compact font of ``nardy.oled``: each label is
short enough to stand whole beside its longest value, in English and in Russian
(tests/firmware/test_ui.py renders every one), and goes through ``nardy.oled.T``.
"""

from micropython import const  # CPython: the shim nardy/__init__.py installs

from nardy import drop_module
from nardy.protocol import BOT_SIDES, LANGS
from nardy.variants import option_defaults

_MATCH_LENGTHS = const((1, 3, 5, 7, 9, 11))
_BRIGHTNESS = const((2, 4, 8, 16, 32, 64, 128, 255))
_ROWS = const(4)          # items a screen
_LEGEND_ROWS = const(6)   # legend lines a screen

DEFAULTS = {"variant": "long", "match": 1, "options": {"long": {}, "short": {}},
            "brightness": 16, "dice": "auto", "bot": "none", "lang": "en"}

# The rules options (RULES.md, nardy.variants) under a label that fits beside
# "off"; the option's own name is what the protocol and settings.json say.
_OPTION_LABELS = const((
    ("first_turn_any_double", "Head: any double"),
    ("block_until_opponent_home", "6-wall: opp home"),
    ("home_mars", "Home mars 3 pts"),
    ("last_roll_draw", "Last roll draw"),
    ("winner_starts", "Winner starts"),
    ("opening_dice_played", "Use opening dice"),
))
# each language named in itself
_LANG_NAMES = const((("en", "English"), ("ru", "Русский")))


def defaults():
    d = dict(DEFAULTS)
    d["options"] = {"long": {}, "short": {}}
    return d


def _next(seq, v):
    for i in range(len(seq)):
        if seq[i] == v:
            return seq[(i + 1) % len(seq)]
    return seq[0]


def _lookup(pairs, key):
    for k, v in pairs:
        if k == key:
            return v
    return key


def option_label(key):
    return _lookup(_OPTION_LABELS, key)


class Menu:
    def __init__(self, settings, cap=255):
        self.s = settings
        self.cap = cap
        self.i = 0
        self.action = None      # "new" once the player picked "new match"
        self.legend = None      # while the legend is open: its page's first entry

    def items(self):
        """(key, label, value) of every item; label and value in English (the screen
        translates them)."""
        s = self.s
        var = s["variant"]
        opts = option_defaults(var)
        out = [("variant", "Game", var), ("bot", "Board plays", s.get("bot", "none")),
               ("match", "Match", str(s["match"])), ("new", "New match", ""),
               ("lang", "Language", _lookup(_LANG_NAMES, s.get("lang", "en"))),
               ("lights", "LED colours", "")]
        b = s["brightness"]
        out.append(("brightness", "LED brightness", "%d%s" % (b, "*" if b > self.cap else "")))
        out.append(("dice", "Dice", s["dice"]))
        chosen = s["options"].setdefault(var, {})
        for k in sorted(opts):
            out.append(("opt:" + k, option_label(k), "on" if chosen.get(k, opts[k]) else "off"))
        out.append(("calibrate", "Calibrate", ""))
        out.append(("selftest", "Self-test", ""))
        return out

    def press(self, name):
        """Returns False when the menu closes."""
        open_ = self._press(name)
        if not open_ or self.legend is None:
            # the legend's table is on the heap only while it is shown
            drop_module("nardy.lights")
        return open_

    def _press(self, name):
        if name == "menu":
            return False
        if self.legend is not None:
            # OK or BACK: the next page; after the last, the list again
            nxt = legend_page(self.legend)[1]
            self.legend = nxt if nxt else None
            return True
        items = self.items()
        if name == "back":
            self.i = (self.i + 1) % len(items)
            return True
        key = items[self.i % len(items)][0]
        s = self.s
        if key == "variant":
            s["variant"] = "short" if s["variant"] == "long" else "long"
            self.i = 0
        elif key == "match":
            s["match"] = _next(_MATCH_LENGTHS, s["match"])
        elif key.startswith("opt:"):
            k = key[4:]
            var = s["variant"]
            opts = option_defaults(var)
            cur = s["options"].setdefault(var, {})
            cur[k] = not cur.get(k, opts[k])
        elif key == "brightness":
            s["brightness"] = _next(_BRIGHTNESS, s["brightness"])
        elif key == "dice":
            s["dice"] = "manual" if s["dice"] == "auto" else "auto"
        elif key == "bot":
            s["bot"] = _next(BOT_SIDES, s.get("bot", "none"))
        elif key == "lang":
            s["lang"] = _next(LANGS, s.get("lang", "en"))
        elif key == "lights":
            self.legend = 0
        elif key in ("new", "calibrate", "selftest"):
            self.action = key
            return False
        return True

    def draw(self, fb, boxes=None):
        """Four items a screen in the compact font, the chosen one inverted, its
        value on the right; under them what the buttons do. Or a page of the LED
        legend."""
        from nardy.oled import COLS, HEIGHT, T, small_text
        if self.legend is not None:
            self._draw_legend(fb, boxes)
            return
        items = self.items()
        n = len(items)
        i = self.i % n
        _title(fb, T("Settings"), boxes)
        first = i - 1 if i >= 1 else 0
        if first > n - _ROWS:
            first = max(0, n - _ROWS)
        y = 12
        for j in range(first, min(n, first + _ROWS)):
            label, value = row_texts(items[j], T)
            # a label too long is a bug (the test renders them all), cut, not wrapped
            text = (">" if j == i else " ") + label[:COLS - 2 - len(value)]
            text += " " * (COLS - len(text) - len(value)) + value
            if j == i:
                if boxes is not None:
                    boxes.append(("bar", 0, y, 128, HEIGHT, None))
                fb.fill_rect(0, y, 128, HEIGHT, 1)
            small_text(fb, text, 0, y, 0 if j == i else 1, boxes)
            y += HEIGHT
        y += 2
        for ln in (T("OK: change BACK: next"), T("MENU: close")):
            small_text(fb, ln, 0, y, 1, boxes)
            y += HEIGHT

    def _draw_legend(self, fb, boxes):
        """A page of the legend; its number on the right of the title ("1/2")."""
        from nardy.oled import HEIGHT, T, W, small_text
        _title(fb, T("LED colours"), boxes)
        page = pages = 0
        k = 0
        while True:
            pages += 1
            if k == self.legend:
                page = pages
            k = legend_page(k)[1]
            if not k:
                break
        n = "%d/%d" % (page, pages)
        small_text(fb, n, W - 6 * len(n), 0, 1, boxes)
        y = 12
        for ln in legend_page(self.legend)[0]:
            small_text(fb, ln, 0, y, 1, boxes)
            y += HEIGHT


def legend_page(first):
    """The legend's page from line ``first`` of ``nardy.lights.LIGHTS``: (its OLED
    lines, whole entries "colour: meaning" wrapped, in the board's language; the
    first entry of the next page, or 0 after the last page)."""
    from nardy.lights import LIGHTS
    from nardy.oled import T, wrap
    out = []
    k = first
    while k < len(LIGHTS):
        _key, name, meaning = LIGHTS[k]
        ls = wrap(T(name + ": " + meaning))
        if out and len(out) + len(ls) > _LEGEND_ROWS:
            break
        out.extend(ls)
        k += 1
    return out, (k if k < len(LIGHTS) else 0)


def row_texts(item, tr):
    """(label, value) of a menu item as its row shows them, through ``tr``: a
    language's name is its own, numbers are numbers."""
    key, label, value = item
    if key != "lang" and value and not value[0].isdigit():
        value = tr(value)
    return tr(label), value


def _title(fb, text, boxes):
    from nardy.oled import big_text
    big_text(fb, text, 0, 0, 1, boxes)
    if boxes is not None:
        boxes.append(("rule", 0, 9, 128, 1, None))
    fb.hline(0, 9, 128, 1)
