"""The calibration file (``calib.json``): parsing with strict validation, and the
dict it is written from. Kept apart from ``nardy.calibration`` (imported only when a
file is read or written) so that the boot's heap peak does not grow; the format is
described there.
"""

import json

from nardy.calibration import GAIN_MAX, GAIN_MIN, LEVELS, Calibration, model_defaults


def _int(v, lo, hi, what):
    # bool is an int in Python; NaN/inf arrive as floats and are rejected here
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise ValueError("calibration: %s must be an integer %d..%d, not %r"
                         % (what, lo, hi, v))
    return v


def _check_steps(st):
    if not isinstance(st, (list, tuple)) or len(st) != 4:
        raise ValueError("calibration: steps must be 4 integers")
    w1, w2, b1, b2 = [_int(x, -4095, 4095, "a step") for x in st]
    if not (0 < w1 < w2 and 0 > b1 > b2):
        raise ValueError("calibration: steps must order black2 < black1 < 0 < white1 "
                         "< white2")
    return [w1, w2, b1, b2]


def to_dict(c):
    d = {"v": 2, "n": c.n, "hysteresis": c.hysteresis,
         "steps": list(c.steps), "base": list(c.base),
         "gain": list(c.gain), "dead": sorted(c.dead)}
    if c.custom:
        d["custom"] = {}
        for ch in sorted(c.custom):
            d["custom"][str(ch)] = list(c.custom[ch])
    return d


def _channel(k, n):
    try:
        ch = int(k)
    except (TypeError, ValueError):
        raise ValueError("calibration: bad channel %r" % (k,)) from None
    if not 0 <= ch < n:
        raise ValueError("calibration: channel %d out of range" % ch)
    return ch


def _set_levels(c, d, key, n):
    """The channels with five levels of their own: ``d[key]``, {channel: levels}
    ("channels" in version 1, "custom" in version 2)."""
    chans = d.get(key, {})
    if not isinstance(chans, dict):
        raise ValueError("calibration: %s must be an object" % key)
    for k, lv in chans.items():
        if not isinstance(lv, list) or len(lv) != 5:
            raise ValueError("calibration: channel %r needs 5 levels" % (k,))
        c.set_levels(_channel(k, n), [_int(x, 0, 4095, "a level") for x in lv])


def from_dict(d, n=None, slots=5):
    """Build a Calibration from a parsed file. Raises ValueError for anything not a
    finite integer in range, or of the wrong shape."""
    if not isinstance(d, dict):
        raise ValueError("calibration: not a JSON object")
    v = d.get("v", 1)
    if v not in (1, 2):
        raise ValueError("calibration: unknown version %r" % (v,))
    n = n if n is not None else _int(d.get("n", 0), 1, 4096, "n")
    if "n" in d and d["n"] != n:
        raise ValueError("calibration: made for %r channels, the board has %d"
                         % (d["n"], n))
    default = model_defaults(slots)
    hyst = d.get("hysteresis")
    if hyst is not None:
        _int(hyst, 0, 1000, "hysteresis")
    if v == 1:
        given = d.get("default", {})
        if not isinstance(given, dict):
            raise ValueError("calibration: default must be an object")
        for k in LEVELS:
            if k in given:
                default[k] = _int(given[k], 0, 4095, k)
        c = Calibration(n, default, hyst)
        _set_levels(c, d, "channels", n)
    else:
        st = _check_steps(d.get("steps"))
        default["white1"] = default["baseline"] + st[0]
        default["white2"] = default["baseline"] + st[1]
        default["black1"] = default["baseline"] + st[2]
        default["black2"] = default["baseline"] + st[3]
        c = Calibration(n, default, hyst)
        base = d.get("base")
        gain = d.get("gain")
        if not isinstance(base, list) or not isinstance(gain, list) \
                or len(base) != n or len(gain) != n:
            raise ValueError("calibration: base and gain need %d entries each" % n)
        for ch in range(n):
            c.set_channel(ch, _int(base[ch], 0, 4095, "a baseline"),
                          _int(gain[ch], GAIN_MIN, GAIN_MAX, "a gain"))
        _set_levels(c, d, "custom", n)
    dead = d.get("dead", [])
    if not isinstance(dead, list):
        raise ValueError("calibration: dead must be a list")
    for ch in dead:
        c.dead.add(_channel(_int(ch, 0, n - 1, "a dead channel"), n))
    c.measured = True
    return c


def loads(text, n=None, slots=5):
    try:
        d = json.loads(text)
    except (ValueError, TypeError) as e:
        raise ValueError("calibration: not JSON (%s)" % e) from None
    return from_dict(d, n, slots)


def load(path, n, slots=5, strict=False):
    """Read the calibration file. A missing file gives the defaults; a broken one
    raises ValueError with ``strict``, else gives the defaults with the reason in
    ``.error`` (the board still plays; the self-test names it)."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return Calibration(n, model_defaults(slots))
    try:
        return loads(text, n, slots)
    except ValueError as e:
        if strict:
            raise
        c = Calibration(n, model_defaults(slots))
        c.error = str(e)
        return c
