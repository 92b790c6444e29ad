"""The OLED's words (issue 21): the end screen in each variant's own words and a
resignation said as one, menus whose every label fits whole, the LED legend, and
English and Russian (settings "lang"): every text the firmware writes has its
Russian, every Russian screen fits, an English board never loads the Russian."""

import sys

from apputil import rmtree
from uiutil import Recorder, _game, _here, _illegal, _texts, check_layout, warning_texts

from nardy import oled, protocol
from nardy.game import GAME_END, MATCH_END
from nardy.lights import LIGHTS
from nardy.menu import Menu, defaults, legend_page, row_texts
from nardy.scoring import kind_name
from nardy.ui import DEFAULT_COLOURS, draw

# words a Russian screen keeps in Latin letters: the buttons' own labels
_LATIN_OK = ("OK", "BACK", "MENU")


def _screen(g, menu=None):
    boxes = []
    draw(Recorder(), g, menu, boxes=boxes)
    check_layout(boxes)
    return _texts(boxes)


def _latin_words(texts):
    """Runs of Latin letters that are not a button, a point (P12) or a rule id."""
    out = []
    for t in texts:
        word = ""
        for ch in t + " ":
            if "A" <= ch <= "Z" or "a" <= ch <= "z" or (word and "0" <= ch <= "9"):
                word += ch
                continue
            if word and word not in _LATIN_OK and not (
                    word[0] in "PLSC" and word[1:].isdigit() and len(word) > 1):
                out.append(word)
            word = ""
    return out


def _ended(name, variant, result, resigned=None, lang="en"):
    g, j, d, obs = _game(name, variant, settings={"lang": lang})
    g.phase = GAME_END
    g.result = result
    g.resigned = resigned
    return g, j, d


def test_end_screen_in_the_variants_words():
    # L6: long nardy keeps the seeds' words; S5: short nardy says backgammon's
    cases = (("long", "oin", 1, "oin +1"), ("long", "mars", 2, "mars +2"),
             ("long", "home_mars", 3, "home mars +3"),
             ("short", "oin", 1, "single game +1"), ("short", "mars", 2, "gammon +2"),
             ("short", "koks", 3, "backgammon +3"))
    for variant, kind, points, words in cases:
        g, j, d = _ended("endw", variant, (1, kind, points))
        t = _screen(g)
        assert t[2] == "Black wins" and words in t, (variant, kind, t)
        g.phase = MATCH_END
        assert "Match over" in _screen(g)
        j.close()
        rmtree(d)
    assert kind_name("short", "mars") == "gammon" and kind_name("long", "mars") == "mars"


def test_a_resignation_says_so():
    g, j, d = _ended("endr", "short", (1, "oin", 1), resigned=0)
    t = _screen(g)
    assert t[2] == "White resigns" and "Black wins: single game +1" in " ".join(t), t
    j.close()
    rmtree(d)
    g, j, d = _ended("endrru", "long", (0, "oin", 1), resigned=1, lang="ru")
    t = _screen(g)
    assert t[2] == "Черные сдались" and "Белые выиграли: оин +1" in " ".join(t), t
    j.close()
    rmtree(d)


def _row(boxes):
    """The chosen row's text (the one on the inverted bar)."""
    bar = [b for b in boxes if b[0] == "bar"][0]
    return [b[5] for b in boxes if b[0] == "text" and b[2] == bar[2]][0]


def test_every_menu_label_fits_whole_beside_every_value():
    for lang in ("en", "ru"):
        for variant in ("long", "short"):
            s = defaults()
            s["lang"] = lang
            s["variant"] = variant
            m = Menu(s, cap=16)
            oled.speak(lang)
            keys = [it[0] for it in m.items()]
            # "Board plays" near the top: one BACK from the first item
            assert keys.index("bot") <= 2, keys
            for k in range(len(keys)):
                if keys[k] in ("variant", "new", "lights", "calibrate", "selftest"):
                    values = 1
                else:
                    values = 9       # every value an item takes, and round again
                for _ in range(values):
                    m.i = k
                    boxes = []
                    m.draw(Recorder(), boxes)
                    check_layout(boxes)
                    label, value = row_texts(m.items()[k], oled.T)
                    row = _row(boxes)
                    assert len(row) <= oled.COLS, row
                    assert row.startswith(">" + label + " ") and row.endswith(value), (
                        lang, label, value, row)
                    if values > 1:
                        m.press("ok")
                        s["lang"] = lang
    oled.speak("en")


def test_the_legend_names_every_light():
    assert sorted(k for k, _, _ in LIGHTS) == sorted(DEFAULT_COLOURS)
    for lang in ("en", "ru"):
        s = defaults()
        s["lang"] = lang
        m = Menu(s)
        m.i = [it[0] for it in m.items()].index("lights")
        assert m.press("ok") and m.legend == 0
        shown = []
        pages = 0
        while m.legend is not None:
            boxes = []
            oled.speak(lang)
            m.draw(Recorder(), boxes)
            check_layout(boxes)
            t = _texts(boxes)
            pages += 1
            assert t[0] == oled.T("LED colours") and t[1].startswith("%d/" % pages), t
            shown.append(" ".join(t[2:]))
            assert pages <= len(LIGHTS) and m.press("back")
        assert t[1] == "%d/%d" % (pages, pages), t
        assert m.items()[m.i][0] == "lights"       # back on the list where it was
        if sys.implementation.name == "micropython":
            assert "nardy.lights" not in sys.modules      # its table left with it
        text = " ".join(shown)
        for _, name, meaning in LIGHTS:
            assert oled.T(name + ": " + meaning) in text, (name, text)
        assert legend_page(0)[0]
    oled.speak("en")


def test_lang_is_a_setting_the_protocol_checks():
    assert protocol.parse('{"cmd": "set", "lang": "ru"}')["lang"] == "ru"
    try:
        protocol.parse('{"cmd": "set", "lang": "de"}')
    except ValueError as e:
        assert "lang" in str(e)
    else:
        raise AssertionError("lang de accepted")
    s = defaults()
    assert s["lang"] == "en" and protocol.check_settings(s) == []
    s["lang"] = "fr"
    assert protocol.check_settings(s) == ["lang"]
    s = defaults()
    m = Menu(s)
    m.i = [it[0] for it in m.items()].index("lang")
    m.press("ok")
    assert s["lang"] == "ru"
    m.press("ok")
    assert s["lang"] == "en"


def _lines(catalog):
    """The [English, Russian] of each line of a catalog string (one line at a time:
    the whole string split at once would strain a 112wK heap)."""
    i = catalog.find("\n")
    while True:
        j = catalog.find("\n", i + 1)
        if j < 0:
            return
        yield catalog[i + 1:j].split("\t")
        i = j


def test_every_firmware_text_has_its_russian():
    from nardy import lang_ru
    for rule, text in warning_texts():
        assert lang_ru.tr(text) != text, (rule, text)
    for _, name, meaning in LIGHTS:
        assert lang_ru.tr(name + ": " + meaning) != name + ": " + meaning
    assert lang_ru.tr("white cannot move: pass") == "белые не могут ходить: пас"
    assert lang_ru.tr("the board plays 1/3 4/9") == "доска играет 1/3 4/9"
    assert lang_ru.tr("not in the catalog") == "not in the catalog"
    # pair by pair, with no list of all ~200 pairs (nor a set of their keys): the
    # ~1 KB block such a list grows into is what a 112wK heap, fragmented by the
    # tests before, lacked now and then (at 111wK and 113wK before the journal's
    # boot code moved out, at 112wK after)
    parts = lang_ru.CATALOG + (lang_ru.FORMED,)
    n = 0
    for part in parts:
        for p in _lines(part):
            assert len(p) == 2, p
            en, ru = p
            n += 1
            # one Russian for each: the English is written once in all the catalog
            assert sum(c.count("\n" + en + "\t") for c in parts) == 1, en
            # the same arguments, in the same order
            assert [en[i:i + 2] for i in range(len(en) - 1) if en[i] == "%"] == \
                [ru[i:i + 2] for i in range(len(ru) - 1) if ru[i] == "%"], en
    assert n > 100


def _russian(texts, where):
    bad = _latin_words(texts)
    assert not bad, (where, bad, texts)


def test_russian_screens_fit_and_say_no_english():
    g, j, d, obs = _game("ruflow", "short", settings={"lang": "ru"})
    _russian(_screen(g), "opening")
    g.press("ok", "short", obs)
    _russian(_screen(g), "roll")
    g.press("ok", "short", obs)
    t = _screen(g)
    assert t[0] in ("Белые", "Черные"), t
    _russian(t, "move")
    obs.show(g.variant, g.pos, hand=(g.pos.turn, 1))
    g.observe(obs)
    _russian(_screen(g), "lifted")
    obs.show(g.variant, _illegal(g))
    g.observe(obs)
    _russian(_screen(g), "warning")
    g.press("ok", "short", obs)
    _russian(_screen(g), "verdict")
    g.refused = True
    _russian(_screen(g), "refused")
    g.refused = False
    g.press("back", "long", obs)
    _russian(_screen(g), "game end")
    # every warning and message the firmware writes, on its screens
    g.phase = "roll"
    for rule, text in warning_texts():
        g.message = (rule, text)
        t = _screen(g)
        _russian(t, text)
    g.message = None
    # the set-up guidance
    empty = g.pos.copy()
    for i in range(52):
        empty.board[i] = 0
    g.new_match()
    obs.show(g.variant, empty)
    g.observe(obs)
    _russian(_screen(g), "setup")
    # every menu item and legend page
    s = defaults()
    s["lang"] = "ru"
    m = Menu(s)
    for k in range(len(m.items())):
        m.i = k
        _russian(_screen(g, m), "menu")
    m.i = [it[0] for it in m.items()].index("lights")
    m.press("ok")
    while m.legend is not None:
        _russian(_screen(g, m), "legend")
        m.press("ok")
    j.close()
    rmtree(d)
    oled.speak("en")


def test_an_english_board_loads_no_russian():
    micropython = sys.implementation.name == "micropython"
    for name in ("nardy.lang_ru", "nardy.cyrillic"):
        sys.modules.pop(name, None)
    oled.speak("en")
    oled._CYR = None
    g, j, d, obs = _game("uien", "long")
    _screen(g)
    g.press("ok", "short", obs)
    _screen(g, Menu(defaults()))
    # neither the catalog nor the Cyrillic font (CPython keeps every module: there
    # only the screens' own references tell)
    assert oled._RU is None and oled._CYR is None
    if micropython:
        assert "nardy.lang_ru" not in sys.modules and "nardy.cyrillic" not in sys.modules
    g.settings["lang"] = "ru"
    _screen(g)
    assert oled._RU is not None and oled._CYR is not None
    g.settings["lang"] = "en"
    _screen(g)
    assert oled._RU is None                     # dropped with the language
    if micropython:
        assert "nardy.lang_ru" not in sys.modules
    j.close()
    rmtree(d)


def test_golden_screens_in_russian_and_the_legend():
    """Pictures of the new screens (docs/oled-*.png are made from the goldens)."""
    from uiutil import _golden
    g, j, d, obs = _game("rugold", "short", settings={"lang": "ru"})
    g.press("ok", "short", obs)
    g.press("ok", "short", obs)
    t = _golden("ru_move", g)
    assert t[0] in ("Белые", "Черные") and t[1] == "Корот. 0-0/1", t
    s = defaults()
    s["lang"] = "ru"
    m = Menu(s)
    m.i = 1
    t = _golden("ru_menu", g, m)
    assert t[0] == "Настройки" and t[2].startswith(">Доска играет"), t
    m = Menu(defaults())
    m.i = [it[0] for it in m.items()].index("lights")
    m.press("ok")
    t = _golden("lights", g, m)
    assert t[:3] == ["LED colours", "1/2", "green: legal target"], t
    g.press("back", "long", obs)        # asks first (issue 21)
    g.press("ok", "short", obs)         # ... and OK resigns
    t = _golden("ru_game_end", g)
    assert t[2].endswith(" сдались"), t
    j.close()
    rmtree(d)
    oled.speak("en")


def test_every_warning_fits_whole_in_russian():
    """As test_ui.test_every_warning_fits_whole: the rule, the whole reason and what
    to do, on one screen, now in Russian (longer words)."""
    from nardy.game import ACCEPT, ILLEGAL, TAKE_BACK
    from nardy.tracker import IDLE, VERDICT
    g, j, d, obs = _game("ruwarn", "long", settings={"lang": "ru"})
    g.press("ok", "short", obs)
    g.press("ok", "short", obs)
    t = g.tracker
    oled.speak("ru")
    prompts = {ILLEGAL: oled.T("Take it back, or OK: end turn (opponent decides)"),
               ACCEPT: oled.T("Opponent: hold OK to accept, BACK to take back"),
               TAKE_BACK: oled.T("Refused: %s must play a legal turn") % oled.T(
                   ("white", "black")[g.pos.turn])}
    for rule, text in warning_texts():
        if rule is None:
            continue
        for state, refused in ((ILLEGAL, False), (VERDICT, False), (VERDICT, True)):
            t.state = state
            t.warning = (rule, text, (24, 18))
            g.refused = refused
            shown = " ".join(_screen(g))
            assert oled.T(text) in shown, (text, shown)
            assert prompts[g.turn_state()] in shown, (g.turn_state(), shown)
    t.state = IDLE
    t.warning = None
    g.refused = False
    j.close()
    rmtree(d)
    oled.speak("en")


def test_a_resumed_game_still_says_it_was_resigned():
    # the end record says who resigned (S6): a board started again on the same
    # journal shows the same end screen
    from uiutil import LAYOUT

    from nardy.game import Game
    from nardy.journal import Journal
    g, j, d, obs = _game("uiresume", "short")
    g.press("ok", "short", obs)
    g.press("back", "long", obs)
    g.press("ok", "short", obs)         # the resignation confirmed
    assert g.resigned is not None and g.phase in (GAME_END, MATCH_END)
    before = _screen(g)
    gid = g.gid
    j.close()
    j2 = Journal(d)
    j2.scan()
    g2 = Game(j2, LAYOUT, [].append, settings={})
    g2.resume(gid, j2.records(gid))
    assert g2.resigned is not None and _screen(g2) == before, (before, _screen(g2))
    j2.close()
    rmtree(d)


def _game_messages():
    """The board's words for a press: game.py keeps them in one place, module-level
    ``_NAME = const("...")`` lines (read from the source: MicroPython folds such
    consts away, they are in no module dict), but the tracker's states it keeps as
    consts too (their words are the protocol's, never shown)."""
    from nardy import tracker
    states = (tracker.IDLE, tracker.VERDICT, tracker.DONE)
    out = []
    with open(_here + "/../../firmware/nardy/game.py") as f:
        for line in f:
            i = line.find(' = const("')
            if line.startswith("_") and i > 0 and line.rstrip().endswith('")'):
                text = line[i + 10:line.rstrip().rfind('"')]
                if text not in states:
                    out.append(text)
    return out


def test_every_message_the_game_says_has_its_russian():
    # issue 21: every one of them is in the catalog, its arguments filled in
    from nardy import lang_ru
    said = _game_messages()
    assert len(said) >= 8, said
    for en in said:
        n = en.count("%")
        text = en % (("White",) if "%s" in en else (7, 19)[:n]) if n else en
        ru = lang_ru.tr(text)
        bare = ru.replace("OK", "").replace("BACK", "")
        assert ru != text and not _latin_words([bare]), (text, ru)
    assert lang_ru.tr("take it back: the checker on P3 goes back to P10") == \
        "верни: шашка с P3 назад на P10"
    assert lang_ru.tr("White resigns? OK: resign, BACK: play on").startswith("Белые сдаются?")
    assert lang_ru.tr("the turn ends by itself in 12 s") == "ход закончится сам через 12 с"
