"""Remote play: the other side is played on another board, through the broker
(docs/NETWORK.md, "Remote play").

Layer: engine (a player, beside the board's own: ``nardy.botplay`` hands the game's
hooks here and passes its ``Shown`` and ``show``; the network task,
``nardy.mqttcast``, feeds it the other board's records). Loaded only when the
broker's settings name a ``peer`` (``Game.bot_setting`` is then "peer"): a board
without a peer never pays its heap.

Each player moves their own checkers on their own board and rolls for their own turns
on it; the opening roll (C2) is rolled by the board whose id sorts first. The other
board's journal records, as it publishes them (``<prefix>/<peer>/event``), are the
remote player's moves and dice here:

- its ``open`` record is this board's opening roll (the same tries: the same first);
- its ``roll`` for the remote side's turn is this board's roll for it (once the board
  here is set up);
- its ``turn`` is shown on the LEDs and the OLED exactly as the board's own engine
  move (``botplay.Shown``), and the hands here carry it out; the tracker ends the
  turn only with its result.

Both boards check every move with their own rules: a remote turn that is illegal here
(its rule id from this board's rules), played with other dice, or that ends on
another position than the other board says, is a sync message on the OLED and a
``peer`` event, and the game waits: never a silent fork.

Nothing is lost to a dropped connection or a power cut: the broker keeps this board's
subscription and what it has not acknowledged (a persistent session, QoS 1), and a
record is acknowledged (PUBACK) only once this board's journal holds its effect (the
roll journaled, the turn carried out); until then the broker delivers it again after
any reconnect or reboot.
"""

import json

from nardy import record
from nardy.rules import COLORS

_peer = None        # the Peer of the game being played (one at a time)


def peer(game):
    """The game's remote player (made anew when the broker's settings change)."""
    global _peer
    m = game.settings.get("mqtt")
    if _peer is None or _peer.cfg is not m:
        _peer = Peer(game, m)
    return _peer


class Peer:
    """What this board knows of the other one: its records waiting to be taken here
    (``held``) and the packet ids to acknowledge (``acks``: the network task sends
    them)."""

    def __init__(self, game, cfg):
        self.game = game
        self.cfg = cfg
        self.name = cfg["peer"]
        self.side = COLORS.index(cfg["side"])       # this board's player's colour
        self.opener = cfg["id"] < cfg["peer"]       # this board rolls the opening (C2)
        self.topic = "%s/%s/" % (cfg["prefix"], cfg["peer"])
        self.pgid = -1          # the other board's game being followed
        self.bound = None       # this board's game that one is played on
        self.held = []          # [rec, (game, seq), packet id]: not taken here yet
        self.acks = []          # packet ids to acknowledge
        self.linked = False     # this board is connected to the broker
        self.online = False     # the other board is (its retained ``online``)
        self.note = None        # the last status or sync message shown

    # -- from the network task --------------------------------------------------------
    def incoming(self, topic, msg, pid):
        """A PUBLISH from the broker (``pid``: its packet id, None at QoS 0)."""
        if topic == self.topic + "online":
            self.online = bytes(msg) == b"1"
            self._ack(pid)
            self.status()
            return
        try:
            d = json.loads(msg)
            g = d["game"]
            key = (g, d["seq"])
            rec = record.check(d["rec"])
        except (ValueError, KeyError, TypeError):
            self._ack(pid)      # not a record: nothing to take (said once)
            self.game.emit({"ev": "error", "error": "peer %s: unreadable record" % self.name})
            return
        if g < self.pgid or rec["r"] not in ("game", "open", "roll", "turn", "end"):
            self._ack(pid)      # an older game's, or nothing this board takes
            return
        if g > self.pgid and self._done():
            self._follow(g)
        for h in self.held:
            if h[1] == key:
                h[2] = pid      # delivered again (a reconnect): acknowledged as this
                return
        self.held.append([rec, key, pid])
        if g > self.pgid:
            # the other board left the game still played here: by a resignation
            # (taken here next), else its player started another game
            e = self.find("end")
            if e is None or not e.get("resigned"):
                self.sync(None, "%s started a new game: start one here too" % self.name)

    def _done(self):
        """The other board's game followed so far is over here, or this board has
        left it: its next game may be followed. Until then that game's records are
        held behind it (the other player may resign and press OK for the next game
        before this board has taken the resignation)."""
        g = self.game
        return self.bound is None or self.bound != g.gid or g.result is not None

    def _follow(self, g):
        """Follow the other board's game ``g``: the older games' records are dropped
        (acknowledged: nothing of them is taken any more)."""
        self.pgid = g
        self.bound = None
        keep = []
        for h in self.held:
            if h[1][0] < g:
                self._ack(h[2])
            else:
                keep.append(h)
        self.held = keep

    def _ack(self, pid):
        if pid is not None:
            self.acks.append(pid)

    def settle(self):
        """Acknowledge the records whose effect this board's journal holds, and once
        the game followed is over here, follow the other board's next one."""
        keep = []
        later = None
        for h in self.held:
            g = h[1][0]
            if g == self.pgid and self._taken(h[0]):
                self._ack(h[2])
            else:
                keep.append(h)
                if g > self.pgid and (later is None or g < later):
                    later = g
        self.held = keep
        if later is not None and self._done():
            self._follow(later)

    def _taken(self, rec):
        g = self.game
        if self.bound is None or self.bound != g.gid:
            return False
        k = rec["r"]
        if k == "game":
            return True         # the header of the game played here with this one
        if k == "open":
            return bool(g.opening)
        if k == "end":
            return g.result is not None
        n = rec["n"]
        if k == "roll":
            return g.n >= n or (g.n == n - 1 and g.dice is not None)
        return g.n >= n

    def net(self, connected):
        """This board's link to the broker changed."""
        self.linked = connected
        if not connected:
            self.acks = []      # packet ids of a closed connection: sent again
        self.status()

    def status(self):
        """A dropped link pauses the game (the remote player's moves cannot come):
        said on the OLED and as a ``peer`` event, and when it is back."""
        if not self.linked:
            self._say("paused: no connection to the broker")
        elif not self.online:
            self._say("paused: %s is offline" % self.name)
        else:
            self._say("playing %s" % self.name)

    def _say(self, text, rule=None):
        if text == self.note:
            return
        self.note = text
        self.game.say(rule, text)
        ev = {"ev": "peer", "state": text}
        if rule is not None:
            ev["rule"] = rule
        self.game.emit(ev)

    def sync(self, rule, text):
        """The boards disagree: the game here waits (nothing is taken)."""
        self._say("sync: " + text, rule)

    # -- what the game's hooks ask (through nardy.botplay) -------------------------------
    def find(self, kind, n=None):
        """The other board's record ``kind`` (of its turn ``n``) in the game followed."""
        for h in self.held:
            r = h[0]
            if h[1][0] == self.pgid and r["r"] == kind and (n is None or r["n"] == n):
                return r
        return None


def _other_game(game, p):
    """Why the other board's game is not the one here (another variant, other
    options, another match length: the two would fork from the first turn), else
    None; None too while its header has not come (its turns are checked anyway)."""
    rec = p.find("game")
    if rec is None:
        return None
    m = rec.get("meta") or {}
    m = m.get("match")
    length = m.get("length") if isinstance(m, dict) else m
    v = game.variant
    if rec.get("variant") != v.name or rec.get("options") != dict(v.options):
        return "%s plays %s nardy %s, here %s nardy %s: start the same game on both" % (
            p.name, rec.get("variant"), json.dumps(rec.get("options")), v.name,
            json.dumps(dict(v.options)))
    if length != game.match.length:
        return "%s plays a match to %s, here to %d: start the same match on both" % (
            p.name, length, game.match.length)
    return None


def rolls_there(game, opening):
    """OK pressed for a roll: True (and why, on the OLED) when that roll is the other
    board's, or the opening waits for the other board to be on the broker (and to
    play the same game)."""
    p = peer(game)
    if opening:
        if not p.opener:
            game.say(None, "the opening roll is %s's" % p.name)
            return True
        if not p.online:
            game.say(None, "waiting for %s to connect" % p.name)
            return True
        why = _other_game(game, p)
        if why is not None:
            p.sync(None, why)
            return True
        return False
    if game.pos.turn != p.side:
        game.say(None, "%s rolls for %s" % (p.name, COLORS[game.pos.turn]))
        return True
    return False


class _Given:
    """The dice the other board rolled, as the game's dice source."""

    def __init__(self, rolls):
        self.rolls = rolls

    def opening(self):
        return [(w, b) for w, b in self.rolls]


def roll_for(game, obs, opening):
    """Every cycle while a roll is next: take the other board's roll (its opening roll,
    or its roll for the remote side) once the board here is set up."""
    p = peer(game)
    if opening:
        if p.opener:
            return
        rec = p.find("open")
        if rec is None or not game.set_up(obs):
            return
        why = _other_game(game, p)
        if why is not None:
            p.sync(None, why)
            return
        src = game.dice_src
        game.dice_src = _Given(rec["rolls"])
        try:
            game.roll()
        finally:
            game.dice_src = src
        p.bound = game.gid
        if COLORS[game.pos.turn] != rec["first"] and rec["first"] is not None:
            p.sync("C2", "the opening roll gives %s here" % COLORS[game.pos.turn])
        return
    if game.pos.turn == p.side:
        return
    _resigned(game, p)
    rec = p.find("roll", game.n + 1)
    if rec is None or game.phase != "roll":
        return
    if rec["side"] != COLORS[game.pos.turn]:
        p.sync(None, "%s rolls for %s, %s to move here" % (p.name, rec["side"],
                                                          COLORS[game.pos.turn]))
        return
    if game.set_up(obs):
        p.bound = game.gid
        game.enter_dice(rec["dice"])


def _resigned(game, p):
    """The remote player resigned (S6) on their turn: so here too."""
    rec = p.find("end")
    if rec is not None and rec.get("resigned") == COLORS[1 - p.side] \
            and game.pos.turn != p.side and game.result is None:
        p.bound = game.gid
        game.resign()


def start(game, Shown, show):
    """The turn starts (the game's hook, with its dice journaled): the remote player's
    is shown as it comes (None on this board's player's turn). ``Shown``, ``show``:
    botplay's (this module never imports it back)."""
    p = peer(game)
    if game.pos.turn == p.side:
        return None
    sh = Shown(game.variant, game.pos, (), game.pos, lambda v, s, k: 0)
    sh.result = None            # not here yet: ``fill`` makes the real one
    sh.text = "waiting for " + p.name
    show(game, sh, False)
    game.shown = sh
    fill(game, Shown, show)
    return game.shown


def waiting(game):
    """OK while the remote player's turn has not come."""
    game.say(None, "waiting for %s's move" % peer(game).name)
    return False


def fill(game, Shown, show):
    """Every cycle while the remote player's turn is awaited: once the other board's
    record of it is here, checked with this board's rules, it is shown."""
    p = peer(game)
    _resigned(game, p)
    if game.shown is None or game.shown.result is not None:
        return
    rec = p.find("turn", game.n + 1)
    if rec is None:
        return
    v = game.variant
    pos = game.pos
    dice = game.dice
    if rec["side"] != COLORS[pos.turn] or list(rec["dice"]) != [dice[0], dice[1]]:
        p.sync(None, "%s played %s %d-%d, here %s has %d-%d" % (
            p.name, rec["side"], rec["dice"][0], rec["dice"][1], COLORS[pos.turn],
            dice[0], dice[1]))
        return
    steps = [(s[0], s[1]) for s in rec["steps"]]
    after = pos
    played = []
    for st in steps:
        e = v.step_error(pos, dice, played, st)
        if e is not None:
            p.sync(e[0], "%s's move %d/%d breaks %s here: %s" % (
                p.name, st[0], st[1], e[0], e[1]))
            return
        after = v.apply_step(after, st)
        played.append(st)
    e = v.check_turn(pos, dice, after)
    if e is not None:
        p.sync(e[0], "%s's turn breaks %s here: %s" % (p.name, e[0], e[1]))
        return
    after.turn = 1 - pos.turn
    from nardy.notation import position_id
    if position_id(v, after) != rec["pos"]:
        p.sync(None, "%s's board ends on another position" % p.name)
        return
    from nardy.zonefit import zone_of
    old = game.shown
    sh = Shown(v, pos, steps, after, zone_of)
    sh.WHO = (p.name, p.name)
    sh.auto_end = old.auto_end
    game.shown = sh
    p.bound = game.gid
    p.note = None
    show(game, sh)
    game.say(None, "%s plays %s" % (p.name, sh.text))
    game.changed()
