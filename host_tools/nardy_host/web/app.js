// The nardy board simulator page: the board as the server reports it, the LEDs and
// the OLED as the firmware drives them, the buttons and the event log.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
const W = 1000, H = 620, EDGE = 20, PW = 60, BAR_X = 380, BAR_W = 60, TRAY_X = 830;
const R = 25;
const ZONE_BAR = 25, ZONE_OFF_W = 26, ZONE_OFF_B = 27;
const state = { s: null, events: 0, display: 0, dragFrom: null, busy: false };
const board = document.getElementById("board");

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
    const y = g.top ? EDGE + R + 2 + i * (2 * R) : H - EDGE - R - 2 - i * (2 * R);
    return [g.x, y];
  }
  if (z === ZONE_BAR) return [BAR_X + BAR_W / 2, H - EDGE - R - 10 - i * 2.1 * R * 2.4];
  const top = z === ZONE_OFF_B;
  return [TRAY_X + 40 + i * 60, top ? EDGE + 60 : H - EDGE - 60];
}

function drawStatic() {
  const defs = el("defs", {}, board);
  const wood = el("linearGradient", { id: "wood", x1: 0, y1: 0, x2: 1, y2: 0.2 }, defs);
  el("stop", { offset: "0", "stop-color": "#7a4a22" }, wood);
  el("stop", { offset: ".5", "stop-color": "#935c2c" }, wood);
  el("stop", { offset: "1", "stop-color": "#6d3f1c" }, wood);
  el("rect", { x: 0, y: 0, width: W, height: H, rx: 14, fill: "url(#wood)" }, board);
  el("rect", { x: EDGE, y: EDGE, width: 12 * PW + BAR_W, height: H - 2 * EDGE,
               fill: "#e2c28f" }, board);
  el("rect", { x: BAR_X, y: EDGE, width: BAR_W, height: H - 2 * EDGE,
               fill: "#6d3f1c" }, board);
  for (const top of [true, false]) {
    el("rect", { x: TRAY_X, y: top ? EDGE : H / 2 + 10, width: W - TRAY_X - EDGE,
                 height: H / 2 - EDGE - 10, rx: 6, fill: "#5a3417" }, board);
  }
  for (let p = 1; p <= 24; p++) {
    const g = pointGeom(p);
    const base = g.top ? EDGE : H - EDGE;
    const tip = g.top ? EDGE + 250 : H - EDGE - 250;
    el("polygon", { points: `${g.x - PW / 2},${base} ${g.x + PW / 2},${base} ${g.x},${tip}`,
                    fill: p % 2 ? "#a0522d" : "#f5e6c8", stroke: "#7a4a22" }, board);
    const lbl = el("text", { x: g.x, y: g.top ? tip + 16 : tip - 8, class: "label" }, board);
    lbl.textContent = "P" + p;
  }
  const tl = el("text", { x: TRAY_X + 75, y: H - 14, class: "label" }, board);
  tl.textContent = "white off";
  tl.setAttribute("fill", "#e2c28f");
  const tb = el("text", { x: TRAY_X + 75, y: EDGE + 128, class: "label" }, board);
  tb.textContent = "black off";
  board.appendChild(el("g", { id: "checkers" }));
  board.appendChild(el("g", { id: "leds" }));
  const zones = el("g", { id: "zones" }, board);
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

function drawChecker(g, x, y, colour, n) {
  const white = colour === "w";
  if (n > 1) {
    el("circle", { cx: x + 3, cy: y + 3, r: R - 1, class: "checker",
                   fill: white ? "#cfc6b4" : "#111", stroke: "#333" }, g);
  }
  el("circle", { cx: x, cy: y, r: R - 1, class: "checker",
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
        drawChecker(grp, x, y, row[i], i === 4 && row.length > 5 ? row.length - 4 : 1);
      }
      total = row.length;
    } else {
      slots.forEach((stack, i) => {
        if (!stack.length) return;
        total += stack.length;
        let [x, y] = checkerXY(z, i);
        if (z === ZONE_BAR) y = H - EDGE - R - 12 - i * ((H - 2 * EDGE - 2 * R) / 3.2);
        drawChecker(grp, x, y, stack[stack.length - 1], stack.length);
      });
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
    el("circle", { cx: x, cy: y, r: 6, class: "led", fill: fill, "data-zone": z,
                   "data-rgb": `${r},${gg},${b}` }, g);
  });
}

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

function describe(ev) {
  const r = ev.rec || {};
  switch (ev.ev) {
    case "roll": return r.r === "open" ? `opening roll ${JSON.stringify(r.rolls)}`
      : `${r.side} rolls ${r.dice}`;
    case "step": return `${r.r} ${r.from}/${r.to}`;
    case "turn": return `${r.side} played ${(r.steps || []).map(s => s.join("/")).join(" ")}` +
      (r.accepted ? ` (accepted, ${r.rule})` : "");
    case "warn": return ev.clear ? "warning cleared" : `WARNING ${r.rule}: ${r.text}`;
    case "lift": return `lifted from ${ev.zones.map(zoneName)}; targets ${ev.targets.map(zoneName)}`;
    case "sync": return ev.diffs.length ? `board differs: ${JSON.stringify(ev.diffs)}` : "in sync";
    case "game": return `game ${ev.game} (${r.variant})`;
    case "game_end": return `game over: ${r.winner} ${r.kind} +${r.points}`;
    case "hello": return `hello: firmware ${ev.fw}, ${ev.variant}, ${ev.phase}`;
    default: return JSON.stringify(ev);
  }
}

function logEvent(ev) {
  const log = document.getElementById("log");
  const li = document.createElement("li");
  li.className = ev.ev;
  li.textContent = describe(ev);
  li.dataset.json = JSON.stringify(ev);
  log.appendChild(li);
  while (log.children.length > 500) log.removeChild(log.firstChild);
  log.scrollTop = log.scrollHeight;
}

let refreshTimer = null;
function scheduleRefresh() {
  if (refreshTimer) return;
  refreshTimer = setTimeout(() => { refreshTimer = null; refresh(); }, 30);
}

async function refresh() {
  const r = await fetch("/api/state");
  if (!r.ok) return;
  const s = await r.json();
  state.s = s;
  document.getElementById("mode").textContent =
    s.mode === "live" ? "(live: a board on USB)" : "(simulator: the real firmware)";
  drawCheckers(s);
  drawLeds(s, s.leds);
  if (s.oled) drawOled(s.oled);
  document.getElementById("hand").textContent =
    "Hand: " + (s.hand.length ? s.hand.map(h => (h[0] === "w" ? "white" : "black") +
      " from " + h.slice(2)).join(", ") : "empty");
  document.getElementById("download").href = "/api/log" + (s.game ? "?game=" + s.game : "");
  document.body.dataset.ready = "1";
}

async function act(obj) {
  const st = document.getElementById("status");
  state.busy = true;
  document.body.dataset.busy = "1";
  try {
    const r = await fetch("/api/action", { method: "POST",
      headers: { "Content-Type": "application/json" }, body: JSON.stringify(obj) });
    const j = await r.json();
    st.textContent = r.ok ? "" : j.error;
  } catch (e) {
    st.textContent = String(e);
  }
  await refresh();
  state.busy = false;
  document.body.dataset.busy = "0";
  document.body.dataset.actions = (Number(document.body.dataset.actions || 0) + 1);
}

// -- the player's hands: drag, or click to lift and click to place ----------------------
function zoneAt(x, y) {
  const e = document.elementFromPoint(x, y);
  return e && e.dataset && e.dataset.zone ? Number(e.dataset.zone) : null;
}
board.addEventListener("pointerdown", ev => {
  const z = zoneAt(ev.clientX, ev.clientY);
  if (z === null) return;
  state.dragFrom = z;
  const r = board.querySelector(`.zone[data-zone="${z}"]`);
  if (r) r.classList.add("from");
});
document.addEventListener("pointerup", ev => {
  const from = state.dragFrom;
  state.dragFrom = null;
  board.querySelectorAll(".zone.from").forEach(e => e.classList.remove("from"));
  if (from === null) return;
  const to = zoneAt(ev.clientX, ev.clientY);
  if (to === null) return;
  const hand = state.s ? state.s.hand.length : 0;
  if (to !== from) {
    act(hand ? { action: "place", zone: to } : { action: "move", from: from, to: to });
  } else {
    act(hand ? { action: "place", zone: to } : { action: "lift", zone: to });
  }
});

document.querySelectorAll("button.hw").forEach(b => {
  let t0 = 0;
  b.addEventListener("pointerdown", () => { t0 = Date.now(); b.classList.add("down"); });
  b.addEventListener("pointerup", () => {
    b.classList.remove("down");
    const kind = Date.now() - t0 > 700 ? "long" : "short";
    act({ action: "press", button: b.dataset.button, kind: kind });
  });
});
document.getElementById("new").addEventListener("click", () => act({
  action: "new", variant: document.getElementById("variant").value,
  match: Number(document.getElementById("match").value) || 1 }));
document.getElementById("setup").addEventListener("click", () => act({ action: "setup" }));

// -- events -----------------------------------------------------------------------------------
let frames = 0;
function connect() {
  const es = new EventSource("/api/events?since=0");
  es.onmessage = m => {
    const ev = JSON.parse(m.data);
    state.events++;
    document.body.dataset.events = state.events;
    if (ev.ev === "leds") {
      if (state.s) drawLeds(state.s, ev.rgb);
      if (state.s) state.s.leds = ev.rgb;
      frames++;
    } else if (ev.ev === "oled") {
      drawOled(ev.fb);
      frames++;
    } else {
      logEvent(ev);
      scheduleRefresh();
    }
    document.getElementById("counts").textContent = `(${frames} LED/OLED frames)`;
  };
}

drawStatic();
refresh().then(connect);
