"""The referee remote's link to its wall board: one command at a time, acknowledged.

Pure: frames and time come in as arguments; app_remote.py moves the frames
over ESP-NOW and sleeps between presses.

    link = Link(radio.Sender(key, wall_mac, own_mac, boot, counter))
    frame = link.start(command, arg, now)     # send it
    frame = link.due(now)                     # a retransmission to send, or None
    summary = link.received(data)             # the acknowledgement's summary, or None

A command is sent again every RETRY_MS until its acknowledgement arrives, at
most TRIES times; then `failed` is set. The wall acts on a retransmission
only once (same sequence number) and acknowledges it again.
"""

import struct

from ticks import ticks_diff


RETRY_MS = 50
TRIES = 10

# RTC memory of the remote (kept through deep sleep, lost at power-on):
# b"RM", boot counter (u16), counter (u32).
_RTC = "<2sHI"
RTC_LEN = 8


class Link:
    def __init__(self, sender):
        self.sender = sender
        self.frame = None  # the command waiting for its acknowledgement
        self.sent_at = 0
        self.tries = 0
        self.failed = False
        self.summary = None  # the newest acknowledged state
        self.sends = 0  # frames sent, retransmissions included

    def busy(self):
        return self.frame is not None

    def start(self, command, arg, now):
        """A new command (a new sequence number): the frame to send now."""
        self.frame = self.sender.command(command, arg)
        self.sent_at = now
        self.tries = 1
        self.failed = False
        self.sends += 1
        return self.frame

    def due(self, now):
        """The frame to send again now, or None (nothing pending, not yet, or given up)."""
        if self.frame is None or ticks_diff(now, self.sent_at) < RETRY_MS:
            return None
        if self.tries >= TRIES:
            self.frame = None
            self.failed = True
            return None
        self.tries += 1
        self.sent_at = now
        self.sends += 1
        return self.frame

    def received(self, data):
        """The summary if `data` acknowledges the pending command."""
        summary = self.sender.acked(data)
        if summary is not None:
            self.frame = None
            self.summary = summary
        return summary


def rtc_record(boot, counter):
    return struct.pack(_RTC, b"RM", boot, counter)


def read_rtc(mem):
    """(boot, counter) kept in RTC memory, or None."""
    if len(mem) < RTC_LEN or mem[:2] != b"RM":
        return None
    fields = struct.unpack(_RTC, mem[:RTC_LEN])
    return fields[1], fields[2]


def next_boot(text):
    """The boot counter after a power-on, from the file's text (the counter wraps at 65535)."""
    try:
        boot = int(text)
    except ValueError:
        boot = 0
    return boot % 65535 + 1
