// The hall dashboard: a tile per table, drawn from the state documents the boards publish,
// and the results list.  Everything arrives over server-sent events (/events): a snapshot
// on connect, then one event per change.  Renders at most once a frame per table (a burst
// of updates to one table draws only the newest), and fires a "hall:applied" event on
// document for every tile it draws ({table, at: Date.now(), state}) for tests and the benchmark.
// Plain JavaScript, no build step; text goes in with textContent, never as HTML.
"use strict";

const GAMES = {
  straight_rail: "Straight rail", balkline_47_2: "Balkline 47/2", balkline_47_1: "Balkline 47/1",
  balkline_71_2: "Balkline 71/2", one_cushion: "One-cushion", three_cushion: "Three-cushion",
};

const tilesEl = document.getElementById("tiles");
const rowsEl = document.getElementById("result-rows");
const MAX_ROWS = 500;     // rows kept in the results list (all of them: the CSV and JSON exports)
let resultsTotal = 0;
const tiles = new Map();    // table id -> {el, parts, data, receivedAt}
const pending = new Map();  // table id -> newest data not drawn yet
let frame = 0;

function el(tag, cls, parent, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}

function collator() { return new Intl.Collator(undefined, {numeric: true, sensitivity: "base"}); }
const byName = collator();

// ---- the grid: as many columns as make the biggest tiles fit the screen ---------------------------

function layout() {
  const n = tiles.size;
  tilesEl.dataset.count = n;
  if (!n) return;
  const w = tilesEl.clientWidth, h = window.innerHeight - tilesEl.getBoundingClientRect().top - 4;
  let best = [1, n], bestScale = 0;
  for (let cols = 1; cols <= n; cols++) {
    const rows = Math.ceil(n / cols);
    const scale = Math.min(w / cols / 16, h / rows / 9);  // tiles about 16:9
    if (scale > bestScale) { bestScale = scale; best = [cols, rows]; }
  }
  tilesEl.style.setProperty("--cols", best[0]);
  tilesEl.style.setProperty("--rows", best[1]);
}
window.addEventListener("resize", layout);

// ---- one tile --------------------------------------------------------------------------------

function buildTile(id) {
  const e = el("article", "tile");
  e.dataset.table = id;
  const head = el("header", "tile-head", e);
  const parts = {name: el("span", "t-name", head), game: el("span", "t-game", head), status: el("span", "t-status", head)};
  for (const p of ["A", "B"]) {
    const row = el("div", "pl", e);
    row.dataset.player = p;
    parts[p] = {row, name: el("span", "p-name", row), inn: el("span", "p-inn", row), score: el("span", "p-score", row)};
    parts[p].inn.title = "innings";
  }
  const foot = el("footer", "tile-foot", e);
  for (const k of ["run", "countdown", "eq", "phase", "result"]) parts[k] = el("span", "f-" + k, foot);
  const t = {el: e, parts, data: null, receivedAt: 0};
  tiles.set(id, t);
  // Keep the tiles in natural order of their ids (t2 before t10).
  const ids = [...tiles.keys()].sort(byName.compare);
  const next = ids[ids.indexOf(id) + 1];
  tilesEl.insertBefore(e, next ? tiles.get(next).el : null);
  layout();
  return t;
}

function clock(s) {
  return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
}

// How the loser ended a match he did not play out: left his place (I.4.3), or abandoned it and
// is excluded from the competition (I.8.2).
const LOSER_ENDED = {left: " left", abandoned: " abandoned"};

function winsText(winner, ended_by, names) {
  const loser = winner === "A" ? "B" : "A";
  const how = Object.hasOwn(LOSER_ENDED, ended_by || "") ? " (" + names[loser] + LOSER_ENDED[ended_by] + ")" : "";
  return names[winner] + " wins" + how;
}

function resultText(s) {
  const pl = s.players;
  if (s.result === "A" || s.result === "B") {
    const names = {A: pl.A.name || "Player A", B: pl.B.name || "Player B"};
    return winsText(s.result, s.ended_by, names);
  }
  if (s.result === "draw") return "Draw";
  if (s.result === "tiebreak") return "Tie-break";
  return "";
}

function phaseText(s, t) {
  if (s.phase === "lag") return "Lag";
  if (s.phase === "break") {
    if (s.break_left_s === null || s.break_left_s === undefined) return "Break";
    const left = Math.max(0, s.break_left_s - Math.floor((Date.now() - t.receivedAt) / 1000));
    return "Break " + clock(left);
  }
  if (s.phase === "tiebreak") return "Tie-break";
  return "";
}

function draw(id, data) {
  const t = tiles.get(id) || buildTile(id);
  t.data = data;
  t.receivedAt = Date.now();
  const p = t.parts, s = data.state;
  t.el.dataset.status = data.status || "unknown";
  p.name.textContent = data.name || id;
  p.status.textContent = data.status === "online" ? "online" : data.status === "offline" ? "OFFLINE" : "";
  if (!s) {
    t.el.dataset.state = "none";
    t.el.dataset.phase = "";
    p.game.textContent = "no match";
    for (const k of ["A", "B"]) { p[k].name.textContent = ""; p[k].inn.textContent = ""; p[k].score.textContent = ""; }
    for (const k of ["run", "countdown", "eq", "phase", "result"]) p[k].textContent = "";
  } else {
    t.el.dataset.state = "match";
    t.el.dataset.phase = s.phase;
    t.el.dataset.turn = s.turn || "";
    t.el.dataset.result = s.result || "";
    let game = (GAMES[s.game] || s.game) + " · " + s.target;
    if (s.innings_limit) game += " in " + s.innings_limit;
    p.game.textContent = game;
    for (const k of ["A", "B"]) {
      const pl = s.players[k];
      p[k].name.textContent = pl.name || "Player " + k;
      p[k].inn.textContent = pl.innings;
      p[k].score.textContent = pl.score;
      p[k].row.dataset.atTable = String(s.turn === k);
      p[k].row.dataset.winner = String(s.result === k);
    }
    const over = s.phase === "finished" || s.phase === "tiebreak";
    p.run.textContent = !over && s.turn ? "Run " + s.current_run : "";
    p.countdown.textContent = s.countdown !== null && s.countdown !== undefined && !over ? "Last " + s.countdown : "";
    p.eq.textContent = s.equalizing_inning ? "Equalizing inning" : "";
    p.phase.textContent = phaseText(s, t);
    p.result.textContent = resultText(s);
  }
  document.dispatchEvent(new CustomEvent("hall:applied", {detail: {table: id, at: Date.now(), state: s}}));
}

function schedule(data) {
  pending.set(data.table, data);
  if (!frame) frame = requestAnimationFrame(flush);
}

function flush() {
  frame = 0;
  const batch = [...pending.entries()];
  pending.clear();
  for (const [id, data] of batch) draw(id, data);
}

function removeTile(id) {
  const t = tiles.get(id);
  pending.delete(id);
  if (!t) return;
  t.el.remove();
  tiles.delete(id);
  layout();
}

// ---- the results list (newest first) ------------------------------------------------------------

function when(epoch) {
  if (epoch === null || epoch === undefined) return "";
  const d = new Date(epoch * 1000);
  return d.toLocaleDateString([], {month: "short", day: "numeric"}) + " " +
         d.toLocaleTimeString([], {hour: "2-digit", minute: "2-digit"});
}

function resultRow(r) {
  const tr = document.createElement("tr");
  tr.dataset.id = r.id;
  tr.dataset.table = r.table;
  const A = r.A, B = r.B;
  const cells = [
    [when(r.ended_at || r.received_at)], [r.name], [(GAMES[r.game] || r.game) + " · " + r.target],
    [A.name, "r"], [A.score + " – " + B.score, "c score"], [B.name],
    [A.innings === B.innings ? String(A.innings) : A.innings + " / " + B.innings, "c"],
    [Number(A.average).toFixed(3) + " / " + Number(B.average).toFixed(3), "c"],
    [A.high_run + " / " + B.high_run, "c"],
    [r.result === "A" || r.result === "B" ? winsText(r.result, r.ended_by, {A: A.name || "Player A", B: B.name || "Player B"})
      : r.result === "draw" ? "Draw" : r.result === "tiebreak" ? "Tie-break" : (r.result || "")],
  ];
  for (const [text, cls] of cells) el("td", cls || "", tr, text === null || text === undefined ? "" : String(text));
  return tr;
}

function addResult(r, replaces, fresh) {
  const row = resultRow(r);
  const old = replaces && rowsEl.querySelector('tr[data-id="' + CSS.escape(replaces) + '"]');
  if (old) {
    old.replaceWith(row);
  } else {
    rowsEl.prepend(row);
    if (fresh) resultsTotal++;
    while (rowsEl.children.length > MAX_ROWS) rowsEl.lastElementChild.remove();
  }
  if (fresh) {
    row.classList.add("fresh");
    setTimeout(() => row.classList.remove("fresh"), 60000);
  }
  document.getElementById("result-count").textContent = resultsTotal;
}

// ---- the connections: the page to the server, the server to the broker -------------------------

const link = document.getElementById("link");
const brokerEl = document.getElementById("broker");
const banner = document.getElementById("banner");

function showBroker(b) {
  document.body.dataset.broker = b.connected ? "up" : "down";
  brokerEl.dataset.state = b.connected ? "live" : "down";
  brokerEl.textContent = "broker " + b.address;
  brokerEl.title = b.connected ? "connected" : "not connected: " + b.detail;
  banner.textContent = b.connected ? "" : "Broker " + b.address + " not connected (" + b.detail + ") — reconnecting";
}

function connect() {
  const es = new EventSource("/events");
  es.addEventListener("open", () => { link.dataset.state = "live"; link.textContent = "live"; });
  es.addEventListener("error", () => {
    link.dataset.state = "lost";
    link.textContent = "dashboard lost, reconnecting…";
    banner.textContent = "Dashboard server not reachable — reconnecting";
  });
  es.addEventListener("hello", e => showBroker(JSON.parse(e.data).broker));
  es.addEventListener("snapshot", e => {
    const snap = JSON.parse(e.data);
    for (const id of [...tiles.keys()]) removeTile(id);
    for (const t of snap.tables) draw(t.table, t);
    rowsEl.replaceChildren();
    resultsTotal = snap.results_total;
    for (const r of snap.results) addResult(r, null, false);
    document.getElementById("result-count").textContent = resultsTotal;
    document.body.dataset.ready = "true";
  });
  es.addEventListener("table", e => schedule(JSON.parse(e.data)));
  es.addEventListener("gone", e => removeTile(JSON.parse(e.data).table));
  es.addEventListener("result", e => { const m = JSON.parse(e.data); addResult(m.result, m.replaces, true); });
  es.addEventListener("broker", e => showBroker(JSON.parse(e.data)));
}

// The wall clock in the corner, and the half-time break's countdown, once a second.
function tick() {
  document.getElementById("clock").textContent =
    new Date().toLocaleTimeString([], {hour: "2-digit", minute: "2-digit"});
  for (const t of tiles.values()) {
    if (t.data && t.data.state && t.data.state.phase === "break") t.parts.phase.textContent = phaseText(t.data.state, t);
  }
}
setInterval(tick, 1000);
tick();
connect();
