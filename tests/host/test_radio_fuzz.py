"""10,000+ random and mutated frames at the wall's receiver: nothing acted on, nothing raised.

What is tried: random bytes of every length 0..260; genuine frames with one or
more bits flipped, bytes changed, cut short or lengthened; fields changed
without re-signing; frames signed with other keys; replays of every frame
accepted earlier. The receiver is pure (no flash): it can only return None or
a retransmission of the newest accepted frame. The same against a wall that
lost its record (every genuine frame of the past replayed, with no nonce, with
an old one or a random one): nothing acted on, only challenges answered.
"""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from host_tools import firmware_path

firmware_path()
import radio  # noqa: E402
from remote import Sender  # noqa: E402

KEY = bytes(range(32))
WALL = b"\x24\x0a\xc4\x00\x00\x01"
REMOTE = b"\x24\x0a\xc4\x00\x00\x02"


def test_ten_thousand_random_and_mutated_frames():
    rng = random.Random(7)
    wall = radio.Receiver(KEY, REMOTE, WALL)
    remote = Sender(KEY, WALL, REMOTE, boot=3)
    genuine = []
    for _ in range(20):
        f = remote.command(rng.randrange(radio.N_COMMANDS))
        got = wall.receive(f)
        assert got[3] is True
        wall.accept(got[2])
        genuine.append(f)
    accepted = wall.accepted
    last = wall.last
    tried = 0
    for i in range(12000):
        kind = i % 6
        if kind == 0:
            frame = bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 261)))
        elif kind == 1:
            frame = bytearray(rng.choice(genuine))
            for _ in range(rng.randrange(1, 4)):
                frame[rng.randrange(len(frame))] ^= 1 << rng.randrange(8)
        elif kind == 2:
            frame = bytearray(rng.choice(genuine))
            j = rng.randrange(radio.SIGNED)
            frame[j] = (frame[j] + rng.randrange(1, 256)) & 0xFF  # a field changed, not re-signed
        elif kind == 3:
            frame = rng.choice(genuine)
            frame = frame[: rng.randrange(len(frame))] if rng.random() < 0.5 else frame + bytes(rng.randrange(1, 200))
        elif kind == 4:
            other = Sender(bytes(rng.getrandbits(8) for _ in range(32)), WALL, REMOTE, 9, rng.randrange(1000))
            frame = other.command(rng.randrange(radio.N_COMMANDS))  # well formed, wrong key, newer seq
        else:
            frame = rng.choice(genuine[:-1])  # a replay of an older genuine frame
        got = wall.receive(bytes(frame))
        tried += 1
        assert got is None, (i, kind, got)
    assert wall.accepted == accepted and wall.last == last
    assert sum(wall.drops) >= tried
    # The newest genuine frame again: a retransmission, acknowledged but not acted on.
    assert wall.receive(genuine[-1]) == (radio.decode(genuine[-1])[4], 0, last, False)


def test_a_wall_that_lost_its_record_acts_on_no_replay():
    rng = random.Random(8)
    key_wall = radio.Receiver(KEY, REMOTE, WALL, None)
    remote = Sender(KEY, WALL, REMOTE, boot=3)
    past = []  # everything the remote ever sent, answers to three earlier challenges included
    for episode in range(3):
        wall = radio.Receiver(KEY, REMOTE, WALL, None)  # the record lost again: a new nonce
        f = remote.command(0)
        past.append(f)
        assert wall.receive(f) is None
        answer = remote.challenged(wall.reply())
        past.append(answer)
        got = wall.receive(answer)
        wall.accept(got[2])
        for _ in range(5):
            f = remote.command(rng.randrange(radio.N_COMMANDS))
            got = wall.receive(f)
            wall.accept(got[2])
            past.append(f)
    wall = key_wall  # restarted once more, record lost
    h = radio.Hmac(KEY)
    for i in range(6000):
        base = rng.choice(past)
        kind = i % 3
        if kind == 0:
            frame = base  # a replay, with no nonce or an old one
        elif kind == 1:
            frame = bytearray(base)  # another nonce, not re-signed
            frame[26 + rng.randrange(8)] ^= 1 << rng.randrange(8)
            frame = bytes(frame)
        else:
            kind_, sender, boot, counter, command, arg = radio.decode(base)[:6]  # well signed, a random nonce
            frame = radio.encode(
                h,
                radio.T_COMMAND,
                REMOTE,
                boot,
                counter,
                command,
                arg,
                None,
                bytes(rng.getrandbits(8) for _ in range(8)),
            )
        assert wall.receive(frame) is None, (i, kind)
        reply = wall.reply()
        assert reply is None or reply[1] == radio.T_CHALLENGE
    assert wall.accepted == 0 and wall.last is None
    assert wall.drops[radio.DROP_UNPROVEN] >= 4000 and wall.challenges == wall.drops[radio.DROP_UNPROVEN]
    # The remote's next command still gets through, by the challenge.
    f = remote.command(1)
    assert wall.receive(f) is None
    got = wall.receive(remote.challenged(wall.reply()))
    assert got == (1, 0, remote.pending[0], True)


@settings(max_examples=500, deadline=None)
@given(st.binary(min_size=0, max_size=300))
def test_any_bytes(data):
    for last in ((0, 0), None):
        wall = radio.Receiver(KEY, REMOTE, WALL, last)
        assert wall.receive(data) is None and wall.reply() is None
        assert wall.accepted == 0 and wall.last == last
