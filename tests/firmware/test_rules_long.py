"""L1-L8: long nardy."""

from fwutil import build, play

from nardy.longnardy import LongNardy
from nardy.rules import BLACK, WHITE
from nardy.scoring import Match, game_result, needs_last_roll

LONG = LongNardy()


def test_l1_start_and_geometry():
    p = LONG.start_position()
    assert p.count(WHITE, 1) == 15 and p.count(BLACK, 1) == 15
    assert LONG.physical(WHITE, 1) == 24 and LONG.physical(BLACK, 1) == 12
    # both travel the same way round: white P24->P13->P12->P1, black P12->P1->P24->P13
    assert [LONG.physical(WHITE, k) for k in (12, 13, 24)] == [13, 12, 1]
    assert [LONG.physical(BLACK, k) for k in (12, 13, 24)] == [1, 24, 13]
    for k in range(1, 25):
        # white's path p is black's ((p + 11) mod 24) + 1: the same physical point
        assert LONG.physical(WHITE, k) == LONG.physical(BLACK, LONG.opp_point(k))
        for c in (WHITE, BLACK):
            assert LONG.path_point(c, LONG.physical(c, k)) == k
    # white's home is P6..P1, black's P18..P13
    assert sorted(LONG.physical(WHITE, k) for k in range(19, 25)) == [1, 2, 3, 4, 5, 6]
    assert sorted(LONG.physical(BLACK, k) for k in range(19, 25)) == list(range(13, 19))


def test_l2_any_opposing_checker_closes_a_point_and_nobody_is_hit():
    p = build(LONG, {5: 14, 20: 1}, {11: 1, 13: 14})
    assert LONG.step_error(p, (6, 2), [], (5, 11)) == ("L2", "point is closed")
    for _, res in LONG.legal_turns(p, (6, 2)):
        assert res.side(BLACK)[0] == 0 and res.side(BLACK)[LONG.opp_point(11)] == 1


def test_l3_one_checker_from_the_head_per_turn():
    p = LONG.start_position()
    assert LONG.step_error(p, (6, 5), [(1, 7)], (1, 6))[0] == "L3"
    f = play(LONG, p, [(1, 7), (1, 6)])
    assert LONG.check_turn(p, (6, 5), f)[0] == "L3"
    # later turns too (not the first turn: 14 on the head)
    q = build(LONG, {1: 14, 7: 1}, {13: 15})
    assert LONG.step_error(q, (2, 2), [(1, 3)], (1, 3))[0] == "L3"


def test_l4_first_turn_6_6_takes_two_from_the_head():
    p = LONG.start_position()
    turns = LONG.legal_turns(p, (6, 6))
    assert len(turns) == 1
    me = turns[0][1].side(WHITE)
    assert me[1] == 13 and me[7] == 2   # 7 -> 13 is the opponent's head: two sixes lost


def test_l4_first_turn_4_4_and_3_3():
    p = LONG.start_position()
    (steps, res), = LONG.legal_turns(p, (4, 4))
    assert res.side(WHITE)[1] == 13 and res.side(WHITE)[9] == 2 and len(steps) == 4
    mine = set()
    for _, res in LONG.legal_turns(p, (3, 3)):
        s = res.side(WHITE)
        assert s[1] == 13
        mine.add(tuple(k for k in range(2, 25) for _ in range(s[k])))
    assert mine == {(7, 7), (4, 10)}


def test_l4_black_first_turn_too():
    p = play(LONG, LONG.start_position(), [(1, 7), (7, 12)])
    p.turn = BLACK
    (_, res), = LONG.legal_turns(p, (6, 6))
    assert res.side(BLACK)[1] == 13 and res.side(BLACK)[7] == 2


def test_l4_note_5_5_then_4_4_001_s3_1():
    # White opens 5-5 with one checker from the head to its 21 (black's 9).
    p = play(LONG, LONG.start_position(), [(1, 6), (6, 11), (11, 16), (16, 21)])
    p.turn = BLACK
    assert LONG.opp_point(21) == 9
    turns = LONG.legal_turns(p, (4, 4))
    # black plays a single four from the head; the rest is lost
    assert [s for s, _ in turns] == [((1, 5),)]
    assert LONG.max_steps(p, (4, 4)) == 1


def test_l4_not_on_later_turns_nor_other_doubles():
    p = LONG.start_position()
    for _, res in LONG.legal_turns(p, (5, 5)):
        assert res.side(WHITE)[1] == 14
    for _, res in LONG.legal_turns(p, (2, 2)):
        assert res.side(WHITE)[1] == 14
    # a later turn (14 on the head): 6-6 takes one checker to 7, the rest is lost
    q = build(LONG, {1: 14, 20: 1}, {13: 15})
    (steps, res), = LONG.legal_turns(q, (6, 6))
    assert steps == ((1, 7),) and res.side(WHITE)[1] == 13


def test_l4_option_first_turn_any_double():
    v = LongNardy(first_turn_any_double=True)
    p = v.start_position()
    for d in ((5, 5), (2, 2), (1, 1)):
        assert any(res.side(WHITE)[1] == 13 for _, res in v.legal_turns(p, d))
        assert all(res.side(WHITE)[1] == 14 for _, res in LONG.legal_turns(p, d))


# Six-block (L5). Block points are counted along the OPPONENT's path: my path p is
# its ((p + 11) mod 24) + 1.

def test_l5_six_block_formed_and_broken_within_one_turn_is_illegal():
    # My 5, 6, 7, 8, 10 held; a checker on 3; dice 6-1. 3->9 closes 5..10 (their
    # 17..22) with every opposing checker behind it; 3->4 is closed by them. So the
    # checker cannot reach 10 via 9 "in passing" (001 §3.5 "даже пробегом").
    p = build(LONG, {1: 9, 3: 1, 5: 1, 6: 1, 7: 1, 8: 1, 10: 1}, {4: 1, 13: 14})
    assert LONG.step_error(p, (6, 1), [], (3, 9)) == (
        "L5", "six-block with no opposing checker ahead")
    assert LONG.check_turn(p, (6, 1), play(LONG, p, [(3, 9), (9, 10)]))[0] == "L5"
    assert 10 not in LONG.targets(p, (6, 1), [], 3)
    assert (3, 9) in LONG.next_steps(p, (6, 1), [(10, 11)])  # broken first: fine


def test_l5_block_allowed_with_an_opposing_checker_ahead():
    # same, but one opposing checker stands on my 12 (their 24): ahead of the block
    p = build(LONG, {1: 9, 3: 1, 5: 1, 6: 1, 7: 1, 8: 1, 10: 1}, {4: 1, 12: 1, 13: 13})
    assert LONG.step_error(p, (6, 1), [], (3, 9)) is None
    assert LONG.check_turn(p, (6, 1), play(LONG, p, [(3, 9), (9, 10)])) is None


def test_l5_six_run_straddling_the_opponents_start_is_not_a_block():
    # My 10, 11, 12, 14, 15 + 7->13: my 10..15 are their 22, 23, 24, 1, 2, 3:
    # not consecutive along their path, so not a block, though all of theirs
    # (on their 5) are behind every one of those points.
    p = build(LONG, {1: 9, 7: 1, 10: 1, 11: 1, 12: 1, 14: 1, 15: 1}, {17: 15})
    assert LONG.opp_point(17) == 5
    assert LONG.step_error(p, (6, 1), [], (7, 13)) is None
    assert LONG.check_turn(p, (6, 1), play(LONG, p, [(7, 13), (15, 16)])) is None


def test_l5_run_across_my_own_path_end_is_a_block():
    # my 22, 23, 24, 1, 2, 3 are their 10..15: consecutive for them
    p = build(LONG, {1: 10, 2: 1, 3: 1, 18: 1, 22: 1, 23: 1}, {17: 15})
    assert LONG.step_error(p, (6, 5), [], (18, 24))[0] == "L5"
    q = build(LONG, {1: 10, 2: 1, 3: 1, 18: 1, 22: 1, 23: 1}, {17: 14, 8: 1})
    assert LONG.opp_point(8) == 20   # their 20: past the block
    assert LONG.step_error(q, (6, 5), [], (18, 24)) is None


def test_l5_option_block_until_opponent_home():
    # My 17..22 are their 5..10. Mine on 17, 18, 19, 20, 22 and one on 15 (15+1 is
    # closed); 15->21 makes the six. One of theirs on my 24 (their 12) is ahead.
    mine = {1: 9, 15: 1, 17: 1, 18: 1, 19: 1, 20: 1, 22: 1}
    p = build(LONG, mine, {16: 1, 24: 1, 13: 13})
    assert LONG.step_error(p, (6, 1), [], (15, 21)) is None
    v = LongNardy(block_until_opponent_home=True)
    # under seed 000's rule a checker ahead is not enough: none of theirs is home
    assert v.step_error(p, (6, 1), [], (15, 21))[0] == "L5"
    q = build(v, mine, {16: 1, 9: 1, 13: 13})
    assert v.opp_point(9) == 21   # their 21: home
    assert v.step_error(q, (6, 1), [], (15, 21)) is None
    assert LONG.step_error(q, (6, 1), [], (15, 21)) is None  # their 21 is ahead too


def test_l6_oin_and_mars():
    p = build(LONG, {}, {5: 14})
    assert game_result(LONG, p) == (WHITE, "oin", 1)
    q = build(LONG, {}, {5: 15})
    assert game_result(LONG, q) == (WHITE, "mars", 2)


def test_l6_option_home_mars():
    v = LongNardy(home_mars=True)
    all_home = build(v, {}, {5: 15})   # my 5 is their 17: not home
    assert game_result(v, all_home) == (WHITE, "mars", 2)
    home = build(v, {}, {9: 15})       # my 9 is their 21: home
    assert game_result(v, home) == (WHITE, "home_mars", 3)
    assert game_result(LONG, home) == (WHITE, "mars", 2)


def test_l7_last_roll_draw():
    v = LongNardy(last_roll_draw=True)
    p = build(v, {}, {9: 2})           # white is off, black has two home
    assert needs_last_roll(v, p)
    assert game_result(v, p) is None
    assert game_result(v, p, last_roll_done=True) == (WHITE, "oin", 1)
    both = build(v, {}, {})
    assert game_result(v, both) == (None, "draw", 1)
    assert not needs_last_roll(LONG, p) and game_result(LONG, p) == (WHITE, "oin", 1)


def test_l8_colours_swap_and_black_starts_next():
    m = Match(LONG, 5)
    assert m.white_player == 0
    m.record((BLACK, "oin", 1))            # player 1 (black) wins
    assert m.score == [0, 1] and m.white_player == 1
    m.record((WHITE, "mars", 2))           # player 1 (now white) wins
    assert m.score == [0, 3] and m.white_player == 0
    m.record((WHITE, "mars", 2))
    assert m.score == [2, 3] and not m.over
    m.record((BLACK, "mars", 2))           # player 0 (black now) wins -> 4:3
    m.record((WHITE, "oin", 1))            # player 0 -> 5
    assert m.over and m.winner == 0


def test_l8_option_winner_starts():
    m = Match(LongNardy(winner_starts=True), 3)
    m.record((BLACK, "oin", 1))            # player 1 wins as black, starts as white
    assert m.white_player == 1
    m.record((WHITE, "oin", 1))            # player 1 wins again, keeps white
    assert m.white_player == 1


def test_unknown_option_is_refused():
    try:
        LongNardy(no_such_option=True)
    except ValueError as e:
        assert "no_such_option" in str(e)
    else:
        raise AssertionError("unknown option accepted")


def test_l5_doubles_where_only_the_higher_checker_first_avoids_a_block():
    # 6-6: 3->9 closes my 5..10 while 10 stands, so 3->9 is legal only after
    # 10->16 has broken the run (doubles are searched in canonical order first;
    # this needs the full-order rerun).
    p = build(LONG, {1: 9, 3: 1, 5: 1, 6: 1, 7: 1, 8: 1, 10: 1}, {4: 1, 13: 14})
    late = [res for steps, res in LONG.legal_turns(p, (6, 6))
            if res.side(WHITE)[3] == 0 and res.side(WHITE)[10] == 0]
    assert late, "3->9 after 10->16 was missed"
    for res in late:
        assert LONG.check_turn(p, (6, 6), res) is None
    assert (3, 9) in LONG.next_steps(p, (6, 6), [(10, 16)])
    assert LONG.step_error(p, (6, 6), [], (3, 9))[0] == "L5"


def test_only_a_full_order_double_asks_for_a_transposition_table():
    # Each table is a 256-byte chunk: on a fragmented 56 KB heap the block a search
    # failed on. Two different dice and a canonical double never meet a state twice,
    # so the tracker's queries ask for none; a double searched again in full order
    # (it met a six-block, L5) does.
    from nardy import rules
    real = rules.array
    calls = []

    def counting(code, init):
        calls.append(1)
        return real(code, init)

    rules.array = counting
    try:
        p = LONG.start_position()
        for dice in ((6, 5), (3, 1), (4, 4), (2, 2)):
            for src in (1,):
                LONG.targets(p, dice, [], src)
            LONG.next_steps(p, dice)
            LONG.step_error(p, dice, [], (1, 1 + dice[0]))
            LONG.check_turn(p, dice, LONG.legal_turns(p, dice)[0][1])
        asked = len(calls)
        # (legal_turns stores its results: one chunk each)
        assert asked == 4, asked
        blocked = build(LONG, {1: 8, 3: 1, 5: 1, 6: 1, 7: 1, 8: 2, 10: 1}, {4: 1, 13: 14})
        LONG.next_steps(blocked, (1, 1))
        assert len(calls) > asked
    finally:
        rules.array = real


def test_a_memo_that_cannot_grow_is_emptied_but_results_are_not():
    # with no room to double a table: a memo (Variant._memo, three items) forgets
    # what it held, which only costs the search time; a results table must not lose
    # an entry, so the MemoryError stands
    from nardy import rules
    real = rules.array

    def table(n, memo):
        c = real("I", rules._ZEROS)
        for i in range(0, 60, 3):
            c[i] = i + 1
        return [[c], n, True] if memo else [[c], n]

    def no_room(code, init):
        raise MemoryError("no room")

    memo, results = table(20, True), table(20, False)
    rules.array = no_room
    try:
        rules._grow(LONG, memo)
        try:
            rules._grow(LONG, results)
        except MemoryError:
            kept = True
        else:
            kept = False
    finally:
        rules.array = real
    assert memo[1] == 0 and not any(memo[0][0]) and len(memo[0]) == 1
    assert kept and results[1] == 20 and results[0][0][3] == 4
