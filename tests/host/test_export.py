"""`nardy export`: short games into the real GNU Backgammon, long games through the
text record and back."""

import json
import os
import random
import shutil
import subprocess
import sys

import gnubg_nn
import pytest

sys.path.insert(0, os.path.dirname(__file__))

import gnubg_import  # noqa: E402
from boardshape import board_shape, write  # noqa: E402
from gnubg_ref import to_gnubg  # noqa: E402
from journals import play, write_games  # noqa: E402

from nardy.longnardy import LongNardy  # noqa: E402
from nardy.notation import parse_position_id  # noqa: E402
from nardy.rules import COLORS  # noqa: E402
from nardy.shortnardy import ShortNardy  # noqa: E402
from nardy_host import gamefile  # noqa: E402

NARDY = os.path.join(os.path.dirname(sys.executable), "nardy")
GNUBG = shutil.which("gnubg") or "/usr/games/gnubg"

# Runs inside gnubg (its embedded Python): import every .mat, dump what gnubg saw.
GNUBG_SCRIPT = """
import gnubg, json
out = {}
for path in open(%(list)r).read().split():
    gnubg.command("new match 1")
    gnubg.command("import mat " + path)
    g = gnubg.match(analysis=0, boards=1, statistics=0, verbose=0)["games"][0]
    out[path] = {"moves": [[a.get("action"), a.get("player"), a.get("dice"), a.get("board")]
                           for a in g["game"]], "info": g["info"],
                 "final": gnubg.positionid()}
json.dump(out, open(%(out)r, "w"))
"""


def nardy(*args):
    r = subprocess.run([NARDY] + list(args), capture_output=True, text=True, timeout=300)
    return r


def our_turns(path):
    with open(path) as f:
        recs = [json.loads(x) for x in f if x.strip()]
    start = parse_position_id(recs[0]["start"])[1]
    turns = [r for r in recs if r["r"] == "turn"]
    end = [r for r in recs if r["r"] == "end"][0]
    return start, turns, end


def pid(pos):
    return gnubg_nn.position_id(to_gnubg(pos))


def test_100_short_games_import_into_gnubg_with_every_position_equal(tmp_path):
    assert os.path.exists(GNUBG), "GNU Backgammon is missing: apt-get install gnubg"
    journals = write_games(str(tmp_path), "short", 100, seed=11)
    mats = []
    for j in journals:
        out = j[:-6] + ".mat"
        r = nardy("export", j, "--format", "mat", "--out", out)
        assert r.returncode == 0, r.stderr
        mats.append(out)
    (tmp_path / "list.txt").write_text("\n".join(mats))
    script = tmp_path / "import.py"
    result = tmp_path / "gnubg.json"
    script.write_text(GNUBG_SCRIPT % {"list": str(tmp_path / "list.txt"),
                                      "out": str(result)})
    r = subprocess.run([GNUBG, "-t", "-q", "-p", str(script)], capture_output=True,
                       text=True, timeout=900)
    assert result.exists(), r.stdout[-2000:] + r.stderr[-2000:]
    seen = json.loads(result.read_text())
    compared = 0
    for j, mat in zip(journals, mats):
        got = seen[mat]
        start, turns, end = our_turns(j)
        # every turn, a turn with no legal move (dice lost, C5) included
        moves = [m for m in got["moves"] if m[0] == "move"]
        assert len(moves) == len(turns), mat
        pos = start
        for t, (_, player, dice, board) in zip(turns, moves):
            before = pos.copy()
            before.turn = COLORS.index(t["side"])
            assert sorted(dice) == sorted(t["dice"]), (mat, t["n"])
            assert board == pid(before), (mat, t["n"], board, pid(before))
            # gnubg's X is the left column: white
            assert player == ("X" if t["side"] == "white" else "O")
            compared += 1
            pos = parse_position_id(t["pos"])[1]
        # the final position, seen from either side
        fin = pos.copy()
        finals = set()
        for side in (0, 1):
            fin.turn = side
            finals.add(pid(fin))
        assert got["final"] in finals, mat
        assert got["info"]["winner"] == ("X" if end["winner"] == "white" else "O")
        assert got["info"]["points-won"] == end["points"]
    assert compared > 3000


def test_long_game_text_record_round_trip(tmp_path):
    journals = write_games(str(tmp_path), "long", 5, seed=3, accept_illegal=0.05)
    accepted = 0
    for j in journals:
        txt = j[:-6] + ".txt"
        r = nardy("export", j, "--out", txt)
        assert r.returncode == 0, r.stderr
        start, turns, end = our_turns(j)
        accepted += sum(1 for t in turns if t["accepted"])
        # read back through the engine: every turn legal or marked accepted
        r = nardy("export", "--read", txt)
        assert r.returncode == 0, r.stderr
        assert "%d turns" % len(turns) in r.stdout
        assert r.stdout.strip().endswith(turns[-1]["pos"]), (r.stdout, turns[-1]["pos"])
    assert accepted > 0, "the sample should include accepted illegal turns"


def test_text_record_with_an_illegal_turn_is_refused(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("; nardy long-nardy record 1\n; options: -\n; first: white\n"
                   " 1 point match\n\n Game 1\n"
                   "  1) 65: 1/7 1/6\n")
    r = nardy("export", "--read", str(bad))
    assert r.returncode == 2 and "L3" in r.stderr


@pytest.mark.parametrize("fmt,variant", [("mat", "long"), ("text", "short")])
def test_wrong_format_for_the_game_is_a_clear_error(tmp_path, fmt, variant):
    j = write_games(str(tmp_path), variant, 1, seed=1)[0]
    r = nardy("export", j, "--format", fmt)
    assert r.returncode == 2 and "use --format" in r.stderr


def test_mat_refuses_an_accepted_illegal_turn(tmp_path):
    j = write_games(str(tmp_path), "short", 3, seed=5, accept_illegal=0.3)
    r = [nardy("export", p, "--format", "mat") for p in j]
    assert any(x.returncode == 2 and "accepted" in x.stderr for x in r)
    assert all(nardy("export", p, "--format", "json").returncode == 0 for p in j)


def test_torn_journal_and_garbage(tmp_path):
    j = write_games(str(tmp_path), "short", 1, seed=2)[0]
    with open(j, "a") as f:
        f.write('{"r": "turn", "n": 9')   # power cut in the middle of a line
    assert nardy("export", j).returncode == 0
    g = tmp_path / "garbage.jsonl"
    g.write_text("hello\nworld\n")
    r = nardy("export", str(g))
    assert r.returncode == 2 and "not a readable journal" in r.stderr


# -- every shape the board, the virtual board, self-play and older firmware write ---
def _play(variant, seed, accept_illegal=0.0, first=None):
    """One random game's records (journals.play), optionally one ``first`` opens."""
    v = ShortNardy() if variant == "short" else LongNardy()
    s = seed
    while True:
        recs = play(v, random.Random(s), accept_illegal)
        if first is None or recs[0]["start"][1] == first[0]:
            return recs
        s += 1000


@pytest.mark.parametrize("old", [False, True], ids=["board", "older-board"])
def test_board_journals_export_in_every_format(tmp_path, old):
    paths = []
    for i, variant in enumerate(("short", "long", "short", "long")):
        recs = board_shape(_play(variant, 40 + i), old=old, length=5, score=(1, 3),
                           game_no=3)
        paths.append(write(tmp_path / ("g%d.jsonl" % i), recs))
    for p in paths:
        r = nardy("export", p)
        assert r.returncode == 0, r.stderr
        assert " 5 point match" in r.stdout and " Game 3" in r.stdout
        assert "White : 1" in r.stdout and "Black : 3" in r.stdout
        r = nardy("export", p, "--format", "json")
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["first"] in COLORS


def test_black_opens_long_game_record_says_so_and_replays(tmp_path):
    recs = board_shape(_play("long", 7, first="black"))
    assert recs[0]["start"][1] == "w" and recs[2]["side"] == "black"
    j = write(tmp_path / "black.jsonl", recs)
    txt = tmp_path / "black.txt"
    r = nardy("export", j, "--out", str(txt))
    assert r.returncode == 0, r.stderr
    assert "; first: black" in txt.read_text()
    # the first row's left (white) cell is empty: black's turn is on the right
    row1 = [ln for ln in txt.read_text().splitlines() if ln.startswith("   1)")][0]
    assert row1.split(")", 1)[1][:33].strip() == "", row1
    r = nardy("export", "--read", str(txt))
    assert r.returncode == 0, r.stderr
    turns = [x for x in recs if x["r"] == "turn"]
    assert r.stdout.strip().endswith(turns[-1]["pos"]), (r.stdout, turns[-1]["pos"])
    r = nardy("export", j, "--format", "json")
    assert json.loads(r.stdout)["first"] == "black"


def test_a_turn_by_the_wrong_side_is_a_clean_error(tmp_path):
    recs = board_shape(_play("long", 7, first="black"))
    recs[1]["first"] = "white"             # the opening says white, black moves
    recs[1]["rolls"] = [[6, 1]]
    r = nardy("export", write(tmp_path / "x.jsonl", recs))
    assert r.returncode == 2 and "white's turn" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_short_games_with_accepted_illegal_turns_import_into_gnubg(tmp_path):
    """Exported by default as gnubg SGF when a turn was accepted although illegal:
    a marked move where gnubg can replay it, else a setup node. Self-play's tracker
    records real illegal turns (backward steps, wrong distances); board-shaped
    journals add the opening roll."""
    src = tmp_path / "games"
    r = nardy("selfplay", "--variant", "short", "--games", "12", "--illegal", "0.1",
              "--seed", "5", "--log", str(src))
    assert r.returncode in (0, 1), r.stderr
    for i in range(6):
        recs = board_shape(_play("short", 300 + i, accept_illegal=0.08 if i > 1 else 0))
        write(src / ("board%02d.jsonl" % i), recs)
    journals = sorted(src.iterdir())
    r = nardy("export", str(src), "--out-dir", str(tmp_path / "out"))
    assert r.returncode == 0, r.stderr
    files = [tmp_path / "out" / (j.name[:-6] + (".sgf" if '"accepted": true' in j.read_text()
                                                else ".mat")) for j in journals]
    assert {f.suffix for f in files} == {".sgf", ".mat"}
    texts = "".join(f.read_text() for f in files if f.suffix == ".sgf")
    assert "AE[a:y]" in texts and "BM[2]" in texts      # both ways of holding them
    seen = gnubg_import.load_all(tmp_path, files)
    turns = accepted = 0
    for j, f in zip(journals, files):
        n, a = gnubg_import.compare(j, seen[str(f)])
        turns += n
        accepted += a
    assert accepted >= 30 and turns > 1000, (accepted, turns)


def _mixed_game(variant, seed):
    """A board-shaped game whose opponent accepted a step onto its own point, and
    the number of turns after it that still show both colours on a point."""
    v = ShortNardy() if variant == "short" else LongNardy()
    for s in range(seed, seed + 50):
        recs = board_shape(play(v, random.Random(s), mix_at=8))
        mixed = [bool(gamefile.shared_point(v, parse_position_id(t["pos"])[1]))
                 for t in recs if t["r"] == "turn"]
        if any(mixed[i] and mixed[i + 1] for i in range(len(mixed) - 1)):
            return recs, sum(mixed)
    raise AssertionError("no game kept both colours on a point for two turns")


@pytest.mark.parametrize("variant", ["long", "short"])
def test_a_board_accepted_with_both_colours_on_a_point_exports(tmp_path, variant):
    # README: the journal records what is on the board, marked as accepted, and
    # every journal exports; the later turns start from that board.
    recs, mixed = _mixed_game(variant, 70)
    j = write(tmp_path / "mixed.jsonl", recs)
    assert gamefile.read(j).afters[-1] is not None
    turns = [t for t in recs if t["r"] == "turn"]
    if variant == "long":
        txt = tmp_path / "mixed.txt"
        r = nardy("export", j, "--out", str(txt))
        assert r.returncode == 0, r.stderr
        assert "!L2" in txt.read_text()
        r = nardy("export", "--read", str(txt))
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip().endswith(turns[-1]["pos"]), (r.stdout, turns[-1]["pos"])
    else:
        # gnubg's board holds one colour per point: no .sgf, a clear error, and the
        # JSON export keeps the game whole
        r = nardy("export", j, "--out", str(tmp_path / "mixed.sgf"))
        assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
        assert "both colours on P" in r.stderr and "--format json" in r.stderr, r.stderr
        assert not (tmp_path / "mixed.sgf").exists()
        r = nardy("export", j, "--format", "json")
        assert r.returncode == 0, r.stderr
        assert [t["pos"] for t in json.loads(r.stdout)["turns"]] == [
            t["pos"] for t in turns]
    # a game with no accepted turn is still refused such a position
    clean = [dict(t, accepted=False, rule=None) if t["r"] == "turn" else t for t in recs]
    with pytest.raises(gamefile.BadGame, match="both colours"):
        gamefile.read(write(tmp_path / "clean.jsonl", clean))


@pytest.mark.parametrize("body", ["  1) 77: 1/7", "  1) 65: 1/99", "  1) 65: 0/6 1/7",
                                  "  1) 65: a/b"])
def test_a_hostile_text_record_is_a_clean_error(tmp_path, body):
    bad = tmp_path / "bad.txt"
    bad.write_text("; nardy long-nardy record 1\n; options: -\n; first: white\n%s\n" % body)
    r = nardy("export", "--read", str(bad))
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.count("error:") == 1


def test_self_play_long_logs_export_and_read_back(tmp_path):
    src = tmp_path / "logs"
    r = nardy("selfplay", "--variant", "long", "--games", "3", "--illegal", "0.1",
              "--seed", "3", "--log", str(src))
    assert r.returncode in (0, 1), r.stderr
    r = nardy("export", str(src), "--out-dir", str(tmp_path / "out"))
    assert r.returncode == 0, r.stderr
    for j in sorted(src.iterdir()):
        game = gamefile.read(str(j))
        txt = tmp_path / "out" / (j.name[:-6] + ".txt")
        assert "; first: %s" % COLORS[game.first] in txt.read_text()
        r = nardy("export", "--read", str(txt))
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip().endswith(game.turns[-1]["pos"])
