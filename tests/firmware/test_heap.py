"""Modules needed only now and then are not kept on the heap (56wK with the code in
flash has no room for them beside a game): the move service while a game's variant
is made, the menu while it is closed. (Runs under CPython and unix MicroPython; only
MicroPython drops modules, CPython keeps them.)"""

import gc
import sys

from nardy import drop_module
from nardy.app import App
from nardy.game import SETUP, variant_for

MICROPYTHON = sys.implementation.name == "micropython"


def test_making_a_variant_leaves_no_registry_behind():
    v = variant_for("long", {})
    assert v.name == "long"
    if MICROPYTHON:
        assert "nardy.posjson" not in sys.modules
        assert "nardy.variants" not in sys.modules    # the registry imports both games
        # the other variant's module is not kept either; the one in play is (its
        # class lives with the game: imported again, it would be made twice)
        assert "nardy.shortnardy" not in sys.modules
        assert sys.modules["nardy.longnardy"].LongNardy is type(v)
    assert v.legal_turns(v.start_position(), (6, 5))
    s = variant_for("short", {})
    assert s.name == "short"
    if MICROPYTHON:
        assert "nardy.longnardy" not in sys.modules     # the new game's only
        assert sys.modules["nardy.shortnardy"].ShortNardy is type(s)
    assert len(s.legal_turns(s.start_position(), (6, 5))) == 7
    assert v.legal_turns(v.start_position(), (6, 5))    # the long game still plays
    try:
        variant_for("tavla", {})
    except ValueError as e:
        assert "variant" in str(e)
    else:
        raise AssertionError("an unknown variant was accepted")
    if MICROPYTHON:
        assert "nardy.variants" not in sys.modules    # dropped on an error too


def test_protocol_checks_options_without_keeping_the_registry():
    # (the refusal itself: test_variants)
    from nardy import protocol
    v = variant_for("long", {})                 # the game in play
    line = '{"cmd": "new", "variant": "%s", "options": {"home_mars": true}}'
    assert protocol.parse(line % "long")
    assert protocol.parse(line.replace("home_mars", "opening_dice_played") % "short")
    if MICROPYTHON:
        # the game in play's module stayed loaded: its class was not made a second
        # time (at ``new``, with the board's player still loaded, 56wK had no room)
        assert sys.modules["nardy.longnardy"].LongNardy is type(v)
        assert "nardy.shortnardy" not in sys.modules
    refused = None
    try:
        protocol.parse(line % "short")
    except ValueError as e:
        refused = str(e)
    assert refused is not None and "home_mars" in refused
    if MICROPYTHON:
        assert "nardy.variants" not in sys.modules
        assert "nardy.setcheck" not in sys.modules      # dropped on an error too
    assert protocol.parse('{"cmd": "set", "lang": "ru", "auto_end": 500}')
    if MICROPYTHON:
        assert "nardy.setcheck" not in sys.modules
    from nardy import setcheck, variants
    assert setcheck.VARIANTS == variants.NAMES
    drop_module("nardy.setcheck")


def test_drop_module_forgets_the_module_and_the_package_attribute():
    import nardy
    from nardy import lines
    assert lines.TOO_LONG is not None
    drop_module("nardy.lines")
    if MICROPYTHON:
        assert "nardy.lines" not in sys.modules
        assert "lines" not in nardy.__dict__
    drop_module("nardy.lines")          # twice: nothing to do, no error
    from nardy import lines as again
    assert again.TOO_LONG == lines.TOO_LONG


class _Pinmap:
    led_max = 128


class _Board:
    pinmap = _Pinmap()


class _Game:
    phase = SETUP
    resigning = False

    def __init__(self):
        self.new = 0

    def new_match(self):
        self.new += 1


class _AppStub:
    """What ``App.button`` uses while the menu opens and closes."""

    def __init__(self):
        self.board = _Board()
        self.game = _Game()
        self.menu = None
        self.have_obs = False
        self.sensing = None
        self.drawn = 0
        self.saved = 0
        self.settings = {"variant": "long", "match": 1, "options": {"long": {}, "short": {}},
                         "brightness": 16, "dice": "auto"}

    def save_settings(self):
        self.saved += 1

    close_menu = App.close_menu


def test_the_menu_is_on_the_heap_only_while_open():
    app = _AppStub()
    App.button(app, "menu", "short")
    assert app.menu is not None
    assert "nardy.menu" in sys.modules
    App.button(app, "ok", "short")               # the first item: the variant
    assert app.settings["variant"] == "short"
    App.button(app, "menu", "short")             # closes it, saves
    assert app.menu is None
    assert app.saved == 1
    gc.collect()
    if MICROPYTHON:
        assert "nardy.menu" not in sys.modules
    App.button(app, "menu", "short")             # opens again: imported again
    assert app.menu is not None
    App.button(app, "menu", "short")
    assert app.saved == 2 and app.game.new == 0


class _BootBoard:
    """What ``App`` needs at boot, without a display or USB."""

    virtual = True

    def __init__(self):
        from nardy.pinmap import load
        here = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
        self.pinmap = load(here + "/../../firmware/pinmap/esp32s3.json")
        self.events = []

    def out(self, obj):
        self.events.append(obj)

    def flash_free(self):
        return -1

    def urandom(self, n):
        import os
        return os.urandom(n)


def test_the_boot_code_is_dropped_after_boot():
    import os
    import time
    path = "/tmp/nardy-heaptest-%d" % (time.ticks_ms() if hasattr(time, "ticks_ms")
                                       else int(time.time() * 1000))
    os.mkdir(path)
    with open(path + "/settings.json", "w") as f:
        f.write('{"variant": "short", "match": 300, "brightness": 40}')
    b = _BootBoard()
    try:
        app = App(b, path)
        app.boot()
        # the App lives through every game: 17 attributes fill a 17-slot dict, an
        # 18th (``busy``, which nothing read) made it 23 slots, 96 bytes more
        assert len(app.__dict__) <= 17, sorted(app.__dict__)
        # the settings were read (a bad match length gets its default) and reported
        assert app.settings["variant"] == "short"
        assert app.settings["brightness"] == 40
        assert app.settings["match"] == 1
        assert [e for e in b.events if e["ev"] == "error" and "match" in e["error"]]
        assert b.events[-1]["ev"] == "hello"
        if MICROPYTHON:
            # what boot asked once (the calibration and its file's parser, the
            # options' defaults from the variants registry and both games, the
            # settings' checks) is gone too
            for m in ("calibration", "calibfile", "variants", "longnardy", "shortnardy",
                      "menu", "setcheck"):
                assert "nardy." + m not in sys.modules, m
        app.game.new_match()
        st = app.game.state()                   # dump: the position as JSON
        assert st["variant"] == "short" and st["position"]["turn"] in ("white", "black")
        # a host command is answered by the command table; with the code in flash
        # (as from ROMFS) the table is on the heap only while a command runs, and
        # ping, the host's most frequent line, does not need it
        from nardy import code_in_flash
        assert app.drop_cmds == code_in_flash()
        app.drop_cmds = True
        drop_module("nardy.appcmds")
        app.line_in(b'{"cmd": "ping", "id": 7}')
        assert b.events[-1] == {"ev": "pong", "id": 7}
        if MICROPYTHON:
            assert "nardy.appcmds" not in sys.modules
        app.line_in(b'{"cmd": "dump"}')
        assert b.events[-1]["ev"] == "dump" and b.events[-1]["variant"] == "short"
        if MICROPYTHON:
            assert "nardy.appcmds" not in sys.modules
            assert "nardy.posjson" not in sys.modules
            assert "nardy.gamestate" not in sys.modules     # Game.state's code
            assert "nardy.appboot" not in sys.modules
            assert "nardy.menu" not in sys.modules
    finally:
        for d in (path + "/journal", path):
            for n in os.listdir(d):
                if d == path and n == "journal":
                    continue
                os.remove(d + "/" + n)
            os.rmdir(d)


def test_a_still_turn_ticks_without_allocating():
    # The scan task calls Game.tick every cycle: in a turn where nothing moves it
    # must allocate nothing, or the collector runs (~40 ms on the ESP32) in the
    # middle of a still turn. (It built a tuple for ``phase in (ROLL, OPENING)``:
    # 32 bytes a scan.)
    from gameboard import GameBoard

    from nardy.game import MOVE
    b = GameBoard("tick-alloc", seed=3, settings={"variant": "short"})
    try:
        g = b.g
        g.new_match()
        b.show(g.pos)
        while g.phase != MOVE:
            g.press("ok", "short", b.obs)
        b.show(g.pos)
        for _ in range(300):        # the tracker asks its targets ahead, then rests
            g.tick(b.obs, 0)
        if not MICROPYTHON:
            return                  # CPython: allocation is checked under MicroPython
        gc.collect()
        before = gc.mem_alloc()     # pyright: ignore[reportAttributeAccessIssue]
        for _ in range(200):
            g.tick(b.obs, 0)
        grown = gc.mem_alloc() - before  # pyright: ignore[reportAttributeAccessIssue]
        assert grown == 0, grown
        assert g.phase == MOVE
    finally:
        b.close()


class _FullDict(dict):
    """A cache whose table cannot grow any more (a fragmented heap)."""

    def __setitem__(self, key, value):
        raise MemoryError("memory allocation failed, allocating 464 bytes")


def test_a_cache_that_cannot_grow_does_not_crash_the_scan():
    # The tracker asks the engine ahead for a checker's targets while nothing moves
    # and keeps the answer; on a fragmented 56-58wK heap the cache's dict could not
    # grow, and the MemoryError crashed the scan task. The answer is still given.
    from nardy.longnardy import LongNardy
    from nardy.tracker import Tracker
    from nardy.zones import Layout
    v = LongNardy()
    t = Tracker(v, Layout(5))
    pos = v.start_position()
    t.start_turn(pos, (6, 5))
    t._targ_cache = _FullDict()
    assert sorted(t._targets((), 1)) == [6, 7, 12]      # 1-6, 1-7 and 1-7-12
    assert len(t._targ_cache) == 0
    # the same for the partial turn's next steps (a 272-byte table in a bot-both soak)
    t._next_cache = _FullDict()
    assert sorted(t.next_steps(())) == sorted(v.next_steps(pos, (6, 5), ()))
    assert len(t._next_cache) == 0


def test_the_game_and_oled_modules_and_the_sensing_class_keep_their_dicts_small():
    # A MicroPython dict is a table of prime size that grows only when full, to the
    # next prime (47 -> 59, 11 -> 17: 16 bytes a slot here). The oled module's names
    # and the game module's, and the Sensing class's methods fill 47, 47 and 11: one
    # more costs the 56wK heap 192 (96) bytes, for good.
    import nardy.game
    import nardy.oled
    from nardy.sensing import Sensing
    if MICROPYTHON:
        assert len(nardy.oled.__dict__) <= 47, sorted(nardy.oled.__dict__)
        assert len(nardy.game.__dict__) <= 47, sorted(nardy.game.__dict__)
        assert len(Sensing.__dict__) <= 11, sorted(Sensing.__dict__)
        # the Game class's methods fill 46 of 47 slots too: its public surface for
        # the board's player (issue 24) renamed methods, it added none
        from nardy.game import Game
        assert len(Game.__dict__) <= 47, sorted(Game.__dict__)


def test_the_commands_module_keeps_its_dict_within_12_slots():
    # With the code in flash the app imports nardy.appcmds for each host command and
    # drops it after: its globals' dict is allocated anew each time. 22 names made it
    # 23 slots (368 bytes), a block a 56wK board with its player loaded lacked at
    # ``new`` ("new failed: allocating 368 bytes"), and 17 slots (272 bytes) were
    # lacking there too, once the App's dict shrank; 12 names take 12 slots (192).
    import nardy.appcmds
    names = nardy.appcmds.__dict__
    if MICROPYTHON:
        assert len(names) <= 12, sorted(names)
    # both runs: MicroPython adds __name__ and __file__ to the module's own names
    # and folds out its _NAME = const(...) lines
    own = [n for n in names if not n.startswith("__") and not n[1:2].isupper()]
    assert len(own) <= 10, sorted(own)


def test_the_app_and_zonefit_modules_keep_their_dicts_within_23_slots():
    # nardy.app and nardy.zonefit stay loaded through every game: 24 names made
    # each dict 29 slots, 96 bytes more than 23 at 56wK (``sys``, used only to log
    # a crash, and ``Position``, used only by observed_position, are imported there).
    import nardy.app
    import nardy.zonefit
    names = nardy.app.__dict__
    if MICROPYTHON:
        assert len(names) <= 23, sorted(names)
        assert len(nardy.zonefit.__dict__) <= 23, sorted(nardy.zonefit.__dict__)
    own = [n for n in names if not n.startswith("__") and not n[1:2].isupper()]
    assert len(own) <= 18, sorted(own)
    assert "Position" not in nardy.zonefit.__dict__


def test_the_resident_package_dicts_hold_only_what_they_must():
    # issue 24: the layering's leaf (nardy.zones) and the package itself stay small:
    # each name is a 16-byte slot (64-bit) of a dict that grows 12/17/23/29/37 slots,
    # resident while the board runs
    import nardy
    from nardy import zones
    names = [k for k in zones.__dict__ if not k.startswith("__")]
    assert len(names) <= 14, names          # 13 terms and Layout: no const, no array
    assert "micropython" not in nardy.__dict__     # imported only to know the runtime


def test_the_rules_module_keeps_room_to_miss_in_its_dict():
    # nardy.rules stays loaded while the board runs. Its transposition table's code is
    # the module's functions (issue 24: out of the Variant class): 30 names, a 37-slot
    # dict (29 slots hold 29). Not 27 to 29 names in 29 slots either: every builtin
    # the search calls (``range``, ``len``) is looked up in this dict first and
    # missed, and a miss ends only at an empty slot; 29 of 29 (and the variant's dict
    # full too) made the engine 7% slower (bench/mp_rules.py under callgrind). So at
    # least 3 slots stay empty.
    from nardy import rules
    if MICROPYTHON:
        n = len(rules.__dict__)
        assert n <= 26 or 30 <= n <= 34, sorted(rules.__dict__)
    assert not [n for n in ("_has", "_probe", "_visit", "_grow")
                if n in rules.Variant.__dict__]


def _fragmented(size):
    """Under MicroPython, fill the heap with bytearrays of ``size`` bytes and free
    every other one: no free run is then longer than one of them. Returns what holds
    the rest (drop it and collect); under CPython, nothing to fill."""
    keep = []
    if MICROPYTHON:
        gc.collect()
        try:
            while True:
                keep.append(bytearray(size))
        except MemoryError:
            pass
        for i in range(0, len(keep), 2):
            keep[i] = None
        gc.collect()
    return keep


def _fresh_text(first, n):
    """``n`` characters from code point ``first`` on (two UTF-8 bytes each), made
    without ``chr``, which would make each one a qstr."""
    b = bytearray()
    for cp in range(first, first + n):
        b.append(0xC0 | cp >> 6)
        b.append(0x80 | cp & 0x3F)
    return bytes(b).decode()


def test_text_on_the_oled_needs_no_large_block():
    # Iterating a str makes each character a qstr (MicroPython), and a full qstr pool
    # takes a new block of 0.5-2 KB: the bot-both soak at 56wK crashed so, drawing a
    # status line. Here the heap has no free run longer than 464 bytes and the text is
    # 240 characters the firmware never met: drawn by bytes, it needs small blocks only.
    from uiutil import Recorder, framebuf

    from nardy import oled
    if MICROPYTHON:
        fb = framebuf.FrameBuffer(bytearray(1024), 128, 64, framebuf.MONO_VLSB)
    else:
        fb = Recorder()         # CPython: drawn pixel by pixel, no heap to fill
    lines = [_fresh_text(0x500 + 20 * k, 20) for k in range(12)]
    oled.small_text(fb, "ready", 0, 0)
    oled.big_text(fb, "Ход", 0, 0)          # the Cyrillic font's module, loaded once
    keep = _fragmented(448)
    try:
        for k, ln in enumerate(lines):
            oled.small_text(fb, ln, 0, 8 * (k % 8), 1)
            oled.big_text(fb, ln[:3] + "ab" + ln[3:6], 64, 8 * (k % 8))
    finally:
        del keep            # the holes' neighbours go too
        gc.collect()
    if MICROPYTHON:
        # each character the font has no glyph of is its "?": the last line's first
        # cell (row 24) holds the ASCII font's "?" columns
        q = 5 * (ord("?") - 32)
        for i in range(5):
            col = sum(fb.pixel(i, 24 + r) << r for r in range(8))
            assert col == oled.GLYPHS[q + i], (i, col)


def test_the_first_steps_of_a_turn_need_no_block_larger_than_their_list():
    # The tracker asks for the turn's legal first steps at its start, just after the
    # board's own choice, on its most fragmented heap. A list grown by append
    # doubles: 28 steps took 32 slots (256 bytes on the unix port) and the 16 it grew
    # from; made at its exact size it takes 28. Here no free run of the heap holds 32
    # slots.
    from nardy.longnardy import LongNardy
    from nardy.rules import Position
    v = LongNardy()
    b = bytearray(52)
    for p in (1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 14, 15, 16, 17, 18):
        b[p] = 1                        # white on 15 points: 28 first steps of 2-1
    b[26 + 1] = 15
    pos = Position(b, 0)
    want = v.next_steps(pos, (2, 1))
    assert len(want) == 28 and (1, 2) in want and (18, 20) in want
    slot = 8 if sys.maxsize > 2 ** 32 else 4
    # a bytearray's data and its object, freed together: runs of 28 slots at most
    keep = _fragmented(28 * slot - 48)
    try:
        got = v.next_steps(pos, (2, 1))
    finally:
        del keep            # the holes' neighbours go too
        gc.collect()
    assert got == want
