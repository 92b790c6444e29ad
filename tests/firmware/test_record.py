"""The journal format: lines build, parse and replay."""

from nardy import record
from nardy.longnardy import LongNardy
from nardy.rules import BLACK, WHITE


def test_a_game_round_trips_through_the_journal():
    v = LongNardy()
    pos = v.start_position()
    lines = [record.dumps(record.game(v, pos, {"seed": 1}))]
    lines.append(record.dumps(record.roll(1, WHITE, (6, 5))))
    lines.append(record.dumps(record.step(1, (1, 7))))
    lines.append(record.dumps(record.step(1, (1, 7), undo=True)))
    lines.append(record.dumps(record.warn(1, "L3", "only one checker may leave the head",
                                          (24, 19))))
    steps = ((1, 7), (7, 12))
    after = v.apply_step(v.apply_step(pos, steps[0]), steps[1])
    after.turn = BLACK
    lines.append(record.dumps(record.turn(v, 1, WHITE, (6, 5), steps, after)))
    lines.append(record.dumps(record.end(WHITE, "mars", 2)))
    for ln in lines:
        assert "\n" not in ln
        assert record.loads(ln)["r"] in record.KINDS
    header, turns, fin, last = record.replay(lines)
    assert header["variant"] == "long" and header["meta"] == {"seed": 1}
    assert len(turns) == 1 and turns[0]["steps"] == [[1, 7], [7, 12]]
    assert turns[0]["accepted"] is False and turns[0]["rule"] is None
    assert fin["winner"] == "white" and fin["points"] == 2
    assert last[0] == "long" and last[1].board == after.board and last[1].turn == BLACK


def test_a_torn_last_line_is_ignored_but_not_one_in_the_middle():
    v = LongNardy()
    pos = v.start_position()
    good = record.dumps(record.game(v, pos))
    roll = record.dumps(record.roll(1, WHITE, (3, 3)))
    header, turns, fin, last = record.replay([good, roll, roll[:7]])
    assert header["r"] == "game" and fin is None
    try:
        record.replay([good, roll[:7], roll])
    except ValueError:
        pass
    else:
        raise AssertionError("a broken line in the middle was accepted")
    try:
        record.loads('{"r": "nonsense"}')
    except ValueError:
        pass
    else:
        raise AssertionError("unknown record accepted")
