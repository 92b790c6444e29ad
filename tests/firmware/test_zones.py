"""Zone geometry has one home (nardy.zonefit): the game, the tracker, the host and the
test helpers all read it from there."""

from fakeobs import show

from nardy import game, zonefit
from nardy.longnardy import LongNardy
from nardy.rules import BLACK, WHITE
from nardy.sensing import BLIND, NZONES, Layout
from nardy.shortnardy import ShortNardy
from nardy.zonefit import differences, zone_counts, zone_of, zone_table

LAYOUT = Layout(5)


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
