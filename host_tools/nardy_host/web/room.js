// The room page (nardy room --web): every board on the broker, one card each, live.
// The server sends the whole roster first, then each change of a card (Server-Sent
// Events, numbered: a page that reconnects gets what it missed, or the roster again).
// Every text a board sent is put in with textContent: a board id or a record that
// looks like HTML stays text.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
// the small board: P13..P24 along the top left to right, P12..P1 along the bottom
// (as the simulator's page and the table itself), the bar between, the trays right
const EDGE = 6, PW = 20, BAR_W = 12, R = 8, STEP = 13, H = 180;
const BAR_X = EDGE + 6 * PW, TRAY_X = EDGE + 12 * PW + BAR_W + 4, W = TRAY_X + 30 + EDGE;
const ZONE_BAR = 25, ZONE_OFF_W = 26, ZONE_OFF_B = 27;
const room = { cards: new Map(), items: 0, lang: "en", es: null };

function w(key) { return wordIn(room.lang, key); }

function svg(name, attrs, parent) {
  const e = document.createElementNS(SVGNS, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}
function html(name, cls, parent, text) {
  const e = document.createElement(name);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}

function colX(c) { return EDGE + c * PW + (c >= 6 ? BAR_W : 0) + PW / 2; }
function pointXY(p) { return p >= 13 ? { x: colX(p - 13), top: true } : { x: colX(12 - p), top: false }; }

// a stack of n checkers of one colour from the edge (at most 5 drawn, the number on
// the last when there are more)
function stack(g, x, y0, dir, colour, n, from) {
  const shown = Math.min(n, 5);
  for (let i = 0; i < shown; i++) {
    const y = y0 + dir * (from + i) * STEP;
    svg("circle", { cx: x, cy: y, r: R, fill: colour === "w" ? "#fbf7ee" : "#2a2a2a",
                    stroke: colour === "w" ? "#8a7f6a" : "#000" }, g);
    if (i === shown - 1 && n > 5) {
      svg("text", { x: x, y: y, fill: colour === "w" ? "#222" : "#eee" }, g).textContent = n;
    }
  }
  return shown;
}

function drawBoard(zones) {
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "mini", role: "img" });
  svg("rect", { x: 0, y: 0, width: W, height: H, rx: 6, fill: "#7a4a22" }, s);
  svg("rect", { x: EDGE, y: EDGE, width: 12 * PW + BAR_W, height: H - 2 * EDGE,
                fill: "#e2c28f" }, s);
  svg("rect", { x: BAR_X, y: EDGE, width: BAR_W, height: H - 2 * EDGE, fill: "#6d3f1c" }, s);
  for (const top of [true, false]) {
    svg("rect", { x: TRAY_X, y: top ? EDGE : H / 2 + 3, width: W - TRAY_X - EDGE,
                  height: H / 2 - EDGE - 3, rx: 3, fill: "#5a3417" }, s);
  }
  for (let p = 1; p <= 24; p++) {
    const g = pointXY(p), base = g.top ? EDGE : H - EDGE, tip = g.top ? EDGE + 72 : H - EDGE - 72;
    svg("polygon", { points: `${g.x - PW / 2},${base} ${g.x + PW / 2},${base} ${g.x},${tip}`,
                     fill: p % 2 ? "#a0522d" : "#f5e6c8" }, s);
  }
  s.setAttribute("aria-label", w("roomNoPosition"));
  if (!zones) return s;
  s.setAttribute("aria-label", w("roomPosition"));
  for (let z = 1; z < zones.length; z++) {
    const [nw, nb] = zones[z];
    const g = svg("g", { "data-zone": z, "data-white": nw, "data-black": nb }, s);
    if (!nw && !nb) continue;
    if (z <= 24) {
      const p = pointXY(z);
      const y0 = p.top ? EDGE + R + 1 : H - EDGE - R - 1, dir = p.top ? 1 : -1;
      const k = stack(g, p.x, y0, dir, "w", nw, 0);
      stack(g, p.x, y0, dir, "b", nb, k);
    } else if (z === ZONE_BAR) {
      stack(g, BAR_X + BAR_W / 2, H / 2 + R + 4, 1, "w", nw, 0);
      stack(g, BAR_X + BAR_W / 2, H / 2 - R - 4, -1, "b", nb, 0);
    } else {
      const n = z === ZONE_OFF_W ? nw : nb;
      const x = TRAY_X + (W - TRAY_X - EDGE) / 2, y = z === ZONE_OFF_W ? H * 3 / 4 : H / 4;
      svg("circle", { cx: x, cy: y, r: R, fill: z === ZONE_OFF_W ? "#fbf7ee" : "#2a2a2a" }, g);
      svg("text", { x: x, y: y, fill: z === ZONE_OFF_W ? "#222" : "#eee" }, g).textContent = n;
    }
  }
  return s;
}

function lineClass(text) {
  if (/ played /.test(text)) return "turn";
  if (/^warning /.test(text)) return "warn";
  return "";
}

// one board's card, made anew from the server's view of it
function drawCard(v) {
  const card = html("section", "card");
  card.dataset.board = v.board;
  card.dataset.online = v.online === null ? "unknown" : String(v.online);
  card.dataset.records = v.records;
  if (v.online === false) card.classList.add("offline");
  const h = html("h2", "", card);
  html("span", "id", h, v.board + (v.long_id ? "\u2026" : ""));
  const on = v.online === null ? "roomUnknown" : v.online ? "roomOnline" : "roomOffline";
  html("span", "online " + (v.online === null ? "" : v.online ? "yes" : "no"), h, w(on));
  if (v.peer) {
    // remote play: this board's player against the other board's (docs/NETWORK.md)
    html("p", "pair", card, w("roomPair")(v.board, v.peer, v.side));
  }
  const parts = [];
  if (v.variant) parts.push(w(v.variant));
  if (v.game !== null) parts.push(w("roomGame") + " " + v.game);
  if (v.match) parts.push(w("roomMatch")(v.match.length, v.match.white, v.match.black));
  if (parts.length) html("p", "what", card, parts.join(", "));
  const play = html("p", "play", card);
  if (v.result) {
    play.textContent = w("roomOver")(v.result.winner, v.result.kind, v.result.points);
  } else if (v.turn) {
    play.textContent = w("roomToPlay")(v.turn) + (v.dice ? ": " : "");
    if (v.dice) html("span", "dice", play, v.dice.join("-"));
  }
  card.appendChild(drawBoard(v.zones));
  if (!v.zones) html("p", "note", card, w(v.snapshot ? "roomNoPosition" : "roomNoSnapshot"));
  if (v.problem) html("p", "problem", card, v.problem);
  const ol = html("ol", "lines", card);
  for (const ln of v.lines) {
    const li = html("li", lineClass(ln.text), ol, `#${ln.seq} ${ln.text}`);
    li.dataset.game = ln.game;
    li.dataset.seq = ln.seq;
  }
  return card;
}

function show(v, no) {
  const old = room.cards.get(no);
  const card = drawCard(v);
  if (old) old.replaceWith(card);
  else document.getElementById("cards").appendChild(card);
  // the newest record in view
  card.querySelector("ol").scrollTop = card.querySelector("ol").scrollHeight;
  room.cards.set(no, card);
}

function summary() {
  document.getElementById("empty").hidden = room.cards.size > 0;
  let on = 0;
  room.cards.forEach(c => { if (c.dataset.online === "true") on++; });
  document.getElementById("summary").textContent = w("roomSummary")(room.cards.size, on);
  document.body.dataset.items = room.items;
}

function roster(st) {
  document.getElementById("cards").textContent = "";
  room.cards.clear();
  st.cards.forEach(v => show(v, v.no));
  summary();
  document.body.dataset.ready = "1";
}

function connect() {
  const es = new EventSource("/api/events");
  room.es = es;
  es.addEventListener("roster", e => roster(JSON.parse(e.data)));
  es.onmessage = e => {
    const it = JSON.parse(e.data);
    room.items++;
    show(it.card, it.card.no);
    summary();
  };
  // the browser reconnects by itself with the last id: the server resends what was
  // missed, or the whole roster
  es.onerror = () => { document.body.dataset.connected = "0"; };
  es.onopen = () => { document.body.dataset.connected = "1"; };
}

room.lang = pickLang();
document.documentElement.lang = room.lang;
document.querySelectorAll("[data-w]").forEach(e => { e.textContent = w(e.dataset.w); });
summary();
connect();
