// The room page's own words (nardy room --web), in English and Russian, added to
// words.js's (whose variant names the room shares). Kept apart from words.js so that
// the board's own page, which serves words.js from the board's flash, does not carry
// words only the host's room uses.
"use strict";

Object.assign(WORDS.en, {
  roomTitle: "Nardy room", roomEmpty: "No board on the broker yet: a board appears " +
    "here once it publishes.", roomOnline: "online", roomOffline: "offline",
  roomUnknown: "online?", roomGame: "game",
  roomSummary: (n, on) => `${n} board${n === 1 ? "" : "s"}, ${on} online`,
  roomMatch: (len, white, black) => `match to ${len}: white ${white}, black ${black}`,
  roomToPlay: side => `${side} to play`,
  roomOver: (winner, kind, points) => winner ? `game over: ${winner} wins (${kind}, ` +
    `${points})` : `game over (${kind})`,
  roomPair: (me, peer, side) => side ? `${me} (${side}) vs ${peer} ` +
    `(${side === "white" ? "black" : "white"})` : `${me} vs ${peer}`,
  roomPosition: "the position", roomNoPosition: "no position: no game on the board",
  roomNoSnapshot: "no position yet: the board has sent no snapshot",
});

Object.assign(WORDS.ru, {
  roomTitle: "Зал нард", roomEmpty: "На брокере пока нет досок: доска появится здесь, " +
    "как только начнёт публиковать.", roomOnline: "в сети", roomOffline: "не в сети",
  roomUnknown: "в сети?", roomGame: "партия",
  roomSummary: (n, on) => `досок: ${n}, в сети: ${on}`,
  roomMatch: (len, white, black) => `матч до ${len}: белые ${white}, чёрные ${black}`,
  roomToPlay: side => `ход ${side === "white" ? "белых" : "чёрных"}`,
  roomOver: (winner, kind, points) => winner ? "партия окончена: победили " +
    `${winner === "white" ? "белые" : "чёрные"} (${kind}, ${points})` :
    `партия окончена (${kind})`,
  roomPair: (me, peer, side) => side ? `${me} (${side === "white" ? "белые" : "чёрные"}) ` +
    `против ${peer}` : `${me} против ${peer}`,
  roomPosition: "позиция", roomNoPosition: "нет позиции: на доске нет партии",
  roomNoSnapshot: "позиции пока нет: доска не прислала снимок",
});
