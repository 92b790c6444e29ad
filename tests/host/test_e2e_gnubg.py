"""End to end, the way a user takes the data: games played on the virtual board with
`nardy script` (hands on checkers, buttons), pulled with `nardy log`, exported with
`nardy export`, and the short-nardy ones imported into the real GNU Backgammon,
every position gnubg reconstructs compared with ours.

The games are short and end by resignation (hold BACK); black wins the opening in
two of them, and each variant has a turn that broke a rule and was accepted (the mover's OK ends
the turn, the opponent's hold-OK accepts it)."""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))

import gnubg_import  # noqa: E402

from nardy_host import gamefile  # noqa: E402

NARDY = os.path.join(os.path.dirname(sys.executable), "nardy")

# Short nardy (backgammon), black opens; white plays 3 pips with 4-2 (C3), black
# accepts it; white resigns. Black's path point k is P k, white's P(25 - k).
SHORT_ACCEPTED = """
new short match 3
opening 2 5
press ok
dice 6 1
press ok
expect roll side=black dice=6,1
lift P12
place P18
lift P17
place P18
press ok
expect turn side=black steps=12/18,17/18 accepted=false
dice 4 2
press ok
expect roll side=white dice=4,2
lift P13
place P10
expect warn
press ok
hold ok
expect turn side=white accepted=true
dice 5 3
press ok
expect roll side=black dice=5,3
lift P12
place P17
lift P17
place P20
press ok
expect turn side=black steps=12/17,17/20 accepted=false
hold back
press ok
expect game_end
"""

# Short nardy, white opens, legal turns only (a .mat); black resigns.
SHORT_LEGAL = """
new short
opening 6 1
press ok
dice 6 1
press ok
lift P13
place P7
lift P8
place P7
press ok
expect turn side=white steps=12/18,17/18 accepted=false
dice 4 2
press ok
lift P12
place P16
lift P17
place P19
press ok
expect turn side=black steps=12/16,17/19 accepted=false
dice 3 1
press ok
lift P8
place P5
lift P6
place P5
press ok
expect turn side=white accepted=false
dice 2 2
press ok
hold back
press ok
expect game_end
"""

# Long nardy, black opens (black's head P12 = its path 1, path k = P(13 - k) up to
# 12); white takes a second checker off its head (L3), black accepts; white resigns.
LONG_BLACK_OPENS = """
new long match 1
opening 3 5
press ok
expect roll rolls=3/5
dice 6 5
press ok
expect roll side=black dice=6,5
lift P12
place P6
lift P6
place P1
press ok
expect turn side=black steps=1/7,7/12 accepted=false
dice 4 2
press ok
expect roll side=white dice=4,2
lift P24
place P20
lift P24
place P22
expect warn rule=L3
press ok
hold ok
expect turn side=white accepted=true rule=L3
dice 3 1
press ok
expect roll side=black dice=3,1
lift P12
place P9
lift P9
place P8
press ok
expect turn side=black steps=1/4,4/5 accepted=false
hold back
press ok
expect game_end
"""


def _run(*args, timeout=120):
    r = subprocess.run([NARDY, *args], capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, (args, r.stdout[-2000:], r.stderr[-2000:])
    return r


def test_play_pull_export_and_import_into_gnubg(tmp_path):
    board = tmp_path / "flash"
    for i, script in enumerate((SHORT_ACCEPTED, SHORT_LEGAL, LONG_BLACK_OPENS)):
        p = tmp_path / ("game%d.nardy" % i)
        p.write_text(script)
        _run("script", "--quiet", "--data", str(board), str(p))
    pulled = tmp_path / "pulled"
    _run("log", "--port", "vboard:%s" % board, "--out", str(pulled), "--quiet")
    journals = sorted(pulled / n for n in os.listdir(pulled) if n.endswith(".jsonl"))
    assert len(journals) == 3, os.listdir(pulled)
    games = [gamefile.read(str(j)) for j in journals]
    assert [g.variant.name for g in games] == ["short", "short", "long"]
    assert [g.first for g in games] == [1, 0, 1]          # black, white, black
    assert all(g.end and g.end.get("resigned") for g in games)
    assert [sum(t["accepted"] for t in g.turns) for g in games] == [1, 0, 1]

    out = tmp_path / "exported"
    _run("export", str(pulled), "--out-dir", str(out))
    stems = [j.name[:-6] for j in journals]
    sgf, mat, txt = out / (stems[0] + ".sgf"), out / (stems[1] + ".mat"), out / (
        stems[2] + ".txt")
    assert sorted(os.listdir(out)) == sorted(f.name for f in (sgf, mat, txt))

    # the short games in real gnubg: every position, who moved, dice, result
    seen = gnubg_import.load_all(tmp_path, [sgf, mat])
    for j, f in ((journals[0], sgf), (journals[1], mat)):
        n, accepted = gnubg_import.compare(j, seen[str(f)])
        assert n >= 3
        assert seen[str(f)]["info"]["resigned"]
    assert "MI[length:3]" in sgf.read_text()

    # the long game: black first in the record, and it replays through the engine
    text = txt.read_text()
    assert "; first: black" in text
    r = _run("export", "--read", str(txt))
    assert r.stdout.strip().endswith(games[2].turns[-1]["pos"])
    r = _run("export", str(journals[2]), "--format", "json")
    assert json.loads(r.stdout)["first"] == "black"


def test_a_game_downloaded_from_the_simulator_page_exports(tmp_path):
    """The page's "download the game" (GET /api/log) gives a journal export reads."""
    import urllib.request

    from nardy_host.session import Session, VirtualLink
    from nardy_host.simweb import Hub, Server
    s = Session(lambda cb: VirtualLink(str(tmp_path / "flash"), cb))
    s.start()
    srv = Server(Hub(s, "sim")).start()
    try:
        def act(**a):
            req = urllib.request.Request(srv.url.rstrip("/") + "/api/action",
                                         data=json.dumps(a).encode(),
                                         headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(req, timeout=60) as r:
                assert r.status == 200
        act(action="new", variant="short", match=3)
        act(action="dice", dice=[2, 5])            # the opening: black starts
        act(action="press", button="ok", kind="short")
        act(action="dice", dice=[6, 1])
        act(action="press", button="ok", kind="short")
        act(action="move", **{"from": 12, "to": 18})
        act(action="move", **{"from": 17, "to": 18})
        act(action="press", button="ok", kind="short")
        act(action="press", button="back", kind="long")   # white resigns,
        act(action="press", button="ok", kind="short")    # asked first
        with urllib.request.urlopen(srv.url.rstrip("/") + "/api/log", timeout=60) as r:
            body = r.read()
    finally:
        srv.stop()
        s.close()
    j = tmp_path / "game1.jsonl"
    j.write_bytes(body)
    r = _run("export", str(j), "--format", "json")
    got = json.loads(r.stdout)
    assert got["first"] == "black" and got["end"]["resigned"] == "white"
    assert [t["side"] for t in got["turns"]] == ["black"]
    r = _run("export", str(j))
    assert " 3 point match" in r.stdout and "61: 13/7 8/7" in r.stdout
