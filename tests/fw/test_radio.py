"""The remote's radio protocol: what the wall accepts, what it drops; both interpreters."""

import radio
from fwtest import raises

KEY = bytes(range(32))
WALL = b"\x24\x0a\xc4\x00\x00\x01"
REMOTE = b"\x24\x0a\xc4\x00\x00\x02"


def pair(last=(0, 0), boot=1):
    return radio.Receiver(KEY, REMOTE, WALL, last), radio.Sender(KEY, WALL, REMOTE, boot)


def test_hmac_known_answer():
    # RFC 4231, test case 2.
    h = radio.Hmac(b"Jefe")
    assert h.tag(b"what do ya want for nothing?") == bytes.fromhex("5bdcc146bf60754e6a042426089575c7")


def test_command_accepted_once_and_acknowledged():
    wall, remote = pair()
    frame = remote.command(0)  # point
    assert len(frame) == radio.FRAME_LEN <= 250
    got = wall.receive(frame)
    assert got == (0, 0, (1, 1), True)
    ack = wall.ack(got[2], 0, 0, (1, 0, 0, 1, 255, 0))
    assert remote.acked(ack) == (1, 0, 0, 1, 255, 0)
    assert remote.pending is None
    # A retransmission (its ack was lost): acknowledged again, not acted on.
    assert wall.receive(frame) == (0, 0, (1, 1), False)
    assert wall.accepted == 1 and wall.repeats == 1


def test_replayed_and_reordered_frames_dropped():
    wall, remote = pair()
    first = remote.command(0)
    second = remote.command(1)
    assert wall.receive(second)[3] is True
    assert wall.receive(first) is None  # older than the newest accepted
    assert wall.drops[radio.DROP_REPLAY] == 1


def test_forged_frames_dropped():
    wall, remote = pair()
    frame = bytearray(remote.command(0))
    frame[14] = 11  # undo instead of point: the tag no longer fits
    assert wall.receive(bytes(frame)) is None and wall.drops[radio.DROP_TAG] == 1
    other = radio.Sender(bytes(32), WALL, REMOTE, 1)  # the wrong key
    assert wall.receive(other.command(0)) is None and wall.drops[radio.DROP_TAG] == 2
    stranger = radio.Sender(KEY, WALL, b"\x01\x02\x03\x04\x05\x06", 1)  # not the paired remote
    assert wall.receive(stranger.command(0)) is None and wall.drops[radio.DROP_SENDER] == 1
    assert wall.accepted == 0


def test_malformed_frames_dropped():
    wall, remote = pair()
    frame = remote.command(0)
    assert wall.receive(frame[:-1]) is None and wall.drops[radio.DROP_SIZE] == 1  # truncated
    assert wall.receive(frame + b"\x00") is None and wall.drops[radio.DROP_SIZE] == 2  # oversize
    assert wall.receive(b"") is None and wall.drops[radio.DROP_SIZE] == 3
    h = radio.Hmac(KEY)
    bad_version = bytearray(frame)
    bad_version[0] = 2
    bad_version[32:48] = h.tag(bytes(bad_version[:32]))
    assert wall.receive(bytes(bad_version)) is None and wall.drops[radio.DROP_VERSION] == 1
    unknown = radio.encode(h, radio.T_COMMAND, REMOTE, 1, 5, 99, 0)  # an unknown command, well signed
    assert wall.receive(unknown) is None and wall.drops[radio.DROP_COMMAND] == 1
    bad_foul = radio.encode(h, radio.T_COMMAND, REMOTE, 1, 6, 6, 200)
    assert wall.receive(bad_foul) is None and wall.drops[radio.DROP_COMMAND] == 2
    an_ack = radio.encode(h, radio.T_ACK, REMOTE, 1, 7, 0, 0, (0, 0, 0, 0, 0, 0))  # wrong type
    assert wall.receive(an_ack) is None and wall.drops[radio.DROP_TYPE] == 1
    assert wall.accepted == 0 and wall.last == (0, 0)
    assert wall.receive(frame)[3] is True  # the genuine frame still goes through


def test_restarted_remote_never_reuses_a_sequence_number():
    wall, remote = pair(boot=1)
    for _ in range(5):
        assert wall.receive(remote.command(0))[3]
    restarted = radio.Sender(KEY, WALL, REMOTE, boot=2)  # the boot counter moved on; the counter restarts
    assert wall.receive(restarted.command(0)) == (0, 0, (2, 1), True)
    stale = radio.Sender(KEY, WALL, REMOTE, boot=1, counter=3)  # an old power-on: refused
    assert wall.receive(stale.command(0)) is None


def test_remote_ignores_foreign_or_stale_acks():
    wall, remote = pair()
    got = wall.receive(remote.command(0))
    old_ack = wall.ack(got[2], 0, 0, (1, 0, 0, 1, 255, 0))
    remote.command(1)  # a newer command is pending
    assert remote.acked(old_ack) is None
    forged = radio.Receiver(bytes(32), REMOTE, WALL).ack((1, 2), 1, 0, (0, 0, 0, 0, 0, 0))
    assert remote.acked(forged) is None and remote.pending is not None


def test_keys_and_macs():
    raises(ValueError, radio.Receiver, b"short", REMOTE, WALL)
    raises(ValueError, radio.Sender, b"x" * 33, WALL, REMOTE, 1)
    assert radio.mac_bytes("24:0a:c4:00:00:02") == REMOTE == radio.mac_bytes("240ac4000002")
    raises(ValueError, radio.mac_bytes, "24:0a")
