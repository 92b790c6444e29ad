"""A short-nardy game as GNU Backgammon's SGF (``load match FILE.sgf`` in gnubg).

Unlike the Jellyfish ``.mat``, gnubg's SGF can hold a position that no legal move
reaches: a setup node (``AE`` clears points, ``AW``/``AB`` add checkers, ``PL`` the
side to roll). So a turn the opponent accepted although it broke a rule (seed 001
§3.4) is written as the dice that were rolled (``DI``) and then a setup node with
the position the board saw after it, commented (``C``) with the rule and the steps
as read off the board. Every legal turn is an ordinary move node, so gnubg replays
and analyses the game as usual.

White is gnubg's first player (``W``, shown as O), black the second (``B``, X).
Points are letters: ``a``..``x`` index 0..23, ``y`` the bar, ``z`` off. A move is
in the mover's own numbering (white: index = gnubg point - 1, black: 24 - point);
setup nodes are in white's (black's checkers at 24 - point).
"""

from nardy.rules import BLACK, COLORS, WHITE

_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_TAG = {WHITE: "W", BLACK: "B"}


def _text(s):
    """An SGF text value: ``]`` and ``\\`` escaped."""
    return s.replace("\\", "\\\\").replace("]", "\\]")


def _move_point(side, k):
    """Our path point k of ``side`` (0 bar, 25 off) as the mover's SGF letter."""
    if k == 0:
        return "y"
    if k == 25:
        return "z"
    return _LETTERS[24 - k] if side == WHITE else _LETTERS[k - 1]


def _setup(pos, to_move):
    """AE/AW/AB/PL: the whole board (bar included) set to ``pos``."""
    parts = ["PL[%s]AE[a:y]" % _TAG[to_move]]
    for color in (WHITE, BLACK):
        cells = []
        for k in range(0, 25):
            n = pos.count(color, k)
            if k == 0:
                letter = "y"
            else:
                letter = _LETTERS[24 - k] if color == WHITE else _LETTERS[k - 1]
            cells.extend(["[%s]" % letter] * n)
        if cells:
            parts.append(("AW" if color == WHITE else "AB") + "".join(cells))
    return "".join(parts)


def _result(end):
    if not end or end.get("winner") not in COLORS:
        return ""
    return "RE[%s+%d%s]" % (_TAG[COLORS.index(end["winner"])], end["points"],
                            "R" if end.get("resigned") else "")


def export(game, positions):
    """The SGF text of ``game`` (a ``gamefile.Game`` of short nardy); ``positions``
    yields (turn record, position before it, position after it)."""
    length, number, score = game.length, game.number, game.score
    head = ("(;FF[4]GM[6]CA[UTF-8]AP[nardy]MI[length:%d][game:%d][ws:%d][bs:%d]"
            "PW[White]PB[Black]%s" % (length, number - 1, score[0], score[1],
                                      _result(game.end)))
    nodes = [head]
    for turn, _before, after in positions:
        side = COLORS.index(turn["side"])
        dice = "%d%d" % (turn["dice"][0], turn["dice"][1])
        if not turn.get("accepted"):
            nodes.append(";%s[%s%s]" % (_TAG[side], dice, "".join(
                _move_point(side, f) + _move_point(side, t) for f, t in turn["steps"])))
            continue
        steps = " ".join("%d/%d" % (25 - f, 25 - t) for f, t in turn["steps"]) or "-"
        note = ("%s's turn %d, dice %d-%d, broke %s and was accepted as played: %s"
                % (COLORS[side].capitalize(), turn["n"], turn["dice"][0], turn["dice"][1],
                   turn.get("rule") or "a rule", steps))
        nodes.append(";PL[%s]DI[%s]" % (_TAG[side], dice))
        nodes.append(";%sC[%s]" % (_setup(after, 1 - side), _text(note)))
    return "".join(nodes) + ")\n"
