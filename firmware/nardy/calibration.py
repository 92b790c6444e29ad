"""Per-channel calibration of the hall sensors, kept as a small JSON file.

Each channel has five levels in ADC counts, with the meaning of
``magnet.default_calibration``: ``baseline`` (empty slot), ``white1``/``white2`` (one /
two white checkers, north up: above baseline), ``black1``/``black2`` (south up: below
it); the class boundaries are the midpoints of neighbouring levels, exactly as
``magnet.classify`` draws them. One ``hysteresis`` in counts holds for the board.
Without a file every channel gets the defaults of the magnetic model
(``magnet.default_calibration``), which is what an untouched board built to the
reference geometry reads.

The file (``calib.json`` on the board's flash)::

    {"v": 1, "n": 128, "hysteresis": 12,
     "default": {"baseline": 2180, "white1": 3368, "white2": 3620,
                 "black1": 990, "black2": 740},
     "channels": {"17": [2163, 3351, 3603, 973, 723]},
     "dead": [42]}

``channels`` holds only the channels that differ from ``default`` (key: channel index
as a string, value: [baseline, white1, white2, black1, black2]), so a calibrated board
with honest sensors stores a few hundred bytes. ``dead`` lists channels to ignore.

The sensing loop never reads this object's dicts: ``thresholds()`` flattens it once
into an ``array('h')`` of four class boundaries per channel.
"""

import json
from array import array

LEVELS = ("baseline", "white1", "white2", "black1", "black2")

# magnet.default_calibration(None, slots), worked out once: levels in LEVELS order,
# then the hysteresis. The magnetic model stays the single source (a test checks this
# table against it, under CPython and MicroPython); evaluating it at boot would cost
# the ESP32 about a second and the import of nardy.magnet 8 KB of heap.
_MODEL_1 = (2180, 3362, 3644, 994, 716, 29)   # one sensor per point
_MODEL_N = (2180, 3368, 3620, 990, 740, 12)   # two to six


def model_defaults(slots=5):
    """Default levels of the magnetic model for a build with ``slots`` per point.

    >>> model_defaults(5)["white1"], model_defaults(1)["hysteresis"]
    (3368, 29)
    """
    row = _MODEL_1 if slots == 1 else _MODEL_N
    out = dict(zip(LEVELS, row[:5]))
    out["hysteresis"] = row[5]
    return out


class Calibration:
    def __init__(self, n, default=None, hysteresis=None, slots=5):
        if default is None:
            default = model_defaults(slots)
        self.n = n
        self.default = [int(default[k]) for k in LEVELS]
        h = hysteresis if hysteresis is not None else default.get("hysteresis", 40)
        self.hysteresis = int(h)
        self.channels = {}   # channel -> [5 levels], only those differing from default
        self.dead = set()

    def levels(self, ch):
        """[baseline, white1, white2, black1, black2] of one channel."""
        return self.channels.get(ch, self.default)

    def set_levels(self, ch, levels):
        levels = [int(x) for x in levels]
        if levels == self.default:
            self.channels.pop(ch, None)
        else:
            self.channels[ch] = levels

    def set_baselines(self, raw):
        """Calibrate offsets from one (averaged) scan of the empty board.

        Linear hall sensors differ mostly in their zero-field output; their gain is
        close to nominal, so every threshold of a channel moves with its baseline.
        Channels reading at a rail (open or shorted input) are marked dead.
        """
        b0 = self.default[0]
        for ch in range(self.n):
            r = int(raw[ch])
            if r <= 16 or r >= 4079:
                self.dead.add(ch)
                continue
            self.dead.discard(ch)
            d = r - b0
            self.set_levels(ch, [x + d for x in self.default])

    def thresholds(self):
        """Flat array('h') of 4 boundaries per channel, each the lowest reading of
        the class above it (black1, empty, white1, white2): midpoints of the levels,
        rounded like ``magnet.classify`` (2r >= w1 + w2 is "two white", ...)."""
        t = array("h", bytes(8 * self.n))
        for ch in range(self.n):
            b, w1, w2, k1, k2 = self.levels(ch)
            t[4 * ch] = (k2 + k1) // 2 + 1
            t[4 * ch + 1] = (k1 + b) // 2 + 1
            t[4 * ch + 2] = (b + w1 + 1) // 2
            t[4 * ch + 3] = (w1 + w2 + 1) // 2
        return t

    def to_dict(self):
        d = {"v": 1, "n": self.n, "hysteresis": self.hysteresis,
             "default": dict(zip(LEVELS, self.default)),
             "channels": {}, "dead": sorted(self.dead)}
        for ch in sorted(self.channels):
            d["channels"][str(ch)] = list(self.channels[ch])
        return d

    def dumps(self):
        return json.dumps(self.to_dict())

    def save(self, path):
        with open(path, "w") as f:
            f.write(self.dumps())


def from_dict(d, n=None, slots=5):
    """Build a Calibration from a parsed file; missing parts fall back to defaults."""
    n = n if n is not None else int(d.get("n", 0))
    given = d.get("default", {})
    default = model_defaults(slots)
    for k in LEVELS:
        if k in given:
            default[k] = int(given[k])
    c = Calibration(n, default, d.get("hysteresis"))
    for k, v in d.get("channels", {}).items():
        ch = int(k)
        if 0 <= ch < n and len(v) == 5:
            c.set_levels(ch, v)
    for ch in d.get("dead", ()):
        if 0 <= int(ch) < n:
            c.dead.add(int(ch))
    return c


def load(path, n, slots=5):
    """Read the calibration file; a missing or broken file gives the defaults."""
    try:
        with open(path) as f:
            d = json.loads(f.read())
        if d.get("v") != 1:
            raise ValueError("calibration version")
        return from_dict(d, n, slots)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return Calibration(n, model_defaults(slots))
