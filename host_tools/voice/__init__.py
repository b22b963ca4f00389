"""The wall board's voice packs, made on the host: the clips' words, the pack's file, the
speech synthesizer (espeak-ng) or the club's own recordings.

    words.py    CLIPS (each clip's name, by the firmware's number: firmware/voicenames.py),
                the words each language says for each, and the calls as words (the logs)
    pack.py     WAV in and out, the linear resampler, a pack written (voice.pack) and read back
    espeak.py   the clips spoken by espeak-ng (Debian's espeak-ng, tools/deps.sh)
    make.py     a language's pack folder from espeak-ng or from a folder of recordings

`carom voice` (host_tools/commands/voice.py) runs make.py; `carom deploy --voice` copies a
pack's voice.pack to the board.
"""
