"""A Game with its journal and a fake sensor view, for the firmware tests that drive
the match flow by observations (test_game, test_botplay). Each test module adds how
its hands play a turn (``play_turn``). A small module of its own: importing a whole
test module for it would leave a 112wK MicroPython heap in pieces."""

import json

from apputil import Obs, Rand, rmtree, tmpdir

from nardy.dice import Dice
from nardy.game import Game
from nardy.journal import Journal
from nardy.zones import Layout

LAYOUT = Layout(5)


class GameBoard:
    def __init__(self, name, seed=1, settings=None):
        self.dir = tmpdir(name)
        self.events = []      # events without a record (the last few)
        self.error = None     # the last error event's text (a failing test says it)
        # committed events go to a file: a whole game's list would not fit the heap
        self.log = open(self.dir + "/events.txt", "w")  # noqa: SIM115
        self.j = Journal(self.dir)
        self.j.scan()
        self.g = Game(self.j, LAYOUT, self._emit, Dice(Rand(seed)), settings or {})
        self.obs = Obs(LAYOUT)
        self.rng = Rand(seed + 7)

    def _emit(self, ev):
        if "seq" in ev:
            self.log.write("%d %s\n" % (ev["seq"], json.dumps(ev["rec"])))
        else:
            self.events.append(ev["ev"])
            if ev["ev"] == "error":
                self.error = ev.get("error")
            if len(self.events) > 20:
                self.events.pop(0)

    def show(self, pos, hand=None):
        self.obs.show(self.g.variant, pos, hand)
        self.g.observe(self.obs)

    def close(self):
        self.j.close()
        self.log.close()
        rmtree(self.dir)
