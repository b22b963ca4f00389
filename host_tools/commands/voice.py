"""`carom voice`: make a voice pack, the wall board's referee's calls in a language.

    carom voice hu [--out voices/hu]                       espeak-ng says every clip
    carom voice hu --recordings club-hu/ [--no-espeak]     the club's own WAV files, any rate
    carom deploy -d PORT --board wall --voice voices/hu    to the board

The pack folder holds each clip as a WAV file (16-bit mono at 8 kHz, as the board plays it:
listen to them, record a better one and make the pack again with --recordings) and
voice.pack, the file the board reads. host_tools/voice/ does the work.
"""

import os
import sys

from ..errors import CommandError


def arguments(p):
    """Make a voice pack: the clips of the referee's calls (numbers, fouls, the end...) in a
    language, spoken by espeak-ng (Debian's espeak-ng) or taken from a folder of the club's own
    recordings (<clip>.wav, any rate or width: resampled to the board's 8 kHz 16-bit mono)."""
    from ..voice.words import LANGUAGES

    p.add_argument("language", choices=LANGUAGES, help="the calls' language (hu: the rules', the default on the board)")
    p.add_argument("--out", metavar="DIR", help="the pack folder (default: voices/LANGUAGE)")
    p.add_argument(
        "--recordings",
        metavar="DIR",
        help="a folder of the club's own recordings, one WAV per clip (its name: the pack folder's; "
        "carom voice LANGUAGE --list names them)",
    )
    p.add_argument("--no-espeak", action="store_true", help="clips the recordings lack are left out, not synthesized")
    p.add_argument("--list", action="store_true", help="list the language's clips and their words, make nothing")
    p.add_argument("--quiet", action="store_true", help="no line per clip as it is made (the summary still prints)")
    p.set_defaults(run=run_voice)


def run_voice(args):
    from ..voice import espeak, make, pack
    from ..voice.words import TEXTS

    if args.list:
        for name, text in TEXTS[args.language].items():
            print("%-20s %s" % (name, text))
        return 0
    out = args.out or os.path.join("voices", args.language)  # beside where the command runs, as --help says
    if args.recordings and not os.path.isdir(args.recordings):
        raise CommandError("no recordings folder %s" % args.recordings)
    try:
        summary = make.make(
            out,
            args.language,
            recordings=args.recordings,
            use_espeak=not args.no_espeak,
            progress=None if args.quiet else lambda text: print("carom: %s" % text, file=sys.stderr, flush=True),
        )
    except espeak.SpeechError as e:
        raise CommandError(str(e))
    except pack.PackError as e:
        raise CommandError(str(e))
    print(
        "voice pack %s: %d clips, %d bytes on the flash (%.1f s of speech; %s)"
        % (out, summary["clips"], summary["bytes"], summary["seconds"], summary["format"])
    )
    if summary["recorded"]:
        print("recorded: %s" % " ".join(summary["recorded"]))
    if summary["missing"]:
        print("left out (the board skips them): %s" % " ".join(summary["missing"]))
    print("to the board: carom deploy -d PORT --board wall --voice %s" % out)
    return 0
