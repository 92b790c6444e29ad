"""S1-S6: short nardy (backgammon). Path point k is gnubg's point 25 - k."""

from fwutil import build, play

from nardy.rules import BLACK, WHITE
from nardy.scoring import Match, game_result
from nardy.shortnardy import ShortNardy

SHORT = ShortNardy()


def g(n):
    """gnubg point number -> path point."""
    return 25 - n


def test_s1_start_and_directions():
    p = SHORT.start_position()
    for c in (WHITE, BLACK):
        s = p.side(c)
        assert [s[g(24)], s[g(13)], s[g(8)], s[g(6)]] == [2, 5, 3, 5]
    # opposite directions: white P24 -> P1, black P1 -> P24
    assert [SHORT.physical(WHITE, k) for k in (1, 24)] == [24, 1]
    assert [SHORT.physical(BLACK, k) for k in (1, 24)] == [1, 24]
    phys = {}
    for c in (WHITE, BLACK):
        for k in range(1, 25):
            if p.side(c)[k]:
                assert SHORT.physical(c, k) not in phys
                phys[SHORT.physical(c, k)] = c
    assert phys == {24: 0, 13: 0, 8: 0, 6: 0, 1: 1, 12: 1, 17: 1, 19: 1}


def test_s2_blot_is_hit_two_close_the_point():
    p = build(SHORT, {g(13): 15}, {g(11): 1, g(9): 2, g(1): 12})
    assert SHORT.step_error(p, (4, 2), [], (g(13), g(9))) == ("S2", "point is closed")
    hit = SHORT.apply_step(p, (g(13), g(11)))
    assert hit.side(BLACK)[0] == 1 and hit.side(BLACK)[SHORT.opp_point(g(11))] == 0
    assert SHORT.check_turn(p, (4, 2), play(SHORT, p, [(g(13), g(11)), (g(13), g(9))])) \
        is not None


def test_s3_enter_from_the_bar_first_003_s15():
    # 003 §15: 2 and 5: enter on the opponent's 2- or 5-point (my path 2 or 5)
    p = build(SHORT, {g(13): 14}, {g(3): 2}, my_bar=1)
    firsts = SHORT.next_steps(p, (2, 5))
    assert sorted(firsts) == [(0, 2), (0, 5)]
    assert SHORT.step_error(p, (2, 5), [], (g(13), g(11))) == ("S3", "enter from the bar first")
    # §18: after entering, the other die moves any checker
    assert (g(13), g(8)) in SHORT.next_steps(p, (2, 5), [(0, 2)])


def test_s3_entering_blocked_003_s16():
    # both entry points closed: the turn passes
    p = build(SHORT, {g(13): 14}, {2: 2, 5: 2}, my_bar=1)
    assert [s for s, _ in SHORT.legal_turns(p, (2, 5))] == [()]
    # one closed: enter on the other; with two on the bar the rest is lost
    q = build(SHORT, {g(13): 13}, {5: 2}, my_bar=2)
    turns = SHORT.legal_turns(q, (2, 5))
    assert [s for s, _ in turns] == [((0, 2),)]
    # one on the bar, one entry closed: enter with the 2, play the 5 elsewhere
    r = build(SHORT, {g(13): 14}, {5: 2}, my_bar=1)
    assert all(len(s) == 2 and s[0] == (0, 2) for s, _ in SHORT.legal_turns(r, (2, 5)))


def test_s4_hit_during_bearing_off_stops_it():
    # all home but one hit checker on the bar: no bearing off until it is home again
    p = build(SHORT, {g(6): 4, g(3): 5, g(1): 5}, {g(12): 2}, my_bar=1)
    assert SHORT.step_error(p, (6, 5), [(0, 5)], (g(3), 25))[0] == "C6"
    for s, _ in SHORT.legal_turns(p, (6, 5)):
        assert (g(3), 25) not in s and (g(1), 25) not in s


def test_s5_oin_mars_koks():
    assert game_result(SHORT, build(SHORT, {}, {g(20): 14})) == (WHITE, "oin", 1)
    assert game_result(SHORT, build(SHORT, {}, {g(20): 15})) == (WHITE, "mars", 2)
    # a loser's checker in the winner's home (my 1..6 in gnubg numbers) or on the bar
    assert game_result(SHORT, build(SHORT, {}, {g(3): 1, g(20): 14})) == (WHITE, "koks", 3)
    assert game_result(SHORT, build(SHORT, {}, {g(20): 14}, their_bar=1)) == (
        WHITE, "koks", 3)


def test_s5_no_draws_and_match_keeps_colours():
    m = Match(SHORT, 3)
    m.record((BLACK, "koks", 3))
    assert m.over and m.winner == 1 and m.white_player == 0


def test_s6_resign():
    m = Match(SHORT, 7)
    res = m.resign(WHITE, "mars")
    assert res == (BLACK, "mars", 2)
    m.record(res)
    assert m.score == [0, 2]
