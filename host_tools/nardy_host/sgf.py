"""A short-nardy game as GNU Backgammon's SGF (``load match FILE.sgf`` in gnubg).

Unlike the Jellyfish ``.mat`` (a list of moves gnubg replays and checks), gnubg's
SGF can hold a position that no legal move reaches: a setup node (``AE`` clears
the points, ``AW``/``AB`` put the checkers, ``PL`` the side to roll). A turn the
opponent accepted although it broke a rule (seed 001 §3.4) is marked with a comment
(``C``) giving the side, the dice, the rule and the steps as read off the board. It
is a move node (also marked a very bad move, ``BM[2]``) when gnubg's move replays
its steps to the position the board saw (forward steps of 1..6, at most four), else
a setup node with that position. Several accepted turns in a row that need a setup
are one setup node (gnubg keeps only the last of consecutive setups) whose comment
lists them all. Every legal turn is an ordinary move node, so gnubg replays and
analyses the game as usual.

gnubg 1.07 reads a setup node's properties in order and swaps its board on ``PL``:
``PL`` must come first, and no dice node (``DI``) may come before the setup (gnubg
then replays the positions after it mirrored), so the dice of an accepted turn are
in the comment only. ``tests/host/test_export.py`` checks every position gnubg holds
against the journal's.

gnubg's board holds one colour per point: a board the opponent accepted with both
colours on one (``nardy.posjson``'s ``mixed``) cannot be a gnubg game. Such a game is
a ``gamefile.BadGame`` here, whose message says so and names ``--format json``,
which keeps it whole.

White is gnubg's first player (``W``; X in its dumps), black the second (``B``, O).
Points are letters ``a``..``x`` for index 0..23, ``y`` the bar, ``z`` off. A move
is in the mover's own numbering (white: gnubg point - 1, black: 24 - point); a setup
node in white's (black's checkers at 24 - their point).
"""

from nardy.rules import BLACK, COLORS, WHITE
from nardy_host.gamefile import BadGame, shared_point

_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_TAG = {WHITE: "W", BLACK: "B"}


def _text(s):
    """An SGF text value: ``]`` and ``\\`` escaped."""
    return s.replace("\\", "\\\\").replace("]", "\\]")


def _point(side, k):
    """Our path point k of ``side`` (0 bar, 25 off) as the mover's SGF letter."""
    if k == 0:
        return "y"
    if k == 25:
        return "z"
    return _LETTERS[24 - k] if side == WHITE else _LETTERS[k - 1]


def _setup(pos, to_move):
    """PL, AE, AW, AB: the side to roll, then the whole board (bar included)."""
    parts = ["PL[%s]AE[a:y]" % _TAG[to_move]]
    for color, tag in ((WHITE, "AW"), (BLACK, "AB")):
        cells = []
        for k in range(25):
            cells.extend(["[%s]" % _point(color, k)] * pos.count(color, k))
        if cells:
            parts.append(tag + "".join(cells))
    return "".join(parts)


def _result(end):
    if not end or end.get("winner") not in COLORS:
        return ""
    return "RE[%s+%d%s]" % (_TAG[COLORS.index(end["winner"])], end["points"],
                            "R" if end.get("resigned") else "")


def _as_move(variant, turn, before, after):
    """True if gnubg's move replays the turn's steps to ``after``: at most 4 steps,
    each forward by 1..6, landing on at most one opposing checker."""
    if len(turn["steps"]) > 4:
        return False
    pos = before
    for f, t in turn["steps"]:
        if not f < t <= f + 6 or (
                t < 25 and pos.count(1 - pos.turn, variant.opp_point(t)) > 1):
            return False
        try:
            pos = variant.apply_step(pos, (f, t))
        except ValueError:
            return False
    return pos.board == after.board


def _move(side, turn):
    return "%s[%d%d%s]" % (_TAG[side], turn["dice"][0], turn["dice"][1], "".join(
        _point(side, f) + _point(side, t) for f, t in turn["steps"]))


def export(game, positions):
    """The SGF text of ``game`` (a ``gamefile.Game`` of short nardy); ``positions``
    yields (turn record, position before it, position after it)."""
    head = ("(;FF[4]GM[6]CA[UTF-8]AP[nardy]MI[length:%d][game:%d][ws:%d][bs:%d]"
            "PW[White]PB[Black]%s" % (game.length, game.number - 1, game.score[0],
                                      game.score[1], _result(game.end)))
    nodes = [head]
    notes = []          # accepted turns waiting for one setup node
    setup = None
    for turn, before, after in positions:
        side = COLORS.index(turn["side"])
        p = shared_point(game.variant, after)
        if p:
            raise BadGame("turn %d left both colours on P%d (accepted so): gnubg's board "
                          "cannot hold that; use --format json" % (turn["n"], p))
        if not turn.get("accepted"):
            if setup:
                nodes.append(";%sC[%s]" % (setup, _text(" / ".join(notes))))
                setup, notes = None, []
            nodes.append(";" + _move(side, turn))
            continue
        steps = " ".join("%d/%d" % (25 - f, 25 - t) for f, t in turn["steps"]) or "-"
        note = ("%s's turn %d, dice %d-%d, broke %s and was accepted as played: %s"
                % (COLORS[side].capitalize(), turn["n"], turn["dice"][0], turn["dice"][1],
                   turn.get("rule") or "a rule", steps))
        if not setup and _as_move(game.variant, turn, before, after):
            nodes.append(";%sBM[2]C[%s]" % (_move(side, turn), _text(note)))
            continue
        # gnubg keeps one setup of several in a row (the last): one node, every note
        setup = _setup(after, 1 - side)
        notes.append(note)
    if setup:
        nodes.append(";%sC[%s]" % (setup, _text(" / ".join(notes))))
    return "".join(nodes) + ")\n"
