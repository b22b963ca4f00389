"""The voice made (speech.Voice), and its rare words: loaded for them, dropped.

    voice, code = speech_setup.make(speaker, voice_config, match, machine)   # app_cold.voice_wake,
    # at the tasks' start: its clips checked
    voice, code = speech_setup.make(voice.setup, None, match, machine, state)  # after a rest: the
    # voice's own setup (a few ints) and its clips' states kept
    speech_setup.missing(voice, k)       # speech.Voice: a call needs a clip the pack lacks

make() opens the pack (voicenames.PACK_FILE) for good, reads its header and index, checks
every clip in it against its length and CRC (the start's one read of the pack: a damaged
clip is said here, once, and skipped whenever it is needed), loads the pack's language's
numbers (speech_hu.py, speech_en.py, speech_de.py) and sets up the I2S amplifier from the
board definition's "speaker". No speaker, voice.on false, volume 0 or no pack: no voice (the
buzzer's cues stay). The code: 0, or ERROR_VOICE (a damaged or unusable pack: the start
shows it for a while).
"""

import struct
from array import array

from errorcodes import ERROR_VOICE, STORE_ERROR_MS
from speech import BAD, GOOD
from voicenames import (
    CALLS,
    CHUNK,
    C_BREAK,
    C_END,
    C_MINUTE,
    C_SHOOTOUT,
    C_TOTAL,
    HEADER,
    N_CLIPS,
    PACK_FILE,
    PACK_MAGIC,
    RATE,
)

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


_IBUF = const(4096)  # the I2S driver's buffer (on the ESP32 its DMA buffers, outside the heap): 128 ms


def make(spk, vc, m, machine, state=None, path=PACK_FILE):
    """(speech.Voice or None, error code): from the board's speaker and the voice's configuration
    (dicts); or, made again after a rest, from the voice's own setup (`spk`: Voice.setup, `vc`
    None: what a resting voice keeps is those few ints) and `state`, its clips' states as found
    before (not checked again); `path`: the pack (tests)."""
    if vc is not None:
        if spk is None or not vc["on"] or not vc["volume"]:
            return None, 0
        spk = (spk["bck"], spk["ws"], spk["din"], shift(vc["volume"]), mask(vc))
    try:
        f = open(path, "rb")
    except OSError:
        print("carom: no voice pack (%s): the buzzer's cues only" % PACK_FILE)
        return None, 0
    try:
        head = f.read(HEADER)
        rate, count, chunk = struct.unpack("<HHH", head[6:]) if len(head) == HEADER else (0, 0, 0)
        if head[:4] != PACK_MAGIC or rate != RATE or chunk != CHUNK or count != N_CLIPS:
            raise ValueError("not a voice pack of this firmware")
        lang = head[4:6].decode()
        words = language(lang)
        full = array("I", bytes(12 * count))
        if f.readinto(full) != 12 * count:
            raise ValueError("its index is cut short")
        index = array("H", bytes(4 * count))  # offset and length in chunks: what the board keeps
        for k in range(count):
            if full[3 * k] % CHUNK or full[3 * k + 1] % CHUNK:
                raise ValueError("clip %d is not in whole chunks" % k)
            index[2 * k] = full[3 * k] // CHUNK
            index[2 * k + 1] = full[3 * k + 1] // CHUNK
    except (ValueError, UnicodeError) as e:
        f.close()
        print("carom: %s: %s: the buzzer's cues only (E %d)" % (PACK_FILE, e, ERROR_VOICE))
        return None, ERROR_VOICE
    if vc is not None and lang != vc["language"]:
        print(
            "carom: the voice pack speaks %s, voice.language is %s: carom deploy --voice copies another"
            % (lang, vc["language"])
        )
    i2s = machine.I2S(
        0,
        sck=machine.Pin(spk[0]),
        ws=machine.Pin(spk[1]),
        sd=machine.Pin(spk[2]),
        mode=machine.I2S.TX,
        bits=16,
        format=machine.I2S.MONO,
        rate=RATE,
        ibuf=_IBUF,
    )
    import speech

    v = speech.Voice(m, i2s, f, index, words, spk)
    if state is not None:
        v.state[:] = state
        return v, 0
    return v, check(v, full)


def shift(volume):
    """I2S.shift's shift for a volume 1..100: 0 (full) down to -5, about 6 dB a step."""
    return -((100 - volume) * 6 // 100)


def language(lang):
    """The numbers' module of a pack's language."""
    if lang == "hu":
        import speech_hu as words
    elif lang == "en":
        import speech_en as words
    elif lang == "de":
        import speech_de as words
    else:
        raise ValueError("no numbers in %r" % lang)
    return words


def mask(vc):
    """The calls' bits (voicenames.C_...): voice.calls ("all" or names), voice.totals."""
    calls = vc["calls"]
    names = CALLS.split()
    bits = 0
    for i in range(len(names)):
        if calls == "all" or names[i] in calls:
            bits |= 1 << (i + 1)  # the i-th name is kind i + 1
    if bits >> C_BREAK & 1:
        bits |= 1 << C_MINUTE
    if bits >> C_END & 1:
        bits |= 1 << C_SHOOTOUT
    if vc["totals"]:
        bits |= 1 << C_TOTAL
    return bits


def check(v, full):
    """Every clip in the pack against its length and CRC (`full`: the pack's index, 3 numbers a
    clip; the state of each); said once for the damaged ones. ERROR_VOICE when there are any,
    else 0."""
    import binascii

    f = v.pack
    buf = v.buf
    damaged = []
    for k in range(len(v.state)):
        size = full[3 * k + 1]
        if not size:
            continue
        f.seek(full[3 * k])
        crc = 0
        ok = True
        while size > 0 and ok:
            ok = f.readinto(buf) == CHUNK
            crc = binascii.crc32(buf, crc)
            size -= CHUNK
        ok = ok and crc == full[3 * k + 2]
        v.state[k] = GOOD if ok else BAD
        if not ok:
            damaged.append(k)
    if damaged:
        print("carom: voice clips %s damaged: skipped (E %d)" % (" ".join([str(k) for k in damaged]), ERROR_VOICE))
        return ERROR_VOICE
    return 0


def missing(v, k):
    """A call needs clip k and the pack has none: the console and E 25, for a while."""
    print("carom: voice clip %d is not in the pack: skipped (E %d)" % (k, ERROR_VOICE))
    b = v.board
    if b is not None and (not b.view.error or b.view.error == ERROR_VOICE):
        import time

        b.view.error = ERROR_VOICE
        b.error_until = time.ticks_add(time.ticks_ms(), STORE_ERROR_MS)
