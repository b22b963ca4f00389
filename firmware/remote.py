"""The referee remote's link to its wall board: one command at a time, acknowledged.

Pure: frames and time come in as arguments; app_remote.py moves the frames
over ESP-NOW and sleeps between presses.

    link = Link(Sender(key, wall_mac, own_mac, boot, counter))
    frame = link.start(command, arg, now)     # send it
    frame = link.due(now)                     # a frame to send now, or None
    summary = link.received(data)             # the acknowledgement's summary, or None

A command is sent again every RETRY_MS until its acknowledgement arrives, at
most TRIES times; then `failed` is set. The wall acts on a retransmission
only once (same sequence number) and acknowledges it again. A wall that lost
its record of the last number answers with a challenge (radio.py): the
pending command goes again at once, with the challenge's nonce, in the same
loop; the first challenge of a command gives it TRIES tries more (a second
one does not: the sends of a command stay at most 2 * TRIES).
"""

import struct

import radio
from radio import MAX_BOOT, MAX_COUNTER, NO_NONCE
from radionames import AT_COMMAND, KEY_LEN, T_ACK, T_CHALLENGE, T_COMMAND
from ticks import ticks_diff

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


# The drop reasons' names, in radionames.py's order (DROP_SIZE...).
DROP_NAMES = ("size", "version", "type", "sender", "tag", "replay", "command", "unproven")


def check_key(key):
    if len(key) != KEY_LEN:
        raise ValueError("the pairing key must be %d bytes" % KEY_LEN)


def hex_key(text):
    """The 32-byte key from its 64 hex digits (config.json's radio.key)."""
    if len(text) != 2 * KEY_LEN:
        raise ValueError("the pairing key is %d hex digits" % (2 * KEY_LEN))
    return _unhex(text)


def mac_bytes(text):
    """b'...' (6 bytes) from "aa:bb:cc:dd:ee:ff" or 12 hex digits."""
    text = text.replace(":", "")
    if len(text) != 12:
        raise ValueError("a MAC address has 6 bytes")
    return _unhex(text)


def _unhex(text):
    """The bytes of an even number of hex digits (ValueError when one is not): the remote's
    parser of the radio's key and address (config.py checks them; the wall board's start,
    startup.setup_radio, reads the checked ones with binascii, without loading this module)."""
    return bytes(int(text[i : i + 2], 16) for i in range(0, len(text), 2))


RETRY_MS = const(50)
TRIES = const(10)

# RTC memory of the remote (kept through deep sleep, lost at power-on):
# b"RM", boot counter (u32), counter (u32).
_RTC = "<2sII"
RTC_LEN = const(10)


class Link:
    def __init__(self, sender):
        self.sender = sender
        self.frame = None  # the command waiting for its acknowledgement
        self.sent_at = 0
        self.tries = 0
        self.failed = False
        self.now = False  # the frame goes (again) at the next due(): it answers a challenge
        self.challenged = False  # the pending command was challenged (its tries started again)
        self.summary = None  # the newest acknowledged state
        self.sends = 0  # frames sent, retransmissions included
        self.challenges = 0  # challenges answered

    def busy(self):
        return self.frame is not None

    def start(self, command, arg, now):
        """A new command (a new sequence number): the frame to send now."""
        self.frame = self.sender.command(command, arg)
        self.sent_at = now
        self.tries = 1
        self.failed = False
        self.now = False
        self.challenged = False
        self.sends += 1
        return self.frame

    def due(self, now):
        """The frame to send (again) now, or None (nothing pending, not yet, or given up)."""
        if self.frame is None or (not self.now and ticks_diff(now, self.sent_at) < RETRY_MS):
            return None
        if self.tries >= TRIES:
            self.frame = None
            self.failed = True
            return None
        self.now = False
        self.tries += 1
        self.sent_at = now
        self.sends += 1
        return self.frame

    def received(self, data):
        """The summary if `data` acknowledges the pending command (None otherwise; a
        challenge to it makes due() give the command with the challenge's nonce at once)."""
        summary = self.sender.acked(data)
        if summary is not None:
            self.frame = None
            self.summary = summary
            return summary
        if self.frame is not None:
            frame = self.sender.challenged(data)
            if frame is not None:
                self.frame = frame
                self.now = True
                self.challenges += 1
                if not self.challenged:
                    self.challenged = True
                    self.tries = 0
        return None


def rtc_record(boot, counter):
    return struct.pack(_RTC, b"RM", boot, counter)


def read_rtc(mem):
    """(boot, counter) kept in RTC memory, or None."""
    if len(mem) < RTC_LEN or mem[:2] != b"RM":
        return None
    fields = struct.unpack(_RTC, mem[:RTC_LEN])
    return fields[1], fields[2]


def next_boot(text):
    """The boot counter after a power-on, from the file's text; None when it is at MAX_BOOT:
    it never wraps (a number used again would be refused, or taken for a retransmission).
    `carom pair` removes the file: the next power-on starts again at 1."""
    try:
        boot = int(text)
    except ValueError:
        boot = 0
    if boot >= MAX_BOOT:
        return None
    return max(boot, 0) + 1


class Sender:
    """The remote's side: numbered commands, and which acknowledgement answers them."""

    def __init__(self, key, peer, own_id, boot, counter=0):
        check_key(key)
        if not 0 <= boot <= MAX_BOOT:
            raise ValueError("the boot counter is 0..2**30-1")
        self.hmac = radio.Hmac(key)
        self.peer = peer  # the paired wall board's id
        self.own_id = own_id
        self.boot = boot
        self.counter = counter
        self.pending = None  # (seq, frame) waiting for its acknowledgement

    def exhausted(self):
        """No number left in this power-on: the boot counter must move on first."""
        return self.counter >= MAX_COUNTER

    def command(self, command, arg=0):
        """A new command frame; its sequence number is never used again."""
        if self.exhausted():
            raise ValueError("counter exhausted: the boot counter must move on")
        self.counter += 1
        frame = radio.encode(self.hmac, T_COMMAND, self.own_id, self.boot, self.counter, command, arg)
        self.pending = ((self.boot, self.counter), frame)
        return frame

    def _answers(self, data, kind):
        """The decoded frame (radio.decode) if `data` is an authentic `kind` answering the
        pending command."""
        if self.pending is None or radio.check(self.hmac, data, kind, self.peer) >= 0:
            return None
        f = radio.decode(data)
        return f if (f[2], f[3]) == self.pending[0] else None

    def acked(self, data):
        """The summary if `data` acknowledges the pending command, else None."""
        f = self._answers(data, T_ACK)
        if f is None:
            return None
        self.pending = None
        return f[6]

    def challenged(self, data):
        """If `data` is the wall's challenge to the pending command: that command again
        (the same number), carrying the challenge's nonce; else None."""
        f = self._answers(data, T_CHALLENGE)
        if f is None or f[7] == NO_NONCE:
            return None
        seq, frame = self.pending
        frame = radio.encode(
            self.hmac, T_COMMAND, self.own_id, seq[0], seq[1], frame[AT_COMMAND], frame[AT_COMMAND + 1], None, f[7]
        )
        self.pending = (seq, frame)
        return frame
