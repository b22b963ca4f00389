"""The remote's radio protocol: what the wall accepts, what it drops, how it challenges
when it lost its record; both interpreters."""

import struct

import radio
import remote
from remote import Sender
from fwtest import raises

KEY = bytes(range(32))
WALL = b"\x24\x0a\xc4\x00\x00\x01"
REMOTE = b"\x24\x0a\xc4\x00\x00\x02"
SUMMARY = (1, 0, 0, 1, 255, 0)


def pair(last=(0, 0), boot=1, urandom=None):
    return radio.Receiver(KEY, REMOTE, WALL, last, urandom), Sender(KEY, WALL, REMOTE, boot)


def take(wall, frame):
    """What the wall board does with a frame: receive, and a new command's number recorded."""
    got = wall.receive(frame)
    if got is not None and got[3]:
        wall.accept(got[2])
    return got


def counting_urandom():
    """Nonces 1, 2, 3... (8 bytes each), so a test can tell them apart."""
    made = [0]

    def urandom(n):
        made[0] += 1
        return struct.pack("<Q", made[0])[:n]

    return urandom


def test_hmac_known_answer():
    # RFC 4231, test case 2.
    h = radio.Hmac(b"Jefe")
    assert h.tag(b"what do ya want for nothing?") == bytes.fromhex("5bdcc146bf60754e6a042426089575c7")


def test_layout():
    wall, remote = pair(boot=radio.MAX_BOOT)
    frame = remote.command(6, 4)
    assert len(frame) == radio.FRAME_LEN == 56 <= 250
    assert frame[0] == radio.VERSION == 2 and frame[1] == radio.T_COMMAND and frame[2:8] == REMOTE
    assert struct.unpack_from("<II", frame, 8) == (2**30 - 1, 1)
    assert frame[16:18] == b"\x06\x04" and frame[18:40] == bytes(22)  # no summary, no nonce
    assert frame[40:] == radio.Hmac(KEY).tag(frame[:40])
    ack = wall.ack((7, 9), 0, 0, (300, 2, 1, 3, 255, 4))
    assert struct.unpack_from("<II", ack, 8) == (7, 9) and ack[1] == radio.T_ACK
    assert struct.unpack_from("<HHBBBB", ack, 18) == (300, 2, 1, 3, 255, 4) and ack[26:40] == bytes(14)


def test_command_accepted_once_and_acknowledged():
    wall, remote = pair()
    frame = remote.command(0)  # point
    got = wall.receive(frame)
    assert got == (0, 0, (1, 1), True)
    assert wall.last == (0, 0) and wall.accepted == 0  # nothing recorded until the wall says so
    assert wall.receive(frame) == (0, 0, (1, 1), True)  # so it is still new (the wall did not act)
    wall.accept(got[2])
    ack = wall.ack(got[2], 0, 0, SUMMARY)
    assert remote.acked(ack) == SUMMARY
    assert remote.pending is None
    # A retransmission (its ack was lost): acknowledged again, not acted on.
    assert wall.receive(frame) == (0, 0, (1, 1), False)
    assert wall.accepted == 1 and wall.repeats == 1


def test_accept_then_revert():
    wall, remote = pair(last=(3, 4))
    frame = remote.command(14)  # boot 1 < 3: a replay
    assert wall.receive(frame) is None and wall.drops[radio.DROP_REPLAY] == 1
    wall, remote = pair(last=(3, 4), boot=4)
    frame = remote.command(14)
    got = wall.receive(frame)
    wall.accept(got[2])
    wall.revert()  # not acted on after all (a MemoryError): the same frame is new again
    assert wall.last == (3, 4) and wall.accepted == 0
    assert take(wall, frame) == (14, 0, (4, 1), True) and wall.last == (4, 1)


def test_replayed_and_reordered_frames_dropped():
    wall, remote = pair()
    first = remote.command(0)
    second = remote.command(1)
    assert take(wall, second)[3] is True
    assert wall.receive(first) is None  # older than the newest accepted
    assert wall.drops[radio.DROP_REPLAY] == 1
    assert wall.reply() is None  # a wall that knows its last number never challenges


def test_forged_frames_dropped():
    wall, remote = pair()
    frame = bytearray(remote.command(0))
    frame[16] = 11  # undo instead of point: the tag no longer fits
    assert wall.receive(bytes(frame)) is None and wall.drops[radio.DROP_TAG] == 1
    other = Sender(bytes(32), WALL, REMOTE, 1)  # the wrong key
    assert wall.receive(other.command(0)) is None and wall.drops[radio.DROP_TAG] == 2
    stranger = Sender(KEY, WALL, b"\x01\x02\x03\x04\x05\x06", 1)  # not the paired remote
    assert wall.receive(stranger.command(0)) is None and wall.drops[radio.DROP_SENDER] == 1
    assert wall.accepted == 0


def test_malformed_frames_dropped():
    wall, remote = pair()
    frame = remote.command(0)
    assert wall.receive(frame[:-1]) is None and wall.drops[radio.DROP_SIZE] == 1  # truncated
    assert wall.receive(frame + b"\x00") is None and wall.drops[radio.DROP_SIZE] == 2  # oversize
    assert wall.receive(b"") is None and wall.drops[radio.DROP_SIZE] == 3
    h = radio.Hmac(KEY)
    old = bytearray(48)  # a version 1 frame, well signed with the version 1 layout
    struct.pack_into("<BB6sHIBB", old, 0, 1, 1, REMOTE, 1, 9, 0, 0)
    old[32:48] = h.tag(bytes(old[:32]))
    assert wall.receive(bytes(old)) is None and wall.drops[radio.DROP_SIZE] == 4
    bad_version = bytearray(frame)
    bad_version[0] = 1
    bad_version[40:56] = h.tag(bytes(bad_version[:40]))
    assert wall.receive(bytes(bad_version)) is None and wall.drops[radio.DROP_VERSION] == 1
    unknown = radio.encode(h, radio.T_COMMAND, REMOTE, 1, 5, 99, 0)  # an unknown command, well signed
    assert wall.receive(unknown) is None and wall.drops[radio.DROP_COMMAND] == 1
    bad_foul = radio.encode(h, radio.T_COMMAND, REMOTE, 1, 6, 6, 200)
    assert wall.receive(bad_foul) is None and wall.drops[radio.DROP_COMMAND] == 2
    big_boot = radio.encode(h, radio.T_COMMAND, REMOTE, 2**30, 1, 0, 0)
    assert wall.receive(big_boot) is None and wall.drops[radio.DROP_COMMAND] == 3
    big_counter = radio.encode(h, radio.T_COMMAND, REMOTE, 2, 2**32 - 1, 0, 0)
    assert wall.receive(big_counter) is None and wall.drops[radio.DROP_COMMAND] == 4
    an_ack = radio.encode(h, radio.T_ACK, REMOTE, 1, 7, 0, 0, (0, 0, 0, 0, 0, 0))  # wrong type
    assert wall.receive(an_ack) is None and wall.drops[radio.DROP_TYPE] == 1
    a_challenge = radio.encode(h, radio.T_CHALLENGE, REMOTE, 1, 7, 0, 0, None, b"12345678")
    assert wall.receive(a_challenge) is None and wall.drops[radio.DROP_TYPE] == 2
    assert wall.accepted == 0 and wall.last == (0, 0)
    assert take(wall, frame)[3] is True  # the genuine frame still goes through


def test_restarted_remote_never_reuses_a_sequence_number():
    wall, remote = pair(boot=1)
    for _ in range(5):
        assert take(wall, remote.command(0))[3]
    restarted = Sender(KEY, WALL, REMOTE, boot=2)  # the boot counter moved on; the counter restarts
    assert take(wall, restarted.command(0)) == (0, 0, (2, 1), True)
    stale = Sender(KEY, WALL, REMOTE, boot=1, counter=3)  # an old power-on: refused
    assert wall.receive(stale.command(0)) is None


def test_remote_ignores_foreign_or_stale_acks():
    wall, remote = pair()
    got = take(wall, remote.command(0))
    old_ack = wall.ack(got[2], 0, 0, SUMMARY)
    remote.command(1)  # a newer command is pending
    assert remote.acked(old_ack) is None
    forged = radio.Receiver(bytes(32), REMOTE, WALL).ack((1, 2), 1, 0, (0, 0, 0, 0, 0, 0))
    assert remote.acked(forged) is None and remote.pending is not None


def test_boot_counter_and_counter_limits():
    raises(ValueError, Sender, KEY, WALL, REMOTE, radio.MAX_BOOT + 1)
    remote = Sender(KEY, WALL, REMOTE, radio.MAX_BOOT, radio.MAX_COUNTER - 1)
    assert not remote.exhausted()
    wall = radio.Receiver(KEY, REMOTE, WALL, (radio.MAX_BOOT, radio.MAX_COUNTER - 2))
    assert take(wall, remote.command(0)) == (0, 0, (radio.MAX_BOOT, radio.MAX_COUNTER), True)
    assert remote.exhausted()
    raises(ValueError, remote.command, 0)  # never a number past 2**30-1, never one used again


# ---- a wall that lost its record ----------------------------------------------------------


def test_lost_record_challenge_then_the_answer_is_acted_on():
    wall, remote = pair(last=None, boot=5, urandom=counting_urandom())
    frame = remote.command(0)
    assert wall.receive(frame) is None and wall.drops[radio.DROP_UNPROVEN] == 1
    challenge = wall.reply()
    assert len(challenge) == radio.FRAME_LEN and challenge[1] == radio.T_CHALLENGE
    assert challenge[2:8] == WALL and struct.unpack_from("<II", challenge, 8) == (5, 1)
    assert challenge[26:34] == struct.pack("<Q", 1) and wall.nonce == challenge[26:34]
    assert wall.reply() is None  # one challenge per frame dropped
    assert remote.acked(challenge) is None  # not an acknowledgement
    answer = remote.challenged(challenge)
    assert answer != frame and answer[:26] == frame[:26] and answer[26:34] == wall.nonce
    assert remote.pending == ((5, 1), answer)  # the same number, retransmissions carry the nonce
    got = wall.receive(answer)
    assert got == (0, 0, (5, 1), True)
    wall.accept(got[2])
    assert wall.last == (5, 1) and wall.nonce is None
    assert wall.receive(answer) == (0, 0, (5, 1), False)  # a retransmission of the answer
    assert wall.receive(frame) == (0, 0, (5, 1), False)  # or of the first copy: the same command
    assert remote.acked(wall.ack((5, 1), 0, 0, SUMMARY)) == SUMMARY
    assert take(wall, remote.command(1)) == (1, 0, (5, 2), True)  # by numbers again, no nonce
    assert wall.challenges == 1


def test_lost_record_replays_never_act():
    """Frames recorded before the record was lost, with no nonce or with an old one."""
    wall, remote = pair(last=None, boot=1, urandom=counting_urandom())
    old = remote.command(0)
    wall.receive(old)
    old_challenge = wall.reply()
    old_answer = remote.challenged(old_challenge)
    take(wall, old_answer)
    older = [old, old_answer]
    for _ in range(3):
        older.append(remote.command(0))
        take(wall, older[-1])
    # The wall restarts and its record is gone; the remote was not restarted.
    wall = radio.Receiver(KEY, REMOTE, WALL, None)  # nonces from os.urandom, as on the board
    for _ in range(2):
        for f in older:
            assert wall.receive(f) is None  # not even the newest: its freshness cannot be proved
            assert wall.reply()[1] == radio.T_CHALLENGE
    assert wall.accepted == 0 and wall.drops[radio.DROP_UNPROVEN] == 2 * len(older)
    assert wall.nonce not in (None, bytes(8), old_answer[26:34])
    # The remote's next command, answering the challenge, is acted on; then the old ones are replays.
    fresh = remote.command(3)
    assert wall.receive(fresh) is None
    got = take(wall, remote.challenged(wall.reply()))
    assert got == (3, 0, remote.pending[0], True)
    for f in older:
        assert wall.receive(f) is None
    assert wall.drops[radio.DROP_REPLAY] == len(older) and wall.accepted == 1


def test_lost_record_nonce_kept_until_used_and_only_the_current_one_counts():
    wall, remote = pair(last=None, urandom=counting_urandom())
    first = remote.command(0)
    wall.receive(first)
    c1 = wall.reply()
    wall.receive(first)  # a retransmission crossed the challenge: challenged again, the same nonce
    c2 = wall.reply()
    assert c1 == c2 and wall.challenges == 2
    answer = remote.challenged(c1)
    forged = bytearray(answer)
    forged[26] ^= 1  # another nonce, the tag left as it was
    assert wall.receive(bytes(forged)) is None and wall.drops[radio.DROP_TAG] == 1
    h = radio.Hmac(KEY)  # well signed, with a nonce that is not the wall's
    wrong = radio.encode(h, radio.T_COMMAND, REMOTE, 1, 1, 0, 0, None, b"\x02" + bytes(7))
    assert wall.receive(wrong) is None and wall.reply() is not None
    assert take(wall, answer)[3] is True


def test_remote_ignores_foreign_or_stale_challenges():
    wall, remote = pair(last=None)
    first = remote.command(0)
    wall.receive(first)
    challenge = wall.reply()
    remote.command(1)  # a newer command is pending: the challenge to the older one means nothing
    assert remote.challenged(challenge) is None
    other = radio.Receiver(bytes(32), REMOTE, WALL, None)  # another key
    other.receive(Sender(bytes(32), WALL, REMOTE, 1, 1).command(1))
    assert remote.challenged(other.reply()) is None
    h = radio.Hmac(KEY)
    no_nonce = radio.encode(h, radio.T_CHALLENGE, WALL, 1, 2, 0, 0)  # a zero nonce is no nonce
    assert remote.challenged(no_nonce) is None
    as_ack = radio.encode(h, radio.T_ACK, WALL, 1, 2, 0, 0, (0, 0, 0, 0, 0, 0))
    assert remote.challenged(as_ack) is None and remote.pending[0] == (1, 2)


def test_zero_from_the_random_source_is_not_a_nonce():
    wall, remote = pair(last=None, urandom=lambda n: bytes(n))
    wall.receive(remote.command(0))
    c = wall.reply()
    assert c[26:34] != bytes(8)
    assert take(wall, remote.challenged(c))[3] is True


def test_keys_and_macs():
    raises(ValueError, radio.Receiver, b"short", REMOTE, WALL)
    raises(ValueError, Sender, b"x" * 33, WALL, REMOTE, 1)
    assert remote.mac_bytes("24:0a:c4:00:00:02") == REMOTE == remote.mac_bytes("240ac4000002")
    raises(ValueError, remote.mac_bytes, "24:0a")


def test_the_protocols_codes_are_radionames():
    """radio.X is the protocol's code in radionames.py; every drop reason has its name."""
    import radionames
    import remote

    assert radio.T_COMMAND == radionames.T_COMMAND
    assert len(remote.DROP_NAMES) == len(radio.Receiver(b"k" * 32, b"p" * 6, b"o" * 6).drops) == radionames.N_DROPS


def test_command_and_foul_counts_agree_with_controller_and_rules():
    """radionames.py and matchnames.py say how many commands (controller.ACTIONS) and foul
    kinds (rules.FOULS) there are, and which command is the foul: checked here."""
    import controller
    import matchnames
    import radionames
    import rules

    assert radionames.N_COMMANDS == len(controller.ACTIONS)
    assert matchnames.N_FOULS == len(rules.FOULS)
    assert radionames.FOUL == controller.ACTIONS.index("foul")
    wall, remote_side = pair()
    assert take(wall, remote_side.command(radionames.N_COMMANDS - 1))[0] == radionames.N_COMMANDS - 1
    assert wall.receive(remote_side.command(radionames.N_COMMANDS)) is None
    assert take(wall, remote_side.command(radionames.FOUL, matchnames.N_FOULS - 1))[1] == matchnames.N_FOULS - 1
    assert wall.receive(remote_side.command(radionames.FOUL, matchnames.N_FOULS)) is None
