"""``nardy analyse`` for the simulator's page: ``analyse.page_report`` (the turns with
their positions, the worst first) and the server's ``/api/analyse`` for a game the
board logged and for an uploaded journal: bad input gets one JSON error and the
server keeps serving; the analysis runs off the event loop, one at a time. The page
itself in Chromium: tests/host/test_sim_analyse.py."""

import json
import random
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_sim_web import act, call, raw, sim, status  # noqa: F401 (sim: a fixture)

from nardy import record
from nardy.longnardy import LongNardy
from nardy.notation import parse_position_id, position_id
from nardy.shortnardy import ShortNardy
from nardy_host import simweb
from nardy_host.analyse import MAX_TURNS, AnalyseError, analyse, page_report


def journal(v, seed, turns=None):
    """A random game's journal lines (to its end, or ``turns`` turns)."""
    rng = random.Random(seed)
    pos = v.start_position()
    lines = [record.dumps(record.game(v, pos))]
    n = 0
    while pos.borne_off(0) < 15 and pos.borne_off(1) < 15 and (turns is None or n < turns):
        n += 1
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        steps, new = rng.choice(v.legal_turns(pos, dice))
        lines.append(record.dumps(record.turn(v, n, pos.turn, dice, steps, new)))
        pos = new
    return lines


def text(lines):
    return "".join(ln + "\n" for ln in lines).encode()


@pytest.mark.parametrize("name", ["long", "short"])
def test_page_report_is_the_cli_analysis_with_positions(name):
    v = LongNardy() if name == "long" else ShortNardy()
    lines = journal(v, 4, 30)
    rep = page_report(lines)
    _, rows = analyse(lines)
    assert rep["variant"] == name and len(rep["turns"]) == 30
    for t, row in zip(rep["turns"], rows):
        assert {k: t[k] for k in row} == row
    # worst first: every turn that lost equity, by loss, the biggest first
    losses = [rep["turns"][i]["loss"] for i in rep["worst"]]
    assert losses == sorted(losses, reverse=True) and all(x > 0 for x in losses)
    assert set(rep["worst"]) == {i for i, t in enumerate(rep["turns"]) if t["loss"]}
    assert rep["lost"]["white"] == pytest.approx(
        sum(t["loss"] or 0 for t in rep["turns"] if t["side"] == "white"), abs=1e-3)
    # positions by board zone: before turn k is after turn k-1, 15 checkers a side
    recs = [json.loads(x) for x in lines]
    for k, t in enumerate(rep["turns"]):
        # no legal move (a dance on the bar): no best turn to show
        assert (t["best_after"] is None) == (t["best"] == "-")
        for key in ("before", "after", "best_after") if t["best_after"] else ("before",
                                                                              "after"):
            cells = "".join(s[0] for s in t[key].values())
            assert cells.count("w") == 15 and cells.count("b") == 15, (k, key, t[key])
        if k:
            assert t["before"] == rep["turns"][k - 1]["after"]
        # the played steps, as zones, are the recorded ones
        assert len(t["played_steps"]) == len(recs[k + 1]["steps"])
        if t["best"] == t["played"] != "-":
            assert t["loss"] == 0 and t["after"] == t["best_after"]
    # white's first turn starts from the start position: P24 holds white's 15 (long)
    # or 2 (short, P24 with 5 on P13)
    first = rep["turns"][0]["before"]
    assert first["24"] == ["w" * (15 if name == "long" else 2)]
    if name == "short":
        assert first["13"] == ["wwwww"] and first["6"] == ["wwwww"]


def test_page_report_rejects_what_is_not_one_game():
    v = ShortNardy()
    lines = journal(v, 1, 3)
    with pytest.raises(AnalyseError, match="not a game journal"):
        page_report(["hello"])
    # a position with 16 white checkers (a hand-edited file)
    rec = json.loads(lines[2])
    name, pos = parse_position_id(rec["pos"])
    pos.board[3] += 1
    rec["pos"] = position_id(v, pos)
    with pytest.raises(AnalyseError, match="16 checkers"):
        page_report(lines[:2] + [json.dumps(rec)])
    # a long nardy position in a short nardy game
    rec = json.loads(lines[1])
    rec["pos"] = "L" + rec["pos"][1:]
    with pytest.raises(AnalyseError, match="long nardy position"):
        page_report(lines[:1] + [json.dumps(rec)])
    # more turns than a game has
    many = journal(v, 2, 2)
    last = json.loads(many[-1])
    many += [json.dumps(dict(last, n=k)) for k in range(3, MAX_TURNS + 3)]
    with pytest.raises(AnalyseError, match="at most %d" % MAX_TURNS):
        page_report(many)


_FIELDS = ("n", "side", "dice", "steps", "pos", "accepted", "rule", "r", "start",
           "variant", "options", "v")
_VALUES = st.one_of(st.integers(-3, 30), st.text(max_size=60), st.booleans(), st.none(),
                    st.lists(st.integers(-1, 26), max_size=4),
                    st.lists(st.lists(st.integers(-1, 26), min_size=2, max_size=2),
                             max_size=5),
                    st.sampled_from(["white", "black", "long", "short"]))


def _record(line):
    try:
        rec = json.loads(line)
    except ValueError:
        return None
    return rec if isinstance(rec, dict) else None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_page_report_on_damaged_journals_never_crashes(data):
    """Any field of any line changed, a line dropped, doubled or cut: a report or an
    AnalyseError (the server's 400), nothing else."""
    name = data.draw(st.sampled_from(["long", "short"]))
    v = LongNardy() if name == "long" else ShortNardy()
    lines = journal(v, data.draw(st.integers(0, 50)), 8)
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(lines) - 1))
        how = data.draw(st.sampled_from(["field", "drop", "double", "cut", "pos"]))
        rec = _record(lines[i])
        if rec is None and how in ("field", "pos"):
            continue
        if how == "field":
            rec[data.draw(st.sampled_from(_FIELDS))] = data.draw(_VALUES)
            lines[i] = json.dumps(rec)
        elif how == "drop":
            del lines[i]
        elif how == "double":
            lines.insert(i, lines[i])
        elif how == "cut":
            lines[i] = lines[i][:data.draw(st.integers(0, len(lines[i])))]
        else:
            # a position id with other counts (its shape kept: it parses)
            key = "start" if rec["r"] == "game" else "pos"
            if key in rec and isinstance(rec[key], str) and len(rec[key]) == 56:
                chars = list(rec[key])
                j = data.draw(st.sampled_from([k for k in range(56) if k not in (2, 29)]))
                chars[j] = data.draw(st.sampled_from("0123456789abcdef"))
                rec[key] = "".join(chars)
                lines[i] = json.dumps(rec)
        if not lines:
            lines = ["{}"]
    try:
        rep = page_report(lines)
    except AnalyseError:
        return
    assert json.loads(json.dumps(rep)) == rep          # the page gets plain JSON


def _short_game_on_the_board(sim):  # noqa: F811
    """White 6-1 plays 24/23 13/7 (gnubg: 13/7 8/7 is best), black 4-2 hits 19/23*
    17/19 (its 23, our P23... as the hands put them); the game stays in progress."""
    act(sim, action="new", variant="short")
    for d in ([6, 1], [6, 1]):
        act(sim, action="dice", dice=d)
        act(sim, action="press", button="ok")
    act(sim, action="move", **{"from": 24, "to": 23})
    act(sim, action="move", **{"from": 13, "to": 7})
    act(sim, action="press", button="ok")
    act(sim, action="dice", dice=[4, 2])
    act(sim, action="press", button="ok")
    act(sim, action="move", **{"from": 19, "to": 23, "colour": "black"})
    act(sim, action="move", **{"from": 23, "to": 25, "colour": "white"})
    act(sim, action="move", **{"from": 17, "to": 19})
    act(sim, action="press", button="ok")


def test_analyse_a_game_of_the_session(sim):  # noqa: F811
    code, body = call(sim, "/api/analyse")
    assert code == 404 and json.loads(body)["error"] == "no game yet"
    _short_game_on_the_board(sim)
    st_ = json.loads(call(sim, "/api/state")[1])
    assert st_["games"] == [[st_["game"], "short"]]
    code, body = call(sim, "/api/analyse?game=%d" % st_["game"])
    assert code == 200, body
    rep = json.loads(body)
    assert rep["variant"] == "short" and rep["judge"] == "gnubg 0-ply"
    assert [(t["side"], t["dice"]) for t in rep["turns"]] == [("white", [6, 1]),
                                                              ("black", [4, 2])]
    first = rep["turns"][0]
    assert first["played_steps"] == [[24, 23], [13, 7]]
    assert first["loss"] > 0.05, first          # 13/7 8/7 was the move
    second = rep["turns"][1]["loss"]
    assert rep["worst"] == ([0, 1] if first["loss"] >= second else [1, 0])
    assert "*" in rep["turns"][1]["played"]
    # without ``game``: the current one; the same answer
    assert json.loads(call(sim, "/api/analyse")[1])["turns"] == rep["turns"]
    # the downloaded log, sent back, is analysed alike
    log = call(sim, "/api/log")[1]
    code, body = call(sim, "/api/analyse", log, ctype="application/x-ndjson")
    assert code == 200 and json.loads(body)["turns"] == rep["turns"]


def test_analyse_bad_input_gets_one_json_error(sim, capfd):  # noqa: F811
    long_game = text(journal(LongNardy(), 3))
    assert call(sim, "/api/analyse", long_game, ctype="text/plain")[0] == 200
    cases = [
        (call(sim, "/api/analyse?game=x"), 400, "game must be a number"),
        (call(sim, "/api/analyse?game=99"), 404, "no game 99"),
        (call(sim, "/api/analyse", b"hello\n", ctype="application/x-ndjson"), 400,
         "not a game journal"),
        (call(sim, "/api/analyse", b"\xff\xfe\x00", ctype="text/plain"), 400, "not UTF-8"),
        (call(sim, "/api/analyse", b"", ctype="text/plain"), 400, "empty"),
        (call(sim, "/api/analyse", long_game, ctype="application/json"), 415, "x-ndjson"),
        (call(sim, "/api/analyse", b"[" * 40000 + b"]" * 40000, ctype="text/plain"), 400,
         "not a game journal"),
    ]
    for (code, body), want_code, want in cases:
        err = json.loads(body)
        assert (code, err["status"]) == (want_code, want_code), (code, body, want)
        assert want in err["error"], (err, want)
    # too large: refused by its Content-Length, before the body is read (the page
    # checks a file's size first; sending the whole body here would race the server's
    # close against the client's send, a reset instead of the answer)
    resp = raw(sim, b"POST /api/analyse HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                    b"text/plain\r\nContent-Length: %d\r\n\r\n" % (simweb.MAX_JOURNAL + 1),
               end=True)
    assert status(resp) == 413 and b"too large" in resp, resp
    # chunked (no length), and a body shorter than its Content-Length
    resp = raw(sim, b"POST /api/analyse HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                    b"text/plain\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
    assert status(resp) == 411
    resp = raw(sim, b"POST /api/analyse HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                    b"text/plain\r\nContent-Length: 40000\r\n\r\nshort", end=True)
    assert status(resp) == 400 and b"ended before" in resp
    # still serving, no traceback anywhere
    assert call(sim, "/api/state")[0] == 200
    assert call(sim, "/api/analyse", long_game, ctype="text/plain")[0] == 200
    assert "Traceback" not in capfd.readouterr().err


def test_analysis_runs_off_the_event_loop_one_at_a_time(sim, monkeypatch):  # noqa: F811
    """While an analysis runs (held here until released) the live view is served,
    a second analysis is told to wait (429), and a failing one is a JSON 500."""
    go, started = threading.Event(), threading.Event()
    real = simweb.analyse.page_report

    def held(lines, weights=None):
        started.set()
        assert go.wait(60)
        return real(lines, weights)

    monkeypatch.setattr(simweb.analyse, "page_report", held)
    game = text(journal(ShortNardy(), 5, 6))
    out = {}
    t = threading.Thread(target=lambda: out.update(
        r=call(sim, "/api/analyse", game, ctype="text/plain")))
    t.start()
    try:
        assert started.wait(60)
        # the event loop answers meanwhile: state, an action, the event stream
        assert call(sim, "/api/state")[0] == 200
        assert act(sim, action="new", variant="long")["ok"]
        code, body = call(sim, "/api/analyse", game, ctype="text/plain")
        assert code == 429 and b"running" in body
        assert "r" not in out
    finally:
        go.set()
        t.join(60)
    assert out["r"][0] == 200 and len(json.loads(out["r"][1])["turns"]) == 6
    # free again; a bug in the analysis is a clean 500 and the next one works
    monkeypatch.setattr(simweb.analyse, "page_report", lambda lines: 1 / 0)
    code, body = call(sim, "/api/analyse", game, ctype="text/plain")
    assert code == 500 and "ZeroDivisionError" in json.loads(body)["error"]
    monkeypatch.setattr(simweb.analyse, "page_report", real)
    assert call(sim, "/api/analyse", game, ctype="text/plain")[0] == 200
