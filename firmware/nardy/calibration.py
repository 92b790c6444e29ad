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

# Fallback when magnet.py is unavailable (it is the single source for the model; these
# are only here so that a damaged install still boots and shows an out-of-sync board).
_FALLBACK = {"baseline": 2180, "white1": 3368, "white2": 3620, "black1": 990,
             "black2": 740, "hysteresis": 12}


def model_defaults(slots=5):
    """Default levels from the magnetic model, or the fallback if it cannot load."""
    try:
        from nardy import magnet
    except ImportError:
        return dict(_FALLBACK)
    try:
        d = magnet.default_calibration(None, slots)
    except TypeError:
        d = magnet.default_calibration()
    out = dict(_FALLBACK)
    for k in LEVELS:
        if k in d:
            out[k] = int(d[k])
    if "hysteresis" in d:
        out["hysteresis"] = int(d["hysteresis"])
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
    if all(k in given for k in LEVELS):
        # a calibrated board: no need to load and evaluate the magnetic model at
        # boot (it costs heap and most of the boot time on the ESP32)
        default = dict(_FALLBACK)
    else:
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
