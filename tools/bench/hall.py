"""The hall's load benchmark: simulated tables publishing, the delay to the dashboard measured.

    measure(url, boards, tables, interval_s, ...)   one load phase against a running `carom hall`
    hall_section()                                  the `make bench` section: runs tests/bench/bench_hall.py
                                                    (mosquitto, `carom hall`, 64 boards, Chromium) and prints
    tournament_section()                            a 64-player tournament from the draw to the champion:
                                                    runs tests/bench/bench_hall_tournament.py (mosquitto,
                                                    `carom hall --db --keys`, 16 loadgen.HallBoards) and prints

Every state document published carries `t_pub` (the publisher's time.time() just before the
publish) and `seq` (per table); the dashboard passes documents through untouched.  Three delays
per update, all on one machine's clock, loopback only:

    broker -> hall   t_pub to the hall's receipt (the table's `updated`, stamped on paho's thread)
    -> SSE client    t_pub to the arrival of the `table` event at an event-stream client on loopback
                     (the moment the server's event leaves it, plus a loopback hop)
    -> page          t_pub to when the page drew it in Chromium (its "hall:applied" event); the page
                     draws once a frame per table, so a burst to one table draws only the newest: a sample

    -> organiser     t_pub to the frame after the organiser's page (/organiser, its own Chromium context)
                     handled the `table` event (it redraws its list of the tournament's tables when what
                     it shows of that table changed): ORGANISER_JS wraps the page's own listener

Counts are checked (every update reached the event stream); times are only reported.
"""

import json
import os
import random
import statistics
import subprocess
import sys
import threading
import time

from host_tools import ROOT

COLLECT_JS = """() => {
  window.__applied = [];
  if (window.__collecting) return;
  window.__collecting = true;
  document.addEventListener("hall:applied", e => {
    const s = e.detail.state;
    if (s && s.t_pub !== undefined) window.__applied.push([e.detail.table, s.seq, s.t_pub, e.detail.at]);
  });
}"""


# Added to the organiser's page before its own script runs: each `table` event its listener handled,
# stamped at the next animation frame (the frame that shows what the handler changed).
ORGANISER_JS = """(() => {
  window.__handled = [];
  const Orig = window.EventSource;
  function Wrapped(url, options) {
    const es = new Orig(url, options);
    const add = es.addEventListener.bind(es);
    window.__opens = 0;
    window.__errors = [];
    add("open", () => { window.__opens++; });
    es.addEventListener = (type, fn, o) => type !== "table" ? add(type, fn, o) : add(type, e => {
      try { fn(e); } catch (err) { window.__errors.push(String(err)); throw err; }
      const t = JSON.parse(e.data), s = t.state;
      if (s && s.t_pub !== undefined) {
        const rec = [t.table, s.seq, s.t_pub, 0];
        window.__handled.push(rec);
        requestAnimationFrame(() => { rec[3] = Date.now(); });
      }
    }, o);
    return es;
  }
  Wrapped.prototype = Orig.prototype;
  window.EventSource = Wrapped;
})();"""


def stats_ms(delays):
    """count, median, p90, p99, max of delays given in seconds, as milliseconds."""
    if not delays:
        return {"count": 0}
    d = sorted(delays)

    def pct(p):
        return d[min(len(d) - 1, int(round(p / 100 * (len(d) - 1))))] * 1000

    return {
        "count": len(d),
        "median_ms": statistics.median(d) * 1000,
        "p90_ms": pct(90),
        "p99_ms": pct(99),
        "max_ms": d[-1] * 1000,
    }


class Arrivals:
    """What the event stream delivered: (table, seq) -> (arrival time, hall receipt time)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.seen = {}
        self.names = {}
        self.events = 0
        self.repeats = 0  # the same update again with nothing new (a rename by a report is something new)

    def __call__(self, kind, data, arrived):
        if kind != "table":
            return
        t = json.loads(data)
        s = t.get("state") or {}
        if "seq" in s:
            key = (t["table"], s["seq"])
            with self.lock:
                self.events += 1
                if key in self.seen and self.names[key] == t["name"]:
                    self.repeats += 1
                    return
                if key not in self.seen:
                    self.seen[key] = (arrived, t["updated"], s["t_pub"])
                self.names[key] = t["name"]


def first_times(stamps, sent):
    """The delays of [table, seq, t_pub, at (ms)] stamps of updates in `sent`, each update's first only
    (a report's rename sends a table's update again)."""
    first = {}
    for table, seq, t_pub, at in stamps:
        if (table, seq) in sent and at and (table, seq) not in first:
            first[(table, seq)] = at / 1000 - t_pub
    return list(first.values())


def measure(
    url, boards, sims, interval_s, duration_s=None, updates=None, page=None, seed=1, settle_s=30, organiser=None
):
    """One phase: each table publishes a state change every `interval_s` on average (exponential
    gaps), until `duration_s` has passed or `updates` were published; then waits (at most
    settle_s) for every update to reach the event stream.  Returns counts and delays."""
    from tools.hall.loadgen import SSEClient

    rng = random.Random(seed)
    arrivals = Arrivals()
    client = SSEClient(url, arrivals)
    if page is not None:
        page.evaluate(COLLECT_JS)
    if organiser is not None:
        organiser.evaluate("() => { window.__handled = []; }")
    seqs = [0] * len(sims)
    sent = {}
    reports = 0
    start = time.time()
    due = [(start + rng.expovariate(1 / interval_s), i) for i in range(len(sims))]
    try:
        while True:
            when, i = min(due)
            if duration_s is not None and when - start > duration_s:
                break
            if updates is not None and len(sent) >= updates:
                break
            wait = when - time.time()
            if wait > 0:
                time.sleep(wait)
            doc, report = sims[i].step()
            seqs[i] += 1
            doc["seq"] = seqs[i]
            doc["t_pub"] = t_pub = time.time()
            boards[i].state(doc)
            sent[(sims[i].table, seqs[i])] = t_pub
            if report is not None:
                boards[i].report(report)
                reports += 1
            due[i] = (when + rng.expovariate(1 / interval_s), i)
        publish_s = time.time() - start
        deadline = time.time() + settle_s
        while time.time() < deadline:
            with arrivals.lock:
                if all(k in arrivals.seen for k in sent):
                    break
            time.sleep(0.05)
        time.sleep(0.3)  # the page draws on its next frame
        applied = page.evaluate("() => window.__applied") if page is not None else []
        handled = organiser.evaluate("() => window.__handled") if organiser is not None else []
    finally:
        client.close()
    with arrivals.lock:
        seen = dict(arrivals.seen)
    got = [k for k in sent if k in seen]
    out = {
        "tables": len(sims),
        "interval_s": interval_s,
        "published": len(sent),
        "reports": reports,
        "publish_s": publish_s,
        "rate_per_s": len(sent) / publish_s if publish_s else 0.0,
        "arrived": len(got),
        "missing": len(sent) - len(got),
        "sse_events": arrivals.events,
        "sse_repeats": arrivals.repeats,
        "broker_to_hall": stats_ms([seen[k][1] - sent[k] for k in got]),
        "to_sse_client": stats_ms([seen[k][0] - sent[k] for k in got]),
    }
    if page is not None:
        drawn = first_times(applied, sent)
        out["to_page"] = stats_ms(drawn)
        out["page_drawn_fraction"] = len(drawn) / len(sent) if sent else 0.0
    if organiser is not None:
        done = first_times(handled, sent)
        out["to_organiser"] = stats_ms(done)
        out["organiser_handled_fraction"] = len(done) / len(sent) if sent else 0.0
    return out


def hall_section():
    """`make bench`: the hall dashboard under load (64 tables; realistic rate and 100 times it)."""
    script = os.path.join(ROOT, "tests", "bench", "bench_hall.py")
    print("## Hall dashboard under load (64 simulated boards -> mosquitto -> carom hall -> SSE / Chromium, loopback)")
    proc = subprocess.run([sys.executable, script], cwd=ROOT, capture_output=True, text=True, timeout=600)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        print("(not measured: %s)" % (proc.stderr.strip().splitlines() or ["no output"])[-1])
        print()
        return {"skipped": proc.stderr[-2000:]}
    r = json.loads(lines[-1])
    if r.get("skipped"):
        print("(not measured: %s)" % r["skipped"])
        print()
        return r
    print(
        "%-30s %7s %6s %7s %7s  %-12s %-12s %-12s %-12s"
        % ("phase", "updates", "per s", "arrived", "reports", "broker->hall", "-> SSE", "-> TV page", "-> organiser")
    )
    print(
        "%-30s %7s %6s %7s %7s  %-12s %-12s %-12s %-12s"
        % ("", "", "", "", "", "med/p99 ms", "med/p99 ms", "med/p99 ms", "med/p99 ms")
    )
    for ph in r["phases"]:

        def cell(s):
            return "%.1f/%.1f" % (s["median_ms"], s["p99_ms"]) if s.get("count") else "-"

        print(
            "%-30s %7d %6.0f %7d %7d  %-12s %-12s %-12s %-12s"
            % (
                ph["name"],
                ph["published"],
                ph["rate_per_s"],
                ph["arrived"],
                ph["reports"],
                cell(ph["broker_to_hall"]),
                cell(ph["to_sse_client"]),
                cell(ph.get("to_page", {})),
                cell(ph.get("to_organiser", {})),
            )
        )
    for ph in r["phases"]:
        if "to_page" in ph:
            print(
                "%s: the TV drew %.0f%% of the updates (an update overtaken by the next one to its table"
                " within a frame is not drawn); max delays: hall %.1f ms, SSE %.1f ms, TV %.1f ms%s"
                % (
                    ph["name"],
                    100 * ph["page_drawn_fraction"],
                    ph["broker_to_hall"].get("max_ms", 0),
                    ph["to_sse_client"].get("max_ms", 0),
                    ph["to_page"].get("max_ms", 0),
                    ", organiser %.1f ms (it handled %.0f%%)"
                    % (ph["to_organiser"].get("max_ms", 0), 100 * ph["organiser_handled_fraction"])
                    if "to_organiser" in ph
                    else "",
                )
            )
    print(
        "hall process: %.1f s CPU for the whole run; results list %d (reports published %d)"
        % (r["hall_cpu_s"], r["results"], sum(ph["reports"] for ph in r["phases"]))
    )
    print()
    return r


def tournament_section():
    """`make bench`: a 64-player tournament run by `carom hall` from the draw to the final on simulated
    boards with hall keys (tests/bench/bench_hall_tournament.py: mosquitto, the hall, 16 boards)."""
    script = os.path.join(ROOT, "tests", "bench", "bench_hall_tournament.py")
    print(
        "## A 64-player tournament from the draw to the final (16 boards with hall keys -> mosquitto -> carom hall"
        " --db --keys, loopback)"
    )
    runs = []
    for extra in ([], ["--no-page"]):
        proc = subprocess.run([sys.executable, script] + extra, cwd=ROOT, capture_output=True, text=True, timeout=1800)
        lines = proc.stdout.strip().splitlines()
        if proc.returncode != 0 or not lines:
            print("(not measured: %s)" % (proc.stderr.strip().splitlines() or ["no output"])[-1])
            print()
            return {"skipped": proc.stderr[-2000:]}
        runs.append(json.loads(lines[-1]))
        if runs[-1].get("skipped"):
            print("(not measured: %s)" % runs[-1]["skipped"])
            print()
            return runs[-1]
    r, quiet = runs
    r["no_page"] = quiet
    print(
        "format %s: %d players, %d matches (three-cushion to %d) on %d tables; a stroke per table every %.0f ms"
        " on average (%d strokes)"
        % (r["format"], r["players"], r["matches"], r["target"], r["tables"], r["stroke_s"] * 1000, r["strokes"])
    )
    print("draw -> champion (%s)                 %7.1f s" % (r["champion"], r["draw_to_champion_s"]))
    print(
        "carom hall: CPU from the draw to the champion %5.2f s  (%.0f%% of one core; %.1f ms a match)"
        % (r["hall_cpu_s"], 100 * r["hall_cpu_s"] / r["draw_to_champion_s"], 1000 * r["hall_cpu_s"] / r["matches"])
    )
    print(
        "  the same with no page listening            %5.2f s  (draw -> champion %.1f s; the pages' snapshots"
        " cost the difference)" % (quiet["hall_cpu_s"], quiet["draw_to_champion_s"])
    )
    print(
        "carom hall: peak resident memory (VmHWM)     %5.1f MB  (%.1f MB after its start; %.1f MB with no page)"
        % (r["hall"]["VmHWM"] / 1024, r["hall_at_start"]["VmHWM"] / 1024, quiet["hall"]["VmHWM"] / 1024)
    )
    print(
        "setups sent / verified and applied by the boards / refused   %d / %d / %d"
        % (r["setups_sent"], r["setups_applied"], r["setups_refused"])
    )
    print(
        "reports published / results counted / matches done          %d / %d / %d"
        % (r["reports_published"], r["results_counted"], r["matches_done"])
    )
    print(
        "tournament events to a page: %d, %.1f MB (%.0f KB each); the tournament file %.1f MB"
        % (
            r["tournament_events"],
            r["tournament_event_bytes"] / 1e6,
            r["tournament_event_bytes"] / max(1, r["tournament_events"]) / 1e3,
            r["db_bytes"] / 1e6,
        )
    )
    print()
    return r
