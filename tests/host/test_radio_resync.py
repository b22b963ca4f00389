"""A wall board that lost or cannot write /radio.last, and a remote whose boot counter is at
its limit or cannot be saved: the real firmware on two virtual boards on one radio hub.

What is tried: every frame the remote ever sent replayed at a wall that lost its record
(deleted, or damaged in seven ways), before and after the remote resynchronizes: nothing
acted on, nothing written, one challenge nonce until it is used; the challenge and its
answer lost on the air; a record that cannot be written (the command is not acted on, or
acted on with the record removed); a boot counter at 2**30-1 (E 43, nothing sent, the
numbers start again after pairing) and one that cannot be saved (E 42, nothing sent, the
next press after the flash is fixed goes through); a counter at 2**30-1 (the boot counter
moves on). Every wait is a bounded advance of virtual time.
"""

import os
import shutil
import struct

import pytest

from helpers import flash_hashes, frame_seq, hub_press, radio_pair, remote_shows

MAX_BOOT = 2**30 - 1


@pytest.fixture
def make_pair(tmp_path, firmware):
    """make_pair(remote_boot=None) -> (hub, wall, remote), powered, the remote asleep (or awake
    showing an error)."""
    made = []

    def make(remote_boot=None, name="run"):
        hub, wall, remote = radio_pair(tmp_path / name, firmware, {"game": "straight_rail", "target": 50}, seed=9)
        made.extend((wall, remote))
        if remote_boot is not None:
            with open(os.path.join(remote.flash_dir, "remote.boot"), "w") as f:
                f.write(remote_boot)
        wall.vb.power_on()
        remote.vb.power_on()
        hub.advance(6)
        return hub, wall, remote

    yield make
    for b in made:
        b.close()


def press(hub, board, button, settle=0.8):  # 10 tries 50 ms apart, twice over after a challenge
    hub_press(hub, board.vb, button, settle=settle)


def frames(hub, sender, kind):
    return [f for f in hub.frames if f.sender == sender and f.data[1] == kind]


seq = frame_seq


def nonce(frame):
    return frame.data[26:34]


def scores(wall):
    f = wall.state()["fields"]
    return f["A.score"], f["B.score"], f["A.innings"], f["B.innings"]


def last_on_flash(wall):
    path = os.path.join(wall.flash_dir, "radio.last")
    if not os.path.isfile(path):
        return None
    with open(path) as f:
        return tuple(int(w) for w in f.read().split())


def restart(hub, board):
    board.vb.power_off()
    board.vb.power_on()
    hub.advance(1)


def replay_all(hub, wall, recorded):
    for f in recorded:
        hub.replay(f, to=wall.vb)
        hub.advance(0.02)
    hub.advance(0.3)


def test_a_wall_that_lost_its_record_acts_on_no_replay(make_pair):
    hub, wall, remote = make_pair()
    for b in ("point", "point", "point", "miss", "point"):  # the lag (A breaks), A 2, B 1
        press(hub, remote, b)
    assert scores(wall) == ("   2", "   1", " 1", " 1")
    first = frames(hub, "wall", 3)
    assert len(first) == 1 and seq(first[0]) == (1, 1)  # the first contact: no record yet
    assert last_on_flash(wall) == (1, 5)
    sent = frames(hub, "remote", 1)
    assert [seq(f) for f in sent] == [(1, 1), (1, 1), (1, 2), (1, 3), (1, 4), (1, 5)]
    old_nonce = nonce(first[0])

    wall.vb.power_off()
    os.remove(os.path.join(wall.flash_dir, "radio.last"))  # lost
    wall.vb.power_on()
    hub.advance(1)
    assert scores(wall) == ("   2", "   1", " 1", " 1")  # the match came back from the journal
    hub.advance(6)
    assert remote.vb.asleep
    hashes = flash_hashes(wall.flash_dir)
    n = len(hub.frames)
    for _ in range(2):
        replay_all(hub, wall, sent)  # every frame ever sent, the newest and the nonce's answer too
    answers = hub.frames[n:]
    assert not [f for f in answers if f.sender == "wall" and f.data[1] == 2]  # nothing acknowledged
    challenges = [f for f in answers if f.sender == "wall"]
    assert len(challenges) == 2 * len(sent) and all(f.data[1] == 3 for f in challenges)
    assert len({nonce(f) for f in challenges}) == 1  # one nonce, kept until it is used
    assert nonce(challenges[0]) not in (old_nonce, bytes(8))
    assert [seq(f) for f in challenges] == [seq(f) for f in sent] * 2  # each names the frame it answers
    assert scores(wall) == ("   2", "   1", " 1", " 1")
    assert flash_hashes(wall.flash_dir) == hashes  # nothing written

    # The remote's next press: challenged, sent again with the nonce, acted on once.
    n = len(hub.frames)
    press(hub, remote, "point")
    assert scores(wall) == ("   2", "   2", " 1", " 1")
    new = hub.frames[n:]
    assert [(f.sender, f.data[1], seq(f)) for f in new] == [
        ("remote", 1, (1, 6)),
        ("wall", 3, (1, 6)),
        ("remote", 1, (1, 6)),
        ("wall", 2, (1, 6)),
    ]
    assert nonce(new[2]) == nonce(new[1]) == nonce(challenges[0])
    assert last_on_flash(wall) == (1, 6) and remote_shows(remote) == "02:02"

    # From now on by numbers: every old frame is a replay (no answer), the newest a retransmission.
    hub.advance(6)
    n = len(hub.frames)
    replay_all(hub, wall, sent)
    assert [f for f in hub.frames[n:] if f.sender == "wall"] == []
    replay_all(hub, wall, [new[0], new[2]])  # either copy of the newest, with or without the nonce
    assert [(f.data[1], seq(f)) for f in hub.frames[n:] if f.sender == "wall"] == [(2, (1, 6))] * 2
    assert scores(wall) == ("   2", "   2", " 1", " 1")
    press(hub, remote, "point")
    assert scores(wall)[1] == "   3" and last_on_flash(wall) == (1, 7)
    assert "Traceback" not in wall.vb.stderr + remote.vb.stderr


DAMAGED = (b"", b"junk", b"1", b"1 2 3", b"99999999999 5", b"1073741824 0", b"-1 5", b"\xff\xfe\x00 7")


def test_a_damaged_record_is_a_lost_one(make_pair):
    hub, wall, remote = make_pair()
    for b in ("point", "point"):
        press(hub, remote, b)
    sent = frames(hub, "remote", 1)
    assert scores(wall)[0] == "   1"
    for data in DAMAGED:
        wall.vb.power_off()
        with open(os.path.join(wall.flash_dir, "radio.last"), "wb") as f:
            f.write(data)
        wall.vb.power_on()
        hub.advance(1)
        n = len(hub.frames)
        replay_all(hub, wall, sent)
        wall_frames = [f for f in hub.frames[n:] if f.sender == "wall"]
        assert [f.data[1] for f in wall_frames] == [3] * len(sent), data  # challenged, never acknowledged
        assert scores(wall)[0] == "   1", data
        with open(os.path.join(wall.flash_dir, "radio.last"), "rb") as f:
            assert f.read() == data  # left as it was until a command is acted on
    hub.advance(6)
    press(hub, remote, "point")
    assert scores(wall)[0] == "   2" and last_on_flash(wall) == (1, 3)
    assert "Traceback" not in wall.vb.stderr


def test_challenge_and_answer_lost_on_the_air(make_pair):
    hub, wall, remote = make_pair()
    n = len(hub.frames)
    hub.drop_next(1, src=wall.vb)  # the challenge to the first try
    hub.drop_next(1, src=remote.vb)  # the first try
    press(hub, remote, "point", settle=0.05)  # the lag: A breaks (the wall has no record yet)
    hub.drop_next(2, src=remote.vb)  # two tries of the answer
    hub.advance(0.8)
    got = hub.frames[n:]
    kinds = [(f.sender, f.data[1], f.dropped) for f in got]
    assert kinds[:3] == [("remote", 1, True), ("remote", 1, False), ("wall", 3, True)]
    assert [(f.sender, f.data[1]) for f in got if not f.dropped][-2:] == [("remote", 1), ("wall", 2)]
    assert len(frames(hub, "wall", 2)) == 1  # acted on and acknowledged once
    assert wall.state()["leds"]["A.turn"] == 1 and remote_shows(remote) == "00:00"
    assert last_on_flash(wall) == (1, 1)
    press(hub, remote, "point")
    assert scores(wall)[0] == "   1" and remote_shows(remote) == "01:00"


def test_a_record_that_cannot_be_written(make_pair):
    hub, wall, remote = make_pair()
    press(hub, remote, "point")  # A breaks
    press(hub, remote, "point")
    assert scores(wall)[0] == "   1" and last_on_flash(wall) == (1, 2)
    flash = wall.flash_dir
    hashes = flash_hashes(flash)

    # Neither written nor removed (both names are folders with a file in them): not acted on.
    for name in ("radio.last.tmp", "radio.last.keep"):
        os.makedirs(os.path.join(flash, name))
        open(os.path.join(flash, name, "x"), "w").close()
    os.replace(os.path.join(flash, "radio.last"), os.path.join(flash, "radio.last.keep", "radio.last"))
    os.rename(os.path.join(flash, "radio.last.keep"), os.path.join(flash, "radio.last"))
    hub.advance(6)
    n = len(hub.frames)
    press(hub, remote, "point")
    assert scores(wall)[0] == "   1"  # not acted on
    assert [f for f in hub.frames[n:] if f.sender == "wall"] == []  # nor acknowledged
    assert len([f for f in hub.frames[n:] if f.sender == "remote"]) == 10 and remote_shows(remote) == "E 40"

    # The record cannot be written but can be removed: acted on; after a restart, a challenge.
    shutil.rmtree(os.path.join(flash, "radio.last"))
    with open(os.path.join(flash, "radio.last"), "w") as f:
        f.write("1 2")
    hub.advance(6)
    press(hub, remote, "point")
    assert scores(wall)[0] == "   2" and remote_shows(remote) == "02:00"
    assert not os.path.exists(os.path.join(flash, "radio.last"))
    restart(hub, wall)
    assert scores(wall)[0] == "   2"
    hub.advance(6)
    n = len(hub.frames)
    press(hub, remote, "point")
    # Challenged, then acted on: the flash still holds no number (after a restart: challenged again).
    assert [f.data[1] for f in hub.frames[n:] if f.sender == "wall"] == [3, 2]
    assert scores(wall)[0] == "   3" and last_on_flash(wall) is None
    shutil.rmtree(os.path.join(flash, "radio.last.tmp"))
    hub.advance(6)
    n = len(hub.frames)
    press(hub, remote, "point")
    assert [f.data[1] for f in hub.frames[n:] if f.sender == "wall"] == [2]  # the wall knows it in RAM
    assert scores(wall)[0] == "   4" and last_on_flash(wall) == (1, 6)
    assert set(flash_hashes(flash)) - set(hashes) == set()
    assert "Traceback" not in wall.vb.stderr


def test_boot_counter_at_its_limit(make_pair):
    hub, wall, remote = make_pair(remote_boot=str(MAX_BOOT - 1))
    assert remote.vb.asleep
    press(hub, remote, "point")  # A breaks, numbered (2**30-1, 1)
    press(hub, remote, "point")
    assert scores(wall)[0] == "   1" and last_on_flash(wall) == (MAX_BOOT, 2)
    with open(os.path.join(remote.flash_dir, "remote.boot")) as f:
        assert f.read() == str(MAX_BOOT)

    remote.vb.power_off()
    remote.vb.power_on()  # no number is left for this power-on: E 43, nothing sent, awake to be paired
    hub.advance(6)
    assert remote_shows(remote) == "E 43" and not remote.vb.asleep
    n = len(hub.frames)
    press(hub, remote, "point")
    assert hub.frames[n:] == [] and remote_shows(remote) == "E 43"
    assert scores(wall)[0] == "   1"
    with open(os.path.join(remote.flash_dir, "remote.boot")) as f:
        assert f.read() == str(MAX_BOOT)  # not wrapped

    # What `carom pair` does (host_tools/commands/pair.py): both files removed (and a new key), both reset.
    for board, name in ((wall, "radio.last"), (remote, "remote.boot")):
        board.vb.power_off()
        os.remove(os.path.join(board.flash_dir, name))
    wall.vb.power_on()
    remote.vb.power_on()
    hub.advance(6)
    assert remote.vb.asleep
    n = len(hub.frames)
    press(hub, remote, "point")
    assert [(f.sender, f.data[1], seq(f)) for f in hub.frames[n:]] == [
        ("remote", 1, (1, 1)),
        ("wall", 3, (1, 1)),
        ("remote", 1, (1, 1)),
        ("wall", 2, (1, 1)),
    ]
    assert scores(wall)[0] == "   2" and last_on_flash(wall) == (1, 1)


def test_boot_counter_that_cannot_be_saved(make_pair):
    hub, wall, remote = make_pair()
    press(hub, remote, "point")
    assert last_on_flash(wall) == (1, 1)
    remote.vb.power_off()
    tmp = os.path.join(remote.flash_dir, "remote.boot.tmp")
    os.makedirs(tmp)
    open(os.path.join(tmp, "x"), "w").close()
    remote.vb.power_on()
    hub.advance(0.2)
    assert remote_shows(remote) == "E 42"
    hub.advance(6)
    assert remote.vb.asleep  # it sleeps: the next press tries again
    n = len(hub.frames)
    press(hub, remote, "point")
    assert hub.frames[n:] == [] and remote_shows(remote) == "E 42"
    with open(os.path.join(remote.flash_dir, "remote.boot")) as f:
        assert f.read() == "1"
    shutil.rmtree(tmp)
    hub.advance(6)
    press(hub, remote, "point")  # woken by the press: the boot counter saved now, the press sent
    assert [seq(f) for f in hub.frames[n:] if f.sender == "remote"] == [(2, 1)]
    assert scores(wall)[0] == "   1" and remote_shows(remote) == "01:00"


def test_counter_at_its_limit_moves_the_boot_counter_on(make_pair):
    hub, wall, remote = make_pair()
    press(hub, remote, "point")  # A breaks: (1, 1)
    hub.advance(6)
    assert remote.vb.asleep
    # 2**30 - 2 presses later (RTC memory, kept through deep sleep: b"RM", boot, counter).
    remote.vb._rtc_memory = b"RM" + struct.pack("<II", 1, MAX_BOOT - 1)
    n = len(hub.frames)
    press(hub, remote, "point")
    press(hub, remote, "point")  # no number left in this power-on: the boot counter moves on
    assert [seq(f) for f in hub.frames[n:] if f.sender == "remote"] == [(1, MAX_BOOT), (2, 1)]
    assert scores(wall)[0] == "   2" and last_on_flash(wall) == (2, 1)
    with open(os.path.join(remote.flash_dir, "remote.boot")) as f:
        assert f.read() == "2"
    assert remote.vb.rtc_memory[:10] == b"RM" + struct.pack("<II", 2, 1)
