// The organiser's page: the tournament's players, format, tables and draw; the matches, the setups
// sent to the tables, the standings and the bracket, live over server-sent events (/events: the
// "tournament" event, the same document /api/tournament gives).  Every change is a POST of JSON
// to /api/organiser/<action> with the header X-Carom-Hall: organiser; a refusal's message is shown
// as the server wrote it.  Text goes in with textContent, never as HTML.  Changes need the
// organiser: the sign-in form (the code carom hall printed) gets a session cookie the page
// cannot read (HttpOnly); a change refused with 401 shows the form again.
"use strict";

const GAMES = {
  straight_rail: "Straight rail", balkline_47_2: "Balkline 47/2", balkline_47_1: "Balkline 47/1",
  balkline_71_2: "Balkline 71/2", one_cushion: "One-cushion", three_cushion: "Three-cushion",
};
const STATUS = {sent: "sent", waiting: "waiting (a match on the table)", ready: "on the table, the lag",
                playing: "playing", done: "done", "no key": "no hall key for this table"};

const TIES = {points: "points", gd: "GD", gd_share: "GD share", high_run: "high run", seed: "seeding"};

let doc = null;        // the newest tournament document
const boards = {};     // table -> its board's newest {status, state} (from the dashboard's events)
let formFilled = false;

function $(id) { return document.getElementById(id); }

function el(tag, cls, parent, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (parent) parent.appendChild(e);
  return e;
}

function showError(text) {
  const box = $("error");
  box.textContent = text || "";
  box.hidden = !text;
  document.body.dataset.error = text ? "true" : "false";
}

async function post(action, body) {
  let answer;
  try {
    const r = await fetch("/api/organiser/" + action, {
      method: "POST", body: JSON.stringify(body),
      headers: {"Content-Type": "application/json", "X-Carom-Hall": "organiser"},
    });
    answer = await r.json().catch(() => ({error: "the hall answered " + r.status}));
    if (r.status === 401) $("signin").hidden = false;
    if (!r.ok) {
      showError(answer.error || "refused (" + r.status + ")");
      return null;
    }
    $("signin").hidden = true;
  } catch (e) {
    showError("the hall is not reachable: " + e.message);
    return null;
  }
  showError("");
  document.dispatchEvent(new CustomEvent("organiser:answer", {detail: {action, answer}}));
  return answer;
}

function num(form, name) {
  const v = form.elements[name].value.trim();
  return v === "" ? null : Number(v);
}

// ---- the forms ----------------------------------------------------------------------------------

$("signin").addEventListener("submit", async e => {
  e.preventDefault();
  const code = e.target.elements.code;
  if (await post("signin", {code: code.value.trim()})) code.value = "";
});

$("configure").addEventListener("submit", e => {
  e.preventDefault();
  const f = e.target;
  const game = {game: f.elements.game.value, target: num(f, "target"), innings_limit: num(f, "innings_limit") || 0,
                sets: num(f, "sets") || 0, draw: f.elements.draw.checked, shootout: f.elements.shootout.checked,
                warmup_s: num(f, "warmup_s") || 0, shot_clock: num(f, "shot_clock") || 0,
                break_s: num(f, "break_s") === null ? 180 : num(f, "break_s")};
  if (num(f, "deciding_target") !== null) game.deciding_target = num(f, "deciding_target");
  if (doc && doc.settings.drawn) return post("configure", {name: f.elements.name.value});  // only the name now
  const tiebreak = f.elements.tiebreak.value === "custom"
    ? f.elements.tiebreak_custom.value.split(",").map(x => x.trim()).filter(x => x) : f.elements.tiebreak.value;
  post("configure", {name: f.elements.name.value, format: f.elements.format.value, groups: num(f, "groups") || 1,
                     advance: num(f, "advance") || 1, game_options: game, walkover: f.elements.walkover.value,
                     withdrawal: f.elements.withdrawal.value, tiebreak, third_place: f.elements.third_place.checked});
});

$("add-player").addEventListener("submit", async e => {
  e.preventDefault();
  const f = e.target;
  const body = {name: f.elements.name.value, club: f.elements.club.value};
  if (num(f, "target") !== null) body.target = num(f, "target");
  if (num(f, "average") !== null) body.average = num(f, "average");
  if (await post("players", body)) {
    f.reset();
    f.elements.name.focus();
  }
});

$("add-many").addEventListener("submit", async e => {
  e.preventDefault();
  const players = [];
  for (const line of e.target.elements.lines.value.split("\n")) {
    if (!line.trim()) continue;
    const [name, club, target] = line.split(",").map(x => x.trim());
    const p = {name, club: club || ""};
    if (target) p.target = /^\d+$/.test(target) ? Number(target) : target;  // the server says what is wrong
    players.push(p);
  }
  if (!players.length) return showError("no player: one a line, name, club, target");
  if (await post("players", {players})) e.target.reset();
});

$("add-table").addEventListener("submit", async e => {
  e.preventDefault();
  if (await post("table", {table: e.target.elements.table.value.trim()})) e.target.reset();
});

$("draw").addEventListener("click", () => {
  const body = {};
  if ($("random").checked) body.seed = Math.floor(Math.random() * 2147483647);
  post("draw", body);
});

$("hand-result").addEventListener("submit", async e => {
  e.preventDefault();
  const f = e.target;
  const side = p => ({score: num(f, "score_" + p), innings: num(f, "innings_" + p), high_run: num(f, "high_run_" + p)});
  const body = {match: num(f, "match"), A: side("A"), B: side("B")};
  if (f.elements.winner.value) body.winner = f.elements.winner.value;
  if (await post("result", body)) f.reset();
});

$("move").addEventListener("submit", async e => {
  e.preventDefault();
  const f = e.target;
  if (await post("move", {match: num(f, "match"), table: f.elements.table.value.trim()})) f.reset();
});

for (const b of document.querySelectorAll("#tv button")) {
  b.addEventListener("click", () => post("view", {view: b.dataset.view}));
}

// ---- drawing the tournament ---------------------------------------------------------------------

function fillForm(s) {
  const f = $("configure");
  f.elements.name.value = s.name || "";
  f.elements.format.value = s.format;
  f.elements.groups.value = s.groups;
  f.elements.advance.value = s.advance;
  const g = s.game_options || {};
  for (const k of ["game", "target", "innings_limit", "sets", "deciding_target", "warmup_s", "shot_clock", "break_s"]) {
    if (g[k] !== undefined && g[k] !== null) f.elements[k].value = g[k];
  }
  if (g.draw !== undefined) f.elements.draw.checked = g.draw;
  if (g.shootout !== undefined) f.elements.shootout.checked = g.shootout;
  f.elements.walkover.value = s.walkover;
  f.elements.withdrawal.value = s.withdrawal;
  f.elements.tiebreak.value = Array.isArray(s.tiebreak) ? "custom" : s.tiebreak;
  f.elements.tiebreak_custom.value = Array.isArray(s.tiebreak) ? s.tiebreak.join(", ") : "";
  f.elements.third_place.checked = !!s.third_place;
}

function button(parent, cls, text, title, action) {
  const b = el("button", cls, parent, text);
  b.type = "button";
  if (title) b.title = title;
  b.addEventListener("click", action);
  return b;
}

function drawTournament() {
  const d = doc, s = d.settings;
  document.body.dataset.drawn = String(s.drawn);
  document.body.dataset.ready = "true";
  $("title").textContent = s.name || "";
  if (!formFilled) { fillForm(s); formFilled = true; }
  for (const f of ["configure", "add-player", "add-many"]) {
    for (const x of $(f).elements) x.disabled = s.drawn && !(f === "configure" && (x.name === "name" || x.type === "submit"));
  }
  $("draw").disabled = s.drawn;
  $("drawn").textContent = s.drawn ? "The draw is made: " + d.matches.length + " matches." : "";
  for (const b of document.querySelectorAll("#tv button")) b.setAttribute("aria-pressed", String(b.dataset.view === d.view));

  $("player-count").textContent = d.players.length;
  const pl = $("players");
  pl.replaceChildren();
  for (const p of d.players) {
    const tr = el("tr", "", pl);
    tr.dataset.id = p.id;
    el("td", "", tr, p.seed || "");
    el("td", "name", tr, p.name);
    el("td", "", tr, p.club);
    el("td", "", tr, p.plays_to + (p.target ? " (handicap)" : p.average ? " (average " + p.average + ")" : ""));
    el("td", "", tr, p.group || "");
    const td = el("td", "out", tr);
    tr.dataset.status = p.status;
    if (p.status !== "in") td.textContent = p.status + (p.note && p.note !== p.status ? ": " + p.note : "");
    else if (s.drawn) {
      button(td, "withdraw", "Withdraws", "his remaining matches are walkovers for his opponents", () => {
        if (confirm(p.name + " withdraws? His remaining matches become walkovers.")) post("withdraw", {player: p.name});
      });
    }
  }
  drawTables();

  const byId = new Map(d.matches.map(m => [m.id, m]));
  const ms = $("matches");
  ms.replaceChildren();
  for (const m of d.matches) {
    const tr = el("tr", "", ms);
    tr.dataset.id = m.id;
    tr.dataset.status = m.status;
    el("td", "", tr, m.id);
    el("td", "", tr, (m.stage === "group" ? "Group " + m.group : "KO") + " R" + m.round);
    el("td", "", tr, m.table || "");
    el("td", "r", tr, m.name_A || m.label_A || "");
    el("td", "c", tr, m.score_A === null ? "" : m.score_A + " – " + m.score_B);
    el("td", "", tr, m.name_B || m.label_B || "");
    const st = el("td", "status", tr, m.status + (m.entry === "hand" ? " (by hand)" : "") + (m.note && m.entry !== "hand" ? " (" + m.note + ")" : ""));
    if (m.name_A && m.name_B && ["pending", "assigned", "waiting", "playing"].includes(m.status)) {
      for (const p of ["A", "B"]) {  // a no-show: the walkover for the player who came
        const b = button(st, "walkover", "walkover " + m["name_" + p], "the other player did not come", () => {
          if (confirm("Match " + m.id + ": a walkover for " + m["name_" + p] + "?")) post("walkover", {match: m.id, present: p});
        });
        b.dataset.present = p;
      }
    }
    if (m.status === "undecided") {  // a knock-out draw a board let stand: the organiser names the winner
      for (const p of ["A", "B"]) {
        const b = el("button", "decide", st, (m["name_" + p] || p) + " goes on");
        b.type = "button";
        b.dataset.winner = p;
        b.addEventListener("click", () => {
          if (confirm((m["name_" + p] || p) + " wins match " + m.id + "?")) post("decide", {match: m.id, winner: p});
        });
      }
    }
  }
  void byId;

  const st = $("standings");
  st.replaceChildren();
  for (const g of d.standings) {
    const sec = el("div", "group", st);
    el("h3", "", sec, g.group ? "Group " + g.group : "Players");
    const t = el("table", "list", sec);
    const hr = el("tr", "", el("thead", "", t));
    for (const h of ["#", "Name", "Club", "P", "W", "D", "L", "Pts", "Score", "Inn", "GD", "HR", "Tie broken by", ""]) el("th", "", hr, h);
    const body = el("tbody", "", t);
    for (const r of g.rows) {
      const tr = el("tr", "", body);
      for (const k of ["rank", "name", "club", "played", "won", "drawn", "lost", "points", "score", "innings"]) {
        el("td", k, tr, r[k]);
      }
      el("td", "", tr, gdText(r.score, r.innings));
      el("td", "", tr, r.high_run);
      el("td", "tie", tr, r.tie_break ? TIES[r.tie_break] || r.tie_break : "");
      el("td", "out", tr, r.status === "in" ? "" : r.status);
    }
  }
  drawBracket($("bracket"), d.bracket, d.champion);  // bracket.js, as on the TV
  document.dispatchEvent(new CustomEvent("organiser:drawn", {detail: d}));
}

function boardText(table) {
  const b = boards[table];
  if (!b) return "not heard of";
  const s = b.state;
  let t = b.status === "offline" ? "offline" : b.status === "online" ? "online" : "";
  if (s) {
    const names = (s.players.A.name || "A") + " – " + (s.players.B.name || "B");
    t += (t ? ", " : "") + s.phase + ": " + names + " " + s.players.A.score + ":" + s.players.B.score;
  }
  return t;
}

function drawTables() {
  if (!doc) return;
  const tb = $("tables");
  tb.replaceChildren();
  for (const row of doc.tables) {
    const tr = el("tr", "", tb);
    tr.dataset.table = row.table;
    const sent = doc.setups[row.table];
    const status = doc.unkeyed.includes(row.table) ? "no key" : sent ? sent.status : "";
    tr.dataset.setup = status || "";
    el("td", "table", tr, row.table);
    el("td", "board", tr, boardText(row.table));
    const m = row.match !== null ? doc.matches.find(x => x.id === row.match) : null;
    el("td", "match", tr, m ? (m.name_A || "") + " – " + (m.name_B || "") : "");
    el("td", "setup", tr, status ? (STATUS[status] || status) + (sent ? " (no. " + sent.n + ")" : "") : "");
    const td = el("td", "", tr);
    if (m && status && ["sent", "waiting", "ready"].includes(status)) {
      button(td, "unsend", "Take back", "the board lets its setup go (never a started match); the match waits for a table", () => {
        if (confirm("Take the setup back from " + row.table + "?")) post("unsend", {table: row.table});
      });
    }
    const rm = el("button", "remove", td, "Remove");
    rm.type = "button";
    rm.title = "the table leaves the tournament; a match on it goes back to the waiting matches";
    rm.addEventListener("click", () => {
      if (confirm("Remove table " + row.table + " from the tournament? A match on it goes back to the waiting ones."))
        post("untable", {table: row.table});
    });
  }
}

// ---- the connection ---------------------------------------------------------------------------------

function connect() {
  const es = new EventSource("/events");
  const link = $("link");
  es.addEventListener("open", () => { link.dataset.state = "live"; link.textContent = "live"; });
  es.addEventListener("error", () => { link.dataset.state = "lost"; link.textContent = "hall lost, reconnecting…"; });
  es.addEventListener("tournament", e => { doc = JSON.parse(e.data); drawTournament(); });
  es.addEventListener("view", e => {
    if (!doc) return;
    doc.view = JSON.parse(e.data).view;
    for (const b of document.querySelectorAll("#tv button")) b.setAttribute("aria-pressed", String(b.dataset.view === doc.view));
  });
  es.addEventListener("snapshot", e => {
    for (const t of JSON.parse(e.data).tables) boards[t.table] = t;
    drawTables();
  });
  es.addEventListener("table", e => {  // one board's new state: its row's Board cell only (64 tables at
    const t = JSON.parse(e.data);        // hundreds of updates a second must not redraw the list each time)
    boards[t.table] = t;
    const cell = document.querySelector('#tables tr[data-table="' + CSS.escape(t.table) + '"] td.board');
    if (cell) cell.textContent = boardText(t.table);
  });
  es.addEventListener("gone", e => { delete boards[JSON.parse(e.data).table]; drawTables(); });
}
connect();
