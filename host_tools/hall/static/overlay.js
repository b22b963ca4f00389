// The score overlay of one table (/overlay/<table>): names, scores, innings, the run, the countdown
// and the shot clock, live from /events/<table> (that table's events only).  The page is
// transparent: streaming software lays it over the table's video.  Text goes in with textContent.
// Fires "overlay:applied" on document for every state it draws (tests).
"use strict";

const GAMES = {
  straight_rail: "Straight rail", balkline_47_2: "Balkline 47/2", balkline_47_1: "Balkline 47/1",
  balkline_71_2: "Balkline 71/2", one_cushion: "One-cushion", three_cushion: "Three-cushion",
};
const table = decodeURIComponent(location.pathname.split("/")[2] || "");
let data = null;
let receivedAt = 0;

function $(id) { return document.getElementById(id); }
function q(p, cls) { return document.querySelector('.ov-row[data-player="' + p + '"] .' + cls); }

function clock(s) { return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0"); }

function left(seconds) {
  return Math.max(0, seconds - Math.floor((Date.now() - receivedAt) / 1000));
}

function ticking(s) {
  const shot = s.shot_clock;
  if (shot && shot.left_s !== null && shot.left_s !== undefined && !["finished", "lag"].includes(s.phase)) {
    const n = left(shot.left_s);
    $("ov-shot").textContent = n + " s";
    $("ov-shot").dataset.low = String(n <= 10);
  } else {
    $("ov-shot").textContent = "";
  }
  let phase = "";
  if (s.phase === "break") phase = s.break_left_s == null ? "Break" : "Break " + clock(left(s.break_left_s));
  else if (s.phase === "warmup") phase = s.warmup && s.warmup.left_s != null ? "Warm-up " + clock(left(s.warmup.left_s)) : "Warm-up";
  else if (s.phase === "lag") phase = "Lag";
  else if (s.phase === "shootout") phase = "Shoot-out";
  else if (s.phase === "set_over") phase = "Set over";
  else if (s.phase === "tiebreak") phase = "Tie-break";
  else if (s.equalizing_inning) phase = "Equalizing inning";
  else if (s.phase === "finished") {
    phase = s.result === "A" || s.result === "B" ? (s.players[s.result].name || "Player " + s.result) + " wins"
      : s.result === "draw" ? "Draw" : "Finished";
  }
  $("ov-phase").textContent = phase;
}

function draw() {
  const s = data && data.state;
  document.body.dataset.state = s ? "match" : "none";
  $("ov-table").textContent = data ? data.name || table : table;
  if (!s) return;
  const hc = s.target === null && s.players.A.target != null && s.players.B.target != null;
  let game = (GAMES[s.game] || s.game) + " · " + (hc ? s.players.A.target + ":" + s.players.B.target : s.target);
  if (s.innings_limit) game += " in " + s.innings_limit;
  if (s.sets) game += " · set " + s.sets.number;
  $("ov-game").textContent = game;
  const over = ["finished", "tiebreak", "set_over"].includes(s.phase);
  for (const p of ["A", "B"]) {
    const pl = s.players[p];
    q(p, "ov-name").textContent = pl.name || "Player " + p;
    q(p, "ov-score").textContent = pl.score;
    q(p, "ov-inn").textContent = pl.innings;
    q(p, "ov-sets").textContent = s.sets ? String(s.sets.won[p]) : "";
    const row = document.querySelector('.ov-row[data-player="' + p + '"]');
    row.dataset.atTable = String(!over && (s.phase === "warmup" && s.warmup ? s.warmup.player === p : s.turn === p));
    row.dataset.winner = String(s.result === p);
  }
  $("ov-run").textContent = !over && s.turn && s.phase !== "warmup" && s.phase !== "lag" ? "Run " + s.current_run : "";
  $("ov-countdown").textContent = s.countdown !== null && s.countdown !== undefined && !over && s.phase !== "shootout"
    ? "Last " + s.countdown : "";
  ticking(s);
  document.dispatchEvent(new CustomEvent("overlay:applied", {detail: {table, state: s}}));
}

function apply(d) {
  data = d;
  receivedAt = Date.now();
  draw();
}

function connect() {
  const es = new EventSource("/events/" + encodeURIComponent(table));
  es.addEventListener("snapshot", e => { apply(JSON.parse(e.data).table); document.body.dataset.ready = "true"; });
  es.addEventListener("table", e => apply(JSON.parse(e.data)));
  es.addEventListener("gone", () => apply(null));
}

setInterval(() => { if (data && data.state) ticking(data.state); }, 1000);
connect();
