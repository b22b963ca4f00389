"""The real firmware on two virtual boards: a wall scoreboard (boards/wall.json)
and its referee remote (boards/referee.json), paired through config.json and
talking ESP-NOW through the host's radio hub.

A button press wakes the remote from deep sleep (EXT1: the button's bit in
the wake-up status register); it sends the authenticated command; the wall
scores it, acknowledges it, and the remote shows the acknowledged scores.
Then what a radio and an attacker do to that: lost frames and lost
acknowledgements (sent again, acted on once), replayed commands (refused,
also after the wall restarts), forged frames (refused). Everything read from
the wall was decoded from the segments the firmware lit on its HT16K33 chips.
"""

import os
import struct

import pytest

from helpers import REMOTE_MAC, WALL_MAC, frame_seq, hub_press, radio_pair, remote_shows
from host_tools.simulator.vboard import DEEPSLEEP_RESET, EXT1_WAKE, PWRON_RESET, AccessPoint

POINT_BIT = 1 << 9  # the remote's "point" button: GPIO32 is RTC GPIO 9


@pytest.fixture
def make_pair(tmp_path, firmware):
    """make_pair(wall_config=..., wifi=...) -> (hub, wall, remote), powered, the remote asleep."""
    made = []

    def make(wall_config=None, wifi=None):
        hub, wall, remote = radio_pair(
            tmp_path, firmware, {"game": "three_cushion", "target": 3}, 5, wall_config, wifi=wifi
        )
        made.extend((wall, remote))
        wall.vb.power_on()
        remote.vb.power_on()
        hub.advance(6)  # the remote has nothing to do: asleep after AWAKE_MS (0.3 s) and SHOW_MS (3 s)
        assert remote.vb.asleep
        return hub, wall, remote

    yield make
    for b in made:
        b.close()


@pytest.fixture
def pair(make_pair):
    return make_pair()


def press(hub, board, button, down=0.1, settle=0.5):
    hub_press(hub, board.vb, button, down, settle)


def commands(hub):
    return [f for f in hub.frames if f.sender == "remote" or (f.src == REMOTE_MAC and f.kind != "sent")]


seq = frame_seq


def test_a_press_on_the_sleeping_remote_scores_on_the_wall(pair):
    hub, wall, remote = pair
    s = wall.state()
    assert s["fields"]["message"] == "LAG " and s["fields"]["A.score"] == "   0"
    assert "carom: paired with the remote 24:0a:c4:00:00:21" in wall.vb.lines()

    press(hub, remote, "point")  # in the lag: A breaks
    assert [b.cause for b in remote.vb.boots] == [PWRON_RESET, DEEPSLEEP_RESET]
    assert remote.vb.wakes == [(6000.0, EXT1_WAKE, POINT_BIT)]
    s = wall.state()
    assert s["leds"]["A.turn"] == 1 and s["leds"]["B.turn"] == 0 and s["fields"]["message"] != "LAG "

    press(hub, remote, "point")  # the remote is still awake: a plain press; A scores
    s = wall.state()
    assert s["fields"]["A.score"] == "   1" and s["fields"]["B.score"] == "   0"
    assert s["fields"]["countdown"] == "   2"
    assert remote_shows(remote) == "01:00"  # the acknowledged scores, A:B

    # Two commands, each acknowledged once, 1 ms on the air, the wall answering within its 10 ms poll.
    # The wall has no /radio.last yet (a new pairing): the first command is challenged, then
    # sent again with the challenge's nonce (the same number) and acted on.
    kinds = [(f.sender, f.data[1], f.acked, f.heard_by) for f in hub.frames]
    assert (
        kinds
        == [("remote", 1, True, ["wall"]), ("wall", 3, True, ["remote"])]
        + [("remote", 1, True, ["wall"]), ("wall", 2, True, ["remote"])] * 2
    )
    cmd, challenge, answer, ack = hub.frames[:4]
    assert (cmd.src, cmd.dst, len(cmd.data)) == (REMOTE_MAC, WALL_MAC, 56)
    assert cmd.deliveries == [("wall", cmd.t_ms + 1)] and 0 < challenge.t_ms - cmd.t_ms <= 11
    assert 0 < answer.t_ms - challenge.t_ms <= 6 and 0 < ack.t_ms - answer.t_ms <= 11  # the remote polls every 5 ms
    assert challenge.data[26:34] == answer.data[26:34] != bytes(8) and cmd.data[26:34] == bytes(8)
    assert [seq(f) for f in hub.frames] == [(1, 1)] * 4 + [(1, 2)] * 2
    with open(os.path.join(wall.flash_dir, "radio.last")) as f:
        assert f.read() == "1 2"
    # The remote keeps its counter in RTC memory across deep sleep: b"RM", boot 1, counter 2.
    assert remote.vb.rtc_memory[:10] == b"RM" + struct.pack("<II", 1, 2)

    hub.advance(6)  # asleep again; the next press wakes it and counts on
    assert remote.vb.asleep
    press(hub, remote, "miss")  # A's inning ends
    assert remote.vb.wakes[-1][2] == 1 << 8  # GPIO33 is RTC GPIO 8
    assert seq(commands(hub)[-1]) == (1, 3)
    s = wall.state()
    assert s["leds"]["B.turn"] == 1 and s["fields"]["A.innings"] == " 1"


def test_lost_frames_are_sent_again_and_acted_on_once(pair):
    hub, wall, remote = pair
    press(hub, remote, "point")  # A breaks
    n = len(commands(hub))
    hub.drop_next(2, src=remote.vb)  # the command is lost twice; the third try gets through
    press(hub, remote, "point")
    cmds = commands(hub)[n:]
    assert [f.dropped for f in cmds] == [True, True, False]
    assert [round(f.t_ms - cmds[0].t_ms) for f in cmds] == [0, 50, 100]  # every 50 ms
    assert wall.state()["fields"]["A.score"] == "   1"

    n = len(commands(hub))
    hub.drop_next(3, src=wall.vb)  # now the wall's acknowledgements are lost
    press(hub, remote, "point")
    cmds = commands(hub)[n:]
    assert len(cmds) == 4 and len({seq(f) for f in cmds}) == 1  # the same command, sent 4 times
    s = wall.state()
    assert s["fields"]["A.score"] == "   2"  # acted on once
    assert remote_shows(remote) == "02:00"


def test_replayed_and_forged_frames_are_refused(pair):
    hub, wall, remote = pair
    press(hub, remote, "point")
    press(hub, remote, "point")
    assert wall.state()["fields"]["A.score"] == "   1"
    first, latest = commands(hub)[0], commands(hub)[-1]
    n = len(hub.frames)

    hub.replay(first)  # an older sequence number: dropped, not even acknowledged
    hub.advance(0.5)
    assert len(hub.frames) == n + 1 and wall.state()["fields"]["A.score"] == "   1"

    hub.replay(latest)  # the newest one again: acknowledged (a retransmission), not acted on
    hub.advance(0.5)
    assert [f.sender for f in hub.frames[n + 1 :]] == [None, "wall"]
    assert wall.state()["fields"]["A.score"] == "   1"

    forged = bytearray(latest.data)
    forged[16] = 2  # "A.point", with the tag left as it was
    hub.inject(wall.vb, REMOTE_MAC, bytes(forged))
    hub.inject(wall.vb, REMOTE_MAC, os.urandom(56))
    hub.advance(0.5)
    assert [f.sender for f in hub.frames[n + 3 :]] == [None, None]  # no acknowledgement
    # The newest command relayed by a stranger: the tag and the sequence number decide,
    # not the radio's source address: a retransmission, acknowledged to the remote.
    hub.inject(wall.vb, "de:ad:be:ef:00:01", latest.data)
    hub.advance(0.5)
    assert [(f.sender, f.dst) for f in hub.frames[n + 5 :]] == [(None, WALL_MAC), ("wall", REMOTE_MAC)]
    assert wall.state()["fields"]["A.score"] == "   1"

    # The wall keeps the newest sequence number on its flash: after a power cut the
    # old command is still refused.
    wall.vb.power_off()
    wall.vb.power_on()
    hub.advance(1)
    assert wall.state()["fields"]["A.score"] == "   1"  # the match came back from the journal
    n = len(hub.frames)
    hub.replay(first)
    hub.advance(0.5)
    assert len(hub.frames) == n + 1 and wall.state()["fields"]["A.score"] == "   1"


def test_a_wall_on_wifi_channel_6_does_not_hear_a_remote_on_channel_1(make_pair):
    """The wall's radio follows its access point's channel; the remote never
    joins it and stays on channel 1 (app_remote.py sets no channel): they
    cannot hear each other. (Nobody listens on the MQTT port: the wall keeps
    trying, which does not matter here.)"""
    hub, wall, remote = make_pair(
        wall_config={
            "wifi": {"ssid": "hall", "password": "secret123"},
            "mqtt": {"host": "127.0.0.1", "port": 9, "table": "t1"},
        },
        wifi=AccessPoint("hall", "secret123", channel=6),
    )
    assert wall.vb.wifi_connected and wall.vb.radio_state["channel"] == 6
    assert remote.vb.radio_state is None  # asleep: its radio is off
    press(hub, remote, "point", settle=1.0)
    cmds = commands(hub)
    assert len(cmds) == 10 and not any(f.acked or f.heard_by for f in cmds)  # 10 tries, unheard
    assert all(f.channel == 1 for f in cmds)
    assert wall.state()["fields"]["message"] == "LAG "
    assert remote_shows(remote) == "E 40"  # ERROR_NO_ACK


def test_a_button_held_on_the_sleeping_remote_scores_once(pair):
    hub, wall, remote = pair
    press(hub, remote, "point")  # A breaks
    hub.advance(6)
    assert remote.vb.asleep
    remote.vb.press("point")  # held down for 20 s (stuck, or a book left on it)
    hub.advance(20)
    remote.vb.release("point")
    hub.advance(1)
    assert wall.state()["fields"]["A.score"] == "   1"
