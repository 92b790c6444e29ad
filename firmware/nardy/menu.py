"""The settings menu on the OLED: variant, match length, the RULES.md options of the
variant, LED brightness, dice mode, the sides the board plays ("Board plays":
none, white, black, both; nardy.botplay), and "new match". Pure.

Buttons while the menu is open: BACK = next item, OK = change the item (or start
the new match), MENU = close. Settings are a plain dict the app saves as JSON. The
screen (``draw``) uses the compact font of ``nardy.oled``, whole option names.
"""

from micropython import const  # CPython: the shim nardy/__init__.py installs

from nardy.protocol import BOT_SIDES
from nardy.variants import option_defaults

_MATCH_LENGTHS = const((1, 3, 5, 7, 9, 11))
_BRIGHTNESS = const((2, 4, 8, 16, 32, 64, 128, 255))

DEFAULTS = {"variant": "long", "match": 1, "options": {"long": {}, "short": {}},
            "brightness": 16, "dice": "auto", "bot": "none"}


def defaults():
    d = dict(DEFAULTS)
    d["options"] = {"long": {}, "short": {}}
    return d


def _next(seq, v):
    for i in range(len(seq)):
        if seq[i] == v:
            return seq[(i + 1) % len(seq)]
    return seq[0]


class Menu:
    def __init__(self, settings, cap=255):
        self.s = settings
        self.cap = cap
        self.i = 0
        self.action = None      # "new" once the player picked "new match"

    def items(self):
        s = self.s
        var = s["variant"]
        opts = option_defaults(var)
        out = [("variant", "Game", var), ("match", "Match", str(s["match"]))]
        chosen = s["options"].setdefault(var, {})
        for k in sorted(opts):
            out.append(("opt:" + k, k, "on" if chosen.get(k, opts[k]) else "off"))
        b = s["brightness"]
        out.append(("brightness", "LEDs", "%d%s" % (b, "*" if b > self.cap else "")))
        out.append(("dice", "Dice", s["dice"]))
        out.append(("bot", "Board plays", s.get("bot", "none")))
        out.append(("new", "New match", ""))
        out.append(("calibrate", "Calibrate", ""))
        out.append(("selftest", "Self-test", ""))
        return out

    def press(self, name):
        """Returns False when the menu closes."""
        if name == "menu":
            return False
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
        elif key in ("new", "calibrate", "selftest"):
            self.action = key
            return False
        return True

    def draw(self, fb, boxes=None):
        """Four items a screen in the compact font, the chosen one inverted, its
        value on the right; under them the chosen item's whole name (option names
        are long: nothing is cut)."""
        from nardy.oled import COLS, HEIGHT, big_text, small_text, wrap
        items = self.items()
        n = len(items)
        i = self.i % n
        big_text(fb, "Settings", 0, 0, 1, boxes)
        if boxes is not None:
            boxes.append(("rule", 0, 9, 128, 1, None))
        fb.hline(0, 9, 128, 1)
        first = i - 1 if i >= 1 else 0
        if first > n - 4:
            first = max(0, n - 4)
        y = 12
        for j in range(first, min(n, first + 4)):
            key, label, value = items[j]
            room = COLS - 2 - len(value)
            name = label.replace("_", " ")
            text = (">" if j == i else " ") + name[:room]
            text += " " * (COLS - len(text) - len(value)) + value
            if j == i:
                if boxes is not None:
                    boxes.append(("bar", 0, y, 128, HEIGHT, None))
                fb.fill_rect(0, y, 128, HEIGHT, 1)
            small_text(fb, text, 0, y, 0 if j == i else 1, boxes)
            y += HEIGHT
        y += 2
        name = items[i][1].replace("_", " ")
        if len(name) > COLS - 2 - len(items[i][2]):
            foot = wrap(name)                    # cut above: the whole name here
        else:
            foot = ("OK: change BACK: next", "MENU: close")
        for ln in foot[:2]:
            small_text(fb, ln, 0, y, 1, boxes)
            y += HEIGHT
