"""The calibration file: offsets and gains per channel, version 1 compatibility, and
rejection of anything that is not a finite integer in range."""

import json

from nardy import calibration
from nardy.calibration import Calibration, from_dict, load, loads, model_defaults

_here = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."


def _cal():
    c = Calibration(128)
    c.set_channel(3, 2100, 1100)
    c.set_channel(4, 1990, 900)
    c.dead.add(9)
    return c


def test_gain_scales_every_step_of_a_channel():
    c = _cal()
    d = model_defaults(5)
    b, w1, w2, k1, k2 = c.levels(3)
    assert b == 2100
    assert abs((w1 - b) - 1.1 * (d["white1"] - d["baseline"])) <= 1
    assert abs((k2 - b) - 1.1 * (d["black2"] - d["baseline"])) <= 1
    assert c.levels(0) == [d[k] for k in calibration.LEVELS]


def test_round_trip_v2():
    c = _cal()
    text = c.dumps()
    r = loads(text)
    assert r.levels(3) == c.levels(3) and r.levels(4) == c.levels(4)
    assert r.dead == {9} and r.thresholds() == c.thresholds()
    assert json.loads(text)["v"] == 2


def test_version1_file_still_loads():
    d = {"v": 1, "n": 128, "hysteresis": 12,
         "default": {"baseline": 2000, "white1": 2900, "white2": 3200, "black1": 1100,
                     "black2": 800},
         "channels": {"17": [1990, 2890, 3190, 1090, 790],
                      "18": [2000, 2950, 3300, 1000, 700]}, "dead": [42]}
    c = from_dict(d)
    assert c.levels(17) == [1990, 2890, 3190, 1090, 790]
    assert c.levels(18) == [2000, 2950, 3300, 1000, 700]
    assert c.levels(0) == [2000, 2900, 3200, 1100, 800] and c.dead == {42}


def _rejects(d, word):
    try:
        from_dict(d, 128)
    except ValueError as e:
        assert word in str(e), (word, str(e))
    else:
        raise AssertionError("accepted: %s" % word)


def test_rejects_out_of_range_and_non_finite():
    good = _cal().to_dict()
    cases = (
        (("base", 5, 5000), "baseline"),
        (("base", 5, -1), "baseline"),
        (("base", 5, 2048.5), "baseline"),
        (("base", 5, float("nan")), "baseline"),
        (("gain", 5, float("inf")), "gain"),
        (("gain", 5, 0), "gain"),
        (("gain", 5, True), "gain"),
        (("hysteresis", None, -3), "hysteresis"),
        (("steps", None, [900, 800, -900, -1200]), "order"),
        (("steps", None, [900, 1200, -900]), "steps"),
        (("n", None, 64), "channels"),
        (("dead", None, [128]), "dead"),
        (("v", None, 7), "version"),
        (("base", None, [2048] * 127), "entries"),
    )
    for (key, i, v), word in cases:
        d = json.loads(json.dumps(good))
        if i is None:
            d[key] = v
        else:
            d[key][i] = v
        _rejects(d, word)
    _rejects([1, 2], "object")


def test_rejects_broken_version1_levels():
    d = {"v": 1, "channels": {"3": [2000, 1000, 3000, 1100, 800]}}
    _rejects(d, "order")
    d = {"v": 1, "channels": {"300": [2000, 2900, 3200, 1100, 800]}}
    _rejects(d, "range")


def test_load_falls_back_and_says_why_unless_strict():
    path = "/tmp/nardy-calib-test-%d.json" % id(test_rejects_out_of_range_and_non_finite)
    with open(path, "w") as f:
        f.write('{"v": 2, "n": 128, "steps": [1, 2, -1, -2], "base": [], "gain": []}')
    c = load(path, 128)
    assert c.error and "entries" in c.error
    assert c.levels(0) == Calibration(128).levels(0)
    try:
        load(path, 128, strict=True)
    except ValueError:
        pass
    else:
        raise AssertionError("strict load accepted a broken file")
    with open(path, "w") as f:
        f.write("{not json")
    assert load(path, 128).error
    import os
    os.remove(path)
    assert load(path, 128).error is None     # missing: the defaults, no complaint


def test_the_file_gives_plain_validated_fields():
    # issue 24: nardy.calibfile knows no Calibration (no circle with nardy.calibration):
    # it checks the file and hands over plain fields, which calibration builds from
    from nardy import calibfile
    f = calibfile.fields(_cal().to_dict())
    assert f["n"] == 128 and f["base"][3] == 2100 and f["gain"][4] == 900
    assert f["dead"] == [9] and f["custom"] == {} and "default" not in f
    assert calibration.from_fields(f).levels(3) == _cal().levels(3)
    v1 = calibfile.fields({"v": 1, "n": 4, "default": {"baseline": 2000},
                           "channels": {"2": [2000, 2900, 3200, 1100, 800]}})
    assert v1["default"] == {"baseline": 2000} and v1["custom"] == {2: [2000, 2900, 3200,
                                                                         1100, 800]}
    try:
        calibfile.fields({"v": 1, "n": 4, "default": {"baseline": 5000}})
    except ValueError as e:
        assert "baseline" in str(e)
    else:
        raise AssertionError("a baseline out of range passed")
