"""A voice pack's file (firmware/voicenames.py has its layout), WAV files, the resampler.

    samples = read_wav(path)               # 16-bit mono at RATE, whatever the file's format
    write_wav(path, samples)
    data = build({name: samples, ...}, "hu")   # the board's voice.pack
    p = Pack(data)                         # read back: p.language, p.clip("n3"), p.sizes()

Clips are 16-bit signed little-endian mono at voicenames.RATE, each padded with silence to
whole chunks (voicenames.CHUNK bytes), as the board streams them. Only the standard library
(wave, array): no audioop (gone from Python 3.13), no sox.
"""

import binascii
import struct
import sys
import wave
from array import array

from .words import CLIPS

from .. import firmware_path

firmware_path()
import voicenames as _vn  # noqa: E402

RATE = _vn.RATE
CHUNK = _vn.CHUNK
_SILENCE = 500  # a sample below this (of 32767) is silence, when trimming


class PackError(ValueError):
    pass


def _samples(raw, width):
    """Signed 16-bit ints from PCM frames of `width` bytes (8-bit WAV is unsigned)."""
    if width == 2:
        a = array("h", raw)
        if sys.byteorder == "big":
            a.byteswap()
        return a
    if width == 1:
        return array("h", ((b - 128) << 8 for b in raw))
    if width in (3, 4):
        return array(
            "h",
            (int.from_bytes(raw[i + width - 2 : i + width], "little", signed=True) for i in range(0, len(raw), width)),
        )
    raise PackError("%d-byte samples are not supported" % width)


def read_wav(path):
    """A WAV file's samples as 16-bit mono at RATE: channels averaged, resampled linearly."""
    try:
        with wave.open(str(path), "rb") as w:
            channels, width, rate, n = w.getnchannels(), w.getsampwidth(), w.getframerate(), w.getnframes()
            raw = w.readframes(n)
    except (wave.Error, EOFError) as e:
        raise PackError("%s: not a PCM WAV file (%s)" % (path, e))
    s = _samples(raw, width)
    if channels > 1:
        s = array("h", (sum(s[i : i + channels]) // channels for i in range(0, len(s) - channels + 1, channels)))
    return resample(s, rate, RATE)


def resample(s, src, dst):
    """Linear interpolation from src to dst samples a second."""
    if src == dst or not s:
        return array("h", s)
    n = max(1, len(s) * dst // src)
    out = array("h", bytes(2 * n))
    last = len(s) - 1
    for i in range(n):
        x = i * src / dst
        j = int(x)
        if j >= last:
            out[i] = s[last]
            continue
        f = x - j
        out[i] = int(round(s[j] * (1 - f) + s[j + 1] * f))
    return out


def write_wav(path, samples):
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(_le(samples))


def _le(samples):
    a = array("h", samples)
    if sys.byteorder == "big":
        a.byteswap()
    return a.tobytes()


def trim(samples, pad_ms=10):
    """The clip without the silence before and after it (a little kept: pad_ms)."""
    first = next((i for i, v in enumerate(samples) if abs(v) > _SILENCE), None)
    if first is None:
        return array("h")
    last = len(samples) - next(i for i, v in enumerate(reversed(samples)) if abs(v) > _SILENCE)
    pad = RATE * pad_ms // 1000
    return array("h", samples[max(0, first - pad) : min(len(samples), last + pad)])


def normalize(samples, peak=0.9):
    """Louder to `peak` of full scale (espeak-ng speaks softly; the amplifier's gain is fixed)."""
    top = max((abs(v) for v in samples), default=0)
    if not top:
        return array("h", samples)
    k = peak * 32767 / top
    return array("h", (max(-32768, min(32767, int(v * k))) for v in samples))


def padded(samples):
    """The clip's bytes as the board streams them: whole chunks, silence after the end."""
    raw = _le(samples)
    return raw + bytes(-len(raw) % CHUNK)


def build(clips, language):
    """The board's pack file from {clip name: samples} (names of CLIPS; those missing: not in it)."""
    unknown = sorted(set(clips) - set(CLIPS))
    if unknown:
        raise PackError("not clips of a pack: %s" % ", ".join(unknown))
    if len(language) != 2:
        raise PackError("a language is two letters, not %r" % language)
    index = []
    body = bytearray()
    head = _vn.HEADER + 12 * len(CLIPS)
    start = head + (-head % CHUNK)  # the clips from a whole chunk on
    for name in CLIPS:
        if name not in clips:
            index.append((0, 0, 0))
            continue
        raw = padded(clips[name])
        index.append((start + len(body), len(raw), binascii.crc32(raw)))
        body += raw
    top = _vn.PACK_MAGIC + language.encode() + struct.pack("<HHH", RATE, len(CLIPS), CHUNK)
    top += b"".join(struct.pack("<III", *e) for e in index)
    return top + bytes(start - len(top)) + bytes(body)


class Pack:
    """A pack file read back: its language, each clip's bytes (None: not in it), its sizes."""

    def __init__(self, data):
        if data[:4] != _vn.PACK_MAGIC or len(data) < _vn.HEADER:
            raise PackError("not a voice pack")
        self.data = bytes(data)
        self.language = data[4:6].decode()
        self.rate, count, self.chunk = struct.unpack_from("<HHH", data, 6)
        self.index = {}
        for k in range(count):
            off, size, crc = struct.unpack_from("<III", data, _vn.HEADER + 12 * k)
            if size:
                self.index[CLIPS[k] if k < len(CLIPS) else str(k)] = (off, size, crc)

    def clip(self, name):
        e = self.index.get(name)
        return None if e is None else self.data[e[0] : e[0] + e[1]]

    def damaged(self):
        """The clips whose bytes are not what the index says (cut short, changed)."""
        return [
            n
            for n, (off, size, crc) in self.index.items()
            if binascii.crc32(self.data[off : off + size]) != crc or off + size > len(self.data)
        ]

    def seconds(self):
        return sum(size for _, size, _ in self.index.values()) / 2 / self.rate
