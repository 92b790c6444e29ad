"""Dice: exact uniformity of the rejection sampling, and a chi-square test of the
real generator (os.urandom)."""

from nardy.dice import Dice, enter_die


def test_every_byte_value_once_gives_equal_faces():
    # Feed each byte value 0..255 exactly once: 252 of them are used, 42 per face;
    # a plain byte % 6 would give 43 for faces 1-4.
    data = bytes(range(256)) + bytes([0] * 16)
    pos = [0]

    def rnd(n):
        out = data[pos[0]:pos[0] + n]
        pos[0] += n
        return out

    d = Dice(rnd)
    counts = [0] * 7
    for _ in range(252):
        counts[d.die()] += 1
    assert counts[1:] == [42] * 6, counts


def test_rejected_bytes_are_skipped():
    d = Dice(lambda n: bytes([255, 254, 253, 252, 7] + [0] * (n - 5)))
    assert d.die() == 7 % 6 + 1


# chi-square critical values at p = 1e-6 (a sound generator fails once in a million)
_CRIT_5DF = 35.9
_CRIT_35DF = 95.0


def _chi2(counts, expected):
    s = 0.0
    for c in counts:
        s += (c - expected) ** 2 / expected
    return s


def test_chi_square_faces_and_pairs():
    d = Dice()
    n = 36000
    faces = [0] * 6
    pairs = [0] * 36
    for _ in range(n):
        a, b = d.roll()
        faces[a - 1] += 1
        faces[b - 1] += 1
        pairs[6 * (a - 1) + b - 1] += 1
    assert _chi2(faces, 2 * n / 6) < _CRIT_5DF, faces
    assert _chi2(pairs, n / 36) < _CRIT_35DF, pairs


def test_chi_square_detects_a_biased_die():
    # the same statistic on a die that shows 6 a little too often must fail
    faces = [6000, 6000, 6000, 6000, 6000, 6600]
    assert _chi2(faces, sum(faces) / 6) > _CRIT_5DF


def test_opening_never_ends_on_a_tie():
    seq = bytes([0, 0, 6, 6, 2, 3] + [0] * 10)   # faces 1-1, 1-1, 3-4
    d = Dice(lambda n: seq[:n])
    tries = d.opening()
    assert tries == [(1, 1), (1, 1), (3, 4)], tries


def test_manual_entry():
    e = bytearray((1, 1, 0))
    got = [enter_die(e, name) for name in ("back", "back", "ok", "back", "back", "back",
                                           "back", "back", "back", "ok")]
    assert got[:-1] == [None] * 9 and got[-1] == (3, 1)     # the second die wrapped
    assert enter_die(e, "back") == (3, 1) and enter_die(e, "ok") == (3, 1)   # no change


def test_loaded_dice_come_first_then_random_ones():
    d = Dice(lambda n: bytes([3] * n))          # random dice: always 4
    d.load([6, 1, 2])
    assert d.opening() == [(6, 1)]
    assert d.roll() == (2, 4)
    assert d.roll() == (4, 4)


def test_loading_a_bad_die_changes_nothing():
    d = Dice(lambda n: bytes([3] * n))
    d.load([5, 5])
    for bad in ([0], [7], [True], ["3"], [2.0]):
        try:
            d.load(bad)
        except ValueError as e:
            assert "1..6" in str(e)
        else:
            raise AssertionError("loaded %r" % bad)
    assert d.roll() == (5, 5)
