"""The referee remote driving the real wall firmware, both on virtual boards on one radio hub.

A whole match played from the remote's buttons (boards/referee.json); 20 %
frame loss both ways with every press acted on exactly once (the wall's
journal and displays compared with a run without loss); replayed, forged and
10,000 fuzzed frames ignored without a flash write; restarts of the remote
(its boot counter moves on) and of the wall (/radio.last still refuses an
old frame). Every wait is a bounded advance of virtual time.
"""

import os
import random
import struct

import pytest

from helpers import KEY, REMOTE_MAC, flash_hashes, frame_seq, hub_press, radio_pair, remote_shows, restored_match
from host_tools import firmware_path
from host_tools.simulator.vboard import PWRON_RESET


@pytest.fixture
def make_pair(tmp_path, firmware):
    """make_pair(target=, seed=, name=) -> (hub, wall, remote), powered, the remote asleep."""
    made = []

    def make(target=2, seed=5, name="run", **match):
        hub, wall, remote = radio_pair(
            tmp_path / name, firmware, dict({"game": "three_cushion", "target": target}, **match), seed
        )
        made.extend((wall, remote))
        wall.vb.power_on()
        remote.vb.power_on()
        hub.advance(6)
        assert remote.vb.asleep
        return hub, wall, remote

    yield make
    for b in made:
        b.close()


def press(hub, board, button, down=0.1, settle=0.25):  # the remote is still awake (AWAKE_MS 0.3 s)
    hub_press(hub, board.vb, button, down, settle)


def remote_leds(remote):
    return remote.vb.pin_level("A.turn"), remote.vb.pin_level("B.turn")


def commands(hub):
    return [f for f in hub.frames if f.sender == "remote"]  # the remote's own, retransmissions included


def acks(hub):
    return [f for f in hub.frames if f.sender == "wall" and f.data[1] == 2]


seq = frame_seq


def summary(frame):
    return struct.unpack_from("<HHBBBB", frame.data, 18)


def journal(wall, tmp_path):
    """The wall's match as its flash holds it: [(entry code, arg)], read on the host from a copy."""
    m = restored_match(wall.flash_dir, str(tmp_path / ("journal-%d" % random.getrandbits(32))))
    return [tuple(m.entry(i)[:2]) for i in range(m.n)], m


def score_fields(wall):
    s = wall.state()
    f = s["fields"]
    keep = ("A.score", "B.score", "A.innings", "B.innings", "A.high_run", "B.high_run", "A.target")
    out = {k: f[k] for k in keep}
    # The countdown: its own field, or the sets field, which shows it in a plain match.
    out["countdown"] = f["countdown"] if "countdown" in f else f["sets"]
    return out, {k: s["leds"][k] for k in ("A.turn", "B.turn", "equalizing")}


# ---- 1. a match played from the remote ---------------------------------------------------


def test_a_match_played_from_the_remote(make_pair, tmp_path):
    hub, wall, remote = make_pair(target=2)
    assert wall.state()["fields"]["message"] == "LAG "

    def step(button, fields, leds, shows, remote_leds_now):
        press(hub, remote, button)
        f, lit = score_fields(wall)
        for k, v in fields.items():
            assert f[k] == v, (button, k, f)
        assert (lit["A.turn"], lit["B.turn"]) == leds, (button, lit)
        assert remote_shows(remote) == shows, button
        assert remote_leds(remote) == remote_leds_now, button
        # The remote shows the summary of the newest acknowledgement, which answers its newest command.
        assert seq(acks(hub)[-1]) == seq(commands(hub)[-1])

    step("point", {"A.score": "   0", "A.innings": " 1"}, (1, 0), "00:00", (1, 0))  # the lag: A breaks
    step("point", {"A.score": "   1", "countdown": "   1"}, (1, 0), "01:00", (1, 0))
    step("miss", {"A.score": "   1", "B.innings": " 1"}, (0, 1), "01:00", (0, 1))
    step("foul", {"A.innings": " 2", "B.score": "   0"}, (1, 0), "01:00", (1, 0))  # B's foul: A plays
    step("foul.time", {"B.innings": " 2"}, (0, 1), "01:00", (0, 1))  # A's time foul: B plays
    step("undo", {"B.innings": " 1"}, (1, 0), "01:00", (1, 0))  # the time foul taken back
    step("break", {"A.score": "   1"}, (1, 0), "01:00", (1, 0))
    assert wall.state()["fields"]["clock"] == " 300"  # the break's clock runs
    step("break", {"A.score": "   1"}, (1, 0), "01:00", (1, 0))  # resumed
    # No break and no shot clock: the match's time since its first stroke, h:mm, here
    # 0 h 00 min (the fields read the digits; the colon is the chip's).
    assert wall.state()["fields"]["clock"] == " 000"
    step("timeout", {"A.score": "   1"}, (1, 0), "01:00", (1, 0))  # no shot clock: refused, still acknowledged
    step("point", {"A.score": "   2"}, (0, 1), "02:00", (0, 1))  # A reaches 2: B equalizes
    assert wall.state()["leds"]["equalizing"] == 1
    step("point", {"B.score": "   1"}, (0, 1), "02:01", (0, 1))
    step("miss", {"B.score": "   1", "countdown": "    "}, (0, 0), "02:01", (0, 0))  # over: A wins
    s = summary(acks(hub)[-1])
    firmware_path()
    import rules

    assert s[:4] == (2, 1, 255, rules.FINISHED) and s[5] == rules.R_A
    hist = os.path.join(wall.flash_dir, "data", "history")
    reports = [n for n in os.listdir(hist) if n.endswith(".json")]
    assert len(reports) == 1  # the finished match's report is on the wall's flash

    entries, m = journal(wall, tmp_path)
    assert m.phase == rules.FINISHED and list(m.score) == [2, 1]

    # "new" is a long press (3 s): a new match, acknowledged to the remote.
    remote.vb.press("new")
    hub.advance(3.5)
    remote.vb.release("new")
    hub.advance(0.2)  # the remote is awake AWAKE_MS (0.3 s) after the acknowledgement
    assert remote_shows(remote) == "00:00" and remote_leds(remote) == (0, 0)
    hub.advance(0.4)
    assert wall.state()["fields"]["message"] == "LAG "
    assert score_fields(wall)[0]["A.score"] == "   0"
    assert not remote.vb.asleep and remote_shows(remote) == "00:00"  # the radio off, the display lit SHOW_MS
    hub.advance(3.0)
    assert remote.vb.asleep
    assert len({seq(f) for f in commands(hub)}) == 13  # 13 presses, 13 sequence numbers
    assert [seq(f) for f in acks(hub)] == sorted({seq(f) for f in commands(hub)})  # each acknowledged once
    assert "Traceback" not in wall.vb.stderr + remote.vb.stderr


def test_the_remote_in_a_set_match_and_a_press_while_its_display_is_lit(make_pair):
    # A set over shows the sets won, " 1-0"; the display stays lit SHOW_MS
    # (3 s) after the radio window, and a press then (in light sleep) is sent, once.
    hub, wall, remote = make_pair(target=1, sets=2)
    press(hub, remote, "point")  # the lag: A breaks
    press(hub, remote, "point")  # A reaches 1: B's equalizing inning
    assert remote_shows(remote) == "01:00"
    press(hub, remote, "miss")  # A wins the first set
    assert wall.state()["fields"]["sets"] == " 10 " and remote_shows(remote) == " 1-0"
    hub.advance(1.5)  # the radio is off, the display still lit
    assert not remote.vb.asleep and remote_shows(remote) == " 1-0"
    n = len({seq(f) for f in commands(hub)})
    press(hub, remote, "new", settle=1.0)  # a press: the next set
    assert len({seq(f) for f in commands(hub)}) == n + 1  # sent once
    assert (
        wall.state()["fields"]["B.innings"] == " 1" and wall.state()["fields"]["B.target"] == "   1"
    )  # set 2: B breaks
    assert remote_shows(remote) == "00:00"
    hub.advance(4)
    assert remote.vb.asleep


# ---- 2. 20 % frame loss both ways ----------------------------------------------------------

PRESSES = (
    ["point"]
    + [
        "point",
        "point",
        "miss",
        "point",
        "miss",
        "foul",
        "point",
        "undo",
        "miss",
        "point",
        "point",
        "foul.time",
        "miss",
        "undo",
        "point",
        "miss",
    ]
    * 2
)[:33]


def play(make_pair, tmp_path, drop, name):
    hub, wall, remote = make_pair(target=50, seed=11, name=name)
    hub.drop = drop
    trace = []
    for button in PRESSES:
        press(hub, remote, button, settle=1.0)  # 10 tries 50 ms apart fit in 0.5 s
        trace.append((score_fields(wall), remote_shows(remote)))
    entries, _ = journal(wall, tmp_path)
    return hub, wall, remote, trace, entries


def test_twenty_percent_loss_every_press_acted_on_once(make_pair, tmp_path):
    _, _, _, clean_trace, clean_entries = play(make_pair, tmp_path, 0.0, "clean")
    hub, wall, remote, trace, entries = play(make_pair, tmp_path, 0.2, "lossy")
    assert len(PRESSES) >= 30
    sent = commands(hub)
    lost = [f for f in hub.frames if f.dropped]
    assert len(lost) >= 10, "the hub lost too little to test anything"
    assert any(f.dropped for f in sent) and any(f.dropped for f in acks(hub))  # both ways
    assert len({seq(f) for f in sent}) == len(PRESSES)  # one sequence number per press
    assert len(sent) > len(PRESSES)  # retransmissions happened
    # The same match as without loss, after every press: displays, the remote's display, the journal.
    for i, (a, b) in enumerate(zip(trace, clean_trace)):
        assert a == b, (i, PRESSES[i], a, b)
    assert entries == clean_entries
    assert "E 40" not in [t[1] for t in trace]
    assert "Traceback" not in wall.vb.stderr + remote.vb.stderr


# ---- 3. replayed, forged, fuzzed ---------------------------------------------------------


def test_replayed_and_forged_frames_are_ignored(make_pair):
    hub, wall, remote = make_pair(target=20)
    for b in ("point", "point", "point", "miss"):
        press(hub, remote, b)
    before = score_fields(wall)
    cmds = commands(hub)
    n_acks = len(acks(hub))
    for f in cmds[:-1]:  # every older command: refused, not even acknowledged
        hub.replay(f)
        hub.advance(0.05)
    hub.advance(0.5)
    assert len(acks(hub)) == n_acks and score_fields(wall) == before
    hub.replay(cmds[-1])  # the newest: a retransmission, acknowledged, not acted on
    hub.advance(0.5)
    assert len(acks(hub)) == n_acks + 1 and score_fields(wall) == before

    last = cmds[-1].data
    forged = []
    b = bytearray(last)
    struct.pack_into("<I", b, 12, seq(cmds[-1])[1] + 1)  # the next number, with the old tag
    forged.append(bytes(b))
    b = bytearray(last)
    struct.pack_into("<I", b, 8, 999)  # a later boot, with the old tag
    forged.append(bytes(b))
    b = bytearray(last)
    b[2:8] = bytes.fromhex("deadbeef0001")  # another sender
    forged.append(bytes(b))
    firmware_path()
    import radio

    wrong = radio.Hmac(bytes(32))  # a frame tagged with another key
    forged.append(radio.encode(wrong, radio.T_COMMAND, REMOTE_MAC, 5, 1, 0, 0))
    for data in forged:
        hub.inject(wall.vb, REMOTE_MAC, data)
        hub.advance(0.05)
    hub.advance(0.5)
    assert len(acks(hub)) == n_acks + 1 and score_fields(wall) == before

    press(hub, remote, "point")  # the genuine remote still scores
    assert score_fields(wall)[0]["B.score"] == "   1"


def fuzz_frames(real, n, rng):
    """Random and mutated frames: random bytes, bit flips of real ones, truncated, oversize,
    and frames with the right key but a bad command, foul kind or counter."""
    firmware_path()
    import controller
    import radio

    key = bytes.fromhex(KEY)
    h = radio.Hmac(key)
    n_commands = len(controller.ACTIONS)  # a command is an index into them (17 with the formats' next_set and warmup)
    out = []
    for i in range(n):
        kind = i % 6
        base = rng.choice(real)
        if kind == 0:
            data = rng.randbytes(rng.randint(1, 250))
        elif kind == 1:
            data = rng.randbytes(56)
            data = bytes([1, 1]) + REMOTE_MAC + data[8:]  # a plausible head, a random tag
        elif kind == 2:
            b = bytearray(base)
            while b == base:  # a bit flipped twice is the genuine frame again
                for _ in range(rng.randint(1, 4)):
                    b[rng.randrange(56)] ^= 1 << rng.randrange(8)
            data = bytes(b)
        elif kind == 3:
            data = base[: rng.randrange(1, 56)]
        elif kind == 4:
            data = base + rng.randbytes(rng.randint(1, 250 - 56))
        else:
            # Authenticated, with a sequence number above the newest, but nothing the wall may act on.
            boot, counter = struct.unpack_from("<II", base, 8)
            choice = rng.randrange(3)
            if choice == 0:
                data = radio.encode(h, 1, REMOTE_MAC, boot, counter + 1 + i, rng.randint(n_commands, 255), 0)
            elif choice == 1:
                data = radio.encode(h, 1, REMOTE_MAC, boot, counter + 1 + i, 6, rng.randint(11, 255))
            else:
                data = radio.encode(h, 1, REMOTE_MAC, boot, rng.randint(radio.MAX_COUNTER + 1, 2**32 - 1), 0, 0)
        out.append(data)
    return out


N_FUZZ = 10_000


def test_ten_thousand_fuzzed_frames_change_nothing(make_pair, tmp_path):
    hub, wall, remote = make_pair(target=20)
    for b in ("point", "point", "miss"):
        press(hub, remote, b)
    hub.advance(6)  # the remote asleep: only the fuzz on the air
    assert remote.vb.asleep
    before = score_fields(wall)
    entries_before, _ = journal(wall, tmp_path)
    hashes = flash_hashes(wall.flash_dir)
    n_acks = len(acks(hub))
    rng = random.Random(1234)
    frames = fuzz_frames([f.data for f in commands(hub)], N_FUZZ, rng)
    assert len(frames) >= 10_000 and max(len(d) for d in frames) == 250
    batch = 50  # the board holds frames still to come in its memory: a few at a time
    for start in range(0, len(frames), batch):
        t0 = wall.vb.now
        for i, data in enumerate(frames[start : start + batch]):
            # Two frames per 10 ms poll of the wall: its 526-byte receive buffer never overflows.
            hub.inject(wall.vb, REMOTE_MAC, data, at=t0 + 0.001 + i * 0.005)
        hub.advance(batch * 0.005 + 0.01)
    hub.advance(0.5)
    injected = [f for f in hub.frames if f.kind == "injected"][-N_FUZZ:]  # (not what the wall sent meanwhile)
    bad = [
        (f.n, f.kind, f.sender, f.src.hex(), f.dst.hex(), f.data.hex(), f.deliveries, f.lost, len(f.data))
        for f in injected
        if not f.deliveries or f.lost
    ]
    assert not bad, bad[:5]  # every fuzzed frame was handed to the wall's ESP-NOW
    assert len(acks(hub)) == n_acks  # nothing acknowledged
    assert score_fields(wall) == before
    assert journal(wall, tmp_path)[0] == entries_before
    assert flash_hashes(wall.flash_dir) == hashes  # not one byte written
    assert "Traceback" not in wall.vb.stderr and "task failed" not in wall.vb.stdout
    assert len(wall.vb.boots) == 1  # no reset either
    press(hub, remote, "point")  # the wall still runs and answers the genuine remote
    assert score_fields(wall)[0]["B.score"] == "   1"
    assert len(acks(hub)) == n_acks + 1


# ---- 5. restarts ----------------------------------------------------------------------


def test_restarts_of_the_remote_and_the_wall(make_pair):
    hub, wall, remote = make_pair(target=20)
    press(hub, remote, "point")  # A breaks
    press(hub, remote, "point")
    assert score_fields(wall)[0]["A.score"] == "   1"
    assert seq(commands(hub)[-1]) == (1, 2)

    remote.vb.power_off()  # the battery pulled mid-match
    remote.vb.power_on()
    assert remote.vb.boots[-1].cause == PWRON_RESET
    with open(os.path.join(remote.flash_dir, "remote.boot")) as f:
        assert f.read().strip() == "2"
    hub.advance(6)
    assert remote.vb.asleep
    press(hub, remote, "point")
    press(hub, remote, "miss")
    assert score_fields(wall)[0]["A.score"] == "   2" and wall.state()["leds"]["B.turn"] == 1
    seqs = [seq(f) for f in commands(hub)]
    # (1, 1) twice: the wall had no /radio.last yet and challenged it; the boot counter moved on:
    # no number used for two commands.
    assert seqs == [(1, 1), (1, 1), (1, 2), (2, 1), (2, 2)]
    assert remote_shows(remote) == "02:00"

    # Twice more, without a single press in between: still never a number used again.
    for _ in range(2):
        remote.vb.power_off()
        remote.vb.power_on()
    hub.advance(6)
    press(hub, remote, "point")  # B scores
    assert seq(commands(hub)[-1]) == (4, 1) and score_fields(wall)[0]["B.score"] == "   1"

    with open(os.path.join(wall.flash_dir, "radio.last")) as f:
        assert f.read().split() == ["4", "1"]
    old = commands(hub)[2]  # (1, 2), acted on before the restarts
    wall.vb.power_off()
    wall.vb.power_on()
    hub.advance(1)
    assert score_fields(wall)[0]["B.score"] == "   1"  # the match came back from the journal
    n = len(acks(hub))
    for f in commands(hub)[:-1]:
        hub.replay(f)
        hub.advance(0.05)
    hub.advance(0.5)
    assert len(acks(hub)) == n and score_fields(wall)[0]["B.score"] == "   1"
    assert seq(old) == (1, 2)
    hub.replay(commands(hub)[-1])  # the newest: acknowledged again, not acted on again
    hub.advance(0.5)
    assert len(acks(hub)) == n + 1 and score_fields(wall)[0]["B.score"] == "   1"
    press(hub, remote, "point")
    assert score_fields(wall)[0]["B.score"] == "   2" and seq(commands(hub)[-1]) == (4, 2)
