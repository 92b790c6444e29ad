"""Tracker on ideal observations: steps, targets, warnings, sync, ambiguity."""

from fakeobs import show, zone_of
from fwutil import Rand

from nardy.longnardy import LongNardy
from nardy.rules import BLACK, WHITE, Position
from nardy.shortnardy import ShortNardy
from nardy.tracker import (
    CONFIRM,
    DONE,
    IDLE,
    ILLEGAL,
    LIFTED,
    SYNC,
    VERDICT,
    Tracker,
    nothing_played,
)
from nardy.zones import ZONE_BAR, ZONE_OFF_B, ZONE_OFF_W, Layout


def setup(v, pos, dice, slots=5):
    lay = Layout(slots)
    t = Tracker(v, lay)
    t.start_turn(pos, dice, show(v, lay, pos))
    return lay, t


def _played_1_7():
    """Short nardy's start, 6-5 rolled, 1/7 played and seen:
    (variant, start, layout, tracker, position after 1/7)."""
    v = ShortNardy()
    pos = v.start_position()
    lay, t = setup(v, pos, (6, 5))
    p1 = v.apply_step(pos, (1, 7))
    t.update(show(v, lay, p1))
    return v, pos, lay, t, p1


def kinds(t):
    return [e[0] for e in t.events]


def position(white, black, turn=WHITE):
    """Position from {path point: count} per side."""
    p = Position(turn=turn)
    for c, side in ((WHITE, white), (BLACK, black)):
        for k, n in side.items():
            p.board[26 * c + k] = n
    return p


def test_lift_offers_the_engines_targets():
    v = ShortNardy()
    pos = v.start_position()
    lay, t = setup(v, pos, (6, 5))
    assert t.state == IDLE
    t.update(show(v, lay, pos, lift=[(WHITE, 24)]))
    assert t.state == LIFTED and t.lifted == [24]
    want = sorted(v.physical(WHITE, k) for k in v.targets(pos, (6, 5), (), 1))
    assert sorted(t.targets) == want and want
    assert ("lift", (24,), tuple(t.targets)) in t.events


def test_targets_include_off_when_bearing_off():
    v = ShortNardy()
    pos = position({19: 3, 20: 3, 21: 3, 22: 2, 23: 2, 24: 2}, {7: 15})
    lay, t = setup(v, pos, (6, 5))
    # from the 6-point a 6 bears off; from the ace-point nothing may (C6: a checker
    # stands further back)
    t.update(show(v, lay, pos, lift=[(WHITE, v.physical(WHITE, 19))]))
    assert ZONE_OFF_W in t.targets
    t.update(show(v, lay, pos))
    t.update(show(v, lay, pos, lift=[(WHITE, v.physical(WHITE, 24))]))
    assert t.state == LIFTED and t.targets == []


def test_steps_commit_and_the_turn_ends_on_ok_only():
    # issue 21: the turn is over when the mover takes the dice (seed 001 §1.7,
    # §3.4), the OK; stillness never ends it unless the auto-end setting is on
    v = LongNardy()
    pos = v.start_position()
    lay, t = setup(v, pos, (6, 5))
    p1 = v.apply_step(pos, (1, 7))
    t.update(show(v, lay, p1))       # the head is a full stack: only the target shows
    assert t.played == ((1, 7),) and t.state == IDLE
    p2 = v.apply_step(p1, (7, 12))
    t.update(show(v, lay, p2))
    assert t.played == ((1, 7), (7, 12))
    for ms in (100, 1000, 5000, 600000):
        t.tick(None, ms)
        assert t.state == IDLE and t.auto_end_left == -1, ms
    # the mover may still rearrange: the second step taken back and played otherwise
    t.update(show(v, lay, p1))
    assert t.played == ((1, 7),) and t.state == IDLE
    p3 = v.apply_step(p1, (1, 6))
    t.update(show(v, lay, p3))
    assert t.played == ((1, 7), (1, 6)) or t.state == ILLEGAL
    t.update(show(v, lay, p2))
    assert t.played == ((1, 7), (7, 12))
    assert t.end_turn(show(v, lay, p2)) and t.state == DONE
    assert t.result["position"].board == p2.board and not t.result["accepted"]
    assert t.result["position"].turn == BLACK
    assert kinds(t).count("turn") == 1


def test_the_auto_end_setting_counts_down_then_ends_the_turn():
    v = LongNardy()
    pos = v.start_position()
    lay = Layout(5)
    t = Tracker(v, lay, auto_end_ms=1500)
    t.start_turn(pos, (6, 5), show(v, lay, pos))
    p1 = v.apply_step(pos, (1, 7))
    t.update(show(v, lay, p1))
    t.tick(None, 5000)
    assert t.state == IDLE and t.auto_end_left == -1     # a die is left: no countdown
    p2 = v.apply_step(p1, (7, 12))
    t.update(show(v, lay, p2))
    t.tick(None, 100)
    assert t.state == IDLE and t.auto_end_left == 1400
    t.tick(None, 1499)
    assert t.state == IDLE and t.auto_end_left == 1
    t.tick(None, 1500)
    assert t.state == DONE and t.auto_end_left == -1
    assert t.result["position"].board == p2.board
    assert kinds(t).count("step") == 2 and "turn" in kinds(t)


def test_a_turn_adds_no_attribute_to_the_tracker():
    # heap (issue 14): the attribute table is full-sized from the start; growing it
    # at the first roll needed a 944-byte block a fragmented 56 KB heap lacked
    v = LongNardy()
    t = Tracker(v, Layout(5), auto_end_ms=1000)
    made = sorted(t.__dict__)
    # MicroPython's attribute table grows 59 -> 73 slots past 59 (944 -> 1168 bytes
    # here): the 56wK soak with the board playing had no room for that (issue 21)
    assert len(made) <= 59, len(made)
    pos = v.start_position()
    lay = Layout(5)
    t.start_turn(pos, (6, 5), show(v, lay, pos))
    p1 = v.apply_step(pos, (1, 7))
    t.update(show(v, lay, p1))
    t.tick(None, 0)
    t.update(show(v, lay, v.apply_step(p1, (7, 12))))
    t.tick(None, 5000)
    assert t.state == DONE
    assert sorted(t.__dict__) == made
    t.spare()                         # the game is over: nothing of it is kept
    kept = [k for k in t.__dict__ if not isinstance(getattr(t, k), (bool, int, str, type(None)))]
    assert kept == [], kept
    assert sorted(t.__dict__) == made


def test_the_trackers_dicts_stay_at_37_slots_and_its_consts_are_the_zones():
    # The tracker module is on the heap through every game: its names and the class's
    # methods fill 37 slots each (one more grows a table to 47). The steps of
    # end_turn (issue 24) are module functions, paid for by the zones' terms kept
    # as consts (folded away) instead of imported names.
    import sys

    from nardy import tracker, zones
    if sys.implementation.name == "micropython":
        assert len(tracker.__dict__) <= 37, sorted(tracker.__dict__)
        assert len(Tracker.__dict__) <= 37, sorted(Tracker.__dict__)
    else:
        assert tracker._BAR == zones.ZONE_BAR
        assert tracker._NZONES == zones.NZONES
        assert tracker._BLIND == zones.BLIND


def test_a_finished_turn_lets_its_engine_answers_go():
    # heap (issue 10): the per-turn caches and spare hypotheses are dropped when the
    # turn ends, not kept under the next turn's first search until the next roll
    v = LongNardy()
    pos = v.start_position()
    lay, t = setup(v, pos, (6, 5))
    t.auto_end_ms = 1000
    p1 = v.apply_step(pos, (1, 7))
    t.update(show(v, lay, p1))
    for _ in range(30):
        t.tick(None, 0)               # still: the targets are asked ahead (_warm)
    assert t._next_cache and t._targ_cache
    p2 = v.apply_step(p1, (7, 12))
    t.update(show(v, lay, p2))
    t.tick(None, 5000)                # no step left, still: the turn ends by itself
    assert t.state == DONE
    assert not t._next_cache and not t._targ_cache and len(t.hyps) == 1
    assert t.played == ((1, 7), (7, 12)) and t.position.board == p2.board


def test_one_checker_plays_both_dice_in_one_move():
    v = ShortNardy()
    pos = v.start_position()
    lay, t = setup(v, pos, (6, 5))
    final = v.apply_step(v.apply_step(pos, (1, 7)), (7, 12))
    t.update(show(v, lay, final))     # fast hands: lifted and placed between scans
    assert len(t.played) == 2 and t.position.board == final.board
    assert t.end_turn(show(v, lay, final)) and t.state == DONE


def test_hit_to_the_bar_and_entering_again():
    v = ShortNardy()
    pos = position({1: 3, 12: 12}, {21: 1, 23: 14})
    lay, t = setup(v, pos, (3, 1))
    t.update(show(v, lay, pos, lift=[(WHITE, 24)]))
    assert t.state == LIFTED and 21 in t.targets
    t.update(show(v, lay, pos, lift=[(WHITE, 24), (BLACK, 21)]))
    assert t.state == LIFTED and sorted(t.lifted) == [21, 24]
    hit = v.apply_step(pos, (1, 4))
    assert hit.board[26] == 1          # the blot went to the bar
    t.update(show(v, lay, hit, lift=[(BLACK, ZONE_BAR)]))
    assert t.played == ((1, 4),) and t.state == LIFTED
    t.update(show(v, lay, hit))
    assert t.state == IDLE
    final = v.apply_step(hit, (4, 5))
    t.update(show(v, lay, final))
    assert t.end_turn(show(v, lay, final))
    nxt = t.result["position"]
    # black enters from the bar
    t.start_turn(nxt, (2, 5), show(v, lay, nxt))
    t.update(show(v, lay, nxt, lift=[(BLACK, ZONE_BAR)]))
    assert t.state == LIFTED and v.physical(BLACK, 2) in t.targets
    entered = v.apply_step(nxt, (0, 2))
    t.update(show(v, lay, entered))
    assert t.played == ((0, 2),)


def test_taking_a_checker_back_undoes_the_step():
    v, pos, lay, t, p1 = _played_1_7()
    assert t.played == ((1, 7),)
    t.update(show(v, lay, p1, lift=[(WHITE, v.physical(WHITE, 7))]))
    assert t.state == LIFTED
    t.update(show(v, lay, pos))
    assert t.played == () and t.state == IDLE
    assert ("undo", (1, 7)) in t.events


def _illegal(v, pos, dice, step, rule, played=()):
    lay, t = setup(v, pos, dice)
    cur = pos
    for s in played:
        cur = v.apply_step(cur, s)
        t.update(show(v, lay, cur))
    bad = v.apply_step(cur, step)
    t.update(show(v, lay, bad))
    assert t.state == ILLEGAL, t.state_name()
    assert t.warning[0] == rule, t.warning
    assert ("warn", t.warning[0], t.warning[1], t.warning[2]) in t.events
    # taken back (also onto the full head, where it cannot be seen arriving): the
    # warning goes away at once
    t.update(show(v, lay, cur))
    assert t.state == IDLE and t.warning is None and "clear" in kinds(t), t.state_name()
    assert t.played == tuple(played)
    return lay, t


def test_warns_at_once_closed_point():
    v = LongNardy()
    black_k = v.path_point(BLACK, v.physical(WHITE, 7))
    pos = position({1: 15}, {1: 14, black_k: 1})
    _illegal(v, pos, (6, 5), (1, 7), "L2")


def test_warns_at_once_head_rule():
    v = LongNardy()
    _illegal(v, v.start_position(), (6, 5), (1, 6), "L3", played=[(1, 7)])


def test_warns_at_once_bar_first():
    v = ShortNardy()
    pos = position({0: 1, 12: 3, 13: 11}, {23: 15})
    _illegal(v, pos, (6, 5), (12, 17), "S3")


def test_warns_at_once_bearing_off_early():
    v = ShortNardy()
    pos = position({12: 1, 19: 4, 20: 4, 21: 3, 22: 3}, {1: 15})
    _illegal(v, pos, (6, 5), (20, 25), "C6")


def test_short_turn_gets_a_verdict_and_may_be_accepted():
    v, pos, lay, t, p1 = _played_1_7()
    assert not t.end_turn(show(v, lay, p1))
    assert t.state == VERDICT and t.warning[0] == "C5"
    assert t.accept()
    assert t.state == DONE and t.result["accepted"] and t.result["rule"] == "C5"
    assert t.result["position"].board == p1.board


def test_verdict_then_the_rest_is_played():
    v, pos, lay, t, p1 = _played_1_7()
    t.end_turn(show(v, lay, p1))
    assert t.state == VERDICT
    p2 = v.apply_step(p1, (7, 12))
    t.update(show(v, lay, p2))
    assert t.state == IDLE and t.warning is None
    assert t.end_turn(show(v, lay, p2)) and not t.result["accepted"]


def test_out_of_sync_lists_differences_and_resumes():
    v = ShortNardy()
    pos = v.start_position()
    lay, t = setup(v, pos, (6, 5))
    # a white checker from P6 lands in black's tray: nothing legal or illegal explains it
    bad = show(v, lay, pos, lift=[(WHITE, 6)], add=[(WHITE, ZONE_OFF_B)])
    t.update(bad)
    assert t.state == SYNC
    assert (ZONE_OFF_B, WHITE, 0, 1) in t.diffs
    first = t.diff()
    assert t.next_diff() != first or len(t.diffs) == 1
    assert not t.end_turn(bad)
    t.update(show(v, lay, pos))
    assert t.state == IDLE and "resync" in kinds(t)


def test_knocked_stack_is_out_of_sync_until_put_back():
    v = LongNardy()
    pos = v.start_position()
    lay, t = setup(v, pos, (3, 2))
    # three black checkers fall from black's head onto white's side of the board
    t.update(show(v, lay, pos, add=[(BLACK, 20), (BLACK, 21), (BLACK, 22)]))
    assert t.state == SYNC and len(t.diffs) == 3
    t.update(show(v, lay, pos))
    assert t.state == IDLE


def test_ambiguous_sources_ask_for_confirmation():
    v = LongNardy()
    lay = Layout(1)      # one sensor per point: two checkers fill a point's view
    pos = position({1: 12, 2: 3}, {1: 15})
    t = Tracker(v, lay)
    t.start_turn(pos, (2, 1), show(v, lay, pos))
    a = v.apply_step(pos, (1, 3))
    b = v.apply_step(pos, (2, 3))
    t.update(show(v, lay, a))
    assert len(t.hyps) == 2
    assert t.end_turn(show(v, lay, a)) is False
    assert t.state == CONFIRM and len(t.candidates) == 2
    keys = sorted(c[1].key() for c in t.candidates)
    assert keys == sorted([a.key(), b.key()])


def test_accepting_an_out_of_sync_board_takes_the_observed_position():
    v = ShortNardy()
    pos = v.start_position()
    lay, t = setup(v, pos, (6, 5))
    # two white checkers moved at once (a checker from P8 to P3 and one from P6 to P4)
    moved = pos.copy()
    w = moved.board
    w[17] -= 1
    w[22] += 1
    w[19] -= 1
    w[21] += 1
    t.update(show(v, lay, moved))
    assert t.state == SYNC
    # never by the mover's OK on a board out of sync: ending the turn judges it
    assert not t.accept(show(v, lay, moved)) and t.state == SYNC
    assert not t.end_turn(show(v, lay, moved))
    assert t.state == VERDICT and t.warning[0] == "C3", t.warning
    assert sorted(t.warning[2]) == [3, 4, 6, 8]
    assert t.accept(show(v, lay, moved))
    assert t.state == DONE and t.result["accepted"] and t.result["observed"]
    assert t.result["rule"] == "C3"
    assert t.result["position"].board == moved.board


def test_warns_at_once_six_block():
    v = LongNardy()
    pos = position({1: 10, 2: 1, 3: 1, 4: 1, 5: 1, 6: 1}, {1: 15})
    assert v.step_error(pos, (6, 1), (), (1, 7))[0] == "L5"
    _illegal(v, pos, (6, 1), (1, 7), "L5")


def test_illegal_step_taken_back_onto_a_full_stack_then_a_legal_turn():
    # Self-play (short, game seed 1101233, turn 57): black steps backwards from a
    # stack of 11 (it shows 10: the lift is unseen), is warned, and puts the checker
    # back on that stack (unseen again: it looks like still in the hand). Then a legal
    # turn brings another checker to the very point the illegal step went to, so the
    # illegal partial turn still fits with a checker "in the hand"; the legal
    # explanation (nothing in the hand) must win, with no verdict at the end.
    v = ShortNardy()
    pos = position({1: 4, 2: 4, 13: 1, 18: 2, 24: 4}, {18: 1, 21: 3, 22: 11}, turn=BLACK)
    dice = (1, 1)
    lay, t = setup(v, pos, dice)
    assert lay.cap[zone_of(v, BLACK, 22)] < 11
    bad = v.apply_step(pos, (22, 20))
    t.update(show(v, lay, bad))
    assert t.state == ILLEGAL and t.warning[0] == "C3"
    assert not t.end_turn(show(v, lay, bad))
    assert t.state == VERDICT
    # taken back onto the full stack: the board shows the start position again
    t.update(show(v, lay, pos))
    assert t.state == IDLE and t.warning is None and t.played == ()
    # 18 -> 19 -> 20 in one go
    p2 = v.apply_step(v.apply_step(pos, (18, 19)), (19, 20))
    t.update(show(v, lay, p2))
    assert t.played == ((18, 19), (19, 20)), t.played
    assert t.state == IDLE and t.warning is None and "clear" in kinds(t)
    # 21 -> 22 twice, onto the full stack: seen lifted, never seen arriving
    z21 = zone_of(v, BLACK, 21)
    p3 = v.apply_step(p2, (21, 22))
    t.update(show(v, lay, p3))
    assert t.state == LIFTED and t.lifted == [z21]
    p4 = v.apply_step(p3, (21, 22))
    t.update(show(v, lay, p4))
    t.events = []
    assert t.end_turn(show(v, lay, p4)), (t.state_name(), t.warning)
    assert "verdict" not in kinds(t)
    assert t.result["position"].board == p4.board
    assert t.result["rule"] is None and len(t.result["steps"]) == 4


def test_a_hit_blot_on_the_bar_first_then_the_hitter_from_a_visible_point():
    # Self-play (short, game seed 1103348, turn 108): black hits white's blot on P24
    # by putting the blot on the bar before moving the hitter. The partial turn that
    # explains that best is a step from black's full stack (a lift nobody sees), with
    # its checker "in the hand". Then the hitter arrives from P21: that candidate still
    # fits, with P21's checker "in the hand"; taking its step back and playing from
    # P21 explains the board with nothing in the hand and must win.
    v = ShortNardy()
    pos = position({1: 1, 2: 4, 6: 1, 7: 1, 22: 1, 23: 6, 24: 1},
                   {20: 1, 21: 1, 22: 11, 25: 2}, turn=BLACK)
    dice = (3, 2)
    lay, t = setup(v, pos, dice)
    blot = zone_of(v, WHITE, 1)
    assert blot == zone_of(v, BLACK, 24)
    t.update(show(v, lay, pos, lift=[(WHITE, blot)]))
    assert t.state == LIFTED
    t.update(show(v, lay, pos, lift=[(WHITE, blot)], add=[(WHITE, ZONE_BAR)]))
    assert t.state == LIFTED and not t.warning
    p1 = v.apply_step(pos, (21, 24))
    t.update(show(v, lay, p1))
    assert t.played == ((21, 24),) and t.state == IDLE, (t.played, t.state_name())
    # the other checker onto the full stack: seen lifted, never seen arriving
    p2 = v.apply_step(p1, (20, 22))
    t.update(show(v, lay, p2))
    assert t.state == LIFTED
    assert t.end_turn(show(v, lay, p2)), t.state_name()
    assert t.result["position"].board == p2.board and t.result["rule"] is None


def test_a_checker_gone_out_of_view_when_either_step_breaks_the_rules_is_asked():
    # Self-play (long, game seed 1103368, turn 90): white moves its last checker from
    # P23 to P24 (no die shows 1) onto a stack of 10, with a full tray (4 shown). It
    # vanishes from view: borne off into the tray (a legal step, but then the 5 is not
    # played: C5) or onto the stack (illegal) look the same. Both make an illegal turn,
    # so there is no reason to prefer the legal step: the mover says which.
    v = LongNardy()
    pos = position({23: 1, 24: 10, 25: 4},
                   {8: 1, 14: 1, 18: 1, 19: 1, 22: 2, 23: 3, 24: 7})
    dice = (6, 5)
    lay, t = setup(v, pos, dice)
    assert lay.cap[ZONE_OFF_W] == 4
    bad = v.apply_step(pos, (23, 24))
    off = v.apply_step(pos, (23, 25))
    assert v.check_turn(pos, dice, off) is not None
    t.update(show(v, lay, bad))
    assert t.state == LIFTED
    assert not t.end_turn(show(v, lay, bad))
    assert t.state == CONFIRM, (t.state_name(), t.warning)
    keys = [c[1].key() for c in t.candidates]
    assert sorted(keys) == sorted([bad.key(), off.key()])
    assert not t.confirm(keys.index(bad.key()))
    assert t.state == VERDICT
    assert t.accept()
    assert t.result["position"].board == bad.board and t.result["accepted"]


def test_illegal_head_checker_put_back_on_the_head_clears_at_once():
    # L3: the second head checker goes back onto the head (15 there, 10 shown): it is
    # never seen arriving, but the warning must go as soon as it leaves its point
    v = LongNardy()
    lay, t = _illegal(v, v.start_position(), (6, 5), (1, 6), "L3", played=[(1, 7)])
    p1 = v.apply_step(v.start_position(), (1, 7))
    # and the turn goes on as usual
    p2 = v.apply_step(p1, (7, 12))
    t.update(show(v, lay, p2))
    assert t.played == ((1, 7), (7, 12)) and t.state == IDLE
    assert t.end_turn(show(v, lay, p2)) and t.result["rule"] is None


def _blot_left_on_its_point():
    """Short nardy: white hits black's blot on P4 (1/4*), but the blot stays on the
    point instead of going to the bar. (variant, layout, tracker, the position the
    steps make, the zone, the board as seen), the board already shown to the tracker."""
    v = ShortNardy()
    pos = position({1: 3, 12: 12}, {21: 1, 23: 14})
    lay, t = setup(v, pos, (3, 1))
    hit = v.apply_step(v.apply_step(pos, (1, 4)), (12, 13))
    z = zone_of(v, WHITE, 4)
    board = show(v, lay, hit, lift=[(BLACK, ZONE_BAR)], add=[(BLACK, z)])
    t.update(board)
    return v, lay, t, hit, z, board


def test_a_hit_blot_left_on_the_point_is_a_verdict_never_a_plain_turn():
    # the hitter is on the blot's point, the blot never went to the bar
    v, lay, t, hit, z, board = _blot_left_on_its_point()
    assert t.state == SYNC
    assert not t.accept(board) and t.state == SYNC      # the mover's OK is not enough
    assert not t.end_turn(board)
    assert t.state == VERDICT and t.warning[0] == "S2", t.warning
    assert z in t.warning[2] and "verdict" in kinds(t)
    assert t.accept(board)
    left = hit.copy()
    left.board[26] = 0
    left.board[26 + 21] = 1
    assert t.result["accepted"] and t.result["rule"] == "S2" and t.result["observed"]
    assert t.result["position"].board == left.board       # the journal = the board


def test_the_verdict_goes_when_the_board_is_put_right():
    v, lay, t, hit, z, board = _blot_left_on_its_point()
    t.end_turn(board)
    assert t.state == VERDICT
    t.update(show(v, lay, hit))      # the blot goes to the bar after all
    assert t.state == IDLE and t.warning is None
    assert t.end_turn(show(v, lay, hit)) and not t.result["accepted"]
    assert t.result["position"].board == hit.board


def test_moving_the_opponents_checker_is_a_c1_verdict():
    v = LongNardy()
    pos = position({1: 14, 7: 1}, {1: 14, 5: 1})
    lay, t = setup(v, pos, (6, 5))
    za = zone_of(v, BLACK, 5)
    zb = zone_of(v, BLACK, 8)
    board = show(v, lay, pos, lift=[(BLACK, za)], add=[(BLACK, zb)])
    t.update(board)
    assert t.state == SYNC
    assert not t.end_turn(board)
    assert t.state == VERDICT
    assert t.warning[0] == "C1" and sorted(t.warning[2]) == sorted([za, zb]), t.warning
    assert not t.result
    assert t.accept(board)
    moved = pos.copy()
    moved.board[26 + 5] = 0
    moved.board[26 + 8] = 1
    assert t.result["position"].board == moved.board and t.result["rule"] == "C1"


def test_a_checker_taken_off_the_board_is_a_warning_until_put_back():
    v = ShortNardy()
    pos = v.start_position()
    lay, t = setup(v, pos, (6, 5))
    p1 = v.apply_step(v.apply_step(pos, (1, 7)), (7, 12))
    t.update(show(v, lay, p1))
    z = zone_of(v, WHITE, 19)
    gone = show(v, lay, p1, lift=[(WHITE, z)])     # into a pocket
    t.update(gone)
    assert t.state == LIFTED
    t.events = []
    assert not t.end_turn(gone)
    assert t.state == SYNC and t.warning[0] == "C1" and t.warning[2] == (z,), t.warning
    assert ("warn", "C1", t.warning[1], (z,)) in t.events
    assert (z, WHITE, 5, 4) in t.diffs
    assert not t.accept(gone) and not t.end_turn(gone) and t.state == SYNC
    t.update(show(v, lay, p1))          # put back
    assert t.state == IDLE and t.warning is None and "clear" in kinds(t)
    assert t.end_turn(show(v, lay, p1)) and t.result["position"].board == p1.board


def test_a_checker_put_on_the_opponents_full_stack_is_asked_and_named_l2():
    # White's checker from its 5 goes onto black's head (15: the slots show 10), out
    # of view; back onto white's own full head would look the same. Neither is legal:
    # the mover says which, and the journal records what is on the board.
    v = LongNardy()
    pos = position({1: 13, 5: 2}, {1: 15})
    lay, t = setup(v, pos, (6, 5))
    src = zone_of(v, WHITE, 5)
    assert zone_of(v, WHITE, 13) == zone_of(v, BLACK, 1)
    board = show(v, lay, pos, lift=[(WHITE, src)])
    t.update(board)
    assert t.state == LIFTED
    assert not t.end_turn(board)
    onto = v.apply_step(pos, (5, 13))
    back = v.apply_step(pos, (5, 1))
    assert t.state == CONFIRM, (t.state_name(), t.warning)
    keys = [c[1].key() for c in t.candidates]
    # the own stack first: OK pressed through picks it, one colour per point
    assert keys == [back.key(), onto.key()]
    assert not t.confirm(1)
    assert t.state == VERDICT and t.warning[0] == "L2", t.warning
    assert t.accept()
    assert t.result["position"].board == onto.board and t.result["rule"] == "L2"
    # the game goes on from that board: black's legal turn is no verdict (P12 stays
    # shared; only adding to it would break L2)
    nxt = t.result["position"]
    t.start_turn(nxt, (6, 5), show(v, lay, nxt))
    steps, res = v.legal_turns(nxt, (6, 5))[0]
    cur = nxt
    for st in steps:
        t.update(show(v, lay, cur, lift=[(BLACK, zone_of(v, BLACK, st[0]))]))
        cur = v.apply_step(cur, st)
        t.update(show(v, lay, cur))
    assert t.end_turn(show(v, lay, cur)), (t.state_name(), t.warning)
    assert t.result["rule"] is None and t.result["position"].board == res.board
    assert res.count(WHITE, 13) and res.count(BLACK, 1)


def test_a_checker_gone_onto_a_full_stack_confirmed_through_is_the_own_stack():
    # The board of a scripted game (found in CI): black 2 on its 23, 13 on its 24,
    # white 10 on its 24 (black's 12); dice 2-3. Black's checker from 23 goes onto
    # its own full 24 (1: no die shows it, C3), out of view; white's full stack
    # would look the same (L2). OK, OK (the shown candidate) and the opponent's
    # hold: the record keeps one colour per point.
    v = LongNardy()
    pos = position({24: 10, 1: 5}, {23: 2, 24: 13}, turn=BLACK)
    lay, t = setup(v, pos, (2, 3))
    board = show(v, lay, pos, lift=[(BLACK, zone_of(v, BLACK, 23))])
    t.update(board)
    assert t.state == LIFTED
    assert not t.end_turn(board) and t.state == CONFIRM, t.state_name()
    assert [c[0][-1] for c in t.candidates] == [(23, 24), (23, 12)]
    assert not t.confirm(0)
    assert t.state == VERDICT and t.warning[0] == "C3", t.warning
    assert t.accept()
    final = t.result["position"]
    assert final.count(BLACK, 24) == 14 and final.count(WHITE, 24) == 10
    for k in range(1, 25):      # no point holds both colours
        assert not (final.count(BLACK, k) and final.count(WHITE, v.opp_point(k)))


def test_a_lift_off_the_full_head_shows_its_targets_from_the_raw_readings():
    # 15 on the head, 10 shown: a lift changes no count, only the field of the slots
    v = LongNardy()
    pos = v.start_position()
    lay, t = setup(v, pos, (6, 5))
    assert t._watch_zone == 24
    raw = [2000] * lay.n
    obs = show(v, lay, pos, raw=raw)
    for _ in range(12):
        t.tick(obs, 2000)
    assert not t.events
    raw[lay.start[24] + 4] -= 90          # the top checker of slot 5 is lifted
    for _ in range(12):
        t.tick(obs, 100)                  # a class changed just now: not yet
    assert not t.events
    t.tick(obs, 2000)
    want = tuple(v.physical(WHITE, k) for k in v.targets(pos, (6, 5), (), 1))
    assert t.events == [("lift", (24,), want)] and t.lifted == [24]
    assert t.state == IDLE              # the turn flow is as before
    # put down on a target: the step, and the watch starts over on the new stack
    p1 = v.apply_step(pos, (1, 7))
    t.update(show(v, lay, p1, raw=raw))
    assert t.played == ((1, 7),) and t.lifted == [] and not t._stirred


def test_a_head_lift_put_back_clears_the_targets():
    v = LongNardy()
    pos = v.start_position()
    lay, t = setup(v, pos, (6, 5))
    raw = [2000] * lay.n
    obs = show(v, lay, pos, raw=raw)
    for _ in range(12):
        t.tick(obs, 2000)
    raw[lay.start[24]] -= 90              # white's head reads lower without its top
    for _ in range(12):
        t.tick(obs, 2000)
    assert t.lifted == [24]
    raw[lay.start[24]] += 90
    for _ in range(20):
        t.tick(obs, 2000)
    assert t.lifted == [] and t.targets == [] and t.events[-1] == ("lift", (), ())


def _head_watched(side):
    """Long nardy's start, ``side`` to play 6-5, the watch on its head settled: (variant,
    start, tracker, raw readings the observation holds, the head's zone, its first
    channel)."""
    v = LongNardy()
    pos = v.start_position(side)
    lay, t = setup(v, pos, (6, 5))
    head = zone_of(v, side, 1)
    assert t._watch_zone == head
    raw = [2000] * lay.n
    obs = show(v, lay, pos, raw=raw)
    for _ in range(12):
        t.tick(obs, 2000)
    assert not t.events
    return v, pos, t, raw, obs, head, lay.start[head]


def test_a_lift_off_the_full_head_lights_on_its_first_scan():
    # issue 21, point 12: the lights within 60 ms of the lift, so on the first scan
    # that shows it (the stack watch's 5 scans made it ~200 ms). Without its top
    # checker a white stack reads lower, a black one higher.
    for side in (WHITE, BLACK):
        v, pos, t, raw, obs, head, ch = _head_watched(side)
        raw[ch + 4] += -90 if side == WHITE else 90
        t.tick(obs, 2000)
        want = tuple(v.physical(side, k) for k in v.targets(pos, (6, 5), (), 1))
        assert t.events == [("lift", (head,), want)], (side, t.events)
        assert t.lifted == [head] and t.state == IDLE
        for _ in range(20):               # it holds
            t.tick(obs, 2000)
        assert t.lifted == [head] and len(t.events) == 1


def test_a_reading_that_returns_takes_the_head_lights_back():
    v, pos, t, raw, obs, head, ch = _head_watched(WHITE)
    raw[ch + 2] -= 90                     # one scan (a spike, a hand that let go)
    t.tick(obs, 2000)
    assert t.lifted == [head]
    raw[ch + 2] += 90
    for _ in range(12):
        t.tick(obs, 2000)
    assert t.lifted == [] and t.events[-1] == ("lift", (), ())


def test_noise_or_a_magnet_over_the_head_lights_nothing_at_once():
    # ADC noise of 12 counts rms (the tests' "high"; the parts make under one) on
    # every slot of the head for 10 s of scans, then a checker carried over it: the
    # readings jump the way no lift moves them
    v, pos, t, raw, obs, head, ch = _head_watched(WHITE)
    rnd = Rand(21)
    for _ in range(500):
        b = rnd(20)
        for i in range(5):
            # four bytes: their sum is near normal, 148 rms around 510
            raw[ch + i] = 2000 + (b[4 * i] + b[4 * i + 1] + b[4 * i + 2] + b[4 * i + 3]
                                  - 510) * 12 // 148
        t.tick(obs, 2000)
    assert not t.events and t.lifted == []
    raw[ch + 1] = 2000 + 300              # a white magnet passing over, one scan
    t.tick(obs, 2000)
    raw[ch + 1] = 2000
    for _ in range(12):
        t.tick(obs, 2000)
    assert not t.events and t.lifted == []


def test_a_checker_put_onto_the_watched_head_is_no_lift():
    # self-play (30 long games): a checker landing on the watched stack, which changes
    # no class, raised its readings for good and was shown as a lift off it
    v, pos, t, raw, obs, head, ch = _head_watched(WHITE)
    raw[ch] += 110                        # a third magnet on the first slot
    for _ in range(30):
        t.tick(obs, 2000)
    assert not t.events and t.lifted == []


def test_a_head_lift_while_a_class_just_changed_waits_for_stillness():
    # a checker put down beside the head moves its readings too: the lift on its
    # first scan still waits until no class has changed for a while (the warning
    # paths stay those of a real lift)
    v, pos, t, raw, obs, head, ch = _head_watched(WHITE)
    raw[ch + 4] -= 90
    for _ in range(12):
        t.tick(obs, 100)
    assert not t.events
    t.tick(obs, 2000)
    assert t.lifted == [head]


def test_a_legal_board_the_search_could_not_explain_ends_as_played():
    # a search budget of one node cannot find two steps played in one go: the board
    # is out of sync, but ending the turn reads it, finds it legal, and records it
    v = ShortNardy()
    pos = v.start_position()
    lay = Layout(5)
    t = Tracker(v, lay, max_nodes=1)
    t.start_turn(pos, (6, 5), show(v, lay, pos))
    final = v.apply_step(v.apply_step(pos, (12, 18)), (17, 22))
    t.update(show(v, lay, final))
    assert t.state == SYNC
    assert t.end_turn(show(v, lay, final))
    r = t.result
    assert not r["accepted"] and r["rule"] is None and r["observed"]
    assert r["position"].board == final.board
    assert v.apply_step(v.apply_step(pos, r["steps"][0]), r["steps"][1]).board == final.board


def test_a_second_checker_lifted_off_the_head_says_no_legal_move_at_once():
    # issue 21 (L3): after 1/7 another checker off the head has no legal step; the
    # lift (seen only in the raw readings of the full head) says so on the lift
    v = LongNardy()
    pos = v.start_position()
    lay, t = setup(v, pos, (6, 5))
    p1 = v.apply_step(pos, (1, 7))
    raw = [2000] * lay.n
    t.update(show(v, lay, p1, raw=raw))
    assert t.played == ((1, 7),) and t._watch_zone == 24
    obs = show(v, lay, p1, raw=raw)
    for _ in range(12):
        t.tick(obs, 2000)
    del t.events[:]
    raw[lay.start[24] + 4] -= 90          # a second checker off the head
    for _ in range(12):
        t.tick(obs, 2000)
    assert t.events == [("lift", (24,), ())] and t.lifted == [24]
    assert t.stuck and t.targets == []
    raw[lay.start[24] + 4] += 90          # put back
    for _ in range(20):
        t.tick(obs, 2000)
    assert not t.stuck and t.lifted == []


def test_a_checker_with_no_legal_step_is_stuck_on_the_lift():
    v = ShortNardy()
    pos = position({19: 3, 20: 3, 21: 3, 22: 2, 23: 2, 24: 2}, {7: 15})
    lay, t = setup(v, pos, (6, 5))
    t.update(show(v, lay, pos, lift=[(WHITE, v.physical(WHITE, 24))]))
    assert t.state == LIFTED and t.targets == [] and t.stuck     # C6: none bears off
    t.update(show(v, lay, pos))
    assert not t.stuck
    t.update(show(v, lay, pos, lift=[(WHITE, v.physical(WHITE, 19))]))
    assert t.targets and not t.stuck
    # every die played: a lift is a step being taken back, never "no legal move"
    t.update(show(v, lay, pos))
    p1 = v.apply_step(v.apply_step(pos, (19, 25)), (20, 25))
    t.update(show(v, lay, p1))
    assert not v.next_steps(pos, (6, 5), t.played) and t.state == IDLE, t.played
    t.update(show(v, lay, p1, lift=[(WHITE, v.physical(WHITE, 24))]))
    assert t.state == LIFTED and not t.stuck


def _hit_half_done():
    """Short nardy: white's checker from its 1 put on black's blot on its 4, the
    blot still on its point. (variant, layout, tracker, the hit position, zone)"""
    v = ShortNardy()
    pos = position({1: 3, 12: 12}, {21: 1, 23: 14})
    lay, t = setup(v, pos, (3, 1))
    hit = v.apply_step(pos, (1, 4))
    z = zone_of(v, WHITE, 4)
    t.update(show(v, lay, hit, lift=[(BLACK, ZONE_BAR)], add=[(BLACK, z)]))
    return v, lay, t, hit, z


def test_a_hit_half_done_is_a_step_in_progress():
    # issue 21: the hitting checker is down, the blot not yet on the bar
    v, lay, t, hit, z = _hit_half_done()
    assert t.state == SYNC and t.hit == z
    t.update(show(v, lay, hit, lift=[(BLACK, ZONE_BAR)]))    # the blot in the hand
    assert t.state == SYNC and t.hit == z
    t.update(show(v, lay, hit))              # the blot goes to the bar: done
    assert t.state == IDLE and t.hit == 0 and t.played == ((1, 4),)


def test_a_board_out_of_sync_for_another_reason_is_no_hit():
    v = ShortNardy()
    pos = position({1: 3, 12: 12}, {21: 1, 23: 14})
    lay, t = setup(v, pos, (3, 1))
    # a white checker appears on the blot from nowhere (none left its point)
    t.update(show(v, lay, pos, add=[(WHITE, zone_of(v, BLACK, 21))]))
    assert t.state == SYNC and t.hit == 0


def test_the_first_scan_of_a_lift_previews_its_targets():
    # issue 12/21: the LEDs may light on the sensing's early lift, before its debounce
    v = ShortNardy()
    pos = v.start_position()
    lay, t = setup(v, pos, (6, 5))
    z = v.physical(WHITE, 1)
    want = sorted(v.physical(WHITE, k) for k in v.targets(pos, (6, 5), (), 1))
    assert sorted(t.preview(z, WHITE)) == want and want
    assert not t.events and t.lifted == []      # nothing told: only shown
    assert t.preview(v.physical(BLACK, 1), BLACK) is None     # not the mover's
    t.update(show(v, lay, pos, lift=[(WHITE, z)]))
    assert t.preview(v.physical(WHITE, 12), WHITE) is None    # one in the hand already


def test_nothing_played_sees_a_step_no_sensor_can_show():
    # the game's guard against a second OK right after the roll (issue 21) must not
    # refuse a turn whose step went off a full stack into a full tray, unseen
    v = LongNardy()
    pos = v.start_position()
    lay, t = setup(v, pos, (6, 5))
    assert nothing_played(t, show(v, lay, pos))
    t.update(show(v, lay, v.apply_step(pos, (1, 7))))
    assert not nothing_played(t, show(v, lay, v.apply_step(pos, (1, 7))))
    pos = position({24: 11, 25: 4}, {8: 15})
    lay, t = setup(v, pos, (1, 1))
    off = v.apply_step(pos, (24, 25))
    obs = show(v, lay, off)
    assert [obs.vis_w[z] for z in range(1, 28)] == [
        show(v, lay, pos).vis_w[z] for z in range(1, 28)]      # nothing changed in view
    t.update(obs)
    assert t.state == IDLE and t.played == ()
    assert not nothing_played(t, obs)


def test_the_scan_that_takes_a_step_asks_nothing_ahead():
    # cycle budget (bench/app_bench.py, "cycle after the roll"): the targets asked
    # ahead (_warm), one checker a scan, wait a scan after the roll and after a
    # step: that scan did the step's fitting (or follows the roll's search), and
    # one query on top of it made the turn's longest cycle. Then every checker the
    # mover may lift is asked within a scan each.
    v = ShortNardy()
    pos = v.start_position()
    lay = Layout(5)
    t = Tracker(v, lay)
    asked = []
    targets = v.targets

    def counted(p, dice, played, src):
        asked.append(src)
        return targets(p, dice, played, src)
    v.targets = counted
    t.start_turn(pos, (6, 5), show(v, lay, pos))
    p1 = v.apply_step(pos, (1, 7))
    for board in (pos, p1):
        if board is p1:
            t.update(show(v, lay, p1))        # 1/7 placed: the step is taken
            assert len(t.played) == 1
        del asked[:]
        t.tick(None, 0)                       # the same scan (or the roll's next)
        assert asked == []
        me = [k for k in range(25) if board.side(WHITE)[k]]
        for _ in me:
            t.tick(None, 0)
            assert len(asked) <= 1
            del asked[:]
        assert [k for k in me if (t.played, k) not in t._targ_cache] == []
