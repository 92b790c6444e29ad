// The nardy board simulator page: the board as the server reports it, the LEDs and
// the OLED as the firmware drives them, the buttons and the event log; the analysis
// of a game (``nardy analyse``) with its turns to step through on the board.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
// Two geometries: the board as a laptop shows it (1000 x 620, P13..P24 along the
// top), and on a phone held upright a narrower board turned a quarter (``world``, the
// group every drawing goes into, is rotated), so that a point, a checker and the bar
// are each at least 40 px wide under a thumb. Texts are turned back upright (CSS).
let W, H, EDGE, PW, BAR_X, BAR_W, TRAY_X, R, STEP, TIP, TRAY_STEP, LED_R, PORTRAIT = false;
function setGeometry(portrait) {
  PORTRAIT = portrait;
  if (portrait) {
    EDGE = 10; PW = 44; BAR_W = 42; R = 22; STEP = 27; TIP = 150; H = 384; LED_R = 5;
    TRAY_STEP = 2 * R + 2;
    BAR_X = EDGE + 6 * PW; TRAY_X = BAR_X + BAR_W + 6 * PW + 6; W = TRAY_X + 56 + EDGE;
  } else {
    W = 1000; H = 620; EDGE = 20; PW = 60; BAR_X = 380; BAR_W = 60; TRAY_X = 830;
    R = 25; STEP = 50; TIP = 250; TRAY_STEP = 60; LED_R = 9;
  }
}
const PORTRAIT_MQ = window.matchMedia("(max-width: 759px) and (orientation: portrait)");
setGeometry(PORTRAIT_MQ.matches);
const ZONE_BAR = 25, ZONE_OFF_W = 26, ZONE_OFF_B = 27;
const state = { s: null, lines: 0, display: 0, drag: null, queue: Promise.resolve(),
                pending: 0, es: null, held: 0, report: null, review: null,
                lang: "en", lights: null };
const board = document.getElementById("board");

// -- words: the page in English or Russian (words.js) ------------------------------------
function w(key) { return wordIn(state.lang, key); }
function applyWords() {
  document.documentElement.lang = state.lang;
  document.getElementById("lang").value = state.lang;
  document.querySelectorAll("[data-w]").forEach(e => {
    const t = w(e.dataset.w);
    if (typeof t === "string") setWords(e, t);
  });
  document.querySelectorAll("[data-wt]").forEach(e => { e.title = w(e.dataset.wt); });
  drawRules();
  drawLegend();
  soundButton();
  if (state.s) showHandAndDice(state.s);
}

// An element's words. A tray's label on the phone: one word a line, the lane being
// narrower than "чёрные вышли" is long.
function setWords(e, t) {
  if (!(PORTRAIT && e.classList.contains("tray-label"))) {
    e.textContent = t;
    return;
  }
  e.textContent = "";
  const words = t.split(" ");
  words.forEach((word, i) => {
    const line = el("tspan", { x: e.getAttribute("x"),
                               dy: (i ? 1.1 : -0.55 * (words.length - 1)) + "em" }, e);
    line.textContent = word;
  });
}

function el(name, attrs, parent) {
  const e = document.createElementNS(SVGNS, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

// -- geometry: P13..P24 along the top left to right, P12..P1 along the bottom --------
function colX(c) { return EDGE + c * PW + (c >= 6 ? BAR_W : 0) + PW / 2; }
function pointGeom(p) {
  if (p >= 13) return { x: colX(p - 13), top: true };
  return { x: colX(12 - p), top: false };
}
function zoneName(z) {
  if (z === ZONE_BAR) return "bar";
  if (z === ZONE_OFF_W) return "white's tray";
  if (z === ZONE_OFF_B) return "black's tray";
  return "P" + z;
}
// where checker i (from the edge) of a zone lies
function checkerXY(z, i) {
  if (z <= 24) {
    const g = pointGeom(z);
    const y = g.top ? EDGE + R + 2 + i * STEP : H - EDGE - R - 2 - i * STEP;
    return [g.x, y];
  }
  if (z === ZONE_BAR) return [BAR_X + BAR_W / 2, H - EDGE - R - 10 - i * 2.1 * R * 2.4];
  const top = z === ZONE_OFF_B;
  if (PORTRAIT) {                          // the tray is narrow: its slots along it
    const x = TRAY_X + (W - TRAY_X - EDGE) / 2;
    return [x, top ? EDGE + R + 4 + i * TRAY_STEP : H - EDGE - R - 4 - i * TRAY_STEP];
  }
  return [TRAY_X + 40 + i * TRAY_STEP, top ? EDGE + 60 : H - EDGE - 60];
}

let world = null;
function drawStatic() {
  board.textContent = "";
  board.setAttribute("viewBox", PORTRAIT ? `0 0 ${H} ${W}` : `0 0 ${W} ${H}`);
  board.style.aspectRatio = PORTRAIT ? `${H} / ${W}` : `${W} / ${H}`;
  document.body.classList.toggle("portrait", PORTRAIT);
  const defs = el("defs", {}, board);
  world = el("g", { id: "world" }, board);
  if (PORTRAIT) world.setAttribute("transform", `translate(${H},0) rotate(90)`);
  const wood = el("linearGradient", { id: "wood", x1: 0, y1: 0, x2: 1, y2: 0.2 }, defs);
  el("stop", { offset: "0", "stop-color": "#7a4a22" }, wood);
  el("stop", { offset: ".5", "stop-color": "#935c2c" }, wood);
  el("stop", { offset: "1", "stop-color": "#6d3f1c" }, wood);
  el("rect", { x: 0, y: 0, width: W, height: H, rx: PORTRAIT ? 8 : 14, fill: "url(#wood)" },
     world);
  el("rect", { x: EDGE, y: EDGE, width: 12 * PW + BAR_W, height: H - 2 * EDGE,
               fill: "#e2c28f" }, world);
  el("rect", { x: BAR_X, y: EDGE, width: BAR_W, height: H - 2 * EDGE,
               fill: "#6d3f1c" }, world);
  for (const top of [true, false]) {
    el("rect", { x: TRAY_X, y: top ? EDGE : H / 2 + 10, width: W - TRAY_X - EDGE,
                 height: H / 2 - EDGE - 10, rx: 6, fill: "#5a3417" }, world);
  }
  for (let p = 1; p <= 24; p++) {
    const g = pointGeom(p);
    const base = g.top ? EDGE : H - EDGE;
    const tip = g.top ? EDGE + TIP : H - EDGE - TIP;
    el("polygon", { points: `${g.x - PW / 2},${base} ${g.x + PW / 2},${base} ${g.x},${tip}`,
                    fill: p % 2 ? "#a0522d" : "#f5e6c8", stroke: "#7a4a22" }, world);
    // between the two rows of tips, clear of the checkers
    const dy = PORTRAIT ? 15 : 22;
    const lbl = el("text", { x: g.x, y: g.top ? H / 2 - dy : H / 2 + dy, class: "label" },
                   world);
    lbl.textContent = "P" + p;
  }
  const tx = TRAY_X + (W - TRAY_X - EDGE) / 2;
  // on the phone a tray is a lane as wide as a checker, its two stacks from the
  // edge: the label goes between them and the tray's LED (by the middle), where
  // 15 borne off never reach (at H / 4 the second stack covered it)
  const stacks = EDGE + R + 4 + TRAY_STEP + R;      // the second stack's inner edge
  const led = H / 2 - 22 - LED_R - 6;                 // the tray LED's glow (drawLeds)
  const ty = (stacks + led) / 2;
  const tb = el("text", { x: tx, y: PORTRAIT ? ty : H / 2 - 30, class: "tray-label" },
                world);
  tb.dataset.w = "blackOff";
  setWords(tb, w("blackOff"));
  const tl = el("text", { x: tx, y: PORTRAIT ? H - ty : H / 2 + 40, class: "tray-label" },
                world);
  tl.dataset.w = "whiteOff";
  setWords(tl, w("whiteOff"));
  world.appendChild(el("g", { id: "checkers" }));
  world.appendChild(el("g", { id: "leds" }));
  const zones = el("g", { id: "zones" }, world);
  world.appendChild(el("g", { id: "drag" }));
  for (let p = 1; p <= 24; p++) {
    const g = pointGeom(p);
    el("rect", { x: g.x - PW / 2, y: g.top ? EDGE : H / 2, width: PW,
                 height: H / 2 - EDGE, class: "zone", "data-zone": p }, zones);
  }
  el("rect", { x: BAR_X, y: EDGE, width: BAR_W, height: H - 2 * EDGE, class: "zone",
               "data-zone": ZONE_BAR }, zones);
  el("rect", { x: TRAY_X, y: H / 2 + 10, width: W - TRAY_X - EDGE, height: H / 2 - 30,
               class: "zone", "data-zone": ZONE_OFF_W }, zones);
  el("rect", { x: TRAY_X, y: EDGE, width: W - TRAY_X - EDGE, height: H / 2 - 30,
               class: "zone", "data-zone": ZONE_OFF_B }, zones);
}

// a stack: the checker under the top one shows at an offset (its own colour when a
// point holds both), the top one carries the count
function drawChecker(g, x, y, colour, n, under) {
  if (n > 1) {
    const w = (under || colour) === "w";
    // on the phone's overlapping stacks the one under peeks out towards the edge,
    // clear of the next checker's count
    const dy = PORTRAIT && y < H / 2 ? -4 : 4;
    el("circle", { cx: x + 4, cy: y + dy, r: R - 1, class: "checker",
                   fill: w ? "#cfc6b4" : "#111", stroke: "#333" }, g);
  }
  const white = colour === "w";
  el("circle", { cx: x, cy: y, r: R - 1, class: "checker top", "data-colour": colour,
                 fill: white ? "#fbf7ee" : "#2a2a2a", stroke: white ? "#8a7f6a" : "#000",
                 "stroke-width": 2 }, g);
  if (n > 1) {
    const t = el("text", { x: x, y: y, class: "count", fill: white ? "#222" : "#eee" }, g);
    t.textContent = String(n);
  }
}

function drawCheckers(s) {
  const g = document.getElementById("checkers");
  g.textContent = "";
  const b = s.board || {};
  for (const zs in b) {
    const z = Number(zs);
    const slots = b[zs];
    let total = 0;
    const grp = el("g", { "data-zone": z }, g);
    if (!s.virtual) {
      // a real board reports counts: one row, a number on the last when longer than five
      const row = slots[0] || "";
      for (let i = 0; i < Math.min(row.length, 5); i++) {
        const [x, y] = checkerXY(z, i);
        drawChecker(grp, x, y, row[i], i === 4 && row.length > 5 ? row.length - 4 : 1, row[i]);
      }
      total = row.length;
    } else {
      // the phone's stacks overlap: drawn from the middle out, each checker's count
      // stays above the next one in
      const order = slots.map((_, i) => i);
      if (PORTRAIT) order.reverse();
      for (const i of order) {
        const stack = slots[i];
        if (!stack.length) continue;
        total += stack.length;
        let [x, y] = checkerXY(z, i);
        if (z === ZONE_BAR) y = H - EDGE - R - 12 - i * ((H - 2 * EDGE - 2 * R) / 3.2);
        drawChecker(grp, x, y, stack[stack.length - 1], stack.length,
                    stack[stack.length - 2]);
      }
    }
    grp.setAttribute("data-count", total);
  }
}

function drawLeds(s, rgbHex) {
  const g = document.getElementById("leds");
  g.textContent = "";
  const zones = s.led_zones || [];
  const seen = {};
  zones.forEach((z, i) => {
    const k = seen[z] = (seen[z] || 0) + 1;
    let x, y;
    if (z <= 24) {
      const p = pointGeom(z);
      x = p.x + (k - 1) * 14;
      y = p.top ? EDGE / 2 : H - EDGE / 2;
      if (PORTRAIT) x = p.x + (k - 1) * 2 * LED_R;
    } else if (z === ZONE_BAR) {
      x = BAR_X + BAR_W / 2; y = H / 2 - 30 + (k - 1) * 20;
    } else {
      x = TRAY_X + 20 + (k - 1) * 16; y = z === ZONE_OFF_W ? H / 2 + 22 : H / 2 - 22;
    }
    let r = 0, gg = 0, b = 0;
    if (rgbHex) {
      r = parseInt(rgbHex.substr(6 * i, 2), 16) || 0;
      gg = parseInt(rgbHex.substr(6 * i + 2, 2), 16) || 0;
      b = parseInt(rgbHex.substr(6 * i + 4, 2), 16) || 0;
    }
    const m = Math.max(r, gg, b);
    // scale up for the screen: the firmware dims the LEDs for the USB power budget
    const f = m ? 255 / m : 0;
    const fill = m ? `rgb(${r * f | 0},${gg * f | 0},${b * f | 0})` : "#3a2a1a";
    const name = m ? lightName(r, gg, b) : "";
    if (m) el("circle", { cx: x, cy: y, r: LED_R + 6, class: "glow", fill: fill }, g);
    const c = el("circle", { cx: x, cy: y, r: LED_R, class: "led" + (m ? " lit" : ""),
                             fill: fill, "data-zone": z, "data-rgb": `${r},${gg},${b}`,
                             "data-light": name }, g);
    if (name) el("title", {}, c).textContent = w("light")[name] || name;
  });
}

// which of the firmware's colours (the state's ``lights``) an LED shows: the nearest
// in hue, the firmware dims them all alike
function lightName(r, g, b) {
  const lights = state.lights || {};
  const m = Math.max(r, g, b);
  let best = "", bd = Infinity;
  for (const k in lights) {
    const [lr, lg, lb] = lights[k];
    const lm = Math.max(lr, lg, lb) || 1;
    const d = Math.abs(r / m - lr / lm) + Math.abs(g / m - lg / lm) + Math.abs(b / m - lb / lm);
    if (d < bd) { bd = d; best = k; }
  }
  return bd < 0.3 ? best : "";
}

// the legend: every colour of the firmware's table, with what it means
function drawLegend() {
  const ul = document.getElementById("legend");
  const lights = state.lights;
  if (!lights) return;
  ul.textContent = "";
  for (const k in lights) {
    const li = document.createElement("li");
    li.dataset.light = k;
    const sw = document.createElement("span");
    sw.className = "swatch";
    sw.style.background = `rgb(${lights[k].join(",")})`;
    li.appendChild(sw);
    li.appendChild(document.createTextNode(w("light")[k] || k));
    ul.appendChild(li);
  }
}

// the rules a warning cites, in a player's words
function drawRules() {
  const dl = document.getElementById("rule-list");
  dl.textContent = "";
  const rules = w("rule");
  for (const id in rules) {
    const dt = document.createElement("dt");
    dt.id = "rule-" + id;
    dt.textContent = id;
    const dd = document.createElement("dd");
    dd.textContent = rules[id];
    dl.appendChild(dt);
    dl.appendChild(dd);
  }
}
function showRule(id) {
  setTab("rules");
  document.querySelectorAll("#rule-list .current").forEach(e => e.classList.remove("current"));
  const dt = document.getElementById("rule-" + id);
  if (dt) { dt.classList.add("current"); dt.scrollIntoView({ block: "nearest" }); }
}

// -- sound: a short beep for a warning (WebAudio); off when muted or refused -------------
const sound = { ctx: null, muted: false, refused: false, beeps: 0 };
try { sound.muted = localStorage.getItem("nardy-mute") === "1"; } catch (e) { /* none */ }
function soundButton() {
  const b = document.getElementById("sound");
  b.textContent = sound.refused ? w("soundRefused") : sound.muted ? w("soundOff") : w("soundOn");
  b.setAttribute("aria-pressed", String(!sound.muted && !sound.refused));
  b.disabled = sound.refused;
  document.body.dataset.sound = sound.refused ? "refused" : sound.muted ? "muted" : "on";
}
function audio() {
  if (sound.refused) return null;
  if (!sound.ctx) {
    const AC = window.AudioContext || window.webkitAudioContext;
    if (!AC) { sound.refused = true; soundButton(); return null; }
    try { sound.ctx = new AC(); } catch (e) { sound.refused = true; soundButton(); return null; }
  }
  if (sound.ctx.state === "suspended") {
    sound.ctx.resume().catch(() => { sound.refused = true; soundButton(); });
  }
  return sound.ctx;
}
function beep() {
  if (sound.muted) return;
  const ctx = audio();
  if (!ctx || ctx.state !== "running") return;   // no gesture yet: the browser says no
  const o = ctx.createOscillator(), g = ctx.createGain();
  o.frequency.value = 880;
  g.gain.setValueAtTime(0.15, ctx.currentTime);
  g.gain.exponentialRampToValueAtTime(0.001, ctx.currentTime + 0.25);
  o.connect(g); g.connect(ctx.destination);
  o.start(); o.stop(ctx.currentTime + 0.25);
  sound.beeps++;
  document.body.dataset.beeps = sound.beeps;
}
// a browser allows audio after the player's first gesture: it is asked for there
document.addEventListener("pointerdown", () => { if (!sound.muted) audio(); }, true);
document.getElementById("sound").addEventListener("click", () => {
  sound.muted = !sound.muted;
  try { localStorage.setItem("nardy-mute", sound.muted ? "1" : "0"); } catch (e) { /* none */ }
  soundButton();
});

// SSD1306 MONO_VLSB: byte (y >> 3) * 128 + x, bit y & 7
function drawOled(fbHex) {
  const c = document.getElementById("oled");
  const ctx = c.getContext("2d");
  const img = ctx.createImageData(128, 64);
  for (let y = 0; y < 64; y++) {
    for (let x = 0; x < 128; x++) {
      const i = (y >> 3) * 128 + x;
      const byte = parseInt(fbHex.substr(2 * i, 2), 16);
      const on = (byte >> (y & 7)) & 1;
      const o = 4 * (y * 128 + x);
      img.data[o] = on ? 140 : 0; img.data[o + 1] = on ? 220 : 0;
      img.data[o + 2] = on ? 255 : 0; img.data[o + 3] = 255;
    }
  }
  ctx.putImageData(img, 0, 0);
  state.display++;
  document.body.dataset.oledFrames = state.display;
}

const RULE_ID = /\b([CLS][1-8])\b/;
function logLine(it, replay) {
  const log = document.getElementById("log");
  const li = document.createElement("li");
  li.className = it.warn ? "warn" : it.ev;
  li.value = it.id + 1;
  li.textContent = it.text;
  li.dataset.ev = it.ev;
  const rule = (it.warn || /refuses/.test(it.text)) && RULE_ID.exec(it.text);
  if (rule && w("rule")[rule[1]]) {
    // what the rule means, a tap away
    const a = document.createElement("button");
    a.className = "why";
    a.textContent = "?";
    a.title = rule[1] + ": " + w("rule")[rule[1]];
    a.setAttribute("aria-label", w("ruleLink"));
    a.addEventListener("click", () => showRule(rule[1]));
    li.appendChild(a);
  }
  log.appendChild(li);
  while (log.children.length > 300) log.removeChild(log.firstChild);
  // follow the newest line: the list scrolls, and on a phone the page too when the
  // log is in view
  log.scrollTop = log.scrollHeight;
  if (it.warn && !replay) beep();
  state.lines++;
  document.body.dataset.lines = state.lines;
}

let refreshTimer = null;
function scheduleRefresh() {
  if (refreshTimer) return;
  refreshTimer = setTimeout(() => { refreshTimer = null; refresh(); }, 30);
}

// the snapshot: board, hand, frames, game; with ``full`` the log too (a (re)load)
async function refresh(full) {
  const r = await fetch("/api/state");
  if (!r.ok) return;
  const s = await r.json();
  state.s = s;
  if (!state.pending) state.held = s.hand.length;   // what the page thinks it holds
  const mode = document.getElementById("mode");
  mode.dataset.w = s.mode === "live" ? "modeLive" : s.mode === "board" ? "modeBoard" : "modeSim";
  mode.textContent = w(mode.dataset.w);
  if (!state.review) {                     // a reviewed turn keeps the board
    drawCheckers(s);
    drawLeds(s, s.leds);
  }
  gameChoices(s.games || []);
  if (s.mode === "board") ownerView(s);
  if (s.oled) drawOled(s.oled);
  if (s.lights && !state.lights) { state.lights = s.lights; drawLegend(); }
  showHandAndDice(s);
  // the variant box shows the game being played (unless the player is choosing)
  const vsel = document.getElementById("variant"), msel = document.getElementById("match");
  if (s.variant && document.activeElement !== vsel) vsel.value = s.variant;
  if (s.match && document.activeElement !== msel) msel.value = s.match;
  if (full) {
    document.getElementById("log").textContent = "";
    s.log.forEach(it => logLine(it, true));
  }
  document.body.dataset.ready = "1";
  return s;
}

// the hand, the dice (shown here whatever the OLED shows) and the download link
function showHandAndDice(s) {
  document.getElementById("hand").textContent =
    w("hand") + ": " + (s.hand.length ? s.hand.map(h => w(h[0] === "w" ? "white" : "black") +
      " " + w("from") + " " + h.slice(2)).join(", ") : w("handEmpty"));
  const d = document.getElementById("dice");
  d.textContent = s.dice && s.dice.length ? s.dice.join("-") : w("noDice");
  d.dataset.dice = s.dice ? s.dice.join("-") : "";
  const dl = document.getElementById("download");
  // before the first game: the page's log so far
  dl.href = "/api/log" + (s.game ? "?game=" + s.game : "");
  dl.textContent = s.game ? w("download") : w("downloadSession");
}

// the legal turns for the dice being played, on request
async function showMoves() {
  const box = document.getElementById("moves");
  box.hidden = false;
  box.textContent = "";
  let j;
  try {
    const r = await fetch("/api/moves");
    j = await r.json();
    if (!r.ok) { box.textContent = r.status === 409 ? w("movesNone") : j.error; return; }
  } catch (e) {
    box.textContent = String(e);
    return;
  }
  const head = document.createElement("p");
  head.textContent = w("movesHead")(j.turns.length, j.side, j.dice.join("-")) +
    (j.played ? ` (${w("played")}: ${j.played})` : "");
  box.appendChild(head);
  const ul = document.createElement("ul");
  j.turns.forEach(t => {
    const li = document.createElement("li");
    li.textContent = t;
    ul.appendChild(li);
  });
  box.appendChild(ul);
  document.body.dataset.moves = j.turns.length;
}
document.getElementById("moves-btn").addEventListener("click", () => {
  const box = document.getElementById("moves");
  if (!box.hidden && box.dataset.open === "1") { box.hidden = true; box.dataset.open = ""; return; }
  box.dataset.open = "1";
  showMoves();
});

// a phone's header: the controls played less often behind "more"
document.getElementById("more").addEventListener("click", ev => {
  const open = document.querySelector("header").classList.toggle("open");
  ev.currentTarget.setAttribute("aria-expanded", String(open));
});

// the language: the page's words, and the board's setting (a board that refuses it
// keeps its own; the page switches all the same)
document.getElementById("lang").addEventListener("change", ev => {
  state.lang = ev.target.value in WORDS ? ev.target.value : "en";
  try { localStorage.setItem("nardy-lang", state.lang); } catch (e) { /* none */ }
  applyWords();
  act({ action: "lang", lang: state.lang });
});

// actions run one after another, in the order the player made them
function act(obj) {
  if (obj.action === "lift") state.held++;
  if (obj.action === "place") state.held = Math.max(0, state.held - 1);
  state.pending++;
  document.body.dataset.busy = "1";
  state.queue = state.queue.then(async () => {
    const st = document.getElementById("status");
    try {
      const r = await fetch("/api/action", { method: "POST",
        headers: { "Content-Type": "application/json", "X-Nardy-Token": state.token || "" },
        body: JSON.stringify(obj) });
      const j = await r.json();
      st.textContent = r.ok ? "" : j.error;
    } catch (e) {
      st.textContent = String(e);
    }
    await refresh();
    state.pending--;
    document.body.dataset.actions = (Number(document.body.dataset.actions || 0) + 1);
    if (!state.pending) document.body.dataset.busy = "0";
  });
  return state.queue;
}

// -- the player's hands ------------------------------------------------------------------
// Pressing on a checker lifts it at once (the board lights its targets); it follows
// the pointer and goes down where it is released, back where it came from when
// released off the board. A press and release without moving keeps it in the hand:
// the next tap puts it down. On a point or the bar holding both colours, the checker
// nearest the pointer is the one lifted.
function zoneAt(x, y) {
  const e = document.elementFromPoint(x, y);
  return e && e.dataset && e.dataset.zone ? Number(e.dataset.zone) : null;
}
function svgPoint(ev) {
  // in the drawing's own coordinates (the phone's board is turned)
  const p = board.createSVGPoint();
  p.x = ev.clientX; p.y = ev.clientY;
  return p.matrixTransform(world.getScreenCTM().inverse());
}
function colourAt(z, pt) {
  let best = null, bd = Infinity;
  board.querySelectorAll(`#checkers g[data-zone="${z}"] circle.top`).forEach(c => {
    const d = Math.hypot(c.cx.baseVal.value - pt.x, c.cy.baseVal.value - pt.y);
    if (d < bd) { bd = d; best = c.dataset.colour; }
  });
  return best;
}
function ghost(colour, pt) {
  const g = document.getElementById("drag");
  g.textContent = "";
  if (!colour) return;
  el("circle", { cx: pt.x, cy: pt.y, r: R - 1, fill: colour === "w" ? "#fbf7ee" : "#2a2a2a",
                 stroke: "#f6c66b", "stroke-width": 3, opacity: 0.9, id: "ghost" }, g);
}
board.addEventListener("pointerdown", ev => {
  if (ev.button > 0) return;
  const z = zoneAt(ev.clientX, ev.clientY);
  if (z === null || !state.s || !state.s.virtual) return;   // a real board's hands are real
  if (state.review) return;                // a past position: nothing to lift
  ev.preventDefault();
  board.setPointerCapture(ev.pointerId);
  const pt = svgPoint(ev);
  const inHand = state.held > 0;
  let colour = null;
  if (!inHand) {
    colour = colourAt(z, pt);
    if (!colour) return;                  // an empty point: nothing to lift
    act({ action: "lift", zone: z, colour: colour === "w" ? "white" : "black" });
  } else {
    const h = state.s.hand[state.s.hand.length - 1];
    colour = h ? h[0] : null;
  }
  state.drag = { from: z, x: ev.clientX, y: ev.clientY, moved: false, inHand: inHand,
                 colour: colour };
  const r = board.querySelector(`.zone[data-zone="${z}"]`);
  if (r) r.classList.add("from");
  ghost(colour, pt);
});
board.addEventListener("pointermove", ev => {
  const d = state.drag;
  if (!d) return;
  if (Math.hypot(ev.clientX - d.x, ev.clientY - d.y) > 6) d.moved = true;
  ghost(d.colour, svgPoint(ev));
});
function endDrag(ev, cancelled) {
  const d = state.drag;
  state.drag = null;
  ghost(null);
  board.querySelectorAll(".zone.from").forEach(e => e.classList.remove("from"));
  if (!d) return;
  const to = cancelled ? null : zoneAt(ev.clientX, ev.clientY);
  if (d.inHand) {                          // the second tap: put it down there
    if (to !== null) act({ action: "place", zone: to });
    return;
  }
  if (!d.moved) return;                    // a tap: the checker stays in the hand
  act({ action: "place", zone: to === null ? d.from : to });
}
board.addEventListener("pointerup", ev => endDrag(ev, false));
board.addEventListener("pointercancel", ev => endDrag(ev, true));

// the board's buttons: a click is a short press, held for LONG_MS or more a long one
const LONG_MS = 700;
document.querySelectorAll("button.hw").forEach(b => {
  let t0 = 0, timer = null;
  const up = (send) => {
    if (!t0) return;
    clearTimeout(timer);
    b.classList.remove("down", "long");
    const kind = Date.now() - t0 >= LONG_MS ? "long" : "short";
    t0 = 0;
    if (send) act({ action: "press", button: b.dataset.button, kind: kind });
  };
  b.addEventListener("pointerdown", ev => {
    ev.preventDefault();
    b.setPointerCapture(ev.pointerId);
    t0 = Date.now();
    b.classList.add("down");
    timer = setTimeout(() => b.classList.add("long"), LONG_MS);
  });
  b.addEventListener("pointerup", () => up(true));
  b.addEventListener("pointercancel", () => up(false));
  b.addEventListener("contextmenu", ev => ev.preventDefault());
  b.addEventListener("keydown", ev => {   // the keyboard: Enter / space, a short press
    if (ev.key === "Enter" || ev.key === " ") {
      ev.preventDefault();
      act({ action: "press", button: b.dataset.button, kind: "short" });
    }
  });
});
document.getElementById("new").addEventListener("click", () => {
  if (state.s && state.s.in_progress &&
      !window.confirm("A game is in progress. Drop it and start a new match?")) return;
  act({ action: "new", variant: document.getElementById("variant").value,
        match: Number(document.getElementById("match").value) || 1 });
});
document.getElementById("setup").addEventListener("click", () => act({ action: "setup" }));

// -- the board's own page (nardy.webserve): anyone watches, the owner logs in -----------
// A session cookie after one login; every change also carries the session's token
// (X-Nardy-Token), which a page of another site cannot send. The board has no
// analysis and no hands: those parts of the page are hidden there.
async function ownerView(s) {
  document.body.classList.add("on-board");
  document.getElementById("owner").hidden = false;
  const was = !!state.token;
  state.token = s.owner ? s.token : null;
  document.getElementById("login").hidden = !!s.owner;
  document.getElementById("owned").hidden = !s.owner;
  const note = document.getElementById("owner-note");
  note.dataset.w = s.owner ? "ownerIn" : "ownerOut";
  note.textContent = w(note.dataset.w);
  document.body.dataset.owner = s.owner ? "1" : "0";
  document.getElementById("download").hidden = !s.owner;   // the journal is the owner's
  if (s.owner && (!was || state.gamesFeed !== s.feed)) {
    state.gamesFeed = s.feed;
    ownerGames();
  }
}
async function ownerGames() {
  const r = await fetch("/api/games");
  if (!r.ok) return;
  const j = await r.json();
  const ul = document.getElementById("owner-games");
  ul.textContent = "";
  j.games.forEach(g => {
    const id = Array.isArray(g) ? g[0] : (g.game !== undefined ? g.game : g);
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = "/api/log?game=" + id;
    a.download = "";
    a.textContent = "game " + id;
    const del = document.createElement("button");
    del.textContent = w("deleteGame");
    del.dataset.game = id;
    del.addEventListener("click", () => act({ action: "delete", game: id }).then(ownerGames));
    li.append(a, " ", del);
    ul.appendChild(li);
  });
}
document.getElementById("login").addEventListener("submit", async ev => {
  ev.preventDefault();
  const st = document.getElementById("owner-status");
  const pw = document.getElementById("password");
  const r = await fetch("/api/login", { method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ password: pw.value }) });
  const j = await r.json();
  st.textContent = r.ok ? "" : j.error;
  pw.value = "";
  await refresh();
});
document.getElementById("logout").addEventListener("click", async () => {
  await fetch("/api/logout", { method: "POST",
    headers: { "Content-Type": "application/json", "X-Nardy-Token": state.token || "" },
    body: "{}" });
  await refresh();
});

// -- updates: log lines and the newest LED/OLED frames ---------------------------------
let frames = 0;
function connect(from) {
  if (state.es) state.es.close();
  const es = state.es = new EventSource("/api/events?since=" + from);
  es.onmessage = m => {
    const ev = JSON.parse(m.data);
    if (ev.ev === "reset") {              // lines were dropped: take a fresh snapshot
      es.close();
      refresh(true).then(s => connect(s ? s.feed : 0));
      return;
    }
    if (ev.ev === "leds") {
      if (state.s) { state.s.leds = ev.rgb; if (!state.review) drawLeds(state.s, ev.rgb); }
      frames++;
      document.body.dataset.ledFrames = frames;
    } else if (ev.ev === "oled") {
      drawOled(ev.fb);
    } else {
      logLine(ev);
      scheduleRefresh();
    }
  };
}

// -- analysis: every turn of a game rated (nardy analyse), stepped through on the board --
// The table lists the worst mistakes first; a row shows its turn on the board (the
// position before it, with the played turn's steps in amber and the best turn's in
// green); "played" and "best" show the position each one leaves. The live board
// comes back with "live" (its updates go on meanwhile, drawn once reviewing ends).
const MAX_JOURNAL = 512 * 1024;            // the server's limit (simweb.MAX_JOURNAL)

const TABS = ["log", "analysis", "lights", "rules"];
function setTab(name) {
  for (const t of TABS) {
    document.getElementById(t).hidden = t !== name;
    document.getElementById("tab-" + t).setAttribute("aria-selected", String(t === name));
  }
  document.body.classList.toggle("analysing", name === "analysis");
  if (name === "log") {
    const log = document.getElementById("log");
    log.scrollTop = log.scrollHeight;
  }
}
for (const t of TABS) document.getElementById("tab-" + t).addEventListener("click", () => setTab(t));

// the session's games, newest first, keeping the player's choice
function gameChoices(games) {
  const sel = document.getElementById("an-game");
  const key = games.map(g => g.join(":")).join(",");
  if (sel.dataset.key === key) return;
  const keep = sel.value;
  sel.textContent = "";
  games.slice().reverse().forEach(([id, variant]) => {
    const o = document.createElement("option");
    o.value = id;
    o.textContent = `game ${id}` + (variant ? ` (${variant})` : "");
    sel.appendChild(o);
  });
  if (keep && games.some(g => String(g[0]) === keep)) sel.value = keep;
  sel.dataset.key = key;
  document.getElementById("an-run").disabled = !games.length;
}

function anStatus(text, kind) {
  const st = document.getElementById("an-status");
  st.textContent = text;
  st.className = kind || "";
  document.body.dataset.analysis = kind || "";
}

async function runAnalysis(fetching, what) {
  const run = document.getElementById("an-run"), file = document.getElementById("an-file");
  run.disabled = file.disabled = true;
  anStatus(`analysing ${what}...`, "busy");
  try {
    const r = await fetching;
    const j = await r.json();
    if (!r.ok) { anStatus(j.error || `error ${r.status}`, "error"); return; }
    showReport(j, what);
  } catch (e) {
    anStatus(String(e), "error");
  } finally {
    run.disabled = !document.getElementById("an-game").options.length;
    file.disabled = false;
  }
}
document.getElementById("an-run").addEventListener("click", () => {
  const g = document.getElementById("an-game").value;
  runAnalysis(fetch("/api/analyse?game=" + encodeURIComponent(g)), "game " + g);
});
document.getElementById("an-file").addEventListener("change", ev => {
  const f = ev.target.files[0];
  ev.target.value = "";                    // the same file again is a new change
  if (!f) return;
  if (f.size > MAX_JOURNAL) {
    anStatus(`${f.name} is ${f.size} bytes: a journal is at most ${MAX_JOURNAL}`, "error");
    return;
  }
  runAnalysis(fetch("/api/analyse", { method: "POST", body: f,
    headers: { "Content-Type": "application/x-ndjson" } }), f.name);
});

function fmtLoss(t) {
  if (t.loss === null) return t.note ? "illegal" : "";
  return t.loss > 0 ? t.loss.toFixed(3) : "0";
}

function showReport(rep, what) {
  leaveReview();
  state.report = rep;
  const turns = rep.turns;
  anStatus(`${what}: ${rep.variant} nardy, ${turns.length} turns rated by ${rep.judge}` +
           `; lost: white ${rep.lost.white.toFixed(3)}, black ${rep.lost.black.toFixed(3)}`,
           "done");
  // the worst mistakes first, then the other turns in the order played
  const worst = new Set(rep.worst);
  const order = rep.worst.concat(turns.map((_, i) => i).filter(i => !worst.has(i)));
  const body = document.querySelector("#an-table tbody");
  body.textContent = "";
  for (const i of order) {
    const t = turns[i];
    const tr = document.createElement("tr");
    tr.dataset.i = i;
    if (t.loss >= 0.1) tr.className = "bad";
    else if (t.loss >= 0.03) tr.className = "doubtful";
    const cells = [`${t.n} ${t.side[0]}`, t.dice.join("-"), t.played,
                   t.best === t.played ? "=" : t.best, fmtLoss(t)];
    cells.forEach(c => {
      const td = document.createElement("td");
      td.textContent = c;
      tr.appendChild(td);
    });
    if (t.note) tr.title = t.note;
    tr.addEventListener("click", () => review(i, "before"));
    body.appendChild(tr);
  }
  document.body.dataset.turns = turns.length;
}

// where an arrow to or from a zone starts: the middle of a point, the bar, a tray
function zoneCentre(z) {
  if (z <= 24) {
    const g = pointGeom(z);
    return [g.x, g.top ? EDGE + 0.6 * TIP : H - EDGE - 0.6 * TIP];
  }
  if (z === ZONE_BAR) return [BAR_X + BAR_W / 2, H / 2];
  return [TRAY_X + (W - TRAY_X - EDGE) / 2, z === ZONE_OFF_W ? H * 0.71 : H * 0.29];
}

function arrowDefs() {
  const defs = board.querySelector("defs");
  for (const [id, colour] of [["played", "#f6a21b"], ["best", "#3fd46b"]]) {
    const m = el("marker", { id: "arrow-" + id, viewBox: "0 0 10 10", refX: 8, refY: 5,
                             markerWidth: 5, markerHeight: 5, orient: "auto-start-reverse" },
                 defs);
    el("path", { d: "M0,0 L10,5 L0,10 z", fill: colour }, m);
  }
  const g = el("g", { id: "review" });
  world.insertBefore(g, document.getElementById("zones"));
}

// a step as a curve bowed towards the middle of the board, the best turn's further
// than the played one's, so that the two stay apart where they share points
function drawArrows(steps, kind, bow) {
  const g = document.getElementById("review");
  for (const [from, to] of steps) {
    const [x1, y1] = zoneCentre(from), [x2, y2] = zoneCentre(to);
    const mx = (x1 + x2) / 2, my = (y1 + y2) / 2;
    const cy = my + (my < H / 2 ? bow : my > H / 2 ? -bow : 0);
    const cx = Math.abs(y2 - y1) > H / 3 ? mx + (mx < W / 2 ? bow : -bow) : mx;
    el("path", { d: `M${x1},${y1} Q${cx},${cy} ${x2},${y2}`, fill: "none",
                 class: "arrow " + kind, "marker-end": `url(#arrow-${kind})`,
                 "data-from": from, "data-to": to }, g);
  }
}

function review(i, show) {
  const rep = state.report;
  if (!rep || i < 0 || i >= rep.turns.length) return;
  const t = rep.turns[i];
  if (show === "best_after" && !t.best_after) show = "before";
  state.review = { i: i, show: show };
  document.body.classList.add("reviewing");
  document.body.dataset.review = i;
  document.body.dataset.show = show;
  drawCheckers({ board: t[show] || {}, virtual: false });
  document.getElementById("leds").textContent = "";       // the LEDs are the live board's
  document.getElementById("review").textContent = "";
  if (show !== "best_after") drawArrows(t.played_steps, "played", 40);
  if (show !== "after" && t.best !== t.played) drawArrows(t.best_steps, "best", 90);
  document.getElementById("an-review").hidden = false;
  document.getElementById("an-turn").textContent =
    `turn ${t.n}, ${t.side} ${t.dice.join("-")}: ${t.played}` +
    (t.loss ? ` (best ${t.best}, lost ${t.loss.toFixed(3)})` : t.note ? ` (${t.note})` : "");
  document.querySelectorAll("#an-show button").forEach(b =>
    b.setAttribute("aria-pressed", String(b.dataset.show === show)));
  document.querySelector('#an-show button[data-show="best_after"]').disabled = !t.best_after;
  document.getElementById("an-prev").disabled = i === 0;
  document.getElementById("an-next").disabled = i === rep.turns.length - 1;
  document.querySelectorAll("#an-table tr.current").forEach(r => r.classList.remove("current"));
  const row = document.querySelector(`#an-table tr[data-i="${i}"]`);
  if (row) { row.classList.add("current"); row.scrollIntoView({ block: "nearest" }); }
}

function leaveReview() {
  if (!state.review) return;
  state.review = null;
  document.body.classList.remove("reviewing");
  delete document.body.dataset.review;
  delete document.body.dataset.show;
  document.getElementById("review").textContent = "";
  document.getElementById("an-review").hidden = true;
  document.querySelectorAll("#an-table tr.current").forEach(r => r.classList.remove("current"));
  if (state.s) { drawCheckers(state.s); drawLeds(state.s, state.s.leds); }
  refresh();
}
document.getElementById("an-prev").addEventListener("click", () =>
  state.review && review(state.review.i - 1, "before"));
document.getElementById("an-next").addEventListener("click", () =>
  state.review && review(state.review.i + 1, "before"));
document.getElementById("an-live").addEventListener("click", leaveReview);
document.querySelectorAll("#an-show button").forEach(b => b.addEventListener("click", () =>
  state.review && review(state.review.i, b.dataset.show)));
document.addEventListener("keydown", ev => {
  if (!state.review || ["INPUT", "SELECT", "TEXTAREA"].includes(ev.target.tagName)) return;
  if (ev.key === "ArrowLeft") { ev.preventDefault(); review(state.review.i - 1, "before"); }
  if (ev.key === "ArrowRight") { ev.preventDefault(); review(state.review.i + 1, "before"); }
  if (ev.key === "Escape") leaveReview();
});

drawStatic();
arrowDefs();
// a phone turned (or a window narrowed) redraws the board in the other geometry
PORTRAIT_MQ.addEventListener("change", ev => {
  setGeometry(ev.matches);
  drawStatic();
  arrowDefs();
  if (state.review) review(state.review.i, state.review.show);
  else if (state.s) { drawCheckers(state.s); drawLeds(state.s, state.s.leds); }
});
state.lang = pickLang();
applyWords();
refresh(true).then(s => connect(s ? s.feed : 0));
