"""The OLED's language and menus through the whole app (issue 21): ``set lang`` is
kept like every setting and the screen speaks it (read back from the display's
pixels), ``hello`` carries the LED legend, an open menu closes when the board's
own move appears."""

import json

from apputil import Obs, rmtree, tmpdir
from test_app_through import _app, _events, booted

from nardy.game import MOVE
from nardy.lights import LIGHTS
from nardy.ui import DEFAULT_COLOURS
from nardy_host import oledtext


def _screen(app):
    app.redraw(force=True)
    return oledtext.lines(app.board.display.hex())


def test_set_lang_speaks_russian_and_survives_a_reboot():
    data = tmpdir("lang")
    try:
        app, board, out = _app(data)
        app.boot()
        assert _screen(app)[0] == "Nardy"
        app.line_in(b'{"cmd": "set", "lang": "ru"}')
        assert _events(out, "set")[-1]["settings"]["lang"] == "ru"
        assert _screen(app)[:2] == ["Нарды", "Новая партия?"], _screen(app)
        app.line_in(b'{"cmd": "set", "lang": "klingon"}')
        assert 'lang must be "en" or "ru"' in _events(out, "error")[-1]["error"]
        app.journal.close()
        app2, _, _ = _app(data)                  # the same flash, booted again
        assert app2.settings["lang"] == "ru"
        app2.boot()
        assert "OK: новая партия" in _screen(app2)
        app2.button("menu", "short")
        assert _screen(app2)[0] == "Настройки"
        app2.journal.close()
    finally:
        rmtree(data)


def test_hello_carries_the_led_legend():
    with booted("legend") as (app, board, out, data):
        app.line_in(b'{"cmd": "hello"}')
        ev = _events(out, "hello")[-1]
        rows = ev["lights"]
        assert [r[0] for r in rows] == [k for k, _, _ in LIGHTS]
        for key, colour, name, meaning in rows:
            assert colour == "#%02x%02x%02x" % DEFAULT_COLOURS[key], key
            assert name and meaning
        json.dumps(ev)


def test_an_open_menu_closes_when_the_board_shows_its_move():
    with booted("menubot") as (app, board, out, data):
        app.line_in(b'{"cmd": "new", "variant": "short", "bot": "both"}')
        g = app.game
        obs = Obs(app.layout).show(g.variant, g.pos)
        g.observe(obs)
        app.have_obs = True
        app.sensing = obs
        app.button("menu", "short")
        assert app.menu is not None
        for _ in range(3):            # the board rolls the opening, then its dice
            g.tick(obs, 0)
        assert g.phase == MOVE and g.shown is not None
        screen = _screen(app)
        assert app.menu is None, screen
        assert any(ln.startswith("Board: ") for ln in screen), screen
        with open(data + "/settings.json") as f:
            assert json.load(f)["bot"] == "both"      # closed as MENU closes it: saved


def test_the_protocol_doc_lists_every_light():
    import os
    path = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "PROTOCOL.md")
    with open(path, encoding="utf-8") as f:
        doc = f.read()
    for key, name, _ in LIGHTS:
        assert "| `%s` | %s" % (key, name) in doc, key
