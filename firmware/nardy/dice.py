"""Dice: electronic (os.urandom with rejection sampling) or entered by hand.

A byte is 0..255; 256 is not a multiple of 6, so ``byte % 6`` would favour 1-4 by
one part in 42. Bytes 252..255 are thrown away instead: every face then comes from
exactly 42 byte values (the test feeds every byte value to show it).
"""

import os

from micropython import const  # CPython: the shim nardy/__init__.py installs

_LIMIT = const(252)   # 6 * 42


class Dice:
    def __init__(self, urandom=None):
        self._rand = urandom or os.urandom
        self._buf = b""
        self._i = 0

    def die(self):
        while True:
            if self._i >= len(self._buf):
                self._buf = self._rand(16)
                self._i = 0
            b = self._buf[self._i]
            self._i += 1
            if b < _LIMIT:
                return b % 6 + 1

    def load(self, values):
        """The next dice rolled are ``values`` (each 1..6), in order, then random
        ones again: a virtual board's script sets the dice through the same code
        path a real roll takes. ValueError (nothing changed) for a bad value."""
        for v in values:
            if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= 6:
                raise ValueError("dice are 1..6")
        self._buf = bytes([v - 1 for v in values])
        self._i = 0

    def roll(self):
        return (self.die(), self.die())

    def opening(self):
        """C2: one die each until they differ; every try as (white, black)."""
        tries = []
        while True:
            w = self.die()
            b = self.die()
            tries.append((w, b))
            if w != b:
                return tries


def enter_die(entry, name):
    """Dice rolled by hand, entered with the buttons into ``entry``, a
    ``bytearray((1, 1, 0))``: the two dice, then which one is being entered. ``back``
    steps that die (1..6), ``ok`` takes it. The dice once both are in, else None.
    (Three bytes, not an object: a class costs the board ~0.8 KB of heap.)

    >>> e = bytearray((1, 1, 0))
    >>> [enter_die(e, n) for n in ("back", "ok", "ok")][-1]
    (2, 1)
    """
    i = entry[2]
    if i < 2:
        if name == "back":
            entry[i] = entry[i] % 6 + 1
        elif name == "ok":
            entry[2] = i + 1
    return (entry[0], entry[1]) if entry[2] >= 2 else None
