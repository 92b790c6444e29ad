"""Game records: the journal format, one JSON object per line.

The board appends to one journal file per game on its flash and flushes every line
before it shows the step as done; self-play (``nardy selfplay --log DIR``) writes the
same lines, one ``.jsonl`` file per game. Pure: building and checking lines only, the
caller does the I/O.

Records (``"r"`` is the kind, ``"n"`` the turn number from 1, ``"side"`` "white" or
"black", positions are ``notation.position_id`` texts, steps are ``[from, to]`` in the
mover's path points, 0 = bar, 25 = off)::

    {"r": "game", "v": 1, "variant": "long", "options": {...}, "start": "Lw-...",
     "meta": {...}}                                     first line of every journal
    {"r": "roll", "n": 1, "side": "white", "dice": [6, 5]}
    {"r": "step", "n": 1, "from": 1, "to": 7}           a committed step
    {"r": "undo", "n": 1, "from": 1, "to": 7}           the step was taken back
    {"r": "warn", "n": 1, "rule": "L3", "text": "...", "points": [24, 18]}
    {"r": "turn", "n": 1, "side": "white", "dice": [6, 5], "steps": [[1, 7], [7, 12]],
     "pos": "Lb-...", "accepted": false, "rule": null}  the turn as finally played
    {"r": "end", "winner": "white", "kind": "oin", "points": 1}

``turn`` lines are authoritative: replaying a journal applies their ``pos``; roll,
step, undo and warn lines tell the story of the turn (and let a rebooted board resume
a turn in progress). ``accepted`` is true when the opponent accepted an illegal turn
as played (seed 001 §3.4); ``rule`` then names the rule it broke. ``steps`` may be
empty for an accepted turn whose steps the board could not tell.
"""

import json

from nardy.notation import parse_position_id, position_id
from nardy.rules import COLORS

VERSION = 1
KINDS = ("game", "roll", "step", "undo", "warn", "turn", "end")


def game(variant, start, meta=None):
    return {"r": "game", "v": VERSION, "variant": variant.name,
            "options": dict(variant.options), "start": position_id(variant, start),
            "meta": meta or {}}


def roll(n, side, dice):
    return {"r": "roll", "n": n, "side": COLORS[side], "dice": [dice[0], dice[1]]}


def step(n, st, undo=False):
    return {"r": "undo" if undo else "step", "n": n, "from": st[0], "to": st[1]}


def warn(n, rule, text, points=()):
    return {"r": "warn", "n": n, "rule": rule, "text": text, "points": list(points)}


def turn(variant, n, side, dice, steps, pos, accepted=False, rule=None):
    return {"r": "turn", "n": n, "side": COLORS[side], "dice": [dice[0], dice[1]],
            "steps": [[s[0], s[1]] for s in steps], "pos": position_id(variant, pos),
            "accepted": bool(accepted), "rule": rule}


def end(winner, kind, points):
    return {"r": "end", "winner": None if winner is None else COLORS[winner],
            "kind": kind, "points": points}


def dumps(rec):
    """One journal line (no newline)."""
    return json.dumps(rec)


def loads(line):
    """Parse and check one line; ValueError if it is not a journal record."""
    try:
        rec = json.loads(line)
    except ValueError:
        raise ValueError("not JSON") from None
    if not isinstance(rec, dict) or rec.get("r") not in KINDS:
        raise ValueError("not a journal record")
    k = rec["r"]
    if k == "game" and rec.get("v") != VERSION:
        raise ValueError("journal version %r" % rec.get("v"))
    if k == "turn":
        for f in ("n", "side", "dice", "steps", "pos", "accepted"):
            if f not in rec:
                raise ValueError("turn record without %s" % f)
        parse_position_id(rec["pos"])
    return rec


def replay(lines):
    """Read a journal: (header, list of turn records, end record or None, the last
    position as (variant name, Position) or None). A broken last line (power cut
    during a write) is ignored; a broken line elsewhere raises ValueError."""
    header = None
    turns = []
    last = None
    fin = None
    lines = [ln for ln in lines if ln.strip()]
    for i, ln in enumerate(lines):
        try:
            rec = loads(ln)
        except ValueError:
            if i == len(lines) - 1:
                break
            raise
        k = rec["r"]
        if k == "game":
            header = rec
            last = parse_position_id(rec["start"])
        elif k == "turn":
            turns.append(rec)
            last = parse_position_id(rec["pos"])
        elif k == "end":
            fin = rec
    if header is None:
        raise ValueError("journal without a game line")
    return header, turns, fin, last
