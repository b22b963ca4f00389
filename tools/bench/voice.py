"""The wall board's voice: each language's pack (carom voice with espeak-ng: its size on the
flash, against the goal of 400 KB, and its sample format) and the firmware's heap with the voice
on, at 32-bit with a stock ESP32's 112 KB (tools/bench/heap.py's runs, with a Hungarian pack on
the flash).
"""

import os
import shutil
import tempfile

from host_tools import micropython32_exe
from tools.bench import heap

GOAL = 400 * 1024


def pack_sizes():
    """{language: (bytes, clips, seconds)} of the packs carom voice makes; {} without espeak-ng."""
    from host_tools.voice import make
    from host_tools.voice.words import LANGUAGES

    out = {}
    if shutil.which("espeak-ng") is None:
        return out
    with tempfile.TemporaryDirectory() as tmp:
        for lang in LANGUAGES:
            s = make.make(os.path.join(tmp, lang), lang)
            out[lang] = {"bytes": s["bytes"], "clips": s["clips"], "seconds": s["seconds"], "format": s["format"]}
    return out


def voice_section():
    print("## The voice: its packs and the heap with the voice on")
    sizes = pack_sizes()
    if not sizes:
        print("(no espeak-ng here: sh tools/deps.sh installs it)")
    for lang, s in sizes.items():
        print(
            "%-4s %2d clips, %5.1f s of speech: %7d bytes on the flash (goal < %d: %s); %s"
            % (lang, s["clips"], s["seconds"], s["bytes"], GOAL, "met" if s["bytes"] < GOAL else "NOT met", s["format"])
        )
    results = {"packs": sizes}
    exe = micropython32_exe()
    if exe is None:
        print("(no 32-bit MicroPython: CAROM_MICROPYTHON32; the heap with the voice is not measured)")
        print()
        return results
    boot = heap._boot_figures(exe, "112K", voice=True)
    plain = heap._boot_figures(exe, "112K")
    long_match = heap._long_match_figures(exe, "112K", 4096, voice=True)
    sets = heap._format_match_figures(exe, "112K", 4096, voice=True)
    results.update(boot=boot, boot_plain=plain, long=long_match, sets=sets)
    print("32-bit, 112 KB, a Hungarian pack on the flash (the same runs as the heap section's):")
    print(
        "start: live, first / next: %d / %d (without the voice %d / %d; goal <= %d); largest free block %d"
        % (
            boot["boot1"]["live"],
            boot["boot2"]["live"],
            plain["boot1"]["live"],
            plain["boot2"]["live"],
            heap.BOOT_LIVE,
            boot["boot2"]["largest"],
        )
    )
    print("running, highest live: %d (without the voice %d)" % (boot["run_peak"], plain["run_peak"]))
    for name, f in (("set match (formats)", sets), ("3,000-entry match", long_match)):
        print(
            "%s in 4 KB holes, highest live: %d (goal <= %d: %s); its report written: %s; "
            "MemoryError: %d; bytes the I2S was sent: %d"
            % (
                name,
                f["peak"],
                heap.RUN_LIVE,
                "met" if f["peak"] <= heap.RUN_LIVE else "NOT met",
                f["report"],
                f["memory_errors"],
                f["i2s_bytes"],
            )
        )
    print()
    return results
