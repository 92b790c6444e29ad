"""The simulator page's Analysis tab in real headless Chromium (Debian's ``chromium``,
as tests/host/test_sim_web.py): analyse the game being played in the session and an
uploaded journal, see the turns with the worst mistakes first, step to a turn and
see its position (before, played, best) on the board, and come back to the live
board; a file that is not a journal is one error line and the page goes on."""

import json
import os

from test_analyse_web import _short_game_on_the_board, journal, text
from test_sim_web import WAIT, browser, call, log_texts, sim  # noqa: F401 (fixtures)
from vboard import ROOT

from nardy.longnardy import LongNardy


def _counts(page):
    """{zone: checkers drawn} as the board shows it now."""
    return page.evaluate("""() => Object.fromEntries([...document.querySelectorAll(
        '#checkers g[data-zone]')].map(g => [g.dataset.zone, Number(g.dataset.count)]))""")


def _want(board):
    return {z: len(s[0]) for z, s in board.items()}


def _rows(page):
    return page.eval_on_selector_all(
        "#an-table tbody tr", "rs => rs.map(r => [Number(r.dataset.i),"
        " [...r.children].map(c => c.textContent)])")


def _analysis_tab(browser, sim):  # noqa: F811 (the fixtures, passed on)
    """A fresh page on the simulator with its Analysis tab open, and the list its
    script errors go to."""
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(sim.url)
    page.wait_for_selector("body[data-ready='1']", timeout=WAIT)
    page.click("#tab-analysis")
    return page, errors


def test_analyse_the_live_game_and_step_through_it(browser, sim):  # noqa: F811
    _short_game_on_the_board(sim)
    rep = json.loads(call(sim, "/api/analyse")[1])
    page, errors = _analysis_tab(browser, sim)
    assert page.is_hidden("#log") and page.is_visible("#an-table")
    # the session's game is offered; analysing it fills the table, worst first
    gid = json.loads(call(sim, "/api/state")[1])["game"]
    assert page.eval_on_selector_all("#an-game option", "os => os.map(o => o.textContent)") \
        == ["game %d (short)" % gid]
    page.click("#an-run")
    page.wait_for_selector("body[data-analysis='done']", timeout=WAIT)
    assert "short nardy, 2 turns rated by gnubg 0-ply" in page.inner_text("#an-status")
    rows = _rows(page)
    assert [i for i, _ in rows] == rep["worst"]
    t0 = rep["turns"][0]
    assert rows[rep["worst"].index(0)][1] == ["1 w", "6-1", "24/23 13/7", t0["best"],
                                              "%.3f" % t0["loss"]]
    # a row shows the position before that turn, with both turns' steps as arrows
    page.click('#an-table tr[data-i="0"]')
    page.wait_for_selector("body[data-review='0'][data-show='before']", timeout=WAIT)
    assert _counts(page) == _want(t0["before"])
    arrows = page.eval_on_selector_all("#review path", "ls => ls.map(l => [l.classList[1],"
                                       " Number(l.dataset.from), Number(l.dataset.to)])")
    assert [a for a in arrows if a[0] == "played"] == [["played", 24, 23],
                                                       ["played", 13, 7]]
    assert [a[1:] for a in arrows if a[0] == "best"] == t0["best_steps"]
    assert "lost %.3f" % t0["loss"] in page.inner_text("#an-turn")
    # "played" and "best": the positions each one leaves
    page.click('#an-show button[data-show="after"]')
    page.wait_for_selector("body[data-show='after']", timeout=WAIT)
    assert _counts(page) == _want(t0["after"])
    page.click('#an-show button[data-show="best_after"]')
    page.wait_for_selector("body[data-show='best_after']", timeout=WAIT)
    assert _counts(page) == _want(t0["best_after"])
    assert _counts(page) != _want(t0["after"])
    # the next turn (button, then the keyboard back), its row marked
    page.click("#an-next")
    page.wait_for_selector("body[data-review='1']", timeout=WAIT)
    assert _counts(page) == _want(rep["turns"][1]["before"])
    assert page.get_attribute('#an-table tr[data-i="1"]', "class") is not None
    assert "current" in page.get_attribute('#an-table tr[data-i="1"]', "class")
    assert page.is_disabled("#an-next")
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector("body[data-review='0']", timeout=WAIT)
    # while reviewing, the board's hands are off and the live feed goes on
    n = len(log_texts(page))
    page.click('#zones rect[data-zone="13"]')
    call(sim, "/api/action", {"action": "setup"})
    assert json.loads(call(sim, "/api/state")[1])["hand"] == []
    assert _counts(page) == _want(t0["before"])
    # "live": the board as it is now (set up again meanwhile)
    live = {z: sum(len(x) for x in slots) for z, slots in
            json.loads(call(sim, "/api/state")[1])["board"].items()}
    assert live != _want(t0["before"])
    page.click("#an-live")
    page.wait_for_function("() => !document.body.dataset.review", timeout=WAIT)
    page.wait_for_function("""w => Object.entries(w).every(([z, n]) => {
        const g = document.querySelector(`#checkers g[data-zone="${z}"]`);
        return g && Number(g.dataset.count) === n; })""", arg=live, timeout=WAIT)
    assert _counts(page) == live
    assert page.eval_on_selector_all("#review path", "ls => ls.length") == 0
    page.click("#tab-log")
    assert page.is_visible("#log") and len(log_texts(page)) >= n
    assert not errors, errors
    page.close()


def test_analyse_an_uploaded_journal(browser, sim, tmp_path):  # noqa: F811
    game = tmp_path / "nardy-long-game7.jsonl"
    lines = journal(LongNardy(), 3)
    game.write_bytes(text(lines))
    page, errors = _analysis_tab(browser, sim)
    assert page.is_disabled("#an-run")          # no game in this session yet
    page.set_input_files("#an-file", str(game))
    page.wait_for_selector("body[data-analysis='done']", timeout=WAIT)
    status = page.inner_text("#an-status")
    assert status.startswith("nardy-long-game7.jsonl: long nardy, %d turns rated by "
                             "the board's net" % (len(lines) - 1)), status
    rows = _rows(page)
    assert len(rows) == len(lines) - 1
    losses = [float(r[1][4]) for r in rows if r[1][4] not in ("", "0")]
    assert losses and losses == sorted(losses, reverse=True)
    # the worst mistake first; a click shows it
    worst = rows[0][0]
    page.click("#an-table tbody tr >> nth=0")
    page.wait_for_selector("body[data-review='%d']" % worst, timeout=WAIT)
    # the page fits the laptop's screen with the wider column
    assert page.evaluate("() => document.documentElement.scrollHeight") <= 768
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 1366
    # docs/SIMULATOR.md's picture (NARDY_UPDATE_DOCS=1 writes it there)
    page.mouse.move(1, 760)
    shot = (os.path.join(ROOT, "docs", "sim-analysis.png")
            if os.environ.get("NARDY_UPDATE_DOCS") else str(tmp_path / "analysis.png"))
    page.screenshot(path=shot)
    assert os.path.getsize(shot) > 10000
    # a file that is not a journal: one error line; the table stays, the page goes on
    bad = tmp_path / "notes.txt"
    bad.write_text("my notes\n")
    page.set_input_files("#an-file", str(bad))
    page.wait_for_selector("body[data-analysis='error']", timeout=WAIT)
    assert "not a game journal" in page.inner_text("#an-status")
    assert len(_rows(page)) == len(lines) - 1
    page.set_input_files("#an-file", str(game))
    page.wait_for_selector("body[data-analysis='done']", timeout=WAIT)
    assert not errors, errors
    page.close()
