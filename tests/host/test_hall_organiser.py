"""The organiser's page: a tournament from the players to the standings, driven as a person would.

`carom hall --db FILE --keys FILE` runs as a subprocess against a real mosquitto; the organiser's
page is Debian's Chromium.  The boards are played by paho clients: each takes its table's setup
topic as a board does (the retained payload checked with the table's key: setups.verify), and
publishes real state documents and reports (made by the firmware's own modules: loadgen.SimTable)
with the state document's "setup" key ({"n", "waiting"}) as firmware/publisher_hall.py reports it.

Hostile requests: an oversized body, another Origin, another Host, no X-Carom-Hall header, another
content type, bad JSON, bad fields (each refused with a message naming the field), names with HTML
(shown as text on every page and in the printable export).  The tables' keys never appear in a page,
an event, an export or the hall's output.
"""

import json
import os
import socket
import threading
import urllib.error
import urllib.request

import paho.mqtt.client as paho
import pytest

from helpers import needs_mosquitto, running_mosquitto
from helpers import wait_for as _wait_for
from host_tools.hall import organiser as org
from tools.hall.loadgen import Board, SimTable
from host_tools.hall.setups import Keys, verify
from tools.hall.tourneyrun import match_options
from tools.run.mosquitto import available
from tools.run.hall import HallProc, Page, organiser_page


def wait_for(fn, expected, timeout=30.0, what=""):
    """helpers.wait_for with room for a loaded machine (other suites running): a bound, not a pause."""
    return _wait_for(fn, expected, timeout, what)


HEADERS = {"Content-Type": "application/json", "X-Carom-Hall": "organiser"}
LAG = ["lag A", "choose A break"]  # the lag: A wins it and breaks
HTML_NAME = "<img src=x onerror=f()>"  # 23 characters: a name a board takes (24 at most)


# ---- the checks, without a hall ------------------------------------------------------------------


def refused(fn, body, words):
    with pytest.raises(org.Refused) as e:
        fn(body)
    assert words in str(e.value), str(e.value)
    return str(e.value)


def test_every_field_is_checked():
    assert org.check_player({"name": " Anna ", "club": "BC", "target": 30}) == {
        "name": "Anna",
        "club": "BC",
        "target": 30,
        "average": None,
    }
    assert org.check_player({"name": HTML_NAME})["name"] == HTML_NAME  # text is text: the pages escape it
    refused(org.check_player, {"name": ""}, "player.name is empty")
    refused(org.check_player, {"name": "x" * 25}, "player.name is 25 characters long: at most 24")
    refused(org.check_player, {"name": "a\nb"}, "control character")
    refused(org.check_player, {"name": 5}, "player.name must be a text")
    refused(org.check_player, {"name": "A", "target": 0}, "player.target must be a whole number 1..9999")
    refused(org.check_player, {"name": "A", "target": True}, "player.target")
    refused(org.check_player, {"name": "A", "average": float("inf")}, "player.average")
    refused(org.check_player, {"name": "A", "target": 20, "average": 0.8}, "not both")
    refused(org.check_player, {"name": "A", "password": "x"}, 'unknown field "password"')
    refused(org.check_player, ["A"], "must be a JSON object")
    refused(org.check_players, {"players": []}, "players must be a list of 1..256 players")
    refused(org.check_players, {"players": [{"name": "A"}, {"name": ""}]}, "players[1].name is empty")
    good = {
        "format": "groups_knockout",
        "groups": 2,
        "advance": 2,
        "game_options": {
            "game": "three_cushion",
            "target": 20,
            "sets": 2,
            "deciding_target": 10,
            "shootout": True,
            "warmup_s": 120,
        },
    }
    assert org.check_configure(good)["game_options"]["deciding_target"] == 10
    assert org.check_configure({"name": " Final day "}) == {"name": "Final day"}  # only what is given changes
    refused(org.check_configure, dict(good, format="swiss"), "format must be one of round_robin, knockout")
    refused(org.check_configure, dict(good, groups=0), "groups must be a whole number 1..26")
    refused(org.check_configure, dict(good, game_options={"target": 0}), "game_options: target: 0 is not in 1..9999")
    refused(org.check_configure, dict(good, game_options={"game": "snooker"}), "game_options: game")
    refused(org.check_configure, dict(good, game_options={"deciding_target": 5}), "goes with match.sets")
    refused(org.check_configure, dict(good, game_options={"target_A": 5}), 'unknown option "target_A"')
    refused(org.check_configure, dict(good, game_options={"warmup_s": 901}), "warmup_s")
    refused(org.check_table, {"table": "T 1"}, "table must be a board's table id")
    refused(org.check_table, {"table": "t1/x"}, "table must be")
    refused(org.check_view, {"view": "ads"}, "view must be one of tables, standings, bracket")
    assert org.check_decide({"match": 3, "winner": "B"}) == (3, "B")
    refused(org.check_decide, {"match": 3, "winner": "Anna"}, "winner must be A or B")
    refused(org.check_decide, {"match": "3", "winner": "A"}, "match must be a whole number")
    refused(org.check_draw, {"seed": "x"}, "seed must be a whole number")


def test_which_boards_are_free():
    """As the board decides (firmware/publisher.py free()): the lag with nothing done, or finished."""
    assert org.board_free(None)  # never heard of: it gets its setup when it comes back (retained)
    t = SimTable("t2", target=3, names=("A", "B"), lag=True)
    assert t.doc()["phase"] == "lag" and org.board_free(t.doc())
    t.line("lag A")
    assert t.doc()["phase"] == "lag" and not org.board_free(t.doc())  # the lag under way
    for line in LAG[1:] + ["point", "point", "point"]:
        t.line(line)
        assert not org.board_free(t.doc())
    t.line("miss")
    assert t.doc()["phase"] == "finished" and org.board_free(t.doc())
    started = SimTable("t1", target=3, names=("Anna Kovacs", "Bela Nagy"))  # breaker=A: running, nothing scored
    assert started.doc()["phase"] == "running" and not org.board_free(started.doc())


def test_a_post_under_another_host_is_refused():
    """With --listen 0.0.0.0 any Host reaches the server; a POST still needs an address, localhost or
    this machine's name: a DNS name of another site pointing at the hall (rebinding) is refused."""
    from host_tools.hall.routes import Server

    s = Server.__new__(Server)
    s.names = {socket.gethostname().lower()}
    for host in ("192.168.1.20:8090", "[::1]:8090", "localhost:8090", socket.gethostname() + ":8090", "10.0.0.1"):
        assert s.post_host_ok({"host": host}), host
    for host in ("evil.example:8090", "hall.attacker.net", "", "[bad"):
        assert not s.post_host_ok({"host": host}), host


# ---- a hall, its boards, a person at the organiser's page ------------------------------------------


def post(hall, action, body, headers=HEADERS, raw=None):
    """POST /api/organiser/<action>: (status, answer)."""
    data = raw if raw is not None else json.dumps(body).encode()
    headers = dict(headers)
    headers.setdefault("X-Carom-Organiser-Code", hall.code)  # a script signs in with the code itself
    req = urllib.request.Request(hall.url + "/api/organiser/" + action, data=data, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


class TableBoard:
    """A board at one table: takes its setup topic (each payload checked with the table's key, as
    firmware/publisher_hall.py does), plays the match it was sent, publishes its state and its report."""

    def __init__(self, port, table, key):
        self.table = table
        self.payloads = []
        self.got = threading.Condition()
        self.n = 0  # the last setup applied
        self.sim = None
        self.board = Board("127.0.0.1", port, table, key=key).wait()
        c = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id="carom-test-setup-" + table)
        c.on_message = self._message
        c.on_connect = lambda cl, *a: cl.subscribe("carom/%s/setup" % table, 1)
        c.connect("127.0.0.1", port, 30)
        c.loop_start()
        self.sub = c

    @property
    def key(self):
        """The table's hall key: setups are checked with it, reports signed with it."""
        return self.board.key

    @key.setter
    def key(self, key):
        self.board.key = key

    def _message(self, client, userdata, msg):
        with self.got:
            self.payloads.append((msg.payload, msg.retain))
            self.got.notify_all()

    def setup(self, n, timeout=30):
        """The setup numbered n, verified with the table's key (a forged one raises)."""

        def have():
            docs = [verify(self.key, p) for p, _ in self.payloads if p]
            return [d for d in docs if d["n"] == n]

        got = wait_for(have, lambda d: len(d) >= 1, timeout, "%s's setup %d" % (self.table, n))
        assert got[0]["table"] == self.table
        return got[0]

    def publish(self, waiting=None):
        doc = self.sim.doc()
        doc["setup"] = {"n": self.n, "waiting": waiting}
        self.board.state(doc)
        return doc

    def apply(self, doc):
        """The setup shows on the board: its players in the lag (A breaks), its n reported."""
        setup = doc["setup"]
        match = setup["match"]
        names = (setup["players"]["A"]["name"], setup["players"]["B"]["name"])
        self.sim = SimTable(self.table, target=match["target"], names=names, options=match_options(match), lag=True)
        self.sim.started_at += 60 * doc["n"]  # each match its own start on the board's clock
        self.n = doc["n"]
        return self.publish()

    def play(self, lines):
        for line in lines:
            assert self.sim.line(line) is None, line
            self.publish()
        if self.sim.finished():
            self.board.report(self.sim.report_doc()).wait_for_publish(5)

    def close(self):
        self.sub.disconnect()  # before loop_stop, as in retained_setup
        self.sub.loop_stop()
        self.board.close()


@pytest.fixture
def tourney(tmp_path):
    """A mosquitto, a hall with a tournament file and a key file for tables t1..t4, boards on demand."""
    if not available():
        pytest.skip("mosquitto is not installed")
    keys_path = str(tmp_path / "hall-keys.json")
    keys = Keys(keys_path)
    secrets = {t: keys.new_key(t) for t in ("t1", "t2", "t3", "t4")}
    with running_mosquitto() as broker:
        hall = HallProc(broker.port, "--db", str(tmp_path / "club.sqlite"), "--keys", keys_path)
        made = []

        def board(table):
            b = TableBoard(broker.port, table, secrets[table])
            made.append(b)
            return b

        try:
            hall.wait_line(r"broker 127\.0\.0\.1:\d+ connected")
            yield hall, board, secrets, broker
        finally:
            for b in made:
                b.close()
            hall.stop_keeping_secrets(secrets)  # a key never in the hall's output


def retained_setup(port, table, timeout=10):
    """What a board switched on now gets on its setup topic: (payload, retained)."""
    got = []
    done = threading.Event()
    c = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id="carom-test-late-" + table)
    c.on_connect = lambda cl, *a: cl.subscribe("carom/%s/setup" % table, 1)
    c.on_message = lambda cl, u, m: (got.append((m.payload, m.retain)), done.set())
    c.connect("127.0.0.1", port, 30)
    c.loop_start()
    try:
        assert done.wait(timeout), "no retained setup for %s" % table
        return got[0]
    finally:
        c.disconnect()  # first: paho's thread ends at once (stopped first, it may wait a second)
        c.loop_stop()


def retained_topics(port, topics, timeout=10):
    """{topic: payload} of the retained messages on `topics`, read up to a retained sentinel published
    first (the broker sends each subscription's retained messages in order)."""
    got, done = {}, threading.Event()
    c = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id="carom-test-retained")

    def message(cl, u, m):
        if m.topic == "carom-test/sentinel":
            done.set()
        elif m.payload:
            got[m.topic] = m.payload

    c.on_message = message
    c.on_connect = lambda cl, *a: cl.subscribe([(t, 1) for t in topics] + [("carom-test/sentinel", 1)])
    c.connect("127.0.0.1", port, 30)
    c.loop_start()
    try:
        c.publish("carom-test/sentinel", b"1", qos=1, retain=True).wait_for_publish(5)
        assert done.wait(timeout), "no sentinel"
        return got
    finally:
        c.disconnect()
        c.loop_stop()


def shown(page, selector):
    return page.page.evaluate("(s) => [...document.querySelectorAll(s)].map(e => e.textContent)", selector)


def setup_cell(page, table):
    return page.page.evaluate(
        "(t) => { const r = document.querySelector('#tables tr[data-table=\"' + t + '\"]');"
        " return r ? r.dataset.setup : null; }",
        table,
    )


def standing(page):
    """{name: points} from the organiser's standings."""
    rows = page.page.evaluate("""() => [...document.querySelectorAll('#standings tbody tr')].map(
        tr => [tr.querySelector('.name').textContent, tr.querySelector('.points').textContent])""")
    return {n: int(p) for n, p in rows}


@needs_mosquitto
def test_a_round_robin_from_the_page_to_the_standings(tourney, browser):
    hall, board, secrets, broker = tourney
    page = organiser_page(browser, hall)
    tv = Page(browser, hall.url)
    pg = page.page
    # The tournament: a round robin of four, three-cushion to 3.
    pg.fill("#configure [name=name]", "Club day <b>1</b>")
    pg.select_option("#configure [name=format]", "round_robin")
    pg.fill("#configure [name=groups]", "1")
    pg.fill("#configure [name=target]", "3")
    pg.click("#configure button[type=submit]")
    wait_for(lambda: hall.get("/api/tournament")["settings"]["game_options"].get("target"), 3, what="the game saved")
    players = [("Anna Kovacs", "BC Pest"), ("Bela Nagy", "BC Buda"), ("Csaba Toth", ""), (HTML_NAME, "<i>club</i>")]
    for name, club in players:
        pg.fill("#add-player [name=name]", name)
        pg.fill("#add-player [name=club]", club)
        pg.click("#add-player button[type=submit]")
        wait_for(lambda: name in shown(page, "#players .name"), True, what="%s on the page" % name)
    assert shown(page, "#players .name") == [n for n, _ in players]
    other = organiser_page(browser, hall)  # a second organiser's page sees the same tournament, and its changes
    assert shown(other, "#players .name") == [n for n, _ in players]
    assert pg.evaluate("document.querySelectorAll('img').length") == 0  # the HTML name is text
    # A field the server refuses: its message on the page.
    pg.fill("#add-player [name=name]", "Dora")
    pg.fill("#add-player [name=target]", "20")
    pg.fill("#add-player [name=average]", "0.8")
    pg.click("#add-player button[type=submit]")
    pg.wait_for_selector("#error:not([hidden])")
    assert "not both" in pg.text_content("#error")
    pg.fill("#add-player [name=name]", "")
    pg.fill("#add-player [name=target]", "")
    pg.fill("#add-player [name=average]", "")
    for table in ("t1", "t2"):
        pg.fill("#add-table [name=table]", table)
        pg.press("#add-table [name=table]", "Enter")
        pg.wait_for_selector('#tables tr[data-table="%s"]' % table)
    wait_for(lambda: shown(other, "#tables .table"), ["t1", "t2"], what="the tables on the other page")
    b1, b2 = board("t1"), board("t2")
    pg.click("#draw")
    # The hall sends t1 and t2 their first matches: retained, signed with each table's key.
    s1, s2 = b1.setup(1), b2.setup(1)
    pairs = {tuple(sorted((s["setup"]["players"]["A"]["name"], s["setup"]["players"]["B"]["name"]))) for s in (s1, s2)}
    assert len({n for p in pairs for n in p}) == 4  # two matches, four different players
    assert s1["setup"]["match"]["target"] == 3 and s1["setup"]["match"]["game"] == "three_cushion"
    for table in ("t1", "t2"):
        wait_for(lambda: setup_cell(page, table), "sent", what="%s: sent" % table)
    # A board offline when it was sent gets it from the broker when it comes: the retained copy.
    payload, retained = retained_setup(broker.port, "t1")
    assert retained and verify(secrets["t1"], payload) == s1
    # Forged: another key's HMAC does not verify.
    with pytest.raises(ValueError):
        verify(secrets["t3"], b1.payloads[-1][0])
    # The boards show the pairings (the lag); t1 plays, t2 ends level (a draw stands in a round robin).
    b1.apply(s1)
    b2.apply(s2)
    wait_for(lambda: setup_cell(page, "t1"), "ready", what="t1: on the table")
    b1.play(LAG + ["point"])
    wait_for(lambda: setup_cell(page, "t1"), "playing", what="t1: playing")
    a1, b1name = s1["setup"]["players"]["A"]["name"], s1["setup"]["players"]["B"]["name"]
    wait_for(
        lambda: pg.text_content('#tables tr[data-table="t1"] td.board'),
        "online, running: %s – %s 1:0" % (a1, b1name),
        what="t1's board as it stands",
    )
    # A stranger on the (anonymous) broker reports t1's match as won by B, unsigned and signed with
    # another table's key: both dropped by the hall, the match goes on.
    forged = SimTable(
        "t1",
        target=s1["setup"]["match"]["target"],
        names=(a1, b1name),
        options=match_options(s1["setup"]["match"]),
        lag=True,
    )
    forged.started_at = b1.sim.started_at
    for line in LAG + ["miss", "point", "point", "point"]:
        assert forged.line(line) is None, line
    assert forged.report_doc()["result"] == "B"
    stranger = Board("127.0.0.1", broker.port, "t1", client_id="stranger").wait()
    stranger.report(forged.report_doc()).wait_for_publish(5)
    stranger.key = secrets["t2"]
    stranger.report(forged.report_doc()).wait_for_publish(5)
    stranger.close()
    wait_for(
        lambda: hall.get("/api/tables")["counts"]["dropped"],
        lambda d: d.get("unsigned") == 1 and d.get("signature") == 1,
        what="the forged reports dropped",
    )
    assert setup_cell(page, "t1") == "playing" and set(standing(page).values()) <= {0}
    b1.play(["point", "point", "miss"])  # A runs 3; B misses his equalizing inning
    b2.play(LAG + ["point"] * 6)  # A 3, B equalizes 3
    winner = s1["setup"]["players"]["A"]["name"]
    wait_for(lambda: standing(page).get(winner), 2, what="the winner's 2 points")
    pts = wait_for(lambda: standing(page), lambda d: sorted(d.values()) == [0, 1, 1, 2], what="the draw's points")
    assert pts[winner] == 2
    wait_for(lambda: standing(other), pts, what="the same standings on the other page")
    other.close()
    # The next round goes to the tables by itself; t1's board still shows its finished match for a
    # while (it holds the setup waiting), then applies it.
    n2 = b1.setup(2)
    assert {n2["setup"]["players"][p]["name"] for p in "AB"} != {s1["setup"]["players"][p]["name"] for p in "AB"}
    b1.publish(waiting=2)
    wait_for(lambda: setup_cell(page, "t1"), "waiting", what="t1: waiting")
    b1.apply(n2)
    wait_for(lambda: setup_cell(page, "t1"), "ready", what="t1: the next match on the table")
    # The standings on the TV, switched from the organiser's page; the results strip has both results.
    pg.click('#tv button[data-view="standings"]')
    tv.page.wait_for_selector("body[data-view=standings] #standings-view .group")
    names = tv.page.evaluate(
        "[...document.querySelectorAll('#standings-view td.n')].map(e => e.firstChild.textContent)"
    )
    assert names[0] == winner and HTML_NAME in names and len(names) == 4
    assert tv.page.evaluate("document.querySelectorAll('img').length") == 0
    strip = tv.page.evaluate("[...document.querySelectorAll('#strip-items .strip-item')].map(e => e.textContent)")
    assert len(strip) == 2 and any(winner in s for s in strip)
    pg.click('#tv button[data-view="tables"]')
    tv.page.wait_for_selector("body[data-view=tables]")
    # Exports: CSV, JSON, printable HTML, linked from the page.
    assert pg.get_attribute("#export-csv", "href") == "/tournament.csv"
    csv_text, headers = hall.get("/tournament.csv", raw=True)
    assert "attachment" in headers["Content-Disposition"] and winner in csv_text.decode("utf-8-sig")
    exported = hall.get("/tournament.json")
    assert [r["name"] for r in exported["standings"][0]["rows"]][0] == winner
    printable, headers = hall.get("/tournament.html", raw=True)
    assert headers["Content-Type"] == "text/html; charset=utf-8"
    assert b"&lt;img src=x onerror=f()&gt;" in printable and HTML_NAME.encode() not in printable
    # After the draw only the name changes.
    pg.fill("#configure [name=name]", "Club day, final")
    pg.click("#configure button[type=submit]")
    wait_for(lambda: pg.text_content("#title"), "Club day, final", what="the new name on the page")
    assert pg.is_disabled("#configure [name=target]") and pg.is_disabled("#draw")
    # Nothing shows a key: not the page, the API, the exports, the event stream's snapshot.
    seen = [
        pg.content(),
        tv.page.content(),
        json.dumps(hall.get("/api/tournament")),
        csv_text.decode("utf-8-sig"),
        json.dumps(exported),
        printable.decode(),
    ]
    for key in secrets.values():
        assert not any(key in s for s in seen)
    page.close()
    tv.close()


@needs_mosquitto
def test_a_knockout_moves_on_by_itself_shootout_included(tourney, browser):
    """Four players, a knock-out on two tables: the semi-finals go out, their winners meet in the
    final on the first free table, decided by a shoot-out; the bracket on the page and the TV."""
    hall, board, secrets, broker = tourney
    assert post(hall, "configure", {"format": "knockout", "game_options": {"target": 3}}) == (200, {"ok": True})
    assert post(hall, "players", {"players": [{"name": n} for n in ("Anna", "Bela", "Csaba", "Dora")]})[0] == 200
    for t in ("t1", "t2"):
        assert post(hall, "table", {"table": t})[0] == 200
    b1, b2 = board("t1"), board("t2")
    page = organiser_page(browser, hall)
    tv = Page(browser, hall.url)
    assert post(hall, "draw", {}) == (200, {"ok": True})
    status, answer = post(hall, "configure", {"format": "round_robin"})
    assert status == 409 and "the draw is made" in answer["error"]
    status, answer = post(hall, "players", {"name": "Late Comer"})
    assert status == 409 and "no more players" in answer["error"]
    s1, s2 = b1.setup(1), b2.setup(1)
    for s in (s1, s2):  # a knock-out match needs a winner
        assert s["setup"]["match"]["draw"] is False and s["setup"]["match"]["shootout"] is True
    b1.apply(s1)
    b2.apply(s2)
    b1.play(LAG + ["point"] * 3 + ["miss"])  # A wins
    b2.play(LAG + ["miss", "point", "point", "point"])  # B runs 3 in his first inning: the innings are level
    w1 = s1["setup"]["players"]["A"]["name"]
    w2 = s2["setup"]["players"]["B"]["name"]
    final = wait_for(
        lambda: [d for b in (b1, b2) for d in [verify(b.key, p) for p, _ in b.payloads if p] if d["n"] == 2],
        lambda f: len(f) == 1,
        what="the final, on one table",
    )[0]
    fb = b1 if final["table"] == "t1" else b2
    assert {final["setup"]["players"][p]["name"] for p in "AB"} == {w1, w2}
    fb.apply(final)
    fb.play(LAG + ["point"] * 6 + ["point", "point", "miss", "point", "miss"])  # 3:3, shoot-out 2:1 for A
    champion = final["setup"]["players"]["A"]["name"]
    wait_for(lambda: hall.get("/api/tournament")["champion"], champion, what="the champion")
    pg = page.page
    pg.wait_for_selector(".champion")
    assert pg.text_content(".champion") == "Winner: " + champion
    rounds = pg.evaluate(
        "[...document.querySelectorAll('#bracket .b-round')].map(r => r.querySelector('h2').textContent)"
    )
    assert len(rounds) == 2
    assert (
        pg.evaluate("[...document.querySelectorAll('#bracket .b-round')].pop().querySelector('.w span').textContent")
        == champion
    )
    assert post(hall, "view", {"view": "bracket"}) == (200, {"view": "bracket"})
    tv.page.wait_for_selector("body[data-view=bracket] #bracket-view .b-round")
    assert (
        tv.page.evaluate("document.querySelector('#bracket-view .b-round:last-child .w span').textContent") == champion
    )
    # One drawing (bracket.js): the TV shows the bracket the organiser sees, line by line.
    lines = "[...document.querySelectorAll('%s .b-match > div')].map(d => [d.className, d.textContent])"
    assert tv.page.evaluate(lines % "#bracket-view") == pg.evaluate(lines % "#bracket") != []
    report = [m for m in hall.get("/api/tournament")["matches"] if m["round"] == 2][0]
    assert report["ended_by"] == "shootout" and report["status"] == "done"
    page.close()
    tv.close()


@needs_mosquitto
def test_only_the_organiser_changes_the_tournament(tourney):
    """Anyone on the club's network reaches the hall (its TV): without the organiser's code or a
    session its sign-in gave, every change is 401 and nothing changes; wrong codes are throttled
    (429 after ten in a minute, the right one too then); the sign-in's cookie is HttpOnly and
    SameSite=Strict; the TV's views stay open; the code is never in a page or an answer."""
    import http.client

    hall = tourney[0]
    stranger = dict(HEADERS, **{"X-Carom-Organiser-Code": ""})
    for action, body in (
        ("players", {"name": "Eve"}),
        ("table", {"table": "t9"}),
        ("draw", {}),
        ("view", {"view": "bracket"}),
        ("untable", {"table": "t1"}),
    ):
        status, answer = post(hall, action, body, headers=stranger)
        assert status == 401 and "sign in" in answer["error"], (action, answer)
    assert hall.get("/api/tournament")["players"] == []
    for path in ("/", "/api/tables", "/api/tournament", "/results.json", "/organiser"):
        assert hall.get(path, raw=True)[0]  # open and read-only
    # Signing in from the page's API: a session cookie, then changes with it alone.
    host, port = hall.url[len("http://") :].split(":")
    c = http.client.HTTPConnection(host, int(port), timeout=10)
    c.request("POST", "/api/organiser/signin", json.dumps({"code": hall.code}), HEADERS)
    r = c.getresponse()
    assert r.status == 200 and hall.code.encode() not in r.read()
    cookie = r.getheader("Set-Cookie")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
    session = cookie.split(";")[0]
    status, answer = post(hall, "players", {"name": "Anna"}, headers=dict(stranger, Cookie=session))
    assert status == 200
    status, _ = post(hall, "players", {"name": "Eve"}, headers=dict(stranger, Cookie="carom_organiser=forged"))
    assert status == 401
    # Guessing: ten wrong codes, then even the right one waits (429) for a minute.
    for k in range(10):
        status, answer = post(hall, "signin", {"code": "wrong-%d" % k}, headers=stranger)
        assert status == 401 and "not the organiser's code" in answer["error"]
    assert post(hall, "signin", {"code": hall.code}, headers=stranger)[0] == 429
    assert post(hall, "players", {"name": "Bela"})[0] == 429
    assert post(hall, "players", {"name": "Cleo"}, headers=dict(stranger, Cookie=session))[0] == 200  # signed in
    names = [p["name"] for p in hall.get("/api/tournament")["players"]]
    assert names == ["Anna", "Cleo"]
    assert hall.code not in json.dumps(hall.get("/api/tournament"))
    assert hall.code.encode() not in hall.get("/organiser", raw=True)[0]


@needs_mosquitto
def test_hostile_requests_are_refused_with_reasons(tourney):
    hall, board, secrets, broker = tourney
    before = hall.get("/api/tournament")
    big = json.dumps({"players": [{"name": "x" * 20, "club": "y" * 20}] * 700}).encode()
    assert len(big) > org.MAX_BODY
    status, answer = post(hall, "players", None, raw=big)
    assert status == 413 and "too large" in answer["error"]
    status, answer = post(hall, "players", {"name": "Eve"}, headers=dict(HEADERS, Origin="http://evil.example"))
    assert status == 403 and "other origins" in answer["error"]
    status, answer = post(hall, "players", {"name": "Eve"}, headers={"Content-Type": "application/json"})
    assert status == 403 and "X-Carom-Hall" in answer["error"]
    status, answer = post(hall, "players", {"name": "Eve"}, headers=dict(HEADERS, **{"Content-Type": "text/plain"}))
    assert status == 415
    status, answer = post(hall, "players", None, headers=dict(HEADERS, Host="evil.example"), raw=b'{"name": "Eve"}')
    assert status == 421
    for raw, words in (
        (b"{not json", "not JSON"),
        (b"[" * 100 + b"]" * 100, "nested deeper"),
        (b'{"name": NaN}', "NaN is not JSON"),
        (b"\xff\xfe", "not JSON"),
    ):
        status, answer = post(hall, "players", None, raw=raw)
        assert status == 400 and words in answer["error"], (raw, answer)
    for action, body, words in (
        ("players", {"name": "x" * 30}, "at most 24"),
        ("players", {"name": "A", "average": "fast"}, "player.average"),
        ("configure", {"format": "round_robin", "game_options": {"target": 10000}}, "game_options: target"),
        ("table", {"table": "../etc"}, "table must be a board's table id"),
        ("view", {"view": "<script>"}, "view must be one of"),
        ("nothing", {}, "no such change"),
    ):
        status, answer = post(hall, action, body)
        assert status in (400, 404) and words in answer["error"], (action, answer)
    status, answer = post(hall, "players", {"players": [{"name": "Anna"}, {"name": "Bela"}, {"name": "Anna"}]})
    assert status == 409 and 'name: "Anna" is already a player' in answer["error"]  # and none of them added
    assert post(hall, "draw", {})[0] == 409  # not now: no players
    assert "2 players" in post(hall, "draw", {})[1]["error"]
    assert hall.get("/api/tournament")["players"] == before["players"] == []
    # The organiser's page never shows inside another site's frame (clickjacking).
    _, headers = hall.get("/organiser", raw=True)
    assert headers["X-Frame-Options"] == "DENY" and "frame-ancestors 'none'" in headers["Content-Security-Policy"]
    # A GET never changes anything, and nothing but the organiser's API takes a POST.
    req = urllib.request.Request(hall.url + "/api/tables", data=b"{}", headers=HEADERS, method="POST")
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(req, timeout=10)
    assert e.value.code == 405


@needs_mosquitto
def test_the_tournament_survives_a_restart(tmp_path):
    """The tournament file and the setups sent survive `carom hall` stopping: the same players and
    matches, and the numbers go on growing (a board takes only a newer n)."""
    keys_path = str(tmp_path / "hall-keys.json")
    key = Keys(keys_path).new_key("t1")
    db = str(tmp_path / "club.sqlite")
    with running_mosquitto() as broker:
        hall = HallProc(broker.port, "--db", db, "--keys", keys_path)
        b = None
        try:
            hall.wait_line(r"connected")
            post(hall, "configure", {"format": "round_robin", "game_options": {"target": 3}})
            post(hall, "players", {"players": [{"name": n} for n in ("Anna", "Bela", "Csaba")]})
            post(hall, "table", {"table": "t1"})
            post(hall, "draw", {})
            b = TableBoard(broker.port, "t1", key)
            first = b.setup(1)
            assert hall.stop() == 0
            hall = HallProc(broker.port, "--db", db, "--keys", keys_path)
            hall.wait_line(r"connected")
            t = hall.get("/api/tournament")
            assert [p["name"] for p in t["players"]] == ["Anna", "Bela", "Csaba"] and t["settings"]["drawn"]
            assert t["setups"]["t1"]["n"] == 1 and t["tables"] == [{"table": "t1", "match": first_match(t)}]
            assert t["setups"]["t1"]["match"] == first_match(t)  # the setup sent before the restart, its match
            b.apply(first)
            b.play(LAG + ["point"] * 3 + ["miss"])
            assert b.setup(2)["n"] == 2  # the next match, numbered after the last one sent before the restart
        finally:
            if b is not None:
                b.close()
            hall.stop()
    assert os.stat(keys_path).st_mode & 0o077 == 0
    with open(keys_path) as f:
        assert key in f.read()  # the key file keeps it; nothing else does


def first_match(t):
    return [m["id"] for m in t["matches"] if m["status"] != "pending"][0]


def test_cli_errors_name_the_file(tmp_path):
    """--db that is no tournament's file, --keys that is no key file: `carom: ...`, exit 1, no traceback."""
    import subprocess

    from helpers import CAROM

    junk = tmp_path / "notes.txt"
    junk.write_text("the club's notes\n")
    for args, words in (
        (["--db", str(junk)], "cannot be used as a tournament file"),
        (["--db", str(tmp_path / "t.sqlite"), "--keys", str(junk)], "not a key file"),
    ):
        out = subprocess.run(
            [CAROM, "hall", "--broker", "127.0.0.1:1", "--listen", "127.0.0.1:0", *args],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert out.returncode == 1 and out.stderr.startswith("carom: ") and words in out.stderr, out
        assert "Traceback" not in out.stderr + out.stdout
    assert junk.read_text() == "the club's notes\n"  # not written over


@needs_mosquitto
def test_a_broker_restart_keeps_the_setups(tmp_path):
    """A broker that keeps nothing (no persistence) restarts: the hall publishes each table's newest
    setup again at its reconnect, so a board that connects afterwards still gets its match."""
    from tools.run.mosquitto import Mosquitto

    keys_path = str(tmp_path / "hall-keys.json")
    key = Keys(keys_path).new_key("t1")
    m = Mosquitto().start()
    hall = HallProc(m.port, "--db", str(tmp_path / "club.sqlite"), "--keys", keys_path)
    try:
        hall.wait_line(r"connected")
        post(hall, "configure", {"format": "round_robin", "game_options": {"target": 3}})
        post(hall, "players", {"players": [{"name": n} for n in ("Anna", "Bela")]})
        post(hall, "table", {"table": "t1"})
        post(hall, "draw", {})
        before, retained = retained_setup(m.port, "t1")
        assert retained and verify(key, before)["n"] == 1
        m.stop()
        wait_for(lambda: hall.get("/api/tables")["broker"]["connected"], False, 20, "the broker gone")
        m.start()  # the same port, nothing kept
        wait_for(lambda: hall.get("/api/tables")["broker"]["connected"], True, 30, "the hall reconnected")
        after, retained = retained_setup(m.port, "t1", timeout=20)
        assert retained and after == before  # the same setup, the same n: a board that had it ignores it
        # The table leaves the tournament: its retained setup is cleared (a board off now never takes it).
        assert post(hall, "untable", {"table": "t1"}) == (200, {"ok": True})
        hall.wait_line(r"the setup for t1 withdrawn")
        # (the hall publishes the signed withdrawal, then the empty message that clears it: waited for)
        wait_for(lambda: retained_topics(m.port, ["carom/t1/setup"]), {}, 20, "t1's retained setup cleared")
    finally:
        hall.stop()
        m.close()


@needs_mosquitto
def test_an_undecided_knockout_match_is_decided_on_the_page(tourney, browser):
    """A board set up by hand lets a knock-out match end in a draw: the match is undecided until the
    organiser names the winner on the page (a confirmation first); then the winner plays on."""
    hall, board, secrets, broker = tourney
    post(hall, "configure", {"format": "knockout", "game_options": {"target": 3}})
    post(hall, "players", {"players": [{"name": n} for n in ("Anna", "Bela", "Csaba", "Dora")]})
    for t in ("t1", "t2"):
        post(hall, "table", {"table": t})
    b1, b2 = board("t1"), board("t2")
    page = organiser_page(browser, hall)
    pg = page.page
    post(hall, "draw", {})
    s1, s2 = b1.setup(1), b2.setup(1)
    by_hand = json.loads(json.dumps(s1))
    by_hand["setup"]["match"].update(draw=True, shootout=False)  # the referee changed the board's options
    b1.apply(by_hand)
    b1.play(LAG + ["point"] * 6)  # 3:3, and the draw stands on this board
    b2.apply(s2)
    b2.play(LAG + ["point"] * 3 + ["miss"])
    row = 'tr[data-status="undecided"]'
    pg.wait_for_selector(row + " button.decide")
    match_id = int(pg.get_attribute(row, "data-id"))
    winner = s1["setup"]["players"]["B"]["name"]
    asked = []
    pg.on("dialog", lambda d: (asked.append(d.message), d.dismiss() if len(asked) == 1 else d.accept()))
    pg.click(row + ' button[data-winner="B"]')  # dismissed: nothing changes
    wait_for(lambda: len(asked), 1, what="the confirmation")
    assert [m["status"] for m in hall.get("/api/tournament")["matches"] if m["id"] == match_id] == ["undecided"]
    pg.click(row + ' button[data-winner="B"]')
    wait_for(
        lambda: [m["winner"] for m in hall.get("/api/tournament")["matches"] if m["id"] == match_id],
        [winner],
        what="the organiser's winner",
    )
    assert asked == ["%s wins match %d?" % (winner, match_id)] * 2
    final = wait_for(
        lambda: [d for b in (b1, b2) for d in [verify(b.key, p) for p, _ in b.payloads if p] if d["n"] == 2],
        lambda f: len(f) == 1,
        what="the final",
    )[0]
    assert winner in {final["setup"]["players"][p]["name"] for p in "AB"}
    status, answer = post(hall, "decide", {"match": match_id, "winner": "A"})  # decided already
    assert status == 409 and "not an undecided knock-out match" in answer["error"]
    page.close()
