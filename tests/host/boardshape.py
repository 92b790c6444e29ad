"""Journals in the exact shapes the board, the virtual board and older firmware
write, made from the random games of ``journals.play`` (which writes self-play's
shape: the mover in the start position, ``meta.match`` a number)."""

import json

from nardy.rules import COLORS


def opening_rolls(first):
    """An opening roll (C2) that ``first`` wins."""
    return [[5, 3]] if first == "white" else [[2, 2], [3, 5]]


def board_shape(recs, old=False, length=1, score=(0, 0), game_no=1):
    """The records as the board writes them: the start position always says white,
    ``meta.match`` is a dict, the opening roll decides who moves first. ``old``:
    firmware before ``first`` existed (no ``first`` in the header or ``open``)."""
    head = dict(recs[0])
    first = COLORS[1] if head["start"][1] == "b" else COLORS[0]
    head["start"] = head["start"][0] + "w" + head["start"][2:]
    head["meta"] = {"match": {"length": length, "score": list(score), "white_player": 0,
                              "game": game_no, "no": 1}}
    opening = {"r": "open", "rolls": opening_rolls(first)}
    if old:
        head.pop("first", None)
    else:
        head["first"] = None
        opening["first"] = first
    return [head, opening] + [dict(r) for r in recs[1:]]


def write(path, recs):
    with open(path, "w") as f:
        for r in recs:
            f.write(json.dumps(r) + "\n")
    return str(path)
