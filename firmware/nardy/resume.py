"""A game resumed after boot (``Game.resume``): the game's state rebuilt from its
records on flash, and the partial turn they hold given back to the tracker. Imported
only while it runs and dropped after (nardy.drop_module): the code is off the heap
in play. It never imports the game back: it rebuilds the game through its public
surface (``Game.restore_match``) and says how far the records go; the game sets
its phase from that and starts the turn's tracking itself.
"""

from nardy.notation import parse_position_id
from nardy.rules import COLORS
from nardy.scoring import needs_last_roll, opening_winner


def load(g, gid, recs):
    """``Game.resume``'s work: ``g`` rebuilt from a game's records. Returns how far
    they go: "start" (no opening roll yet), "open" or "turn" (a roll is next), "roll"
    (a turn is being moved: ``g.jsteps`` holds its partial steps) or "end" (the game
    is over: ``g.result``, recorded in the match)."""
    recs = iter(recs)
    hdr = next(recs)
    if hdr.get("r") != "game":
        raise ValueError("journal without a game line")
    m = (hdr.get("meta") or {}).get("match") or {}
    g.restore_match({"variant": hdr["variant"], "options": hdr.get("options") or {},
                     "length": int(m.get("length", 1)),
                     "white_player": int(m.get("white_player", 0)),
                     "score": list(m.get("score", [0, 0])),
                     "game": int(m.get("game", 1)), "no": int(m.get("no", 1))})
    g.gid = gid
    g.pos = parse_position_id(hdr["start"])[1]
    stage = "start"
    for rec in recs:
        k = rec.get("r")
        if k == "open":
            g.opening = [tuple(x) for x in rec["rolls"]]
            w, b = g.opening[-1]
            g.pos.turn = opening_winner(w, b)
            stage = k
        elif k == "roll":
            g.dice = (rec["dice"][0], rec["dice"][1])
            g.pos.turn = COLORS.index(rec["side"])
            g.jsteps = []
            stage = k
        elif k == "step":
            g.jsteps.append((rec["from"], rec["to"]))
        elif k == "undo":
            if g.jsteps and g.jsteps[-1] == (rec["from"], rec["to"]):
                g.jsteps.pop()
        elif k == "turn":
            g.pos = parse_position_id(rec["pos"])[1]
            g.n = rec["n"]
            g.dice = None
            g.jsteps = []
            stage = k
            if rec.get("last_roll"):
                g.last_roll = True
        elif k == "end":
            w = rec.get("winner")
            r = rec.get("resigned")
            g.resigned = COLORS.index(r) if r in COLORS else None
            g.result = (None if w is None else COLORS.index(w), rec["kind"],
                           rec["points"])
    if needs_last_roll(g.variant, g.pos):
        g.last_roll = True
    if g.result is not None:
        g.match.record(g.result)
        return "end"
    return stage


def replay(t, steps):
    """A turn resumed after a power cut: ``steps``, the partial turn the journal
    holds, become the tracker ``t``'s, so the board is explained from them (searched
    afresh, an equivalent path, or none where the sensors cannot show a step, would
    be taken instead). Only legal steps: else the turn starts over, and the board is
    explained as it comes. Returns True when taken."""
    played = ()
    chain = [t.pos0]
    for st in steps:
        st = (st[0], st[1])
        if st not in t.next_steps(played):
            return False
        chain.append(t.v.apply_step(chain[-1], st))
        played += (st,)
    t.hyps = [(played, chain, (0,) * len(played))]
    t.watch_stack()
    return True
