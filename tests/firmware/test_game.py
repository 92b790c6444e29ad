"""The match flow on the tracker, driven by observations built from positions."""

import sys

from apputil import Obs, Rand, rmtree, tmpdir
from gameboard import LAYOUT, GameBoard

from nardy.dice import Dice
from nardy.game import (
    ACCEPT,
    CONFIRM,
    GAME_END,
    ILLEGAL,
    MATCH_END,
    MOVE,
    OPENING,
    PLAYING,
    ROLL,
    SYNC,
    TAKE_BACK,
    Game,
    dice_left,
)
from nardy.journal import Journal
from nardy.rules import BLACK, WHITE, Position
from nardy.zones import ZONE_OFF_B, ZONE_OFF_W, Layout


class Board(GameBoard):
    """Plays turns checker by checker (gameboard.GameBoard: game, journal, sensor view)."""

    def play_turn(self, pick=0):
        g = self.g
        v = g.variant
        assert g.phase == ROLL, g.phase
        g.press("ok", "short", self.obs)
        if g.phase != MOVE:
            return None          # passed
        turns = v.legal_turns(g.pos, g.dice)
        steps, res = turns[self.rng(1)[0] % len(turns)] if pick is None else turns[pick]
        pos = g.pos
        for st in steps:
            self.show(pos, hand=(pos.turn, st[0]))
            pos = v.apply_step(pos, st)
            self.show(pos)
        assert g.tracker.played == tuple(steps) or len(g.tracker.hyps) > 1 or \
            g.phase != MOVE
        if g.phase == MOVE:
            g.press("ok", "short", self.obs)
        if g.phase == MOVE and g.tracker.state_name() == "confirm":
            g.press("ok", "short", self.obs)
        assert g.phase != MOVE, g.tracker.state_name()
        return steps



def test_dice_left():
    assert dice_left((6, 5), [(1, 7)]) == [5]
    assert dice_left((3, 3), [(1, 4), (4, 7)]) == [3, 3]
    assert dice_left((6, 2), [(22, 25)]) == [2]   # a bear-off takes the smallest die that covers it
    assert dice_left((6, 2), [(1, 2)]) == [6, 2]      # an illegal distance takes nothing


def test_full_long_game_and_journal():
    b = Board("long", seed=3, settings={"variant": "long", "match": 3})
    g = b.g
    g.new_match()
    assert g.phase == OPENING
    b.show(g.pos)
    g.press("ok", "short", b.obs)
    assert g.phase == ROLL and g.opening and g.opening[-1][0] != g.opening[-1][1]
    first = g.pos.turn
    assert first == (WHITE if g.opening[-1][0] > g.opening[-1][1] else BLACK)
    turns = 0
    while g.phase == ROLL and turns < 600:
        b.play_turn(pick=None)
        turns += 1
    assert g.phase == GAME_END, g.phase
    winner, kind, pts = g.result
    assert kind in ("oin", "mars") and pts == (1 if kind == "oin" else 2)
    assert sum(g.match.score) == pts
    # the journal holds exactly what was emitted, in order
    b.log.close()
    i = 0
    with open(b.dir + "/events.txt") as f:
        for ln in b.j.raw_lines(g.gid):
            assert f.readline() == "%d %s\n" % (i, ln), i
            i += 1
        assert f.readline() == ""
    assert i > 50
    b.log = open(b.dir + "/events.txt", "a")  # noqa: SIM115
    kinds = [r["r"] for r in b.j.records(g.gid)]
    assert kinds[0] == "game" and kinds[1] == "open" and kinds[-1] == "end"
    # L8: next game, colours swapped, white starts without an opening roll
    wp = g.match.white_player
    g.press("ok", "short", b.obs)
    assert g.phase == ROLL and g.pos.turn == WHITE and g.game_no == 2
    assert g.match.white_player == wp
    b.close()


def test_resume_mid_turn_keeps_dice_and_steps():
    b, g = _start("resume", "short", 5)
    for _ in range(3):
        b.play_turn(pick=None)
    g.press("ok", "short", b.obs)
    if g.phase == MOVE:
        steps, res = g.variant.legal_turns(g.pos, g.dice)[0]
        pos = g.variant.apply_step(g.pos, steps[0])
        b.show(g.pos, hand=(g.pos.turn, steps[0][0]))
        b.show(pos)
        assert g.jsteps == [steps[0]]
    before = g.state()
    b.j.close()
    # "power cut": a new journal and game from the same directory
    j2 = Journal(b.dir)
    assert j2.scan() == []
    gid = j2.unfinished()
    assert gid == g.gid
    g2 = Game(j2, LAYOUT, [].append)
    g2.resume(gid, j2.records(gid))
    if sys.implementation.name == "micropython":
        assert "nardy.resume" not in sys.modules    # its code is on the heap only at boot
    after = g2.state()
    for k in ("phase", "position", "dice", "steps", "turn_no", "variant", "match"):
        assert after[k] == before[k], (k, after[k], before[k])
    b.close()


def test_a_turn_resumed_after_a_power_cut_keeps_its_steps_on_the_board():
    # long nardy 6-5, 1/7 7/12 played when the power goes: the resumed tracker goes
    # on from those steps, not from a fresh search (1/6 6/12 reaches the same board)
    b, g = _rolled("resumesteps", "long", (6, 5))
    try:
        v = g.variant
        p1 = v.apply_step(g.pos, (1, 7))
        b.show(p1)
        p2 = v.apply_step(p1, (7, 12))
        b.show(p2)
        assert g.jsteps == [(1, 7), (7, 12)]
        b.j.close()
        j2 = Journal(b.dir)
        j2.scan()
        g2 = Game(j2, LAYOUT, [].append)
        g2.resume(g.gid, j2.records(g.gid))
        j2.resume(g.gid)
        assert g2.tracker.played == ((1, 7), (7, 12))
        g2.observe(b.obs)                        # the board as it lies
        assert g2.tracker.played == ((1, 7), (7, 12)) and g2.jsteps == [(1, 7), (7, 12)]
        assert g2.press("ok", "short", b.obs)
        turn = [r for r in j2.records(g.gid) if r["r"] == "turn"][-1]
        assert turn["steps"] == [[1, 7], [7, 12]]
        assert not [r for r in j2.records(g.gid) if r["r"] == "undo"]
        j2.close()
    finally:
        b.close()


def _game_left_behind(name):
    """A game with a turn played (its last move lit) and the resign question open (a
    message on the OLED)."""
    b, g = _start(name, "short", 7)
    b.play_turn(pick=None)
    assert g.phase == ROLL and g.last_move
    assert g.press("back", "long", b.obs)
    assert g.resigning and g.message is not None
    return b, g


def _nothing_left(g):
    assert g.message is None, g.message
    assert g.last_move == [] and g.jsteps == [] and g.dice is None
    assert not g.resigning and g.result is None and g.resigned is None and g.n == 0


def test_nothing_of_a_game_survives_into_the_next_by_any_route():
    # issue 24: the per-game reset is written once (Game._reset_game); its copies
    # differed, and only new_game cleared the last move and the message
    b, g = _game_left_behind("reset-new")        # the next game of the match
    g.resign()
    assert g.phase in (GAME_END, MATCH_END)
    g.say(None, "a hint from the game over")
    g.new_match()
    _nothing_left(g)
    b.close()
    b, g = _game_left_behind("reset-clear")      # a refused new match: no game
    try:
        g.new_match("tavla")
    except ValueError:
        pass
    else:
        raise AssertionError("an unknown variant was accepted")
    assert g.phase == "setup"
    _nothing_left(g)
    b.close()
    b, g = _game_left_behind("reset-restore")    # the match between two games
    g.restore_match({"variant": "long", "length": 3, "score": [1, 0], "game": 1})
    assert g.phase == GAME_END
    _nothing_left(g)
    b.close()


def test_torn_and_corrupt_files_are_reported_not_fatal():
    d = tmpdir("torn")
    with open(d + "/g00001.jsonl", "w") as f:
        f.write('{"r": "game", "v": 1, "variant": "long", "options": {}, "start": '
                '"Lw-0f000000000000000000000000-0f000000000000000000000000", "meta": {}}\n')
        f.write('{"r": "roll", "n": 1, "side": "white", "dice": [6, 5]}\n{"r": "st')
    with open(d + "/g00002.jsonl", "w") as f:
        f.write('garbage\n{"r": "roll"}\n')
    j = Journal(d)
    rep = j.scan()
    assert [r[0] for r in rep] == [2]
    assert j.unfinished() == 1
    assert j.lines == 2 and j.latest.torn
    with open(d + "/g00001.jsonl") as f:
        assert f.read().endswith("[6, 5]}\n")         # the torn tail is gone
    g = Game(j, LAYOUT, [].append)
    g.resume(1, j.records(1))
    assert g.phase == MOVE and g.dice == (6, 5)
    j.close()
    rmtree(d)


def test_flash_full_refuses_new_game_and_keeps_files():
    d = tmpdir("full")
    free = [100000]
    j = Journal(d, free=lambda: free[0], low_bytes=50000, full_bytes=10000)
    j.scan()
    ev = []
    g = Game(j, LAYOUT, ev.append, Dice(Rand(9)), {"variant": "long"})
    assert g.new_match()
    assert j.space() == "ok"
    free[0] = 20000
    assert j.space() == "low"
    free[0] = 5000
    assert not g.new_game() and j.space() == "full"
    assert ev[-1]["ev"] == "error" and "flash full" in g.message[1]
    assert j.count == 1
    j.close()
    rmtree(d)


def test_resignation_and_match_end():
    b, g = _start("resign", "short", 11, match=2)
    loser = g.pos.turn
    g.press("back", "long", b.obs)
    g.press("ok", "short", b.obs)           # "resign?": yes
    assert g.phase == GAME_END and g.result == (1 - loser, "oin", 1)
    assert list(b.j.records(g.gid))[-1]["resigned"] in ("white", "black")
    g.press("ok", "short", b.obs)
    assert g.phase == OPENING          # short nardy: opening roll every game
    b.show(g.pos)
    g.press("ok", "short", b.obs)
    loser2 = g.pos.turn
    g.press("back", "long", b.obs)
    g.press("ok", "long", b.obs)
    if loser2 == loser:
        assert g.phase == MATCH_END and g.match.over
    else:
        assert g.phase == GAME_END and g.match.score == [1, 1]
    b.close()


def test_holding_back_asks_before_resigning_and_the_end_says_so():
    # issue 21: a long BACK (an accident as often as not) resigns only after OK
    b, g = _rolled("askresign", "long", (6, 5))
    try:
        ph = g.phase
        side = g.pos.turn
        assert g.press("back", "long", b.obs)
        assert g.phase == ph and g.resigning and g.result is None
        assert "OK: resign" in g.message[1] and "BACK" in g.message[1]
        assert g.state()["resigning"]
        assert not _records(b, "end")
        # the game goes on meanwhile: a step is followed, the question stays
        b.show(g.variant.apply_step(g.pos, (1, 7)))
        assert g.tracker.played == ((1, 7),) and g.resigning
        assert g.press("back", "short", b.obs)        # play on
        assert not g.resigning and g.phase == MOVE and g.result is None
        assert g.tracker.played == ((1, 7),)          # the turn is as it was
        g.press("back", "long", b.obs)
        assert g.press("ok", "short", b.obs)          # resign
        assert g.phase in (GAME_END, MATCH_END) and not g.resigning
        assert g.result[0] == 1 - side and g.resigned == side
        st = g.state()["result"]
        assert st["resigned"] == ("white", "black")[side]
        end = list(b.j.records(g.gid))[-1]
        assert end["r"] == "end" and end["resigned"] == ("white", "black")[side]
    finally:
        b.close()


def test_the_turn_ends_on_ok_and_a_second_ok_cannot_end_the_next_turn_unplayed():
    # issue 21: a played-out turn waits for OK (no end on stillness); the OK then
    # rolls nothing by itself, the next OK rolls the opponent's dice, and a third
    # OK (a double press) ends nothing: it raised C5 on a turn not played
    b, g = _rolled("okend", "long", (6, 5))
    try:
        v = g.variant
        p1 = v.apply_step(g.pos, (1, 7))
        b.show(p1)
        p2 = v.apply_step(p1, (7, 12))
        b.show(p2)
        for _ in range(5):
            g.tick(b.obs, 5000)                       # still for 5 s
        assert g.phase == MOVE and not _records(b, "turn")
        assert g.state()["auto_end"] is None
        g.dice_src.load([4, 2])
        assert g.press("ok", "short", b.obs)          # the mover takes the dice
        assert g.phase == ROLL and len(_records(b, "turn")) == 1
        assert g.press("ok", "short", b.obs)          # the opponent rolls
        assert g.phase == MOVE and g.dice == (4, 2) and g.pos.turn == BLACK
        assert not g.press("ok", "short", b.obs)      # pressed twice
        assert g.phase == MOVE and g.dice == (4, 2) and g.pos.turn == BLACK
        assert len(_records(b, "turn")) == 1 and not _records(b, "warn")
        assert g.message is not None and "nothing played" in g.message[1]
        # a long OK ends it on purpose: the rules reject it, the opponent decides
        g.press("ok", "long", b.obs)
        assert g.awaiting_accept() and g.warning()[0] == "C5"
    finally:
        b.close()


def test_the_auto_end_setting_counts_down_on_the_screen():
    b = Board("autoend", settings={"variant": "long", "match": 1, "auto_end": 2000})
    g = b.g
    try:
        evs = []
        emit = g.emit
        g.emit = lambda e: (evs.append(e), emit(e))
        g.new_match()
        b.show(g.pos)
        g.dice_src.load([6, 1, 6, 5])
        g.press("ok", "short", b.obs)
        g.press("ok", "short", b.obs)
        assert g.tracker.auto_end_ms == 2000
        v = g.variant
        p1 = v.apply_step(g.pos, (1, 7))
        b.show(p1)
        g.tick(b.obs, 3000)
        assert g.phase == MOVE and g.state()["auto_end"] is None   # a die is left
        b.show(v.apply_step(p1, (7, 12)))
        rev = g.revision
        g.tick(b.obs, 100)
        assert g.state()["auto_end"] == 1900
        assert {"ev": "auto_end", "ms": 1900} in evs and g.revision > rev
        assert g.message == (None, "the turn ends by itself in 2 s")   # on the OLED
        rev = g.revision
        g.tick(b.obs, 200)
        assert g.revision == rev                    # the same whole second: no redraw
        g.tick(b.obs, 1100)
        assert g.revision > rev                     # 1 s left: redrawn
        assert g.message == (None, "the turn ends by itself in 1 s")
        b.show(p1)                                  # the mover takes a step back
        g.tick(b.obs, 0)
        assert {"ev": "auto_end", "ms": None} in evs and g.phase == MOVE
        assert g.message is None
        b.show(v.apply_step(p1, (7, 12)))
        g.tick(b.obs, 2000)
        assert g.phase == ROLL and len(_records(b, "turn")) == 1
    finally:
        b.close()


def test_roll_refused_while_board_differs():
    b = Board("setup", seed=2, settings={"variant": "long"})
    g = b.g
    g.new_match()
    empty = g.pos.copy()
    for i in range(52):
        empty.board[i] = 0
    b.show(empty)
    assert g.setup
    assert not g.press("ok", "short", b.obs) and g.phase == OPENING
    assert g.message == (None, "set up the board first")
    # an empty board is not a distrusted sensor: holding OK does not roll either
    assert not g.press("ok", "long", b.obs) and g.phase == OPENING
    b.show(g.pos)
    assert not g.setup and g.message is None          # set up: the hint is gone
    # one checker off its point: hold OK overrules the sensor, a short press does not
    one = g.pos.copy()
    one.side(WHITE)[1] -= 1
    one.side(WHITE)[3] += 1
    b.show(one)
    assert g.setup and g.may_roll_anyway()
    assert not g.press("ok", "short", b.obs) and g.phase == OPENING
    assert g.press("ok", "long", b.obs) and g.phase == ROLL
    b.close()


def _records(b, kind):
    return [r for r in b.j.records(b.g.gid) if r["r"] == kind]


def _illegal_turn(b, small=False):
    """Roll, then move one checker by a distance no die shows onto an open point
    (``small``: from a stack low enough for the slots to see it come back)."""
    g = b.g
    v = g.variant
    while True:
        g.press("ok", "short", b.obs)
        if g.phase == MOVE:
            break
    pos = g.pos
    for f in range(1, 24):
        for dist in range(1, 7):
            t = f + dist
            if (dist in g.dice or t > 24 or not pos.count(pos.turn, f)
                    or pos.count(1 - pos.turn, v.opp_point(t))
                    or t in v.targets(pos, g.dice, (), f)
                    or (small and pos.count(pos.turn, f) > 4)
                    or (v.HITS and pos.count(pos.turn, 0))):
                continue
            b.show(pos, hand=(pos.turn, f))
            bad = v.apply_step(pos, (f, t))
            b.show(bad)
            assert g.warning() is not None
            return pos, bad
    raise AssertionError("no illegal step")


def _start(name, variant, seed, match=1):
    """A new match whose opening roll is done."""
    b = Board(name, seed=seed, settings={"variant": variant, "match": match})
    g = b.g
    g.new_match()
    b.show(g.pos)
    g.press("ok", "short", b.obs)
    return b, g


def _moving(name, variant, seed):
    """A game whose first turn is being played (MOVE)."""
    b, g = _start(name, variant, seed)
    while g.phase != MOVE:
        g.press("ok", "short", b.obs)
    return b, g


def test_the_mover_pressing_ok_twice_does_not_accept():
    for variant in ("long", "short"):
        b, g = _start("okok" + variant, variant, 21)
        _illegal_turn(b)
        assert g.turn_state() == ILLEGAL
        g.press("ok", "short", b.obs)            # the mover ends the turn anyway
        assert g.turn_state() == ACCEPT and g.awaiting_accept()
        assert not g.press("ok", "short", b.obs)  # again: nothing is accepted
        assert not g.press("ok", "short", b.obs)
        assert g.phase == MOVE and not _records(b, "turn")
        assert g.message == (None, "opponent: hold OK to accept")
        assert g.press("ok", "long", b.obs)       # the opponent holds OK: accepted
        turns = _records(b, "turn")
        assert g.phase == ROLL and len(turns) == 1
        assert turns[0]["accepted"] and turns[0]["rule"], turns
        b.close()


def test_back_on_the_prompt_takes_the_move_back():
    b, g = _start("takeback", "short", 23)
    pos, bad = _illegal_turn(b, small=True)
    g.press("ok", "short", b.obs)
    assert g.turn_state() == ACCEPT
    g.press("back", "short", b.obs)
    assert g.turn_state() == TAKE_BACK and g.phase == MOVE
    assert not g.press("ok", "short", b.obs) and not _records(b, "turn")
    # the mover puts the checker back and plays a legal turn
    b.show(pos)
    assert g.turn_state() not in (ACCEPT, TAKE_BACK) and g.warning() is None
    v = g.variant
    steps = v.legal_turns(pos, g.dice)[0][0]
    cur = pos
    for st in steps:
        b.show(cur, hand=(cur.turn, st[0]))
        cur = v.apply_step(cur, st)
        b.show(cur)
    if g.phase == MOVE:
        g.press("ok", "short", b.obs)
    turns = _records(b, "turn")
    assert len(turns) == 1 and not turns[0]["accepted"], turns
    b.close()


def test_an_impossible_board_is_never_accepted_by_a_short_ok():
    # the mover moves one of the opponent's checkers: nothing the rules explain
    b, g = _moving("opp", "long", 25)
    v = g.variant
    pos = g.pos
    opp = 1 - pos.turn
    moved = pos.copy()
    moved.side(opp)[1] -= 1
    moved.side(opp)[2] += 1
    b.show(moved)
    assert g.tracker.state != 6        # not done
    for _ in range(3):
        g.press("ok", "short", b.obs)
    assert g.phase == MOVE and not _records(b, "turn")
    assert g.awaiting_accept() and g.warning() is not None
    rule = g.warning()[0]
    assert [w["rule"] for w in _records(b, "warn")][-1:] == [rule]
    assert g.press("ok", "long", b.obs)
    turns = _records(b, "turn")
    assert len(turns) == 1 and turns[0]["accepted"] and turns[0]["rule"] == rule, turns
    assert g.phase == ROLL
    del v
    b.close()


def test_manual_dice_entry():
    b = Board("manual", seed=4, settings={"variant": "long", "dice": "manual"})
    g = b.g
    g.new_match()
    b.show(g.pos)
    g.press("ok", "short", b.obs)        # opening roll stays electronic
    assert g.phase == ROLL
    g.press("ok", "short", b.obs)
    assert g.phase == "entry"
    for name in ("back", "back", "back", "back", "back", "ok", "back", "back", "back",
                 "back", "ok"):
        g.press(name, "short", b.obs)
    assert g.phase == MOVE and g.dice == (6, 5)
    b.close()


def test_out_of_sync_legal_result_ends_with_a_short_ok():
    # a legal result the tracker could not follow step by step (forced: the board
    # shows a legal turn's result while the tracker says SYNC): OK records it, not
    # as an accepted illegal turn, and asks no one
    from nardy.tracker import SYNC
    b, g = _moving("synclegal", "short", 27)
    v = g.variant
    steps, final = v.legal_turns(g.pos, g.dice)[0]
    b.show(final)
    t = g.tracker
    t.state = SYNC
    t.diffs = [(1, 0, 1, 0)]
    assert not g.awaiting_accept()
    assert g.press("ok", "short", b.obs)
    turns = _records(b, "turn")
    assert len(turns) == 1 and not turns[0]["accepted"] and turns[0]["rule"] is None
    assert g.phase == ROLL
    b.close()


def test_every_tracker_event_kind_has_one_meaning():
    from nardy import tracker
    kinds = [getattr(tracker, n) for n in dir(tracker) if n.startswith("EV_")]
    assert len(kinds) == len(set(kinds)) == 10
    # steps and the turn are read from the tracker's state, the rest are dispatched
    read_from_state = {tracker.EV_STEP, tracker.EV_UNDO, tracker.EV_TURN}
    assert set(Game._ON_EVENT) == set(kinds) - read_from_state


def test_drained_events_become_protocol_events():
    from nardy import tracker
    b, g = _moving("evts", "long", 3)
    try:
        sent = []
        g.emit = sent.append
        t = g.tracker
        t.events = [(tracker.EV_LIFT, (24,), (18, 19)), tracker._CLEAR,
                    (tracker.EV_SYNC, [(3, 0, 1, 0)]), tracker._RESYNC,
                    (tracker.EV_STEP, (1, 7))]
        g.follow_tracker(b.obs)
        assert t.events == []
        assert sent == [{"ev": "lift", "zones": [24], "targets": [18, 19]},
                        {"ev": "warn", "clear": True},
                        {"ev": "sync", "diffs": [[3, 0, 1, 0]]},
                        {"ev": "sync", "diffs": []}], sent
    finally:
        b.close()


def _rolled(name, variant, dice, layout=None, pos=None):
    """A game in MOVE with ``dice`` (loaded into the board's dice), from ``pos``
    (white to move) or the start; ``layout``: the sensors' slots."""
    b = Board(name, settings={"variant": variant, "match": 1})
    g = b.g
    if layout is not None:
        g.layout = layout
        b.obs = Obs(layout)
    g.new_match()
    b.show(g.pos)
    g.dice_src.load([6, 1] + list(dice))          # opening: white first, then dice
    g.press("ok", "short", b.obs)
    assert g.phase == ROLL and g.pos.turn == WHITE
    if pos is not None:
        g.pos = pos
        b.show(pos)
    g.press("ok", "short", b.obs)
    assert g.phase == MOVE and g.dice == tuple(dice), (g.phase, g.dice)
    return b, g


def test_a_turn_whose_last_die_cannot_be_played_is_done_and_ok_ends_it():
    # issue 21 (C5): the dice left cannot be played, so the turn waits for OK
    # (TURN_DONE), not for a 6 to play. Short nardy: two on the bar, 6-1, black holds
    # white's 6-point; after the 1 enters, the 6 cannot. Long nardy: 6-2, black's
    # checkers six points past each of white's: after the 2, the 6 is blocked.
    from nardy.game import TURN_DONE
    cases = (("short", (6, 1), {0: 2, 12: 10, 17: 3}, {19: 2, 1: 13}, (0, 1), 17),
             ("long", (6, 2), {1: 13, 3: 2}, {7: 2, 9: 2, 10: 6, 19: 3, 21: 1, 23: 1},
              (3, 5), 5))
    for variant, dice, white, black, step, other in cases:
        pos = _position(white, black)
        b, g = _rolled("deadsix", variant, dice, pos=pos)
        try:
            v = g.variant
            assert g.turn_state() == PLAYING
            b.show(pos, hand=(WHITE, step[0]))
            p1 = v.apply_step(pos, step)
            b.show(p1)
            assert g.tracker.played == (step,) and g.left() == [6], variant
            assert g.turn_state() == TURN_DONE, variant
            b.show(p1, hand=(WHITE, other))       # lifted: a step being tried
            assert g.turn_state() != TURN_DONE
            b.show(p1)
            assert g.press("ok", "short", b.obs)
            assert g.phase == ROLL and g.pos.turn == BLACK
            assert _records(b, "turn")
        finally:
            b.close()


def test_back_while_playing_changes_nothing():
    b, g = _rolled("backplay", "short", (6, 5))
    try:
        v = g.variant
        pos = g.pos
        b.show(v.apply_step(pos, (1, 7)))
        played = g.tracker.played
        assert played == ((1, 7),) and g.turn_state() == PLAYING
        assert g.press("back", "short", b.obs)
        assert g.tracker.played == played and g.turn_state() == PLAYING
        assert g.phase == MOVE and g.pos is pos
    finally:
        b.close()


def test_back_cycles_the_candidates_and_ok_takes_the_one_shown():
    # one sensor per point: two checkers fill a point's view, so 1/3 and 2/3 look alike
    pos = Position(turn=WHITE)
    pos.side(WHITE)[1] = 12
    pos.side(WHITE)[2] = 3
    pos.side(BLACK)[1] = 15
    b, g = _rolled("cands", "long", (2, 1), Layout(1), pos)
    try:
        v = g.variant
        a = v.apply_step(pos, (1, 3))
        b.show(a)
        g.press("ok", "short", b.obs)
        assert g.turn_state() == CONFIRM and len(g.tracker.candidates) == 2
        cands = [c[1] for c in g.tracker.candidates]
        assert sorted(c.key() for c in cands) == sorted(
            [a.key(), v.apply_step(pos, (2, 3)).key()])
        assert g.cand_i == 0
        g.press("back", "short", b.obs)
        assert g.cand_i == 1
        g.press("back", "short", b.obs)
        assert g.cand_i == 0                      # round again
        g.press("back", "short", b.obs)
        g.press("ok", "short", b.obs)             # takes candidate 1 ...
        t = g.tracker
        assert t.candidates == [] and t.hyps[0][1][-1].key() == cands[1].key()
        # ... a one-step turn with the 1 still playable (C4): the opponent decides
        assert g.turn_state() == ACCEPT, g.turn_state()
    finally:
        b.close()


def test_back_steps_through_the_differences_out_of_sync():
    b, g = _rolled("diffs", "short", (6, 5))
    try:
        v = g.variant
        pos = g.pos
        # a white checker from its 6-point into black's tray and a black one in
        # white's: nothing explains that
        b.obs.show(v, pos, hand=(WHITE, 6))
        b.obs.vis_w[ZONE_OFF_B] = 1
        b.obs.vis_b[ZONE_OFF_W] = 1
        g.observe(b.obs)
        t = g.tracker
        assert g.turn_state() == SYNC
        assert (ZONE_OFF_B, WHITE, 0, 1) in t.diffs and len(t.diffs) >= 2, t.diffs
        seen = [t.diff()]
        for _ in range(len(t.diffs)):
            g.press("back", "short", b.obs)
            seen.append(t.diff())
        assert sorted(seen[:-1]) == t.diffs       # each difference shown once ...
        assert seen[-1] == seen[0]                # ... then round again
        assert g.turn_state() == SYNC
    finally:
        b.close()


def test_a_new_match_makes_the_same_tracker_again():
    # heap (issue 14): one Tracker object a boot, made again for each game, so its
    # ~1 KB attribute table is not allocated at ``new`` on a fragmented heap (the
    # 56wK soak's MemoryError in ``new``); nothing of the old game is left in it
    b, g = _moving("tracker_again", "short", 11)
    t = g.tracker
    assert t.hyps and t.v is g.variant
    g.new_match("long")
    assert g.tracker is t and t.v is g.variant and g.variant.name == "long"
    assert t.hyps == [] and t._next_cache == {} and t.pos0 is None
    b.show(g.pos)
    g.press("ok", "short", b.obs)          # the opening roll, then a turn as usual
    while g.phase != MOVE:
        g.press("ok", "short", b.obs)
    assert g.tracker is t and t.pos0 is not None and t.mover == g.pos.turn
    b.close()


def test_a_new_match_on_a_heap_too_fragmented_for_the_variant_still_starts():
    # heap: once in CI, at 56wK, ``new`` found no 592-byte block for the new
    # variant's attribute table; the spare tracker's table then makes room, and the
    # match starts with a tracker made anew instead of failing
    import nardy.game as gm
    b, g = _moving("fragmented_new", "short", 11)
    real, calls = gm.variant_for, []

    def tight(name, opts):
        calls.append(name)
        if len(calls) == 1:
            raise MemoryError("memory allocation failed, allocating 592 bytes")
        return real(name, opts)

    gm.variant_for = tight
    try:
        old = g.tracker
        g.new_match("long")
    finally:
        gm.variant_for = real
    assert calls == ["long", "long"]
    assert g.variant.name == "long" and g.tracker is not None and g.tracker is not old
    assert g.tracker.v is g.variant
    b.show(g.pos)
    g.press("ok", "short", b.obs)          # the opening roll, then a turn as usual
    while g.phase != MOVE:
        g.press("ok", "short", b.obs)
    assert g.tracker.pos0 is not None and g.tracker.mover == g.pos.turn
    b.close()


def _position(white, black):
    p = Position(turn=WHITE)
    for c, side in ((WHITE, white), (BLACK, black)):
        for k, n in side.items():
            p.board[26 * c + k] = n
    return p


def _frame_kinds(g, zones):
    """The LED kind each zone shows (the first frame of a blink)."""
    from nardy.ui import DEFAULT_COLOURS, led_frame
    frame = led_frame(bytearray(3 * len(zones)), zones, g, 0, 255, 255)
    names = {v: k for k, v in DEFAULT_COLOURS.items()}
    return {z: names.get(tuple(frame[3 * z:3 * z + 3])) for z in zones}


def test_the_uis_words_for_the_turn_states_are_the_games():
    # nardy.ui compares with "hit" (an imported name would cost it heap)
    from nardy.game import HIT
    assert HIT == "hit"


def test_a_hit_half_done_waits_for_the_blot_on_the_bar():
    # issue 21: the hitter on the blot, the blot not yet on the bar: a step in
    # progress (OLED, LEDs), and a short OK does not end the turn halfway
    from nardy.zones import ZONE_BAR
    pos = _position({1: 3, 12: 12}, {21: 1, 23: 14})
    b, g = _rolled("hithalf", "short", (3, 1), pos=pos)
    try:
        evs = []
        emit = g.emit
        g.emit = lambda e: (evs.append(e), emit(e))
        v = g.variant
        hit = v.apply_step(pos, (1, 4))
        z = v.physical(WHITE, 4)
        b.obs.show(v, hit)
        b.obs.vis_b[ZONE_BAR] -= 1
        b.obs.vis_b[z] += 1
        g.observe(b.obs)
        assert g.turn_state() == "hit" and g.tracker.hit == z
        assert g.message == (None, "Hit: put the checker from P%d on the bar" % z)
        kinds = _frame_kinds(g, bytes(range(28)))
        assert kinds[z] == "lifted" and kinds[ZONE_BAR] == "target", kinds
        assert not g.press("ok", "short", b.obs)
        assert g.phase == MOVE and not _records(b, "turn")
        assert {"ev": "refused", "text": g.message[1]} in evs
        assert g.state()["dice"] == [3, 1]            # the dice stay after a refusal
        b.show(hit)                                    # the blot goes to the bar
        assert g.turn_state() == PLAYING and g.tracker.played == ((1, 4),)
        assert g.message is None
    finally:
        b.close()


def test_a_lifted_checker_with_no_legal_step_says_so_at_once():
    # issue 21: C6 here (a checker further back): no die bears the ace-point's off
    pos = _position({19: 3, 20: 3, 21: 3, 22: 2, 23: 2, 24: 2}, {7: 15})
    b, g = _rolled("nomove", "short", (6, 5), pos=pos)
    try:
        evs = []
        emit = g.emit
        g.emit = lambda e: (evs.append(e), emit(e))
        z = g.variant.physical(WHITE, 24)
        b.show(pos, hand=(WHITE, 24))
        assert g.turn_state() == "lifted" and g.tracker.stuck
        assert g.message == (None, "no legal move for this checker")
        lift = [e for e in evs if e["ev"] == "lift"][-1]
        assert lift["zones"] == [z] and lift["targets"] == [] and lift["no_move"]
        assert _frame_kinds(g, bytes(range(28)))[z] == "nomove"
        assert g.state()["dice"] == [6, 5]            # held: the dice stay
        b.show(pos, hand=(WHITE, 19))                  # this one may move
        assert not g.tracker.stuck and g.message is None
        assert _frame_kinds(g, bytes(range(28)))[g.variant.physical(WHITE, 19)] == "lifted"
        assert "no_move" not in [e for e in evs if e["ev"] == "lift"][-1]
    finally:
        b.close()


def test_back_on_a_wrong_step_says_which_checker_goes_back_where():
    # issue 21: BACK cannot move a checker; it says (and lights) how to take it back
    b, g = _rolled("backwrong", "short", (6, 5))
    try:
        v = g.variant
        pos = g.pos
        bad = v.apply_step(pos, (1, 4))          # 3: no die shows it
        b.show(bad)
        assert g.turn_state() == ILLEGAL
        src, dst = g.tracker.warning[2]
        assert g.press("back", "short", b.obs)
        assert g.message == (None, "take it back: the checker on P%d goes back to P%d"
                             % (dst, src))
        kinds = _frame_kinds(g, bytes(range(28)))
        assert kinds[src] == "target" and kinds[dst] in ("lifted", "illegal"), kinds
        b.show(pos)                              # taken back
        assert g.turn_state() == PLAYING and g.back_shown is None and g.message is None
        # a legal step: BACK says how to take it back as well
        p1 = v.apply_step(pos, (1, 7))
        b.show(p1)
        assert g.press("back", "short", b.obs)
        z1, z7 = v.physical(WHITE, 1), v.physical(WHITE, 7)
        assert g.message[1] == "to take a step back, put the checker on P%d back on P%d" % (
            z7, z1)
        kinds = _frame_kinds(g, bytes(range(28)))
        assert kinds[z1] == "target" and kinds[z7] == "lifted", kinds
        assert g.tracker.played == ((1, 7),)     # nothing changed by the press
    finally:
        b.close()


def test_a_refused_press_is_an_event_for_the_log():
    b = Board("refused", settings={"variant": "long", "match": 1})
    g = b.g
    try:
        evs = []
        emit = g.emit
        g.emit = lambda e: (evs.append(e), emit(e))
        g.new_match()
        g.observe(b.obs)                              # the board is empty
        assert not g.press("ok", "short", b.obs)
        assert {"ev": "refused", "text": "set up the board first"} in evs
    finally:
        b.close()


def test_a_resign_question_goes_with_the_turn_it_was_asked_in():
    # the auto-end may end the turn while "resign?" is open: the next side's OK
    # must not resign the game for the side that asked
    b = Board("resignauto", settings={"variant": "long", "match": 1, "auto_end": 1000})
    g = b.g
    try:
        g.new_match()
        b.show(g.pos)
        g.dice_src.load([6, 1, 6, 5, 4, 2])
        g.press("ok", "short", b.obs)
        g.press("ok", "short", b.obs)
        v = g.variant
        p2 = v.apply_step(v.apply_step(g.pos, (1, 7)), (7, 12))
        b.show(v.apply_step(g.pos, (1, 7)))
        b.show(p2)
        assert g.press("back", "long", b.obs) and g.resigning
        g.tick(b.obs, 1500)                       # the turn ends by itself
        assert g.phase == ROLL and not g.resigning and g.message is None
        g.press("ok", "short", b.obs)             # black rolls: no resignation
        assert g.phase == MOVE and g.result is None and g.pos.turn == BLACK
    finally:
        b.close()


def test_the_games_own_consts_are_the_trackers_states():
    # game.py keeps the tracker's states (and WHITE) as consts of its own, so they
    # take no slot in its dict; MicroPython folds them away, CPython keeps the names
    from nardy import game, rules, tracker
    if sys.implementation.name != "micropython":
        for name in ("IDLE", "VERDICT", "DONE"):
            assert getattr(game, "_" + name) == getattr(tracker, name), name
        assert game._WHITE == rules.WHITE


def test_a_state_has_one_name_one_value_and_it_is_its_word():
    # issue 24: LIFTED was 1 in the tracker and "lifted" in the game, and the game's
    # WARNED, CHOOSE and OUT_OF_SYNC were the words "illegal", "confirm" and "sync".
    # Each name is its word (the one ``dump`` sends: docs/PROTOCOL.md), the same in
    # both modules
    from nardy import game, tracker
    for name in ("IDLE", "LIFTED", "ILLEGAL", "SYNC", "CONFIRM", "VERDICT", "DONE"):
        assert getattr(tracker, name) == name.lower(), name
    for name in ("PLAYING", "LIFTED", "TURN_DONE", "ILLEGAL", "SYNC", "CONFIRM",
                 "ACCEPT", "TAKE_BACK", "HIT"):
        assert getattr(game, name) == name.lower(), name
        if hasattr(tracker, name):
            assert getattr(tracker, name) == getattr(game, name), name
