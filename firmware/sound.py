"""Sound cues on a piezo buzzer driven by PWM; queued, played by a task, never blocking.

    buzzer = Buzzer(machine.PWM(machine.Pin(25)), volume=60)
    buzzer.cue(ACCEPT)             # from the button path: no allocation
    asyncio.create_task(buzzer.run())

A cue is a small int; the notes of each cue are constant tuples.  Cues wait
in a preallocated ring buffer; when it is full the newest cue is dropped
(sound must never hold up scoring).  `COUNT` plays `n` short beeps, one per
point left in the countdown.
"""

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


ACCEPT = const(1)  # a press was taken: short high chirp
REFUSE = const(2)  # a press was refused: low buzz
COUNT = const(3)  # n beeps: points left in the countdown
CLOCK = const(4)  # one tick in the shot clock's last 10 s
EQUALIZING = const(5)  # the equalizing inning starts: two rising notes
END = const(6)  # the match is over: three rising notes, the last long
ERROR = const(7)  # something needs attention: two low notes

# (frequency Hz, on ms, off ms) triples per cue.
_NOTES = (
    (),
    (2600, 25, 15),
    (330, 160, 40),
    (1760, 70, 110),
    (2200, 35, 15),
    (1200, 180, 40, 1600, 260, 60),
    (1047, 150, 30, 1319, 150, 30, 1568, 450, 80),
    (440, 120, 80, 392, 220, 80),
)
NAMES = (None, "accept", "refuse", "count", "clock", "equalizing", "end", "error")

_QUEUE = const(8)
_MAX_DUTY = const(32768)  # 50 % duty is the loudest a piezo gets


class Buzzer:
    """Plays cues on `pwm` (anything with freq() and duty_u16(); None: silent). Twelve
    attributes: a thirteenth would make the attribute table five slots (40 B) larger."""

    def __init__(self, pwm, volume=50):
        self.pwm = pwm
        self._kinds = bytearray(_QUEUE)
        self._counts = bytearray(_QUEUE)
        self._head = 0
        self._len = 0
        self.dropped = 0
        if not 0 <= volume <= 100:  # 0 (off) .. 100
            raise ValueError("volume must be 0..100")
        self._duty = _MAX_DUTY * volume // 100
        self._kind = 0  # the cue being played
        self._note = 0  # its repeats left << 4 | the next note's index in _NOTES[_kind]
        self._ready = None
        self.last = 0  # frequency of the latest note
        self._on_ms = 0
        if pwm is not None:
            pwm.duty_u16(0)

    def cue(self, kind, count=1):
        """Queue a cue; allocation-free. Returns False if it was dropped."""
        if self.pwm is None or not self._duty or count <= 0:
            return False
        if self._len >= _QUEUE:
            self.dropped += 1
            return False
        i = (self._head + self._len) % _QUEUE
        self._kinds[i] = kind
        self._counts[i] = count if count < 255 else 255
        self._len += 1
        if self._ready is not None:
            self._ready.set()
        return True

    def pending(self):
        return self._len + (1 if self._kind else 0)

    def step(self):
        """The next note as (freq, on_ms, off_ms) written to the PWM, or 0 when idle.

        Separate from the task so tests can play cues without time passing.
        Returns the total ms the note takes (on + off).
        """
        if not self._kind:
            if not self._len:
                return 0
            self._kind = self._kinds[self._head]
            self._note = self._counts[self._head] << 4  # from the first note, count times
            self._head = (self._head + 1) % _QUEUE
            self._len -= 1
        notes = _NOTES[self._kind]
        i = self._note & 15
        freq, on, off = notes[i], notes[i + 1], notes[i + 2]
        self._note += 3
        if self._note & 15 >= len(notes):  # the cue's last note: once more, or done
            self._note = (self._note >> 4) - 1 << 4
            if not self._note:
                self._kind = 0
        self.last = freq
        self._on_ms = on
        return on + off

    async def run(self):
        """The task: play queued cues forever."""
        import asyncio

        self._ready = asyncio.Event()
        sleep_ms = asyncio.sleep_ms
        pwm = self.pwm
        while True:
            total = self.step()
            if not total:
                self._ready.clear()
                await self._ready.wait()
                continue
            on = self._on_ms
            pwm.freq(self.last)
            pwm.duty_u16(self._duty)
            await sleep_ms(on)
            pwm.duty_u16(0)
            await sleep_ms(total - on)
