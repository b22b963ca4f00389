"""10,000+ random and mutated frames at the wall's receiver: nothing acted on, nothing raised.

What is tried: random bytes of every length 0..260; genuine frames with one or
more bits flipped, bytes changed, cut short or lengthened; fields changed
without re-signing; frames signed with other keys; replays of every frame
accepted earlier. The receiver is pure (no flash): it can only return None or
a retransmission of the newest accepted frame.
"""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from host_tools import firmware_path

firmware_path()
import radio  # noqa: E402

KEY = bytes(range(32))
WALL = b"\x24\x0a\xc4\x00\x00\x01"
REMOTE = b"\x24\x0a\xc4\x00\x00\x02"


def test_ten_thousand_random_and_mutated_frames():
    rng = random.Random(7)
    wall = radio.Receiver(KEY, REMOTE, WALL)
    remote = radio.Sender(KEY, WALL, REMOTE, boot=3)
    genuine = []
    for _ in range(20):
        f = remote.command(rng.randrange(radio.N_COMMANDS))
        assert wall.receive(f)[3] is True
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
            frame[rng.randrange(32)] = rng.getrandbits(8)  # a field changed, not re-signed
        elif kind == 3:
            frame = rng.choice(genuine)
            frame = frame[:rng.randrange(len(frame))] if rng.random() < 0.5 else frame + bytes(rng.randrange(1, 200))
        elif kind == 4:
            other = radio.Sender(bytes(rng.getrandbits(8) for _ in range(32)), WALL, REMOTE, 9, rng.randrange(1000))
            frame = other.command(rng.randrange(radio.N_COMMANDS))  # well formed, wrong key, newer seq
        else:
            frame = rng.choice(genuine[:-1])  # a replay of an older genuine frame
        got = wall.receive(bytes(frame))
        tried += 1
        assert got is None, (i, kind, got)
    assert wall.accepted == accepted and wall.last == last
    assert sum(wall.drops) >= tried
    # The newest genuine frame again: a retransmission, acknowledged but not acted on.
    assert wall.receive(genuine[-1]) == (radio.decode(genuine[-1]).command, 0, last, False)


@settings(max_examples=500, deadline=None)
@given(st.binary(min_size=0, max_size=300))
def test_any_bytes(data):
    wall = radio.Receiver(KEY, REMOTE, WALL)
    assert wall.receive(data) is None
    assert wall.accepted == 0 and wall.last == (0, 0)
