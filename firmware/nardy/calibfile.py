"""The calibration file (``calib.json``): parsing with strict validation into plain
fields, and the dict it is written from. A leaf (``nardy.calibration`` builds its
object from the fields): kept apart from it, imported only when a file is read or
written, so that the boot's heap peak does not grow; the format is described there.
"""

import json


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


def _custom(d, key, n):
    """The channels with five levels of their own: ``d[key]``, {channel: levels}
    ("channels" in version 1, "custom" in version 2)."""
    chans = d.get(key, {})
    if not isinstance(chans, dict):
        raise ValueError("calibration: %s must be an object" % key)
    out = {}
    for k, lv in chans.items():
        if not isinstance(lv, list) or len(lv) != 5:
            raise ValueError("calibration: channel %r needs 5 levels" % (k,))
        out[_channel(k, n)] = [_int(x, 0, 4095, "a level") for x in lv]
    return out


def fields(d, n=None):
    """The validated fields of a parsed file, for ``nardy.calibration`` to build its
    object from: ``n``, ``hysteresis`` (None: the model's), ``custom`` ({channel: 5
    levels}), ``dead`` (channels), and either ``default`` (version 1: the levels it
    names, {name: counts}) or ``steps``, ``base`` and ``gain`` (version 2). Raises
    ValueError for anything not a finite integer in range, or of the wrong shape."""
    if not isinstance(d, dict):
        raise ValueError("calibration: not a JSON object")
    v = d.get("v", 1)
    if v not in (1, 2):
        raise ValueError("calibration: unknown version %r" % (v,))
    n = n if n is not None else _int(d.get("n", 0), 1, 4096, "n")
    if "n" in d and d["n"] != n:
        raise ValueError("calibration: made for %r channels, the board has %d"
                         % (d["n"], n))
    out = {"n": n, "hysteresis": d.get("hysteresis")}
    if out["hysteresis"] is not None:
        _int(out["hysteresis"], 0, 1000, "hysteresis")
    if v == 1:
        given = d.get("default", {})
        if not isinstance(given, dict):
            raise ValueError("calibration: default must be an object")
        out["default"] = {k: _int(x, 0, 4095, k) for k, x in given.items()}
        out["custom"] = _custom(d, "channels", n)
    else:
        out["steps"] = _check_steps(d.get("steps"))
        base = d.get("base")
        gain = d.get("gain")
        if not isinstance(base, list) or not isinstance(gain, list) \
                or len(base) != n or len(gain) != n:
            raise ValueError("calibration: base and gain need %d entries each" % n)
        out["base"] = [_int(x, 0, 4095, "a baseline") for x in base]
        out["gain"] = [_int(x, 0, 65535, "a gain") for x in gain]
        out["custom"] = _custom(d, "custom", n)
    dead = d.get("dead", [])
    if not isinstance(dead, list):
        raise ValueError("calibration: dead must be a list")
    out["dead"] = [_channel(_int(ch, 0, n - 1, "a dead channel"), n) for ch in dead]
    return out


def loads(text, n=None):
    """``fields`` of the file's text."""
    try:
        d = json.loads(text)
    except (ValueError, TypeError) as e:
        raise ValueError("calibration: not JSON (%s)" % e) from None
    return fields(d, n)


def read(path):
    """The file's text, or None when there is none."""
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None
