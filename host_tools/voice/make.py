"""A language's pack folder: every clip as a WAV file (to listen to, or to replace) and the
board's voice.pack made from them.

    make(folder, "hu")                          # espeak-ng says every clip
    make(folder, "hu", recordings="club/")      # the club's own: club/<clip>.wav, any rate

A recordings folder need not hold every clip: what it lacks comes from espeak-ng (the
report says which), unless espeak=False (then it is left out; the board skips it).
"""

import os

from . import espeak, pack
from .words import TEXTS

PACK = "voice.pack"


def make(folder, language, recordings=None, use_espeak=True, progress=None):
    """Write folder/<clip>.wav and folder/voice.pack; returns a summary dict."""
    texts = TEXTS[language]
    os.makedirs(folder, exist_ok=True)
    clips = {}
    recorded = []
    synthesized = []
    for name, text in texts.items():
        src = os.path.join(recordings, name + ".wav") if recordings else None
        if src and os.path.isfile(src):
            clips[name] = pack.normalize(pack.trim(pack.read_wav(src)))
            recorded.append(name)
        elif use_espeak:
            if progress:
                progress("%s: %s" % (name, text))
            clips[name] = espeak.say(text, language)
            synthesized.append(name)
        else:
            continue
        pack.write_wav(os.path.join(folder, name + ".wav"), clips[name])
    data = pack.build(clips, language)
    with open(os.path.join(folder, PACK), "wb") as f:
        f.write(data)
    return {
        "language": language,
        "clips": len(clips),
        "recorded": recorded,
        "synthesized": synthesized,
        "missing": sorted(set(texts) - set(clips)),
        "bytes": len(data),
        "seconds": round(pack.Pack(data).seconds(), 1),
        "format": "%d Hz, 16-bit signed mono, in %d-byte chunks" % (pack.RATE, pack.CHUNK),
    }
