"""``nardy log`` against the virtual board: games played on it are pulled, written
as journals ``nardy export`` reads, confirmed (deleted on the board) only once the
file exists, and a connection cut mid-transfer loses nothing."""

import json
import os
import pty
import subprocess
import sys
import tty

import pytest
from test_vboard import _game
from vboard import ROOT, VBoard, micropython

from nardy_host import cli, link, log
from nardy_host.export import read_journal
from nardy_host.mpunix import compiled_firmware

# The board's own heap: the journal is read a line at a time at boot, so boards
# holding several finished games still start (this once failed at 112wK).
HEAP = "112wK"


@pytest.fixture(autouse=True)
def _heap(monkeypatch):
    monkeypatch.setenv("NARDY_VBOARD_HEAP", HEAP)


def _played(tmp_path, seeds=(("short", 2),), name="flash"):
    """A flash directory holding finished games (played like test_vboard does)."""
    flash = tmp_path / name
    for variant, seed in seeds:
        b, d, _ = _game(tmp_path, variant, seed)
        assert d["phase"] == "match_end"
        b.close()
        src = tmp_path / ("vb%d" % seed)
        flash.mkdir(exist_ok=True)
        (flash / "journal").mkdir(exist_ok=True)
        n = len(os.listdir(flash / "journal"))
        for name in sorted(os.listdir(src / "journal")):
            n += 1
            os.rename(src / "journal" / name, flash / "journal" / ("g%05d.jsonl" % n))
    return flash


def index_of(b, limit=8):
    """Every game on the board, through the paged ``index`` command."""
    games = []
    after = 0
    while True:
        b.send({"cmd": "index", "after": after, "limit": limit})
        ev = b.wait("index")
        games += ev["games"]
        if ev["next"] is None:
            return games
        assert ev["next"] > after
        after = ev["next"]


def _journal_on_board(flash):
    b = VBoard(str(flash), heap=HEAP)
    try:
        return index_of(b)
    finally:
        b.close()


def test_pull_confirm_and_export(tmp_path, capsys):
    flash = _played(tmp_path, (("short", 2), ("long", 1)))
    before = _journal_on_board(flash)
    assert [g["finished"] for g in before] == [True, True]
    out = tmp_path / "out"
    assert cli.main(["log", "--port", "vboard:%s" % flash, "--out", str(out),
                     "--quiet"]) == 0
    files = sorted(p for p in os.listdir(out) if p.endswith(".jsonl"))
    assert len(files) == 2, files
    assert not [p for p in os.listdir(out) if p.endswith(".tmp")]
    variants = set()
    for name in files:
        g = read_journal(str(out / name))       # a valid journal for `nardy export`
        variants.add(g.header["variant"])
        assert g.end is not None
    assert variants == {"short", "long"}
    # exactly the board's lines, and the board deleted them only after that
    assert _journal_on_board(flash) == []
    assert cli.main(["export", str(out / files[0]), "--format", "json"]) == 0
    # nothing left to pull: a second run is a no-op
    assert cli.main(["log", "--port", "vboard:%s" % flash, "--out", str(out),
                     "--quiet"]) == 0
    assert sorted(p for p in os.listdir(out) if p.endswith(".jsonl")) == files


def test_unfinished_game_is_saved_not_confirmed(tmp_path):
    flash = tmp_path / "flash"
    b = VBoard(str(flash))
    b.send({"cmd": "set", "oled": False, "leds": False})
    b.send({"cmd": "new", "variant": "long", "match": 1})
    b.sync()
    b.close()
    out = tmp_path / "out"
    assert cli.main(["log", "--port", "vboard:%s" % flash, "--out", str(out),
                     "--quiet"]) == 0
    files = [p for p in os.listdir(out) if p.endswith(".jsonl")]
    assert len(files) == 1
    lines = (out / files[0]).read_text().splitlines()
    assert json.loads(lines[0])["r"] == "game"
    board = _journal_on_board(flash)
    assert len(board) == 1 and not board[0]["finished"]


class _CutAfter:
    """Wraps Link.read: cuts the line (kills the board) after ``n`` events of a kind."""

    def __init__(self, monkeypatch, kind, n):
        self.seen = 0
        orig = link.Link.read

        def read(lk, timeout=5.0):
            ev = orig(lk, timeout)
            if ev is not None and ev["ev"] == kind:
                self.seen += 1
                if self.seen == n:
                    lk.kill()
                    lk._buf = b""      # what was already read off the line is lost too
            return ev
        monkeypatch.setattr(link.Link, "read", read)


def test_cut_mid_transfer_loses_nothing(tmp_path, monkeypatch, capsys):
    flash = _played(tmp_path)
    board_before = _journal_on_board(flash)
    out = tmp_path / "out"
    cut = _CutAfter(monkeypatch, "log", 5)
    monkeypatch.setenv("NARDY_VBOARD_HEAP", HEAP)
    rc = cli.main(["log", "--port", "vboard:%s" % flash, "--out", str(out), "--quiet"])
    assert rc == 2 and cut.seen == 5
    assert "run again" in capsys.readouterr().err
    # no file, no temp file; the board still has the game
    assert os.listdir(out) == []
    monkeypatch.undo()
    monkeypatch.setenv("NARDY_VBOARD_HEAP", HEAP)
    assert _journal_on_board(flash) == board_before
    assert cli.main(["log", "--port", "vboard:%s" % flash, "--out", str(out),
                     "--quiet"]) == 0
    assert len(os.listdir(out)) == 1
    assert _journal_on_board(flash) == []


def test_cut_before_confirm_is_pulled_again_identically(tmp_path, monkeypatch):
    flash = _played(tmp_path)
    out = tmp_path / "out"
    orig = link.Link.request

    def request(lk, cmd, want, **kw):
        if cmd["cmd"] == "confirm":
            lk.kill()          # the file is written; the confirm never arrives
        return orig(lk, cmd, want, **kw)
    monkeypatch.setattr(link.Link, "request", request)
    assert cli.main(["log", "--port", "vboard:%s" % flash, "--out", str(out),
                     "--quiet"]) == 2
    first = {p: (out / p).read_text() for p in os.listdir(out)}
    assert len(first) == 1
    assert len(_journal_on_board(flash)) == 1      # not confirmed: still there
    monkeypatch.undo()
    monkeypatch.setenv("NARDY_VBOARD_HEAP", HEAP)
    assert cli.main(["log", "--port", "vboard:%s" % flash, "--out", str(out),
                     "--quiet"]) == 0
    assert {p: (out / p).read_text() for p in os.listdir(out)} == first
    assert _journal_on_board(flash) == []


def _pty_board(flash, port_link):
    """The virtual board behind a pty, reached through the symlink ``port_link``
    (as a USB serial device appears again under the same name)."""
    master, slave = pty.openpty()
    # raw at once: a cooked pty echoes the device's own output ("OK") back into its
    # input until the host opens the port, which garbles the first commands
    tty.setraw(slave)
    # the firmware as a board runs it (compiled): from source the compiler needs
    # heap of its own beyond the ESP32's 112wK (docs/PROTOCOL.md, Virtual board)
    main = os.path.join(compiled_firmware(), "main.py")
    p = subprocess.Popen([micropython(), "-X", "heapsize=" + HEAP, main, str(flash),
                          os.path.join(ROOT, "firmware", "pinmap", "esp32s3.json")],
                         stdin=master, stdout=master, stderr=subprocess.DEVNULL)
    name = os.ttyname(slave)
    os.close(slave)
    os.close(master)
    if os.path.lexists(port_link):
        os.remove(port_link)
    os.symlink(name, port_link)
    return p


def _wait_for(stream, text, proc, seconds=60):
    """Read lines until one contains ``text``; fail (not hang) after ``seconds``."""
    import select
    import time
    seen = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        ready, _, _ = select.select([stream], [], [], 0.5)
        if ready:
            line = stream.readline()
            seen.append(line)
            if text in line:
                return
        assert proc.poll() is None, "the tool exited: %s" % "".join(seen)
    raise AssertionError("no %r within %ds: %s" % (text, seconds, "".join(seen)))


def test_follow_survives_unplugging(tmp_path):
    """--follow over a pty: the board is unplugged, a game is played on it
    meanwhile, the board comes back on the same port name and the game is pulled."""
    flash = tmp_path / "flash"
    port = str(tmp_path / "ttyBOARD")
    p1 = _pty_board(flash, port)
    out = tmp_path / "out"
    tool = subprocess.Popen(
        [sys.executable, "-m", "nardy_host.cli",
         "log", "--port", port, "--out", str(out), "--follow", "--quiet",
         "--stop-after", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # wait until the tool has pulled (nothing) and follows the board
    _wait_for(tool.stderr, "following", tool)
    p1.kill()                                   # unplugged
    p1.wait()
    os.remove(port)
    played = _played(tmp_path, name="elsewhere")   # a game is played elsewhere
    os.rename(played / "journal" / "g00001.jsonl", flash / "journal" / "g00001.jsonl")
    p2 = _pty_board(flash, port)                # plugged in again
    try:
        rest, err = tool.communicate(timeout=120)
    finally:
        p2.kill()
        p2.wait()
    assert tool.returncode == 0, err
    assert "waiting for the board" in err or "line lost" in err
    files = [f for f in os.listdir(out) if f.endswith(".jsonl")]
    assert len(files) == 1
    assert read_journal(str(out / files[0])).end is not None
    assert _journal_on_board(flash) == [], err


def test_bad_port_is_a_clear_error(tmp_path, capsys):
    assert cli.main(["log", "--port", str(tmp_path / "nope"), "--out",
                     str(tmp_path / "o")]) == 2
    assert "no such port" in capsys.readouterr().err


@pytest.mark.parametrize("lines,finished,problem", [
    (['{"r": "game", "v": 1, "variant": "long", "options": {}, "start": '
      '"Lw-0f000000000000000000000000-0f000000000000000000000000"}'], False, None),
    (['{"r": "game", "v": 1, "variant": "long", "options": {}, "start": "x"}'], True,
     "line 1: not a position id: 'x'"),
    (["garbage"], True, "line 1: not JSON"),
    ([], False, "empty"),
])
def test_check(lines, finished, problem):
    f, p = log.check(lines)
    assert p == problem
    if problem is None:
        assert f == finished


def test_a_typo_in_the_port_is_an_error_not_a_blank_board(tmp_path, capsys):
    typo = tmp_path / "typo"
    out = tmp_path / "out"
    assert cli.main(["log", "--port", "vboard:%s" % typo, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "no virtual board" in err and "Traceback" not in err
    assert not typo.exists() and not out.exists()
    afile = tmp_path / "afile"
    afile.write_text("x")
    assert cli.main(["log", "--port", "vboard:%s" % afile, "--out", str(out)]) == 2
    assert afile.read_text() == "x"


def test_out_that_is_a_file_is_a_clean_error(tmp_path, capsys):
    flash = tmp_path / "flash"
    flash.mkdir()
    out = tmp_path / "out"
    out.write_text("not a directory")
    assert cli.main(["log", "--port", "vboard:%s" % flash, "--out", str(out),
                     "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "cannot create" in err and "Traceback" not in err


def test_a_damaged_game_is_saved_as_broken_and_left_on_the_board(tmp_path, capsys):
    from test_flash_damage import game_lines
    flash = tmp_path / "flash"
    (flash / "journal").mkdir(parents=True)
    (flash / "journal" / "g00001.jsonl").write_text("\n".join(game_lines(True)) + "\n")
    bad = game_lines()
    (flash / "journal" / "g00002.jsonl").write_bytes(
        (bad[0] + "\n" + bad[1] + "\n").encode() + b"\xc3\x28 flipped\n"
        + (bad[2] + "\n").encode())
    out = tmp_path / "out"
    assert cli.main(["log", "--port", "vboard:%s" % flash, "--out", str(out),
                     "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "game 2: line 3: not UTF-8" in err
    files = sorted(os.listdir(out))
    assert len(files) == 2 and files[1].endswith(".broken.jsonl"), files
    assert len((out / files[1]).read_text().splitlines()) == 2    # what was readable
    # the good game was confirmed (deleted), the damaged one stays, set aside
    assert sorted(os.listdir(flash / "journal")) == ["g00002.bad"]
