"""A club day's tournament (host_tools/hall/tournament/): walkovers, withdrawals and exclusions,
the tie-break orders, GD truncated and ranked by the exact fraction, a hand-entered result, a
match moved to another table, the third-place match, and an older file migrated.

Every played match is the firmware's: the setup assign() gives is checked by the board's schema,
played stroke by stroke with the firmware's referee from a script of runs, and report.build's
report goes to record_report, as a board publishes it.
"""

import csv
import io
import json
import sqlite3
from fractions import Fraction

import pytest

from host_tools import firmware_path, gd
from host_tools.hall.tournament import Tournament

firmware_path()
import config  # noqa: E402
import matchdoc  # noqa: E402
import referee  # noqa: E402
import report as fw_report  # noqa: E402
import rules  # noqa: E402

EPOCH = 1796000000
LIMIT_GAME = {"game": "three_cushion", "target": 30, "innings_limit": 50, "draw": True}


def play(setup, runs, table="t1", abandon=None):
    """The firmware plays the setup's match: runs[name] is that player's run in each inning he
    begins (a run ends with a miss unless it ends the match); abandon: the name of a player who
    abandons the match before the first stroke.  The board's report."""
    cfg = config.normalize({"players": setup["players"], "match": setup["match"]})
    ref = referee.Referee()
    assert ref.match.new(0, breaker=rules.A, **config.match_options(cfg)) is None
    side = {setup["players"][s]["name"]: s for s in "AB"}

    def doc():
        return matchdoc.doc(ref.match, ref.now)

    if abandon is not None:
        assert ref.line("abandon %s" % side[abandon]) is None
    steps = 0
    while doc()["phase"] != "finished":
        steps += 1
        assert steps < 500, doc()["phase"]
        d = doc()
        turn = d["turn"]
        name = d["players"][turn]["name"]
        run = runs[name][d["players"][turn]["innings"] - 1]
        ref.line("wait 30")
        for _ in range(run):
            assert ref.line("point") is None
        if (
            doc()["phase"] != "finished"
            and doc()["turn"] == turn
            and doc()["players"][turn]["innings"] == d["players"][turn]["innings"]
        ):
            assert ref.line("miss") is None
    return fw_report.build(ref.match, ref.now, EPOCH, EPOCH + ref.now // 1000, "Table %s" % table, "wall")


def runs_of(score, innings, high):
    """`innings` runs adding up to `score`: the first `high` (the high run), the rest spread evenly,
    the larger ones last (a match won at the target reaches it in its last inning)."""
    rest, others = score - high, innings - 1
    runs = [high] + [rest // others + (1 if k >= others - rest % others else 0) for k in range(others)]
    assert sum(runs) == score and max(runs) == high, runs
    return runs


def tourney(tmp_path, players, game=None, name="club.db", **settings):
    t = Tournament(str(tmp_path / name))
    t.configure(name="Club day", game_options=game or LIMIT_GAME, **settings)
    for p in players:
        t.add_player(**p) if isinstance(p, dict) else t.add_player(p)
    for k in range(4):
        t.add_table("t%d" % (k + 1))
    t.draw()
    return t


def play_all(t, plan, abandon=None):
    """Assign and play every match the plan knows: plan[frozenset of names] -> {name: runs}."""
    while True:
        got = [(r["table"],) + t.setup_of(r["table"]) for r in t.tables() if r["match"] is not None]
        got += t.assign(["t1", "t2", "t3", "t4"])
        if not got:
            return
        for table, match_id, setup in got:
            names = frozenset(p["name"] for p in setup["players"].values())
            rep = play(setup, plan[names], table, abandon=abandon[1] if abandon and abandon[0] == names else None)
            assert t.record_report(table, rep) == match_id


def rows(t, g=0):
    return t.standings()[g]["rows"]


# ---- GD truncated, ranked by the exact fraction ---------------------------------------------------


def test_gd_is_truncated_and_ranked_by_the_exact_fraction(tmp_path):
    # X 43/60 = 0.71666..., Y 38/53 = 0.71698...: both shown 0.716 (rounded, both 0.717); Y ranks
    # first although X has the better high run, which would decide between two equal decimals.
    plan = {
        frozenset("XY"): {"X": runs_of(30, 10, 9), "Y": runs_of(8, 10, 2)},  # X wins at the target
        frozenset("XZ"): {"X": runs_of(13, 50, 9), "Z": runs_of(20, 50, 3)},  # Z at the limit
        frozenset("YZ"): {"Y": runs_of(30, 43, 5), "Z": runs_of(10, 43, 3)},  # Y at the target
    }
    t = tourney(tmp_path, ["X", "Y", "Z"])
    play_all(t, plan)
    r = {x["name"]: x for x in rows(t)}
    assert (r["X"]["score"], r["X"]["innings"], r["Y"]["score"], r["Y"]["innings"]) == (43, 60, 38, 53)
    assert r["X"]["points"] == r["Y"]["points"] == r["Z"]["points"] == 2
    assert r["X"]["average"] == r["Y"]["average"] == 0.716 and r["X"]["high_run"] > r["Y"]["high_run"]
    assert [x["name"] for x in rows(t)] == ["Y", "X", "Z"]
    assert [x["tie_break"] for x in rows(t)] == [None, "gd", "gd"]
    # every surface shows 0.716 (the exports, the matches), never 0.717
    standings = list(csv.DictReader(io.StringIO(t.export_csv("standings"))))
    assert [(s["name"], s["average"], s["tie_break"]) for s in standings][:2] == [
        ("Y", "0.716", ""),
        ("X", "0.716", "gd"),
    ]
    assert "0.717" not in t.export_csv() and "0.717" not in t.export_html()
    assert "<td>0.716</td>" in t.export_html()
    doc = json.loads(t.export_json())
    assert [x["average"] for x in doc["standings"][0]["rows"][:2]] == [0.716, 0.716]
    m = [m for m in t.matches() if {m["name_A"], m["name_B"]} == {"Y", "Z"}][0]
    side = "A" if m["name_A"] == "Y" else "B"
    assert m["average_" + side] == gd.value(30, 43) == 0.697  # 0.6976...
    assert gd.text(30, 14) == "2.142" and gd.text(2, 3) == "0.666" and gd.ratio(30, 14) == Fraction(15, 7)


# ---- the tie-break orders ---------------------------------------------------------------------------

HANDICAP_PLAYERS = [
    {"name": "Ann", "target": 20},  # expected average 20 / 10 innings: 2.0
    {"name": "Bob", "target": 40},  # 4.0
    {"name": "Cy", "target": 20},  # 2.0
    {"name": "Dan", "target": 10},  # 1.0
]
HANDICAP_GAME = {"game": "three_cushion", "target": 20, "innings_limit": 10, "draw": True}
# Ann, Bob and Cy beat each other round (by the share of their own targets), Dan beats all three.
HANDICAP_PLAN = {
    frozenset(["Ann", "Bob"]): {"Ann": runs_of(10, 10, 2), "Bob": runs_of(16, 10, 3)},
    frozenset(["Bob", "Cy"]): {"Bob": runs_of(30, 10, 9), "Cy": runs_of(12, 10, 3)},
    frozenset(["Cy", "Ann"]): {"Cy": runs_of(14, 10, 5), "Ann": runs_of(11, 10, 2)},
    frozenset(["Dan", "Ann"]): {"Dan": runs_of(9, 10, 1), "Ann": runs_of(10, 10, 1)},
    frozenset(["Dan", "Bob"]): {"Dan": runs_of(9, 10, 1), "Bob": runs_of(20, 10, 2)},
    frozenset(["Dan", "Cy"]): {"Dan": runs_of(9, 10, 1), "Cy": runs_of(10, 10, 1)},
}


@pytest.mark.parametrize(
    "tiebreak, order, ties",
    [
        # Dan 6 points; Ann, Bob, Cy 2 each: GD Bob 2.2, Cy 1.2, Ann 1.033
        ("umb", ["Dan", "Bob", "Cy", "Ann"], [None, None, "gd", "gd"]),
        ("dbu_points_gd", ["Dan", "Bob", "Cy", "Ann"], [None, None, "gd", "gd"]),
        ("ceb", ["Dan", "Bob", "Cy", "Ann"], [None, None, "gd", "gd"]),
        # GD before points: Dan's 0.9 is the worst
        ("dbu_gd_points", ["Bob", "Cy", "Ann", "Dan"], [None, None, None, None]),
        # GD as a share of the expected average: Cy 0.6, Bob 0.55, Ann 0.516
        ("dbu_handicap", ["Dan", "Cy", "Bob", "Ann"], [None, None, "gd_share", "gd_share"]),
        # a custom order: the high run first (Bob 9, Cy 5, Ann 2, Dan 1)
        (["high_run", "points"], ["Bob", "Cy", "Ann", "Dan"], [None, None, None, None]),
    ],
)
def test_each_tiebreak_order_on_a_group_built_to_tie(tmp_path, tiebreak, order, ties):
    t = tourney(tmp_path, HANDICAP_PLAYERS, game=HANDICAP_GAME, tiebreak=tiebreak)
    play_all(t, HANDICAP_PLAN)
    r = rows(t)
    assert [x["points"] for x in sorted(r, key=lambda x: x["name"])] == [2, 2, 2, 6]  # Ann Bob Cy Dan
    assert [x["name"] for x in r] == order
    assert [x["tie_break"] for x in r] == ties
    assert t.settings()["tiebreak"] == tiebreak
    exported = list(csv.DictReader(io.StringIO(t.export_csv("standings"))))
    assert [(x["name"], x["tie_break"]) for x in exported] == [(n, k or "") for n, k in zip(order, ties)]


def test_across_groups_ceb_orders_the_runners_up_by_gd_not_points(tmp_path):
    # Two groups of two: A1 beats A2 (A2: 8 in 10 innings, 0 points); B2 draws... B1 beats B2.
    # Runners-up: A2 GD 0.8, B2 GD 0.5: CEB compares them by GD only.
    t = tourney(
        tmp_path,
        ["P1", "Q1", "Q2", "P2"],  # dealt snake-wise: group A P1 P2, group B Q1 Q2
        game=HANDICAP_GAME,
        format="round_robin",
        groups=2,
        tiebreak="ceb",
    )
    plan = {
        frozenset(["P1", "P2"]): {"P1": runs_of(12, 10, 3), "P2": runs_of(8, 10, 2)},
        frozenset(["Q1", "Q2"]): {"Q1": runs_of(9, 10, 3), "Q2": runs_of(5, 10, 2)},
    }
    play_all(t, plan)
    places = {p["place"]: p["rows"] for p in t.places()}
    assert [x["name"] for x in places[2]] == ["P2", "Q2"] and places[2][1]["tie_break"] is None
    assert [x["name"] for x in places[1]] == ["P1", "Q1"]
    assert [p["place"] for p in json.loads(t.export_json())["places"]] == [1, 2]
    assert "Place 2 across the groups" in t.export_html()


# ---- no-shows, withdrawals and exclusions ------------------------------------------------------------


def four(tmp_path, **settings):
    t = tourney(tmp_path, ["Ann", "Bob", "Cy", "Dan"], **settings)
    plan = {
        frozenset(pair): {pair[0]: runs_of(20, 50, 4), pair[1]: runs_of(10, 50, 2)}
        for pair in (("Ann", "Bob"), ("Ann", "Cy"), ("Ann", "Dan"), ("Bob", "Cy"), ("Bob", "Dan"), ("Cy", "Dan"))
    }  # the first of each pair wins 20-10 at the innings limit
    return t, plan


def open_match(t, a, b):
    return [m for m in t.matches() if {m["name_A"], m["name_B"]} == {a, b}][0]


@pytest.mark.parametrize("rule", ["uncounted", "zero_in_limit"])
def test_a_no_show_is_a_walkover_by_the_setting(tmp_path, rule):
    t, plan = four(tmp_path, walkover=rule)
    m = open_match(t, "Cy", "Dan")
    got = t.assign(["t1", "t2", "t3", "t4"])
    assert m["id"] in [x[1] for x in got] or t.match(m["id"])["status"] == "pending"
    present = "A" if m["name_A"] == "Cy" else "B"
    table = t.walkover(m["id"], present)
    w = t.match(m["id"])
    assert (w["status"], w["winner"], w["ended_by"], w["entry"]) == ("done", "Cy", "walkover", "walkover")
    assert w["note"] == "Dan did not come"
    assert table is None or table == w["table"]  # the table its setup was sent to, if it was
    assert m["id"] not in [x["match"] for x in t.tables()]  # never on a board
    for table_id, match_id, setup in t.assign(["t1", "t2", "t3", "t4"]):
        assert match_id != m["id"]
    r = {x["name"]: x for x in rows(t)}
    assert (r["Cy"]["won"], r["Cy"]["points"], r["Cy"]["score"], r["Cy"]["innings"]) == (1, 2, 0, 0)
    assert (r["Dan"]["lost"], r["Dan"]["points"], r["Dan"]["score"]) == (1, 0, 0)
    assert r["Dan"]["innings"] == (50 if rule == "zero_in_limit" else 0)  # 0 points in the innings limit
    with pytest.raises(ValueError, match="waits for its result"):
        t.walkover(m["id"], "A")
    exported = list(csv.DictReader(io.StringIO(t.export_csv("matches"))))
    assert [x["entry"] for x in exported if x["id"] == str(m["id"])] == ["walkover"]


@pytest.mark.parametrize("rule", ["stand", "annulled"])
def test_a_withdrawal_mid_group_under_each_setting(tmp_path, rule):
    t, plan = four(tmp_path, withdrawal=rule)
    played = []
    for table, match_id, setup in t.assign(["t1", "t2"]):  # round 1: two matches played
        names = frozenset(p["name"] for p in setup["players"].values())
        assert t.record_report(table, play(setup, plan[names], table)) == match_id
        played.append(match_id)
    dan_played = [i for i in played if "Dan" in (t.match(i)["name_A"], t.match(i)["name_B"])]
    assert len(dan_played) == 1
    on = t.assign(["t1"])  # round 2's first match on a table
    tables = t.withdraw("Dan")
    assert [p["status"] for p in t.players() if p["name"] == "Dan"] == ["withdrawn"]
    if on and "Dan" in on[0][2]["players"]["A"]["name"] + on[0][2]["players"]["B"]["name"]:
        assert tables == ["t1"]
    dan = [m for m in t.matches() if "Dan" in (m["name_A"], m["name_B"])]
    first = t.match(dan_played[0])
    assert first["status"] == ("annulled" if rule == "annulled" else "done")
    assert all(m["status"] == "done" and m["ended_by"] == "walkover" for m in dan if m["id"] != first["id"])
    play_all(t, plan)
    assert all(m["status"] in ("done", "annulled") for m in t.matches())
    r = {x["name"]: x for x in rows(t)}
    assert rows(t)[-1]["name"] == "Dan" and r["Dan"]["status"] == "withdrawn"
    assert r["Dan"]["played"] == (2 if rule == "annulled" else 3)
    with pytest.raises(ValueError, match="withdrawn already"):
        t.withdraw("Dan")


def test_an_abandon_excludes_the_player_by_the_report_alone(tmp_path):
    t, plan = four(tmp_path)
    got = t.assign(["t1"])
    table, match_id, setup = got[0]
    quitter = setup["players"]["B"]["name"]
    rep = play(setup, plan[frozenset(p["name"] for p in setup["players"].values())], table, abandon=quitter)
    assert rep["ended_by"] == "abandoned"
    assert t.record_report(table, rep) == match_id
    p = [p for p in t.players() if p["name"] == quitter][0]
    assert p["status"] == "excluded" and p["note"] == "abandoned match %d (rules I.8.2)" % match_id
    rest = [m for m in t.matches() if quitter in (m["name_A"], m["name_B"]) and m["id"] != match_id]
    assert len(rest) == 2 and all(m["ended_by"] == "walkover" and m["note"] == quitter + " excluded" for m in rest)
    assert all(m["winner"] != quitter for m in rest)
    play_all(t, plan)
    assert rows(t)[-1]["name"] == quitter and rows(t)[-1]["status"] == "excluded"
    assert "excluded: abandoned match" in t.export_html()


def test_a_knockout_withdrawal_sends_the_opponent_on_and_the_third_place_match(tmp_path):
    t = tourney(tmp_path, ["Ann", "Bob", "Cy", "Dan"], format="knockout", third_place=True)
    br = t.bracket()
    assert [r["name"] for r in br] == ["Semi-finals", "Final", "Third place"]
    third = br[2]["matches"][0]
    assert (third["label_A"], third["label_B"], third["third_place"]) == (
        "L%d" % br[0]["matches"][0]["id"],
        "L%d" % br[0]["matches"][1]["id"],
        True,
    )
    semis = t.assign(["t1", "t2"])
    assert len(semis) == 2
    plan = {frozenset(n["name"] for n in s["players"].values()): None for _, _, s in semis}
    table, match_id, setup = semis[0]
    a, b = (setup["players"][s]["name"] for s in "AB")
    assert t.record_report(table, play(setup, {a: runs_of(20, 50, 3), b: runs_of(10, 50, 2)}, table)) == match_id
    table2, match2, setup2 = semis[1]
    c, d = (setup2["players"][s]["name"] for s in "AB")
    t.withdraw(d)  # mid-match: his semi-final is a walkover, the third-place match too
    assert t.match(match2)["winner"] == c and t.match(match2)["ended_by"] == "walkover"
    th = t.match(third["id"])
    assert (th["status"], th["winner"], th["ended_by"]) == ("done", b, "walkover")
    final = t.assign(["t3"])
    assert len(final) == 1 and {p["name"] for p in final[0][2]["players"].values()} == {a, c}
    assert t.record_report("t3", play(final[0][2], {a: runs_of(20, 50, 3), c: runs_of(10, 50, 2)}, "t3")) == final[0][1]
    assert t.champion() == a
    assert "Third place" in t.export_html() and len(plan) == 2


def test_a_third_place_match_is_played(tmp_path):
    t = tourney(tmp_path, ["Ann", "Bob", "Cy", "Dan"], format="knockout", third_place=True)
    seen = []
    while True:
        got = t.assign(["t1", "t2"])
        if not got:
            break
        for table, match_id, setup in got:
            a, b = (setup["players"][s]["name"] for s in "AB")
            seen.append((match_id, a, b))
            assert (
                t.record_report(table, play(setup, {a: runs_of(20, 50, 3), b: runs_of(10, 50, 2)}, table)) == match_id
            )
    third = t.bracket()[2]["matches"][0]
    assert third["status"] == "done" and third["winner"] is not None
    assert seen[2][0] == third["id"]  # played before the final
    assert t.champion() == t.bracket()[1]["matches"][0]["winner"]


# ---- the organiser's corrections ---------------------------------------------------------------------


def test_a_result_entered_by_hand_counts_like_a_report(tmp_path):
    t, plan = four(tmp_path)
    table, match_id, setup = t.assign(["t1"])[0]
    assert (
        t.enter_result(
            match_id, {"score": 25, "innings": 50, "high_run": 6}, {"score": 14, "innings": 50, "high_run": 3}
        )
        == "t1"
    )
    m = t.match(match_id)
    assert (m["status"], m["result"], m["entry"], m["score_A"], m["average_A"]) == ("done", "A", "hand", 25, 0.5)
    assert t.tables()[0]["match"] != match_id
    exported = list(csv.DictReader(io.StringIO(t.export_csv("matches"))))
    assert [x["entry"] for x in exported if x["id"] == str(match_id)] == ["hand"]
    assert "entered by hand" in t.export_html()
    bad = [
        ({"score": 5, "innings": 0, "high_run": 5}, "cannot be"),
        ({"score": 5, "innings": 3, "high_run": 6}, "cannot be"),
        ({"score": -1, "innings": 3, "high_run": 0}, "score"),
        ({"score": 5, "innings": 3}, "score, innings, high_run"),
        ({"score": True, "innings": 3, "high_run": 1}, "score"),
    ]
    other = t.assign(["t2"])[0][1]
    for a, why in bad:
        with pytest.raises(ValueError, match=why):
            t.enter_result(other, a, {"score": 1, "innings": 3, "high_run": 1})
    with pytest.raises(ValueError, match="waits for its result"):
        t.enter_result(match_id, {"score": 1, "innings": 1, "high_run": 1}, {"score": 1, "innings": 1, "high_run": 1})


def test_a_match_moves_to_another_table(tmp_path):
    t, plan = four(tmp_path)
    (table, match_id, setup), (_, other, _) = t.assign(["t1", "t2"])
    assert t.move(match_id, "t3") == "t1"
    assert t.match(match_id)["table"] == "t3" and t.match(match_id)["status"] == "assigned"
    assert t.setup_of("t3") == (match_id, setup) and t.setup_of("t1") is None
    for args, why in (
        ((match_id, "t2"), "has a match"),
        ((match_id, "t9"), "not one of"),
        ((match_id, "t3"), "already"),
        ((match_id, "T!"), "table id"),
    ):
        with pytest.raises(ValueError, match=why):
            t.move(*args)
    names = frozenset(p["name"] for p in setup["players"].values())
    assert t.record_report("t3", play(setup, plan[names], "t3")) == match_id
    for args, why in (((match_id, "t1"), "not on a table"), ((10**6, "t1"), "not on a table")):
        with pytest.raises(ValueError, match=why):
            t.move(*args)
    assert t.match(other)["table"] == "t2"


def test_settings_are_checked_and_fixed_at_the_draw(tmp_path):
    t = Tournament(str(tmp_path / "s.db"))
    for kw, why in (
        ({"walkover": "nothing"}, "walkover"),
        ({"withdrawal": 1}, "withdrawal"),
        ({"tiebreak": "fifa"}, "tiebreak"),
        ({"tiebreak": ["gd", "gd"]}, "twice"),
        ({"tiebreak": []}, "list of 1 to 4"),
        ({"tiebreak": ["points", "goals"]}, "goals"),
        ({"third_place": "yes"}, "third_place"),
    ):
        with pytest.raises(ValueError, match=why):
            t.configure(**kw)
    t.configure(tiebreak=["gd", "points"], walkover="zero_in_limit", withdrawal="annulled", third_place=True)
    s = t.settings()
    assert (s["tiebreak"], s["walkover"], s["withdrawal"], s["third_place"]) == (
        ["gd", "points"],
        "zero_in_limit",
        "annulled",
        True,
    )
    t.add_player("A")
    t.add_player("B")
    t.draw()
    with pytest.raises(ValueError, match="cannot change now"):
        t.configure(tiebreak="umb")


def test_a_version_1_file_is_migrated(tmp_path):
    path = str(tmp_path / "old.db")
    t, plan = four(tmp_path, name="old.db")
    table, match_id, setup = t.assign(["t1"])[0]
    names = frozenset(p["name"] for p in setup["players"].values())
    t.record_report(table, play(setup, plan[names], table))
    before = t.standings()
    t.close()
    db = sqlite3.connect(path)  # back to version 1: without the columns it added
    for table_name, column in (("players", "status"), ("players", "note"), ("matches", "entry"), ("matches", "note")):
        db.execute("ALTER TABLE %s DROP COLUMN %s" % (table_name, column))
    db.execute("UPDATE meta SET value='1' WHERE key='schema_version'")
    db.commit()
    db.close()
    t = Tournament(path)
    assert t.standings() == before
    assert sqlite3.connect(path).execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0] == "2"
    t.withdraw("Dan")  # the new columns work
    assert [p["status"] for p in t.players() if p["name"] == "Dan"] == ["withdrawn"]
