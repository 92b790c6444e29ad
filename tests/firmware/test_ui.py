"""OLED screens (golden 128x64 buffers as text art under MicroPython's framebuf,
drawn strings everywhere) and LED frames."""

from apputil import rmtree
from uiutil import (
    Recorder,
    _canvas,
    _game,
    _golden,
    _illegal,
    _joined,
    _pinmap,
    _rolled,
    _texts,
    check_layout,
    framebuf,
    warning_texts,
)

from nardy.menu import Menu, defaults
from nardy.ui import draw, led_frame


def test_screens():
    g, j, d, obs = _game("ui", "short")
    t = _golden("opening", g)
    assert "Opening roll" in t and "0-0/1" in t
    g.press("ok", "short", obs)
    t = _golden("roll", g)
    assert (("White to roll" in t) or ("Black to roll" in t)), t
    g.press("ok", "short", obs)
    t = _golden("move", g)
    assert t[0] in ("White", "Black") and t[1] == "Short 0-0/1", t
    assert t[-1].startswith("to play: "), t
    # lift a checker off the head: the legal targets are named
    side = g.pos.turn
    obs.show(g.variant, g.pos, hand=(side, 1))
    g.observe(obs)
    t = _golden("lifted", g)
    assert t[-1].startswith("to P"), t
    # put it somewhere illegal: a second checker from the head, or a wrong point
    bad = _illegal(g)
    obs.show(g.variant, bad)
    g.observe(obs)
    t = _golden("warning", g)
    assert t[0].startswith("! ") and "OK: end turn" in " ".join(t), t
    # the mover ends the turn anyway: the opponent is asked
    g.press("ok", "short", obs)
    t = _golden("verdict", g)
    assert "Opponent: hold OK to accept, BACK to take back" in " ".join(t), t
    g.press("back", "long", obs)
    g.press("ok", "short", obs)             # "resigns?": yes
    t = _golden("game_end", g)
    # short nardy is backgammon: a resignation says so, in backgammon's words (S5, S6)
    loser = ("White", "Black")[g.result[0] ^ 1]
    assert t[2] == loser + " resigns", t
    assert "single game +1" in " ".join(t) and "oin" not in " ".join(t), t
    assert "Match over" in t and "OK: new match" in t, t
    assert "Short" in t
    j.close()
    rmtree(d)


def _paired(name, me, peer, side):
    """A short game on a board set for remote play (no broker needed to draw it)."""
    return _game(name, "short", settings={"mqtt": {
        "host": "127.0.0.1", "port": 1883, "prefix": "nardy", "id": me, "peer": peer,
        "side": side}})


def test_a_roll_made_on_the_other_board_says_so():
    """Remote play: OK rolls only what is rolled here. The opening (C2) is rolled on
    the board whose id sorts first, each side's turns on that side's board; the
    screen says where instead of "OK: roll the dice"."""
    g, j, d, obs = _paired("uipeer_b", "b-black", "a-white", "black")
    t = " ".join(_golden_texts(g))
    assert "rolled on a-white" in t and "OK: one die each" not in t, t
    j.close()
    rmtree(d)
    g, j, d, obs = _paired("uipeer_a", "a-white", "b-black", "white")
    t = " ".join(_golden_texts(g))
    assert "OK: one die each" in t and "rolled on" not in t, t
    g.phase = "roll"                        # a turn's roll: whose side is to move
    for turn, want in ((0, "OK: roll the dice"), (1, "rolled on b-black")):
        g.pos.turn = turn
        t = _golden_texts(g)
        assert ("White", "Black")[turn] + " to roll" in t and want in t, t
    j.close()
    rmtree(d)


def _golden_texts(g):
    boxes = []
    draw(Recorder(), g, None, boxes=boxes)
    check_layout(boxes)
    return _texts(boxes)


def test_all_dice_played_says_end_turn():
    g, j, d, obs = _game("uidone", "long")
    g.press("ok", "short", obs)
    g.press("ok", "short", obs)
    v = g.variant
    steps = v.legal_turns(g.pos, g.dice)[0][0]
    pos = g.pos
    for st in steps:
        obs.show(v, pos, hand=(pos.turn, st[0]))
        g.observe(obs)
        pos = v.apply_step(pos, st)
        obs.show(v, pos)
        g.observe(obs)
    assert g.phase == "move" and not g.left()
    t = _golden("turn_done", g)
    assert "All dice played" in t and "OK: end turn" in t, t
    j.close()
    rmtree(d)


def test_a_die_that_cannot_be_played_says_end_turn_not_to_play():
    # issue 21: two white checkers on the bar, 6-1, black holds white's 6-point: one
    # enters with the 1; the other cannot enter with the 6 (C5), which is lost. The
    # screen said "to play: 6" although OK ends the turn.
    from nardy.game import TURN_DONE
    from nardy.rules import BLACK, WHITE, Position
    g, j, d, obs = _game("uidead", "short")
    v = g.variant
    g.dice_src.load([6, 1, 6, 1])             # the opening (white starts), the roll
    g.press("ok", "short", obs)
    pos = Position(turn=WHITE)
    for c, k, n in ((WHITE, 0, 2), (WHITE, 12, 13), (BLACK, 19, 2), (BLACK, 1, 13)):
        pos.board[26 * c + k] = n
    assert v.physical(BLACK, 19) == v.physical(WHITE, 6)
    g.pos = pos
    g.observe(obs.show(v, pos))
    g.press("ok", "short", obs)
    assert g.phase == "move" and g.dice == (6, 1)
    g.observe(obs.show(v, pos, hand=(WHITE, 0)))
    g.observe(obs.show(v, v.apply_step(pos, (0, 1))))
    assert g.tracker.played == ((0, 1),) and g.left() == [6]
    assert g.turn_state() == TURN_DONE
    boxes = []
    draw(Recorder(), g, boxes=boxes)
    check_layout(boxes)
    shown = _joined(boxes)
    assert "cannot play: 6" in shown and "OK: end turn" in shown, shown
    assert "to play" not in shown, shown
    j.close()
    rmtree(d)


def test_menu_screen_and_changes():
    s = defaults()
    m = Menu(s, cap=16)
    boxes = []
    m.draw(Recorder(), boxes)
    t = _texts(boxes)
    assert t[0] == "Settings" and t[1].startswith(">Game") and t[1].endswith("long"), t
    check_layout(boxes)
    assert m.press("ok") and s["variant"] == "short"
    m.press("back")                    # "Board plays": right under the game
    m.press("ok")
    assert s["bot"] == "white"
    m.press("back")
    m.press("ok")
    assert s["match"] == 3
    while m.items()[m.i][0] != "brightness":
        m.press("back")
    m.press("ok")
    assert s["brightness"] == 32 and m.items()[m.i][2] == "32*"   # above the cap: marked
    g, j, d, obs = _game("uimenu")
    _golden("menu", g, m)
    # every item of both variants: laid out, and its whole name readable
    for variant in ("long", "short"):
        s["variant"] = variant
        for k in range(len(m.items())):
            m.i = k
            boxes = []
            m.draw(Recorder(), boxes)
            check_layout(boxes)
            shown = _joined(boxes)
            assert m.items()[k][1].replace("_", " ") in shown, (k, shown)
    j.close()
    rmtree(d)
    assert not m.press("menu")


def test_sync_guidance_screen():
    g, j, d, obs = _game("uisync")
    pos = g.pos.copy()
    pos.side(0)[1] -= 3
    pos.side(0)[25] += 3
    obs.show(g.variant, pos)
    g.observe(obs)
    t = " ".join(_golden("sync", g))
    # the head (12 of 15) still fills its slots; the three extra in the tray show
    assert "3 on wrong points" in t and "Fix W off: white 0, sees 3" in t, t
    assert "roll anyway" not in t, t
    j.close()
    rmtree(d)


def test_empty_board_guides_the_setup():
    pm = _pinmap()
    g, j, d, obs = _game("uisetup")
    empty = g.pos.copy()
    for i in range(52):
        empty.board[i] = 0
    obs.show(g.variant, empty)
    g.observe(obs)
    t = " ".join(_golden("setup", g))
    # a head shows ten at most, but an empty one surely needs all fifteen
    assert "Set up board" in t and "To place: white 15, black 15" in t, t
    assert "roll anyway" not in t, t
    frame = bytearray(3 * pm.led_count)
    led_frame(frame, pm.led_zones, g, 0, 255, 255)
    lit = [pm.led_zones[i] for i in range(pm.led_count) if frame[3 * i:3 * i + 3] ==
           bytes((255, 255, 255))]
    assert sorted(lit) == [12, 24], lit          # the two heads still need checkers
    # all but one checker placed: a distrusted sensor may be overruled
    one = g.pos.copy()
    one.side(0)[1] -= 1
    one.side(0)[2] += 1
    obs.show(g.variant, one)
    g.observe(obs)
    boxes = []
    draw(Recorder(), g, boxes=boxes)
    assert "hold OK: roll anyway" in _joined(boxes), _joined(boxes)
    j.close()
    rmtree(d)


def test_led_frame_cap_and_content():
    pm = _pinmap()
    g, j, d, obs = _rolled("uileds")
    side = g.pos.turn
    obs.show(g.variant, g.pos, hand=(side, 1))
    g.observe(obs)
    frame = bytearray(3 * pm.led_count)
    led_frame(frame, pm.led_zones, g, 0, 255, pm.led_max)
    assert max(frame) == pm.led_max            # capped by the pin map
    head = g.variant.physical(side, 1)
    i = head - 1                               # P-points are chain positions 0..23
    assert frame[3 * i:3 * i + 3] == bytes((16, 160 * 16 // 255, 0))   # lifted: amber
    lit = [k // 3 + 1 for k in range(0, 72, 3) if frame[k + 1] and not frame[k]]
    assert sorted(lit) == sorted(g.tracker.targets), (lit, g.tracker.targets)
    led_frame(frame, pm.led_zones, g, 0, 4, pm.led_max)
    assert max(frame) <= 4
    j.close()
    rmtree(d)


def test_illegal_step_blinks():
    pm = _pinmap()
    g, j, d, obs = _rolled("uiblink")
    bad = _illegal(g)
    obs.show(g.variant, bad)
    g.observe(obs)
    assert g.warning() is not None
    frame = bytearray(3 * pm.led_count)
    zones = g.warning()[2]
    on = led_frame(frame, pm.led_zones, g, 300, 255, 255)
    red = [i for i in range(pm.led_count) if on[3 * i] == 255 and not on[3 * i + 1]]
    assert sorted(pm.led_zones[i] for i in red) == sorted(zones)
    off = led_frame(bytearray(3 * pm.led_count), pm.led_zones, g, 0, 255, 255)
    assert not [i for i in range(pm.led_count) if off[3 * i] == 255 and not off[3 * i + 1]]
    # the mover ends the turn: the verdict on the whole turn names no point, so the
    # turn's own points keep blinking while the opponent decides
    g.press("ok", "short", obs)
    assert g.awaiting_accept() and not g.warning()[2]
    on = led_frame(frame, pm.led_zones, g, 300, 255, 255)
    red = [i for i in range(pm.led_count) if on[3 * i] == 255 and not on[3 * i + 1]]
    assert sorted(pm.led_zones[i] for i in red) == sorted(g.turn_zones()) == sorted(zones)
    j.close()
    rmtree(d)


def test_every_warning_fits_whole():
    from nardy.game import ACCEPT, ILLEGAL, TAKE_BACK
    from nardy.tracker import IDLE, VERDICT
    texts = warning_texts()
    rules_seen = [r for r, _ in texts if r]
    assert "L3" in rules_seen and "C5" in rules_seen and "S3" in rules_seen, texts
    assert len(texts) >= 14, texts
    g, j, d, obs = _game("uiwarn", "long")
    g.press("ok", "short", obs)
    g.press("ok", "short", obs)
    assert g.phase == "move"
    t = g.tracker
    fb = _canvas()[0] if framebuf is not None else None
    prompts = {ILLEGAL: "OK: end turn", ACCEPT: "Opponent: hold OK to accept",
               TAKE_BACK: "must play a legal turn"}
    for rule, text in texts:
        if rule is None:
            continue
        for state, refused in ((ILLEGAL, False), (VERDICT, False), (VERDICT, True)):
            t.state = state
            t.warning = (rule, text, (24, 18))
            g.refused = refused
            boxes = []
            draw(fb if fb is not None else Recorder(), g, boxes=boxes)
            check_layout(boxes, fb)
            shown = _joined(boxes)
            assert ("! " + rule) in _texts(boxes), (rule, boxes)
            assert text in shown, (text, shown)          # the whole reason, at once
            assert prompts[g.turn_state()] in shown, (g.turn_state(), shown)
    t.state = IDLE
    t.warning = None
    g.refused = False
    # hints and messages on the other screens: whole as well
    for rule, text in texts:
        for phase in ("move", "roll"):
            g.phase = phase
            g.message = (rule, text)
            boxes = []
            draw(Recorder(), g, boxes=boxes)
            check_layout(boxes)
            assert text in _joined(boxes), (phase, text, _joined(boxes))
    j.close()
    rmtree(d)


def test_the_oled_names_the_sensing_zones():
    # oled.py keeps nardy.sensing's zone numbers as consts of its own (an imported
    # name is a slot in its module's dict): they must stay the same
    from nardy.oled import zone_name
    from nardy.zones import ZONE_BAR, ZONE_OFF_B, ZONE_OFF_W
    assert [zone_name(z) for z in (ZONE_BAR, ZONE_OFF_W, ZONE_OFF_B, 24, 1)] == \
        ["bar", "W off", "B off", "P24", "P1"]
