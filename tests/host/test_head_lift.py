"""Long nardy's head lift lights its targets (issue 11): the real sensing and tracker on
the emulated board (magnets, sensor offsets, ADC noise), where lifting one checker off
the 15 on the head changes no slot's class."""

import random

import pytest

from nardy.longnardy import LongNardy
from nardy.rules import WHITE
from nardy_host.physical import Hands, Rig


def _rig(noise, seed):
    v = LongNardy()
    rig = Rig(v, noise=noise, seed=seed)
    pos = v.start_position()
    rig.board.set_position(v, pos, rig.trk._zt)
    rig.settle()
    return v, rig, pos


def _head_lifts(rig, zone):
    return [e for e in rig.events if e[0] == "lift" and e[1] == (zone,)]



def _head_lifted(noise, seed, dice):
    """``_rig(noise, seed)``'s turn started with ``dice``, one checker lifted off white's
    head (P24) and seen lifted."""
    v, rig, pos = _rig(noise, seed)
    rig.trk.start_turn(pos, dice, rig.sens)
    rig.wait(400)
    rig.board.take(24, WHITE)
    rig.wait(300)
    assert rig.trk.lifted == [24]
    return v, rig, pos

def test_a_lift_off_the_head_shows_the_heads_targets():
    v, rig, pos = _rig(8, 11)
    rig.trk.start_turn(pos, (6, 5), rig.sens)
    rig.wait(400)
    assert rig.sens.vis_w[24] == 10 and not rig.events
    rig.board.take(24, WHITE)
    rig.wait(300)
    assert rig.sens.vis_w[24] == 10          # no class changed
    want = tuple(v.physical(WHITE, t) for t in v.targets(pos, (6, 5), (), 1))
    lifts = _head_lifts(rig, 24)
    assert lifts and sorted(lifts[-1][2]) == sorted(want), rig.events
    assert rig.trk.lifted == [24] and sorted(rig.trk.targets) == sorted(want)
    # put down on a target: the step from the head, and the lights go
    rig.board.put(v.physical(WHITE, 7), WHITE)
    rig.settle()
    rig.wait(200)
    assert rig.trk.played == ((1, 7),) and rig.trk.lifted == []


@pytest.mark.parametrize("noise", [0, 8, 12])
def test_a_lift_off_the_head_lights_on_the_first_scan_that_shows_it(noise):
    # issue 21, point 12: the lights within 60 ms of the lift (projected on the ESP32:
    # bench/app_bench.py, "head"), so on the scan that first reads the magnet gone,
    # not after the stack watch's 5 scans; on the emulated board, offsets and ADC
    # noise included, over several boards
    for seed in range(5):
        v, rig, pos = _rig(noise, 40 + seed)
        rig.trk.start_turn(pos, (6, 5), rig.sens)
        rig.wait(400)
        rig.board.take(24, WHITE)
        rig.scan()
        want = sorted(v.physical(WHITE, t) for t in v.targets(pos, (6, 5), (), 1))
        lifts = _head_lifts(rig, 24)
        assert lifts and sorted(lifts[0][2]) == want, (seed, rig.events)
        rig.wait(1000)                    # and it holds: no flicker
        assert rig.trk.lifted == [24] and len(_head_lifts(rig, 24)) == 1, rig.events


def test_a_head_checker_put_back_takes_the_lights_back():
    v, rig, pos = _head_lifted(8, 12, (6, 5))
    rig.board.put(24, WHITE)
    rig.wait(300)
    assert rig.trk.lifted == [] and rig.trk.targets == []
    assert rig.events[-1] == ("lift", (), ())
    assert rig.trk.played == ()


def test_no_false_head_lift_from_noise_or_a_neighbour():
    # High noise on a still board, then a checker lifted from P23 (right beside the
    # head, P24) and put on P22: the head's readings move with both, but no checker
    # left the head, so it must never look lifted.
    for seed in range(3):
        v, rig, pos = _rig(12, 20 + seed)
        pos = v.start_position()
        pos.board[1] = 13
        pos.board[2] = 2
        rig.board.set_position(v, pos, rig.trk._zt)
        rig.settle()
        rig.trk.start_turn(pos, (1, 4), rig.sens)
        assert rig.trk._watch_zone == 24
        rig.wait(3000)
        assert not rig.events, rig.events
        rig.board.take(23, WHITE)
        rig.wait(300)
        assert rig.trk.lifted == [23]
        Hands(rig, random.Random(seed), fast=0.0, slide=1.0)._carry(WHITE, 23, 22)
        rig.board.put(22, WHITE)
        rig.settle()
        rig.wait(1000)
        assert rig.trk.played == ((2, 3),), rig.events
        assert not _head_lifts(rig, 24), rig.events
        # the opponent's head is never watched on the mover's turn
        assert rig.trk._watch_zone == 24


def test_a_step_off_the_head_beside_it_leaves_no_lift_behind():
    v, rig, pos = _head_lifted(12, 31, (2, 1))
    rig.board.put(23, WHITE)          # 1 -> 2, the point right beside the head
    rig.settle()
    n = len(rig.events)
    rig.wait(1500)
    assert rig.trk.played == ((1, 2),)
    assert not [e for e in rig.events[n:] if e[0] == "lift" and e[1]], rig.events[n:]


def test_the_virtual_board_lights_the_heads_targets(tmp_path, capsys):
    # the real firmware on the unix MicroPython port, fed the magnet model's readings
    from nardy_host import cli
    p = tmp_path / "head.nardy"
    p.write_text(
        "new long match 1\nopening 5 3\npress ok\ndice 6 5\npress ok\n"
        "expect roll side=white dice=6,5\n"
        "wait 400\n"
        "lift P24\n"                      # one of 15: no slot's class changes
        "expect lift zones=P24 targets~P18\n"
        "expect leds P18=target P19=target\n"
        "place P18\n"
        "expect step from=1 to=7\n"
        "expect dump steps=1/7\n")
    rc = cli.main(["script", "--quiet", str(p)])
    assert rc == 0, capsys.readouterr().err



def test_a_wrong_step_off_the_head_warns_and_back_on_the_head_clears():
    # The lights of a head lift come on its first scan now; the warning path is as
    # before: a step no die shows (C3) warns, and the checker back on the head (a
    # stack that cannot show it arriving) clears the warning at once, with no lift left
    # behind
    for seed in range(3):
        v, rig, pos = _head_lifted(8, 50 + seed, (6, 5))
        n = len(rig.events)
        rig.board.put(21, WHITE)          # 1 -> 4: 3 points, no die shows it
        rig.settle()
        rig.wait(300)
        assert rig.trk.state_name() == "illegal" and rig.trk.warning[0] == "C3"
        assert [e[0] for e in rig.events[n:]] == ["step", "warn"], rig.events[n:]
        n = len(rig.events)
        rig.board.take(21, WHITE)
        rig.wait(100)
        rig.board.put(24, WHITE)
        rig.settle()
        rig.wait(1000)
        assert [e[0] for e in rig.events[n:]] == ["undo", "clear"], rig.events[n:]
        assert rig.trk.state_name() == "idle" and rig.trk.played == ()
        assert rig.trk.lifted == []
