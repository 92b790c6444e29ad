"""Russian for the OLED (settings "lang": "ru"): every English text the screens can
show, or its template before ``%``, with its Russian. ``nardy.oled.T`` calls ``tr``
at the display edge; the English stays where it is written (the one home of each
message), and this catalog is imported only while the board speaks Russian.

Messages built before they reach the screen (a colour, the board's move in them)
are matched against ``FORMED``; their arguments are translated when the catalog
knows them. A text found nowhere is shown in English (tests/firmware/test_lang.py
checks that every text the firmware writes is here).
"""

MESSAGES = {
    # sides, variants, places
    "White": "Белые", "Black": "Черные", "white": "белые", "black": "черные",
    "Nardy": "Нарды", "Long": "Длинные", "Short": "Короткие",
    "Long %s": "Длин. %s", "Short %s": "Корот. %s",
    "bar": "бар", "W off": "Б выбр", "B off": "Ч выбр",
    # the move screen
    "Board: %s": "Доска: %s",
    "Fix %s: %s %d, sees %d": "Поправь %s: %s %d, видно %d",
    "BACK: next  OK: end turn as it stands": "BACK: далее  OK: конец хода как есть",
    "fix it, or OK: end turn as it stands": "поправь, или OK: конец хода как есть",
    "Which result? %d of %d": "Какой итог? %d из %d",
    "BACK: next  OK: this one": "BACK: далее  OK: этот",
    "to %s": "на %s",
    "no legal place for it": "этой шашке нет хода",
    "All dice played": "Все кубики сыграны",
    "OK: end turn": "OK: конец хода",
    "to play: %s": "играть: %s",
    # warnings: what to do
    "Opponent: hold OK to accept, BACK to take back":
        "Соперник: держи OK - принять, BACK - переиграть",
    "Refused: %s must play a legal turn": "Отказ: %s играют ход по правилам",
    "Take it back, or OK: end turn (opponent decides)":
        "Верни шашку, или OK: конец хода (решит соперник)",
    # between turns and games
    "New game?": "Новая партия?",
    "OK: new game": "OK: новая партия",
    "MENU: settings": "MENU: настройки",
    "Set up board": "Расставь шашки",
    "white %d": "белых %d", "black %d": "черных %d",
    "To place: %s": "Поставить: %s",
    "%d on wrong points": "%d не на своих местах",
    "hold OK: roll anyway": "держи OK: бросить так",
    "Opening roll": "Розыгрыш хода",
    "OK: one die each": "OK: по кубику каждому",
    "the higher die starts": "больший кубик ходит первым",
    "%s to roll": "%s: бросок",
    "OK: roll the dice": "OK: бросить кубики",
    "opening: W %d, B %d": "розыгрыш: Б %d, Ч %d",
    "Dice: %d %d": "Кубики: %d %d",
    "BACK: die +1  OK: next die": "BACK: кубик +1  OK: следующий",
    "Draw": "Ничья",
    "%s wins": "%s выиграли",
    "%s resigns": "%s сдались",
    "%s wins: %s +%d": "%s выиграли: %s +%d",
    "Match over": "Матч окончен",
    "OK: new match": "OK: новый матч",
    "OK: next game": "OK: следующая партия",
    # the points of a win (nardy.scoring.kind_name): the seeds' own words
    "oin": "оин", "mars": "марс", "home mars": "домашний марс",
    "single game": "оин", "gammon": "марс", "backgammon": "кокс",
    # the rules' reasons (nardy.rules._REASONS), the sensors', the game's
    "illegal": "так нельзя",
    "not a legal move": "так ходить нельзя",
    "no own checker on that point": "там нет своей шашки",
    "point is closed": "пункт закрыт",
    "only one checker may leave the head": "с головы снимают только одну шашку",
    "six-block with no opposing checker ahead": "блок из шести без шашки соперника впереди",
    "enter from the bar first": "сначала введи шашку с бара",
    "bear off only when all 15 are home": "выбрасывать можно, когда все 15 дома",
    "a checker further back must move first": "сначала ходит шашка дальше от дома",
    "the dice must be used to the maximum": "кубики надо сыграть полностью",
    "the larger die must be played": "надо сыграть больший кубик",
    "the move does not match the dice": "ход не совпадает с кубиками",
    "checkers missing or extra": "шашек не хватает или лишние",
    "the opponent's checkers moved": "сдвинуты шашки соперника",
    "checkers move forward only": "шашки ходят только вперед",
    "a 2nd head checker only if the 1st is blocked":
        "2-я шашка с головы, только если 1-й некуда",
    "a hit checker goes to the bar": "битая шашка идет на бар",
    "too many checkers on the board": "на доске лишние шашки",
    "a checker is off the board": "шашка вне доски",
    "flash full: send games to the host": "память полна: перешли партии на компьютер",
    "journal unusable: see errors": "журнал не работает: см. ошибки",
    "black's last roll": "последний бросок черных",
    "set up the board first": "сначала расставь шашки",
    "opponent: hold OK to accept": "соперник: держи OK - принять",
    # the menu (nardy.menu)
    "Settings": "Настройки",
    "Game": "Игра", "Board plays": "Доска играет", "Match": "Матч",
    "New match": "Новый матч", "Language": "Язык", "LED colours": "Цвета огней",
    "LED brightness": "Яркость", "Dice": "Кубики", "Calibrate": "Калибровка",
    "Self-test": "Самопроверка",
    "Head: any double": "Голова: дубли",
    "6-wall: opp home": "Блок: соп. дома",
    "Home mars 3 pts": "Домашний марс",
    "Last roll draw": "Ничья: доброс",
    "Winner starts": "Победитель 1-й",
    "Use opening dice": "Ход розыгрышем",
    "long": "длинные", "short": "короткие", "on": "вкл", "off": "выкл",
    "auto": "авто", "manual": "вручную", "none": "нет", "both": "обе",
    "OK: change BACK: next": "OK: смена BACK: далее",
    "MENU: close": "MENU: закрыть",
    # the LED legend (nardy.lights), line by line
    "green: legal target": "зеленый: можно сюда",
    "cyan: bear off here": "голубой: выбрасывай сюда",
    "amber: lifted here": "оранжевый: шашка взята отсюда",
    "red: rule broken": "красный: нарушено правило",
    "blue: opponent's move": "синий: ход соперника",
    "yellow: take this one": "желтый: возьми эту шашку",
    "violet: put it here": "фиолетовый: поставь сюда",
    "magenta: wrong here": "малиновый: здесь не так",
    "white: place checkers": "белый: поставь шашки",
}

# messages formatted before the screen sees them: (English template, Russian)
FORMED = (
    ("%s cannot move: pass", "%s не могут ходить: пас"),
    ("the board plays %s", "доска играет %s"),
    ("The board plays %s", "Доска играет %s"),
    ("the board cannot play: %s", "доска не может играть: %s"),
)


def tr(text):
    """``text`` in Russian; unchanged if the catalog does not know it."""
    ru = MESSAGES.get(text)
    if ru is not None:
        return ru
    for en, ru in FORMED:
        args = _match(en, text)
        if args is not None:
            return ru % tuple(MESSAGES.get(a, a) for a in args)
    return text


def _match(template, text):
    """The ``%s`` arguments that make ``template`` read ``text``, or None. Each
    argument is non-empty and ends where the template's next literal text begins."""
    parts = template.split("%s")
    if not text.startswith(parts[0]):
        return None
    pos = len(parts[0])
    args = []
    last = len(parts) - 1
    for k in range(1, len(parts)):
        lit = parts[k]
        if k == last:
            end = len(text) - len(lit)
            if not text.endswith(lit):
                return None
        else:
            end = text.find(lit, pos + 1)
        if end <= pos:
            return None
        args.append(text[pos:end])
        pos = end + len(lit)
    return args
