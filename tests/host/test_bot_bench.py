"""``make bench``'s move-chooser figures (bench/bot_bench.py) are taken as a board with
ROMFS plays: the compiled code and both nets in a ROMFS image, read in place within
the board's 112wK heap, which cannot hold the 512-unit short net read into it.

Run as the bench runs, in processes of their own: the bench's modules put bench/
first on sys.path, where its ``positions`` would hide the tests' own."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(ROOT, "bench")
WEIGHTS = os.path.join(ROOT, "firmware", "weights")
MP = os.path.join(os.path.dirname(sys.executable), "micropython")


def _run(args):
    return subprocess.run(args, capture_output=True, text=True, cwd=ROOT)


def test_the_chooser_bench_reads_both_nets_in_place():
    r = _run([sys.executable, os.path.join(BENCH, "bot_bench.py"), "3"])
    assert r.returncode == 0, r.stdout + r.stderr
    # bot_bench.py stops with an error when a net was not read in place
    assert "$ python -m nardy_host.romfs run IMAGE -X heapsize=112wK" in r.stdout
    rows = {line.split()[0]: line.split() for line in r.stdout.splitlines()
            if line.startswith(("long/", "short/"))}
    assert set(rows) == {"long/128", "short/512"}
    for row in rows.values():
        p50, p99, mx = map(float, row[2:5])
        assert 0 < p50 <= p99 <= mx


def test_read_into_the_heap_the_short_net_does_not_fit_112wk(tmp_path):
    # why the bench mounts an image: the 512-unit net (224 KB) read into the heap
    with open(os.path.join(WEIGHTS, "short.bin"), "rb") as f:
        head = f.read(12)
    assert head[6] | (head[11] << 8) == 512
    path = tmp_path / "positions.txt"
    path.write_text("short Sw-02000000000050000305000000-02000000000050000305000000 3 1\n")
    lib = _run([sys.executable, "-c", "import sys; sys.path.insert(0, %r); from run import "
                "compile_firmware; print(compile_firmware())" % BENCH]).stdout.split()[-1]
    r = _run([MP, "-X", "heapsize=112wK", os.path.join(BENCH, "bot_bench_mp.py"),
              str(path), WEIGHTS, "--lib", lib])
    # the long net (57 KB) is read and timed first; the short net's read fails
    assert r.returncode != 0
    out = r.stdout + r.stderr           # (the unix port prints its traceback on stdout)
    assert "MemoryError" in out and "nardy.netfile" in out, out
