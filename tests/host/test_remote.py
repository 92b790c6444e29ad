"""Remote play through a real broker (firmware/nardy/remote.py, docs/NETWORK.md
"Remote play"): two virtual boards (unix MicroPython with umqtt.simple) on one
mosquitto play a game against each other. Each board's player moves their own
checkers; the other player's move is shown on the board (``dump``'s ``bot``) and
carried out there checker by checker through the sensing lines, as hands would."""

import json
import random
import threading
import time

import pytest
from mqttutil import NET_HEAP, Mosquitto, Proxy
from test_vboard import play_turn
from vboard import VBoard

from nardy.posjson import from_json
from nardy.variants import find_variant

WATCHDOG_S = 900        # a hung board fails the test (never a timed assertion)
STALL = 1200            # rounds in a row in which neither player could act: stuck


class Player:
    """A virtual board and the hands of its player (``side``)."""

    def __init__(self, tmp_path, name, side, peer, port):
        self.name = name
        self.side = side
        self.port = port
        self.peer = peer
        self.carried = None     # the remote turn this player's hands carried out
        self.phys = None        # ... the position they left on the board
        self.b = VBoard(str(tmp_path / name), heap=NET_HEAP)
        t = threading.Timer(WATCHDOG_S, self.b.kill)
        t.daemon = True
        t.start()
        self.watchdog = t
        self.b.send({"cmd": "set", "oled": False})
        self.b.sync()
        self.connect()

    def connect(self):
        self.b.send({"cmd": "set", "mqtt": {"host": "127.0.0.1", "port": self.port,
                                            "id": self.name, "peer": self.peer,
                                            "side": self.side}})
        self.b.wait("set")

    def reboot(self, tmp_path):
        """A power cut: the process ends at once (its files stay), and boots again."""
        self.b.kill()
        self.b.p.stdout.close()
        self.b.p.stderr.close()
        self.watchdog.cancel()
        self.b = VBoard(str(tmp_path / self.name), heap=NET_HEAP)
        t = threading.Timer(WATCHDOG_S, self.b.kill)
        t.daemon = True
        t.start()
        self.watchdog = t

    def peer_states(self):
        return [e for e in self.b.events if e["ev"] == "peer"]

    def state(self):
        d = self.b.dump()
        v = find_variant(d["variant"], d["options"] or {}) if d.get("variant") else None
        pos = from_json(v, d["position"]) if v and d.get("position") else None
        return d, v, pos

    def close(self):
        self.watchdog.cancel()
        self.b.close()


def _wait(cond, what):
    """Poll until ``cond()`` (a hung board is the watchdog's)."""
    while not cond():
        time.sleep(0.05)
    return what


def _online(p):
    p.b.sync()
    return any(e["state"].startswith("playing") for e in p.peer_states())


def _pair(tmp_path, port, variant, port_b=None, match=1):
    a = Player(tmp_path, "a-white", "white", "b-black", port)
    b = Player(tmp_path, "b-black", "black", "a-white", port_b or port)
    _wait(lambda: _online(a) and _online(b), "both online")
    for p in (a, b):
        p.b.send({"cmd": "new", "variant": variant, "match": match})
        p.b.sync()
        d, v, pos = p.state()
        p.b.sense(v, pos)
        p.b.sync()
    return a, b


def carry_out(p, v, pos, steps):
    """The hands carry out the remote player's turn shown on the board."""
    cur = pos
    for st in steps:
        p.b.sense(v, cur, hand=(cur.turn, st[0]))
        cur = v.apply_step(cur, st)
        p.b.sense(v, cur)
    p.b.sync()
    return cur


def act(p, rng, illegal=False):
    """One thing the player at ``p`` does now, if any: the opening roll, their own
    turn, or the remote player's turn carried out. True if it did something; else
    the board lies still a while (the virtual board's time passes only with its
    sensing)."""
    d, v, pos = p.state()
    did = _act(p, rng, illegal, d, v, pos)
    if not did and pos is not None and d["phase"] in ("opening", "roll", "move"):
        if p.carried != _turn_key(d):
            p.phys = pos
        p.b.sense(v, p.phys, ms=100)
        p.b.sync()
    return did


def _turn_key(d):
    return d["game"], d["turn_no"], tuple(d["dice"] or ())


def _act(p, rng, illegal, d, v, pos):
    ph = d["phase"]
    if ph == "game_end":            # the match goes on: OK for the next game ...
        p.b.button("ok")
        p.b.sync()
        return True
    if ph == "setup":               # ... and the hands set the checkers up again
        p.phys = v.start_position()
        p.b.sense(v, p.phys)
        p.b.sync()
        return p.b.dump()["phase"] != "setup"
    if ph == "match_end":
        return False
    if ph == "opening":
        if p.name < p.peer:         # this board rolls the opening (C2)
            p.b.button("ok")
            p.b.sync()
            return True
        return False
    mine = pos.turn == ("white", "black").index(p.side)
    bot = d.get("bot")
    if not mine:
        if ph == "move" and bot and bot["steps"] and p.carried != _turn_key(d):
            p.phys = carry_out(p, v, pos, [tuple(s) for s in bot["steps"]])
            p.carried = _turn_key(d)
            return True
        return False
    r = play_turn(p.b, rng, illegal=illegal)
    return r is not None


def journal(p, gid=None):
    if gid is None:
        gid = p.b.dump()["game"]
    return [json.loads(x) for x in p.b.log(gid)]


def moves_and_dice(recs):
    """What both boards must agree on, record for record: the opening, every roll
    and turn (side, dice, steps, result), the end."""
    out = []
    for r in recs:
        k = r["r"]
        if k == "open":
            out.append(("open", tuple(map(tuple, r["rolls"])), r["first"]))
        elif k == "roll":
            out.append(("roll", r["n"], r["side"], tuple(r["dice"])))
        elif k == "turn":
            out.append(("turn", r["n"], r["side"], tuple(r["dice"]),
                        tuple(map(tuple, r["steps"])), r["pos"]))
        elif k == "end":
            out.append(("end", r["winner"], r["kind"], r["points"]))
    return out


def play_out(players, rng, until=None):
    """Both players act until the game is over (or ``until()``). Each round in which
    neither can act lets each board's time pass 100 ms (and 50 ms of real time): a
    game stuck for ``STALL`` rounds fails (a record lost for good)."""
    idle = 0
    while True:
        if until is not None and until():
            return
        did = False
        for p in players:
            did = act(p, rng) or did
        if all(p.b.dump()["phase"] == "match_end" for p in players):
            return
        idle = 0 if did else idle + 1
        assert idle < STALL, [_stuck(p) for p in players]
        if not did:
            time.sleep(0.05)


def _stuck(p):
    """What a stuck player's board shows, for the failure's message."""
    d = p.b.dump()
    recs = [(r["r"], r.get("n"), r.get("side"), r.get("dice")) for r in journal(p)]
    return (p.name, d["phase"], d["game"], d["turn_no"], d["dice"], d.get("bot"),
            _states(p)[-3:], recs[-4:])


@pytest.fixture
def broker(tmp_path):
    m = Mosquitto(str(tmp_path / "mq"))
    yield m
    m.stop()


def _agree(a, b):
    ja, jb = journal(a), journal(b)
    assert ja[-1]["r"] == "end" and jb[-1]["r"] == "end"
    ma, mb = moves_and_dice(ja), moves_and_dice(jb)
    assert ma == mb
    assert sum(1 for x in ma if x[0] == "turn") >= 10
    return ma


@pytest.mark.parametrize("variant,seed", [("short", 3), ("long", 4)])
def test_two_boards_play_a_whole_game(tmp_path, board_path, broker, variant, seed):
    a, b = _pair(tmp_path, broker.port, variant)
    try:
        play_out([a, b], random.Random(seed))
        ma = _agree(a, b)
        # each board's player played one side, the other side came from the peer
        sides = {x[2] for x in ma if x[0] == "turn"}
        assert sides == {"white", "black"}
    finally:
        a.close()
        b.close()


def test_a_match_goes_on_game_after_game(tmp_path, board_path, broker):
    """A 2-point match of two games, each played a few turns and resigned by white on
    white's board (S6): after each game both players
    press OK and set the checkers up, each board's next game is played with the
    other's (its own opening, C2), and both journals agree game by game. (Whole games
    are test_two_boards_play_a_whole_game's; random play makes a long match slow.)"""
    a, b = _pair(tmp_path, broker.port, "short", match=2)
    first = a.b.dump()["game"]
    rng = random.Random(5)
    try:
        for game in (first, first + 1):
            play_out([a, b], rng, until=lambda: _turns_done(a) >= 3)
            _until_a_rolls(a, b, rng)
            a.b.button("back", "long")          # white resigns, asked first: OK
            a.b.button("ok")
            a.b.sync()
            play_out([a, b], rng, until=lambda g=game: all(
                p.b.dump()["game"] > g or p.b.dump()["phase"] == "match_end"
                for p in (a, b)))
        da, db = a.b.dump(), b.b.dump()
        assert da["phase"] == db["phase"] == "match_end", (da["phase"], db["phase"])
        assert da["match"]["score"] == db["match"]["score"], (da["match"], db["match"])
        assert da["game"] == db["game"] == first + 1
        for g in (first, first + 1):
            ja, jb = journal(a, g), journal(b, g)
            ma, mb = moves_and_dice(ja), moves_and_dice(jb)
            assert ma == mb, g
            assert ma[0][0] == "open" and ma[-1][:2] == ("end", "black"), (g, ma[-1])
            assert ja[-1]["resigned"] == jb[-1]["resigned"] == "white", g
    finally:
        a.close()
        b.close()


def _new(p, variant, match=1):
    p.b.send({"cmd": "new", "variant": variant, "match": match})
    p.b.sync()
    d, v, pos = p.state()
    p.b.sense(v, pos)
    p.b.sync()


def test_two_boards_in_different_games_are_told_so(tmp_path, board_path, broker):
    """The boards must play the same game: another variant or match length here is a
    sync message naming both, before the opening is rolled (never a game that forks
    at its first turn); once one board starts the other's game, they play."""
    a = Player(tmp_path, "a-white", "white", "b-black", broker.port)
    b = Player(tmp_path, "b-black", "black", "a-white", broker.port)
    rng = random.Random(7)
    try:
        _wait(lambda: _online(a) and _online(b), "both online")
        _new(b, "long")
        _new(a, "short", match=3)
        sync = []
        for _ in range(STALL):          # a-white rolls the opening (its id sorts first)
            a.b.button("ok")
            a.b.sync()
            sync = [e for e in a.peer_states() if e["state"].startswith("sync")]
            if sync:
                break
            time.sleep(0.05)
        assert sync and "b-black plays long nardy" in sync[-1]["state"], _states(a)
        assert "here short nardy" in sync[-1]["state"], sync
        assert a.b.dump()["phase"] == "opening" and not journal(a)[1:]
        _new(b, "short")                # the same variant, another match length
        for _ in range(STALL):
            a.b.button("ok")
            a.b.sync()
            sync = [e for e in a.peer_states() if "match to 1, here to 3" in e["state"]]
            if sync:
                break
            time.sleep(0.05)
        assert sync, _states(a)
        _new(b, "short", match=3)       # now the same game: it is played
        play_out([a, b], rng, until=lambda: _turns_done(a) >= 3 and _turns_done(b) >= 3)
        assert moves_and_dice(journal(a))[:4] == moves_and_dice(journal(b))[:4]
    finally:
        a.close()
        b.close()


def test_a_new_game_on_the_other_board_mid_game_is_said(tmp_path, board_path, broker):
    """One player starts a new game in the middle of one: the other board says so
    (a sync message naming the board) instead of waiting for a move that never comes;
    once it starts the new game too, both play it."""
    a, b = _pair(tmp_path, broker.port, "short")
    rng = random.Random(11)
    try:
        play_out([a, b], rng, until=lambda: _turns_done(a) >= 2 and _turns_done(b) >= 2)
        _new(b, "short")                # b-black's player abandons the game
        said = []
        for _ in range(STALL):
            act(a, rng)
            said = [e for e in a.peer_states() if "b-black started a new game" in e["state"]]
            if said:
                break
            time.sleep(0.05)
        assert said and said[-1]["state"].startswith("sync"), _states(a)
        first = a.b.dump()["game"]
        _new(a, "short")
        play_out([a, b], rng, until=lambda: _turns_done(a) >= 2 and _turns_done(b) >= 2)
        assert a.b.dump()["game"] == first + 1
        assert moves_and_dice(journal(a))[:3] == moves_and_dice(journal(b))[:3]
    finally:
        a.close()
        b.close()


def _turns_done(p):
    return p.b.dump()["turn_no"]


def _states(p):
    return [e["state"] for e in p.peer_states()]


def test_a_broker_restart_and_a_cut_link_lose_no_move(tmp_path, board_path, broker):
    relay = Proxy(broker.port)          # b-black reaches the broker through it
    a, b = _pair(tmp_path, broker.port, "long", port_b=relay.port)
    rng = random.Random(7)
    try:
        play_out([a, b], rng, until=lambda: _turns_done(a) >= 6)
        # the broker goes away mid-game: whoever is to move plays on at their board,
        # the other board says the game is paused
        broker.stop()
        for _ in range(6):
            for p in (a, b):
                act(p, rng)
        assert any(s.startswith("paused") for s in _states(a) + _states(b))
        broker.start()
        play_out([a, b], rng, until=lambda: _turns_done(a) >= 16)
        # b-black's link is cut in the middle of its player's turn (rolled, the
        # checkers moving): its records wait on its flash and go after it is back
        _until_b_rolls(a, b, rng)
        _local_turn(b, rng, during=relay.cut)
        # and again while a-white plays: its records reach b-black through the
        # session the broker kept for it (b-black is away when they are published)
        _until_a_rolls(a, b, rng)
        _local_turn(a, rng, during=relay.cut)
        play_out([a, b], rng)
        ma = _agree(a, b)
        # no turn lost or doubled: each turn number once, in order, on both boards
        ns = [x[1] for x in ma if x[0] == "turn"]
        assert ns == list(range(1, len(ns) + 1))
        assert relay.cuts == 2
        assert any(s.startswith("paused: no connection") for s in _states(b))
        assert _states(b)[-1].startswith("playing")
    finally:
        a.close()
        b.close()
        relay.close()


def _b_to_move(p):
    d, v, pos = p.state()
    return d["phase"] == "roll" and pos.turn == 1


def _until_b_rolls(a, b, rng):
    """Play on until b-black's player is to roll."""
    for _ in range(STALL):
        if _b_to_move(b):
            return
        for p in (a, b):
            act(p, rng)
    raise AssertionError("b-black never came to roll")


def _until_a_rolls(a, b, rng):
    for _ in range(STALL):
        d, v, pos = a.state()
        if d["phase"] == "roll" and pos.turn == 0:
            return
        for p in (a, b):
            act(p, rng)
    raise AssertionError("a-white never came to roll")


def _local_turn(p, rng, during):
    """The player's own turn, ``during()`` called between the roll and the steps."""
    p.b.button("ok")
    p.b.sync()
    d, v, pos = p.state()
    during()
    if d["phase"] != "move":
        return
    turns = v.legal_turns(pos, tuple(d["dice"]))
    steps, _ = turns[rng.randrange(len(turns))]
    carry_out(p, v, pos, steps)
    p.b.button("ok")
    p.b.sync()


def test_an_illegal_remote_turn_is_a_sync_message(tmp_path, board_path, broker):
    a, b = _pair(tmp_path, broker.port, "long")
    rng = random.Random(5)
    try:
        play_out([a, b], rng, until=lambda: _turns_done(a) >= 4)
        _until_b_rolls(a, b, rng)
        n = _turns_done(b)
        # b-black's player moves a checker by a distance no die shows and holds OK:
        # accepted on that board, as played
        r = play_turn(b.b, rng, illegal=True)
        assert isinstance(r, dict) and r["illegal"]
        turn = [x for x in journal(b) if x["r"] == "turn"][-1]
        assert turn["n"] == n + 1 and turn["accepted"]
        # a-white's board checks it with its own rules: a sync message naming the
        # rule, and the turn is neither shown for the hands nor journaled
        sync = []
        for _ in range(STALL):
            act(a, rng)
            sync = [e for e in a.peer_states() if e["state"].startswith("sync")]
            if sync:
                break
        assert sync, _states(a)
        assert sync[0]["rule"] == turn["rule"]
        assert turn["rule"] in sync[0]["state"] and "b-black" in sync[0]["state"]
        d = a.b.dump()
        assert d["phase"] == "move" and d["turn_no"] == n and not d["bot"]["steps"]
        assert d["message"][1].startswith("sync:")
        assert [x["n"] for x in journal(a) if x["r"] == "turn"][-1] == n
    finally:
        a.close()
        b.close()


def test_a_power_cut_while_a_remote_turn_is_shown_resumes_it(tmp_path, board_path, broker):
    a, b = _pair(tmp_path, broker.port, "short")
    rng = random.Random(9)
    try:
        play_out([a, b], rng, until=lambda: _turns_done(a) >= 4)
        # a-white's board shows b-black's turn: the power goes before the hands carry
        # it out; after the reboot the same turn is shown again (the broker delivers
        # it again: a-white had not acknowledged it, its journal did not hold it)
        for _ in range(STALL):
            d, v, pos = a.state()
            if d["phase"] == "move" and pos.turn == 1 and d["bot"]["steps"]:
                break
            for p in (a, b):
                act(p, rng)
        want = d["bot"]["steps"]
        # the move stays shown a while before the power goes (the board has had
        # every chance to acknowledge what it should not yet)
        for _ in range(10):
            a.b.sense(v, pos, ms=100)
            a.b.sync()
            time.sleep(0.1)
        assert a.b.dump()["bot"]["steps"] == want
        a.reboot(tmp_path)
        for _ in range(STALL):
            d, v, pos = a.state()
            if d.get("bot") and d["bot"]["steps"]:
                break
            a.b.sense(v, pos, ms=100)
            a.b.sync()
            time.sleep(0.05)
        assert d["bot"]["steps"] == want
        play_out([a, b], rng)
        _agree(a, b)
    finally:
        a.close()
        b.close()
