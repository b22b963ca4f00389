"""The clips spoken by espeak-ng (Debian's package espeak-ng; tools/deps.sh installs it).

    samples = say("huszon", "hu")     # 16-bit mono at the pack's rate, trimmed and made louder

espeak-ng writes a WAV file (22,050 Hz, 16-bit) that pack.read_wav resamples.
"""

import os
import shutil
import subprocess
import tempfile

from . import pack

VOICES = {"hu": "hu", "en": "en-gb", "de": "de"}
SPEED = 190  # words a minute: a referee's brisk pace, and short clips


class SpeechError(RuntimeError):
    pass


def program():
    """espeak-ng's path, or a SpeechError that says how to get it."""
    path = shutil.which("espeak-ng")
    if path is None:
        raise SpeechError("espeak-ng is not installed: sh tools/deps.sh (or apt-get install espeak-ng)")
    return path


def say(text, language):
    exe = program()
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "clip.wav")
        try:
            subprocess.run(
                [exe, "-v", VOICES[language], "-s", str(SPEED), "-w", out, text],
                check=True,
                capture_output=True,
                timeout=60,
            )
        except (OSError, subprocess.SubprocessError) as e:
            raise SpeechError("espeak-ng could not say %r: %s" % (text, e))
        return pack.normalize(pack.trim(pack.read_wav(out)))
