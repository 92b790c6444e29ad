"""The board as a player at the table (nardy.botplay + the hooks in nardy.game):
it rolls by itself, shows its turn (LEDs, OLED, ``bot`` event), the hands carry it
out, the turn ends by itself with the shown result and never with another one."""

import gc
import sys

from gameboard import LAYOUT, GameBoard

from nardy import botplay, protocol
from nardy.game import ENTRY, GAME_END, MATCH_END, MOVE, OPENING, ROLL, Game
from nardy.journal import Journal
from nardy.menu import Menu, defaults
from nardy.notation import parse_position_id
from nardy.rules import BLACK, WHITE
from nardy.ui import led_frame
from nardy.variants import find_variant as variant_for
from nardy.zones import ZONE_OFF_B


class Board(GameBoard):
    """A person's hands at the board (gameboard.GameBoard: game, journal, sensor view)."""

    def play_turn(self, pick=0):
        """A person's turn: OK rolls, the first legal turn is played, OK ends it."""
        g = self.g
        g.press("ok", "short", self.obs)
        if g.phase != MOVE:
            return
        _carry_out(self, g.variant.legal_turns(g.pos, g.dice)[pick][0])
        if g.phase == MOVE:
            g.press("ok", "short", self.obs)
        if g.phase == MOVE and g.tracker.state_name() == "confirm":
            g.press("ok", "short", self.obs)
        assert g.phase != MOVE, g.tracker.state_name()



def _carry_out(b, steps):
    """The hands play ``steps`` from the game's position, one checker at a time."""
    g = b.g
    v = g.variant
    pos = g.pos
    for st in steps:
        b.show(pos, hand=(pos.turn, st[0]))
        pos = v.apply_step(pos, st)
        b.show(pos)
        g.tick(b.obs, 0)
    return pos


def _start(name, variant, bot, seed=2):
    if bot != "none":
        # Under MicroPython at 112wK the test modules, compiled from source, leave
        # the heap in pieces: the weights (in 1.5-3 KB pieces) are read before the
        # test's own board and journal take their share (the app reads them at the
        # game's start; on the board, in ROMFS, they are not read at all).
        botplay.load(variant_for(variant, {}))
    b = Board(name, seed=seed, settings={"variant": variant, "match": 1, "bot": bot})
    g = b.g
    g.new_match()
    b.show(g.pos)
    return b, g


def test_plays_and_settings():
    assert botplay.plays("both", WHITE) and botplay.plays("both", BLACK)
    assert botplay.plays("black", BLACK) and not botplay.plays("black", WHITE)
    assert not botplay.plays("none", WHITE) and not botplay.plays("x", WHITE)
    s = defaults()
    assert s["bot"] == "none" and protocol.check_settings(s) == []
    s["bot"] = "robot"
    assert protocol.check_settings(s) == ["bot"]
    # the menu cycles the setting through every side
    s = defaults()
    m = Menu(s)
    keys = [it[0] for it in m.items()]
    m.i = keys.index("bot")
    seen = []
    for _ in range(4):
        m.press("ok")
        seen.append(s["bot"])
    assert seen == ["white", "black", "both", "none"]
    # the protocol: new ... bot, set bot; anything else refused with a reason
    assert protocol.parse('{"cmd": "new", "variant": "short", "bot": "both"}')["bot"] == "both"
    assert protocol.parse('{"cmd": "set", "bot": "white"}')["bot"] == "white"
    for bad in ('{"cmd": "new", "bot": "yes"}', '{"cmd": "set", "bot": 1}'):
        try:
            protocol.parse(bad)
        except ValueError as e:
            assert "bot must be" in str(e)
        else:
            raise AssertionError(bad)


def test_no_bot_no_engine_loaded():
    botplay.release()
    b, g = _start("nobot", "long", "none")
    g.press("ok", "short", b.obs)
    b.play_turn(pick=0)
    assert g.shown is None and not botplay.loaded()
    b.close()


def test_board_rolls_shows_and_ends_its_turn():
    b, g = _start("botblack", "long", "black")
    assert botplay.loaded(), b.error    # read at the game's start
    g.press("ok", "short", b.obs)       # the opening: a person is at the table
    assert g.phase == ROLL
    if g.pos.turn == WHITE:
        b.play_turn(pick=0)
    assert g.phase == ROLL and g.pos.turn == BLACK
    g.tick(b.obs, 0)                    # the board rolls for itself
    assert g.phase == MOVE and g.shown is not None
    sh = g.shown
    assert "bot" in b.events and g.state()["bot"]["text"] == sh.text
    assert [list(s) for s in sh.steps] == g.state()["bot"]["steps"]
    # the LEDs: the first step's source and target
    zones = bytes(range(28))
    frame = led_frame(bytearray(3 * 28), zones, g, 0, 255, 255)
    zf, zt = sh.zones[0]
    assert frame[3 * zf:3 * zf + 3] == bytes((255, 255, 0))
    assert frame[3 * zt:3 * zt + 3] == bytes((96, 0, 255))
    # OK before the move is on the board ends nothing
    assert not g.press("ok", "short", b.obs) and g.phase == MOVE
    assert sh.text in g.message[1]
    steps = sh.steps
    _carry_out(b, steps[:1])
    assert g.state()["bot"]["next"] == 1 or len(steps) == 1 or g.phase != MOVE
    _carry_out_rest(b, steps)
    # the turn ended by itself (no OK) with the shown steps
    assert g.phase == ROLL and g.pos.turn == WHITE and g.shown is None
    assert g.tracker.auto_end_ms == 0    # the person's turns end on OK (auto_end: off)
    b.close()


def _carry_out_rest(b, steps):
    g = b.g
    v = g.variant
    pos = g.tracker.position
    for st in steps[len(g.tracker.played):]:
        b.show(pos, hand=(g.pos.turn, st[0]))
        pos = v.apply_step(pos, st)
        b.show(pos)
        g.tick(b.obs, 0)


def test_another_move_is_warned_and_waits():
    b, g = _start("botwrong", "long", "white", seed=4)
    g.press("ok", "short", b.obs)
    other = None
    while other is None:
        # the first turns off the head may have one result only: play on until the
        # board's turn has a choice
        if g.pos.turn == BLACK:
            b.play_turn(pick=0)
        g.tick(b.obs, 0)
        assert g.phase == MOVE and g.shown is not None
        sh = g.shown
        for steps, res in g.variant.legal_turns(g.pos, g.dice):
            if res.board != sh.result.board:
                other = steps
                break
        else:
            _carry_out(b, sh.steps)
    after = _carry_out(b, other)
    for ms in (0, 5000, 60000):       # no stillness ends it
        g.tick(b.obs, ms)
    assert g.phase == MOVE
    w = g.warning()
    assert w is not None and sh.text in w[1]
    assert not g.press("ok", "short", b.obs) and g.phase == MOVE
    # the hands put the checkers back and carry out the board's move
    b.show(g.pos)
    g.tick(b.obs, 0)
    assert g.warning() is None and g.phase == MOVE
    assert after.board != g.pos.board
    _carry_out(b, sh.steps)
    assert g.phase == ROLL and g.pos.turn == BLACK
    b.close()


def _bot_game(name, variant, seed):
    b, g = _start(name, variant, "both", seed=seed)
    g.tick(b.obs, 0)              # both sides the board's: the opening rolls itself
    assert g.phase != OPENING
    turns = 0
    while g.phase in (ROLL, MOVE) and turns < 400:
        if g.phase == ROLL:
            g.tick(b.obs, 0)
        if g.phase == MOVE:
            _carry_out(b, g.shown.steps)
        turns += 1
    assert g.phase in (GAME_END, MATCH_END), (g.phase, turns)
    assert g.result is not None and g.result[2] >= 1
    assert not botplay.loaded()       # dropped with the game, and its modules but
    # the evaluator's: its viper code is never imported twice (never freed); CPython
    # keeps its modules (nardy.drop_module)
    if sys.implementation.name == "micropython":
        assert "nardy.bot" not in sys.modules and "nardy.evaluate" in sys.modules
    b.close()
    return turns


def test_whole_game_bot_both_long():
    assert _bot_game("bothlong", "long", 5) > 20


def test_whole_game_bot_both_short():
    assert _bot_game("bothshort", "short", 6) > 20


def test_manual_dice_the_board_asks_for_them():
    b, g = _start("botmanual", "long", "black", seed=8)
    g.settings["dice"] = "manual"
    g.press("ok", "short", b.obs)                 # the opening (electronic)
    if g.pos.turn == WHITE:
        g.press("ok", "short", b.obs)             # the person rolls: dice entry
        assert g.phase == ENTRY
        g.enter_dice((6, 5))
        _carry_out(b, g.variant.legal_turns(g.pos, g.dice)[0][0])
        g.press("ok", "short", b.obs)
    assert g.phase == ROLL and g.pos.turn == BLACK
    g.tick(b.obs, 0)                              # the board's turn: it asks
    assert g.phase == ENTRY and g.shown is None
    assert g.enter_dice((4, 2))
    assert g.phase == MOVE and g.dice == (4, 2) and g.shown is not None
    b.close()


def test_power_cut_on_the_boards_turn_shows_the_same_move():
    b, g = _start("botresume", "short", "both", seed=9)
    g.tick(b.obs, 0)                  # the opening
    if g.phase == ROLL:
        g.tick(b.obs, 0)              # (the opening dice are not played) the first roll
    assert g.phase == MOVE and g.shown is not None
    steps = g.shown.steps
    _carry_out(b, steps[:1])
    b.j.close()
    # the power cut: the old game and its engine are gone, as on the board (keeping
    # them alive beside the resumed one left a fragmented 112wK heap without the
    # block that compiling posjson from source needs): the board's own reference
    # (b.g) and the player too, not only this test's name
    b.g = g = None
    botplay.release()
    j2 = Journal(b.dir)
    j2.scan()
    g2 = Game(j2, LAYOUT, [].append, None, {"bot": "both"})
    g2.resume(j2.unfinished(), j2.records(j2.unfinished()))
    assert g2.phase == MOVE and g2.shown is not None and g2.shown.steps == steps
    assert g2.state()["bot"]["next"] == 1 or len(steps) == 1
    j2.close()
    b.j = Journal(b.dir)
    b.close()


def test_no_look_ahead_in_the_boards_turn_and_new_drops_its_engine():
    # a people's turn: while the board is still, the tracker asks the engine ahead
    # for the targets of checkers the mover may lift (the LEDs then light at once)
    b, g = _start("botlook", "long", "none")
    g.press("ok", "short", b.obs)           # the opening
    if g.phase == ROLL:
        g.press("ok", "short", b.obs)
    assert g.phase == MOVE and g.shown is None
    for _ in range(6):
        g.tick(b.obs, 0)
    assert g.tracker._targ_cache, "a person's turn warms its targets"
    b.close()
    # the board's own turn: the hands will lift the sources it shows, so nothing is
    # asked ahead (its cache would only crowd the board's search)
    b, g = _start("botlook2", "long", "both")
    if sys.implementation.name == "micropython":
        assert "nardy.netfile" not in sys.modules     # the weights' reader: read, gone
    g.tick(b.obs, 0)                          # it rolls the opening
    if g.phase == ROLL:
        g.tick(b.obs, 0)                      # and its first turn
    assert g.phase == MOVE and g.shown is not None
    for _ in range(6):
        g.tick(b.obs, 0)
    assert not g.tracker._targ_cache and not g.tracker.look_ahead
    # ``new`` in the middle of it: the abandoned game's engine goes with it
    g.settings["bot"] = "none"
    g.new_match()
    assert g.shown is None and not botplay.loaded() and g.tracker.look_ahead
    if sys.implementation.name == "micropython":
        assert "nardy.bot" not in sys.modules and "nardy.evaluate" in sys.modules
    b.close()


def test_new_reads_the_boards_player_after_the_tracker_before_the_match():
    # At 56wK the last game's room is in runs the big blocks need only until the
    # small ones take it: the tracker's table (~1 KB) first, then the player (blocks
    # of 260-512 bytes), then the match, the journal header and the rest. Read last,
    # the player found only the holes they left (2 boards in 100 failed at ``new``);
    # read before the tracker, the tracker's table failed on some boards. It is read
    # once: new_game finds it loaded.
    b = Board("botfirst", seed=3, settings={"variant": "short", "match": 1,
                                            "bot": "white"})
    g = b.g
    seen = []
    real = botplay.load

    def load(variant):
        seen.append((variant.name, g.tracker is not None, g.match is None, g.gid))
        return real(variant)

    botplay.load = load
    try:
        g.new_match()
        assert botplay.loaded()
        g.settings["bot"] = "none"
        g.new_match()                      # a game of people: no player is read
    finally:
        botplay.load = real
        b.close()
    assert seen[0] == ("short", True, True, None), seen
    assert len(seen) == 2 and seen[1][0] == "short", seen   # new_game: loaded already
    assert not botplay.loaded()


# Black (the board) bears off with 6-3 its last checker on its 2-point and one of
# eleven on its 1-point, three checkers already off: the second step takes a checker
# from a stack the sensors show as full (10 and 11 look alike) into a tray that shows
# at most 4. No sensor sees it.
_TWO_OFF = ("Sb-0000000000000000000000012c-000000000000000000000001b3", (6, 3),
            [(23, 25), (24, 25)])
# With 4-5 the checker on its 6-point goes onto the full stack on its 1-point (out of
# view) and one goes off from there into the full tray (out of view). 19/23, 23/off
# reaches the same position, so the tracker keeps both orders as it goes.
_CHAIN = ("Sb-000000000000000000020010a2-000000000000000000010000a4", (4, 5),
          [(19, 24), (24, 25)])


def _last_step_out_of_view(name, case):
    pid, dice, shown = case
    b, g = _start(name, "short", "black")
    g.dice_src.load([6, 1])                  # the opening: white (the person) first
    g.press("ok", "short", b.obs)
    assert g.phase == ROLL and g.pos.turn == WHITE
    g.pos = parse_position_id(pid)[1]
    assert g.pos.turn == BLACK and g.pos.board[26 + 24] >= 10
    assert LAYOUT.cap[24] == 10 and LAYOUT.cap[ZONE_OFF_B] == 4
    b.show(g.pos)
    g.dice_src.load(list(dice))
    g.tick(b.obs, 0)                         # the board rolls and shows its turn
    assert g.phase == MOVE and g.shown is not None
    assert list(g.shown.steps) == shown, g.shown.steps
    pos = _carry_out(b, shown[:1])
    assert g.phase == MOVE
    seen = bytes(b.obs.vis_b)
    pos = g.variant.apply_step(pos, shown[1])
    b.show(pos, hand=(BLACK, shown[1][0]))
    b.show(pos)
    assert bytes(b.obs.vis_b) == seen         # the last step changed nothing in view
    g.tick(b.obs, 0)
    assert g.phase == MOVE and len(g.tracker.played) < 2
    return b, g, pos


def test_the_boards_last_step_out_of_view_ends_its_turn_after_stillness():
    for case in (_TWO_OFF, _CHAIN):
        b, g, after = _last_step_out_of_view("bothidden", case)
        g.tick(b.obs, 2000)                  # not yet: the hands may still be moving
        assert g.phase == MOVE and g.warning() is None
        g.tick(b.obs, 3000)                  # still for 3 s: the board's move is there
        assert g.phase == ROLL and g.pos.turn == WHITE and g.shown is None
        assert g.pos.board == after.board
        b.log.flush()
        with open(b.dir + "/events.txt") as f:
            turn = [ln for ln in f if '"turn"' in ln][-1]
        assert '"steps": [[%d, %d], [%d, %d]]' % (case[2][0] + case[2][1]) in turn, turn
        b.close()


def test_the_boards_last_step_out_of_view_ends_its_turn_on_ok():
    for case in (_TWO_OFF, _CHAIN):
        b, g, after = _last_step_out_of_view("bothidden2", case)
        assert g.press("ok", "short", b.obs)
        assert g.phase == ROLL and g.pos.turn == WHITE and g.pos.board == after.board
        b.close()


def test_a_short_turn_that_no_unseen_step_completes_is_not_ended():
    # the hands stop after one step of two, in plain view: stillness ends nothing,
    # and OK still names the board's move
    b, g = _start("bothpause", "short", "black")
    g.dice_src.load([6, 1])
    g.press("ok", "short", b.obs)
    g.pos = parse_position_id("Sb-0000000000000000000000012c-000000000000000000000001b3")[1]
    g.pos.board[26 + 24] = 5                 # a stack the sensors can count
    g.pos.board[26 + 25] = 9
    b.show(g.pos)
    g.dice_src.load([6, 3])
    g.tick(b.obs, 0)
    assert g.phase == MOVE and sorted(g.shown.steps) == [(23, 25), (24, 25)]
    _carry_out(b, [(23, 25)])
    for ms in (3000, 60000):
        g.tick(b.obs, ms)
    assert g.phase == MOVE and g.tracker.played == ((23, 25),) and g.warning() is None
    assert not g.press("ok", "short", b.obs) and g.phase == MOVE
    assert g.shown.text in g.message[1]
    b.close()


def _hidden_of(path):
    """A weights file's hidden size, from its header (nardy.netfile: version 4 keeps
    the high byte in byte 11)."""
    with open(path, "rb") as f:
        head = f.read(12)
    return head[6] | (head[11] << 8 if head[4] == 4 else 0)


def test_the_board_plays_its_strongest_net_that_fits():
    # long.bin and short.bin (128 and 512 hidden units) where the heap holds them
    # with room to spare, else long-small.bin and short-small.bin (64): a plain ESP32
    # reading either into its heap has no room. The
    # chooser is a stand-in that reads only the file's header (the heap is the
    # test's subject, not the net: the real files are checked in test_duel).
    real_free = botplay._free
    freed = []      # the hidden sizes of the nets whose weights were dropped

    class Stub:
        def __init__(self, variant, path, fail=(), mapped=False):
            for name in fail:
                if path.endswith("/" + name):
                    raise MemoryError("no room for " + name)
            self.variant = variant
            self.net = self
            self.in_place = lambda: mapped
            self.hidden = _hidden_of(path)

        def free(self):
            freed.append(self.hidden)

    def hidden(variant="long", free=1 << 20, fail=(), mapped=False):
        botplay.release()           # drops nardy.bot: the one imported now is load's
        from nardy import bot as bot_module
        real_bot = bot_module.Bot
        bot_module.Bot = lambda v, path: Stub(v, path, fail, mapped)
        botplay._free = lambda: free
        try:
            return botplay.load(variant_for(variant, {})).hidden
        finally:
            bot_module.Bot, botplay._free = real_bot, real_free
            botplay.release()

    # the nets committed: long 128 units and 64; short the mean of four 128-unit nets
    # as one of 512 (weights version 4) and 64
    for game, top in (("long", 128), ("short", 512)):
        big, small = game + ".bin", game + "-small.bin"
        assert hidden(game) == top
        assert freed == [top]               # released: the weights go, not only the Bot
        del freed[:]
        assert hidden(game, free=botplay.RESERVE - 1) == 64     # it would leave too little
        # the bigger net read first is freed before the smaller is read
        assert freed == [top, 64]
        del freed[:]
        # read in place (ROMFS) it holds no heap: the smaller would leave no more room
        assert hidden(game, free=botplay.RESERVE - 1, mapped=True) == top
        assert hidden(game, fail=(big,)) == 64
        try:
            hidden(game, fail=(big, small))
        except MemoryError:
            pass
        else:
            raise AssertionError("no %s net fits, yet one was loaded" % game)
        del freed[:]


def test_a_released_net_leaves_the_heap_even_if_its_bot_is_kept():
    # MicroPython's collector is conservative: a stale word on the stack can keep a
    # dropped Bot alive (at 112wK a released 28 KB net was still in the heap when
    # the next game read its own, and that read failed). The weights go with
    # release() whatever still points at the Bot.
    botplay.release()
    kept = botplay.load(variant_for("short", {}))
    assert kept.net.parts and kept.net.w2 is not None
    gc.collect()
    before = gc.mem_free() if hasattr(gc, "mem_free") else 0
    botplay.release()
    assert kept.net.parts is None and kept.net.w2 is None and kept.net.lin is None
    if hasattr(gc, "mem_free"):
        gc.collect()
        # short.bin: 64 hidden units, 28 KB of weights (and this Bot still held)
        assert gc.mem_free() - before > 25000, gc.mem_free() - before
