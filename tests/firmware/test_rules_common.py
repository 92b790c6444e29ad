"""C1-C7: what both games share."""

from fwutil import build, play, side_of

from nardy.longnardy import LongNardy
from nardy.rules import BLACK, WHITE
from nardy.scoring import game_result, opening_winner
from nardy.shortnardy import ShortNardy

LONG = LongNardy()
SHORT = ShortNardy()


def test_c1_fifteen_each_and_counts_checked():
    for v in (LONG, SHORT):
        p = v.start_position()
        for c in (WHITE, BLACK):
            assert sum(p.side(c)) == 15
    p = LONG.start_position()
    bad = p.copy()
    bad.side(WHITE)[1] = 14   # a checker vanished
    assert LONG.check_turn(p, (6, 5), bad)[0] == "C1"


def test_c2_opening_roll():
    assert opening_winner(3, 3) is None
    assert opening_winner(5, 2) == WHITE
    assert opening_winner(1, 6) == BLACK
    try:
        opening_winner(0, 3)
    except ValueError:
        pass
    else:
        raise AssertionError("die 0 accepted")


def test_c3_one_checker_both_dice_only_via_a_legal_landing():
    # long: my checker on 3, dice 6-5: 3+6=9 is closed, 3+5=8 open, 8+6=14 open.
    p = build(LONG, {3: 1, 10: 14}, {9: 15})
    t = LONG.targets(p, (6, 5), [], 3)
    assert 14 in t and 8 in t and 9 not in t
    assert t[14] == ((3, 8), (8, 14))
    # close 8 as well: 14 can no longer be reached by that checker
    q = build(LONG, {3: 1, 10: 14}, {9: 14, 8: 1})
    assert 14 not in LONG.targets(q, (6, 5), [], 3)
    assert LONG.check_turn(q, (6, 5), play(LONG, q, [(3, 14)])) is not None


def test_c3_a_die_is_never_split_between_checkers():
    p = build(LONG, {3: 1, 4: 1, 10: 13}, {20: 15})
    # 5 played as 2 + 3 by two checkers, and the 6 normally: illegal
    f = play(LONG, p, [(3, 5), (4, 7), (10, 16)])
    assert LONG.check_turn(p, (6, 5), f)[0] == "C3"
    assert LONG.step_error(p, (6, 5), [], (3, 5))[0] == "C3"


def test_c4_doubles_give_four_steps():
    p = LONG.start_position()
    turns = LONG.legal_turns(p, (1, 1))
    assert all(len(s) == 4 for s, _ in turns)
    p = SHORT.start_position()
    assert all(len(s) == 4 for s, _ in SHORT.legal_turns(p, (3, 3)))


def test_c5_both_dice_must_be_played_when_possible():
    # short: checkers on path 1 and 2, the rest home; my 12 is closed.
    p = build(SHORT, {1: 1, 2: 1, 24: 13}, {12: 2})
    assert SHORT.max_steps(p, (6, 5)) == 2
    only_one = play(SHORT, p, [(1, 7)])
    assert SHORT.check_turn(p, (6, 5), only_one) == ("C5", "the dice must be used to the maximum")
    assert SHORT.check_turn(p, (6, 5), play(SHORT, p, [(1, 7), (2, 7)])) is None


def test_c5_larger_die_003_s13():
    # 003 §13: 6:4, either can be played but not both: the 6 must be played.
    p = build(SHORT, {1: 1, 24: 14}, {11: 2})
    turns = SHORT.legal_turns(p, (6, 4))
    assert [s for s, _ in turns] == [((1, 7),)]
    assert SHORT.check_turn(p, (6, 4), play(SHORT, p, [(1, 5)]))[0] == "C5"
    assert SHORT.step_error(p, (6, 4), [], (1, 5)) == ("C5", "the larger die must be played")
    assert SHORT.next_steps(p, (6, 4)) == [(1, 7)]


def test_c5_larger_die_001_s3_10():
    # long, 001 §3.10: 6 or 4 playable but not both -> the 6
    p = build(LONG, {2: 1, 24: 14}, {12: 1, 13: 14})
    assert [s for s, _ in LONG.legal_turns(p, (4, 6))] == [((2, 8),)]
    assert LONG.check_turn(p, (4, 6), play(LONG, p, [(2, 6)]))[0] == "C5"


def test_c5_smaller_die_when_the_larger_cannot_move():
    p = build(SHORT, {1: 1, 24: 14}, {11: 2, 7: 2})
    assert [s for s, _ in SHORT.legal_turns(p, (6, 4))] == [((1, 5),)]


def test_c5_no_move_loses_the_dice():
    p = build(SHORT, {1: 15}, {7: 2, 6: 2, 12: 2})
    turns = SHORT.legal_turns(p, (6, 5))
    assert len(turns) == 1 and turns[0][0] == ()
    assert SHORT.next_steps(p, (6, 5)) == []
    unchanged = p.copy()
    assert SHORT.check_turn(p, (6, 5), unchanged) is None


def test_c6_bear_off_6_5_with_empty_6_and_5_points():
    # 000 and 001 §3.12: 6-5, nothing on the 6- and 5-points: two off from the 4-point.
    p = build(LONG, {21: 3, 22: 4, 23: 4, 24: 4}, {5: 15})
    turns = LONG.legal_turns(p, (6, 5))
    assert len(turns) == 1
    me = turns[0][1].side(WHITE)
    assert me[21] == 1 and me[25] == 2
    # 4-point empty too: from the 3-point
    q = build(LONG, {22: 5, 23: 5, 24: 5}, {5: 15})
    me = LONG.legal_turns(q, (6, 5))[0][1].side(WHITE)
    assert me[22] == 3 and me[25] == 2


def test_c6_no_bearing_off_before_all_home():
    p = build(LONG, {18: 1, 24: 14}, {5: 15})
    assert LONG.step_error(p, (6, 1), [], (24, 25))[0] == "C6"
    # once the straggler is home the other die may bear off (003 §20): the 6
    # takes it off exactly, and cannot over-bear from 24 while it stands on 19
    assert LONG.next_steps(p, (6, 1), [(18, 19)]) == [(19, 25)]


def test_c6_over_bear_needs_no_checker_further_back():
    p = build(SHORT, {20: 1, 23: 1}, {})
    # die 6 from the 2-point (path 23) while the 5-point (path 20) is occupied
    assert SHORT.step_error(p, (6, 6), [], (23, 25))[0] == "C6"
    assert SHORT.check_turn(p, (6, 6), play(SHORT, p, [(20, 25), (23, 25)])) is None


def test_c6_move_inside_home_instead_of_bearing_off_003_s23():
    # 003 §23: 6-4, one off from the 6-point and another 6-point checker to the 2-point
    p = build(SHORT, {19: 2, 21: 1, 24: 12}, {})
    inside = play(SHORT, p, [(19, 25), (19, 23)])
    assert SHORT.check_turn(p, (6, 4), inside) is None
    assert SHORT.check_turn(p, (6, 4), play(SHORT, p, [(19, 25), (21, 25)])) is None


def test_c6_and_c5_full_roll_003_s26():
    # 003 §26: home points 1, 4, 6 and a 5:3. The full roll exists (6/1 4/1) so a
    # turn that plays only one die is refused. The seed would also refuse 6/3 4/off
    # ("really a 4:3"), but under C6 step by step that is a full, legal roll (the 5
    # bears off from the highest point once the 6-point is empty); gnubg agrees.
    p = build(SHORT, {19: 1, 21: 1, 24: 1}, {})
    full = play(SHORT, p, [(19, 24), (21, 24)])
    assert SHORT.check_turn(p, (5, 3), full) is None
    assert SHORT.check_turn(p, (5, 3), play(SHORT, p, [(19, 22)]))[0] == "C5"
    assert SHORT.check_turn(p, (5, 3), play(SHORT, p, [(19, 22), (21, 25)])) is None
    assert len(SHORT.legal_turns(p, (5, 3))) == 2


def test_c7_game_ends_with_all_fifteen_off():
    p = build(SHORT, {}, {5: 15})
    assert side_of(p)[25] == 15
    assert game_result(SHORT, p) == (WHITE, "mars", 2)
    q = build(SHORT, {24: 1}, {5: 1})
    assert game_result(SHORT, q) is None


def test_a_variants_dict_keeps_within_29_slots_with_room_to_miss():
    # (Heap and speed, not a rule.) The game's variant stays on the heap through every
    # game, and ``new`` makes it on a heap a game has fragmented. An instance's dict
    # grows only when full, 29 slots -> 37 (16 bytes each on the 64-bit port): at 36
    # names its 592-byte table was the block a 56wK board with its player loaded
    # lacked at ``new`` (tests/host/test_soak.py). And at most 26: every method call
    # of the search looks in this dict first and misses, and a miss ends only at an
    # empty slot (29 names of 29, with the module's dict full too, made the search
    # 7% slower). Every query keeps it so.
    for v in (LongNardy(), ShortNardy()):
        assert len(v.__dict__) <= 26, sorted(v.__dict__)
        p = v.start_position()
        for dice in ((6, 5), (3, 3)):
            v.legal_turns(p, dice)
            v.max_steps(p, dice)
            v.next_steps(p, dice)
            v.targets(p, dice, [], 1)
            v.step_error(p, dice, [], (1, 2))
            v.check_turn(p, dice, p)
            v.each_result(p, dice, lambda code: None, None)
            assert len(v.__dict__) <= 26, (v.name, dice, sorted(v.__dict__))


def test_the_point_mapping_is_its_own_inverse():
    # L1 (long: heads 12 points apart) and short nardy's mirror: the mover's path
    # point p is the opponent's q, and the opponent's q is the mover's p, so one
    # table (``opp_of``) maps both ways (long nardy's L5 test reads it back)
    for v in (LongNardy(), ShortNardy()):
        assert sorted(v.opp_of[1:25]) == list(range(1, 25))
        for p in range(1, 25):
            assert v.opp_of[v.opp_of[p]] == p, (v.name, p)


def _answers(v, pos, dice, played):
    """Every partial-turn query the tracker asks, in one comparable value."""
    srcs = [k for k in range(25) if pos.side(pos.turn)[k]]
    bad = (srcs[-1], srcs[-1] + 7)      # seven is no die: always an error
    return ([sorted(v.targets(pos, dice, played, k).items()) for k in srcs],
            v.next_steps(pos, dice, played), v.step_error(pos, dice, played, bad),
            v.max_steps(pos, dice))


def test_the_same_turn_asked_again_is_not_loaded_again():
    # (Speed, not a rule.) The tracker asks the engine about one turn over and over
    # (ahead of a lift: every checker the mover may lift, one per scan). Each query
    # loaded the position again, the closed points and the hash: a third of such a
    # query (bench/app_bench.py, "cycle after the roll"). Now it copies the start
    # back; whatever loaded another position in between (a verdict's search, another
    # position's query) loads it again, and every answer is a fresh variant's.
    for V, dice in ((ShortNardy, (6, 2)), (LongNardy, (4, 4)), (ShortNardy, (3, 3))):
        _asked_again(V, dice)


def _asked_again(V, dice):
    v = V()
    loads = []
    setup = v._setup

    def counted(pos, root, relax=0):
        loads.append(relax)
        setup(pos, root, relax)
    v._setup = counted
    p = v.start_position()
    q = play(v, p, v.legal_turns(p, dice)[0][0])      # the other side's turn
    v.targets(p, dice, [], 1)
    n = len(loads)
    for k in range(2, 25):
        v.targets(p, dice, [], k)
    assert len(loads) == n, loads
    first = v.next_steps(p, dice)[0]
    before = _answers(V(), p, dice, [first])
    # a bad step's rule (_blame), an illegal result's (relaxed searches), another
    # position's query, another position loaded straight (as _blame would load
    # one): each loads its own start between two answers on this one
    for name, args in (("step_error", (p, dice, [], (1, 8))), ("check_turn", (p, dice, q)),
                       ("targets", (q, (5, 1), [], 1)), ("_setup", (q, (5, 1), 0))):
        getattr(v, name)(*args)
        assert _answers(v, p, dice, [first]) == before, (V.name, dice, name)
    assert _answers(v, q, (2, 1), []) == _answers(V(), q, (2, 1), [])


def test_a_point_accepted_with_both_colours_faults_only_a_turn_that_adds_to_it():
    # Seed 001 §3.4: the opponent accepted a turn that left both colours on a point
    # (the mover's 10, shared with 2 of the opponent's), and the game goes on from
    # that board. Every legal result from it is legal by check_turn, whether or not
    # the point is left; a turn that adds a checker there is faulted as before.
    for v in (LONG, SHORT):
        pos = build(v, {10: 3, 8: 2, 4: 10}, {10: 2, 14: 13})
        kept = 0
        for a in range(1, 7):
            for b in range(a, 7):
                for _, res in v.legal_turns(pos, (a, b)):
                    assert v.check_turn(pos, (a, b), res) is None, (v.name, a, b)
                    kept += res.count(WHITE, 10) > 0
        assert kept > 50, (v.name, kept)
        onto = play(v, pos, [(8, 10), (4, 9)])
        assert v.check_turn(pos, (2, 5), onto)[0] == ("L2" if v is LONG else "S2")
