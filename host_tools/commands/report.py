"""`carom report`: the finished matches of a board as match reports (III.3.1).

    carom report -d DEV [--format json|csv|html|pdf ...] [--out DIR] [--match N]

Pulls /data/history/<generation>.json (firmware/store.py: one report per
finished match, firmware/report.py: the match state document plus every
inning) through mpremote and writes, in DIR (default: the current folder):

    json   match-<generation>.json   the board's report as it is, indented
    csv    matches.csv               one row per match: names, clubs, game, target,
                                     format, breaker, balls, each player's target,
                                     score, innings, GD, HR, fouls, result and how it
                                     ended, reviews used, start, end, duration and
                                     match time
           innings.csv               one row per inning: match, set, shoot-out,
                                     player, inning, run, running total, fouls,
                                     break, equalizing, times
    html   match-<generation>.html   a federation-style score sheet: the match data
                                     in the header, a row per inning with both
                                     players' runs and running totals, the totals,
                                     the result, signature lines for the referee and
                                     both players
    pdf    match-<generation>.pdf    the same sheet printed by a headless Chromium
                                     (chromium --headless --print-to-pdf); a clear
                                     error when none is installed

The formats (handicap, sets, shoot-out, warm-up) read as the hall reads them (hall/model.py match_format):
"30:22 handicap" (each player's target), "sets 3:1 (15:9, 12:15, 15:4, 15:11)",
"30:30, shoot-out 2:1" (the runs of the round that decided). A set match's sheet
has the innings set by set (each set's running totals from 0), its totals are
the match's over all sets (players.X.match), and a shoot-out's rounds follow in a
table of their own; in the CSV a set match's score, innings, GD and HR are the
match's, and each inning has its set (and "shootout" for a shoot-out's innings,
whose "inning" is the round and whose runs are not points: no running total).

Times are the board's clock (set it with `mpremote rtc --set`, which sets local
time); a board whose clock was never set has no wall-clock times, only the
match time of each inning.

This module is the command (pull, check, write); the reports are read and rendered by
host_tools/reports/ (match.py, sheets.py, pdf.py).
"""

import json
import os
import sys

from ..errors import CommandError
from ..link.boardio import BoardIO, Progress, add_device_argument, add_reset_argument
from ..reports.match import Match, generation
from ..reports.pdf import find_chromium
from ..reports.sheets import write_reports

HISTORY = "/data/history"
FORMATS = ("json", "csv", "html", "pdf")


def pull(board, wanted=None):
    """[(generation, doc)] of the board's finished matches, oldest first.

    A CommandError, before anything is read, when a `wanted` number is not on the board."""
    entries = board.listdir(HISTORY) or []
    names = [name for name, is_dir, _ in sorted(entries) if not is_dir and generation(name) is not None]
    if wanted:
        on_board = {generation(name) for name in names}
        missing = sorted(set(wanted) - on_board)
        if missing:
            raise CommandError(
                "no match %s on %s (%s); nothing was written"
                % (
                    ", ".join(str(n) for n in missing),
                    board.device,
                    "its finished matches: %s" % numbers(sorted(on_board))
                    if on_board
                    else "it has no finished matches",
                )
            )
        names = [name for name in names if generation(name) in wanted]
    sizes = {name: size for name, _, size in entries}
    total = sum(sizes[n] for n in names)
    bar = Progress(sys.stderr, "Reading %d report%s" % (len(names), "s"[: len(names) != 1]), total)
    done = 0
    out = []
    for name in names:
        gen = generation(name)
        bar.update(done)
        raw = board.read_file(HISTORY + "/" + name)
        done += sizes[name]
        bar.update(done)
        if raw is None:
            continue
        try:
            doc = json.loads(raw.decode("utf-8"))
        except ValueError as e:
            sys.stderr.write("warning: %s/%s is not valid JSON (%s); skipped\n" % (HISTORY, name, e))
            continue
        if not isinstance(doc, dict):
            continue
        out.append((gen, doc))
    out.sort()
    return out


def numbers(gens):
    """1-3, 7, 9-10: a sorted list of match numbers, short."""
    parts = []
    for n in gens:
        if parts and parts[-1][1] == n - 1:
            parts[-1][1] = n
        else:
            parts.append([n, n])
    return ", ".join(str(a) if a == b else "%d-%d" % (a, b) for a, b in parts)


def check_out_dir(out_dir):
    """--out must be a folder, or a place where one can be made: checked before the board is read."""
    if not out_dir:
        raise CommandError("--out is empty; give a folder for the reports")
    path = os.path.abspath(out_dir)
    if os.path.exists(path):
        if not os.path.isdir(path):
            raise CommandError("--out %s is a file, not a folder; nothing was read from the board" % out_dir)
        if not os.access(path, os.W_OK | os.X_OK):
            raise CommandError(
                "--out %s: cannot write into this folder (permission denied); nothing was read from the board" % out_dir
            )
        return
    parent = path
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent):
        raise CommandError("--out %s cannot be made: %s is a file; nothing was read from the board" % (out_dir, parent))
    if not os.access(parent, os.W_OK | os.X_OK):
        raise CommandError(
            "--out %s cannot be made in %s (permission denied); nothing was read from the board" % (out_dir, parent)
        )


def parse_formats(values):
    formats = []
    for v in values or ["json"]:
        for f in v.split(","):
            f = f.strip().lower()
            if not f:
                continue
            if f == "all":
                formats += list(FORMATS)
            elif f not in FORMATS:
                raise CommandError("unknown report format %r (json, csv, html, pdf, or all)" % f)
            else:
                formats.append(f)
    return [f for f in FORMATS if f in formats]


def arguments(p):
    """Pull the finished matches from the board's /data/history/ through mpremote and
    write match reports: JSON (the board's report), CSV (matches.csv and innings.csv),
    HTML and PDF score sheets (header with the match data, a row per inning with
    both players' runs and running totals, totals, result and signature lines).
    """
    add_device_argument(p)
    p.add_argument(
        "--format",
        "-f",
        action="append",
        metavar="FMT",
        help="json, csv, html, pdf or all; repeat or separate with commas (default json)",
    )
    p.add_argument("--out", "-o", default=".", metavar="DIR", help="folder for the reports (default: here)")
    p.add_argument(
        "--match",
        "-m",
        action="append",
        type=int,
        metavar="N",
        help="only the match with this number (its history file's); may be repeated",
    )
    add_reset_argument(p)
    p.set_defaults(run=run_report)


def run_report(args):
    formats = parse_formats(args.format)
    if "pdf" in formats and find_chromium() is None:
        raise CommandError(
            "PDF needs Chromium to print the HTML sheet and none was found (Debian: apt-get install "
            "chromium; or set CAROM_CHROMIUM to a Chrome/Chromium); --format html makes sheets any "
            "browser prints to PDF"
        )
    check_out_dir(args.out)
    with BoardIO(args.device, reset_on_close=args.reset, timeout=args.timeout) as board:
        pulled = pull(board, set(args.match or ()))
    if not pulled:
        if args.match:  # each was on the board, but none was a readable report
            raise CommandError(
                "match %s on %s could not be read (see the warnings)" % (numbers(sorted(set(args.match))), args.device)
            )
        print("no finished matches on %s" % args.device)
        return 0
    matches = [Match(gen, doc) for gen, doc in pulled]
    try:
        written = write_reports(matches, formats, args.out)
    except OSError as e:
        raise CommandError(
            "cannot write the reports into %s: %s"
            % (args.out, "%s: %s" % (e.filename, e.strerror) if e.filename and e.strerror else e)
        )
    for m in matches:
        a, b = m.total("A"), m.total("B")
        fmt = m.format()
        print(
            "match %d: %s %s - %s %s, %s%s"
            % (
                m.gen,
                m.name("A"),
                a.get("score", "?"),
                b.get("score", "?"),
                m.name("B"),
                m.result_text(),
                "; " + fmt if fmt else "",
            )
        )
    for path in written:
        print("wrote %s" % path)
    return 0
