"""Fuzzing the journal reader and `nardy export` with byte-level mutations of real
journals: whatever the bytes, reading gives a game or one clean error (BadGame),
and exporting a game read gives a text or one clean error, never another exception.

The seeds are real: games played on the virtual board by the example scripts
(`nardy script`), self-play logs (`nardy selfplay --log`, with accepted illegal
turns), and board-shaped random games (tests/host/journals.py)."""

import functools
import glob
import os
import random
import subprocess
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, os.path.dirname(__file__))

from boardshape import board_shape  # noqa: E402
from journals import play  # noqa: E402
from vboard import ROOT  # noqa: E402

from nardy import record  # noqa: E402
from nardy.longnardy import LongNardy  # noqa: E402
from nardy.shortnardy import ShortNardy  # noqa: E402
from nardy_host import gamefile  # noqa: E402
from nardy_host.export import FORMATS, export  # noqa: E402

NARDY = os.path.join(os.path.dirname(sys.executable), "nardy")
RUNS = {"read": 0, "games": 0, "exports": 0, "errors": 0}


@functools.cache
def _seeds_dir():
    import atexit
    import shutil
    import tempfile
    d = tempfile.mkdtemp(prefix="nardy-fuzz-")
    atexit.register(shutil.rmtree, d, True)
    return d


@functools.cache
def _seeds():
    d = _seeds_dir()
    for name in ("short_game", "long_game"):
        r = subprocess.run([NARDY, "script", "--quiet", "--data", os.path.join(d, name),
                            os.path.join(ROOT, "examples", name + ".nardy")],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
    r = subprocess.run([NARDY, "selfplay", "--variant", "short", "--games", "2",
                        "--illegal", "0.2", "--max-turns", "60", "--log",
                        os.path.join(d, "selfplay")], capture_output=True, timeout=120)
    paths = sorted(glob.glob(os.path.join(d, "*", "journal", "*.jsonl"))
                   + glob.glob(os.path.join(d, "selfplay", "*.jsonl")))
    out = []
    for p in paths:
        with open(p, "rb") as f:
            out.append(f.read())
    rng = random.Random(9)
    for v in (ShortNardy(), LongNardy()):
        recs = board_shape(play(v, rng, accept_illegal=0.1))[:80]
        out.append(b"".join(record.dumps(x).encode() + b"\n" for x in recs))
    assert len(out) >= 6
    return tuple(out)


@st.composite
def mutated(draw):
    """A real journal with a few byte-level mutations."""
    data = bytearray(draw(st.sampled_from(_seeds())))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(("flip", "truncate", "insert", "duplicate",
                                     "delete", "swap lines")))
        n = len(data)
        at = draw(st.integers(0, max(n - 1, 0)))
        if kind == "flip" and n:
            data[at] ^= 1 << draw(st.integers(0, 7))
        elif kind == "truncate":
            del data[at:]
        elif kind == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=40) | st.sampled_from(
                (b"\n", b"\xff" * 64, b"\x00" * 16, b"[" * 50, b'{"r": "turn"}\n',
                 b"1e999", b'"', b"}")))
        elif kind == "duplicate" and n:
            end = draw(st.integers(at, min(n, at + 400)))
            data[at:at] = data[at:end]
        elif kind == "delete" and n:
            del data[at:draw(st.integers(at, min(n, at + 60)))]
        elif kind == "swap lines":
            lines = bytes(data).split(b"\n")
            if len(lines) > 2:
                i = draw(st.integers(0, len(lines) - 2))
                lines[i], lines[i + 1] = lines[i + 1], lines[i]
                data = bytearray(b"\n".join(lines))
    return bytes(data)


def _export_all(game):
    """Every format that fits the game: text or BadGame, nothing else."""
    for fmt in FORMATS:
        if (fmt in ("mat", "sgf")) != (game.variant.name == "short") and fmt != "json":
            continue
        try:
            text = export(game, fmt)
        except gamefile.BadGame as e:
            assert str(e)
            RUNS["errors"] += 1
        else:
            assert isinstance(text, str) and text.endswith("\n")
            RUNS["exports"] += 1


@settings(max_examples=1500, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mutated())
def _fuzz_one(data):
    path = os.path.join(_seeds_dir(), "fuzz.jsonl")
    with open(path, "wb") as f:
        f.write(data)
    RUNS["read"] += 1
    try:
        game = gamefile.read(path)
    except gamefile.BadGame as e:
        assert str(e)
        RUNS["errors"] += 1
        return
    RUNS["games"] += 1
    _export_all(game)


def test_reader_and_export_survive_byte_mutations():
    """1,500 mutated journals: each a game or a clean error; both happen often."""
    for k in RUNS:
        RUNS[k] = 0
    _fuzz_one()
    print("fuzz counts:", RUNS)
    assert RUNS["read"] == 1500
    assert RUNS["games"] >= 100 and RUNS["exports"] >= 100 and RUNS["errors"] >= 100


def test_the_seeds_themselves_export():
    for data in _seeds():
        import io
        r = record.Reader(io.BytesIO(data)).scan()
        assert r.problem is None and r.header is not None
