"""``make bench``'s move-chooser figures (bench/bot_bench.py) are taken as a board with
ROMFS plays: the compiled code and both nets in a ROMFS image, read in place within
the board's 112wK heap, which cannot hold the 512-unit short net read into it."""

import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))

import bot_bench  # noqa: E402
import positions  # noqa: E402
from run import compile_firmware, run_mp  # noqa: E402

SCRIPT = os.path.join(ROOT, "bench", "bot_bench_mp.py")
WEIGHTS = os.path.join(ROOT, "firmware", "weights")


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("bench") / "positions.txt")
    positions.write(path, 3, seed=7)
    return path, compile_firmware()


def test_the_chooser_bench_reads_both_nets_in_place(setup):
    path, lib = setup
    image = bot_bench.rom_image(lib, WEIGHTS)
    t, cmd = bot_bench.run_rom(image, [SCRIPT, path, "/rom/weights", "--lib", "/rom"],
                               "112wK")
    assert "heapsize=112wK" in cmd and "nardy_host.romfs" in cmd
    assert t["long_in_place"] is True and t["short_in_place"] is True
    for game in ("long", "short"):
        s = t[game]
        assert s["n"] > 0 and 0 < s["p50"] <= s["p99"] <= s["max"]


def test_read_into_the_heap_the_short_net_does_not_fit_112wk(setup):
    # why the bench mounts an image: the 512-unit net (224 KB) read into the heap
    path, lib = setup
    with open(os.path.join(WEIGHTS, "short.bin"), "rb") as f:
        head = f.read(12)
    assert head[6] | (head[11] << 8) == 512
    with pytest.raises(SystemExit, match="MemoryError"):
        run_mp([SCRIPT, path, WEIGHTS, "--lib", lib], "112wK")
