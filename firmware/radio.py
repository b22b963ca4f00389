"""The referee remote's radio protocol: authenticated commands, acknowledgements,
and the wall's challenge when it lost its record.

Pure: frames in and out as bytes; the apps move them over ESP-NOW. A frame
(at most 250 bytes, ESP-NOW's limit; ours are 56), version 2, a field a line
(offset, size in bytes, what; docs/reference/radio.md is made from this table,
and tests/host/test_docs_reference.py holds it to the code below):

    0  1  version: 2
    1  1  type: 1 command (remote -> wall), 2 acknowledgement, 3 challenge (wall -> remote)
    2  6  sender id: the sender's station MAC address
    8  4  boot counter (u32, < 2**30): the remote's power-ons, kept on its flash (remote.boot)
   12  4  counter (u32, < 2**30): commands since that power-on, kept in RTC memory through
          the deep sleep between presses
   16  1  command: an index into controller.ACTIONS
   17  1  argument: the foul kind (an index into rules.FOULS) for a foul, else 0
   18  2  acknowledgement only: score A (u16)
   20  2  acknowledgement only: score B (u16)
   22  1  acknowledgement only: turn (0 A, 1 B, 255 none)
   23  1  acknowledgement only: phase (the rules' phase code)
   24  1  acknowledgement only: countdown (255 none)
   25  1  acknowledgement only: result (0 none, 1 A, 2 B, 3 draw, 4 tiebreak)
   26  8  nonce: a challenge's, and the command answering it; else zero
   34  6  reserved, zero
   40 16  tag: HMAC-SHA256(key, bytes 0..39), its first 16 bytes

All numbers little-endian and below 2**30 (small ints on a 32-bit MicroPython).
The sequence number is (boot counter, counter), compared in that order; the
remote never uses one twice. An acknowledgement and a challenge carry the
sequence number of the command they answer.

The wall acts on a command only from its paired remote, with a valid tag, the
right version and type, a known command and a sequence number above the last
one acted on; the same number again is a retransmission: acknowledged again,
not acted on. Everything else is dropped and counted.

When the wall does not know the last number (its record is lost or
unreadable) it cannot tell a new command from a replay: it acts on none, and
answers an authentic command with a challenge carrying a random nonce (made
once, kept until used). The remote sends its pending command again with that
nonce; the wall acts on it only with its current nonce, records the number,
forgets the nonce and from then on works by numbers again. An old frame
carries no nonce or an old one: never acted on.
"""

import hashlib
import os
import struct

from matchnames import N_FOULS
from radionames import (
    DROP_COMMAND,
    DROP_REPLAY,
    DROP_SENDER,
    DROP_SIZE,
    DROP_TAG,
    DROP_TYPE,
    DROP_UNPROVEN,
    DROP_VERSION,
    FOUL,
    FRAME_LEN,
    KEY_LEN,
    NONCE_LEN,
    N_COMMANDS,
    N_DROPS,
    SIGNED,
    TAG_LEN,
    T_ACK,
    T_CHALLENGE,
    T_COMMAND,
    VERSION,
)

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


# The layout, kinds and drop reasons are radionames.py's (the build compiles them in: no RAM
# on the wall); the numbers a remote keeps are these.
MAX_COUNTER = const(0x3FFFFFFF)  # 2**30 - 1: small ints on a 32-bit MicroPython
MAX_BOOT = const(0x3FFFFFFF)

_HEAD = "<BB6sIIBB"  # version, type, sender, boot, counter, command, arg
_SUMMARY = "<HHBBBB"  # at 18: score A, score B, turn, phase, countdown, result
_AT_SUMMARY = const(18)
_AT_NONCE = const(26)
NO_NONCE = bytes(NONCE_LEN)


class Hmac:
    """HMAC-SHA256 (RFC 2104) with the key's pads made once."""

    def __init__(self, key):
        if not 0 < len(key) <= 64:
            raise ValueError("an HMAC key here has 1..64 bytes")
        inner = bytearray(64)
        inner[: len(key)] = key
        outer = bytearray(inner)
        for i in range(64):  # a loop, not a generator: no code object of its own in RAM
            inner[i] ^= 0x36
            outer[i] ^= 0x5C
        self._inner = bytes(inner)
        self._outer = bytes(outer)

    def tag(self, data):
        """The first 16 bytes of HMAC-SHA256(key, data)."""
        h = hashlib.sha256(self._inner)
        h.update(data)
        inner = h.digest()
        h = hashlib.sha256(self._outer)
        h.update(inner)
        return h.digest()[:TAG_LEN]


def equal(a, b):
    """Compare tags and nonces in time that does not depend on where they differ (publisher_hall.py
    compares its tags with it too)."""
    if len(a) != len(b):
        return False
    diff = 0
    for i in range(len(a)):
        diff |= a[i] ^ b[i]
    return diff == 0


def encode(hmac, kind, sender, boot, counter, command, arg, summary=None, nonce=None):
    buf = bytearray(FRAME_LEN)
    struct.pack_into(_HEAD, buf, 0, VERSION, kind, sender, boot, counter, command, arg)
    if summary is not None:
        struct.pack_into(_SUMMARY, buf, _AT_SUMMARY, *summary)
    if nonce is not None:
        buf[_AT_NONCE : _AT_NONCE + NONCE_LEN] = nonce
    buf[SIGNED:] = hmac.tag(memoryview(buf)[:SIGNED])
    return bytes(buf)


def decode(data):
    """The fields of FRAME_LEN bytes (tag not checked: see Receiver.receive), a tuple:
    (kind, sender, boot, counter, command, arg, summary, nonce); summary is (score A,
    score B, turn, phase, countdown, result) in an acknowledgement, else None. The
    sequence number is (boot, counter): f[2:4]."""
    version, kind, sender, boot, counter, command, arg = struct.unpack_from(_HEAD, data, 0)
    summary = struct.unpack_from(_SUMMARY, data, _AT_SUMMARY) if kind == T_ACK else None
    return (kind, bytes(sender), boot, counter, command, arg, summary, bytes(data[_AT_NONCE : _AT_NONCE + NONCE_LEN]))


def check(hmac, data, kind, sender):
    """The reason a frame is not acceptable (DROP_*), or -1 if its layout, sender and tag are good."""
    if len(data) != FRAME_LEN:
        return DROP_SIZE
    if data[0] != VERSION:
        return DROP_VERSION
    if data[1] != kind:
        return DROP_TYPE
    if sender is not None and bytes(data[2:8]) != sender:
        return DROP_SENDER
    if not equal(hmac.tag(memoryview(data)[:SIGNED]), memoryview(data)[SIGNED:]):
        return DROP_TAG
    return -1


class Receiver:
    """The wall board's side: which commands to act on, the acknowledgements and challenges.

    last: the newest (boot, counter) acted on, as the wall recorded it; None when
    that record is lost: then only a command answering this receiver's challenge
    is acted on. urandom: where nonces come from (os.urandom)."""

    def __init__(self, key, peer, own_id, last=(0, 0), urandom=None):
        if len(key) != KEY_LEN:
            raise ValueError("the pairing key must be %d bytes" % KEY_LEN)
        self.hmac = Hmac(key)
        self.peer = peer  # the paired remote's id (6 bytes)
        self.own_id = own_id
        self.last = last
        self.nonce = None  # while last is None: the challenges' nonce, made at the first one
        self._urandom = urandom or os.urandom
        self._asked = None  # the sequence number of the frame just dropped for want of proof
        self._was_last = last  # before accept(), for revert()
        self._was_nonce = None
        self.drops = [0] * N_DROPS  # by reason (remote.DROP_NAMES)
        self.accepted = 0
        self.repeats = 0
        self.challenges = 0

    def receive(self, data):
        """(command, arg, seq, new) for a good frame — new False for a retransmission —
        or None for a frame that is dropped (and counted). A new command changes
        nothing here: the caller records its number, then calls accept(seq)."""
        self._asked = None
        why = check(self.hmac, data, T_COMMAND, self.peer)
        if why < 0:
            kind, sender, boot, counter, command, arg, summary, nonce = decode(data)
            seq = (boot, counter)
            if (
                command >= N_COMMANDS
                or (command == FOUL and arg >= N_FOULS)
                or counter > MAX_COUNTER
                or boot > MAX_BOOT
            ):
                why = DROP_COMMAND
            elif self.last is None:
                if self.nonce is not None and equal(nonce, self.nonce):
                    return command, arg, seq, True
                why = DROP_UNPROVEN
                self._asked = seq  # reply() challenges it
            elif seq < self.last:
                why = DROP_REPLAY
            elif seq == self.last:
                self.repeats += 1
                return command, arg, seq, False
            else:
                return command, arg, seq, True
        self.drops[why] += 1
        return None

    def accept(self, seq):
        """`seq` was recorded and its command is being acted on: the newest number from now on."""
        self._was_last = self.last  # nothing allocated: a MemoryError cannot come between
        self._was_nonce = self.nonce
        self.last = seq
        self.nonce = None  # used: a frame carrying it is old from now on
        self.accepted += 1

    def revert(self):
        """The command accepted last was not acted on after all: as before accept()."""
        self.last = self._was_last
        self.nonce = self._was_nonce
        self.accepted -= 1

    def reply(self):
        """A frame to send back for the frame just dropped (a challenge), or None."""
        seq = self._asked
        if seq is None:
            return None
        self._asked = None
        if self.nonce is None:
            nonce = self._urandom(NONCE_LEN)
            if nonce == NO_NONCE:  # zero means "no nonce"
                nonce = b"\x01" + nonce[1:]
            self.nonce = nonce
        self.challenges += 1
        return encode(self.hmac, T_CHALLENGE, self.own_id, seq[0], seq[1], 0, 0, None, self.nonce)

    def ack(self, seq, command, arg, summary):
        """The acknowledgement of command `seq`, carrying the new state's summary."""
        return encode(self.hmac, T_ACK, self.own_id, seq[0], seq[1], command, arg, summary)
