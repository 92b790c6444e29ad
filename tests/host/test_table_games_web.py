"""Issue 21, done when: whole games played on the page as a player plays them, in
real headless Chromium at a laptop's 1366x768 (mouse: drag a checker) and a phone's
390x844 (touch: tap the checker, tap its point), a short and a long game each, every
turn of both sides through the page's own controls (the OK button rolls and ends the
turn, checkers dragged or tapped, a hit's checker carried to the bar, bear-off into
the tray) until the end screen. No turn is lost to a button press: each OK that ends
a turn ends exactly the mover's turn, the log's rolls and turns alternate, the dice
on the page, in the log and on the board agree, and the game ends with the result
the rules give and the end screen's words.

The turns are the rules engine's (nardy.rules: the turn that leaves the mover the
fewest pips, so that a game is short), both sides by hand. The dice come from the
board's own roll, loaded (``dice``) only to keep each game to some dozens of turns.
With NARDY_SHOTS=DIR the page is photographed at the first turn, a hit, a warning,
the bear-off and the end screen. Fixtures: tests/host/test_sim_web.py."""

import json
import os

import pytest
from test_sim_web import WAIT, act, browser, call, log_texts, new_page, sim  # noqa: F401

from nardy.game import zone_of
from nardy.longnardy import LongNardy
from nardy.posjson import from_json
from nardy.rules import WHITE
from nardy.shortnardy import ShortNardy
from nardy_host import oledtext

SIDES = ("white", "black")
ZONE_BAR = 25
SHOTS = os.environ.get("NARDY_SHOTS")


class Table:
    """A player at the page: its buttons, its checkers, what it says."""

    def __init__(self, page, srv, phone, name):
        self.page, self.srv, self.phone, self.name = page, srv, phone, name
        self.shot_kinds = set()
        self.all = []           # every log line of the game, as it came

    # -- what the board and the page say ---------------------------------------------
    def dump(self):
        hub = self.srv.hub
        with hub.lock:
            return hub.s.dump()

    def log(self, after=0):
        """The log's lines numbered above ``after`` (the page keeps the newest 300)."""
        return self.page.evaluate(
            "n => [...document.querySelectorAll('#log li')].filter(e => e.value > n)"
            ".map(e => e.textContent)", after)

    def mark(self):
        """The number of the log's newest line."""
        return self.page.evaluate(
            "() => { const e = document.querySelector('#log li:last-child');"
            " return e ? e.value : 0; }")

    def wait_log(self, text, after=0):
        """Until a log line numbered above ``after`` holds ``text``; that line."""
        self.page.wait_for_function(
            "([t, n]) => [...document.querySelectorAll('#log li')]"
            ".some(e => e.value > n && e.textContent.includes(t))", arg=[text, after],
            timeout=WAIT)
        return [t for t in self.log(after) if text in t][0]

    def screen(self):
        return " ".join(oledtext.lines(json.loads(call(self.srv, "/api/state")[1])["oled"]))

    def shot(self, kind):
        if SHOTS and kind not in self.shot_kinds:
            self.shot_kinds.add(kind)
            self.page.screenshot(path=os.path.join(SHOTS, "%s-%s.png" % (self.name, kind)))

    # -- the player's hands ------------------------------------------------------------
    def _actions(self):
        return self.page.evaluate("() => Number(document.body.dataset.actions || 0)")

    def _settle(self, n):
        self.page.wait_for_function(
            "n => Number(document.body.dataset.actions || 0) >= n"
            " && document.body.dataset.busy === '0'", arg=n, timeout=WAIT)

    def press(self, name):
        n = self._actions()
        sel = 'button[data-button="%s"]' % name
        if self.phone:
            self.page.tap(sel)
        else:
            self.page.click(sel)
        self._settle(n + 1)

    def _checker(self, zone, colour):
        """The middle of a checker of ``colour`` ("w"/"b") on ``zone``, on screen."""
        sel = '#checkers g[data-zone="%d"] circle.top[data-colour="%s"]' % (zone, colour)
        return self._middle(sel)

    def _zone(self, zone):
        return self._middle('#zones rect[data-zone="%d"]' % zone)

    def _middle(self, sel):
        """The middle of an element the page redraws on every frame: asked until
        drawn."""
        for _ in range(100):
            loc = self.page.locator(sel)
            b = loc.last.bounding_box(timeout=WAIT) if loc.count() else None
            if b is not None:
                return b["x"] + b["width"] / 2, b["y"] + b["height"] / 2
            self.page.wait_for_timeout(50)
        raise AssertionError("not drawn: " + sel)

    def carry(self, colour, zf, zt):
        """One checker from zone ``zf`` to ``zt``: dragged with the mouse, or on the
        phone tapped and its point tapped (each the page's lift and place)."""
        n = self._actions()
        x0, y0 = self._checker(zf, colour)
        x1, y1 = self._zone(zt)
        if self.phone:
            self.page.touchscreen.tap(x0, y0)
            self._settle(n + 1)
            self.page.touchscreen.tap(x1, y1)
        else:
            m = self.page.mouse
            m.move(x0, y0)
            m.down()
            m.move((x0 + x1) / 2, (y0 + y1) / 2, steps=2)
            m.move(x1, y1, steps=2)
            m.up()
        self._settle(n + 2)


def _variant(d):
    return LongNardy() if d["variant"] == "long" else ShortNardy()


def _fewest_pips(v, pos, dice):
    """The legal turn (steps) that leaves the mover the fewest pips, most borne off."""
    side = pos.turn
    best = min(v.turns(pos, dice),
               key=lambda sr: (sr[1].pips(side), -sr[1].borne_off(side)))
    return best[0]


def _play_steps(t, v, pos, steps):
    """The steps on the board by hand; a hit's checker carried to the bar."""
    side = pos.turn
    me, opp = "wb"[side], "wb"[1 - side]
    for f, to in steps:
        after = v.apply_step(pos, (f, to))
        zf, zt = zone_of(v, side, f), zone_of(v, side, to)
        t.carry(me, zf, zt)
        if zt > 24:
            t.shot("bear-off")
        if after.board[26 * (1 - side)] > pos.board[26 * (1 - side)]:   # a hit (S3)
            t.shot("hit-half")
            t.carry(opp, zt, ZONE_BAR)
            t.shot("hit")
        pos = after


def _roll(t, side, dice):
    """The mover's OK rolls ``dice`` (loaded): the log, the page and the board agree."""
    start = t.mark()
    act(t.srv, action="dice", dice=list(dice))
    t.press("ok")
    line = t.wait_log("%s rolls" % side, start)
    shown = "-".join(str(x) for x in dice)
    assert line.endswith(shown), line
    d = t.dump()
    if d["phase"] != "move":                     # C5: no die can be played, a pass
        t.wait_log("%s played nothing" % side, start)
        return d
    assert tuple(d["dice"]) == tuple(dice), d["dice"]
    t.page.wait_for_function("t => document.getElementById('dice').textContent === t",
                             arg=shown, timeout=WAIT)
    return d


def _opening(t, first):
    """The opening roll (short nardy; long nardy's first game has none): ``first``
    starts."""
    if t.dump()["phase"] != "opening":
        return
    a, b = (6, 2) if first == WHITE else (2, 6)
    start = t.mark()
    act(t.srv, action="dice", dice=[a, b])
    t.press("ok")
    t.wait_log("opening roll: white %d, black %d" % (a, b), start)


def _turns_of(texts, word):
    return [x.split()[0] for x in texts if x.split()[1:2] == [word]]


def play_game(t, dice_for, board_plays=None):
    """Every turn to the game's end; ``dice_for(side, n)`` the n-th roll of a side.
    Returns the game-over line."""
    n = 0
    while True:
        d = t.dump()
        if d["phase"] == "over" or d.get("result"):
            break
        pos = from_json(_variant(d), d["position"])
        side = pos.turn
        bot = SIDES[side] == board_plays
        before = t.mark()
        if bot:
            # the board rolls for itself; the player moves its checkers as shown
            act(t.srv, action="dice", dice=list(dice_for(side, n)))
            t.press("ok")
            t.wait_log("%s rolls" % SIDES[side], before)
        else:
            _roll(t, SIDES[side], dice_for(side, n))
        if n == 0:
            t.shot("first-turn")
        d = t.dump()
        v = _variant(d)
        if d["phase"] == "move":
            pos = from_json(v, d["position"])
            steps = ([tuple(s) for s in d["bot"]["steps"]] if bot
                     else _fewest_pips(v, pos, tuple(d["dice"])))
            _play_steps(t, v, pos, steps)
            if not bot:
                t.press("ok")                      # the mover takes the dice
        t.wait_log("%s played" % SIDES[side], before)
        texts = t.log(before)
        t.all += texts
        # exactly the mover's turn ended: one more "played", the mover's
        assert _turns_of(texts, "played") == [SIDES[side]], texts
        assert not [x for x in texts if x.startswith("warning")], texts
        n += 1
        if "game over" in " ".join(texts):
            break
    over = t.wait_log("game over")
    t.page.wait_for_timeout(300)
    t.shot("end")
    return over


def _check_alternation(texts):
    """The log's rolls and turns: each roll followed by that side's turn, the sides
    in turn (a lost turn shows as two rolls of one side, or a turn of the other)."""
    seq = [(x.split()[0], x.split()[1]) for x in texts
           if x.split()[1:2] in (["rolls"], ["played"]) and x.split()[0] in SIDES]
    for (s1, k1), (s2, k2) in zip(seq, seq[1:]):
        if k1 == "rolls":
            assert (s2, k2) == (s1, "played"), seq
        else:
            assert k2 == "rolls" and s2 != s1 or "black's last roll" in " ".join(texts), seq


def _start(browser, srv, size, variant, name):  # noqa: F811
    ctx, page, errors, phone = new_page(browser, size)
    page.goto(srv.url)
    page.wait_for_selector("body[data-ready='1']", timeout=WAIT)
    t = Table(page, srv, phone, name)
    if phone:
        page.tap("#variant")
    page.select_option("#variant", variant)
    if phone:
        page.tap("#new")
    else:
        page.click("#new")
    t.wait_log("%s nardy" % variant)
    return t, errors



# The dice, loaded so that white wins in few turns: black rolls 2-1 every turn, white
# 6-6 in short nardy and 5-5 in long nardy (6-6, 4-4 and 3-3 would meet black's head
# on P12, twelve points on from white's: L3 lets one checker a turn leave the head, so
# a long game takes white fifteen turns at least)
def _loaded(variant):
    big = (6, 6) if variant == "short" else (5, 5)
    return lambda side, n: big if side == WHITE else (2, 1)


SIZES = [(1366, 768), (390, 844)]
IDS = ["laptop", "phone"]
# what the end screen and the log call the result (short nardy in backgammon's words)
KINDS = {"short": ("single game", "gammon", "backgammon"), "long": ("oin", "mars", "koks")}


@pytest.mark.parametrize("variant", ["short", "long"])
@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_a_whole_game_on_the_page_loses_no_turn(browser, sim, size, variant):  # noqa: F811
    t, errors = _start(browser, sim, size, variant, "%s-%s" % (IDS[SIZES.index(size)], variant))
    _opening(t, WHITE)
    over = play_game(t, _loaded(variant))
    _check_alternation(t.all)
    rolls = _turns_of(t.all, "rolls")
    assert len(rolls) == len(_turns_of(t.all, "played")) > 10, t.all
    d = t.dump()
    res = d["result"]
    assert res["winner"] == "white", res
    kind = [k for k in KINDS[variant] if "(%s)" % k in over]
    assert kind and over.startswith("game over: white wins") and over.endswith(
        "+%d" % res["points"]), over
    screen = t.screen()
    assert "White wins" in screen and kind[0] in screen and "+%d" % res["points"] in screen, (
        screen)
    assert not errors, errors
    t.page.context.close()
