"""Import exported games into the real GNU Backgammon (Debian ``gnubg``, run with
``-t`` and a Python script) and compare every position gnubg reconstructs with the
journal's: a legal turn must be a gnubg move by the same side with the same dice
reaching the same position, an accepted illegal turn a setup of the position after
it, commented with the rule and the dice."""

import json
import os
import shutil
import subprocess

import gnubg_nn
from gnubg_ref import to_gnubg

from nardy.rules import COLORS
from nardy_host import gamefile

GNUBG = shutil.which("gnubg") or "/usr/games/gnubg"

# Runs inside gnubg (its embedded Python): load every file and walk through it record
# by record (gnubg.navigate) taking the position gnubg itself holds at each: the
# "board" of gnubg.match()'s dump is not reliable after a setup node with the second
# player to roll. The dump still gives each record's kind, player, dice and comment.
_SCRIPT = """
import gnubg, json
out = {}
for path in open(%(list)r).read().split():
    gnubg.command("new match 1")
    if path.endswith(".sgf"):
        gnubg.command("load match " + path)
    else:
        gnubg.command("import mat " + path)
    g = gnubg.match(analysis=0, boards=0, statistics=0, verbose=0)["games"][0]
    walk = []
    gnubg.navigate()
    for _ in range(len(g["game"]) + 1):
        try:
            walk.append(gnubg.positionid())
        except ValueError:
            walk.append(None)
        gnubg.navigate(next=1)
    out[path] = {"actions": [[a.get("action"), a.get("player"), a.get("dice"),
                              a.get("comment")] for a in g["game"]],
                 "walk": walk, "info": g["info"]}
json.dump(out, open(%(out)r, "w"))
"""


def load_all(tmp_path, files):
    """{file: what gnubg saw} for .mat and .sgf files, one gnubg run."""
    assert os.path.exists(GNUBG), "GNU Backgammon is missing: apt-get install gnubg"
    lst = tmp_path / "gnubg-list.txt"
    lst.write_text("\n".join(str(f) for f in files))
    script = tmp_path / "gnubg-import.py"
    result = tmp_path / "gnubg-seen.json"
    script.write_text(_SCRIPT % {"list": str(lst), "out": str(result)})
    r = subprocess.run([GNUBG, "-t", "-q", "-p", str(script)], capture_output=True,
                       text=True, timeout=900)
    assert result.exists(), r.stdout[-2000:] + r.stderr[-2000:]
    return json.loads(result.read_text())


def pid(pos, turn):
    p = pos.copy()
    p.turn = turn
    return gnubg_nn.position_id(to_gnubg(p))


def player(side):
    """gnubg's name of our side: white is gnubg's X (the .mat's left column, the
    SGF's W), black its O."""
    return "X" if side == 0 else "O"


def compare(journal, seen):
    """Assert gnubg's game equals the journal's; returns (turns compared, accepted
    turns among them)."""
    game = gamefile.read(str(journal))
    where = [i for i, a in enumerate(seen["actions"]) if a[0] in ("move", "set")]
    acts = [seen["actions"][i] for i in where]
    walk = seen["walk"]         # walk[i + 1]: the position after gnubg's record i
    assert walk[0] == pid(game.start, game.first), journal
    k = 0
    accepted = 0
    turns = list(zip(game.turns, game.afters))
    for i, (t, after) in enumerate(turns):
        side = COLORS.index(t["side"])
        act, who, dice, comment = acts[k]
        if t["accepted"]:       # marked: the rule and the dice in gnubg's comment
            accepted += 1
            assert t["rule"] in comment and "accepted" in comment, comment
            assert "%s's turn %d, dice %d-%d" % (
                t["side"].capitalize(), t["n"], t["dice"][0], t["dice"][1]) in comment
            if act == "set" and i + 1 < len(turns) and turns[i + 1][0]["accepted"] and (
                    "turn %d," % turns[i + 1][0]["n"]) in comment:
                continue        # one setup for accepted turns in a row: check the last
        if act == "move":
            assert who == player(side), (journal, t["n"], acts[k])
            assert sorted(dice) == sorted(t["dice"]), (journal, t["n"])
        else:
            assert act == "set" and t["accepted"], (journal, t["n"], acts[k])
        # the position gnubg holds after the record, the opponent on roll (None: the
        # game is over, gnubg has no position on roll)
        at = walk[where[k] + 1]
        assert at == pid(after, 1 - side) or (at is None and i == len(turns) - 1), (
            journal, t["n"], at, pid(after, 1 - side))
        k += 1
    assert k == len(acts), (journal, "gnubg has more records", acts[k:])
    others = [a[0] for a in seen["actions"] if a[0] not in ("move", "set")]
    assert others == (["resign"] if game.end and game.end.get("resigned") else []), others
    if game.end and game.end["winner"] in COLORS:
        assert seen["info"]["winner"] == player(COLORS.index(game.end["winner"]))
        assert seen["info"]["points-won"] == game.end["points"]
    return len(game.turns), accepted
