"""What the board said, heard from the samples its I2S was sent (the virtual board's).

    ear = Listener(pack_bytes)               # the pack the board has (any voice.volume)
    ear.heard(vb.i2s_writes)                 # the clips begun since the last call: ["n20", ...]
    words.spoken(ear.language, names)        # "húsz"

Each clip's first chunk, at the board's volume (speech_setup.shift, the same sum), names it;
its other chunks are counted off. A write that starts no clip is "?".
"""

import sys
from array import array

from .. import firmware_path
from .pack import CHUNK, Pack

firmware_path()
import speech_setup  # noqa: E402


def shifted(raw, shift):
    """16-bit little-endian samples shifted as machine.I2S.shift does (an arithmetic shift)."""
    if not shift:
        return raw
    a = array("h", raw)
    if sys.byteorder == "big":
        a.byteswap()
    a = array("h", (v << shift if shift > 0 else v >> -shift for v in a))
    if sys.byteorder == "big":
        a.byteswap()
    return a.tobytes()


class Listener:
    def __init__(self, data, volume=None):
        """volume: the board's voice.volume; None: any (each volume's samples are known)."""
        self.pack = Pack(data)
        self.language = self.pack.language
        shifts = {speech_setup.shift(v) for v in (range(1, 101) if volume is None else (volume,))}
        self._first = {}
        for s in sorted(shifts, reverse=True):
            for name in self.pack.index:
                raw = shifted(self.pack.clip(name), s)
                self._first.setdefault(raw[:CHUNK], (name, len(raw) // CHUNK))
        self._seen = 0
        self._left = 0

    def heard(self, writes):
        """The clips begun in writes[self's place:] (the board's whole list of (t, bytes) or bytes)."""
        out = []
        for w in writes[self._seen :]:
            self._seen += 1
            data = w[1] if isinstance(w, tuple) else w
            if self._left:
                self._left -= 1
                continue
            found = self._first.get(bytes(data))
            if found is None:
                out.append("?")
                continue
            out.append(found[0])
            self._left = found[1] - 1
        return out
