// The simulator page: draws each virtual wall board from the segments its firmware
// wrote to the emulated HT16K33 chips (never from the match state), sends button
// presses and simulation actions (power, plug, the clock, the identify mode) to the
// server, plays the buzzer with Web Audio.
// Plain JavaScript, no build step, nothing fetched from anywhere but this server.
"use strict";

const SVG = "http://www.w3.org/2000/svg";

// ---- segment geometry (one cell: 0..64 wide, 0..100 high) ----------------------------

const L = 7, R = 49, C = 28, TOP = 6, MID = 50, BOT = 94, T = 10, H = T / 2, G = 1.2;

function hseg(x0, x1, y, h = H) {
  return [[x0, y], [x0 + h, y - h], [x1 - h, y - h], [x1, y], [x1 - h, y + h], [x0 + h, y + h]];
}
function vseg(x, y0, y1, h = H) {
  return [[x, y0], [x + h, y0 + h], [x + h, y1 - h], [x, y1], [x - h, y1 - h], [x - h, y0 + h]];
}
function dot(cx, cy, r) {
  const k = r * 0.414;
  return [[cx - k, cy - r], [cx + k, cy - r], [cx + r, cy - k], [cx + r, cy + k],
          [cx + k, cy + r], [cx - k, cy + r], [cx - r, cy + k], [cx - r, cy - k]];
}
// A diagonal of a 14-segment digit, drawn in the top-left quarter, mirrored for the others.
function diag(mx, my) {
  const x0 = L + H + G, y0 = TOP + H + G, x1 = C - H * 0.7 - G, y1 = MID - H * 0.7 - G, w = 5.6, v = 8.5;
  const pts = [[x0, y0], [x0 + w, y0], [x1, y1 - v], [x1, y1], [x1 - w, y1], [x0, y0 + v]];
  return pts.map(([x, y]) => [mx ? 2 * C - x : x, my ? 2 * MID - y : y]);
}

const SEG7 = {
  a: hseg(L + G, R - G, TOP), b: vseg(R, TOP + G, MID - G), c: vseg(R, MID + G, BOT - G),
  d: hseg(L + G, R - G, BOT), e: vseg(L, MID + G, BOT - G), f: vseg(L, TOP + G, MID - G),
  g: hseg(L + G, R - G, MID), dp: dot(58, BOT, 4.2),
};
const SEG14 = {
  A: hseg(L + G, R - G, TOP), B: vseg(R, TOP + G, MID - G), C: vseg(R, MID + G, BOT - G),
  D: hseg(L + G, R - G, BOT), E: vseg(L, MID + G, BOT - G), F: vseg(L, TOP + G, MID - G),
  G1: hseg(L + G, C - G, MID), G2: hseg(C + G, R - G, MID),
  H: diag(false, false), J: vseg(C, TOP + G, MID - G, H * 0.8), K: diag(true, false),
  L: diag(false, true), M: vseg(C, MID + G, BOT - G, H * 0.8), N: diag(true, true),
  DP: dot(58, BOT, 4.2),
};
const CELL_W = 66, COLON_W = 20, CELL_H = 100, SKEW = -7;

function points(pts) {
  return pts.map(([x, y]) => x.toFixed(2) + "," + y.toFixed(2)).join(" ");
}
function el(tag, attrs = {}, parent = null, text = null) {
  const e = tag === "svg" || tag === "g" || tag === "polygon" ? document.createElementNS(SVG, tag)
                                                              : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== null) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}

// ---- one display: an SVG of 4 cells (and a colon on 7-segment ones) ---------------------

function buildDisplay(d, parent, columnName) {
  const fig = el("figure", {
    class: "display kind-" + d.kind + " role-" + d.role, "data-chip": d.key, "data-kind": d.kind,
    "data-lit": "false", "data-present": "true", "data-blink": "0", "data-brightness": "15",
  }, parent);
  const cap = el("figcaption", {class: "labels"}, fig);
  cap.style.gridTemplateColumns = "repeat(" + d.digits + ", 1fr)";
  for (const part of d.show) {
    let label = part.label;
    if (d.role === "name") label = "PLAYER " + (columnName === "mid" ? "" : columnName);
    const span = el("span", {"data-field": part.field}, cap, label);
    span.style.gridColumn = (part.at + 1) + " / span " + part.width;
  }
  const seg7 = d.kind === "seg7";
  const table = seg7 ? SEG7 : SEG14;
  const width = d.digits * CELL_W + (seg7 ? COLON_W : 0) + 8;
  const svg = el("svg", {viewBox: "-4 -2 " + width + " " + (CELL_H + 4), class: "digits",
                         role: "img", "aria-label": d.show.map(p => p.label).join(" / ")}, fig);
  const cells = [];
  let x = 0;
  for (let i = 0; i < d.digits; i++) {
    const g = el("g", {class: "cell", "data-cell": i, transform: "translate(" + (x + 6) + " 0) skewX(" + SKEW + ")"}, svg);
    const segs = {};
    for (const [name, pts] of Object.entries(table)) {
      segs[name] = el("polygon", {class: "seg off", "data-seg": name, points: points(pts)}, g);
    }
    cells.push({g, segs});
    x += CELL_W;
    if (seg7 && i === 1) x += COLON_W;
  }
  let colon = null;
  if (seg7 && d.digits === 4) {
    const g = el("g", {class: "colon", transform: "translate(" + (2 * CELL_W + 2) + " 0) skewX(" + SKEW + ")"}, svg);
    colon = [el("polygon", {class: "seg off", "data-seg": "colon", points: points(dot(6, 32, 4.2))}, g),
             el("polygon", {class: "seg off", "data-seg": "colon", points: points(dot(6, 68, 4.2))}, g)];
  }
  const note = el("div", {class: "chip-note"}, fig);
  return {fig, cells, colon, note, kind: d.kind};
}

function updateDisplay(view, chip) {
  const f = view.fig;
  f.dataset.lit = chip.lit;
  f.dataset.present = chip.present;
  f.dataset.blink = chip.blink;
  f.dataset.brightness = chip.brightness;
  f.dataset.text = chip.text === null ? "" : chip.text;
  f.dataset.colon = chip.colon;
  // Brightness: the chip's 16 duty steps (1/16 .. 16/16); the eye sees roughly the square root.
  f.style.setProperty("--level", (0.22 + 0.78 * Math.sqrt((chip.brightness + 1) / 16)).toFixed(3));
  view.cells.forEach((cell, i) => {
    const lit = new Set(chip.lit && chip.cells[i] ? chip.cells[i].segments : []);
    for (const [name, poly] of Object.entries(cell.segs)) {
      const on = lit.has(name);
      if (poly.classList.contains("on") !== on) {
        poly.classList.toggle("on", on);
        poly.classList.toggle("off", !on);
      }
    }
    cell.g.dataset.on = [...lit].join(" ");
  });
  if (view.colon) {
    for (const p of view.colon) {
      p.classList.toggle("on", !!chip.colon);
      p.classList.toggle("off", !chip.colon);
    }
  }
  view.note.textContent = !chip.present ? "unplugged" : "";
}

// ---- a board ------------------------------------------------------------------------------

const boards = [];  // {layout, views: {chipKey: view}, leds, buttons, panel bits}
let selected = 0;

function fmtTime(t) {
  const h = Math.floor(t / 3600), m = Math.floor(t / 60) % 60, s = t % 60;
  return (h ? h + ":" + String(m).padStart(2, "0") : String(m)) + ":" + s.toFixed(1).padStart(4, "0");
}

// Actions of one board are sent one after the other, so a release never overtakes its press.
const sending = [];
function act(index, action) {
  sending[index] = (sending[index] || Promise.resolve()).then(() => send(index, action));
  return sending[index];
}

async function send(index, action) {
  try {
    const r = await fetch("/api/boards/" + index + "/action", {
      method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(action),
    });
    if (!r.ok) {
      const body = await r.json().catch(() => ({error: r.statusText}));
      addLog(index, {t: null, kind: "refused", text: body.error || r.statusText});
    }
  } catch (e) {
    addLog(index, {t: null, kind: "error", text: "the simulator did not answer: " + e});
  }
}

// The referee's handheld (boards/referee.json with --remote): a small box beside the wall board,
// its one display, its two LEDs and its buttons; dark and marked "asleep" between presses.
function buildRemote(layout, root) {
  const b = {layout, views: {}, leds: {}, buttons: {}, plugs: {}, index: layout.index, remote: true};
  const section = el("section", {class: "board remote", "data-board": layout.index, "data-role": "remote",
                                 "data-asleep": "false"}, root);
  b.section = section;
  section.addEventListener("pointerdown", () => select(layout.index));
  const face = el("div", {class: "face remote-face"}, section);
  const head = el("div", {class: "face-head"}, face);
  el("span", {class: "face-name"}, head, layout.title || "Referee box");
  b.clock = el("span", {class: "face-clock", title: "virtual time since the first power-on"}, head, "0:00.0");
  b.power = el("span", {class: "face-power", "data-powered": "true"}, head, "");
  b.sleep = el("div", {class: "remote-sleep", "data-asleep": "false"}, face, "");
  b.say = el("p", {class: "say", "data-phase": "", role: "status"}, face, "");
  for (const d of layout.displays) b.views[d.key] = buildDisplay(d, face, "mid");
  const row = el("div", {class: "leds"}, face);
  for (const l of layout.leds) {
    const wrap = el("span", {class: "led-wrap"}, row);
    b.leds[l.name] = el("span", {class: "led led-" + l.label.toLowerCase(), "data-led": l.name, "data-on": "0"}, wrap);
    el("span", {class: "led-label"}, wrap, l.name.replace(".turn", " TURN"));
  }
  const grid = el("div", {class: "buttons remote-buttons"}, face);
  for (const spec of layout.buttons) {
    const btn = el("button", {class: "press", type: "button", "data-button": spec.name, "data-down": "false",
                              title: spec.name + ": " + (spec.action || "—") +
                                     (spec.long_action ? "; hold: " + spec.long_action : "")}, grid);
    el("span", {class: "press-label"}, btn, spec.label === "TIME" ? "FOUL TIME" : spec.label);
    if (spec.key) el("kbd", {}, btn, spec.key.toUpperCase());
    b.buttons[spec.name] = btn;
    wireButton(btn, layout.index, spec.name);
  }
  const panel = el("aside", {class: "panel remote-panel"}, section);
  const power = el("div", {class: "group"}, panel);
  el("h3", {}, power, "Batteries");
  b.powerCut = el("button", {class: "tool", type: "button", "data-action": "power-off"}, power, "Take out");
  b.powerOn = el("button", {class: "tool", type: "button", "data-action": "power-on"}, power, "Put in");
  b.powerCut.addEventListener("click", () => act(b.index, {do: "power", on: false}));
  b.powerOn.addEventListener("click", () => act(b.index, {do: "power", on: true}));
  buildIdentify(b, panel);
  // its keys: press 2 (the box), then a button's key, shown on each button (their names in the tooltip)
  panel.title = "Click a button, or press 2 then its key: " + layout.buttons.map(x => x.key + " " + x.name).join(", ");
  const log = el("div", {class: "group log-group"}, panel);
  el("h3", {}, log, "Log");
  b.log = el("ol", {class: "log", "data-board": layout.index}, log);
  boards[layout.index] = b;
  return b;
}

function buildBoard(layout, root, count) {
  if (layout.role === "remote") return buildRemote(layout, root);
  const b = {layout, views: {}, leds: {}, buttons: {}, index: layout.index};
  const section = el("section", {class: "board", "data-board": layout.index}, root);
  b.section = section;
  section.addEventListener("pointerdown", () => select(layout.index));
  const face = el("div", {class: "face"}, section);
  b.face = face;
  const head = el("div", {class: "face-head"}, face);
  el("span", {class: "face-name"}, head, count > 1 && !layout.paired ? "Board " + (layout.index + 1) + " · " + layout.board : layout.board);
  b.clock = el("span", {class: "face-clock", title: "virtual time since the first power-on"}, head, "0:00.0");
  b.power = el("span", {class: "face-power", "data-powered": "true"}, head, "");
  b.say = el("span", {class: "say", "data-phase": "", role: "status", title: "what to press now"}, head, "");
  const cols = el("div", {class: "columns"}, face);
  const colEls = {};
  for (const name of ["A", "mid", "B"]) {
    colEls[name] = el("div", {class: "col col-" + name, "data-column": name}, cols);
  }
  const stats = {};
  for (const d of layout.displays) {
    let parent = colEls[d.column];
    if (d.column !== "mid" && d.role === "stat") {  // the small displays of a player, two by two
      parent = stats[d.column] || (stats[d.column] = el("div", {class: "stats"}, parent));
    }
    b.views[d.key] = buildDisplay(d, parent, d.column);
  }
  for (const name of ["A", "mid", "B"]) {
    const leds = layout.leds.filter(l => l.column === name);
    if (!leds.length) continue;
    const row = el("div", {class: "leds"}, colEls[name]);
    for (const l of leds) {
      const wrap = el("span", {class: "led-wrap"}, row);
      b.leds[l.name] = el("span", {class: "led led-" + l.label.toLowerCase(), "data-led": l.name, "data-on": "0"}, wrap);
      el("span", {class: "led-label"}, wrap, l.label);
    }
  }
  for (const name of ["A", "mid", "B"]) {
    const btns = layout.buttons.filter(x => x.column === name);
    if (!btns.length) continue;
    const row = el("div", {class: "buttons"}, colEls[name]);
    for (const spec of btns) {
      const btn = el("button", {class: "press", type: "button", "data-button": spec.name, "data-down": "false",
                                title: spec.name + ": " + (spec.action || "—") +
                                       (spec.long_action ? "; hold: " + spec.long_action : "")}, row);
      el("span", {class: "press-label"}, btn, spec.label);
      if (/\.miss$/.test(spec.action || "")) el("span", {class: "press-sub"}, btn, "miss");
      if (spec.key) el("kbd", {}, btn, spec.key.toUpperCase());
      b.buttons[spec.name] = btn;
      wireButton(btn, layout.index, spec.name);
    }
  }
  buildPanel(b, section);
  boards[layout.index] = b;
  return b;
}

// Mouse, touch or pen: down = press, up = release (the server holds a quick click 100 ms).
function wireButton(btn, index, name) {
  let down = false;
  const release = () => {
    if (!down) return;
    down = false;
    btn.classList.remove("held");
    act(index, {do: "up", button: name});
  };
  btn.addEventListener("pointerdown", e => {
    if (e.button !== 0 || down) return;
    down = true;
    btn.classList.add("held");
    try { btn.setPointerCapture(e.pointerId); } catch (_) { /* synthetic events */ }
    select(index);
    act(index, {do: "down", button: name});
  });
  btn.addEventListener("pointerup", release);
  btn.addEventListener("pointercancel", release);
  btn.addEventListener("lostpointercapture", release);
  btn.addEventListener("click", e => {
    if (e.detail === 0) act(index, {do: "tap", button: name});  // keyboard activation of the focused button
  });
  window.addEventListener("blur", release);
}

// The identify mode (a wiring check), started as a person does: the power off, the board's identify
// button held, the power on, the button released once the mode shows (the server does the steps).
function buildIdentify(b, panel) {
  const name = b.layout.identify_button;
  if (!name) return;
  const group = el("div", {class: "group"}, panel);
  el("h3", {}, group, "Wiring check");
  b.identify = el("button", {class: "tool", type: "button", "data-action": "identify",
                             title: "Power off, hold " + name.toUpperCase() + ", power on, release it once the " +
                                    "identify mode shows: each display shows its field and bus.address, then " +
                                    "each segment; a press shows the button's name; a long press leaves"},
                  group, "Identify mode (" + name.toUpperCase() + " at power-on)");
  b.identify.addEventListener("click", () => act(b.index, {do: "identify"}));
}

// A display's short name on the panel: its address and what it shows ("1:0x71 B inn/run").
const SHORT = {innings: "inn", high_run: "high run", average: "avg", countdown: "countdown"};
function plugLabel(d) {
  const fields = d.show.map(p => p.field);
  const player = fields.every(f => f.startsWith(fields[0].split(".")[0] + ".")) && fields[0].includes(".");
  const short = f => SHORT[f] || f.replace(/_/g, " ");
  const what = player ? fields[0].split(".")[0] + " " + fields.map(f => short(f.split(".")[1])).join("/")
                      : fields.map(short).join("/");
  return d.key + " " + what;
}

function buildPanel(b, section) {
  const index = b.index;
  const panel = el("aside", {class: "panel"}, section);
  el("h2", {}, panel, "Simulation");

  const power = el("div", {class: "group"}, panel);
  el("h3", {}, power, "Power");
  b.powerCut = el("button", {class: "tool", type: "button", "data-action": "power-off"}, power, "Power cut");
  b.powerOn = el("button", {class: "tool", type: "button", "data-action": "power-on"}, power, "Power on");
  b.powerCut.addEventListener("click", () => act(index, {do: "power", on: false}));
  b.powerOn.addEventListener("click", () => act(index, {do: "power", on: true}));

  buildIdentify(b, panel);

  const time = el("div", {class: "group"}, panel);
  el("h3", {}, time, "Move the clock forward");
  for (const s of b.layout.jumps) {
    const label = s < 60 ? "+" + s + " s" : "+" + (s / 60) + " min";
    const btn = el("button", {class: "tool", type: "button", "data-action": "advance", "data-seconds": s}, time, label);
    btn.addEventListener("click", () => act(index, {do: "advance", seconds: s}));
  }

  if (b.layout.form) {
    const match = el("div", {class: "group"}, panel);
    el("h3", {}, match, "Players and match");
    const open = el("button", {class: "tool", type: "button", "data-action": "match-form"}, match, "Names and match options…");
    open.addEventListener("click", () => openForm(b));
  }

  const chips = el("div", {class: "group"}, panel);
  el("h3", {}, chips, "Displays plugged in");
  const list = el("div", {class: "chips"}, chips);
  b.plugs = {};
  for (const d of b.layout.displays) {
    const lab = el("label", {class: "plug", title: d.key + " on bus " + d.bus + ": " + d.show.map(p => p.field).join(", ")}, list);
    const box = el("input", {type: "checkbox", "data-chip": d.key}, lab);
    box.checked = true;
    el("span", {class: "plug-name"}, lab, plugLabel(d));
    box.addEventListener("change", () => act(index, {do: "plug", chip: d.key, plugged: box.checked}));
    b.plugs[d.key] = box;
  }

  const keys = el("details", {class: "group keys-group"}, panel);
  el("summary", {}, keys, "Keys");
  const ul = el("ul", {class: "keys"}, keys);
  for (const spec of b.layout.buttons) {
    if (!spec.key) continue;
    const li = el("li", {}, ul);
    el("kbd", {}, li, spec.key);
    el("span", {}, li, " " + spec.name + (spec.long_action ? " (Shift: hold " + spec.long_s + " s → " + spec.long_action + ")" : ""));
  }
  el("p", {class: "hint"}, keys, "Hold a key or the mouse button to hold a button; Shift+key is a long press." +
     (b.layout.index === 0 && document.getElementById("boards").dataset.count > 1 ? " Keys 1–9 choose the board." : ""));

  const log = el("div", {class: "group log-group"}, panel);
  el("h3", {}, log, "Log");
  b.log = el("ol", {class: "log", "data-board": index}, log);
}

// ---- names and match options: a form, written as config.json through the board's serial console ----

const FORM_FIELDS = [
  // [key, label, kind, note]
  ["players.A.name", "Player A", "text", ""], ["players.A.club", "Club A", "text", ""],
  ["players.B.name", "Player B", "text", ""], ["players.B.club", "Club B", "text", ""],
  ["match.game", "Game", "game", ""], ["match.target", "Target", "number", "points"],
  ["match.target_A", "A's target", "number", "handicap; blank: the target"],
  ["match.target_B", "B's target", "number", "handicap; blank: the target"],
  ["match.innings_limit", "Innings limit", "number", "0: none"],
  ["match.draw", "Draw allowed", "bool", ""],
  ["match.sets", "Sets to win", "number", "0: no sets"],
  ["match.deciding_target", "Deciding set's target", "number", "blank: the set target"],
  ["match.shootout", "Shoot-out", "bool", "decides a draw that may not stand"],
  ["match.warmup_s", "Warm-up", "number", "seconds per player; 0: none"],
  ["voice.on", "Voice", "bool", "the referee's calls spoken (a speaker and a voice pack)"],
  ["voice.volume", "Voice volume", "number", "0..100"],
  ["voice.language", "Voice language", "text", "hu, en or de: the pack carom deploy --voice copies"],
  ["voice.calls", "Calls", "text", "all, or countdown,zero,foul,equalizing,end,break,clock,timeout,set"],
  ["voice.totals", "Running totals", "bool", "each point's total too"],
];

let formDialog = null;

function buildForm() {
  const dlg = el("dialog", {class: "match-form", id: "match-form"}, document.body);
  const form = el("form", {method: "dialog"}, dlg);
  el("h2", {}, form, "Names and match options");
  el("p", {class: "hint"}, form, "Written as the board's config.json through its serial console, as " +
     "carom config set does; the board then restarts.");
  const grid = el("div", {class: "form-grid"}, form);
  const inputs = {};
  for (const [key, label, kind, note] of FORM_FIELDS) {
    const lab = el("label", {class: "field"}, grid);
    el("span", {class: "field-label"}, lab, label);
    let input;
    if (kind === "game") {
      input = el("select", {name: key}, lab);
    } else if (kind === "bool") {
      input = el("select", {name: key}, lab);
      el("option", {value: "on"}, input, "on");
      el("option", {value: "off"}, input, "off");
    } else {
      input = el("input", {name: key, type: "text", autocomplete: "off", spellcheck: "false",
                           inputmode: kind === "number" ? "numeric" : "text"}, lab);
    }
    input.dataset.key = key;
    if (note) el("span", {class: "field-note"}, lab, note);
    inputs[key] = input;
  }
  const newMatch = el("label", {class: "field field-wide"}, form);
  const box = el("input", {type: "checkbox", name: "new_match"}, newMatch);
  el("span", {}, newMatch, " and start a new match with them (holds NEW 3 s; the match now is closed)");
  const status = el("p", {class: "form-status", role: "status", "aria-live": "polite"}, form, "");
  const row = el("div", {class: "form-buttons"}, form);
  const save = el("button", {class: "tool", type: "submit", value: "save", "data-action": "save-config"}, row, "Write to the board");
  const cancel = el("button", {class: "tool", type: "button", value: "cancel"}, row, "Close");
  cancel.addEventListener("click", () => dlg.close());
  form.addEventListener("submit", async e => {
    e.preventDefault();
    const board = dlg.board;
    const values = {};
    for (const [key, input] of Object.entries(inputs)) {
      const v = input.value.trim();
      if (v !== (input.dataset.initial || "")) values[key] = v;
    }
    if (!Object.keys(values).length) { status.dataset.state = "ok"; status.textContent = "Nothing changed."; return; }
    save.disabled = true;
    status.dataset.state = "busy";
    status.textContent = "Writing config.json through the serial console…";
    try {
      const r = await fetch("/api/boards/" + board.index + "/config", {
        method: "POST", headers: {"Content-Type": "application/json"},
        body: JSON.stringify({values, new_match: box.checked}),
      });
      const body = await r.json().catch(() => ({error: r.statusText}));
      if (r.ok) {
        status.dataset.state = "ok";
        status.textContent = body.said.join("\n");
        for (const [key, input] of Object.entries(inputs)) input.dataset.initial = input.value.trim();
      } else {
        status.dataset.state = "error";
        status.textContent = body.error + (body.said && body.said.length ? "\n" + body.said.join("\n") : "");
      }
    } catch (err) {
      status.dataset.state = "error";
      status.textContent = "the simulator did not answer: " + err;
    } finally {
      save.disabled = false;
    }
  });
  formDialog = {dlg, inputs, status, box};
  return formDialog;
}

async function openForm(b) {
  const f = formDialog || buildForm();
  f.dlg.board = b;
  f.status.textContent = "";
  f.status.dataset.state = "";
  f.box.checked = false;
  const r = await fetch("/api/boards/" + b.index + "/config");
  const info = await r.json();
  const game = f.inputs["match.game"];
  if (!game.options.length) for (const g of info.games) el("option", {value: g}, game, g.replace(/_/g, " "));
  for (const [key, input] of Object.entries(f.inputs)) {
    const v = info.values[key];
    input.value = v === null || v === undefined ? "" : v === true ? "on" : v === false ? "off" : String(v);
    input.dataset.initial = input.value;
  }
  f.dlg.showModal();
  f.inputs["players.A.name"].focus();
}

function select(index) {
  selected = index;
  for (const b of boards) if (b) b.section.classList.toggle("selected", b.index === index);
}

function applyState(s) {
  const b = boards[s.board];
  if (!b) return;
  for (const chip of s.chips) {
    const view = b.views[chip.key];
    if (view) updateDisplay(view, chip);
    const box = b.plugs[chip.key];
    if (box && document.activeElement !== box) box.checked = chip.present;
  }
  for (const [name, on] of Object.entries(s.leds)) {
    const led = b.leds[name];
    if (led) led.dataset.on = on ? "1" : "0";
  }
  for (const [name, down] of Object.entries(s.buttons)) {
    const btn = b.buttons[name];
    if (btn) btn.dataset.down = down;
  }
  b.section.dataset.powered = s.powered;
  if (b.sleep) {
    const asleep = !!(s.powered && s.asleep);
    b.section.dataset.asleep = asleep;
    b.sleep.dataset.asleep = asleep;
    b.sleep.textContent = asleep ? "asleep" : (s.powered ? "awake" : "");
  }
  b.section.dataset.boots = s.boots;
  if (b.say) {
    const text = s.hint || "";
    if (b.say.textContent !== text) { b.say.textContent = text; b.say.title = text; }
    b.say.dataset.phase = s.phase || "";
    b.section.dataset.phase = s.phase || "";
  }
  applyTime(s);
  b.power.dataset.powered = s.powered;
  b.power.textContent = s.failed ? "stopped: " + s.failed.split("\n")[0] : (s.powered ? "" : "power off");
  b.powerCut.disabled = !s.powered;
  b.powerOn.disabled = s.powered;
}

function applyTime(s) {
  const b = boards[s.board];
  if (!b) return;
  b.section.dataset.t = s.t;
  b.clock.textContent = fmtTime(s.t);
}

// The firmware refused a press (or ignored it in the lock-out): the button says so for a moment.
function applyRefused(m) {
  const b = boards[m.board];
  if (!b || !m.button || !b.buttons[m.button]) return;
  const btn = b.buttons[m.button];
  btn.dataset.refused = "true";
  btn.dataset.reason = m.reason;
  btn.title = btn.title.split("\n")[0] + "\nrefused: " + m.reason;
  clearTimeout(btn.refusedTimer);
  btn.refusedTimer = setTimeout(() => { btn.dataset.refused = "false"; }, 1000 * (b.layout.mark_s || 1.2));
}

const LOG_MAX = 400;
function addLog(index, entry) {
  const b = boards[index];
  if (!b) return;
  const li = el("li", {class: "log-" + entry.kind, "data-kind": entry.kind});
  el("span", {class: "log-t"}, li, entry.t === null || entry.t === undefined ? "" : fmtTime(entry.t));
  el("span", {class: "log-kind"}, li, entry.kind);
  el("span", {class: "log-text"}, li, entry.text);
  const atBottom = b.log.scrollHeight - b.log.scrollTop - b.log.clientHeight < 30;
  b.log.appendChild(li);
  while (b.log.childElementCount > LOG_MAX) b.log.firstElementChild.remove();
  if (atBottom) b.log.scrollTop = b.log.scrollHeight;
}

// ---- keyboard -----------------------------------------------------------------------------

const keyHeld = new Map();  // key -> button name, for keys held down
document.addEventListener("keydown", e => {
  if (e.ctrlKey || e.metaKey || e.altKey || e.repeat) return;
  if (e.target && ["INPUT", "TEXTAREA", "SELECT"].includes(e.target.tagName)) return;
  if (formDialog && formDialog.dlg.open) return;
  const b = boards[selected];
  if (!b) return;
  if (/^[1-9]$/.test(e.key) && boards[Number(e.key) - 1]) { select(Number(e.key) - 1); return; }
  const key = e.key.toLowerCase();
  const spec = b.layout.buttons.find(x => x.key === key);
  if (!spec) return;
  e.preventDefault();
  if (e.shiftKey) {
    act(b.index, {do: "long", button: spec.name});
  } else {
    keyHeld.set(key, [b.index, spec.name]);
    b.buttons[spec.name].classList.add("held");
    act(b.index, {do: "down", button: spec.name});
  }
});
document.addEventListener("keyup", e => {
  const key = e.key.toLowerCase();
  const held = keyHeld.get(key);
  if (!held) return;
  keyHeld.delete(key);
  boards[held[0]].buttons[held[1]].classList.remove("held");
  act(held[0], {do: "up", button: held[1]});
});
window.addEventListener("blur", () => {
  for (const [key, [index, name]] of keyHeld) {
    boards[index].buttons[name].classList.remove("held");
    act(index, {do: "up", button: name});
  }
  keyHeld.clear();
});

// ---- sound: the buzzer's PWM events, played by Web Audio once the user turns it on --------

const LATENCY_S = 0.08;
const sound = {ctx: null, osc: null, gain: null, on: false, events: 0, played: 0};
const soundBtn = document.getElementById("sound");

function soundOn() {
  if (!sound.ctx) {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) { soundBtn.textContent = "Sound: unavailable"; return; }
    sound.ctx = new Ctx();
    sound.osc = sound.ctx.createOscillator();
    sound.osc.type = "square";  // a piezo driven by PWM
    sound.gain = sound.ctx.createGain();
    sound.gain.gain.value = 0;
    sound.osc.connect(sound.gain).connect(sound.ctx.destination);
    sound.osc.start();
  }
  sound.ctx.resume();
  sound.on = true;
}
soundBtn.addEventListener("click", () => {
  if (sound.on) {
    sound.on = false;
    if (sound.gain) sound.gain.gain.cancelScheduledValues(0), sound.gain.gain.value = 0;
  } else {
    soundOn();
  }
  soundBtn.setAttribute("aria-pressed", sound.on);
  soundBtn.textContent = sound.on ? "Sound: on" : "Sound: off";
});

function playSound(msg) {
  sound.events += msg.events.length;
  soundBtn.dataset.events = sound.events;
  if (!sound.on || !sound.ctx || msg.board !== selected) return;
  const now = sound.ctx.currentTime;
  for (const ev of msg.events) {
    // age_ms: how long before the board's present the PWM changed; events from a clock jump are too old.
    const at = now + LATENCY_S - ev.age_ms / 1000;
    if (at < now - 0.02) continue;
    const when = Math.max(at, now);
    const audible = ev.freq > 0 && ev.duty > 0;
    if (audible) sound.osc.frequency.setValueAtTime(ev.freq, when);
    // duty_u16 32768 (50 %) is the loudest a piezo gets
    sound.gain.gain.setValueAtTime(audible ? 0.12 * Math.min(ev.duty, 32768) / 32768 : 0, when);
    sound.played += 1;
  }
  soundBtn.dataset.played = sound.played;
}

// ---- voice: the samples the board's I2S amplifier got, played once the Sound switch is on -----

const voice = {next: 0, messages: 0, samples: 0, played: 0};

// The button's data-voice-samples counts the samples the page got, data-voice-played those it
// scheduled to play (the tests read them; each message carries the writes of one poll).
function playVoice(msg) {
  const raw = atob(msg.pcm);
  const n = raw.length >> 1;
  voice.messages += 1;
  voice.samples += n;
  soundBtn.dataset.voice = voice.messages;
  soundBtn.dataset.voiceSamples = voice.samples;
  if (!sound.on || !sound.ctx || msg.board !== selected || !n) return;
  const buf = sound.ctx.createBuffer(1, n, msg.rate);
  const out = buf.getChannelData(0);
  for (let i = 0; i < n; i++) {
    let v = raw.charCodeAt(2 * i) | (raw.charCodeAt(2 * i + 1) << 8);
    if (v >= 32768) v -= 65536;
    out[i] = v / 32768;  // 16-bit signed little-endian, mono
  }
  const src = sound.ctx.createBufferSource();
  src.buffer = buf;
  src.connect(sound.ctx.destination);
  const now = sound.ctx.currentTime;
  const at = Math.max(now + LATENCY_S - msg.age_ms / 1000, voice.next, now);
  src.start(at);
  voice.next = at + buf.duration;  // the chunks one after the other, as the amplifier plays them
  voice.played += n;
  soundBtn.dataset.voicePlayed = voice.played;
}

// ---- fitting the window: every button in view at 1280x720 and up ----------------------------

const FIT_MARGIN = 14, MIN_FACE = 480, MIN_PANEL = 120;

// A wall board's face is as wide as its column, and its displays scale with its width: when it is
// taller than the window below its top, it is made narrower (a binary search on max-width) until
// it fits.  Each panel reaches down to the window's bottom (its log fills it, and scrolls).  A
// board below the first screenful (--boards 2) is fitted to a window's height as well: scrolled
// to, it is seen whole.
function fit() {
  const first = document.getElementById("boards").getBoundingClientRect().top + window.scrollY;
  const height = window.innerHeight - FIT_MARGIN;
  for (const b of boards) {
    if (!b) continue;
    const sectionTop = b.section.getBoundingClientRect().top + window.scrollY;
    const base = sectionTop < window.innerHeight / 2 ? 0 : sectionTop - first;  // the page scrolled to it
    const roomBelow = e => height - (e.getBoundingClientRect().top + window.scrollY - base);
    for (const panel of b.section.querySelectorAll(".panel")) {
      panel.style.height = Math.max(MIN_PANEL, roomBelow(panel)) + "px";
    }
    if (!b.face) continue;
    const face = b.face;
    face.style.maxWidth = "";
    const room = roomBelow(face);
    if (face.offsetHeight <= room) continue;
    let lo = MIN_FACE, hi = face.offsetWidth;
    for (let i = 0; i < 14 && hi - lo > 2; i++) {
      const mid = (lo + hi) / 2;
      face.style.maxWidth = mid + "px";
      if (face.offsetHeight <= room) lo = mid; else hi = mid;
    }
    face.style.maxWidth = lo + "px";
  }
  document.body.dataset.fitted = "true";
}

// ---- connection -----------------------------------------------------------------------------

const link = document.getElementById("link");
let serverId = null;

async function start() {
  const r = await fetch("/api/boards");
  const info = await r.json();
  serverId = info.server;
  const root = document.getElementById("boards");
  root.dataset.count = info.boards.length;
  if (info.boards.some(x => x.role === "remote")) root.dataset.paired = "true";
  for (const layout of info.boards) buildBoard(layout, root, info.boards.length);
  select(0);
  fit();
  window.addEventListener("resize", () => requestAnimationFrame(fit));
  const es = new EventSource("/events");
  es.addEventListener("open", () => { link.dataset.state = "live"; link.textContent = "live"; });
  es.addEventListener("error", () => { link.dataset.state = "lost"; link.textContent = "reconnecting…"; });
  es.addEventListener("hello", e => {
    const hello = JSON.parse(e.data);
    if (hello.server !== serverId) { location.reload(); return; }  // a new server: new boards
    for (const b of boards) if (b) b.log.replaceChildren();
  });
  es.addEventListener("state", e => applyState(JSON.parse(e.data)));
  es.addEventListener("tick", e => applyTime(JSON.parse(e.data)));
  es.addEventListener("log", e => { const m = JSON.parse(e.data); addLog(m.board, m); });
  es.addEventListener("sound", e => playSound(JSON.parse(e.data)));
  es.addEventListener("voice", e => playVoice(JSON.parse(e.data)));
  es.addEventListener("refused", e => applyRefused(JSON.parse(e.data)));
  document.body.dataset.ready = "true";
}

start().catch(e => {
  link.dataset.state = "lost";
  link.textContent = "cannot reach the simulator: " + e;
});

// The chips' blinking, one clock for all of them: a real HT16K33 blinks all its lit
// segments together, dark for the second half of each period.
setInterval(() => {
  const now = performance.now() / 1000;
  document.querySelectorAll(".display").forEach((f) => {
    const hz = parseFloat(f.dataset.blink || "0");
    const dark = hz > 0 && (now * hz) % 1 >= 0.5;
    if ((f.dataset.dark === "true") !== dark) f.dataset.dark = dark ? "true" : "false";
  });
}, 50);
