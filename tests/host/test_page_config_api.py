"""POST /api/boards/N/config refuses what is not the form's, before the board is touched.

Each refusal is a 400 (415 for another content type, 404 for a board without a match) with a
reason, and the board's config.json stays as it was, byte for byte; the referee box has no form.
"""

import json
import os
import urllib.error
import urllib.request

import pytest

from helpers import CAROM, free_port
from test_web import stop_and_check
from tools.run.sim import Sim


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    flash = str(tmp_path_factory.mktemp("flash"))
    s = Sim([CAROM, "sim", "--remote", "--listen", "127.0.0.1:%d" % free_port(), "--flash", flash], timeout=90)
    s.config = os.path.join(flash, "config.json")
    yield s
    stop_and_check(s)


def post(sim, board, body, ctype="application/json"):
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    req = urllib.request.Request(sim.url + "/api/boards/%d/config" % board, data, {"Content-Type": ctype})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


BAD = [
    (b"[1, 2]", "the body must be"),
    (b'{"values": {}, "other": 1}', "the body must be"),
    ({"values": {}}, "values must be"),
    ({"values": []}, "values must be"),
    ({"values": {"wifi.password": "hunter22"}}, "not a field of the form"),
    ({"values": {"radio.key": "00" * 32}}, "not a field of the form"),
    ({"values": {"players.A.name": 5}}, "must be a string"),
    ({"values": {"players.A.name": "A" * 101}}, "at most 100 characters"),
    ({"values": {"players.A.name": "ANNA\nBELA"}}, "on one line"),
    ({"values": {"match.target": "0"}}, "match.target"),
    ({"values": {"match.game": "snooker"}}, "match.game"),
    ({"values": {"match.deciding_target": "20"}}, "match.deciding_target"),
    ({"values": {"players.A.name": "ANNA"}, "new_match": "yes"}, "new_match must be true or false"),
]


@pytest.mark.parametrize("body,words", BAD)
def test_refused_and_nothing_written(sim, body, words):
    before = open(sim.config, "rb").read()
    code, answer = post(sim, 0, body)
    assert code == 400 and words in answer["error"], (code, answer)
    assert open(sim.config, "rb").read() == before


def test_other_content_type_board_and_method(sim):
    code, _ = post(sim, 0, {"values": {"players.A.name": "X"}}, ctype="text/plain")
    assert code == 415
    code, answer = post(sim, 1, {"values": {"players.A.name": "X"}})  # the referee box keeps no match
    assert code == 404 and "no board 1 with a match" in answer["error"]
    code, _ = post(sim, 7, {"values": {"players.A.name": "X"}})
    assert code == 404
    got = sim.get("/api/boards/0/config")
    assert set(got["values"]) >= {"players.A.name", "match.target", "match.sets"} and "three_cushion" in got["games"]
    raw, _ = sim.get("/api/boards/0/config", raw=True)
    key = json.load(open(sim.config))["radio"]["key"]  # --remote: the pairing key is in config.json
    assert key.encode() not in raw and b"radio" not in raw


def test_a_value_checked_with_the_board_s_other_keys(sim):
    """A deciding set's target alone is taken once the board's config.json has sets (it goes with them)."""
    code, answer = post(sim, 0, {"values": {"match.sets": "2"}})
    assert code == 200, answer
    code, answer = post(sim, 0, {"values": {"match.deciding_target": "20"}})
    assert code == 200 and "match.deciding_target: null -> 20" in answer["said"], answer
    saved = json.load(open(sim.config))["match"]
    assert saved["sets"] == 2 and saved["deciding_target"] == 20
    assert json.load(open(sim.config))["radio"]["key"]  # the pairing kept


def action(sim, board, body):
    req = urllib.request.Request(
        sim.url + "/api/boards/%d/action" % board, json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=60) as r:
        return r.status


def test_no_write_while_a_button_is_down(sim):
    """The write resets the board, and NEW down at a start is a safe boot (E 30): a button held by
    hand refuses the write; a long press under way (NEW held 3 s for a new match) is let end first."""
    before = open(sim.config, "rb").read()
    assert action(sim, 0, {"do": "down", "button": "new"}) == 200
    code, answer = post(sim, 0, {"values": {"players.A.name": "HELD"}})
    assert code == 400 and "new is held down" in answer["error"], answer
    assert open(sim.config, "rb").read() == before
    assert action(sim, 0, {"do": "up", "button": "new"}) == 200
    assert action(sim, 0, {"do": "long", "button": "new"}) == 200  # a new match: 3.5 s held, from now
    code, answer = post(sim, 0, {"values": {"players.A.name": "ANNA"}})
    assert code == 200, answer
    assert not any("safe boot" in line for line in answer["said"]), answer
    assert json.load(open(sim.config))["players"]["A"]["name"] == "ANNA"
