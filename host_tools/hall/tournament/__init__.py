"""The tournament the hall runs: players, the draw, matches onto tables, reports into standings.

One SQLite file (the standard library's sqlite3) holds everything; no MQTT, no HTTP, no clock
reads beyond stamping rows.  Every change is one transaction (BEGIN IMMEDIATE, WAL journal), so
two Tournament objects on the same file (two organisers' pages through one server, a second
process, `carom hall` restarted) see the same tournament and never half of a change.

    t = Tournament("hall.db")
    t.configure(name="Club day", game_options={"game": "three_cushion", "target": 20, "innings_limit": 40},
                format="groups_knockout", groups=4, advance=2)
    t.add_player("Anna Kovacs", club="BC Pest", average=0.8)   # -> player id
    t.add_table("t1")
    t.draw(seed=None)                   # registration order is the seeding; seed=int: a random draw
    for table, match_id, setup in t.assign(["t1", "t2"]):
        ...                             # setup: config.json's "players" and "match" (the setup topic)
    t.record_report("t1", report_doc)   # -> match id, or None (kept as unmatched)
    t.standings(); t.bracket(); t.matches(); t.export_csv(); t.export_json(); t.export_html()

Formats
-------
round_robin      `groups` balanced groups (sizes differ by one at most; players dealt in the seeding
                 order, snake-wise: 1 2 3 4 4 3 2 1 ...); each group plays every pairing once,
                 scheduled in rounds by the circle method (an odd group has a bye each round).
knockout         a seeded bracket (1 v 16, 8 v 9, ...; seeds 1 and 2 meet in the final at the
                 earliest) grown to the next power of two: the top seeds get the byes.
groups_knockout  round robin groups, then a knock-out of the top `advance` of each group, crossed:
                 a group's winner meets the partner group's runner-up (A1-B2, B1-A2, C1-D2, D1-C2).
                 A group's places go to the bracket as soon as that group's matches are all done.

Handicap: a player's own target, or his average (GD) times the innings it is reckoned over (the
game's innings limit, else `handicap_innings`, 25), rounded half up, within 1..9999; a player with
neither plays the game's target.  The setup carries target_A/target_B when the two differ.

Knock-out matches need a winner: their setup has draw false and shootout true (a level end goes to
the shoot-out, as firmware/formats.py plays it).  A knock-out report that is a draw anyway (a
board set up by hand) leaves the match "undecided" until the organiser calls decide().

Standings: by the tie-break order (values.TIEBREAK_PRESETS: "umb", the default, is match points
(win 2, draw 1), then GD (points / innings over all the player's matches, the exact fraction), then
the best high run; or a list of values.CRITERIA), then the seeding; a player who withdrew or was
excluded after those still in.  Each row's tie_break names the criterion that parted it from the
row above when the first did not.  GD is shown truncated to three decimals (host_tools/gd.py).

Corrections (corrections.py): walkover(match, "A"), withdraw(player), enter_result(match, a, b),
move(match, table); a report of an abandoned match excludes its loser.  Settings (configure):
walkover (values.WALKOVER_RULES), withdrawal (values.WITHDRAWAL_RULES), tiebreak, third_place.

Reports: matched to the match assigned to that table by the players' names (either order); a
report seen before (same table, same SHA-256 of its canonical JSON: model.fingerprint) changes
nothing; a report finished again after an undo (same table, players and report.started_at)
replaces the result while the knock-out's next match has not gone to a table.  Anything else is
kept as unmatched (unmatched(): the newest MAX_UNMATCHED, within MAX_UNMATCHED_BYTES) and
record_report returns None; record_report(table, report, match_id=...) gives one to a match.

Statuses of a match: pending (not on a table yet, or its players not known), assigned (its setup
went to the table), waiting (the board still plays another match: observe()), playing (the board
shows its players), done (played, entered by hand or a walkover: its `entry`), bye (a knock-out bye:
its one player goes on), undecided (a knock-out draw, see above), annulled (a withdrawn player's
played match, by the withdrawal rule).

The package, a module per job (each a part of Tournament, which puts them together):

    store.py         the SQLite file: its tables, one transaction per change, the settings' rows
    registration.py  settings, players and tables before (and around) the draw
    draw.py          the draw: seeding, round-robin groups (the circle method)
    bracket.py       the knock-out: its seeded bracket, crossed group places, winners moved on
    assign.py        matches onto tables (their setups), the boards' states observed
    reports.py       finished-match reports matched to their matches (impossible()), results
    corrections.py   walkovers, withdrawals and exclusions, a result by hand, a match moved
    standings.py     matches, standings and the champion as read
    exports.py       CSV, JSON and the printable page (its style: print.css)
    values.py        the limits and the checks of what a caller gives (ValueError, one line)
"""

from .assign import Assignment
from .bracket import Bracket
from .corrections import Corrections
from .draw import Draw
from .exports import Exports
from .registration import Registration
from .reports import Reports
from .standings import Standings
from .store import Store


class Tournament(Registration, Draw, Bracket, Assignment, Reports, Corrections, Standings, Exports, Store):
    """A tournament in the SQLite file `path` (created if missing).  Thread-safe; every method
    reads or changes the file in one transaction.  Bad input raises ValueError, one line."""
