"""Per-channel calibration of the hall sensors, kept as a small JSON file.

Each channel has five levels in ADC counts, with the meaning of
``magnet.default_calibration``: ``baseline`` (empty slot), ``white1``/``white2`` (one /
two white checkers, north up: above baseline), ``black1``/``black2`` (south up: below
it); the class boundaries are the midpoints of neighbouring levels, exactly as
``magnet.classify`` draws them. One ``hysteresis`` in counts holds for the board.

A channel's levels are its OFFSET (``base``: the empty-board reading) plus its GAIN
(``gain``, per mille) times the board's four level steps (``steps``: white1, white2,
black1, black2 minus the baseline, in counts at gain 1000). The offset and gain hold
what differs between sensors (zero-field output, sensitivity, depth under the
surface, the switch and the ADC); the steps hold the checkers' magnets, measured
over all the checkers of each colour (``nardy.calibproc``). A checker's own magnet
spread cannot be calibrated away (it travels with the checker): the thresholds sit
between the levels for that.

Without a file every channel gets the defaults of the magnetic model
(``magnet.default_calibration``), which is what an untouched board built to the
reference design reads.

The file (``calib.json`` on the board's flash), about 1.3 KB for 128 channels::

    {"v": 2, "n": 128, "hysteresis": 8, "steps": [951, 1234, -951, -1234],
     "base": [2043, 2051, ...], "gain": [1012, 987, ...], "dead": [42]}

Version 1 files (one default plus per-channel levels) still load. Loading rejects a
file whose numbers are not finite integers in range with ValueError; ``load``
falls back to the defaults then and says why in ``Calibration.error``.

The sensing loop never reads this object: ``thresholds()`` flattens it once into an
``array('h')`` of four class boundaries per channel.

>>> cal = Calibration(2)                 # two channels, the model's defaults
>>> cal.levels(0)                        # baseline, white1, white2, black1, black2
[2048, 2986, 3278, 1108, 820]
>>> cal.set_channel(1, 2000, 1100)       # offset 2000 counts, gain 1.1
>>> cal.levels(1)
[2000, 3032, 3353, 966, 649]
>>> list(cal.thresholds())[4:]           # the lowest reading of black1 .. white2
[808, 1484, 2516, 3193]
>>> cal.set_channel(0, 5000, 1000)
Traceback (most recent call last):
ValueError: calibration: channel 0: baseline 5000 or gain 1000 out of range
>>> cal.set_baselines([2100, 4095])      # the empty board; channel 1 reads a rail
>>> cal.levels(0)[:2], sorted(cal.dead)
([2100, 3038], [1])
>>> loads(cal.dumps(), 2).levels(0)      # through the file and back
[2100, 3038, 3330, 1160, 872]
"""

from array import array

LEVELS = ("baseline", "white1", "white2", "black1", "black2")
RAIL_LO = 16           # a reading at or below / at or above these is a rail (dead)
RAIL_HI = 4079
GAIN_MIN = 300         # per mille: a gain outside these is no sensor of this design
GAIN_MAX = 3000

# magnet.default_calibration(None, slots), worked out once: levels in LEVELS order,
# then the hysteresis. The magnetic model stays the single source (a test checks this
# table against it, under CPython and MicroPython); evaluating it at boot would cost
# the ESP32 about a second and the import of nardy_host.magnet 8 KB of heap.
_MODEL_1 = (2048, 2976, 3278, 1118, 820, 8)    # one sensor per point
_MODEL_N = (2048, 2986, 3278, 1108, 820, 8)    # two to six


def model_defaults(slots=5):
    """Default levels of the magnetic model for a build with ``slots`` per point.

    >>> model_defaults(5)["white1"], model_defaults(1)["hysteresis"]
    (2986, 8)
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
        d = [int(default[k]) for k in LEVELS]
        self.default = d
        self.steps = [d[1] - d[0], d[2] - d[0], d[3] - d[0], d[4] - d[0]]
        if not (0 < self.steps[0] < self.steps[1] and 0 > self.steps[2] > self.steps[3]):
            raise ValueError("calibration: levels out of order")
        h = hysteresis if hysteresis is not None else default.get("hysteresis", 40)
        self.hysteresis = int(h)
        self.base = array("h", [d[0]] * n)
        self.gain = array("H", [1000] * n)
        self.custom = {}     # channel -> 5 levels that are no offset + gain (version 1)
        self.dead = set()
        self.error = None    # why a file was not used (load), for the self-test
        self.measured = False  # levels from a calibration, not the model's defaults

    def levels(self, ch):
        """[baseline, white1, white2, black1, black2] of one channel."""
        c = self.custom.get(ch)
        if c is not None:
            return c
        b = self.base[ch]
        g = self.gain[ch]
        s = self.steps
        return [b, b + (s[0] * g + 500) // 1000, b + (s[1] * g + 500) // 1000,
                b + (s[2] * g + 500) // 1000, b + (s[3] * g + 500) // 1000]

    def set_channel(self, ch, base, gain_pm):
        """Offset (counts) and gain (per mille) of one channel."""
        base = int(base)
        gain_pm = int(gain_pm)
        if not 0 <= base <= 4095 or not GAIN_MIN <= gain_pm <= GAIN_MAX:
            raise ValueError("calibration: channel %d: baseline %d or gain %d out of "
                             "range" % (ch, base, gain_pm))
        self.base[ch] = base
        self.gain[ch] = gain_pm
        self.custom.pop(ch, None)

    def set_levels(self, ch, levels):
        levels = [int(x) for x in levels]
        b = levels[0]
        if levels == [b, b + self.steps[0], b + self.steps[1], b + self.steps[2],
                      b + self.steps[3]]:
            self.set_channel(ch, b, 1000)
        else:
            if not (levels[4] < levels[3] < levels[0] < levels[1] < levels[2]):
                raise ValueError("calibration: levels of channel %d out of order" % ch)
            self.custom[ch] = levels

    def set_baselines(self, raw):
        """Offsets only, from one (averaged) scan of the empty board; channels that
        read a rail (open or shorted input) are marked dead. Gains stay as they are
        (the guided procedure, ``nardy.calibproc``, measures them)."""
        for ch in range(self.n):
            r = int(raw[ch])
            if r <= RAIL_LO or r >= RAIL_HI:
                self.dead.add(ch)
                continue
            self.dead.discard(ch)
            c = self.custom.get(ch)
            if c is not None:
                d = r - c[0]
                self.custom[ch] = [x + d for x in c]
            else:
                self.base[ch] = r

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

    # The file's side lives in nardy.calibfile, imported when used: at boot the app
    # compiles it after its big modules, so the heap's peak does not grow.
    def to_dict(self):
        from nardy.calibfile import to_dict
        return to_dict(self)

    def dumps(self):
        import json
        return json.dumps(self.to_dict())

    def save(self, path):
        with open(path, "w") as f:
            f.write(self.dumps())


def from_dict(d, n=None, slots=5):
    """Build a Calibration from a parsed file (checked by ``nardy.calibfile.fields``):
    raises ValueError for anything not a finite integer in range, or of the wrong
    shape."""
    from nardy.calibfile import fields
    return from_fields(fields(d, n), slots)


def loads(text, n=None, slots=5):
    from nardy.calibfile import loads as f
    return from_fields(f(text, n), slots)


def from_fields(f, slots=5):
    """A Calibration from ``nardy.calibfile.fields``' validated fields."""
    n = f["n"]
    default = model_defaults(slots)
    if "default" in f:          # version 1: the levels the file names
        for k in LEVELS:
            if k in f["default"]:
                default[k] = f["default"][k]
        c = Calibration(n, default, f["hysteresis"])
    else:
        st = f["steps"]
        for k, step in zip(LEVELS[1:], st):
            default[k] = default["baseline"] + step
        c = Calibration(n, default, f["hysteresis"])
        base, gain = f["base"], f["gain"]
        for ch in range(n):
            c.set_channel(ch, base[ch], gain[ch])
    for ch, lv in f["custom"].items():
        c.set_levels(ch, lv)
    c.dead.update(f["dead"])
    c.measured = True
    return c


def load(path, n, slots=5, strict=False):
    """Read the calibration file. A missing file gives the defaults; a broken one
    raises ValueError with ``strict``, else gives the defaults with the reason in
    ``.error`` (the board still plays; the self-test names it)."""
    from nardy.calibfile import read
    text = read(path)
    if text is None:
        return Calibration(n, model_defaults(slots))
    try:
        return loads(text, n, slots)
    except ValueError as e:
        if strict:
            raise
        c = Calibration(n, model_defaults(slots))
        c.error = str(e)
        return c
