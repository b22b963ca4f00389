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
  const changed = tilesEl.style.getPropertyValue("--cols") !== String(best[0]) ||
                  tilesEl.style.getPropertyValue("--rows") !== String(best[1]);
  tilesEl.style.setProperty("--cols", best[0]);
  tilesEl.style.setProperty("--rows", best[1]);
  if (changed) refitAll();
}
window.addEventListener("resize", () => { layout(); refitAll(); trimStrip(); if (view !== "tables") drawView(); });

// ---- every text whole: a text too long for its line is drawn smaller, down to 70% of its size; a
// name still too long then takes two lines (at the size that fits them), never an ellipsis ----------

const FIT = [".t-name", ".t-game", ".t-fmt", ".p-name"];
const LEAST_PX = 10;

function overflows(e) {
  if (e.scrollWidth > e.clientWidth) return true;
  const row = e.parentElement;  // wrapped: both lines inside the player's row (or the tile)
  return e.classList.contains("fit-wrap") && e.getBoundingClientRect().height > row.clientHeight + 1;
}

function fit(e) {
  const key = e.textContent + "|" + e.parentElement.clientWidth + "|" + e.parentElement.clientHeight;
  if (e._fit === key) return;
  e.style.fontSize = "";
  e.classList.remove("fit-wrap");
  if (e.textContent && overflows(e)) {
    let size = parseFloat(getComputedStyle(e).fontSize);
    const base = size;
    const shrink = least => {
      for (let i = 0; i < 16 && overflows(e) && size > least; i++) {
        size = Math.max(least, size * Math.min(0.95, e.clientWidth / e.scrollWidth || 0.95));
        e.style.fontSize = size.toFixed(1) + "px";
      }
    };
    shrink(Math.max(LEAST_PX, base * 0.7));
    if (overflows(e) && e.classList.contains("p-name")) {
      e.classList.add("fit-wrap");  // two lines, as large as they fit
      size = Math.max(LEAST_PX, base * 0.7);
      e.style.fontSize = size.toFixed(1) + "px";
    }
    shrink(LEAST_PX);
  }
  e._fit = key;
}

function fitTile(t) {
  for (const sel of FIT) for (const e of t.el.querySelectorAll(sel)) fit(e);
}

function refitAll() {
  for (const t of tiles.values()) fitTile(t);
}

// ---- one tile --------------------------------------------------------------------------------

function buildTile(id) {
  const e = el("article", "tile");
  e.dataset.table = id;
  const head = el("header", "tile-head", e);
  const parts = {name: el("span", "t-name", head), status: el("span", "t-status", head)};
  parts.game = el("div", "t-game", e);  // the game and its target, on a line of their own
  parts.fmt = el("div", "t-fmt", e);  // handicap, sets, shoot-out: shown only in such a match
  for (const p of ["A", "B"]) {
    const row = el("div", "pl", e);
    row.dataset.player = p;
    parts[p] = {row, name: el("span", "p-name", row), target: el("span", "p-target", row), inn: el("span", "p-inn", row),
                score: el("span", "p-score", row), sets: el("span", "p-sets", row)};
    parts[p].inn.title = "innings";
    parts[p].target.title = "his target (handicap)";
    parts[p].sets.title = "sets won";
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

function pair(x) { return x[0] + ":" + x[1]; }

function handicap(s) {
  const A = s.players.A, B = s.players.B;
  return s.target === null && A.target != null && B.target != null;
}

// How the match is played beyond the plain format, as the report and the results say it
// (model.match_format): "30:22 handicap", "sets 3:1 (15:9, 12:15, 15:4, 15:11)", "30:30,
// shoot-out 2:1"; while it is played, which set, and the shoot-out's round and its runs.
function formatText(s) {
  const parts = [], A = s.players.A, B = s.players.B, over = s.phase === "finished";
  if (handicap(s)) parts.push(A.target + ":" + B.target + " handicap");
  if (s.sets) {
    let t = "sets " + s.sets.won.A + ":" + s.sets.won.B;
    if (s.sets.scores.length) t += " (" + s.sets.scores.map(pair).join(", ") + ")";
    if (!over && s.phase !== "set_over") t += " · set " + s.sets.number;
    parts.push(t);
  }
  const so = s.shootout;
  if (so) {
    let t = "";
    if (s.phase === "shootout") t = "shoot-out round " + (so.played + 1) + (so.current ? " " + pair(so.current) : "");
    else if (s.ended_by === "shootout" && so.rounds.length) t = "shoot-out " + pair(so.rounds[so.rounds.length - 1]);
    if (t) parts.push(s.sets ? t : A.score + ":" + B.score + ", " + t);
  }
  return parts.join(", ");
}

function phaseText(s, t) {
  if (s.phase === "lag") return "Lag";
  if (s.phase === "warmup" && s.warmup) {  // whose: his row is marked
    if (s.warmup.left_s === null || s.warmup.left_s === undefined) return "Warm-up";
    const left = Math.max(0, s.warmup.left_s - Math.floor((Date.now() - t.receivedAt) / 1000));
    return "Warm-up " + clock(left);
  }
  if (s.phase === "set_over") return "Set over";
  if (s.phase === "shootout") return "Shoot-out";
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
    p.fmt.textContent = "";
    t.el.dataset.fmt = "false";
    for (const k of ["A", "B"]) {
      for (const f of ["name", "target", "inn", "score", "sets"]) p[k][f].textContent = "";
    }
    for (const k of ["run", "countdown", "eq", "phase", "result"]) p[k].textContent = "";
  } else {
    t.el.dataset.state = "match";
    t.el.dataset.phase = s.phase;
    t.el.dataset.turn = s.turn || "";
    t.el.dataset.result = s.result || "";
    const hc = handicap(s);
    let game = (GAMES[s.game] || s.game) + " · " + (hc ? s.players.A.target + ":" + s.players.B.target : s.target);
    if (s.innings_limit) game += " in " + s.innings_limit;
    if (s.sets) game += " · best of " + (2 * s.sets.to_win - 1);
    p.game.textContent = game;
    const fmt = formatText(s);
    p.fmt.textContent = fmt;
    p.fmt.title = fmt;
    t.el.dataset.fmt = String(fmt !== "");
    for (const k of ["A", "B"]) {
      const pl = s.players[k];
      p[k].name.textContent = pl.name || "Player " + k;
      p[k].target.textContent = hc ? String(pl.target) : "";
      p[k].inn.textContent = pl.innings;
      p[k].score.textContent = pl.score;
      p[k].sets.textContent = s.sets ? String(s.sets.won[k]) : "";
      p[k].row.dataset.atTable = String(s.phase === "warmup" && s.warmup ? s.warmup.player === k : s.turn === k);
      p[k].row.dataset.winner = String(s.result === k);
    }
    const over = s.phase === "finished" || s.phase === "tiebreak" || s.phase === "set_over";
    p.run.textContent = !over && s.turn && s.phase !== "warmup" ? "Run " + s.current_run : "";
    p.countdown.textContent = s.countdown !== null && s.countdown !== undefined && !over && s.phase !== "shootout"
      ? "Last " + s.countdown : "";
    p.eq.textContent = s.equalizing_inning ? "Equalizing inning" : "";
    p.phase.textContent = phaseText(s, t);
    p.result.textContent = resultText(s);
  }
  fitTile(t);
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
    [when(r.ended_at || r.received_at)], [r.name],
    [(GAMES[r.game] || r.game) + " · " + (r.target === null ? A.target + ":" + B.target : r.target)],
    [A.name, "r"], [A.score + " – " + B.score, "c score"], [B.name],
    [A.innings === B.innings ? String(A.innings) : A.innings + " / " + B.innings, "c"],
    [gdText(A.score, A.innings) + " / " + gdText(B.score, B.innings), "c"],
    [A.high_run + " / " + B.high_run, "c"],
    [r.format || ""],
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
  stripItem(r, replaces, fresh);
}

// The strip at the bottom of the screen: the newest results, newest first, always in view.
const stripEl = document.getElementById("strip-items");
const STRIP_ITEMS = 12;

function stripItem(r, replaces, fresh) {
  const item = document.createElement("div");
  item.className = "strip-item";
  item.dataset.id = r.id;
  item.dataset.table = r.table;
  const A = r.A, B = r.B;
  el("span", "s-table", item, r.name || r.table);
  const won = who => r.result === who;
  const side = (p, who) => { const s = el(won(who) ? "b" : "span", "", item, p.name || "Player " + who); return s; };
  side(A, "A");
  el("span", "s-score", item, " " + A.score + " – " + B.score + " ");
  side(B, "B");
  if (r.result === "draw") el("span", "s-note", item, " (draw)");
  const old = replaces && stripEl.querySelector('.strip-item[data-id="' + CSS.escape(replaces) + '"]');
  if (old) old.replaceWith(item);
  else stripEl.prepend(item);
  while (stripEl.children.length > STRIP_ITEMS) stripEl.lastElementChild.remove();
  if (fresh) {
    item.classList.add("fresh");
    setTimeout(() => item.classList.remove("fresh"), 60000);
  }
  if (!trimFrame) trimFrame = requestAnimationFrame(() => { trimFrame = 0; trimStrip(); });
}
let trimFrame = 0;

// Only whole results in the strip: one that would be cut at the screen's edge is not shown.
function trimStrip() {
  const right = stripEl.getBoundingClientRect().right;
  for (const item of stripEl.children) item.hidden = false;
  for (const item of stripEl.children) item.hidden = item.getBoundingClientRect().right > right + 0.5;
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
    stripEl.replaceChildren();
    resultsTotal = snap.results_total;
    for (const r of snap.results) addResult(r, null, false);
    document.getElementById("result-count").textContent = resultsTotal;
    document.body.dataset.ready = "true";
  });
  es.addEventListener("table", e => schedule(JSON.parse(e.data)));
  es.addEventListener("gone", e => removeTile(JSON.parse(e.data).table));
  es.addEventListener("result", e => { const m = JSON.parse(e.data); addResult(m.result, m.replaces, true); });
  es.addEventListener("broker", e => showBroker(JSON.parse(e.data)));
  es.addEventListener("tournament", e => { tournament = JSON.parse(e.data); setView(tournament.view); });
  es.addEventListener("view", e => setView(JSON.parse(e.data).view));
}

// ---- what the organiser puts on the TV: the tables, the standings or the bracket --------------------

let view = "tables";
let tournament = null;

function setView(v) {
  view = ["tables", "standings", "bracket"].includes(v) ? v : "tables";
  document.body.dataset.view = view;
  if (view === "tables") { layout(); refitAll(); } else drawView();
  document.dispatchEvent(new CustomEvent("hall:view", {detail: {view}}));
}

function drawView() {
  if (view === "standings") drawStandings(document.getElementById("standings-view"));
  else if (view === "bracket") showBracket(document.getElementById("bracket-view"));
}

// What parted a player from the one above him when the first criterion did not (standings' tie_break).
const TIE_NAMES = {points: "points", gd: "GD", gd_share: "GD share", high_run: "HR", seed: "seed"};

function drawStandings(box) {
  box.replaceChildren();
  const groups = (tournament && tournament.standings) || [];
  if (!groups.length) { el("p", "view-empty", box, "No standings yet: the draw is not made."); return; }
  const rows = groups.reduce((n, g) => Math.max(n, g.rows.length), 0);
  const cols = Math.min(groups.length, Math.max(1, Math.round(Math.sqrt(groups.length * 1.6))));
  const lines = Math.ceil(groups.length / cols) * (rows + 2.5);
  const size = Math.max(12, Math.min(34, (box.clientHeight - 30) / lines / 1.45, 1800 / cols / 30));
  box.style.setProperty("--vfont", size.toFixed(1) + "px");
  box.style.setProperty("--gw", (100 / cols - 2) + "%");
  if (tournament.settings.name || tournament.champion) {
    el("h1", "view-title", box, (tournament.settings.name || "") +
       (tournament.champion ? (tournament.settings.name ? " · " : "") + "Winner: " + tournament.champion : ""));
  }
  for (const g of groups) {
    const sec = el("div", "group", box);
    el("h2", "", sec, g.group ? "Group " + g.group : (tournament.settings.name || "Standings"));
    const table = el("table", "", sec);
    const hr = el("tr", "", el("thead", "", table));
    for (const [h, cls] of [["#", ""], ["Player", "n"], ["P", ""], ["W", ""], ["D", ""], ["L", ""], ["Pts", ""],
                            ["GD", ""], ["HR", ""], ["Tie", "tie"]]) el("th", cls, hr, h);
    const body = el("tbody", "", table);
    for (const r of g.rows) {
      const tr = el("tr", "", body);
      el("td", "", tr, String(r.rank));
      const n = el("td", "n", tr, r.name);
      if (r.club) el("small", "", n, r.club);
      for (const k of ["played", "won", "drawn", "lost"]) el("td", "", tr, String(r[k]));
      el("td", "pts", tr, String(r.points));
      el("td", "", tr, gdText(r.score, r.innings));
      el("td", "", tr, String(r.high_run));
      el("td", "tie", tr, r.status && r.status !== "in" ? r.status : TIE_NAMES[r.tie_break] || "");
    }
  }
}

function showBracket(box) {
  const rounds = (tournament && tournament.bracket) || [];
  if (!rounds.length) {
    box.replaceChildren();
    el("p", "view-empty", box, "No knock-out in this tournament (or no draw yet).");
    return;
  }
  const most = rounds.reduce((n, r) => Math.max(n, r.matches.length), 0);
  const size = Math.max(11, Math.min(30, (box.clientHeight - 40) / (most * 2 + 2) / 1.6, 1800 / rounds.length / 14));
  box.style.setProperty("--vfont", size.toFixed(1) + "px");
  drawBracket(box, rounds, tournament.champion);  // bracket.js
}

// The wall clock in the corner, and the break's and the warm-up's countdowns, once a second.
function tick() {
  document.getElementById("clock").textContent =
    new Date().toLocaleTimeString([], {hour: "2-digit", minute: "2-digit"});
  for (const t of tiles.values()) {
    const s = t.data && t.data.state;
    if (s && (s.phase === "break" || s.phase === "warmup")) t.parts.phase.textContent = phaseText(s, t);
  }
}
setInterval(tick, 1000);
tick();
connect();
