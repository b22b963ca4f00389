"""The wall board's voice: scripted matches, the exact calls and the very samples the I2S gets;
both interpreters.

The pack here is made by the test (the firmware's layout, voicenames.py): every chunk of clip k
is 16-bit samples of (k << 8 | the chunk's number), so what the I2S got reads back as clips.
"""

import binascii
import struct

import buttons_setup
import controller
import rules
import speech
import speech_setup
from errorcodes import ERROR_VOICE
from fwtest import emptied, scratch_folder
from test_controller import Rig, allocation_counter, press_sequence, quiet_rig
from voicenames import (
    CHUNK,
    C_CLOCK,
    C_END,
    C_EQUALIZING,
    C_FOUL,
    C_TOTAL,
    C_ZERO,
    HEADER,
    K_AND,
    K_BREAK,
    K_DRAW,
    K_END,
    K_EQUALIZING,
    K_FOUL,
    K_HUNDRED,
    K_MINUTE,
    K_N0,
    K_ONE_,
    K_SECONDS,
    K_SET,
    K_TEEN,
    K_TENS,
    K_THOUSAND,
    K_TIMEOUT,
    K_TWENTY_,
    K_TWO_,
    K_WHITE,
    K_WINS,
    K_YELLOW,
    N_CLIPS,
    PACK_MAGIC,
    RATE,
)

FOLDER = scratch_folder("speech")
FOUL = controller.ACTIONS.index("foul")


def clip_bytes(k):
    """Clip k: 1 to 3 chunks, each sample k << 8 | its chunk's number (little-endian)."""
    out = bytearray()
    for j in range(1 + k % 3):
        out += bytes((j, k)) * (CHUNK // 2)
    return bytes(out)


def pack_bytes(language="hu", leave_out=()):
    """A pack in the firmware's layout: every clip but those left out."""
    index = bytearray()
    body = bytearray()
    start = HEADER + 12 * N_CLIPS
    start += -start % CHUNK  # the clips from a whole chunk on
    for k in range(N_CLIPS):
        if k in leave_out:
            index += struct.pack("<III", 0, 0, 0)
            continue
        data = clip_bytes(k)
        index += struct.pack("<III", start + len(body), len(data), binascii.crc32(data))
        body += data
    top = PACK_MAGIC + language.encode() + struct.pack("<HHH", RATE, N_CLIPS, CHUNK) + bytes(index)
    return top + bytes(start - len(top)) + bytes(body)


class FakeI2S:
    """machine.I2S as far as the voice uses it: the writes' bytes kept; the interrupt's handler
    is called by the test (took())."""

    TX = 1
    MONO = 0
    made = None

    def __init__(self, id, sck=None, ws=None, sd=None, mode=None, bits=None, format=None, rate=None, ibuf=None):
        self.writes = []
        self.handler = None
        self.args = (id, sck, ws, sd, mode, bits, format, rate, ibuf)
        FakeI2S.made = self

    def irq(self, handler):
        self.handler = handler

    def write(self, buf):
        self.writes.append(bytes(buf))
        return len(buf)

    def took(self):
        if self.handler is not None:
            self.handler(self)

    def deinit(self):
        self.handler = None

    @staticmethod
    def shift(buf=None, bits=16, shift=0):
        for i in range(0, len(buf), 2):
            v = buf[i] | buf[i + 1] << 8
            if v >= 0x8000:
                v -= 0x10000
            v = (v >> -shift) & 0xFFFF
            buf[i] = v & 0xFF
            buf[i + 1] = v >> 8


class FakeMachine:
    I2S = FakeI2S

    @staticmethod
    def Pin(n):
        return n


def config(**voice):
    v = {"on": True, "volume": 100, "language": "hu", "calls": "all", "totals": False}
    v.update(voice)
    return {"voice": v}


def write_pack(data, name="voice.pack"):
    emptied(FOLDER)
    path = FOLDER + "/" + name
    with open(path, "wb") as f:
        f.write(data)
    return path


class Speaking(Rig):
    """The controller's rig, with the voice stepped as time passes: the I2S takes a chunk in
    the 32 ms it plays (the presses come every 0.6 s: each call is said before the next)."""

    voice = None
    due = 0

    def advance(self, ms):
        end = self.now + ms
        while self.now < end:
            Rig.advance(self, 10)
            self.play()

    def play(self):
        v = self.voice
        if v is None:
            return
        if v.busy:
            if self.now < self.due:
                return
            v.i2s.took()
        for _ in range(100):
            v.step()
            if v.busy:
                self.due = self.now + 32
                return
            if not v.speaking and not v.pending():
                return


def voiced(rig, data=None, **voice):
    """The rig's controller with a voice from a pack (the test's), as startup.build makes it."""
    path = write_pack(pack_bytes() if data is None else data)
    v, code = speech_setup.make(rig.board["speaker"], config(**voice)["voice"], rig.m, FakeMachine, path=path)
    assert v is not None, code
    v.i2s.irq(v.done)
    rig.c.voice = v
    rig.voice = v
    rig.code = code
    rig.heard = 0  # the I2S writes read so far
    return rig


def speak(rig, limit=10000):
    """Step the voice until it has said everything queued (the I2S takes each chunk at once)."""
    v = rig.voice
    for _ in range(limit):
        if not v.pending() and not v.speaking and not v.busy:
            v.step()
            if not v.speaking:
                return
            continue
        v.step()
        if v.busy:
            v.i2s.took()
    raise AssertionError("the voice did not finish")


def clips_heard(rig):
    """The clips the I2S got since the last call, as clip numbers (a clip starts at its chunk 0)."""
    writes = rig.voice.i2s.writes[rig.heard :]
    rig.heard += len(writes)
    out = []
    for w in writes:
        if w[0] == 0:
            out.append(w[1])
    return out


def said(rig):
    speak(rig)
    return clips_heard(rig)


def n(k):
    return K_N0 + k


# ---- numbers, by language ----------------------------------------------------------


def words(lang, number):
    mod = speech_setup.language(lang)
    out = bytearray(20)
    return list(out[: mod.number(number, out, 0)])


def test_numbers_are_composed_by_each_languages_rules():
    assert words("hu", 0) == [n(0)]
    assert words("hu", 10) == [n(10)]
    assert words("hu", 13) == [K_TEEN, n(3)]  # tizen + három
    assert words("hu", 20) == [K_TENS]  # húsz
    assert words("hu", 23) == [K_TWENTY_, n(3)]  # huszon + három
    assert words("hu", 42) == [K_TENS + 2, n(2)]  # negyven + kettő
    assert words("hu", 200) == [K_TWO_, K_HUNDRED]  # két + száz
    assert words("hu", 1500) == [K_THOUSAND, n(5), K_HUNDRED]  # ezer + öt + száz
    assert words("en", 23) == [K_TENS, n(3)]  # twenty + three
    assert words("en", 17) == [n(17)]
    assert words("en", 305) == [n(3), K_HUNDRED, n(5)]
    assert words("de", 23) == [n(3), K_AND, K_TENS]  # drei + und + zwanzig
    assert words("de", 21) == [K_ONE_, K_AND, K_TENS]  # ein + und + zwanzig
    assert words("de", 1) == [n(1)]  # eins
    assert words("de", 13) == [n(3), n(10)]  # drei + zehn
    assert words("de", 16) == [n(16)]  # sechzehn: a clip of its own
    assert words("de", 101) == [K_ONE_, K_HUNDRED, n(1)]  # einhundert + eins
    for lang in ("hu", "en", "de"):
        assert len(words(lang, 9999)) <= 7


# ---- scripted matches: the calls, and the samples ----------------------------------------


def test_the_countdown_and_the_samples_the_i2s_gets_are_the_clips():
    r = voiced(Speaking(breaker=rules.A, target=5))  # three-cushion: the last 3
    r.press("A.point")
    assert said(r) == []  # 4 left: not yet
    r.press("A.point")
    assert said(r) == [n(3)]
    r.press("A.point")
    assert said(r) == [n(2)]
    r.press("A.point")
    assert said(r) == [n(1)]
    # every byte the I2S got is the clips' bytes, in order
    assert b"".join(r.voice.i2s.writes) == clip_bytes(n(3)) + clip_bytes(n(2)) + clip_bytes(n(1))
    r.press("A.point")  # A reached the target: B's equalizing inning
    assert said(r) == [K_EQUALIZING]


def direct(r, name, event=1):
    """A button's event straight to the controller, no time passing (faster than any call)."""
    r.c.press(buttons_setup.index(r.board, name), event, r.now)


def begin(v):
    """Step the voice until it is saying its next call, a chunk with the I2S."""
    for _ in range(10):
        v.step()
        if v.speaking and v.busy:
            return
    raise AssertionError("no call begun")


def test_a_point_made_while_three_is_spoken_makes_the_next_call_two():
    r = voiced(Speaking(breaker=rules.A, target=8))
    for _ in range(4):
        r.press("A.point")
    said(r)
    v = r.voice
    direct(r, "A.point")  # 3 left
    begin(v)  # "three" is being said
    direct(r, "A.point")  # 2 left, while "three" is said
    assert v.pending() == 1
    assert said(r) == [n(3), n(2)]
    direct(r, "A.point")  # 1 left
    begin(v)
    direct(r, "A.end")
    direct(r, "B.end")  # A back at the table, still 1 left
    direct(r, "A.point")  # A reached 8: B's equalizing inning
    assert said(r) == [n(1), n(0), K_EQUALIZING]  # B's zero inning; A's "one" again: stale, dropped


def test_two_points_made_while_three_is_spoken_make_the_next_call_one():
    r = voiced(Speaking(breaker=rules.A, target=8), calls=["countdown"])
    for _ in range(4):
        r.press("A.point")
    v = r.voice
    direct(r, "A.point")
    begin(v)  # "three"
    direct(r, "A.point")  # "two" waits
    direct(r, "A.point")  # "one" replaces it
    assert v.pending() == 1
    assert said(r) == [n(3), n(1)]


def test_each_foul_by_its_word_and_a_zero_inning():
    r = voiced(Speaking(breaker=rules.A, target=30, game="straight_rail"))
    r.press("A.end")
    assert said(r) == [n(0)]  # a zero inning: "nulla"
    kinds = (1, 2, 3, 4, 5, 6, 7, 8, 10)  # every foul the remote names (time: the clock's)
    for kind in kinds:
        assert r.c.remote(FOUL, kind, r.now) is None, kind
        r.advance(500)
        assert said(r) == [K_FOUL + kind], kind
    r.press("foul")  # the wall's foul button: "other"
    assert said(r) == [K_FOUL + 10]


def test_the_shot_clocks_warning_a_time_out_and_the_time_foul():
    r = voiced(Speaking(breaker=rules.A, target=30, shot_clock=30, timeouts=1))
    said(r)
    r.advance(20500)
    assert said(r) == [n(10), K_SECONDS]  # 10 s left
    r.advance(10000)  # the clock runs out: a time-out (one left)
    assert r.m.timeouts[0] == 0 and said(r)[0] == K_TIMEOUT
    r.advance(60000)  # out again, none left: a time foul
    assert K_FOUL + rules.F_TIME in said(r)


def test_the_equalizing_inning_and_the_end():
    r = voiced(Speaking(breaker=rules.A, target=3))
    for _ in range(3):
        r.press("A.point")
    assert said(r) == [n(2), n(1), K_EQUALIZING, n(3)]  # B's equalizing inning, 3 to go
    r.press("B.point")
    r.press("B.end")  # B fails: A wins 3:1, A broke: the yellow ball
    assert said(r) == [n(2), K_END, K_YELLOW, K_WINS, n(3), n(1)]


def test_a_draw_and_the_white_ball():
    r = voiced(Speaking(breaker=rules.B, target=1))
    r.press("B.point")
    said(r)
    r.press("A.point")  # A equalizes: a draw
    assert said(r) == [K_END, K_DRAW, n(1), n(1)]
    r = voiced(Speaking(breaker=rules.A, target=1, equalizing=False))
    r.press("A.point")
    assert said(r) == [K_END, K_YELLOW, K_WINS, n(1), n(0)]
    r = voiced(Speaking(breaker=rules.B, target=2, equalizing=False))
    r.press("B.end")
    r.press("A.point")
    r.press("A.point")  # A did not break: the white ball
    assert said(r)[-5:] == [K_END, K_WHITE, K_WINS, n(2), n(0)]


def test_a_set_match():
    r = voiced(Speaking(breaker=rules.A, target=2, sets=2))
    r.press("A.point")
    r.press("A.point")
    r.press("B.end")  # B's equalizing inning fails: A wins the set
    assert said(r) == [n(1), K_EQUALIZING, n(2), n(0), K_SET, n(1), n(0)]
    r.press("new")  # the next set: B breaks
    r.press("B.point")
    r.press("B.point")
    r.press("A.end")  # B's set: 1:1
    assert said(r)[-3:] == [K_SET, n(1), n(1)]
    r.press("new")  # the deciding set
    r.press("A.point")  # the lag: A breaks
    r.press("A.point")
    r.press("A.point")
    r.press("B.end")
    assert r.m.phase == rules.FINISHED
    assert said(r)[-5:] == [K_END, K_YELLOW, K_WINS, n(2), n(1)]  # the sets won


def test_the_break_and_its_last_minute():
    r = voiced(Speaking(breaker=rules.A, target=4))
    r.press("A.point")
    r.press("A.point")
    said(r)
    r.press("A.end")
    said(r)
    r.press("break")  # B asks for the break: 3 minutes
    assert said(r) == [K_BREAK]
    r.advance(119000)
    assert said(r) == []
    r.advance(2000)
    assert said(r) == [K_MINUTE]  # one minute left


def test_the_calls_not_chosen_are_not_said_and_totals_when_asked():
    r = voiced(Speaking(breaker=rules.A, target=30), calls=["foul"])
    r.press("A.end")
    r.press("foul")
    assert said(r) == [K_FOUL + 10]  # no "nulla"
    r = voiced(Speaking(breaker=rules.A, target=30), calls=[], totals=True)
    r.press("A.point")
    r.press("A.point")
    assert said(r) == [n(1), n(2)]  # each point's running total


def test_an_undo_drops_the_calls_waiting():
    r = voiced(Speaking(breaker=rules.A, target=3))
    direct(r, "A.point")
    assert r.voice.pending() == 1
    direct(r, "A.point", 2)  # a long press: the undo
    assert r.voice.pending() == 0 and said(r) == []


def test_the_volume_shifts_the_samples():
    r = voiced(Speaking(breaker=rules.A, target=2), volume=50)  # -3: an eighth
    r.press("A.point")
    speak(r)
    w = r.voice.i2s.writes[0]
    k = n(1)
    assert w[:2] == bytes(((k << 8) >> 3 & 0xFF, (k << 8) >> 3 >> 8))


# ---- a damaged or missing clip ------------------------------------------------------------


def test_a_damaged_clip_is_skipped_and_said_once():
    data = bytearray(pack_bytes())
    off = struct.unpack("<I", data[HEADER + 12 * n(2) : HEADER + 12 * n(2) + 4])[0]
    data[off + 100] ^= 0xFF  # a flipped byte in "kettő"
    r = voiced(Speaking(breaker=rules.A, target=3), bytes(data))
    assert r.code == ERROR_VOICE and r.voice.state[n(2)] == speech.BAD
    r.press("A.point")  # "two": skipped
    assert said(r) == [] and r.voice.skipped == 1
    r.press("A.point")
    assert said(r) == [n(1)]  # the match and the voice go on


def test_a_pack_cut_short_and_a_missing_clip():
    data = pack_bytes(leave_out=(n(1),))
    r = voiced(Speaking(breaker=rules.A, target=3), data[: len(data) - 100])  # the last clip cut short
    assert r.code == ERROR_VOICE and r.voice.state[N_CLIPS - 1] == speech.BAD
    r.press("A.point")
    r.press("A.point")
    assert said(r) == [n(2)] and r.voice.skipped == 1  # "egy" is not in the pack: skipped
    assert r.voice.state[n(1)] == speech.BAD  # said once, then skipped quietly


def test_no_pack_or_a_wrong_one_means_no_voice():
    r = Rig(breaker=rules.A)
    emptied(FOLDER)
    spk = r.board["speaker"]
    vc = config()["voice"]
    assert speech_setup.make(spk, vc, r.m, FakeMachine, path=FOLDER + "/none") == (None, 0)
    path = write_pack(b"CVP1hu" + bytes(20))
    assert speech_setup.make(spk, vc, r.m, FakeMachine, path=path) == (None, ERROR_VOICE)
    path = write_pack(pack_bytes())
    assert speech_setup.make(spk, config(on=False)["voice"], r.m, FakeMachine, path=path) == (None, 0)
    assert speech_setup.make(None, vc, r.m, FakeMachine, path=path) == (None, 0)


def test_the_i2s_is_set_up_from_the_board_definition():
    r = voiced(Speaking(breaker=rules.A))
    spk = r.board["speaker"]
    i2s_id, sck, ws, sd, mode, bits, fmt, rate, ibuf = r.voice.i2s.args
    assert (sck, ws, sd) == (spk["bck"], spk["ws"], spk["din"])
    assert (mode, bits, fmt, rate) == (FakeI2S.TX, 16, FakeI2S.MONO, RATE)


# ---- nothing allocated: the press path, and each chunk ---------------------------------------


def test_the_press_path_with_the_voice_on_allocates_nothing():
    mem_total, gc = allocation_counter()
    r = voiced(quiet_rig(breaker=rules.A, target=8, shot_clock=30), totals=True)
    c = r.c

    presses = press_sequence(r)
    now = 100000
    r.m.new(now, **r.options)
    gc.collect()
    before = mem_total()
    for i, ev in presses:
        now += 700
        c.press(i, ev, now)
        c.tick(now + 300)
        r.v.render(now + 350)
        r.group.poll(now + 400)
    allocated = mem_total() - before
    assert r.m.n > 8 and r.voice.pending() > 0
    assert allocated == 0, allocated


def test_speaking_allocates_nothing_per_chunk():
    """Every step of saying calls (their words made, each clip sought, each chunk read, shifted
    to the volume and written) allocates nothing."""
    mem_total, gc = allocation_counter()
    r = voiced(Speaking(breaker=rules.A, target=30, game="straight_rail"), totals=True)
    v = r.voice
    i2s = v.i2s
    i2s.write = lambda buf: len(buf)  # a bus that keeps nothing (the fake's list would allocate)
    v.say(C_FOUL, 4)
    v.say(C_ZERO, 0)
    v.say(C_TOTAL, 1234)
    v.say(C_EQUALIZING, 0)
    v.say(C_END, 0)
    v.say(C_CLOCK, 10)
    gc.collect()
    before = mem_total()
    steps = 0
    while v.pending() or v.speaking or v.busy or not steps:
        v.step()
        if v.busy:
            i2s.took()
        steps += 1
    allocated = mem_total() - before
    assert steps > 20 and v.said == 6 and not v.skipped, (steps, v.said)
    assert allocated == 0, allocated
