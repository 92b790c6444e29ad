"""Accepting an illegal turn through the App (button routing, screen and journal):
the mover's OK ends the turn and shows the opponent's prompt; more short presses
accept nothing; the opponent's long press does (seed 001 §3.4). CPython: the whole
app does not fit the firmware runner's 112wK heap next to a test."""

import json
import os

from apputil import Obs, rmtree, tmpdir
from test_oledtext import Canvas

from nardy.app import App
from nardy.game import ACCEPT, MOVE, ROLL
from nardy.hal_esp32 import Board
from nardy.pinmap import load
from nardy_host import oledtext

HERE = os.path.dirname(os.path.abspath(__file__))


class CpyBoard(Board):
    def ticks_ms(self):       # CPython's time has no ticks_ms
        return 0


class Leds:
    def show(self, frame):
        self.frame = bytes(frame)


def _app(name):
    pm = load(os.path.join(HERE, "..", "..", "firmware", "pinmap", "esp32s3.json"))
    data = tmpdir(name)
    out = []
    board = CpyBoard(pm, None, Leds(), Canvas(), None, flash_dir=data, write=out.append)
    app = App(board, data)
    app.boot()
    return app, board, data, out


def _screen(app, board):
    app.redraw(force=True)
    return oledtext.text(board.display.hex())


def _turns(out):
    evs = [json.loads(x) for x in out]
    return [e["rec"] for e in evs if e.get("ev") == "turn"]


def _illegal_step(v, pos, dice):
    """A step onto an empty point by a distance no die allows (whatever the roll: a
    distance that is also a sum of the dice is skipped by the targets check)."""
    for d in range(1, 7):
        if d in dice:
            continue
        for f in range(1, 24):
            t = f + d
            if (t <= 24 and pos.count(pos.turn, f) and not pos.count(pos.turn, 0)
                    and pos.count(1 - pos.turn, v.opp_point(t)) < 1
                    and t not in v.targets(pos, dice, (), f)):
                return f, t
    raise AssertionError("no illegal step found for %r" % (dice,))


def test_app_accepts_only_the_opponents_long_press():
    app, board, data, out = _app("appaccept")
    try:
        app.line_in(b'{"cmd": "new", "variant": "short", "match": 1}')
        g = app.game
        v = g.variant
        obs = Obs(app.layout).show(v, g.pos)
        g.observe(obs)
        app.have_obs = True
        app.sensing = obs          # what the app hands to the game with a press
        app.button("ok", "short")                  # opening roll
        while g.phase != MOVE:
            app.button("ok", "short")
        pos = g.pos
        f, t = _illegal_step(v, pos, g.dice)
        g.observe(obs.show(v, pos, hand=(pos.turn, f)))
        g.observe(obs.show(v, v.apply_step(pos, (f, t))))
        assert g.warning() is not None
        assert "OK: end turn" in _screen(app, board).replace("\n", " ")
        app.button("ok", "short")                  # the mover ends the turn
        assert g.turn_state() == ACCEPT
        screen = _screen(app, board).replace("\n", " ")
        assert "Opponent: hold OK to accept, BACK to take back" in screen, screen
        app.button("ok", "short")                  # the mover again
        app.button("ok", "short")
        assert g.phase == MOVE and not _turns(out)
        app.button("ok", "long")                   # the opponent
        turns = _turns(out)
        assert g.phase == ROLL and len(turns) == 1 and turns[0]["accepted"], turns
        app.journal.close()
    finally:
        rmtree(data)
