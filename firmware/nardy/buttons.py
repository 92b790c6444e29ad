"""Buttons: debouncing and short / long presses. Pure (the HAL feeds pin levels).

A press counts once the level stayed "down" for ``debounce_ms``; a release likewise.
A long press fires while the button is still held, as soon as it has been down for
``long_ms`` (the player sees the resignation or the menu react without letting go);
its release then fires nothing. A short press fires on release.

>>> b = Button("ok")
>>> [b.update(d, t) for d, t in ((1, 0), (1, 40), (0, 100), (0, 140))]
[None, None, None, 'short']
"""

from micropython import const  # CPython: the shim nardy/__init__.py installs

SHORT = "short"
LONG = "long"
NAMES = ("ok", "back", "menu")

_MASK = const(0x3FFFFFFF)   # ticks_ms() wraps at 2**30 on the ESP32


class Button:
    def __init__(self, name, debounce_ms=30, long_ms=800):
        self.name = name
        self.debounce_ms = debounce_ms
        self.long_ms = long_ms
        self.down = False      # debounced state
        self._raw = False
        self._since = 0        # when the raw level last changed
        self._down_at = 0
        self._long_sent = False

    def update(self, pressed, now):
        """Feed the current level (truthy = pressed); returns SHORT, LONG or None."""
        pressed = bool(pressed)
        now &= _MASK
        if pressed != self._raw:
            self._raw = pressed
            self._since = now
        if pressed != self.down and ((now - self._since) & _MASK) >= self.debounce_ms:
            self.down = pressed
            if pressed:
                self._down_at = self._since
                self._long_sent = False
            elif not self._long_sent:
                return SHORT
        if (self.down and not self._long_sent
                and ((now - self._down_at) & _MASK) >= self.long_ms):
            self._long_sent = True
            return LONG
        return None


class Buttons:
    """The three buttons; ``poll(levels, now)`` appends (name, SHORT|LONG) to
    ``events``."""

    def __init__(self, debounce_ms=30, long_ms=800):
        self.buttons = [Button(n, debounce_ms, long_ms) for n in NAMES]
        self.events = []

    def poll(self, levels, now):
        for i in range(len(self.buttons)):
            e = self.buttons[i].update(levels[i], now)
            if e is not None:
                self.events.append((self.buttons[i].name, e))
