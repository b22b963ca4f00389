"""A tournament run by the hall from the draw to the champion, end to end, the small
version of `make bench`'s 64 players (tools/bench/hall.py tournament_section).

A real mosquitto set up as the README says (no anonymous clients, a password file, the ACLs: each
board writes only its table's topics and reads only its own setups, the hall reads them all and
writes the setups), a real `carom hall --db FILE --keys FILE --user hall` process, and four boards
with hall keys (tools.hall.loadgen.HallBoard): each takes its table's signed setups (checked
by the firmware's own publisher_hall.check), plays the match each names (its players, target and
options) with the firmware's rules core, and publishes its state and its report.  Nobody touches
the hall after the draw: eight players, a knock-out on four tables, the rounds go out by
themselves.

Checked against what the boards themselves played (their reports), never against numbers written
here: the champion, every player's standings row, each match done once, the results list holding
each report once, every setup verified and applied once, none refused.  Waits on conditions only.
"""

import shutil

import pytest

from tools.hall.loadgen import HallBoard, play
from host_tools.hall.setups import Keys
from tools.run.mosquitto import SecureMosquitto, available
from tools.run.hall import HallProc

TABLES = ("t1", "t2", "t3", "t4")
PLAYERS = (
    "Anna Kovacs",
    "Bela Nagy",
    "Csaba Toth",
    "Dora Szabo",
    "Erno Kiss",
    "Flora Varga",
    "Gabor Molnar",
    "Hanna Farkas",
)
USERS = dict({"hall": "hall-Pa55-e2e"}, **{t: "board-%s-pw" % t for t in TABLES})

pytestmark = pytest.mark.skipif(
    not available() or not shutil.which("mosquitto_passwd"),
    reason="mosquitto and mosquitto_passwd are not installed (tools/deps.sh)",
)


def post(hall, action, body):
    return hall.organise(action, body)


def played(reports):
    """name -> {played, won, lost, score} from the reports the boards published."""
    rows = {}
    for r in reports:
        assert r["result"] in ("A", "B"), r["result"]  # a knock-out match has a winner
        for p, other in (("A", "B"), ("B", "A")):
            row = rows.setdefault(r["players"][p]["name"], {"played": 0, "won": 0, "lost": 0, "score": 0})
            row["played"] += 1
            row["won" if r["result"] == p else "lost"] += 1
            row["score"] += r["players"][p]["score"]
    return rows


def test_a_knockout_from_the_draw_to_the_champion(tmp_path):
    keys_path = str(tmp_path / "hall-keys.json")
    keys = Keys(keys_path)
    secrets = {t: keys.new_key(t) for t in TABLES}  # as `carom hall-key` puts them in the file and on the board
    password_file = tmp_path / "hall-password"
    password_file.write_text(USERS["hall"] + "\n")
    broker = SecureMosquitto(USERS).start()
    hall = boards = None
    try:
        hall = HallProc(
            broker.port,
            "--db",
            str(tmp_path / "club.sqlite"),
            "--keys",
            keys_path,
            "--user",
            "hall",
            "--password-file",
            str(password_file),
        )
        hall.wait_line(r"broker 127\.0\.0\.1:\d+ connected")
        boards = [HallBoard("127.0.0.1", broker.port, t, secrets[t], user=t, password=USERS[t]) for t in TABLES]
        for b in boards:
            b.wait()
        assert (
            post(
                hall,
                "configure",
                {
                    "name": "Club knock-out",
                    "format": "knockout",
                    "game_options": {"game": "three_cushion", "target": 5},
                },
            )[0]
            == 200
        )
        assert (
            post(hall, "players", {"players": [{"name": n, "club": "BC %d" % (i % 3)} for i, n in enumerate(PLAYERS)]})[
                0
            ]
            == 200
        )
        for t in TABLES:
            assert post(hall, "table", {"table": t})[0] == 200
        assert post(hall, "draw", {"seed": 17}) == (200, {"ok": True})
        # The quarter-finals go to the four tables; the boards play; the rest follows by itself.
        state = {}

        def champion():
            state["doc"] = hall.get("/api/tournament")
            return state["doc"]["champion"] is not None

        play(boards, 0.004, champion, most_s=240, check_s=0.25)
        doc = state["doc"]
        reports = [r for b in boards for r in b.reports]
        assert len(reports) == 7  # 4 quarter-finals, 2 semi-finals, the final: each played once
        rows = played(reports)
        assert sorted(rows) == sorted(PLAYERS)
        unbeaten = [n for n, r in rows.items() if r["lost"] == 0]
        assert len(unbeaten) == 1 and rows[unbeaten[0]]["won"] == 3
        assert doc["champion"] == unbeaten[0]
        # The standings: every player's row as the boards played it.
        (group,) = doc["standings"]
        got = {r["name"]: {k: r[k] for k in ("played", "won", "lost", "score")} for r in group["rows"]}
        assert got == rows
        assert group["rows"][0]["name"] == doc["champion"]
        assert all(r["drawn"] == 0 for r in group["rows"])
        # The bracket: three rounds, every match done, its winner the one the board's report says.
        assert [len(r["matches"]) for r in doc["bracket"]] == [4, 2, 1]
        winners = {
            frozenset((r["players"]["A"]["name"], r["players"]["B"]["name"])): r["players"][r["result"]]["name"]
            for r in reports
        }
        for rnd in doc["bracket"]:
            for m in rnd["matches"]:
                assert m["status"] == "done"
                assert winners[frozenset((m["name_A"], m["name_B"]))] == m["winner"]
        assert sorted(m["status"] for m in doc["matches"]) == ["done"] * 7
        # Setups: each verified and applied once, none refused; the options the tournament set.
        applied = [(b.table, n, s) for b in boards for n, s in b.applied]
        assert len(applied) == 7 and sum(b.refused for b in boards) == 0
        for table, n, s in applied:
            assert s["match"]["game"] == "three_cushion" and s["match"]["target"] == 5
            assert s["match"]["draw"] is False and s["match"]["shootout"] is True
        for b in boards:  # its numbers 1, 2, ... in the order it got them
            assert [n for n, _ in b.applied] == list(range(1, len(b.applied) + 1))
        # Reports counted once: the hall's results list and the tournament.
        results = hall.get("/results.json")
        assert len(results) == 7
        assert sorted(e["hall"]["table"] for e in results) == sorted(table for table, _, _ in applied)
        # The hall sent seven setups, no more (its output, read to the end once it stopped).
        assert hall.stop() == 0
        sent = [line for line in hall.lines if line.startswith("carom hall: setup ") and " sent to " in line]
        assert len(sent) == 7, "\n".join(hall.lines)
    finally:
        if boards:
            for b in boards:
                b.close()
        if hall is not None:
            hall.stop_keeping_secrets(secrets)
        broker.close()


def test_a_simulated_board_takes_setups_as_a_board_does():
    """loadgen.HallBoard (what the test above and `make bench` play with) through a real mosquitto:
    a forged setup, another table's and a malformed one refused and counted; an empty one (the hall
    cleared it) and the retained copy again ignored; one sent during a match waits and is applied when the match has ended and its
    report is out; an older one then refused as old."""
    import paho.mqtt.client as paho

    from helpers import running_mosquitto, wait_for
    from host_tools.hall.setups import sign

    key, other = "11" * 32, "22" * 32

    def setup(a, b, target=3):
        return {
            "players": {"A": {"name": a, "club": ""}, "B": {"name": b, "club": ""}},
            "match": {"game": "three_cushion", "target": target, "draw": False, "shootout": True},
        }

    with running_mosquitto() as broker:
        hall = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id="test-hall-sender")
        hall.connect("127.0.0.1", broker.port)
        hall.loop_start()
        b = HallBoard("127.0.0.1", broker.port, "t7", key).wait()
        try:

            def send(payload):
                hall.publish("carom/t7/setup", payload, qos=1, retain=True).wait_for_publish(5)

            def seen(count):
                return wait_for(lambda: b.received, count, what="%d messages on the board's setup topic" % count)

            send(sign(other, "t7", 1, setup("Forger", "Forged")))
            seen(1)
            send(sign(key, "t8", 1, setup("Other", "Table")))
            seen(2)
            send(b"not a setup")
            seen(3)
            assert (b.refused, b.applied, b.sim) == (3, [], None)
            send(b"")  # the hall cleared the retained setup: neither refused nor counted (twice)
            send(b"")
            seen(5)
            assert b.refused == 3
            send(sign(key, "t7", 2, setup("Anna", "Bela")))
            seen(6)
            assert [n for n, _ in b.applied] == [2] and b.last_refused == "form"
            doc = b.sim.doc()
            assert (doc["phase"], doc["players"]["A"]["name"], doc["players"]["B"]["name"]) == ("lag", "Anna", "Bela")
            assert doc["target"] == 3
            b.board.client.reconnect()  # the broker's retained copy again, at the next connect: ignored
            seen(7)
            assert b.refused == 3 and len(b.applied) == 1
            assert b.step()  # the lag played: the match is under way
            send(sign(key, "t7", 3, setup("Csaba", "Dora", 5)))
            seen(8)
            assert b.waiting[0] == 3 and len(b.applied) == 1 and b.setup_doc()["waiting"] == 3
            for _ in range(5000):  # strokes: 3 waits while the match runs, and is applied once its report is out
                b.step()
                if len(b.applied) == 2:
                    break
                assert b.waiting[0] == 3 and b.reports == []
            assert len(b.applied) == 2 and b.waiting is None
            assert len(b.reports) == 1 and b.reports[0]["players"]["A"]["name"] == "Anna"
            assert b.reports[0]["result"] in ("A", "B")  # draw off: a winner (or a shoot-out)
            assert b.n == 3 and b.sim.doc()["players"]["A"]["name"] == "Csaba" and b.sim.doc()["target"] == 5
            send(sign(key, "t7", 2, setup("Anna", "Bela")))
            seen(9)
            assert (b.refused, b.last_refused, b.n) == (4, "old", 3)
        finally:
            b.close()
            hall.loop_stop()
            hall.disconnect()
