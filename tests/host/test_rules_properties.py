"""Random event sequences never break the rules' invariants (hypothesis).

What is tried: random options (every game, targets 1..12, innings limits,
equalizing and draw on/off, shot clock, break length, the time-out's length)
and random referee lines, including undo, waits that make clocks run out,
extensions, malformed lines and the rarer events' words (lag ties, abandon, review,
frozen balls and the choice, a jump's balls, the area calls with anchor and
out), and the formats' options and words (a handicap's two targets, sets with a
deciding set's target, the shoot-out, the warm-up; next_set, warmup A|B,
extend <a> <b>).  After every line the invariants below must hold (a score
never above its player's own target, the equalizing inning's neither; sets
won never above N; the match's totals the sums over the sets; the shoot-out's
rounds), and from one line to the next: lag ties grow only by a lag_tie, a
review is given back only by undo, the elapsed time never runs backward but
by undo (or a warm-up, before the first stroke).  A refused line must leave
the document unchanged; undo of everything returns exactly to the start; a
rebuild from the log equals the live state.
"""

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from host_tools import firmware_path

firmware_path()
import matchdoc  # noqa: E402
import reasons  # noqa: E402
import rules  # noqa: E402
from referee import Referee  # noqa: E402
from test_rules_events import rebuilt  # noqa: E402  (tests/fw's, on the path as firmware/ is)

EVENTS = st.sampled_from(
    [
        "point",
        "point",
        "point",
        "point",
        "point A",
        "point B",
        "miss",
        "miss",
        "foul push",
        "foul jumped",
        "foul zone",
        "foul A wrong_ball",
        "undo",
        "undo",
        "break_request A",
        "break_request B",
        "resume",
        "wait 5",
        "wait 31",
        "wait 200",
        "timeout",
        "call entre",
        "extend 20",
        "extend 8",
        "left A",
        "lag A",
        "lag B",
        "lag_collision A",
        "lag_collision",
        "lag_fault B hit_red",
        "choose A break",
        "choose B give",
        "tiebreak A",
        "close",
        "nonsense",
        "point C",
        # the rarer events' words
        "lag_tie",
        "lag_tie",
        "abandon A",
        "abandon B",
        "left B",
        "review A",
        "review B",
        "frozen",
        "frozen A",
        "frozen_choice start",
        "frozen_choice free_ball",
        "frozen_choice masse",
        "foul jumped B red",
        "foul jumped A",
        "foul A jumped A B red",
        "foul jumped red red",
        "call dedans",
        "call a_cheval",
        "call out",
        "call entre anchor",
        "call dedans anchor",
        "call out anchor",
        # the formats' words
        "next_set",
        "next_set",
        "warmup A",
        "warmup B",
        "extend 20 15",
        "extend 9 14",
        "wait 61",
    ]
)

OPTIONS = st.fixed_dictionaries(
    {
        "game": st.sampled_from(rules.GAMES),
        "target": st.integers(1, 12),
        "breaker": st.sampled_from(["", " breaker=A", " breaker=B"]),
        "limit": st.sampled_from(["", " innings_limit=3", " innings_limit=6"]),
        "eq": st.sampled_from(["", " equalizing=off"]),
        "draw": st.sampled_from(["", " draw=off"]),
        "clock": st.sampled_from(["", " shot_clock=30", " shot_clock=30 timeouts=0"]),
        "brk": st.sampled_from(["", " break_s=60", " break_s=0"]),
        "timeout": st.sampled_from(["", "", " timeout_s=10", " timeout_s=45"]),
        # the formats'
        "target_B": st.sampled_from([0, 0, 1, 4, 9]),
        "sets": st.sampled_from(
            ["", "", " sets=1", " sets=2", " sets=3 deciding_target=2", " sets=2 deciding_target=7"]
        ),
        "shootout": st.sampled_from(["", " shootout=on"]),
        "warmup": st.sampled_from(["", " warmup_s=60"]),
    }
)


def new_line(o):
    if o["shootout"] and not o["sets"]:
        o["draw"] = " draw=off"  # a shoot-out decides what may not stand
    return "new game=%s target=%d%s%s%s%s%s%s%s%s%s%s%s" % (
        o["game"],
        o["target"],
        o["breaker"],
        o["limit"],
        o["eq"],
        o["draw"],
        o["clock"],
        o["brk"],
        o["timeout"],
        " target_B=%d" % o["target_B"] if o["target_B"] else "",
        o["sets"],
        o["shootout"],
        o["warmup"],
    )


def doc(r):
    return matchdoc.doc(r.match, r.now)


def check_invariants(d, m, options):
    sets = d["sets"]
    check_players(d, m)
    check_turn(d)
    check_result(d)
    if d["shot_clock"]:
        assert 0 <= d["shot_clock"]["left_s"] <= d["shot_clock"]["limit_s"]
    assert (d["break_left_s"] is not None) == (d["phase"] == "break")
    assert d["events"] == m.n
    # the rarer events' keys
    clock = int(options["clock"].split("=")[1].split()[0]) if options["clock"] else 0
    assert d["options"]["timeout_s"] == (int(options["timeout"].split("=")[1]) if options["timeout"] else clock)
    if d["shot_clock"]:
        assert d["shot_clock"]["limit_s"] in (clock, clock + d["options"]["timeout_s"])
    if d["lag"] is not None:
        assert d["lag"]["ties"] >= 0 and d["lag"]["collisions"] >= 0
    cushion = d["game"] in ("one_cushion", "three_cushion")
    if d["area"] is not None:
        assert not cushion
        limit = 1 if d["game"] == "balkline_47_1" else 2
        assert d["area"]["caroms"] >= 0 and d["area"]["limit"] == limit
        assert d["area"]["out_next"] == (d["area"]["caroms"] + 1 >= limit)
        assert d["phase"] not in ("lag", "set_over")
    assert m.out_next() == (d["area"] is not None and d["area"]["out_next"])
    if d["respot_balls"] is not None:
        assert d["game"] == "three_cushion" and d["respot"] == "three_cushion" and d["last_foul"] == "jumped"
        assert d["respot_balls"] and set(d["respot_balls"]) <= {"A", "B", "red"}
    if d["spots"] is not None:
        assert d["respot"] == "three_cushion" and d["turn"] is not None
        assert d["spots"] == {d["turn"]: "baulk", "AB".replace(d["turn"], ""): "centre", "red": "top"}
    if d["respot"] in ("choice", "free_ball", "masse"):
        assert d["game"] not in ("straight_rail", "one_cushion")
    reviews = [m.entry(i)[1] for i in range(m.n) if m.entry(i)[0] == rules.E_REVIEW]
    assert len(reviews) == len(set(reviews)) <= 2, reviews  # once per player
    assert d["review_used"] == {"A": rules.A in reviews, "B": rules.B in reviews}
    later_set = sets is not None and sets["number"] > 1
    if d["phase"] in ("lag", "warmup") and not later_set:
        assert d["elapsed_s"] is None
    if d["elapsed_s"] is not None:
        assert d["elapsed_s"] >= 0 and (d["breaker"] is not None or later_set)
    if d["ended_by"] in ("left", "abandoned"):
        assert d["phase"] == "finished" and d["result"] in ("A", "B")
    check_formats(d, m, options)


def check_players(d, m):
    """Each player's figures, the targets, the innings by who broke."""
    for p in ("A", "B"):
        pl = d["players"][p]
        assert 0 <= pl["score"] <= pl["target"]  # the equalizing inning's too: the target ends it
        assert len(pl["runs"]) == pl["innings"]
        assert sum(pl["runs"]) == pl["score"]
        assert pl["high_run"] == max(pl["runs"] or [0])
        assert 0 <= pl["timeouts_left"] <= d["options"]["timeouts"]
        if d["innings_limit"]:
            assert pl["innings"] <= d["innings_limit"] or m.extensions
    if d["target"] is not None:
        assert d["players"]["A"]["target"] == d["players"]["B"]["target"] == d["target"]
    a, b = d["players"]["A"]["innings"], d["players"]["B"]["innings"]
    if d["breaker"] == "A":
        assert a - b in (0, 1)
    elif d["breaker"] == "B":
        assert b - a in (0, 1)
    else:
        assert a == b == 0 and d["phase"] in ("lag", "finished", "warmup")


def check_turn(d):
    """Who is at the table in each phase, the result by the phase, the countdown."""
    window = 3 if d["game"] == "three_cushion" else 5
    playing = d["phase"] in ("running", "break", "equalizing") and d["turn"] is not None
    if d["phase"] in ("finished", "tiebreak", "lag", "set_over"):
        assert d["turn"] is None and d["countdown"] is None
    elif d["phase"] in ("warmup", "break"):  # a warm-up in the lag, a break between sets: nobody
        assert d["turn"] in ("A", "B", None)
    else:
        assert d["turn"] in ("A", "B")
    assert (d["result"] is None) == (d["phase"] not in ("finished", "tiebreak"))
    assert (d["phase"] == "tiebreak") == (d["result"] == "tiebreak")
    if d["countdown"] is not None:
        need = d["players"][d["turn"]]["target"] - d["players"][d["turn"]]["score"]
        assert playing and d["countdown"] == need and 1 <= need <= window
    elif playing:
        assert d["players"][d["turn"]]["target"] - d["players"][d["turn"]]["score"] > window


def check_result(d):
    """A match decided by the target: innings equal (with equalizing), the winner's (or both
    players') target reached."""
    a, b = d["players"]["A"]["innings"], d["players"]["B"]["innings"]
    if d["result"] in ("A", "B", "draw") and d["ended_by"] == "target" and d["options"]["equalizing"]:
        assert a == b, "innings equal at the end of a match decided by the target"
    if d["ended_by"] == "target" and d["result"] in ("A", "B"):
        assert d["players"][d["result"]]["score"] == d["players"][d["result"]]["target"]
    if d["result"] == "draw" and d["ended_by"] == "target":
        for p in ("A", "B"):
            assert d["players"][p]["score"] == d["players"][p]["target"]


def check_formats(d, m, options):
    """The formats': the sets, the match's totals, the shoot-out, the warm-up."""
    sets = d["sets"]
    opts = d["options"]
    assert (sets is None) == (not opts["sets"])
    if sets is not None:
        n = sets["to_win"]
        won, scores = sets["won"], sets["scores"]
        assert 0 <= won["A"] <= n and 0 <= won["B"] <= n and (won["A"] < n or won["B"] < n)
        assert len(scores) == won["A"] + won["B"]
        over = (
            d["phase"] in ("set_over",)
            or (d["phase"] == "break" and d["turn"] is None)
            or (d["phase"] == "finished" and d["ended_by"] not in ("left", "abandoned"))
        )
        if d["ended_by"] in ("left", "abandoned"):  # in a set, or between sets
            assert sets["number"] - len(scores) in (0, 1)
        else:
            assert sets["number"] == len(scores) + (0 if over else 1)
        if d["phase"] == "finished" and d["ended_by"] not in ("left", "abandoned"):
            assert won[d["result"]] == n  # the match is won by its sets
        else:
            assert won["A"] < n and won["B"] < n
        deciding = won["A"] == won["B"] == n - 1 and sets["number"] == len(scores) + 1  # it is played
        for k, p in enumerate("AB"):
            pl = d["players"][p]
            assert (
                pl["target"]
                == (
                    opts["deciding_target"]
                    if deciding and opts["deciding_target"]
                    else options["target"]
                    if p == "A"
                    else options["target_B"] or options["target"]
                )
                or m.extensions
            )
            total = pl["match"]
            before = sum(s[k] for s in scores[: sets["number"] - 1])
            assert total["score"] == before + pl["score"]  # the sums over the sets
            assert total["innings"] >= pl["innings"] and total["high_run"] >= pl["high_run"]
            for s in scores[: sets["number"] - 1]:
                assert total["high_run"] >= 0 and s[k] <= max(
                    options["target"], options["target_B"], opts["deciding_target"] or 0
                )
        assert d["phase"] != "break" or d["turn"] is None  # no half-time break in a set match
    else:
        assert d["players"]["A"]["match"] is None and d["players"]["B"]["match"] is None
        assert d["phase"] != "set_over"
    so = d["shootout"]
    if d["phase"] == "shootout":
        assert opts["shootout"] and so is not None and so["current"] is not None and d["turn"] in ("A", "B")
        assert all(a == b for a, b in so["rounds"])  # equal runs: another round
    if so is not None:
        assert opts["shootout"] and so["played"] >= len(so["rounds"]) and len(so["rounds"]) <= 32
        if d["phase"] != "shootout":
            assert so["current"] is None
            if d["ended_by"] not in ("left", "abandoned"):  # (one may leave or abandon during it: a tie)
                assert so["rounds"] and so["rounds"][-1][0] != so["rounds"][-1][1]  # decided by its last round
    if d["ended_by"] == "shootout":
        assert so is not None and d["phase"] in ("finished", "set_over", "break")
        last = so["rounds"][-1]
        if d["phase"] == "finished":
            assert d["result"] == ("A" if last[0] > last[1] else "B")
    assert (d["phase"] == "warmup") == (d["warmup"] is not None)
    if d["warmup"] is not None:
        assert opts["warmup_s"] and 0 <= d["warmup"]["left_s"] <= opts["warmup_s"]


def check_steps(prev, d, line, reason):
    """What may change from one document to the next: ties grow only by a lag_tie, a review is
    given back only by undo, match time never runs backward but by undo."""
    undo = line == "undo" and reason is None
    if prev["lag"] is not None and d["lag"] is not None and not undo:
        grew = 1 if line == "lag_tie" and reason is None else 0
        assert d["lag"]["ties"] == prev["lag"]["ties"] + grew, line
    for p in ("A", "B"):
        if prev["review_used"][p] and not d["review_used"][p]:
            assert undo, line
        if not prev["review_used"][p] and d["review_used"][p]:
            assert line == "review " + p, line
    warmup = line.startswith("warmup") and reason is None  # before the first stroke: no match time yet
    if prev["elapsed_s"] is not None and not undo and not warmup:
        assert d["elapsed_s"] is not None and d["elapsed_s"] >= prev["elapsed_s"], line
    if prev["sets"] is not None and not undo:  # sets are won, never lost
        for p in ("A", "B"):
            assert d["sets"]["won"][p] >= prev["sets"]["won"][p], line


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(OPTIONS, st.lists(EVENTS, max_size=80))
def test_random_sequences_keep_invariants(options, events):
    r = Referee()
    assert r.line(new_line(options)) is None
    start = json.dumps(doc(r), sort_keys=True)
    check_invariants(doc(r), r.match, options)
    for line in events:
        prev = doc(r)
        before = json.dumps(prev, sort_keys=True)
        n = r.match.n
        reason = r.line(line)
        if line.startswith("wait") and not r.match.closed:
            assert reason is None
        elif reason is not None:
            assert isinstance(reason, str) and reason
            assert r.match.n == n and json.dumps(doc(r), sort_keys=True) == before, line
        check_invariants(doc(r), r.match, options)
        check_steps(prev, doc(r), line, reason)
    # A rebuild from the log gives the live state.
    live = json.dumps(doc(r), sort_keys=True)
    if not r.match.closed:
        assert json.dumps(matchdoc.doc(rebuilt(r.match), r.now), sort_keys=True) == live
        # Undo of the whole sequence returns exactly to the start, clocks included,
        # however late the undos come.
        if r.match.n:
            r.now += 123456
            while r.match.n:
                assert r.line("undo") is None
            assert json.dumps(doc(r), sort_keys=True) == start
        assert r.line("undo") == reasons.NOTHING_TO_UNDO


FORMAT_EVENTS = st.sampled_from(
    ["point"] * 16
    + [
        "point A",
        "point B",
        "miss",
        "miss",
        "miss",
        "foul push",
        "undo",
        "undo",
        "next_set",
        "next_set",
        "lag A",
        "lag B",
        "choose A break",
        "choose B give",
        "warmup A",
        "warmup B",
        "resume",
        "break_request A",
        "break_request B",
        "wait 61",
        "wait 5",
        "timeout",
        "tiebreak A",
        "tiebreak B",
        "extend 6",
        "extend 6 5",
        "extend 3 7",
        "frozen",
        "call entre",
        "review A",
        "lag_tie",
        "close",
        "abandon B",
        "foul jumped B red",
        "foul jumped A",
        "call out",
    ]
)

FORMAT_OPTIONS = st.fixed_dictionaries(
    {
        "game": st.sampled_from(("straight_rail", "three_cushion")),
        "target": st.integers(1, 4),
        "breaker": st.sampled_from(["", " breaker=A", " breaker=B", " breaker=B"]),
        "limit": st.sampled_from(["", "", " innings_limit=2"]),
        "eq": st.sampled_from(["", " equalizing=off"]),
        "draw": st.sampled_from(["", " draw=off"]),
        "clock": st.sampled_from(["", " shot_clock=30 timeouts=1"]),
        "brk": st.sampled_from(["", " break_s=60", " break_s=0"]),
        "timeout": st.just(""),
        "target_B": st.sampled_from([0, 0, 1, 2, 5]),
        "sets": st.sampled_from(
            ["", " sets=1", " sets=2", " sets=2", " sets=3 deciding_target=1", " sets=2 deciding_target=5"]
        ),
        "shootout": st.sampled_from(["", " shootout=on", " shootout=on"]),
        "warmup": st.sampled_from(["", " warmup_s=60"]),
    }
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(FORMAT_OPTIONS, st.lists(FORMAT_EVENTS, min_size=20, max_size=100))
def test_format_matches_keep_invariants(options, events):
    """The formats played often to their ends: small targets, sets, shoot-outs, warm-ups."""
    test_random_sequences_keep_invariants.hypothesis.inner_test(options, events)


LONG_EVENTS = st.sampled_from(
    ["point"] * 12
    + [
        "miss",
        "miss",
        "foul push",
        "undo",
        "wait 31",
        "break_request A",
        "break_request B",
        "resume",
        "timeout",
        "call entre",
        "call dedans anchor",
        "call out",
        "frozen",
        "review A",
        "review B",
    ]
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(LONG_EVENTS, min_size=300, max_size=900), st.lists(st.integers(0, 899), max_size=40))
def test_long_matches_undo_across_checkpoints(events, undo_at):
    """Past the log's chunks (rules.CHUNK entries each): undo runs of any length from any point
    give the state of the match rebuilt from its remaining entries."""
    r = Referee()
    assert r.line("new game=straight_rail target=2000 breaker=A shot_clock=30 break_s=60") is None
    stops = set(undo_at)
    for i, line in enumerate(events):
        r.line(line)
        if i in stops:
            for _ in range(i % 300):
                r.line("undo")
            assert json.dumps(matchdoc.doc(rebuilt(r.match), r.now), sort_keys=True) == json.dumps(
                matchdoc.doc(r.match, r.now), sort_keys=True
            )


LONG_SET_WORDS = ["point"] * 14 + [
    "miss",
    "miss",
    "miss",
    "foul push",
    "undo",
    "next_set",
    "next_set",
    "lag A",
    "choose A break",
    "break_request B",
    "resume",
    "wait 31",
    "timeout",
    "review B",
    "call entre",
]


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False), st.sampled_from(["target=30", "target_A=40 target_B=25"]))
def test_long_set_matches_undo_across_checkpoints(rnd, targets):
    """Sets past the log's chunks (720 words, drawn as a referee would say them, not shrunk one by
    one): undo runs of 1..60 every 40 words, across sets and their ends, give the state of the
    match rebuilt from its remaining entries; the invariants hold all the way."""
    options = {
        "target": 30 if targets == "target=30" else 40,
        "target_B": 0 if targets == "target=30" else 25,
        "clock": " shot_clock=30",
        "timeout": "",
    }
    r = Referee()
    assert (
        r.line(
            "new game=straight_rail %s sets=5 deciding_target=20 shootout=on breaker=A shot_clock=30 "
            "break_s=60" % targets
        )
        is None
    )
    for i in range(720):
        r.line(rnd.choice(LONG_SET_WORDS))
        if i % 60 == 59:
            for _ in range(rnd.randint(1, 20) if i % 360 != 359 else rnd.randint(50, 150)):
                r.line("undo")
            assert json.dumps(matchdoc.doc(rebuilt(r.match), r.now), sort_keys=True) == json.dumps(
                matchdoc.doc(r.match, r.now), sort_keys=True
            )
            check_invariants(doc(r), r.match, options)
