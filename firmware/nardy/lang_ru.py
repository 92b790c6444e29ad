"""Russian for the OLED (settings "lang": "ru"): every English text the screens can
show, or its template before ``%``, with its Russian. ``nardy.oled.T`` calls ``tr``
at the display edge; the English stays where it is written (the one home of each
message), and this catalog is imported only while the board speaks Russian.

``CATALOG`` is a few strings, a line "English<tab>Russian" a message: constants of
the module, read in place from flash (ROMFS) like the fonts, where a dict would take
~3 KB of the heap; a look-up is a ``find`` in each. Parts of ~1.5 KB, not one string:
a board without ROMFS loads each constant of the .mpy onto its heap, and one ~6 KB
block did not fit a 112wK heap in play (tests/test_micropython.py). Messages built before they reach
the screen (a colour, the board's move in them) are matched against ``FORMED``;
their arguments are translated when the catalog knows them. A text found nowhere is
shown in English (tests/firmware/test_lang.py checks that every text the firmware
writes is here). Two functions and two strings: about 700 bytes of heap while loaded.
"""

CATALOG = (
    # sides, variants, places
    "\nWhite\tБелые"
    "\nBlack\tЧерные"
    "\nwhite\tбелые"
    "\nblack\tчерные"
    "\nNardy\tНарды"
    "\nLong\tДлинные"
    "\nShort\tКороткие"
    "\nLong %s\tДлин. %s"
    "\nShort %s\tКорот. %s"
    "\nbar\tбар"
    "\nW off\tБ выбр"
    "\nB off\tЧ выбр"
    # the move screen
    "\nBoard: %s\tДоска: %s"
    "\nFix %s: %s %d, sees %d\tПоправь %s: %s %d, видно %d"
    "\nBACK: next  OK: end turn as it stands\tBACK: далее  OK: конец хода как есть"
    "\nfix it, or OK: end turn as it stands\tпоправь, или OK: конец хода как есть"
    "\nWhich result? %d of %d\tКакой итог? %d из %d"
    "\nBACK: next  OK: this one\tBACK: далее  OK: этот"
    "\nto %s\tна %s"
    "\nno legal place for it\tэтой шашке нет хода"
    "\nAll dice played\tВсе кубики сыграны"
    "\nOK: end turn\tOK: конец хода"
    "\nto play: %s\tиграть: %s"
    "\ncannot play: %s\tне сыграть: %s"
    # warnings: what to do
    "\nOpponent: hold OK to accept, BACK to take back"
    "\tСоперник: держи OK - принять, BACK - переиграть"
    "\nRefused: %s must play a legal turn\tОтказ: %s играют ход по правилам"
    "\nTake it back, or OK: end turn (opponent decides)"
    "\tВерни шашку, или OK: конец хода (решит соперник)"
    # between turns and games
    "\n",   # a part ends: the docstring says why
    "\nNew game?\tНовая партия?"
    "\nOK: new game\tOK: новая партия"
    "\nMENU: settings\tMENU: настройки"
    "\nSet up board\tРасставь шашки"
    "\nwhite %d\tбелых %d"
    "\nblack %d\tчерных %d"
    "\nTo place: %s\tПоставить: %s"
    "\n%d on wrong points\t%d не на своих местах"
    "\nhold OK: roll anyway\tдержи OK: бросить так"
    "\nOpening roll\tРозыгрыш хода"
    "\nOK: one die each\tOK: по кубику каждому"
    "\nthe higher die starts\tбольший кубик ходит первым"
    "\n%s to roll\t%s: бросок"
    "\nOK: roll the dice\tOK: бросить кубики"
    "\nrolled on %s\tбросок на доске %s"
    "\nopening: W %d, B %d\tрозыгрыш: Б %d, Ч %d"
    "\nDice: %d %d\tКубики: %d %d"
    "\nBACK: die +1  OK: next die\tBACK: кубик +1  OK: следующий"
    "\nDraw\tНичья"
    "\n%s wins\t%s выиграли"
    "\n%s resigns\t%s сдались"
    "\n%s wins: %s +%d\t%s выиграли: %s +%d"
    "\nMatch over\tМатч окончен"
    "\nOK: new match\tOK: новый матч"
    "\nOK: next game\tOK: следующая партия"
    # the points of a win (nardy.scoring.kind_name): the seeds' own words
    "\noin\tоин"
    "\nmars\tмарс"
    "\nhome mars\tдомашний марс"
    "\nsingle game\tоин"
    "\ngammon\tмарс"
    "\nbackgammon\tкокс"
    # the rules' reasons (nardy.rules._REASONS), the sensors', the game's
    "\n",   # a part ends: the docstring says why
    "\nillegal\tтак нельзя"
    "\nnot a legal move\tтак ходить нельзя"
    "\nno own checker on that point\tтам нет своей шашки"
    "\npoint is closed\tпункт закрыт"
    "\nonly one checker may leave the head\tс головы снимают только одну шашку"
    "\nsix-block with no opposing checker ahead\tблок из шести без шашки соперника впереди"
    "\nenter from the bar first\tсначала введи шашку с бара"
    "\nbear off only when all 15 are home\tвыбрасывать можно, когда все 15 дома"
    "\na checker further back must move first\tсначала ходит шашка дальше от дома"
    "\nthe dice must be used to the maximum\tкубики надо сыграть полностью"
    "\nthe larger die must be played\tнадо сыграть больший кубик"
    "\nthe move does not match the dice\tход не совпадает с кубиками"
    "\ncheckers missing or extra\tшашек не хватает или лишние"
    "\nthe opponent's checkers moved\tсдвинуты шашки соперника"
    "\ncheckers move forward only\tшашки ходят только вперед"
    "\na 2nd head checker only if the 1st is blocked\t2-я шашка с головы, только если 1-й некуда"
    "\n",   # a part ends: the docstring says why
    "\na hit checker goes to the bar\tбитая шашка идет на бар"
    "\ntoo many checkers on the board\tна доске лишние шашки"
    "\na checker is off the board\tшашка вне доски"
    "\nflash full: send games to the host\tпамять полна: перешли партии на компьютер"
    "\njournal unusable: see errors\tжурнал не работает: см. ошибки"
    "\nblack's last roll\tпоследний бросок черных"
    "\nset up the board first\tсначала расставь шашки"
    "\nopponent: hold OK to accept\tсоперник: держи OK - принять"
    # the menu (nardy.menu)
    "\nSettings\tНастройки"
    "\nGame\tИгра"
    "\nBoard plays\tДоска играет"
    "\nMatch\tМатч"
    "\nNew match\tНовый матч"
    "\nLanguage\tЯзык"
    "\nLED colours\tЦвета огней"
    "\nLED brightness\tЯркость"
    "\nDice\tКубики"
    "\nCalibrate\tКалибровка"
    "\nSelf-test\tСамопроверка"
    "\nHead: any double\tГолова: дубли"
    "\n6-wall: opp home\tБлок: соп. дома"
    "\nHome mars 3 pts\tДомашний марс"
    "\nLast roll draw\tНичья: доброс"
    "\nWinner starts\tПобедитель 1-й"
    "\nUse opening dice\tХод розыгрышем"
    "\nlong\tдлинные"
    "\nshort\tкороткие"
    "\n",   # a part ends: the docstring says why
    "\non\tвкл"
    "\noff\tвыкл"
    "\nauto\tавто"
    "\nmanual\tвручную"
    "\nnone\tнет"
    "\nboth\tобе"
    "\nOK: change BACK: next\tOK: смена BACK: далее"
    "\nMENU: close\tMENU: закрыть"
    "\nnothing played: play the dice (hold OK: end the turn anyway)"
    "\tничего не сыграно: играй кости (держи OK: закончить ход)"
    "\nno legal move for this checker\tэтой шашке ходить некуда"
    "\nfinish the hit first (hold OK: end the turn as it stands)"
    "\tсначала закончи бой (держи OK: закончить ход как есть)"
    # the LED legend (nardy.lights), line by line
    "\ngreen: legal target\tзеленый: можно сюда"
    "\ncyan: bear off here\tголубой: выбрасывай сюда"
    "\namber: lifted here\tоранжевый: шашка взята отсюда"
    "\nrose: no legal step\tрозовый: ходить некуда"
    "\nred: rule broken\tкрасный: нарушено правило"
    "\nblue: opponent's move\tсиний: ход соперника"
    "\nyellow: take this one\tжелтый: возьми эту шашку"
    "\nviolet: put it here\tфиолетовый: поставь сюда"
    "\nmagenta: wrong here\tмалиновый: здесь не так"
    "\nwhite: place checkers\tбелый: поставь шашки"
    "\n"
)

# messages formatted before the screen sees them, in the same form: each argument of
# the English template (``%d`` too) is a ``%s`` here, in the same order in Russian
FORMED = (
    "\n%s cannot move: pass\t%s не могут ходить: пас"
    "\nthe board plays %s\tдоска играет %s"
    "\nThe board plays %s\tДоска играет %s"
    "\nthe board cannot play: %s\tдоска не может играть: %s"
    "\n%s resigns? OK: resign, BACK: play on\t%s сдаются? OK: сдаться, BACK: играть"
    "\nHit: put the checker from P%s on the bar\tБой: шашку с P%s на бар"
    "\ntake it back: the checker on P%s goes back to P%s\tверни: шашка с P%s назад на P%s"
    "\nto take a step back, put the checker on P%s back on P%s"
    "\tчтобы вернуть ход, поставь шашку с P%s назад на P%s"
    "\nthe turn ends by itself in %s s\tход закончится сам через %s с"
    "\n"
)


def tr(text):
    """``text`` in Russian; unchanged if the catalog does not know it."""
    ru = _lookup(text)
    if ru is not None:
        return ru
    i = 0
    while True:
        # the next "\nEnglish\tRussian" of FORMED; its arguments are what the
        # template's text around each ``%s`` leaves of ``text``
        tab = FORMED.find("\t", i)
        if tab < 0:
            return text
        end = FORMED.find("\n", tab)
        args = _fill(FORMED[i + 1:tab], text)
        if args is not None:
            return FORMED[tab + 1:end] % tuple(_lookup(a) or a for a in args)
        i = end


def _fill(en, text):
    """The arguments that make template ``en`` read ``text``, or None. Each ``%s``
    takes the shortest non-empty run before the template's next fixed piece."""
    k = en.find("%s")
    if not text.startswith(en[:k]):
        return None
    at = k
    args = []
    while k >= 0:
        nxt = en.find("%s", k + 2)
        piece = en[k + 2:] if nxt < 0 else en[k + 2:nxt]
        if nxt < 0:
            if len(text) - len(piece) <= at or not text.endswith(piece):
                return None
            args.append(text[at:len(text) - len(piece)])
        else:
            j = text.find(piece, at + 1)
            if j < 0:
                return None
            args.append(text[at:j])
            at = j + len(piece)
        k = nxt
    return args


def _lookup(text):
    """The Russian of ``text`` in ``CATALOG``, or None."""
    key = "\n" + text + "\t"
    for part in CATALOG:
        i = part.find(key)
        if i >= 0:
            i += len(key)
            return part[i:part.find("\n", i)]
    return None
