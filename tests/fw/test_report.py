"""The match report: every inning from the log, with runs, fouls and times."""

import json

import rules_innings
import report
from referee import Referee


def play(script):
    r = Referee()
    for line in script.strip().split("\n"):
        assert r.line(line.strip()) is None, line
    return r


def test_innings_runs_fouls_and_times():
    r = play("""
        new game=three_cushion target=3 breaker=A name_A=Anna club_A="BC Szeged"
        wait 10
        point
        wait 20
        miss
        wait 5
        point
        foul push
        wait 30
        point
        point
        wait 15
        miss
    """)
    rep = report.build(r.match, r.now, started_at=1764489600, table="Table 3", board="wall")
    inns = rep["report"]["innings"]
    assert [(i["player"], i["inning"], i["run"]) for i in inns] == [("A", 1, 1), ("B", 1, 1), ("A", 2, 2), ("B", 2, 0)]
    assert inns[1]["fouls"] == ["push"] and inns[0]["fouls"] == []
    assert inns[0]["start_ms"] == 0 and inns[0]["end_ms"] == 30000
    assert inns[1]["start_ms"] == 30000 and inns[1]["end_ms"] == 35000
    assert inns[2]["start_ms"] == 35000 and inns[2]["end_ms"] == 65000
    assert inns[3]["equalizing"] and not inns[2]["equalizing"]
    assert inns[3]["end_ms"] == 80000 and inns[3]["end"] == 1764489600 + 80
    assert inns[0]["start"] == 1764489600
    assert rep["result"] == "A" and rep["players"]["A"]["club"] == "BC Szeged"
    assert rep["report"]["table"] == "Table 3" and rep["report"]["duration_s"] == 80
    assert rep["report"]["fouls"] == {"A": 0, "B": 1}
    # The runs in the report agree with the state document's.
    for p in ("A", "B"):
        assert [i["run"] for i in inns if i["player"] == p] == rep["players"][p]["runs"]
    json.dumps(rep)  # all of it is JSON


def test_report_after_lag_extension_and_break():
    r = play("""
        new game=straight_rail target=2
        lag B
        choose B break
        point
        miss
        miss
        break_request B
        wait 60
        point
        point
        point
        extend 4
        point
        point
        miss
    """)
    inns = rules_innings.listed(r.match)
    assert [(i["player"], i["inning"], i["run"]) for i in inns] == [
        ("B", 1, 1),
        ("A", 1, 0),
        ("B", 2, 1),
        ("A", 2, 2),
        ("B", 3, 2),
        ("A", 3, 0),
    ]
    assert inns[2]["break"] and inns[3]["equalizing"]
    assert inns[-1]["end_ms"] is not None  # the match is over: the last inning is closed
    assert report.build(r.match, r.now)["report"]["started_at"] is None


def test_report_of_a_match_in_progress():
    r = play("new game=three_cushion target=15 breaker=A\npoint\npoint")
    inns = rules_innings.listed(r.match)
    assert inns == [
        {
            "player": "A",
            "inning": 1,
            "run": 2,
            "fouls": [],
            "break": False,
            "equalizing": False,
            "start_ms": 0,
            "end_ms": None,
            "start": None,
            "end": None,
        }
    ]


def test_report_of_an_abandoned_match_with_reviews():
    """How it ended (abandoned, not left), the reviews used, the elapsed match time
    (from the first stroke; the lag not counted), and a review after the end, which the rules
    allow until the report is signed: it does not move the match's end."""
    r = play("""
        new game=three_cushion target=5 name_A=Anna name_B=Bela
        wait 30
        review A
        lag_tie
        lag A
        choose A break
        wait 10
        point
        frozen
        wait 20
        miss
        wait 5
        point
        abandon B
        wait 60
        review B
    """)
    rep = report.build(r.match, r.now, started_at=1764489600)
    assert (rep["result"], rep["ended_by"]) == ("A", "abandoned")
    assert rep["review_used"] == {"A": True, "B": True}
    assert rep["elapsed_s"] == 35  # 30 s (the lag) to 65 s (the abandon)
    assert rep["report"]["duration_s"] == 65 and rep["report"]["ended_at"] == 1764489600 + 65
    inns = rep["report"]["innings"]
    assert [(i["player"], i["inning"], i["run"], i["start_ms"], i["end_ms"]) for i in inns] == [
        ("A", 1, 1, 30000, 60000),
        ("B", 1, 1, 60000, 65000),
    ]
    # left stays left (I.4.3)
    r = play("new game=three_cushion target=5 breaker=A\npoint\nleft A")
    rep = report.build(r.match, r.now)
    assert (rep["result"], rep["ended_by"]) == ("B", "left")


def test_report_of_a_set_match_lists_each_sets_innings():
    """Innings carry their set's number and count in their set; the runs are each set's (the
    state document's runs are only the current set's)."""
    r = play("""
        new game=three_cushion target=2 sets=2 deciding_target=1
        lag A
        choose A break
        point
        miss
        point
        miss
        point
        miss
        break_request A
        resume
        next_set
        point
        point
        miss
        next_set
        lag B
        choose B break
        miss
        point
    """)
    rep = report.build(r.match, r.now)
    inns = rep["report"]["innings"]
    assert [(i["set"], i["player"], i["inning"], i["run"]) for i in inns] == [
        (1, "A", 1, 1),
        (1, "B", 1, 1),
        (1, "A", 2, 1),
        (1, "B", 2, 0),
        (2, "B", 1, 2),
        (2, "A", 1, 0),
        (3, "B", 1, 0),
        (3, "A", 1, 1),
    ]
    assert inns[1]["equalizing"] is False and inns[5]["equalizing"]
    assert not any("shootout" in i for i in inns)
    assert rep["sets"]["scores"] == [[2, 1], [0, 2], [1, 0]]
    for p in ("A", "B"):  # every set's runs add up to its score, and the match's to players.X.match
        for k, (a, b) in enumerate(rep["sets"]["scores"]):
            assert sum(i["run"] for i in inns if i["player"] == p and i["set"] == k + 1) == (a, b)[p == "B"]
        assert sum(i["run"] for i in inns if i["player"] == p) == rep["players"][p]["match"]["score"]
        assert len([i for i in inns if i["player"] == p]) == rep["players"][p]["match"]["innings"]


def test_report_of_a_shootout_lists_every_round():
    r = play("""
        new game=three_cushion target=2 draw=off shootout=on innings_limit=1
        lag A
        choose A break
        point
        miss
        point
        wait 7
        miss
        point
        miss
        point
        miss
        point
        point
        wait 3
        foul push
        point
        miss
    """)
    rep = report.build(r.match, r.now)
    inns = rep["report"]["innings"]
    assert [(i["player"], i["inning"], i["run"], i.get("shootout", False)) for i in inns] == [
        ("A", 1, 1, False),
        ("B", 1, 1, False),
        ("A", 1, 1, True),
        ("B", 1, 1, True),
        ("A", 2, 2, True),
        ("B", 2, 1, True),
    ]
    assert inns[4]["fouls"] == ["push"] and inns[4]["end_ms"] == 10000 and inns[1]["end_ms"] == 7000
    assert rep["shootout"]["rounds"] == [[1, 1], [2, 1]] and rep["ended_by"] == "shootout"
    assert rep["result"] == "A" and rep["players"]["A"]["score"] == 1  # the match's score unchanged
    assert all("set" not in i for i in inns)


def test_report_of_a_match_with_a_warmup_starts_its_first_inning_when_the_warmup_ends():
    r = play("""
        new game=three_cushion target=2 warmup_s=60 breaker=A
        warmup A
        wait 30
        warmup B
        wait 70
        wait 10
        point
        wait 4
        point
        miss
    """)
    inns = report.build(r.match, r.now)["report"]["innings"]
    assert [(i["player"], i["run"], i["start_ms"], i["end_ms"]) for i in inns] == [
        ("A", 2, 90000, 114000),
        ("B", 0, 114000, 114000),
    ]  # A's from the warm-up's end
