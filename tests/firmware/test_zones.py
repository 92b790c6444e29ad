"""Zone geometry has one home (nardy.zonefit): the game, the tracker, the host and the
test helpers all read it from there; the zones' terms are nardy.zones'."""

from fakeobs import show

from nardy import game, zonefit, zones
from nardy.longnardy import LongNardy
from nardy.rules import BLACK, WHITE
from nardy.shortnardy import ShortNardy
from nardy.zonefit import differences, zone_counts, zone_of, zone_table
from nardy.zones import BLIND, NZONES, Layout

LAYOUT = Layout(5)
_HERE = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."


def _folded(name):
    """{NAME: value} of a firmware module's ``_NAME = const(value)`` lines (read from its
    source: MicroPython folds them away, so the module has no such names)."""
    out = {}
    with open(_HERE + "/../../firmware/nardy/" + name + ".py") as f:
        for line in f:
            if line.startswith("_") and " = const(" in line:
                k, v = line.split(" = const(", 1)
                v = v.split(")", 1)[0]
                if v.isdigit():
                    out[k[1:]] = int(v)
    return out


def test_the_folded_copies_of_the_zone_terms_are_nardy_zones():
    # sensing keeps the zones' terms folded into its scan (no dict look-ups): each
    # copy must be the one home's value
    copies = _folded("sensing")
    terms = [k for k in copies if hasattr(zones, k)]
    assert len(terms) >= 10, copies
    for k in terms:
        assert copies[k] == getattr(zones, k), k
    assert _folded("tracker")["BAR"] == zones.ZONE_BAR      # tracker's _BAR


def test_every_path_point_has_its_own_zone():
    for v in (LongNardy(), ShortNardy()):
        for c in (WHITE, BLACK):
            t = zone_table(v, c)
            assert sorted(t) == list(range(1, 25)) + [25, 26 if c == WHITE else 27]
            assert [zone_of(v, c, k) for k in range(26)] == list(t)
    assert game.zone_of is zone_of


def test_the_tracker_uses_the_same_tables():
    v = ShortNardy()
    z = zonefit.ZoneFit()
    z._zones_init(v, LAYOUT)
    for c in (WHITE, BLACK):
        assert z._zt[c] == zone_table(v, c)
        for k in range(26):
            assert z._pp[c][z._zt[c][k]] == k


def test_counts_and_a_checker_in_the_hand():
    v = ShortNardy()
    pos = v.start_position()
    w, b = zone_counts(v, pos)
    assert sum(w) == sum(b) == 15 and len(w) == NZONES
    k = [k for k in range(26) if pos.count(WHITE, k)][0]
    w2, _ = zone_counts(v, pos, hand=(WHITE, k))
    z = zone_of(v, WHITE, k)
    assert w2[z] == w[z] - 1 and sum(w2) == 14


def test_differences_see_extra_and_missing_checkers_but_not_behind_a_blind_slot():
    v = LongNardy()
    pos = v.start_position()
    exp = zone_counts(v, pos)
    assert differences(exp, show(v, LAYOUT, pos), LAYOUT.cap) == []
    # one white checker moved from the head (zone 24) to zone 20: the head still
    # shows its cap, so only the extra checker is a difference
    obs = show(v, LAYOUT, pos, lift=((WHITE, 24),), add=((WHITE, 20),))
    assert differences(exp, obs, LAYOUT.cap) == [(20, WHITE, 0, 1)]
    # black's single point emptied: missing; a blind slot there hides it
    single = v.start_position()
    single.side(BLACK)[1] = 1
    single.side(BLACK)[25] = 14
    exp = zone_counts(v, single)
    z = zone_of(v, BLACK, 1)
    assert differences(exp, show(v, LAYOUT, single, lift=((BLACK, z),)), LAYOUT.cap) == \
        [(z, BLACK, 1, 0)]
    assert differences(exp, show(v, LAYOUT, single, lift=((BLACK, z),), blind=(z,)),
                       LAYOUT.cap) == []
    assert BLIND


def test_game_board_diffs_is_the_same_judgement():
    v = LongNardy()
    pos = v.start_position()
    obs = show(v, LAYOUT, pos, add=((BLACK, 3),))
    assert game.board_diffs(v, pos, obs, LAYOUT.cap) == \
        differences(zone_counts(v, pos), obs, LAYOUT.cap) == [(3, BLACK, 0, 1)]
