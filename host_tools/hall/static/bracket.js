// The knock-out bracket, drawn the same on the TV (hall.js) and on the organiser's page
// (organiser.js) from the tournament's `bracket` (rounds, each with its matches) and `champion`:
// the winner named first, then a column a round (.b-round: its name, then .b-matches), a box a
// match (.b-match, data-status and data-id), a line a player: the winner's marked .w, a place
// not yet known .tbd (its label, "W1 of group A" or "bye"), the score when there is one.
"use strict";

// GD as result sheets show it: three decimals, truncated (30/14 is 2.142, never a rounded-up
// average a player has not reached), from the whole numbers (host_tools/gd.py, the board's own).
function gdText(score, innings) {
  if (!Number.isInteger(score) || !Number.isInteger(innings) || score < 0 || innings < 0) return "";
  const x = innings ? Math.floor(score * 1000 / innings) : 0;
  return Math.floor(x / 1000) + "." + String(x % 1000).padStart(3, "0");
}

function bracketNode(tag, cls, parent, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  parent.appendChild(e);
  return e;
}

function drawBracket(box, rounds, champion) {
  box.replaceChildren();
  if (champion) bracketNode("div", "champion", box, "Winner: " + champion);
  for (const r of rounds) {
    const round = bracketNode("div", "b-round", box);
    bracketNode("h2", "", round, r.name);
    const col = bracketNode("div", "b-matches", round);
    for (const m of r.matches) {
      const match = bracketNode("div", "b-match", col);
      match.dataset.status = m.status;
      match.dataset.id = m.id;
      for (const p of ["A", "B"]) {
        const name = m["name_" + p];
        const score = m["score_" + p];
        const line = bracketNode("div", name && m.winner === name ? "w" : name ? "" : "tbd", match);
        bracketNode("span", "", line, name || (m.status === "bye" && !m["label_" + p] ? "bye" : m["label_" + p] || "–"));
        bracketNode("span", "", line, score === null || score === undefined ? "" : String(score));
      }
    }
  }
}
