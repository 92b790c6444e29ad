"""Sensing: classification, hysteresis, debouncing, zones, conservation, calibration,
and a steady-state scan that allocates nothing."""

import gc
from array import array

from nardy import calibration
from nardy.longnardy import LongNardy
from nardy.sensing import Sensing
from nardy.tracker import Tracker
from nardy.zonefit import zone_counts
from nardy.zones import BLIND, OPEN_B, OPEN_W, ZONE_BAR, ZONE_OFF_B, Layout

CAL = calibration.model_defaults(5)     # the magnetic model's (tests/host/test_magnet.py)
BASE = CAL["baseline"]


def make(slots=5, stable_ms=100, stuck_scans=0):
    lay = Layout(slots)
    cal = calibration.Calibration(lay.n, calibration.model_defaults(slots))
    s = Sensing(lay, cal, stable_ms=stable_ms, stuck_scans=stuck_scans)
    raw = array("H", [BASE] * lay.n)
    return lay, s, raw


def run(s, raw, t0, ms, step=20):
    t = t0
    while t < t0 + ms:
        t += step
        s.scan(raw, t)
    return t


def test_reference_build_has_128_channels():
    lay = Layout()
    assert lay.n == 128
    assert lay.channel(1, 1) == 0 and lay.channel(24, 5) == 119
    assert lay.zone[lay.channel(ZONE_BAR, 1)] == ZONE_BAR
    assert lay.zone[127] == ZONE_OFF_B
    for slots in (1, 2, 3, 4, 5, 6):
        assert Layout(slots).n == 24 * slots + 8
    try:
        Layout(7)
    except ValueError:
        pass
    else:
        raise AssertionError("7 slots accepted")


def test_calibrated_levels_classify_as_stack_heights(levels=None):
    # (the model's nominal readings: tests/host/test_sensing_model.py)
    lay, s, raw = make()
    if levels is None:
        levels = {2: CAL["white2"], 1: CAL["white1"], 0: BASE, -1: CAL["black1"],
                  -2: CAL["black2"]}
    chans = {}
    for i, h in enumerate((2, 1, 0, -1, -2)):
        ch = lay.channel(3, i + 1)
        raw[ch] = levels[h]
        chans[ch] = h
    run(s, raw, 0, 200)
    for ch, h in chans.items():
        assert s.slot_class(ch) == h, (ch, h, s.slot_class(ch))
    assert s.vis_w[3] == 3 and s.vis_b[3] == 3


def test_hysteresis_holds_a_class_near_its_boundary():
    lay, s, raw = make()
    t = calibration.Calibration(lay.n).thresholds()
    h = calibration.Calibration(lay.n).hysteresis
    ch = lay.channel(7, 1)
    edge = t[4 * ch + 2]          # lowest reading of "one white"
    raw[ch] = edge + h + 5
    now = run(s, raw, 0, 200)
    assert s.slot_class(ch) == 1
    raw[ch] = edge - h + 2        # below the boundary but inside the hysteresis band
    now = run(s, raw, now, 300)
    assert s.slot_class(ch) == 1
    raw[ch] = edge - h - 2
    run(s, raw, now, 300)
    assert s.slot_class(ch) == 0


def test_debounce_ignores_short_changes():
    lay, s, raw = make(stable_ms=100)
    ch = lay.channel(10, 2)
    now = run(s, raw, 0, 200)
    seq = s.seq
    raw[ch] = CAL["white1"]
    now = run(s, raw, now, 60)     # a slide across: shorter than the debounce
    raw[ch] = BASE
    now = run(s, raw, now, 300)
    assert s.vis_w[10] == 0 and s.seq == seq
    raw[ch] = CAL["white1"]
    now = run(s, raw, now, 160)
    assert s.vis_w[10] == 1 and s.seq == seq + 1
    assert s.ready(now) and not s.ready(now)
    assert s.still_ms(now) >= 40


def test_dead_channel_blinds_its_zone():
    lay, s, raw = make()
    ch = lay.channel(5, 3)
    raw[ch] = 0                  # open input
    run(s, raw, 0, 200)
    assert s.slot_class(ch) is None
    assert s.open_[5] & BLIND and s.vis_b[5] == 0


def test_the_stuck_watch_costs_no_heap_when_it_is_off():
    # heap (issue 10): the app runs with the watch off; its two tables are not made
    assert make()[1]._same is None and make()[1]._last is None
    lay, s, raw = make(stuck_scans=5)
    assert len(s._same) == len(s._last) == lay.n


def test_stuck_channel_is_found_when_others_show_noise():
    lay, s, raw = make(stuck_scans=50)
    ch = lay.channel(8, 1)
    now = 0
    for i in range(120):
        for c in range(lay.n):
            raw[c] = BASE + (i * 7 + c * 3) % 9 - 4
        raw[ch] = BASE + 300     # frozen, not at a rail
        now += 20
        s.scan(raw, now)
    assert s.slot_class(ch) is None and s.open_[8] & BLIND
    raw[ch] = BASE + 1           # it moves again: trusted again
    run(s, raw, now, 200)
    assert s.slot_class(ch) == 0 and not s.open_[8] & BLIND


def test_conservation_counts_one_full_stack():
    # Sensing sees at most two per slot and says where the count may be higher; the
    # tracker's conservation (zonefit) makes it 15 per colour.
    lay, s, raw = make()
    # white: 12 on P24 (five slots read "two or more"), 3 on P1; black: 15 on P12
    for slot in range(1, 6):
        raw[lay.channel(24, slot)] = CAL["white2"] + 50
        raw[lay.channel(12, slot)] = CAL["black2"] - 50
    for slot in range(1, 4):
        raw[lay.channel(1, slot)] = CAL["white1"]
    run(s, raw, 0, 200)
    assert s.vis_w[24] == 10 and s.vis_w[1] == 3 and s.vis_b[12] == 10
    assert s.open_[24] == OPEN_W and s.open_[12] == OPEN_B and not s.open_[1]
    v = LongNardy()
    trk = Tracker(v, lay)
    trk.start_turn(v.start_position(), (6, 5))
    w, b = zone_counts(v, trk.observed_position(s))
    assert (w[24], w[1], b[12], sum(w), sum(b)) == (12, 3, 15, 15, 15)
    # a second full stack of white: the count is no longer certain
    for slot in range(1, 6):
        raw[lay.channel(13, slot)] = CAL["white2"] + 50
    run(s, raw, 200, 200)
    assert s.open_[13] == OPEN_W and trk.observed_position(s) is None


def test_fewer_slots_per_point():
    lay, s, raw = make(slots=1)
    raw[lay.channel(4, 1)] = CAL["black2"] - 30
    run(s, raw, 0, 200)
    assert s.vis_b[4] == 2 and lay.cap[4] == 2


def test_calibration_json_round_trip_and_defaults():
    c = calibration.Calibration(128)
    raw = [BASE] * 128
    raw[17] = BASE - 17
    raw[40] = 0
    c.set_baselines(raw)
    assert 40 in c.dead and c.levels(17)[0] == BASE - 17
    text = c.dumps()
    assert len(text) < 1800     # 128 offsets and gains
    import json
    d = calibration.from_dict(json.loads(text))
    assert d.levels(17) == c.levels(17) and d.dead == c.dead
    assert d.thresholds() == c.thresholds()
    missing = calibration.load("/nonexistent/calib.json", 128)
    assert missing.levels(0) == calibration.Calibration(128).levels(0)


def test_steady_state_scan_allocates_nothing():
    from nardy.longnardy import LongNardy
    from nardy.tracker import Tracker
    lay, s, raw = make()
    for slot in range(1, 6):
        raw[lay.channel(24, slot)] = CAL["white2"] + 60
        raw[lay.channel(12, slot)] = CAL["black2"] - 60
    v = LongNardy()
    trk = Tracker(v, lay)
    now = run(s, raw, 0, 300)
    trk.start_turn(v.start_position(), (3, 1), s)
    trk.tick(s, s.still_ms(now))
    # warm-up past the auto-end time: the tracker asks the engine once whether a
    # step is left and keeps the answer
    for _ in range(100):
        now += 20
        s.scan(raw, now)
        if s.ready(now):
            trk.update(s, now)
        trk.tick(s, s.still_ms(now))
    seen = (bytes(s.vis_w), bytes(s.vis_b), bytes(s.open_), trk.state)
    gc.collect()
    before = _heap()
    for i in range(1000):
        now += 20
        raw[i & 127] ^= 1        # ADC noise of one count
        s.scan(raw, now)
        if s.ready(now):
            trk.update(s, now)
        trk.tick(s, s.still_ms(now))
    after = _heap()
    # noise of one count changes nothing the game sees, and (MicroPython, where the
    # heap can be read) allocates nothing
    assert (bytes(s.vis_w), bytes(s.vis_b), bytes(s.open_), trk.state) == seen
    assert after - before == 0, after - before


def _heap():
    """Bytes allocated (MicroPython); CPython cannot tell, and gives 0."""
    return gc.mem_alloc() if hasattr(gc, "mem_alloc") else 0


def test_a_lift_shows_on_its_first_scan_and_a_spike_takes_it_back():
    # issue 21: the LEDs may light on the scan that first shows a lift; the debounced
    # observation follows, and a reading that returns ends it
    lay, s, raw = make()
    ch = lay.channel(7, 2)
    raw[ch] = CAL["white1"]
    raw[lay.channel(9, 1)] = CAL["black2"] - 50
    now = run(s, raw, 0, 200)
    assert s.vis_w[7] == 1 and s.early_zone == 0
    raw[ch] = BASE                       # lifted
    now += 20
    s.scan(raw, now)
    assert s.early_zone == 7 and s.early_col == 0 and s.vis_w[7] == 1
    raw[ch] = CAL["white1"]              # a spike: the reading returns
    now += 20
    s.scan(raw, now)
    assert s.early_zone == 0
    raw[ch] = BASE
    now += 20
    s.scan(raw, now)
    assert s.early_zone == 7
    now = run(s, raw, now, 200)          # debounced: the observation has it
    assert s.vis_w[7] == 0 and s.early_zone == 0
    # black: one of a stack of two on a slot
    raw[lay.channel(9, 1)] = CAL["black1"]
    now += 20
    s.scan(raw, now)
    assert s.early_zone == 9 and s.early_col == 1
    # a checker put down is no lift
    now = run(s, raw, now, 200)
    raw[lay.channel(3, 1)] = CAL["white1"]
    now += 20
    s.scan(raw, now)
    assert s.early_zone == 0
