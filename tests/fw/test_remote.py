"""The remote's link: retransmission until acknowledged, given up after TRIES; a challenge
from a wall that lost its record answered in the same loop; RTC record; boot counter."""

import radio
import remote

KEY = bytes(range(32))
WALL = b"\x24\x0a\xc4\x00\x00\x01"
REMOTE = b"\x24\x0a\xc4\x00\x00\x02"
SUMMARY = (1, 0, 0, 1, 255, 0)


def link(boot=1, counter=0):
    return remote.Link(remote.Sender(KEY, WALL, REMOTE, boot, counter))


def wall_takes(wall, frame):
    """The wall board's part (app.Board.radio_frame): a reply, or the ack of a command acted on."""
    got = wall.receive(frame)
    if got is None:
        return wall.reply()
    if got[3]:
        wall.accept(got[2])
    return wall.ack(got[2], got[0], got[1], SUMMARY)


def test_retransmits_every_50_ms_until_acknowledged():
    wall = radio.Receiver(KEY, REMOTE, WALL)
    remote_link = link()
    frame = remote_link.start(0, 0, 1000)
    assert remote_link.busy() and remote_link.due(1049) is None
    again = remote_link.due(1050)
    assert again == frame  # the same frame: the same sequence number
    got = wall.receive(again)
    assert got[3] is True
    wall.accept(got[2])
    assert wall.receive(frame)[3] is False  # the first copy arrived late: not acted on twice
    assert remote_link.received(wall.ack(got[2], 0, 0, SUMMARY)) == SUMMARY
    assert not remote_link.busy() and remote_link.due(2000) is None and remote_link.sends == 2


def test_gives_up_after_tries():
    remote_link = link()
    remote_link.start(0, 0, 0)
    t = 0
    sent = 1
    while remote_link.busy():
        t += remote.RETRY_MS
        if remote_link.due(t) is not None:
            sent += 1
    assert sent == remote.TRIES and remote_link.failed


def test_a_challenge_is_answered_at_once_then_acknowledged():
    wall = radio.Receiver(KEY, REMOTE, WALL, None)  # the wall lost /radio.last
    remote_link = link(boot=3, counter=7)
    first = remote_link.start(0, 0, 100)
    challenge = wall_takes(wall, first)
    assert challenge[1] == radio.T_CHALLENGE and wall.accepted == 0
    assert remote_link.received(challenge) is None and remote_link.busy()
    answer = remote_link.due(101)  # at once, not RETRY_MS later
    assert answer is not None and answer != first and answer[:26] == first[:26]  # the same number (3, 8)
    assert (
        remote_link.due(102) is None and remote_link.due(150) is None and remote_link.due(151) == answer
    )  # its retransmissions carry the nonce
    ack = wall_takes(wall, answer)
    assert ack[1] == radio.T_ACK and wall.accepted == 1 and wall.last == (3, 8)
    assert wall_takes(wall, answer)[1] == radio.T_ACK and wall.accepted == 1  # a copy: acknowledged again
    assert remote_link.received(ack) == SUMMARY and not remote_link.busy() and not remote_link.failed
    assert remote_link.sends == 3 and remote_link.challenges == 1
    nxt = remote_link.start(1, 0, 300)  # from now on by numbers, without a nonce
    assert nxt[26:34] == bytes(8) and wall_takes(wall, nxt)[1] == radio.T_ACK and wall.last == (3, 9)


def test_a_late_challenge_gives_the_command_its_tries_again_once():
    wall = radio.Receiver(KEY, REMOTE, WALL, None)
    remote_link = link()
    remote_link.start(0, 0, 0)
    t = 0
    for _ in range(remote.TRIES - 1):  # every try lost but the last
        t += remote.RETRY_MS
        frame = remote_link.due(t)
    assert remote_link.tries == remote.TRIES
    remote_link.received(wall_takes(wall, frame))  # the last try is challenged: ten tries more
    sent = 0
    while remote_link.busy():
        if remote_link.due(t) is not None:
            sent += 1
        t += remote.RETRY_MS
    assert sent == remote.TRIES and remote_link.failed  # all lost too: given up, at most 2 * TRIES in all
    assert remote_link.sends == 2 * remote.TRIES and wall.accepted == 0


def test_a_second_challenge_does_not_start_the_tries_again():
    """Challenges replayed to the remote can never keep it sending."""
    remote_link = link()
    walls = [radio.Receiver(KEY, REMOTE, WALL, None) for _ in range(2)]
    frame = remote_link.start(0, 0, 0)
    challenges = [w.receive(frame) or w.reply() for w in walls]  # two nonces for one command
    t = 0
    k = 0
    while remote_link.busy():
        remote_link.received(challenges[k % 2])  # an attacker keeps replaying them, one after the other
        k += 1
        t += 1
        remote_link.due(t)
    assert remote_link.failed and remote_link.sends <= 2 * remote.TRIES


def test_foreign_frames_do_not_disturb_the_link():
    remote_link = link()
    frame = remote_link.start(0, 0, 0)
    other = radio.Receiver(bytes(32), REMOTE, WALL, None)  # another key
    other.receive(remote.Sender(bytes(32), WALL, REMOTE, 1).command(0))
    for junk in (b"", bytes(56), other.reply(), frame):
        assert remote_link.received(junk) is None
    assert remote_link.due(10) is None and remote_link.frame == frame and remote_link.challenges == 0


def test_rtc_record_and_boot_counter():
    assert remote.read_rtc(remote.rtc_record(7, 123456)) == (7, 123456)
    top = remote.rtc_record(radio.MAX_BOOT, radio.MAX_COUNTER)
    assert len(top) == remote.RTC_LEN and remote.read_rtc(top) == (2**30 - 1, 2**30 - 1)
    assert remote.read_rtc(b"") is None and remote.read_rtc(b"XX" + bytes(8)) is None
    assert remote.read_rtc(b"RM" + bytes(6)) is None  # the old 8-byte record: a new boot
    assert remote.next_boot("41") == 42 and remote.next_boot("") == 1 and remote.next_boot("junk") == 1
    assert remote.next_boot("65535") == 65536  # no longer the wrap of a u16
    assert remote.next_boot(str(radio.MAX_BOOT - 1)) == radio.MAX_BOOT
    assert remote.next_boot(str(radio.MAX_BOOT)) is None  # never wraps: the remote asks to be paired again
    assert remote.next_boot("99999999999999999999") is None and remote.next_boot("-5") == 1
