"""A lift the slots cannot show: the top checker of a stack taller than its zone tells.

A slot reads empty, one, or "two or more", so lifting the top checker off a stack of
three (long nardy's head: 15 checkers on 5 slots) changes no class, and the tracker
sees nothing: the legal targets would stay dark on long nardy's most common move.
The field still changes: in the reference build the third magnet of a stack adds
about 2.4 mT at its sensor, some 90 ADC counts, against a noise of about 8 counts.

``StackWatch`` follows the raw readings of one zone's slots (the tracker names the
zone: the mover's stack that the slots cannot resolve) against a reference averaged
when it is armed, smooths each slot's deviation over a few scans, and reports
``stirred`` once a deviation beyond ``threshold`` has held for ``hold`` scans (and
clear again the same way). It costs one short loop over that zone's slots per scan
and allocates nothing after ``__init__``.

>>> from nardy.sensing import Layout
>>> w = StackWatch(Layout(5), threshold=40, hold=3, settle=2)
>>> raw = [2000] * Layout(5).n
>>> w.watch(12)
>>> for _ in range(4): w.scan(raw)
>>> w.stirred
False
>>> raw[w.layout.start[12] + 4] = 1900       # the top checker leaves one slot
>>> for _ in range(8): w.scan(raw)
>>> w.stirred
True
"""

from array import array

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):
        return x

_MAX_SLOTS = const(8)
_SHIFT = const(2)       # each slot's deviation is smoothed as ema += (d - ema) / 4


class StackWatch:
    def __init__(self, layout, threshold=40, hold=5, settle=8):
        self.layout = layout
        self.threshold = threshold
        self.hold = hold            # scans a change must hold (a hand sliding past)
        self.settle = settle        # scans averaged into the reference when armed
        self._sum = array("i", [0] * _MAX_SLOTS)
        self._ref = array("h", [0] * _MAX_SLOTS)
        self._ema = array("h", [0] * _MAX_SLOTS)
        self.zone = 0
        self.stirred = False
        self._n = 0                 # reference scans taken (settle = armed)
        self._run = 0

    def watch(self, zone):
        """Follow ``zone`` (0: none) from the next scan on, with a new reference."""
        self.zone = zone
        self.rearm()

    def rearm(self):
        """Take a new reference (the stack changed, or something next to it did)."""
        self._n = 0
        self._run = 0
        self.stirred = False
        for i in range(_MAX_SLOTS):
            self._sum[i] = 0
            self._ema[i] = 0

    def scan(self, raw):
        z = self.zone
        if not z:
            return
        lay = self.layout
        s = lay.start[z]
        n = lay.size(z)
        if n > _MAX_SLOTS:
            n = _MAX_SLOTS
        if self._n < self.settle:
            for i in range(n):
                self._sum[i] += raw[s + i]
            self._n += 1
            if self._n == self.settle:
                for i in range(n):
                    self._ref[i] = self._sum[i] // self.settle
            return
        thr = self.threshold
        moved = False
        ref = self._ref
        ema = self._ema
        for i in range(n):
            e = ema[i]
            e += (raw[s + i] - ref[i] - e) >> _SHIFT
            ema[i] = e
            if e > thr or e < -thr:
                moved = True
        if moved == self.stirred:
            self._run = 0
            return
        self._run += 1
        if self._run >= self.hold:
            self.stirred = moved
            self._run = 0
