"""``Game.state``: the game as plain data, for ``dump``, ``hello`` and tests.
Imported only while it runs and dropped after (nardy.drop_module), with
nardy.posjson: the code is off the heap in play. What only the game knows (whether
a turn is being moved, the countdown) the game passes in: this module never imports
its owner back.
"""

from nardy.posjson import to_json
from nardy.rules import COLORS


def state(g, moving, auto_end_ms):
    """Plain data for ``dump`` and tests: the ``Game`` ``g``'s phase, position,
    dice, steps, match and result; ``moving``: a turn is in MOVE (the tracker's state
    is shown), ``auto_end_ms``: ms until the turn ends by itself, or -1."""
    pos = None if g.pos is None else to_json(g.pos)
    d = {"phase": g.phase, "game": g.gid,
         "variant": g.variant.name if g.variant else None,
         "options": dict(g.variant.options) if g.variant else None,
         "position": pos,
         "dice": list(g.dice) if g.dice else None,
         "steps": [[f, t] for f, t in g.jsteps], "turn_no": g.n,
         "opening": [list(x) for x in g.opening],
         "tracker": g.tracker.state_name() if g.tracker and
         moving else None,
         "message": list(g.message) if g.message else None,
         "auto_end": auto_end_ms if auto_end_ms >= 0 else None,
         "turn_state": g.turn_state(),
         "resigning": g.resigning}
    if g.match is not None:
        d["match"] = {"length": g.match.length, "score": list(g.match.score),
                      "white_player": g.match.white_player, "game": g.game_no,
                      "over": g.match.over}
    if g.shown is not None:
        d["bot"] = g.shown.state()
        d["bot"]["next"] = g.shown.next_step(g.jsteps)
    if g.result is not None:
        d["result"] = {"winner": None if g.result[0] is None
                       else COLORS[g.result[0]], "kind": g.result[1],
                       "points": g.result[2],
                       "resigned": None if g.resigned is None
                       else COLORS[g.resigned]}
    return d
