"""The hall stopped at the worst moments: no result is lost, no table is left without its match.

`carom hall --db --keys --client-id` runs as a subprocess against a real mosquitto, which keeps
the hall's session while it is away; it is killed (SIGKILL) and started again on the same files
and client id, and the broker is the same throughout.

Just after a report (50 kills). One table plays a round robin: at each match's end its board
publishes the report, the hall is killed 0-5 ms after the broker has the report (the hall is then
receiving it, writing it to the tournament's database, or acknowledging it). The report must be in
the tournament: the hall acknowledges a report only after the database has it, so one it had not
finished with is sent again by the broker (and the database takes the same report once). Before
that, 5 of 23 such kills lost the result for good: the match stayed "playing" and the tournament
never ended.

During a draw (50 kills). 64 players in 4 groups (480 group matches, then a knock-out) on 8 tables;
each kill is in a draw of its own (a copy of the undrawn tournament, keys and a client id of its
own). The hall answers the organiser's POST once the draw is made (one transaction), a match is
assigned to each table (another) and each setup is signed, stored and published: about 25 ms
here, measured on two draws first. Every other kill falls in its own 25th of 1.4 times that
window (the last ones after the answer); the rest aim at the moment the draw is made (Aim: later
after a kill that found no draw, sooner after one that found it). Started again, the tournament is
drawn whole (each player seeded and in a group, each pairing of a group once, the knock-out) or
not at all, and is then drawn again; each of the 8 tables has its match's setup retained on the
broker, signed with its key; t1's match is then played, its result taken, and t1 gets its next
match. What the kills left (left_behind), in two runs: half of the aimed ones no draw, half a draw
with no table assigned yet; of the others, 5-7 the tables assigned but not every setup sent.

Between assigning a match to a table and sending its setup (50 kills or more). 9 players play a
round robin (36 matches) to its end on 3 tables. The hall assigns a table its next match
TOURNAMENT_EVERY_S after the report that ends its match (the hall killed then: after each match),
and a table its match while it answers the POST that adds it (two tables added during the
tournament, and one taken out and put back at every third kill). Each kill aims at the moment
between the assignment and the send (Aim: later after a kill that found the table without a match,
sooner after one that found its setup sent; 22 and 24 of 56 landed between in two runs). Started
again, every result is in the tournament, each table with a match has that match's setup on the
broker, signed with its key, and no table is free while a match could go to it.

A hall that stopped between assigning a match to a table and sending its setup (the tournament's
file says "assigned", the setups sent say nothing of it) sends it when it starts again (send_due:
without it both tests above fail); a table whose key `carom hall-key` replaced gets the setup of
its match again, signed with the new key (the old signature its board now refuses), once, and only
while its board has not taken it.
"""

import json
import random
import shutil
import signal
import threading
import time
import urllib.error
import urllib.request


from helpers import needs_mosquitto, running_mosquitto, wait_for
from tools.hall.loadgen import SimTable
from host_tools.hall.organiser import SentStore
from host_tools.hall.dashboard import TOURNAMENT_EVERY_S
from host_tools.hall.setups import Keys, SetupError, verify
from host_tools.hall.tournament import Tournament
from tools.run.hall import HallProc
from test_hall_organiser import HEADERS, LAG, TableBoard, retained_setup, retained_topics

KILLS = 50
CLIENT_ID = "carom-hall-kill-test"


def post(hall, action, body):
    headers = dict(HEADERS, **{"X-Carom-Organiser-Code": hall.code})
    req = urllib.request.Request(
        hall.url + "/api/organiser/" + action, data=json.dumps(body).encode(), headers=headers, method="POST"
    )
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def tournament(url):
    with urllib.request.urlopen(url + "/api/tournament", timeout=10) as r:
        return json.loads(r.read())


def next_setup(board, timeout=30):
    """The newest setup on the board's topic numbered above the one it applied last, verified with
    its key. Not always the next number: a hall killed between numbering a setup and storing it as
    sent numbers it again when it starts (setups.Keys.next_n: a number is never handed out twice)."""

    def newer():
        with board.got:
            payloads = [p for p, _ in board.payloads if p]
        return [doc for doc in (verify(board.key, p) for p in payloads) if doc["n"] > board.n]

    docs = wait_for(newer, bool, timeout, "%s's setup after %d" % (board.table, board.n))
    return max(docs, key=lambda doc: doc["n"])


def keyed_hall(tmp_path):
    """The hall keys' file in tmp_path, and the hall's arguments: its database in tmp_path, those
    keys: (Keys, args)."""
    keys = Keys(str(tmp_path / "hall-keys.json"))
    return keys, ("--db", str(tmp_path / "club.sqlite"), "--keys", keys.path, "--client-id", CLIENT_ID)


@needs_mosquitto
def test_a_hall_killed_just_after_a_report_loses_no_result(tmp_path):
    keys, args = keyed_hall(tmp_path)
    key = keys.new_key("t1")
    with running_mosquitto() as broker:
        hall = HallProc(broker.port, *args)
        board = TableBoard(broker.port, "t1", key)
        try:
            hall.wait_line(r"broker 127\.0\.0\.1:\d+ connected")
            post(
                hall,
                "configure",
                {"name": "Kill test", "format": "round_robin", "game_options": {"game": "three_cushion", "target": 2}},
            )
            post(hall, "players", {"players": [{"name": "Player %d" % i} for i in range(1, 12)]})  # 55 matches
            post(hall, "table", {"table": "t1"})
            post(hall, "draw", {})
            kills = 0
            n = 0
            while kills < KILLS:
                n += 1
                board.apply(next_setup(board))
                board.play(LAG)
                strokes = 0
                while not board.sim.finished():  # A's two points, B's equalizing inning missed
                    board.play(["point" if strokes % 3 < 2 else "miss"])  # (the report: at the last)
                    strokes += 1
                # the report is with the broker (play() waited for it): the hall is killed within 0-5 ms
                time.sleep((kills % 6) / 1000)
                hall.proc.send_signal(signal.SIGKILL)
                hall.proc.wait(timeout=10)
                kills += 1
                hall = HallProc(broker.port, *args)
                hall.wait_line(r"broker 127\.0\.0\.1:\d+ connected")
                done = wait_for(
                    lambda: sum(m["status"] == "done" for m in tournament(hall.url)["matches"]),
                    lambda k: k >= n,
                    30,
                    "match %d done after kill %d" % (n, kills),
                )
                assert done == n
        finally:
            board.close()
            hall.stop()


def signed(key, payload):
    try:
        verify(key, payload)
    except (SetupError, ValueError):
        return False
    return True


def organised(hall, players=4, name="Restart test"):
    """A round robin of `players` to 2 points drawn on table t1, through the organiser's API."""
    post(
        hall,
        "configure",
        {"name": name, "format": "round_robin", "game_options": {"game": "three_cushion", "target": 2}},
    )
    post(hall, "players", {"players": [{"name": "Player %d" % i} for i in range(1, players + 1)]})
    post(hall, "table", {"table": "t1"})
    post(hall, "draw", {})


def on_t1(url):
    return [m for m in tournament(url)["matches"] if m.get("table") == "t1" and m["status"] != "done"]


@needs_mosquitto
def test_a_match_assigned_but_never_sent_is_sent_when_the_hall_starts_again(tmp_path):
    keys, args = keyed_hall(tmp_path)
    key = keys.new_key("t1")
    db = str(tmp_path / "club.sqlite")
    with running_mosquitto() as broker:
        hall = HallProc(broker.port, *args)
        hall.wait_line(r"broker 127\.0\.0\.1:\d+ connected")
        organised(hall)
        first = verify(key, retained_setup(broker.port, "t1")[0])
        assigned = wait_for(lambda: on_t1(hall.url), lambda ms: len(ms) == 1, 30, "a match on t1")[0]
        hall.proc.send_signal(signal.SIGKILL)
        hall.proc.wait(timeout=10)
        # What a hall killed between the two leaves: the match assigned, nothing sent for it.
        store = SentStore(db)
        store.delete("t1")
        store.close()
        hall = HallProc(broker.port, *args)
        try:
            hall.wait_line(r"setup \d+ sent to t1", 30)
            doc = wait_for(
                lambda: verify(key, retained_setup(broker.port, "t1")[0]),
                lambda d: d["n"] > first["n"],
                30,
                "a new setup on t1",
            )
            assert doc["setup"] == first["setup"]  # the same match: the one assigned
            assert [m["id"] for m in on_t1(hall.url)] == [assigned["id"]]
        finally:
            hall.stop()


@needs_mosquitto
def test_a_re_keyed_table_gets_its_match_signed_with_the_new_key(tmp_path):
    keys, args = keyed_hall(tmp_path)
    old = keys.new_key("t1")
    with running_mosquitto() as broker:
        hall = HallProc(broker.port, *args)
        try:
            hall.wait_line(r"broker 127\.0\.0\.1:\d+ connected")
            organised(hall)
            sent = verify(old, retained_setup(broker.port, "t1")[0])
            hall.stop()
            new = Keys(keys.path).new_key("t1")  # carom hall-key: the board gets the new key
            hall = HallProc(broker.port, *args)
            hall.wait_line(r"setup \d+ sent to t1", 30)
            payload = wait_for(
                lambda: retained_setup(broker.port, "t1")[0],
                lambda p: signed(new, p),
                30,
                "t1's setup signed with the new key",
            )
            doc = verify(new, payload)  # the board with its new key takes it: the same match
            assert doc["setup"] == sent["setup"] and not signed(old, payload)
            hall.stop()
            hall = HallProc(broker.port, *args)  # once: a restart finds it signed with the key in force
            hall.wait_line(r"broker 127\.0\.0\.1:\d+ connected")
            post(hall, "configure", {"name": "Restart test"})  # the tournament's work runs before the answer
            assert verify(new, retained_setup(broker.port, "t1")[0])["n"] == doc["n"]
            assert not any("sent to t1" in line for line in hall.lines), hall.lines[-5:]
        finally:
            hall.stop()


# ---- killed at random moments, started again on the same files -----------------------------------

CONNECTED = r"broker 127\.0\.0\.1:\d+ connected"
ACTIVE = ("assigned", "waiting", "playing")  # a match that holds its table


def switched_on(board):
    """The board shows a lag with nothing played, of players no tournament has (it is free): its
    retained state has the hall look at its table as soon as it connects (else after SETTLE_S)."""
    board.sim = SimTable(board.table, target=2, names=("Nobody A", "Nobody B"), lag=True)
    board.publish()


def restarted(hall, port, args):
    """`carom hall` killed if it still runs, and started again on the same files and client id."""
    hall.kill()
    hall = HallProc(port, *args)
    hall.wait_line(CONNECTED)
    return hall


def timed_post(hall, action, body):
    """POST /api/organiser/<action> on a thread, for a kill while the hall handles it: (the thread,
    when it began, [the answer, or the OSError of a hall killed first]). A refusal fails the test."""
    out = []

    def send():
        try:
            out.append(post(hall, action, body))
        except urllib.error.HTTPError as e:
            out.append(AssertionError("%s refused: %d %s" % (action, e.code, e.read()[:200])))
        except OSError as e:
            out.append(e)

    thread = threading.Thread(target=send, daemon=True)
    start = time.monotonic()
    thread.start()
    return thread, start, out


def answered(thread, out):
    """Whether the POST on `thread` was answered before the kill (True) or not (False)."""
    thread.join(30)
    if isinstance(out[0], AssertionError):
        raise out[0]
    return not isinstance(out[0], OSError)


def kill_at(hall, moment):
    time.sleep(max(0.0, moment - time.monotonic()))
    hall.kill()


def left_behind(folder, table=None):
    """What the killed hall left in folder/club.sqlite, read from a copy as a hall starting again
    finds it: "undrawn"; "unassigned" (`table`, or every table, without a match); "unsent" (a table's
    match assigned, its setup not stored as sent: the hall was killed between the two); "sent"."""
    copy = folder / "left-behind"
    copy.mkdir(exist_ok=True)
    for end in ("", "-wal"):
        if (folder / ("club.sqlite" + end)).exists():
            shutil.copyfile(str(folder / ("club.sqlite" + end)), str(copy / ("club.sqlite" + end)))
    t, store = Tournament(str(copy / "club.sqlite")), SentStore(str(copy / "club.sqlite"))
    try:
        if not t.settings()["drawn"]:
            return "undrawn"
        sent = store.all()
        busy = {r["table"]: r["match"] for r in t.tables() if r["match"] is not None}
        if any(tb not in sent or str(sent[tb]["match"]) != str(m) for tb, m in busy.items()):
            return "unsent"
        return "sent" if (table in busy if table else busy) else "unassigned"
    finally:
        store.close()
        t.close()
        shutil.rmtree(str(copy))


def names(setup):
    return [setup["setup"]["players"][p]["name"] for p in "AB"]


def settled(port, url, keys, what):
    """Wait until no table is stuck: each table with a match has that match's setup retained on the
    broker, signed with the table's key, and no table is without a match while one could go to it
    (a match pending with both players known, neither of them on a table). Returns (the
    tournament's document, {table: its signed setup})."""
    seen = {}

    def stuck():
        doc = tournament(url)
        matches = {m["id"]: m for m in doc["matches"]}
        busy = {n for m in doc["matches"] if m["status"] in ACTIVE for n in (m["name_A"], m["name_B"])}
        could = [
            m["id"]
            for m in doc["matches"]
            if m["status"] == "pending" and m["name_A"] and m["name_B"] and not {m["name_A"], m["name_B"]} & busy
        ]
        tables = {r["table"]: r["match"] for r in doc["tables"]}
        got = retained_topics(port, ["carom/%s/setup" % t for t in tables])
        setups, wrong = {}, []
        for table, match_id in tables.items():
            if match_id is None:
                if could:
                    wrong.append("%s has no match, match %d could go there" % (table, could[0]))
                continue
            m = matches[match_id]
            payload = got.get("carom/%s/setup" % table)
            setups[table] = verify(keys[table], payload) if payload and signed(keys[table], payload) else None
            if setups[table] is None or names(setups[table]) != [m["name_A"], m["name_B"]]:
                wrong.append("%s: match %d %s, its setup not on the broker" % (table, match_id, m["status"]))
        seen.update(doc=doc, setups=setups)
        return wrong

    wait_for(stuck, [], 30, what)
    return seen["doc"], seen["setups"]


def on_table(doc, table):
    """The id of the match on `table`, None if it has none (or is not one of the tournament's)."""
    return next((r["match"] for r in doc["tables"] if r["table"] == table), None)


def players(doc, match_id):
    return next([m["name_A"], m["name_B"]] for m in doc["matches"] if m["id"] == match_id)


def status(doc, match_id):
    return next(m["status"] for m in doc["matches"] if m["id"] == match_id)


def play_out(board, setup, hall=None):
    """The board takes its setup and plays the match to its end (A's two points, B's equalizing
    inning missed): its report is with the broker when this returns. With `hall`, the last stroke
    waits until the hall shows the match playing: it has handled the states of the lag and the
    first strokes, so its next look at the tournament comes TOURNAMENT_EVERY_S after the finished
    match's state, which goes out with the report."""
    board.apply(setup)
    board.play(LAG + ["point", "point"])
    if hall is not None:
        wait_for(
            lambda: [
                m["status"]
                for m in tournament(hall.url)["matches"]
                if m["table"] == board.table and m["status"] in ACTIVE
            ],
            ["playing"],
            30,
            "%s's match playing" % board.table,
        )
    board.play(["miss"])
    assert board.sim.finished()


SPREAD_S = 0.005  # an aimed kill: at a random moment within this much after its aim


class Aim:
    """When to kill after a trigger, to hit a moment the test cannot see from outside: at random
    within SPREAD_S after `at`, which moves a little later after a kill that came too early and a
    little sooner after one that came too late; so the kills keep about the moment, on a slow or
    busy machine too."""

    def __init__(self, at=0.0):
        self.at = at

    def offset(self, rng):
        return self.at + rng.uniform(0, SPREAD_S)

    def learn(self, early, late):
        if early:
            self.at += SPREAD_S / 5
        elif late:
            self.at = max(0.0, self.at - SPREAD_S / 5)


# ---- during a draw -------------------------------------------------------------------------------

DRAW_PLAYERS = 64
DRAW_GROUPS = 4  # of 16: 480 group matches, then a knock-out of each group's first two (7 matches)
DRAW_TABLES = ("t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8")


def drawn_whole(doc, what):
    """Whether the tournament is drawn; AssertionError (`what` and why) if it is drawn in part: seeds,
    groups or matches without the draw, or a draw without a seed and a group for each player, each
    pairing of a group once, and the knock-out."""
    people = doc["players"]
    if not doc["settings"]["drawn"]:
        assert doc["matches"] == [] and all(p["seed"] is None and p["group"] is None for p in people), (
            "%s: half a draw: not drawn, but %d matches, seeds %s"
            % (what, len(doc["matches"]), [p["seed"] for p in people])
        )
        return False
    groups = {}
    for p in people:
        groups.setdefault(p["group"], []).append(p["name"])
    every = sorted((g, a, b) for g, members in groups.items() for a in members for b in members if a < b)
    pairs = sorted((m["group"], *sorted((m["name_A"], m["name_B"]))) for m in doc["matches"] if m["stage"] == "group")
    knockout = [m for m in doc["matches"] if m["stage"] == "knockout"]
    assert sorted(p["seed"] for p in people) == list(range(1, DRAW_PLAYERS + 1)), "%s: half a draw: the seeds" % what
    assert sorted(groups) == list("ABCD") and {len(g) for g in groups.values()} == {16}, (
        "%s: half a draw: the groups" % what
    )
    assert pairs == every, "%s: half a draw: %d group matches of %d" % (what, len(pairs), len(every))
    assert len(knockout) == 2 * DRAW_GROUPS - 1, "%s: half a draw: %d knock-out matches" % (what, len(knockout))
    return True


@needs_mosquitto
def test_a_hall_killed_during_a_draw_leaves_it_whole_or_not_made(tmp_path):
    template = tmp_path / "undrawn.sqlite"
    t = Tournament(str(template))
    t.configure(
        name="Draw kill test",
        format="groups_knockout",
        groups=DRAW_GROUPS,
        advance=2,
        game_options={"game": "three_cushion", "target": 2},
    )
    for i in range(1, DRAW_PLAYERS + 1):
        t.add_player("Player %d" % i)
    for table in DRAW_TABLES:
        t.add_table(table)
    t.close()
    rng = random.Random()
    left = {}  # kill -> what it left (left_behind)
    with running_mosquitto() as broker:
        boards = [TableBoard(broker.port, table, None) for table in DRAW_TABLES]
        t1 = boards[0]
        hall = None

        def run(k):
            """The k-th draw: the undrawn tournament, keys of its own (a setup an earlier run left on
            the broker fails them), a client id of its own; `carom hall` started on them."""
            folder = tmp_path / ("run%d" % k)
            folder.mkdir()
            shutil.copyfile(str(template), str(folder / "club.sqlite"))
            keys = Keys(str(folder / "hall-keys.json"))
            key = {table: keys.new_key(table) for table in DRAW_TABLES}
            with t1.got:
                t1.payloads[:] = []  # (signed with an earlier run's key)
            t1.key = key["t1"]
            args = ("--db", str(folder / "club.sqlite"), "--keys", keys.path, "--client-id", "%s-%d" % (CLIENT_ID, k))
            h = HallProc(broker.port, *args)
            h.wait_line(CONNECTED)
            return h, folder, key, args

        try:
            for board in boards:
                switched_on(board)
            # The window: from the POST to its answer (the draw made, a match for each table, its setup
            # signed, stored and published), on two draws not killed.
            took = []
            for k in (-2, -1):
                hall, folder, key, args = run(k)
                thread, start, out = timed_post(hall, "draw", {})
                assert answered(thread, out)
                took.append(time.monotonic() - start)
                settled(broker.port, hall.url, key, "the setups of an undisturbed draw")
                hall.kill()
            window = min(took)
            aim = Aim()  # the moment the draw is made (its transaction commits)
            for k in range(KILLS):
                hall, folder, key, args = run(k)
                if k % 2:
                    offset = aim.offset(rng)
                else:  # one in each 25th of 1.4 windows (the last ones after the answer)
                    offset = (k // 2 + rng.random()) / (KILLS // 2) * 1.4 * window
                thread, start, out = timed_post(hall, "draw", {})
                kill_at(hall, start + offset)
                answered(thread, out)
                left[k] = left_behind(folder)
                if k % 2:
                    aim.learn(early=left[k] == "undrawn", late=left[k] != "undrawn")
                what = "kill %d, %.1f ms into a draw answered in %.1f ms (%s)" % (
                    k,
                    1000 * offset,
                    1000 * window,
                    left[k],
                )
                hall = restarted(hall, broker.port, args)
                if not drawn_whole(tournament(hall.url), what):
                    assert post(hall, "draw", {}) == {"ok": True}, what  # the organiser draws again
                    assert drawn_whole(tournament(hall.url), what), what
                doc, setups = settled(broker.port, hall.url, key, what)
                assert sorted(setups) == list(DRAW_TABLES), what
                # ... and it goes on: t1's match is played, its result taken, t1 gets its next match.
                first = on_table(doc, "t1")
                play_out(t1, setups["t1"])
                after = next_setup(t1)
                doc = tournament(hall.url)
                assert status(doc, first) == "done", what
                assert names(after) == players(doc, on_table(doc, "t1")), what
                hall.kill()
            aimed = {left[k] for k in left if k % 2}
            assert "undrawn" in aimed and aimed != {"undrawn"}, left  # kills just before the draw was made, and after
        finally:
            for board in boards:
                board.close()
            if hall is not None:
                hall.kill()


# ---- between assigning a match and sending its setup ---------------------------------------------

RUN_PLAYERS = 9  # a round robin of 36 matches
RUN_TABLES = ("t1", "t2", "t3")


@needs_mosquitto
def test_a_hall_killed_between_assigning_a_match_and_sending_it_leaves_no_table_without_it(tmp_path):
    keys, args = keyed_hall(tmp_path)
    key = {table: keys.new_key(table) for table in RUN_TABLES}
    rng = random.Random()
    aims = {"report": Aim(TOURNAMENT_EVERY_S), "table": Aim()}
    left = []  # (trigger, the kill's offset in ms, what it left)
    with running_mosquitto() as broker:
        boards = {table: TableBoard(broker.port, table, key[table]) for table in RUN_TABLES}
        hall = HallProc(broker.port, *args)
        played = 0

        def killed(trigger, table, start):
            """The hall killed at the trigger's aim after `start`, started again: every result in the
            tournament, no table stuck. (document, setups) as settled()."""
            nonlocal hall
            offset = aims[trigger].offset(rng)
            kill_at(hall, start + offset)
            left.append((trigger, round(offset * 1000, 1), left_behind(tmp_path, table)))
            aims[trigger].learn(early=left[-1][2] == "unassigned", late=left[-1][2] == "sent")
            what = "kill %d: %s %s, %.1f ms (%s)" % (len(left), trigger, table, offset * 1000, left[-1][2])
            hall = restarted(hall, broker.port, args)
            wait_for(
                lambda: sum(m["status"] == "done" for m in tournament(hall.url)["matches"]),
                played,
                30,
                what + ": every result",
            )
            return settled(broker.port, hall.url, key, what)

        def added(table):
            """The table added, killed while the hall answers (it gives the table a match and sends
            it); added again when the kill came first (the POST was not answered)."""
            thread, start, out = timed_post(hall, "table", {"table": table})
            doc, setups = killed("table", table, start)
            if not answered(thread, out) and table not in [r["table"] for r in doc["tables"]]:
                post(hall, "table", {"table": table})
                doc, setups = settled(broker.port, hall.url, key, "%s added again" % table)
            return doc, setups

        try:
            hall.wait_line(CONNECTED)
            for board in boards.values():
                switched_on(board)
            organised(hall, RUN_PLAYERS, "Kill test")
            doc, setups = settled(broker.port, hall.url, key, "t1's setup")
            for table in RUN_TABLES[1:]:  # tables added while the tournament runs
                doc, setups = added(table)
            while True:
                busy = [table for table in RUN_TABLES if on_table(doc, table) is not None]
                if not busy:
                    break
                table = rng.choice(busy)
                if len(left) % 3 == 2:  # the table taken out (its match waits again) and put back
                    post(hall, "untable", {"table": table})
                    doc, setups = added(table)
                    continue
                play_out(boards[table], setups[table], hall)  # the hall gives the table its next match
                played += 1
                doc, setups = killed("report", table, time.monotonic())
            assert played == RUN_PLAYERS * (RUN_PLAYERS - 1) // 2
            assert all(m["status"] == "done" for m in doc["matches"])
            assert len(left) >= KILLS and "unsent" in [kind for _, _, kind in left], left
        finally:
            for board in boards.values():
                board.close()
            hall.kill()
