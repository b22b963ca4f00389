"""Sound cues: queueing, the notes each cue plays, volume, dropping when full."""

import sound
from fwtest import SkipTest, raises


class FakePWM:
    def __init__(self):
        self.writes = []

    def freq(self, f):
        self.writes.append(("freq", f))

    def duty_u16(self, d):
        self.writes.append(("duty", d))


def play_all(b):
    notes = []
    while True:
        total = b.step()
        if not total:
            return notes
        notes.append((b.last, total))


def test_accept_is_one_short_high_note():
    b = sound.Buzzer(FakePWM(), volume=100)
    assert b.cue(sound.ACCEPT)
    assert play_all(b) == [(2600, 40)]
    assert b.pending() == 0


def test_count_beeps_once_per_point_left():
    b = sound.Buzzer(FakePWM())
    b.cue(sound.COUNT, 3)
    notes = play_all(b)
    assert [f for f, _ in notes] == [1760, 1760, 1760]


def test_cues_play_in_order():
    b = sound.Buzzer(FakePWM())
    b.cue(sound.REFUSE)
    b.cue(sound.EQUALIZING)
    b.cue(sound.END)
    assert [f for f, _ in play_all(b)] == [330, 1200, 1600, 1047, 1319, 1568]


def test_full_queue_drops_newest_never_blocks():
    b = sound.Buzzer(FakePWM())
    for i in range(8):
        assert b.cue(sound.CLOCK)
    assert not b.cue(sound.END)
    assert b.dropped == 1
    assert len(play_all(b)) == 8


def test_volume_zero_or_no_buzzer_is_silent():
    b = sound.Buzzer(FakePWM(), volume=0)
    assert not b.cue(sound.ACCEPT) and play_all(b) == []
    b = sound.Buzzer(None)
    assert not b.cue(sound.ACCEPT)
    raises(ValueError, sound.Buzzer, FakePWM(), 101)


def test_starts_silent():
    pwm = FakePWM()
    sound.Buzzer(pwm)
    assert pwm.writes == [("duty", 0)]


def test_run_task_plays_on_the_pwm():
    try:
        import asyncio

        asyncio.sleep_ms
    except (ImportError, AttributeError):
        raise SkipTest("needs MicroPython's asyncio")
    pwm = FakePWM()
    b = sound.Buzzer(pwm, volume=50)

    async def main():
        t = asyncio.create_task(b.run())
        await asyncio.sleep_ms(0)
        assert pwm.writes == [("duty", 0)]  # idle: waiting for a cue
        b.cue(sound.ACCEPT)
        for _ in range(1000):  # until the note ended (a bound against a hang, not a timing)
            if len(pwm.writes) >= 4:
                break
            await asyncio.sleep_ms(10)
        assert b.pending() == 0
        t.cancel()

    asyncio.run(main())
    assert pwm.writes == [("duty", 0), ("freq", 2600), ("duty", 16384), ("duty", 0)]


def test_cue_does_not_allocate():
    try:
        import micropython

        micropython.heap_lock
    except (ImportError, AttributeError):
        raise SkipTest("needs micropython.heap_lock")
    b = sound.Buzzer(FakePWM())
    b.step()
    micropython.heap_lock()
    try:
        ok = b.cue(sound.COUNT, 2)
        b.step()
        b.step()
    finally:
        micropython.heap_unlock()
    assert ok
