"""The remote's link: retransmission until acknowledged, given up after TRIES; RTC record."""

import radio
import remote

KEY = bytes(range(32))
WALL = b"\x24\x0a\xc4\x00\x00\x01"
REMOTE = b"\x24\x0a\xc4\x00\x00\x02"


def link(boot=1, counter=0):
    return remote.Link(radio.Sender(KEY, WALL, REMOTE, boot, counter))


def test_retransmits_every_50_ms_until_acknowledged():
    wall = radio.Receiver(KEY, REMOTE, WALL)
    l = link()
    frame = l.start(0, 0, 1000)
    assert l.busy() and l.due(1049) is None
    again = l.due(1050)
    assert again == frame  # the same frame: the same sequence number
    got = wall.receive(again)
    assert got[3] is True
    assert wall.receive(frame)[3] is False  # the first copy arrived late: not acted on twice
    assert l.received(wall.ack(got[2], 0, 0, (1, 0, 0, 1, 255, 0))) == (1, 0, 0, 1, 255, 0)
    assert not l.busy() and l.due(2000) is None and l.sends == 2


def test_gives_up_after_tries():
    l = link()
    l.start(0, 0, 0)
    t = 0
    sent = 1
    while l.busy():
        t += remote.RETRY_MS
        if l.due(t) is not None:
            sent += 1
    assert sent == remote.TRIES and l.failed


def test_rtc_record_and_boot_counter():
    assert remote.read_rtc(remote.rtc_record(7, 123456)) == (7, 123456)
    assert remote.read_rtc(b"") is None and remote.read_rtc(b"XX" + bytes(6)) is None
    assert remote.next_boot("41") == 42 and remote.next_boot("") == 1 and remote.next_boot("65535") == 1
