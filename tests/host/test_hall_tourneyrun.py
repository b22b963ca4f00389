"""A tournament from the draw to the final on simulated boards (tools/hall/tourneyrun.py): 12 players
in 3 groups, the top 2 of each into a knock-out, on 4 tables, through a real mosquitto and `carom hall`.

Checked: every match is played once on some table (every setup verified with its table's key, none
refused), every group match and knock-out match is done, the standings count every group match, the
champion is the final's winner, and the hall's exports agree.  Times are measured by
make bench's tournament (64 players), never asserted here.
"""

from helpers import needs_mosquitto, running_mosquitto
from host_tools.hall.setups import Keys
from tools.hall.tourneyrun import TournamentRun
from tools.run.hall import HallProc

pytestmark = needs_mosquitto


def test_twelve_players_from_the_draw_to_the_final(tmp_path):
    keys = Keys(str(tmp_path / "hall-keys.json"))
    tables = ["t%d" % i for i in range(1, 5)]
    for t in tables:
        keys.new_key(t)
    with running_mosquitto() as broker:
        hall = HallProc(broker.port, "--db", str(tmp_path / "cup.sqlite"), "--keys", keys.path)
        run = None
        try:
            hall.wait_line(r"connected")
            run = TournamentRun(hall.url, broker.port, keys, tables, seed=3, code=hall.code)
            run.organise(players=12, fmt="groups_knockout", groups=3, advance=2, target=3, seed=5)
            r = run.play(timeout=240)
            t = r["tournament"]
            assert r["champion"] is not None, r
            group = [m for m in t["matches"] if m["stage"] == "group"]
            ko = [m for m in t["matches"] if m["stage"] == "knockout"]
            assert len(group) == 3 * 6 and all(m["status"] == "done" for m in group)
            assert all(m["status"] in ("done", "bye") for m in ko) and ko[-1]["winner"] == r["champion"]
            assert r["played"] == r["setups"] == r["done"] and r["refused"] == 0  # each match once, on one table
            assert {m["table"] for m in t["matches"] if m["status"] == "done"} <= set(tables)
            for g in t["standings"]:
                assert sum(row["played"] for row in g["rows"]) == 2 * 6
                assert sum(row["points"] for row in g["rows"]) == 2 * 6  # a win 2, a draw 1 each: 2 a match
            exported = hall.get("/tournament.json")
            assert exported["champion"] == r["champion"] and len(exported["matches"]) == r["matches"]
        finally:
            if run is not None:
                run.close()
            assert hall.stop() == 0
