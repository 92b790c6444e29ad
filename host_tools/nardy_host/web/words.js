// The page's words in English and Russian: the interface, the lights' legend and the
// rules a warning cites (its rule id, docs/RULES.md), in a player's words. The one
// source for them: app.js only looks words up here. The LED colours themselves are
// the firmware's (the state's ``lights``), never written here.
"use strict";

const WORDS = {
  en: {
    title: "Nardy board",
    modeSim: "(simulator: the real firmware)", modeLive: "(live: a board on USB)",
    modeBoard: "(the board's own page)", ownerPw: "Owner's password", login: "Log in",
    logout: "Log out", ownerIn: "You are the board's owner: the buttons, new match, " +
      "settings and the games are yours.", ownerOut: "Watching. The owner logs in to " +
      "play, change settings or download the games.", deleteGame: "delete",
    blackOff: "black off", whiteOff: "white off",
    game: "Game", long: "long nardy", short: "short nardy", matchTo: "Match to",
    newMatch: "New match", setUp: "Set up", setUpTip: "put the checkers back in the start position",
    download: "Download log", downloadSession: "Download log (this session)",
    lang: "Language", sound: "Sound", soundOn: "sound on", soundOff: "sound off",
    soundRefused: "no sound (the browser refused audio)",
    hand: "Hand", handEmpty: "empty", from: "from", white: "white", black: "black",
    dice: "Dice", noDice: "none",
    help: "Press OK to roll. Drag a checker (or tap it, then tap where it goes); on a " +
      "point holding both colours, press on the one you mean. OK ends the turn, BACK " +
      "takes a step back. A button held for a second is a long press. Points are " +
      "written with the labels printed on the board (24/18 is P24 to P18, 13/8* hits " +
      "on P8, 6/off bears off), for both players.",
    log: "Log", analysis: "Analysis", rules: "Rules", lights: "Lights",
    moves: "Legal moves", movesTip: "the legal turns for these dice (text mode: moves)",
    movesNone: "no dice to play now: roll first (OK)",
    movesHead: (n, side, dice) => `${side} ${dice}: ${n} legal turn${n === 1 ? "" : "s"}`,
    played: "played so far",
    analyse: "Analyse", orFile: "or a file", before: "before", playedBtn: "played",
    best: "best", live: "live",
    lightsIntro: "What the LEDs beside the points say:",
    light: {
      target: "a legal place for the checker in your hand",
      off: "bearing off: the tray is a legal place",
      lifted: "where the checker in your hand came from",
      nomove: "the checker in your hand has no legal step: put it back",
      illegal: "blinking: a step that breaks a rule (the warning names it)",
      last: "the opponent's last move, until the next roll",
      sync: "blinking: the board differs from the game here",
      need: "set-up: this point still needs checkers",
      from: "the board's own move: take the checker from here",
      to: "the board's own move: put it here",
    },
    rulesIntro: "A warning names the rule a step breaks. In short:",
    rule: {
      C1: "Fifteen checkers each, 24 points, two dice: a checker off the board must go back.",
      C2: "Who starts: one die each, the higher starts; equal dice roll again.",
      C3: "Each die moves one checker exactly its number, forward. One checker may use " +
        "both dice if the point between is a legal landing.",
      C4: "A double is played four times.",
      C5: "Use as much of the roll as you can; if only one die can be played, the larger. " +
        "No legal move: the roll is lost.",
      C6: "Bearing off only with all fifteen at home; a die takes off from its own point, " +
        "else moves a higher checker, else takes off the highest.",
      C7: "The first to bear off all fifteen wins.",
      L1: "Long nardy: all fifteen start on the head (P24 white, P12 black); both sides " +
        "run the same way round; no hitting.",
      L2: "A point with an opponent's checker is closed to you.",
      L3: "Only one checker may leave the head per turn (except 6-6, 4-4, 3-3 on the " +
        "first turn).",
      L4: "On your very first turn, 6-6, 4-4 or 3-3 may take a second checker off the " +
        "head (one checker alone could not play it).",
      L5: "No wall of six points in a row unless an opponent's checker has already " +
        "passed it, not even for a moment within the turn.",
      L6: "Points: 1 (oin) when the loser bore off at least one, 2 (mars) when none.",
      L7: "Option: after white's last checker, black rolls once more; bearing off all " +
        "the rest draws the game.",
      L8: "In a match the players change colours after each game; whoever had black " +
        "starts the next.",
      S1: "Short nardy (backgammon): two on 24, five on 13, three on 8, five on 6 in " +
        "each player's own count; the players move in opposite directions.",
      S2: "A point with two or more opponent's checkers is closed; a single one is hit " +
        "and goes to the bar.",
      S3: "A checker on the bar enters first, in the opponent's home on the point its " +
        "die shows; a die that cannot enter is lost.",
      S4: "A checker hit while bearing off must come back home before bearing off " +
        "goes on.",
      S5: "Single game 1; gammon 2 (the loser bore off none); backgammon 3 (and still " +
        "has a checker on the bar or in the winner's home).",
      S6: "You may resign the game: hold BACK, then OK when the board asks.",
    },
    ruleLink: "what does it mean?",
    langRefused: "the board keeps its own language",
  },
  ru: {
    title: "Доска нард",
    modeSim: "(симулятор: настоящая прошивка)", modeLive: "(доска на USB)",
    modeBoard: "(страница самой доски)", ownerPw: "Пароль владельца", login: "Войти",
    logout: "Выйти", ownerIn: "Вы владелец доски: кнопки, новый матч, настройки и " +
      "партии ваши.", ownerOut: "Просмотр. Владелец входит, чтобы играть, менять " +
      "настройки и скачивать партии.", deleteGame: "удалить",
    blackOff: "чёрные вышли", whiteOff: "белые вышли",
    game: "Игра", long: "длинные нарды", short: "короткие нарды", matchTo: "Матч до",
    newMatch: "Новый матч", setUp: "Расставить", setUpTip: "вернуть шашки в начальную позицию",
    download: "Скачать журнал", downloadSession: "Скачать журнал (эта сессия)",
    lang: "Язык", sound: "Звук", soundOn: "звук вкл.", soundOff: "звук выкл.",
    soundRefused: "без звука (браузер запретил звук)",
    hand: "В руке", handEmpty: "ничего", from: "с", white: "белая", black: "чёрная",
    dice: "Кости", noDice: "нет",
    help: "OK — бросить кости. Перетащите шашку (или коснитесь её, затем места, куда она " +
      "идёт); на пункте с шашками обоих цветов нажмите на нужную. OK заканчивает ход, " +
      "BACK отменяет шаг. Кнопка, удержанная секунду, — долгое нажатие. Пункты " +
      "называются по надписям на доске (24/18 — с P24 на P18, 13/8* — удар на P8, " +
      "6/off — выброс), для обоих игроков.",
    log: "Журнал", analysis: "Анализ", rules: "Правила", lights: "Огни",
    moves: "Возможные ходы", movesTip: "все ходы по этим костям (в текстовом режиме: moves)",
    movesNone: "сейчас нечего ходить: сначала бросьте кости (OK)",
    movesHead: (n, side, dice) => `${side === "white" ? "белые" : "чёрные"} ${dice}: ` +
      `ходов: ${n}`,
    played: "уже сыграно",
    analyse: "Анализ", orFile: "или файл", before: "до", playedBtn: "сыграно",
    best: "лучший", live: "сейчас",
    lightsIntro: "Что говорят огни у пунктов:",
    light: {
      target: "сюда можно поставить шашку из руки",
      off: "выброс: лоток — разрешённое место",
      lifted: "откуда взята шашка в руке",
      nomove: "шашке в руке ходить некуда: поставьте её обратно",
      illegal: "мигает: шаг нарушает правило (предупреждение его называет)",
      last: "последний ход соперника, до следующего броска",
      sync: "мигает: здесь доска не совпадает с игрой",
      need: "расстановка: на этот пункт ещё нужны шашки",
      from: "ход доски: возьмите шашку отсюда",
      to: "ход доски: поставьте её сюда",
    },
    rulesIntro: "Предупреждение называет нарушенное правило. Коротко:",
    rule: {
      C1: "По пятнадцать шашек, 24 пункта, две кости: шашку с доски надо вернуть.",
      C2: "Кто начинает: по одной кости, начинает больший; равные — бросают снова.",
      C3: "Каждая кость двигает одну шашку ровно на своё число, вперёд. Одна шашка может " +
        "пройти обе кости, если промежуточный пункт разрешён.",
      C4: "Дубль играется четыре раза.",
      C5: "Сыграйте бросок как можно полнее; если можно сыграть только одну кость — " +
        "большую. Хода нет — бросок пропадает.",
      C6: "Выбрасывать можно, только когда все пятнадцать дома; кость снимает шашку со " +
        "своего пункта, иначе двигает шашку выше, иначе снимает с самого высокого.",
      C7: "Побеждает тот, кто первым выбросил все пятнадцать.",
      L1: "Длинные нарды: все пятнадцать стоят на голове (белые P24, чёрные P12); оба " +
        "идут в одну сторону; бить нельзя.",
      L2: "Пункт с шашкой соперника для вас закрыт.",
      L3: "С головы за ход снимается одна шашка (кроме 6-6, 4-4, 3-3 в первом ходу).",
      L4: "В самом первом ходу 6-6, 4-4 или 3-3 позволяют снять с головы вторую шашку " +
        "(одна шашка не сыграла бы такой бросок).",
      L5: "Нельзя строить шесть пунктов подряд, пока ни одна шашка соперника не прошла " +
        "вперёд, даже пробегом внутри хода.",
      L6: "Очки: 1 (ойн), если проигравший выбросил хоть одну; 2 (марс), если ни одной.",
      L7: "Вариант: после последней шашки белых чёрные бросают ещё раз; если выбросят " +
        "все оставшиеся — ничья.",
      L8: "В матче игроки меняются цветами после каждой партии; начинает тот, кто " +
        "играл чёрными.",
      S1: "Короткие нарды (бэкгаммон): две на 24, пять на 13, три на 8, пять на 6 в " +
        "счёте каждого игрока; игроки идут навстречу друг другу.",
      S2: "Пункт с двумя и более шашками соперника закрыт; одиночная шашка бьётся и " +
        "уходит на бар.",
      S3: "Шашка на баре входит первой, в дом соперника на пункт, названный костью; " +
        "кость, которой не войти, пропадает.",
      S4: "Шашка, побитая во время выброса, должна вернуться домой, прежде чем " +
        "выброс продолжится.",
      S5: "Простая партия 1; марс (гаммон) 2 — проигравший не выбросил ни одной; кокс " +
        "(бэкгаммон) 3 — и у него шашка на баре или в доме победителя.",
      S6: "Можно сдаться: удерживайте BACK, затем OK, когда доска спросит.",
    },
    ruleLink: "что это значит?",
    langRefused: "доска оставила свой язык",
  },
};

// the language a page opens in: the one chosen before in this browser, else the
// browser's own, else English (the simulator's page and the room page alike)
function pickLang() {
  let l = null;
  try { l = localStorage.getItem("nardy-lang"); } catch (e) { l = null; }
  if (!l) l = (navigator.language || "en").slice(0, 2);
  return l in WORDS ? l : "en";
}
// ``key`` in ``lang``, in English where that language lacks it
function wordIn(lang, key) {
  const t = WORDS[lang] || WORDS.en;
  return key in t ? t[key] : WORDS.en[key];
}
