"""`carom pair` and `carom pair --unpair` against two virtual boards (the real wall and referee
firmware) through their serial ports, with mpremote, while both follow real time on one radio hub.

After pairing, both config.json files hold the other's MAC and the same key, which never appears
in `carom`'s output; the remote's boot counter (at its limit before) starts again at 1 and the
wall's record of its numbers is gone; a press on the remote scores on the wall (the first one
after a challenge); after --unpair the wall ignores it.
Waits are bounded: wait_for() in real time, advance() in virtual time.
"""

import json
import os

import pytest

from helpers import board_def, carom, frame_seq, hub_press, lay_out_flash, needs_mpremote, ok, remote_shows
from host_tools.simulator.scripted_board import load_board
from host_tools.simulator.segments import decode
from host_tools.simulator.vboard import RadioHub, VirtualBoard

WALL_MAC = bytes.fromhex("240ac4000031")
REMOTE_MAC = bytes.fromhex("240ac4000041")

pytestmark = needs_mpremote


def config_of(vb):
    with open(vb.flash_path("/config.json")) as f:
        return json.load(f)


def wall_score(vb):
    d = next(d for d in load_board("wall")["displays"] if d["show"][0]["field"] == "A.score")
    return decode(vb.chip(d["addr"], d["bus"]).ram, d["kind"]).text


def press(hub, vb, button):
    hub_press(hub, vb, button, settle=0.6)


@pytest.fixture
def boards(tmp_path):
    hub = RadioHub(seed=3)
    made = []
    for name, board, mac, config in (
        ("wall", "wall", WALL_MAC, {"board": "wall", "match": {"game": "three_cushion", "target": 5}}),
        ("remote", "referee", REMOTE_MAC, {"board": "referee"}),
    ):
        made.append(
            VirtualBoard(
                lay_out_flash(tmp_path / name, config),
                board=board_def(board),
                radio=hub,
                name=name,
                unique_id=mac,
                serial=True,
            )
        )
    wall, remote = made
    try:
        wall.power_on()
        remote.power_on()
        yield hub, wall, remote
    finally:
        for vb in made:
            vb.close()


def test_pair_then_a_press_scores_then_unpair(boards):
    hub, wall, remote = boards
    hub.advance(1)
    assert remote_shows(remote) == "E 41"  # not paired: the remote says so and stays awake
    assert "carom: paired" not in wall.stdout
    runs = wall.stdout.count("carom: running on board wall")
    remote_boots = len(remote.boots)
    with open(remote.flash_path("/remote.boot"), "w") as f:
        f.write(str(2**30 - 1))  # a boot counter at its limit (E 43 when paired): pairing restarts it
    with open(wall.flash_path("/radio.last"), "w") as f:
        f.write("%d 5" % (2**30 - 1))  # and the wall's record of that remote's numbers goes

    hub.run_realtime()
    out = carom("pair", "--wall", wall.serial_path, "--remote", remote.serial_path, timeout=120)
    text = ok(out)
    assert "paired the wall board 24:0a:c4:00:00:31 with the remote 24:0a:c4:00:00:41" in text
    wcfg, rcfg = config_of(wall), config_of(remote)
    key = wcfg["radio"]["key"]
    assert len(key) == 64 and int(key, 16) and rcfg["radio"]["key"] == key  # the same new key on both
    assert wcfg["radio"]["peer"] == "24:0a:c4:00:00:41" and rcfg["radio"]["peer"] == "24:0a:c4:00:00:31"
    assert key.lower() not in (out.stdout + out.stderr).lower() and key.upper() not in out.stdout + out.stderr
    assert wcfg["match"] == {"game": "three_cushion", "target": 5}  # the rest of the config kept
    # Both were reset and run paired.
    hub.wait_for(lambda h: wall.stdout.count("carom: running on board wall") > runs, timeout=30)
    assert "carom: paired with the remote 24:0a:c4:00:00:41" in wall.stdout
    hub.wait_for(lambda h: len(remote.boots) > remote_boots and (remote.radio_state or {}).get("espnow"), timeout=30)
    hub.stop_realtime()

    hub.advance(6)  # the paired remote has nothing to do: asleep
    assert remote.asleep
    press(hub, remote, "point")  # wakes it; in the lag: A breaks
    press(hub, remote, "point")  # A scores
    assert wall_score(wall) == "   1"
    assert remote_shows(remote) == "01:00"
    acks = [f for f in hub.frames if f.sender == "wall" and f.data[1] == 2]
    assert [frame_seq(f) for f in acks] == [(1, 1), (1, 2)]
    # The wall had no record after pairing: its first command was challenged, then acted on.
    challenges = [f for f in hub.frames if f.sender == "wall" and f.data[1] == 3]
    assert [frame_seq(f) for f in challenges] == [(1, 1)]

    runs = wall.stdout.count("carom: running on board wall")
    hub.run_realtime()
    text = ok(carom("pair", "--unpair", "--device", wall.serial_path, timeout=120))
    assert "unpaired" in text
    wcfg = config_of(wall)
    assert wcfg["radio"]["peer"] is None and wcfg["radio"]["key"] is None
    assert not os.path.exists(wall.flash_path("/radio.last"))
    hub.wait_for(lambda h: wall.stdout.count("carom: running on board wall") > runs, timeout=30)
    hub.stop_realtime()
    assert wall.stdout.count("carom: paired with the remote") == 1  # not again after the reset

    hub.advance(6)
    n = len(hub.frames)
    press(hub, remote, "point")  # the remote still believes; the wall no longer listens
    hub.advance(1)
    cmds = [f for f in hub.frames[n:] if f.sender == "remote"]
    assert len(cmds) == 10 and not any(f.sender == "wall" for f in hub.frames[n:])  # 10 tries, no answer
    assert wall_score(wall) == "   1"
    assert remote_shows(remote) == "E 40"
