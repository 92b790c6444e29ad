"""The board's own turn ends when its move is on the board, even when the sensors
cannot see every step of it: property test over end-game positions where the board's
stack and tray are at the edge of what the slots can count.

(The soak found two such turns that waited for ever: a last checker off a full stack
into a full tray, and a chain onto a full stack and off into a full tray.)"""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_botplay import _start

from nardy.game import MOVE, ROLL
from nardy.notation import position_id
from nardy.rules import BLACK, WHITE


def _side(data, board, base, stack, off):
    """15 checkers of one side in its home (path points 19-24) and off: ``stack`` on
    its 1-point, ``off`` borne off, the rest anywhere in its home."""
    off = min(off, 15 - stack)
    board[base + 25] = off
    board[base + 24] = stack
    for _ in range(15 - stack - off):
        board[base + data.draw(st.integers(19, 24))] += 1


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_boards_turn_ends_with_its_move_on_the_board(data):
    variant = data.draw(st.sampled_from(("long", "short")))
    b, g = _start("unseen", variant, "black")
    try:
        g.dice_src.load([6, 1])                 # the opening: white (a person) first
        g.press("ok", "short", b.obs)
        assert g.phase == ROLL and g.pos.turn == WHITE
        pos = g.pos.copy()
        for i in range(52):
            pos.board[i] = 0
        # the slots count up to 10 on a point, the tray up to 4: the board's side
        # (black) sits at those edges, where a step can change nothing in view
        _side(data, pos.board, 0, data.draw(st.integers(2, 12)), data.draw(st.integers(0, 1)))
        _side(data, pos.board, 26, data.draw(st.integers(9, 11)), data.draw(st.integers(3, 5)))
        pos.turn = BLACK
        start = position_id(g.variant, pos)
        g.pos = pos
        b.show(pos)
        dice = (data.draw(st.integers(1, 6)), data.draw(st.integers(1, 6)))
        g.dice_src.load(list(dice))
        g.tick(b.obs, 0)                        # the board rolls and shows its turn
        if g.phase != MOVE:
            return                              # no legal step: it passed (C5)
        sh = g.shown
        want = sh.result.board
        for step in sh.steps:
            if g.phase != MOVE:
                break
            b.show(pos, hand=(BLACK, step[0]))
            pos = g.variant.apply_step(pos, step)
            b.show(pos)
            g.tick(b.obs, 0)
        if g.phase == MOVE:
            g.tick(b.obs, 3000)                 # still: steps out of view are taken
        assert g.phase != MOVE, (start, dice, sh.steps, g.tracker.played,
                                 g.tracker.state_name())
        assert g.pos.board == want or g.result is not None
    finally:
        b.close()
