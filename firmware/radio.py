"""The referee remote's radio protocol: authenticated commands and acknowledgements.

Pure: frames in and out as bytes; the app moves them over ESP-NOW. A frame
(at most 250 bytes, ESP-NOW's limit; ours are 48):

    0  1  version (1)
    1  1  type: 1 command (remote -> wall), 2 acknowledgement (wall -> remote)
    2  6  sender id (the sender's MAC address)
    8  2  boot counter (u16): the remote's power-ons, persisted on its flash
   10  4  counter (u32, < 2**30): commands since that power-on, kept in RTC
          memory (it survives the deep sleep between presses)
   14  1  command: an index into controller.ACTIONS (point, miss, foul, undo, ...)
   15  1  argument: the foul kind (rules.FOULS) for a foul, else 0
   16  2  ack only: score A (u16)     18  2  score B (u16)
   20  1  ack only: turn (0 A, 1 B, 255 none)    21  1  phase (rules' phase)
   22  1  ack only: countdown (255 none)         23  1  result code (0 none)
   24  8  reserved, zero
   32 16  HMAC-SHA256(key, bytes 0..31), first 16 bytes

All numbers little-endian. The sequence number is (boot counter, counter),
compared in that order. The wall accepts a command only from its paired
remote, with a valid tag, the right version and type, a known command and a
sequence number above the last accepted one; a retransmission (the same
sequence number) is acknowledged again but not acted on. Everything else is
dropped and counted.
"""

import hashlib
import struct

VERSION = 1
T_COMMAND = 1
T_ACK = 2
FRAME_LEN = 48
TAG_LEN = 16
MAX_COUNTER = (1 << 30) - 1  # small ints on a 32-bit MicroPython
KEY_LEN = 32
N_COMMANDS = 15  # controller.ACTIONS
N_FOULS = 11  # rules.FOULS

_HEAD = "<BB6sHIBB"  # version, type, sender, boot, counter, command, arg
_SUMMARY = "<HHBBBB"  # at 16: score A, score B, turn, phase, countdown, result

# Why a frame was dropped (counted per reason).
DROP_SIZE = 0
DROP_VERSION = 1
DROP_TYPE = 2
DROP_SENDER = 3
DROP_TAG = 4
DROP_REPLAY = 5
DROP_COMMAND = 6
DROP_NAMES = ("size", "version", "type", "sender", "tag", "replay", "command")


class Hmac:
    """HMAC-SHA256 (RFC 2104) with the key's pads made once."""

    def __init__(self, key):
        if not 0 < len(key) <= 64:
            raise ValueError("an HMAC key here has 1..64 bytes")
        block = bytearray(64)
        block[:len(key)] = key
        self._inner = bytes(b ^ 0x36 for b in block)
        self._outer = bytes(b ^ 0x5C for b in block)

    def tag(self, data):
        """The first 16 bytes of HMAC-SHA256(key, data)."""
        h = hashlib.sha256(self._inner)
        h.update(data)
        inner = h.digest()
        h = hashlib.sha256(self._outer)
        h.update(inner)
        return h.digest()[:TAG_LEN]


def _check_key(key):
    if len(key) != KEY_LEN:
        raise ValueError("the pairing key must be %d bytes" % KEY_LEN)


def _equal(a, b):
    """Compare tags in time that does not depend on where they differ."""
    if len(a) != len(b):
        return False
    diff = 0
    for i in range(len(a)):
        diff |= a[i] ^ b[i]
    return diff == 0


def hex_key(text):
    """The 32-byte key from its 64 hex digits (config.json's radio.key)."""
    if len(text) != 2 * KEY_LEN:
        raise ValueError("the pairing key is %d hex digits" % (2 * KEY_LEN))
    return bytes(int(text[i:i + 2], 16) for i in range(0, 2 * KEY_LEN, 2))


def mac_bytes(text):
    """b'...' (6 bytes) from "aa:bb:cc:dd:ee:ff" or 12 hex digits."""
    text = text.replace(":", "")
    if len(text) != 12:
        raise ValueError("a MAC address has 6 bytes")
    return bytes(int(text[i:i + 2], 16) for i in range(0, 12, 2))


class Frame:
    """A decoded frame (no checks beyond the layout)."""

    def __init__(self, kind, sender, boot, counter, command, arg, summary=None):
        self.kind = kind
        self.sender = sender
        self.boot = boot
        self.counter = counter
        self.command = command
        self.arg = arg
        self.summary = summary  # (score A, score B, turn, phase, countdown, result) in an ack

    def seq(self):
        return (self.boot, self.counter)


def encode(hmac, kind, sender, boot, counter, command, arg, summary=None):
    buf = bytearray(FRAME_LEN)
    struct.pack_into(_HEAD, buf, 0, VERSION, kind, sender, boot, counter, command, arg)
    if summary is not None:
        struct.pack_into(_SUMMARY, buf, 16, *summary)
    buf[32:48] = hmac.tag(bytes(buf[:32]))
    return bytes(buf)


def decode(data):
    """A Frame from 48 bytes (tag not checked: see Receiver.receive)."""
    version, kind, sender, boot, counter, command, arg = struct.unpack_from(_HEAD, data, 0)
    summary = struct.unpack_from(_SUMMARY, data, 16) if kind == T_ACK else None
    return Frame(kind, bytes(sender), boot, counter, command, arg, summary)


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
    if not _equal(hmac.tag(bytes(data[:32])), data[32:48]):
        return DROP_TAG
    return -1


class Receiver:
    """The wall board's side: which commands to act on, and the acknowledgements."""

    def __init__(self, key, peer, own_id, last=(0, 0)):
        _check_key(key)
        if last is None:  # lost: TODO resynchronize with the remote
            last = (0, 0)
        self.hmac = Hmac(key)
        self.peer = peer  # the paired remote's id (6 bytes)
        self.own_id = own_id
        self.last = last  # the newest accepted (boot, counter)
        self.drops = [0] * len(DROP_NAMES)
        self.accepted = 0
        self.repeats = 0

    def receive(self, data):
        """(command, arg, seq, new) for a good frame — new False for a retransmission —
        or None for a frame that is dropped (and counted)."""
        why = check(self.hmac, data, T_COMMAND, self.peer)
        if why < 0:
            f = decode(data)
            if f.command >= N_COMMANDS or (f.command == 6 and f.arg >= N_FOULS) or f.counter > MAX_COUNTER:
                why = DROP_COMMAND
            elif f.seq() < self.last:
                why = DROP_REPLAY
            elif f.seq() == self.last:
                self.repeats += 1
                return f.command, f.arg, f.seq(), False
            else:
                self.last = f.seq()
                self.accepted += 1
                return f.command, f.arg, f.seq(), True
        self.drops[why] += 1
        return None

    def reply(self):
        """A frame to send back for the frame just dropped, or None."""
        return None

    def ack(self, seq, command, arg, summary):
        """The acknowledgement of command `seq`, carrying the new state's summary."""
        return encode(self.hmac, T_ACK, self.own_id, seq[0], seq[1], command, arg, summary)


class Sender:
    """The remote's side: numbered commands, and which acknowledgement answers them."""

    def __init__(self, key, peer, own_id, boot, counter=0):
        _check_key(key)
        self.hmac = Hmac(key)
        self.peer = peer  # the paired wall board's id
        self.own_id = own_id
        self.boot = boot
        self.counter = counter
        self.pending = None  # (seq, frame) waiting for its acknowledgement

    def command(self, command, arg=0):
        """A new command frame; its sequence number is never used again."""
        if self.counter >= MAX_COUNTER:
            raise ValueError("counter exhausted: restart the remote (its boot counter moves on)")
        self.counter += 1
        frame = encode(self.hmac, T_COMMAND, self.own_id, self.boot, self.counter, command, arg)
        self.pending = ((self.boot, self.counter), frame)
        return frame

    def acked(self, data):
        """The summary if `data` acknowledges the pending command, else None."""
        if self.pending is None or check(self.hmac, data, T_ACK, self.peer) >= 0:
            return None
        f = decode(data)
        if f.seq() != self.pending[0]:
            return None
        self.pending = None
        return f.summary
