"""The table's behaviour seen on the browser page (issue 21), in real headless
Chromium at a laptop's 1366x768 and a phone's 390x844 (taps): the turn ends on the
mover's OK, never on a still board, and a second OK cannot end the opponent's turn
unplayed; a held BACK asks before resigning and the end says it was a resignation; a
checker with no legal move says so on the lift; BACK on a wrong step says where the
checker goes back; a refused press is in the log; the dice stay on the OLED while a
checker is in the hand. Fixtures and helpers: tests/host/test_sim_web.py."""

import json

import pytest
from test_sim_web import (  # noqa: F401 (browser, sim: fixtures)
    WAIT,
    act,
    browser,
    call,
    led_rgb,
    log_texts,
    new_page,
    sim,
    wait_log,
)

from nardy_host import oledtext

SIZES = [(1366, 768), (390, 844)]
IDS = ["laptop", "phone"]


def _page(chromium, srv, size, variant):
    """A page at ``size`` that started a one-game match of ``variant``."""
    _, page, errors, phone = new_page(chromium, size)
    page.goto(srv.url)
    page.wait_for_selector("body[data-ready='1']", timeout=WAIT)
    page.select_option("#variant", variant)
    page.click("#new")
    wait_log(page, "%s nardy" % variant)
    return page, errors, phone


def _press(page, phone, name):
    sel = 'button[data-button="%s"]' % name
    if phone:
        page.tap(sel)
    else:
        page.click(sel)
    page.wait_for_function("() => document.body.dataset.busy !== '1'", timeout=WAIT)


def _roll(page, srv, phone, dice, said):
    """The board's next dice loaded, OK pressed (the roll, or the opening roll), and
    the log's line ``said`` awaited."""
    act(srv, action="dice", dice=list(dice))
    _press(page, phone, "ok")
    wait_log(page, said)


def _white_rolled(page, srv, phone, variant, dice):
    """The opening roll (white starts: 5-3 in long nardy, 6-1 in short), then white
    rolls ``dice``."""
    opening = (5, 3) if variant == "long" else (6, 1)
    _roll(page, srv, phone, opening, "opening roll: white %d, black %d" % opening)
    _roll(page, srv, phone, dice, "white rolls %d-%d" % tuple(dice))


def _move(srv, frm, to):
    """The hands carry a checker from ``frm`` to ``to`` (zone names: "P24", "bar")."""
    act(srv, action="move", **{"from": frm, "to": to})


def _wait_led(page, zone, test):
    """Until the LED of ``zone`` shows a colour for which the JavaScript expression
    ``test`` over ``v`` (its [r, g, b]) holds."""
    page.wait_for_function(
        "() => { const e = document.querySelector('#leds circle[data-zone=\"%d\"]');"
        " const v = e && e.dataset.rgb.split(',').map(Number); return v && (%s); }"
        % (zone, test), timeout=WAIT)


def _hold(page, name):
    """A long press on the page's button (the board's long press): the pointer held
    until the button shows it is long (Playwright's touchscreen only taps)."""
    sel = 'button[data-button="%s"]' % name
    page.hover(sel)
    page.mouse.down()
    page.wait_for_selector(sel + ".long", timeout=WAIT)
    page.mouse.up()


def _screen(srv):
    """The OLED's text now, its lines joined with spaces (a long line wraps)."""
    return " ".join(oledtext.lines(json.loads(call(srv, "/api/state")[1])["oled"]))


def _wait_screen(page, srv, text):
    for _ in range(60):
        if text in _screen(srv):
            return
        page.wait_for_timeout(250)
    raise AssertionError("%r not on the OLED:\n%s" % (text, _screen(srv)))


def _long_first_turn(page, srv, phone):
    """Long nardy: the opening (white starts), 6-5, 1/7 7/12 played (P24 -> P13)."""
    _white_rolled(page, srv, phone, "long", (6, 5))
    _move(srv, "P24", "P18")
    _move(srv, "P18", "P13")
    page.wait_for_selector('#checkers g[data-zone="13"][data-count="1"]', timeout=WAIT)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_the_turn_ends_on_ok_and_a_double_ok_ends_nothing(browser, sim, size):  # noqa: F811
    page, errors, phone = _page(browser, sim, size, "long")
    _long_first_turn(page, sim, phone)
    # the page's board runs on real time: 2.5 s still, every die played
    page.wait_for_timeout(2500)
    assert not [t for t in log_texts(page) if t.startswith("white played")]
    _wait_screen(page, sim, "OK: end turn")
    _press(page, phone, "ok")                       # the mover takes the dice
    wait_log(page, "white played")
    _roll(page, sim, phone, (4, 2), "black rolls 4-2")
    _press(page, phone, "ok")                       # pressed twice
    wait_log(page, "refused: nothing played")
    texts = log_texts(page)
    assert not [t for t in texts if t.startswith("black played")], texts
    assert not [t for t in texts if t.startswith("warning")], texts
    _wait_screen(page, sim, "nothing played")
    assert not errors, errors
    page.close()


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_a_held_back_asks_before_resigning_and_the_end_says_so(browser, sim, size):  # noqa: F811
    page, errors, phone = _page(browser, sim, size, "long")
    _roll(page, sim, phone, (5, 3), "opening roll: white 5, black 3")
    _hold(page, "back")
    wait_log(page, "white resigns? OK: resign, BACK: play on")
    _wait_screen(page, sim, "resigns?")
    _press(page, phone, "back")                     # play on
    wait_log(page, "resignation cancelled")
    assert not [t for t in log_texts(page) if t.startswith("game over")]
    _roll(page, sim, phone, (6, 5), "white rolls 6-5")     # the game went on
    _hold(page, "back")
    wait_log(page, "white resigns?")
    _press(page, phone, "ok")
    wait_log(page, "game over: black wins")
    over = [t for t in log_texts(page) if t.startswith("game over")]
    assert over and "white resigned" in over[-1], over
    with page.expect_download(timeout=WAIT) as dl:
        page.click("#download")
    with open(dl.value.path()) as f:
        end = [json.loads(x) for x in f.read().splitlines()][-1]
    assert end["r"] == "end" and end["resigned"] == "white", end
    assert not errors, errors
    page.close()


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_a_second_checker_off_the_head_says_no_legal_move_on_the_lift(browser, sim, size):  # noqa: F811
    page, errors, phone = _page(browser, sim, size, "long")
    _white_rolled(page, sim, phone, "long", (6, 5))
    _move(sim, "P24", "P18")
    page.wait_for_selector('#checkers g[data-zone="18"][data-count="1"]', timeout=WAIT)
    before = _screen(sim)
    act(sim, action="lift", zone="P24")             # L3: one checker off the head a turn
    wait_log(page, "lifted from P24: no legal move for this checker")
    _wait_screen(page, sim, "no legal move")
    _wait_led(page, 24, "v[2] > 0")
    r, g, b = led_rgb(page, 24)
    assert r > 0 and g == 0 and 0 < b < r             # its own colour, not the lift's amber
    # the dice stay on the screen while the checker is in the hand
    assert before.split()[0] == _screen(sim).split()[0]
    st = json.loads(call(sim, "/api/state")[1])
    dice_rows = [row[:48] for row in oledtext.pixels(st["oled"])[11:31]]
    act(sim, action="place", zone="P24")
    page.wait_for_timeout(500)
    st2 = json.loads(call(sim, "/api/state")[1])
    assert [row[:48] for row in oledtext.pixels(st2["oled"])[11:31]] == dice_rows
    assert any(any(row) for row in dice_rows)
    assert not errors, errors
    page.close()


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_back_on_a_wrong_step_says_which_checker_goes_back(browser, sim, size):  # noqa: F811
    page, errors, phone = _page(browser, sim, size, "short")
    _white_rolled(page, sim, phone, "short", (6, 1))
    _move(sim, "P8", "P5")    # 3: no die shows it
    wait_log(page, "warning C")
    _press(page, phone, "back")
    _wait_screen(page, sim, "goes back to P8")
    _wait_led(page, 8, "v[1] > 0 && v[0] === 0 && v[2] === 0")     # green
    _move(sim, "P5", "P8")    # taken back by hand
    wait_log(page, "warning cleared")
    assert not errors, errors
    page.close()


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_a_hit_half_done_is_a_step_in_progress(browser, sim, size):  # noqa: F811
    page, errors, phone = _page(browser, sim, size, "short")
    _white_rolled(page, sim, phone, "short", (6, 1))
    _move(sim, "P13", "P7")
    _move(sim, "P8", "P7")
    page.wait_for_selector('#checkers g[data-zone="7"][data-count="2"]', timeout=WAIT)
    _press(page, phone, "ok")
    wait_log(page, "white played")
    _roll(page, sim, phone, (6, 5), "black rolls 6-5")
    _move(sim, "P12", "P18")   # a blot on P18
    _move(sim, "P12", "P17")
    page.wait_for_selector('#checkers g[data-zone="17"][data-count="4"]', timeout=WAIT)
    _press(page, phone, "ok")
    wait_log(page, "black played")
    _roll(page, sim, phone, (6, 2), "white rolls 6-2")
    # white's checker from P24 onto the blot; the blot still on P18
    _move(sim, "P24", "P18")
    _wait_screen(page, sim, "Hit: put the checker from P18 on the bar")
    _wait_led(page, 18, "v[0] > 0 && v[1] > 0 && v[2] === 0")      # amber
    _press(page, phone, "ok")                        # not the end of the turn
    wait_log(page, "refused: finish the hit first")
    assert not [t for t in log_texts(page) if t.startswith("white played")
                and "6-2" in t]
    act(sim, action="lift", zone="P18", colour="black")
    _wait_screen(page, sim, "Hit: put the checker from P18 on the bar")   # in the hand
    act(sim, action="place", zone="bar")             # the hit is done
    wait_log(page, "the board matches the game")
    page.wait_for_function("() => document.body.dataset.busy !== '1'", timeout=WAIT)
    assert "Hit:" not in _screen(sim) and "to play: 2" in _screen(sim)
    assert not errors, errors
    page.close()
