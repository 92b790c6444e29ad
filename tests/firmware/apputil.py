"""Helpers for the app-level firmware tests (CPython and MicroPython alike)."""

import os

from fwutil import Rand  # noqa: F401  (re-exported for the app tests)

from nardy.rules import BLACK, WHITE
from nardy.zonefit import zone_counts
from nardy.zones import NZONES, OPEN_B, OPEN_W

# Nominal counts of a slot: empty, one and two white, one and two black (the magnetic
# model's levels, hardware/README.md: MagnetModel().counts(stack_field_mT(h))).
LEVEL = {0: 2048, 1: 2999, 2: 3282, -1: 1097, -2: 814}


def readings(layout, variant, pos, hand=None):
    """Raw readings of a board showing ``pos`` (``hand``: (colour, path point) of a
    checker lifted off it): rows from the edge, two high at most, so points beyond
    ten checkers show ten. Shared by the virtual-board tests and the app bench."""
    counts = zone_counts(variant, pos, hand)
    raw = [LEVEL[0]] * layout.n
    for z, c in [(z, c) for z in range(1, NZONES) for c in (WHITE, BLACK)]:
        n = counts[c][z]
        if not n:
            continue
        size = layout.size(z)
        if z == 25:   # the bar: white on the bottom half, black on the top half
            half = size // 2
            slots = list(range(half)) if c == WHITE else list(range(half, size))
        else:
            slots = list(range(size))
        lv = [0] * len(slots)
        for i in range(n):
            lv[i % len(slots)] += 1 if i < 2 * len(slots) else 0
        sign = 1 if c == WHITE else -1
        for i in range(len(slots)):
            if lv[i]:
                raw[layout.start[z] + slots[i]] = LEVEL[sign * min(lv[i], 2)]
    return _with_crosstalk(layout, raw)


def _with_crosstalk(layout, raw):
    """Add what neighbouring checkers put on each sensor (the model's coefficients,
    nardy.xtalk), as a real board reads: the sensing takes it off again."""
    from array import array

    from nardy.xtalk import _XT, neighbours

    class _L:
        pass
    fake = _L()
    fake.layout = layout
    nb = array("H", [0] * 24)
    nt = bytearray(24)
    step = LEVEL[1] - LEVEL[0]
    level = {}
    for k, v in LEVEL.items():
        level[v] = k
    out = list(raw)
    for ch in range(layout.n):
        acc = 0
        for j in range(neighbours(fake, ch, nb, nt)):
            h = level.get(raw[nb[j]], 0)
            if h:
                c = _XT[2 * nt[j] + (0 if h in (1, -1) else 1)]
                acc += c if h > 0 else -c
        out[ch] = raw[ch] + (acc * step) // 1000
    return out


class Obs:
    """What ``Sensing`` would show for a position: counts per zone, capped at what
    the slots can tell, with the "two or more" flag where a slot is stacked."""

    def __init__(self, layout):
        self.layout = layout
        self.vis_w = bytearray(NZONES)
        self.vis_b = bytearray(NZONES)
        self.open_ = bytearray(NZONES)
        self.early_zone = 0     # Sensing's lift before its debounce: none here
        self.early_col = 0

    def show(self, variant, pos, hand=None):
        """``hand``: (colour, path point) of a checker lifted off the board."""
        cap = self.layout.cap
        w, b = zone_counts(variant, pos, hand)
        for z in range(NZONES):
            self.vis_w[z] = w[z]
            self.vis_b[z] = b[z]
            self.open_[z] = 0
        for z in range(1, NZONES):
            slots = self.layout.size(z)
            for c in (WHITE, BLACK):
                vis = self.vis_w if c == WHITE else self.vis_b
                if vis[z] > slots:
                    self.open_[z] |= OPEN_W if c == WHITE else OPEN_B
                if vis[z] > cap[z]:
                    vis[z] = cap[z]
        return self


def tmpdir(name):
    # MicroPython's os has no getpid: the clock keeps parallel runs (several
    # checkouts testing at once) out of each other's folders
    if hasattr(os, "getpid"):
        tag = os.getpid()
    else:
        import time
        tag = time.ticks_us() if hasattr(time, "ticks_us") else int(time.time() * 1e6)
    base = "/tmp/nardy-fwtest-%s-%d" % (name, tag)
    try:
        os.mkdir(base)
    except OSError:
        rmtree(base)
        os.mkdir(base)
    return base


def rmtree(path):
    try:
        names = os.listdir(path)
    except OSError:
        return
    for n in names:
        p = path + "/" + n
        try:
            os.remove(p)
        except OSError:
            rmtree(p)
    try:  # noqa: SIM105 - no contextlib on MicroPython
        os.rmdir(path)
    except OSError:
        pass


