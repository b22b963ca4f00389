"""The wall board's voice on the virtual board, and its packs made on the host.

The real firmware (as .mpy) runs with a voice pack on its flash; the emulated I2S gets every
chunk the board sends, and what it got must be the pack's clips, byte for byte, in the order
of the calls. The packs: made here from synthetic clips (every sample names its clip), or by
`carom voice` with espeak-ng (Debian's; skipped where it is not installed).
"""

import json
import os
import shutil
import wave
from array import array

import pytest

from helpers import carom, ok
from host_tools.simulator.scripted_board import ScriptedBoard
from host_tools.voice import pack, words
from host_tools.voice.listen import Listener

CONFIG = {"board": "wall", "match": {"game": "three_cushion", "target": 3}, "voice": {"volume": 100}}


def synthetic_clips(language="hu"):
    """Every clip of a language: a tone whose samples name the clip (so none is like another)."""
    out = {}
    for k, name in enumerate(words.CLIPS):
        if name in words.TEXTS[language]:
            n = 200 + 37 * k  # 25 ms and more: up to 2 chunks
            out[name] = array("h", ((k + 1) * 100 + (i % 50) for i in range(n)))
    return out


@pytest.fixture
def voiced(tmp_path, firmware):
    data = pack.build(synthetic_clips(), "hu")
    sb = ScriptedBoard("wall", str(tmp_path / "flash"), config=CONFIG, firmware=firmware, voice=data)
    sb.data = data
    yield sb
    sb.close()


def step(sb, line):
    assert sb.line(line) is None, line
    return sb.state()


def said(sb, line):
    """What the board said after `line`, all of it: the line, then 2 s for a long call to end."""
    return step(sb, line)["said"] + step(sb, "wait 2")["said"]


def test_a_match_said_and_the_samples_are_the_clips(voiced):
    sb = voiced
    s = sb.state()
    assert sb.vb.i2s is not None and sb.vb.i2s[1:4] == (16, 17, 5)  # bck, ws, din of wall.json
    assert s["said"] == []
    assert said(sb, "press A.point") == ["három"]  # the lag: A breaks; a target of 3: from the start
    assert said(sb, "press A.point") == ["kettő"]
    assert said(sb, "press A.point") == ["egy"]
    # A reaches 3: B's equalizing inning, B needs 3
    assert said(sb, "press A.point") == ["kiegyenlítő felvétel", "három"]
    # B's zero inning ends the match: A wins 3:0 with the yellow
    assert said(sb, "press B.end") == ["nulla", "vége", "sárga", "nyert", "három", "nulla"]
    p = pack.Pack(sb.data)
    expected = b"".join(
        p.clip(c) for c in ("n3", "n2", "n1", "equalizing", "n3", "n0", "end", "yellow", "wins", "n3", "n0")
    )
    assert sb.vb.audio() == expected  # every sample the I2S got is a clip's, in order
    assert all(len(data) == pack.CHUNK for _, data in sb.vb.i2s_writes)
    # The report is written with the voice resting (out of RAM); it speaks again after, in a new match.
    step(sb, "wait 5")
    assert os.listdir(os.path.join(sb.flash_dir, "data", "history"))
    step(sb, "hold new 3.5")
    assert said(sb, "press A.point") == ["három"]
    assert "Traceback" not in sb.vb.stderr and "task failed" not in sb.vb.stdout


def test_fouls_by_kind_and_the_headless_log(tmp_path, firmware):
    data = pack.build(synthetic_clips(), "hu")
    sb = ScriptedBoard(
        "wall",
        str(tmp_path / "flash"),
        config=dict(CONFIG, match={"target": 30}, voice={"volume": 60}),
        firmware=firmware,
        voice=data,
    )
    try:
        step(sb, "press A.point")  # A breaks
        assert step(sb, "press foul")["said"] == ["hiba"]  # the wall's foul button: a foul of no kind
        assert step(sb, "press B.end")["said"] == ["nulla"]
    finally:
        sb.close()


def test_a_damaged_clip_is_skipped_and_shows_e25(tmp_path, firmware):
    data = bytearray(pack.build(synthetic_clips(), "hu"))
    off = pack.Pack(bytes(data)).index["n2"][0]
    data[off + 10] ^= 0x55
    sb = ScriptedBoard("wall", str(tmp_path / "flash"), config=CONFIG, firmware=firmware, voice=bytes(data))
    try:
        s = sb.state()
        assert s["fields"]["message"] == "E 25"
        assert any("damaged" in line for line in s["printed"])
        step(sb, "press A.point")
        s = step(sb, "press A.point")  # "two" is the damaged one: skipped
        assert s["said"] == []
        s = step(sb, "press A.point")
        assert s["said"] == ["egy"]  # the match and the voice go on
        assert s["fields"]["A.score"] == "   2"
    finally:
        sb.close()


def test_the_headless_mode_prints_what_was_said(tmp_path):
    folder = tmp_path / "pack"
    folder.mkdir()
    (folder / "voice.pack").write_bytes(pack.build(synthetic_clips("en"), "en"))
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps(dict(CONFIG, voice={"volume": 60, "language": "en"})))
    script = tmp_path / "script.txt"
    script.write_text("press A.point\npress A.point\n")
    out = ok(
        carom(
            "sim",
            "--headless",
            "--board",
            "wall",
            "--voice",
            str(folder),
            "--config",
            str(cfg),
            "--script",
            str(script),
        )
    )
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines[-1]["said"] == ["two"]  # heard at volume 60: every sample shifted


# ---- the packs made on the host ------------------------------------------------------------


def test_wav_in_any_format_is_resampled_to_the_boards(tmp_path):
    path = tmp_path / "club.wav"
    with wave.open(str(path), "wb") as w:
        w.setnchannels(2)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(array("h", [1000, 3000] * 1600).tobytes())  # 0.1 s of stereo at 16 kHz
    s = pack.read_wav(path)
    assert len(s) == 800 and set(s) == {2000}  # 0.1 s at 8 kHz, the channels averaged
    assert list(pack.resample(array("h", [0, 100]), 1, 4)[:5]) == [0, 25, 50, 75, 100]


def test_a_pack_reads_back_and_its_damage_is_found():
    clips = synthetic_clips("de")
    data = pack.build(clips, "de")
    p = pack.Pack(data)
    assert p.language == "de" and p.rate == 8000 and p.chunk == pack.CHUNK
    assert set(p.index) == set(words.TEXTS["de"])
    assert p.clip("n3")[: len(pack.padded(clips["n3"]))] == pack.padded(clips["n3"])
    assert p.damaged() == []
    bad = bytearray(data)
    bad[p.index["and"][0]] ^= 1
    assert pack.Pack(bytes(bad)).damaged() == ["and"]
    with pytest.raises(pack.PackError):
        pack.build({"n23": clips["n3"]}, "de")  # not a clip: 23 is composed


def test_the_firmware_and_the_host_number_the_clips_alike():
    import voicenames as vn

    assert words.CLIPS[vn.K_N0] == "n0" and words.CLIPS[vn.K_TENS] == "n20" and words.CLIPS[vn.K_TENS + 7] == "n90"
    for key, name in (
        ("K_HUNDRED", "hundred"),
        ("K_THOUSAND", "thousand"),
        ("K_TEEN", "teen_prefix"),
        ("K_TWENTY_", "twenty_prefix"),
        ("K_TWO_", "two_prefix"),
        ("K_AND", "and"),
        ("K_ONE_", "one_prefix"),
        ("K_FOUL", "foul_miss"),
        ("K_EQUALIZING", "equalizing"),
        ("K_END", "end"),
        ("K_WHITE", "white"),
        ("K_YELLOW", "yellow"),
        ("K_WINS", "wins"),
        ("K_DRAW", "draw"),
        ("K_SHOOTOUT", "shootout"),
        ("K_BREAK", "break"),
        ("K_MINUTE", "minute"),
        ("K_SECONDS", "seconds"),
        ("K_TIMEOUT", "timeout"),
        ("K_SET", "set"),
    ):
        assert words.CLIPS[getattr(vn, key)] == name, key
    import matchwords

    assert [words.CLIPS[vn.K_FOUL + i] for i in range(len(matchwords.FOULS))] == ["foul_" + f for f in matchwords.FOULS]


def test_every_number_a_language_composes_has_its_clips():
    for lang in words.LANGUAGES:
        for n in list(range(0, 200)) + [999, 1000, 1001, 2024, 9999]:
            for clip in words.number_clips(lang, n):
                assert clip in words.TEXTS[lang], (lang, n, clip)
    assert words.spoken("hu", words.number_clips("hu", 23)) == "huszon három"
    assert words.spoken("en", words.number_clips("en", 23)) == "twenty three"
    assert words.spoken("de", words.number_clips("de", 23)) == "drei und zwanzig"


needs_espeak = pytest.mark.skipif(
    shutil.which("espeak-ng") is None, reason="espeak-ng is not installed (tools/deps.sh)"
)


@needs_espeak
@pytest.mark.parametrize("language", words.LANGUAGES)
def test_carom_voice_makes_a_pack_under_400_kb(tmp_path, language):
    out = tmp_path / language
    stdout = ok(carom("voice", language, "--out", str(out)))
    data = (out / "voice.pack").read_bytes()
    assert len(data) < 400 * 1024, len(data)
    assert "%d bytes on the flash" % len(data) in stdout and "8000 Hz, 16-bit signed mono" in stdout
    p = pack.Pack(data)
    assert p.language == language and set(p.index) == set(words.TEXTS[language]) and p.damaged() == []
    assert sorted(f for f in os.listdir(out) if f.endswith(".wav")) == sorted(n + ".wav" for n in words.TEXTS[language])


@needs_espeak
def test_club_recordings_replace_the_synthesized_clips(tmp_path):
    rec = tmp_path / "club"
    rec.mkdir()
    with wave.open(str(rec / "n3.wav"), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(1)
        w.setframerate(22050)
        w.writeframes(bytes(128 + (60 if (i // 20) % 2 else -60) for i in range(11025)))  # 0.5 s, 8-bit
    out = tmp_path / "hu"
    stdout = ok(carom("voice", "hu", "--out", str(out), "--recordings", str(rec)))
    assert "recorded: n3" in stdout
    p = pack.Pack((out / "voice.pack").read_bytes())
    assert 0.45 * 16000 <= len(p.clip("n3")) <= 0.55 * 16000 + pack.CHUNK  # resampled to 8 kHz, trimmed


def test_carom_voice_list_and_refusals(tmp_path):
    out = ok(carom("voice", "en", "--list"))
    assert "twenty_prefix" not in out and "n20" in out and "twenty" in out
    err = carom("voice", "xx")
    assert err.returncode == 2
    err = carom("voice", "hu", "--recordings", str(tmp_path / "none"))
    assert err.returncode == 1 and "no recordings folder" in err.stderr


def test_deploy_refuses_a_damaged_pack(tmp_path):
    data = bytearray(pack.build(synthetic_clips(), "hu"))
    data[-5] ^= 1
    (tmp_path / "voice.pack").write_bytes(bytes(data))
    err = carom("deploy", "--device", str(tmp_path / "ttyNONE"), "--board", "wall", "--voice", str(tmp_path))
    assert err.returncode == 1 and "damaged clips" in err.stderr


def test_listener_hears_shifted_samples():
    data = pack.build(synthetic_clips(), "hu")
    p = pack.Pack(data)
    from host_tools.voice.listen import shifted

    ear = Listener(data, 50)
    writes = [shifted(p.clip("n5")[i : i + pack.CHUNK], -3) for i in range(0, len(p.clip("n5")), pack.CHUNK)]
    assert ear.heard(writes) == ["n5"]


def test_the_wall_boards_amplifier_and_speaker_are_counted_and_wired():
    from host_tools.boards import load_board
    from host_tools.hardware import bom, pins, power, wiring

    bd = load_board("wall")
    spk = bd["speaker"]
    assert spk == {"bck": 16, "ws": 17, "din": 5, "gain_db": 9}
    lines = {line.part.key: line for line in bom.lines(bd)}
    assert lines["amp-i2s"].qty == 1 and lines["speaker"].qty == 1
    assert "GAIN left open" in lines["amp-i2s"].note
    h = wiring.harness(bd)
    amp = [c for c in h["connections"] if "AMP" in c[2]][0]
    assert amp[0]["ESP32"] == ["5V", "GND", "GPIO16", "GPIO17", "GPIO5"] and amp[2]["AMP"][2:] == ["BCLK", "LRC", "DIN"]
    assert [c for c in h["connections"] if "SPEAKER" in c[2]][0][0] == {"AMP": ["+", "-"]}
    assert sorted(row.gpio for row in pins.gpio_rows(bd) if row.active == "I2S") == [5, 16, 17]
    assert any("I2S amplifier" in row.what for row in power.budget(bd).rows)
    mini = load_board("mini")
    assert mini["speaker"] is None and not [line for line in bom.lines(mini) if line.part.key == "amp-i2s"]


def test_the_simulator_page_gets_the_samples_and_logs_what_was_said(tmp_path):
    """A page's session: each I2S write's samples go to the page ("voice", for its Sound switch)
    and the log says what was said, heard against the board's pack."""
    from helpers import wait_until
    from host_tools.simulator.page.session import BoardSession

    flash = tmp_path / "flash"
    flash.mkdir()
    data = pack.build(synthetic_clips(), "hu")
    (flash / "voice.pack").write_bytes(data)
    (flash / "config.json").write_text(json.dumps(dict(CONFIG, voice={"volume": 100})))
    events = []
    s = BoardSession(0, "wall", str(flash), publish=lambda kind, index, payload: events.append((kind, payload)))
    s.start()
    try:
        s.act({"do": "tap", "button": "A.point"})  # the lag: A breaks, 3 to go

        def logged():
            return [p["text"] for k, p in events if k == "log" and p["kind"] == "said"]

        wait_until(lambda: logged(), what="the log's said line")
        assert logged()[0] == "három"
        clip = pack.Pack(data).clip("n3")
        wait_until(lambda: len(pcm_of(events)) >= len(clip), what="the clip's samples sent to the page")
        assert pcm_of(events)[: len(clip)] == clip
        assert all(p["rate"] == 8000 for k, p in events if k == "voice")
    finally:
        s.close()


def pcm_of(events):
    import base64

    return b"".join(base64.b64decode(p["pcm"]) for k, p in events if k == "voice")


def test_the_voices_keys_are_set_and_checked_as_the_others():
    from host_tools.commands.config import apply_settings
    from host_tools.errors import CommandError

    got = apply_settings({}, ["voice.calls=countdown,foul", "voice.totals=on", "voice.volume=60", "voice.language=de"])
    assert got["voice"] == {"calls": ["countdown", "foul"], "totals": True, "volume": 60, "language": "de"}
    assert apply_settings({}, ["voice.calls=all"])["voice"]["calls"] == "all"
    for setting, said in (
        ("voice.calls=countdown,fouls", 'voice.calls[1]: "fouls" is not one of countdown, zero, foul'),
        ("voice.language=fr", 'voice.language: "fr" is not one of hu, en, de'),
        ("voice.volume=101", "voice.volume: 101 is not in 0..100"),
    ):
        with pytest.raises(CommandError) as e:
            apply_settings({}, [setting])
        assert said in str(e.value) and "nothing was written" in str(e.value)
