"""Memory: the whole app on the virtual board at ESP32-sized heaps.

- 112wK: boot, a few turns, dump; the free heap after boot has a floor.
- the soak (bench/soak.py) for a few games, through the compiled firmware.
"""

import os
import random
import sys
import tempfile

import pytest
from vboard import VBoard

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))

import soak  # noqa: E402

# 112wK is 229,376 bytes on this 64-bit port (the 'w' scales by the word size);
# sources compiled at import take part of it. After boot at least this much must
# be free for a game (a turn's search, JSON lines, the OLED frame):
# (Measured 2026-11-22 with the compiled firmware loaded into the heap: 58.2 KB after
# the day's merges, 65.5 KB since the boot drops what it asked once (the calibration
# file's parser, the variants registry and both games), 76.5 KB since the calibration's
# module and asyncio.stream are not kept either; the 56wK ROMFS soak below is the
# tighter check.)
FREE_AFTER_BOOT_112 = 70000
# The most a game may keep in use (sampled after gc.collect) while leaving room for
# the largest single allocation a turn makes (a full enumeration: ~37 KB at worst on
# this 64-bit port) and the USB line buffer. Measured: 149 KB at 112wK, 98 KB at
# 56wK with code in ROMFS (2026-11).
# After the 2026-11-22 merges the sampled peak at 112wK (code loaded into the heap)
# was ~180 KB; with the heap work 174-176 KB over three runs (the dice vary):
# a 53-55 KB margin, so the 48 KB one holds again.
PEAK_112 = 229376 - 48 * 1024
# The ROMFS heap the soak runs at: 56wK, the goal. Merging the crosstalk
# compensation (nardy.xtalk), calibration v2 and the board player's hooks on
# 2026-11-22 took ~6 KB of module cost and ~3 KB of boot data and the soak went to
# 60wK; the heap work won most of it back (58wK). Since then a finished turn drops its
# engine caches (they stayed until the next roll, under its first search), Sensing
# makes no stuck-watch tables while the watch is off and the virtual board drops
# the pin map's scanner tables: free after boot at 56wK 21.9 KB (18.7 before), the
# sampled peak 100.4-100.5 KB (107.4-108.7 before) against 56wK's limit of 106,496.
# Run 4 at a time with the bot-both test below: 47 runs of 48 passed (one failed,
# which of the two was not recorded). The peak limit keeps its 8 KB margin.
ROMFS_HEAP, ROMFS_HEAP_BYTES = "56wK", 114688
PEAK_ROMFS = ROMFS_HEAP_BYTES - 8 * 1024


def test_app_runs_at_112wK_and_reports_free_heap(tmp_path):
    b = VBoard(str(tmp_path / "vb"), heap="112wK")
    b.send({"cmd": "mem"})
    m = b.wait("mem")
    assert m["heap"] > 200000, m            # the heap really is 112wK (64-bit words)
    assert m["free"] >= FREE_AFTER_BOOT_112, m
    assert m["free"] + m["alloc"] == m["heap"]
    b.send({"cmd": "new", "variant": "long", "match": 1})
    b.sync()
    from test_vboard import _state, play_turn
    v, pos, d = _state(b)
    b.sense(v, pos)
    b.button("ok")
    b.sync()
    rng = random.Random(5)
    played = 0
    for _ in range(4):
        r = play_turn(b, rng)
        assert r is not None
        played += 1
    d = b.dump()
    assert d["turn_no"] == played
    assert d["phase"] == "roll"
    assert not [e for e in b.events if e["ev"] == "error"]
    b.send({"cmd": "mem"})
    assert b.wait("mem")["free"] > 0
    b.close()


def _soak(heap, games, romfs=False, play=None):
    """Play on a fresh virtual board at ``heap``: ``games`` games of two people
    (long and short in turn), or ``play(board, stats)``; the soak's statistics."""
    stats = {"games": 0, "turns": 0, "steps": 0, "passes": 0, "peak": 0, "choices": 0,
             "mem_every": 5}
    root = tempfile.mkdtemp(prefix="nardy-soak-test-")
    try:
        main, image = soak.compile_firmware(os.path.join(root, "fw"), romfs)
        b = soak.Board(os.path.join(root, "data"), heap, main, image)
        if play is not None:
            play(b, stats)
        rng = random.Random(11)
        for i in range(games):
            soak.play_game(b, rng, ("long", "short")[i % 2], stats)
        b.close()
    finally:
        soak.cleanup(root)
    return stats


def test_soak_few_games_at_112wK():
    st = _soak("112wK", 4)
    assert st["games"] == 4
    assert st["turns"] > 40
    assert 0 < st["peak"] <= PEAK_112, st


def test_soak_few_games_with_code_in_romfs():
    # Code in flash (ROMFS, as on a board with frozen or ROMFS code): the heap holds
    # only the game. (56wK is 114,688 bytes here; see ROMFS_HEAP.)
    st = _soak(ROMFS_HEAP, 2, romfs=True)
    assert st["games"] == 2
    assert 0 < st["peak"] <= PEAK_ROMFS, st


# The heap of the bot-both soak: 56wK, the goal (issue 14), like the soak above. It
# ran at 62wK (sampled peak 109.4-109.7 KB; 56wK and 58wK failed within a game, on a
# 256-byte chunk of the engine's search that a fragmented heap lacked). What made
# room (2026-11-22): the board's player hands a double's results over as the search
# finds them and keeps one table for other rolls' results; no search asks for a
# transposition table it cannot use (all but a double searched again in full order);
# a board turn asks no look-ahead targets; the weights' reader, the calibration's
# module and asyncio.stream (the virtual board's reader) are not kept; host-only code
# left the board's modules; an abandoned game's engine goes with it; events and
# journal lines are written as json.dump makes them; the tracker's next-steps cache
# gives its answer uncached when its table cannot grow (a 272-byte block). After
# ``new`` at 56wK: 11.0 KB free (6.6 before); the sampled peak 104.2-105.0 KB, under
# 56wK's limit of 106,496. 1,109 runs of 1,112 passed (four to eight at a time on two
# cores), none short of memory: two failures were board turns that never ended, their
# last checker gone off a full stack into a full tray, which no sensor tells
# (Tracker.end_shown; test_botplay's out-of-view tests, test_bot_unseen); the third's
# report was lost to a bug in the soak's message (since mended). At 55wK 15
# runs of 16 passed; at 54wK the player cannot load (a 592-byte block at ``new``).
BOT_HEAP, BOT_HEAP_BYTES = "56wK", 114688
# The sampled peak's margin below the heap: 8 KB until 2026-11-26, when the table's
# round 2 (issue 21), the full flash (22) and the 64-unit long net (25) were merged.
# After two passes over the heap the sampled peak of the two bot games is
# 106.2-106.7 KB (20 runs, none crashed): 7 KB of margin, and a MemoryError anywhere
# still fails the soak. Winning the 8 KB back is open (issue 25's note lists how).
# It did fail, in about one run of ten (one of four on a loaded machine): always a
# 1,280-byte block, always drawing a line of text. Iterating a str made each
# character a qstr, and a new character when the qstr pool was full asked for the
# next pool in one block. The OLED now reads text as bytes (nardy.oled.small_text;
# test_heap's fragmented-heap test): 2026-11-27, 40 runs of 40 passed.
# With the 128-unit long net rating 64 results (2026-11-27, later): sampled peaks
# 106,848-107,328 over 20 runs, 0.2-0.7 KB under this limit (docs/ENGINE.md, "Heap":
# under 1 KB of room left at 56wK).
# 2026-11-28: 107,200-107,744 over 24 runs, 3 over the limit; since the net's ``acc``
# is the player's results table's first chunk (nardy.bot), 106,624-107,136.
BOT_PEAK_MARGIN = 7 * 1024


def test_soak_bot_both_games_with_code_and_weights_in_romfs():
    # The board plays both sides (bot both), its weights read in place from the
    # ROMFS image (see BOT_HEAP).
    def both_games(b, stats):
        for variant in ("long", "short"):
            soak.play_bot_game(b, variant, stats)

    stats = _soak(BOT_HEAP, 0, romfs=True, play=both_games)
    assert stats["bot_games"] == 2 and stats["bot_turns"] > 40
    assert 0 < stats["peak"] <= BOT_HEAP_BYTES - BOT_PEAK_MARGIN, stats


def test_qstr_pools_double_and_a_full_one_asks_for_the_next_whole():
    # what the measurement below rests on: each pool holds twice the names of the
    # one before, and the next is allocated whole (about twice the bytes)
    pools = soak.qstr_pools(700)
    assert len(pools) >= 4, pools
    names = [b - a for a, b in zip([0] + [n for n, _ in pools], [n for n, _ in pools])]
    assert all(m == 2 * n for n, m in zip(names, names[1:])), pools
    assert all(1.8 * a < b < 2.2 * a for (_, a), (_, b) in zip(pools, pools[1:])), pools


def test_the_names_a_game_with_the_boards_player_interns_fit_the_qstr_pools_made_at_boot():
    # MicroPython interns every name and short string a module uses (a qstr) when it
    # is imported, also from ROMFS, and never frees one. The pools that hold them
    # double: past 1,260 names the next is ~14 KB in one block, which a 56wK board in
    # a game has not got (its largest free block is under 1 KB). At boot the pools
    # are made while the heap is whole; a name first interned later (the board's
    # player, a command's module) must fit what boot made. In 2026-11 a game with
    # the board playing and the host's ``index`` and ``hello`` left 4 names of
    # 1,260 (bench/heap_figures.py qstr); 20 names more in nardy.botplay and the
    # board could not read its player ("allocating 1280 bytes": the error gives the
    # pool's names, not its bytes). Since each .mpy names its source after its
    # module (mpunix.source_name), 44. Names a 56wK game with the player loads are
    # that budget's: a new module or attribute there spends it.
    import heap_figures
    r = heap_figures.qstr_room()
    assert r["failed"] is None, heap_figures.qstr_text(r)
    assert r["boot"][0] == r["games"][0], heap_figures.qstr_text(r)
    assert r["games"][1] > r["boot"][1], r     # the player's names are counted


def test_soak_script_fails_on_a_board_error(monkeypatch):
    # the check that makes the soak fail: an error event, a recorded warning
    with pytest.raises(soak.Failure):
        soak.Board.check([{"ev": "error", "error": "crash: MemoryError"}], "x")
    with pytest.raises(soak.Failure):
        soak.Board.check([{"ev": "warn", "rec": {"r": "warn"}}], "x")
    soak.Board.check([{"ev": "warn", "clear": True}, {"ev": "confirm", "deleted": True}], "x")


def test_new_games_and_the_boards_player_keep_no_more_heap():
    # Machine code (@micropython.native, viper) is never freed: the ESP32 copies it to
    # IRAM at each import (esp_native_code_commit) and this port maps it and keeps a
    # 32-byte note on the heap. A module with such code that was dropped and imported
    # again for every game (the long-nardy rules at ``new``, the chooser and the
    # evaluator for each game of the board's) kept ~256 bytes more per pair of games
    # here: over a hundred games, the room a 56wK board needs for the next. Now the
    # modules that are dropped hold none, and the evaluator stays once imported.
    root = tempfile.mkdtemp(prefix="nardy-soak-test-")
    try:
        main, image = soak.compile_firmware(os.path.join(root, "fw"), True)
        b = soak.Board(os.path.join(root, "data"), ROMFS_HEAP, main, image)
        kept = []
        for _ in range(8):
            soak.new_game(b, "long", bot="both")     # loads the board's player
            soak.new_game(b, "short")                # drops it
            kept.append(b.mem()["alloc"])
        b.close()
    finally:
        soak.cleanup(root)
    assert kept[-1] - kept[1] < 128, kept
