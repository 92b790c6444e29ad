"""The guided calibration's state machine, fed synthetic scans (no physics): offsets,
gains, the reference step, sanity windows, skipping, a reversed magnet."""

from nardy.calibproc import DONE, REF_BLACK, REF_WHITE, SLOTS, Procedure, report_lines
from nardy.calibration import model_defaults

N = 24
D = model_defaults(5)
STEP = D["white1"] - D["baseline"]


def _board(n=N):
    base = [2000 + 7 * ch for ch in range(n)]
    gain = [0.9 + 0.01 * ch for ch in range(n)]
    return base, gain


def _feed(p, raw, k=1):
    for _ in range(k):
        p.feed(raw)


def _place(p, base, gain, ch, strength=1.0, sign=1):
    raw = list(base)
    raw[ch] = int(base[ch] + sign * gain[ch] * STEP * strength)
    _feed(p, raw, 4)
    _feed(p, base, 2)         # lifted


def test_offsets_gains_and_reference():
    base, gain = _board()
    p = Procedure(N, ref_channel=0, ref_count=3, empty_scans=4)
    _feed(p, base, 4)
    assert p.phase == SLOTS
    for ch in range(N - 1, -1, -1):       # any order
        _place(p, base, gain, ch, strength=1.05)   # the slot checker is 5 % strong
    assert p.phase == REF_WHITE
    for s in (0.98, 1.0, 1.02):           # the white checkers' mean: 1.0
        _place(p, base, gain, 0, s)
    assert p.phase == REF_BLACK
    for s in (0.9, 0.9, 0.9):             # black magnets 10 % weaker than white
        _place(p, base, gain, 0, s, -1)
    assert p.phase == DONE
    cal, faults = p.result()
    assert not any(faults.values()), faults
    for ch in range(N):
        assert cal.base[ch] == base[ch]
        # 5 % of the slot checker's excess is taken out by the reference step
        assert abs(cal.gain[ch] - 1000 * gain[ch]) <= 3, (ch, cal.gain[ch])
    assert abs(cal.steps[2] - 0.9 * (D["black1"] - D["baseline"])) <= 2
    assert cal.measured


def test_dead_noisy_and_offset_windows():
    base, gain = _board()
    p = Procedure(N, ref_count=0, empty_scans=4)
    raws = []
    for i in range(4):
        r = list(base)
        r[3] = 0
        r[5] = base[5] + (100 if i % 2 else 0)
        r[7] = 2600
        raws.append(r)
    for r in raws:
        p.feed(r)
    assert p.faults["dead"] == [3] and p.faults["noisy"] == [5]
    assert p.faults["offset"] == [7]
    p.finish()                              # skip the slots
    assert p.phase == DONE
    cal, faults = p.result()
    assert 3 in cal.dead and len(faults["missing"]) == N - 1
    lines = report_lines(faults)
    assert lines[0] == "dead (rail): 3" and "not calibrated" in lines[-1]


def test_skipped_slots_get_the_median_gain():
    base, gain = _board()
    p = Procedure(N, ref_count=0, empty_scans=2)
    _feed(p, base, 2)
    for ch in range(0, N, 2):
        _place(p, base, gain, ch)
    p.finish()
    cal, faults = p.result()
    assert faults["missing"] == list(range(1, N, 2))
    placed = sorted(cal.gain[ch] for ch in range(0, N, 2))
    assert cal.gain[1] == placed[len(placed) // 2]


def test_two_checkers_at_once_are_not_taken():
    base, gain = _board()
    p = Procedure(N, ref_count=0, empty_scans=2)
    _feed(p, base, 2)
    raw = list(base)
    raw[2] += STEP
    raw[9] += STEP
    _feed(p, raw, 6)
    assert not any(p.done)


def test_reversed_magnet_gives_a_hint():
    base, gain = _board()
    p = Procedure(N, ref_count=0, empty_scans=2)
    _feed(p, base, 2)
    _place(p, base, gain, 4, 1.0, -1)
    assert p.hint == "reversed" and not p.done[4]
    assert "reversed" in report_lines(p.faults, p.hint)[-1]


def test_gain_out_of_window_is_a_fault():
    base, gain = _board()
    p = Procedure(N, ref_count=0, empty_scans=2)
    _feed(p, base, 2)
    for ch in range(N):
        _place(p, base, gain, ch, 2.0 if ch == 6 else 1.0)
    cal, faults = p.result()
    assert faults["gain"] == [6] and 6 in cal.dead
