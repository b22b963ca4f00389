"""The simulator's page speaks what the board says, in Debian's Chromium.

`carom sim --voice PACK` puts the pack on the board's flash. Checked: with the Sound switch off
the page gets the samples the board's I2S amplifier got (the call's clip, in whole chunks) and
plays none; switched on, the next call's samples are scheduled in the page's Web Audio, every
one; the log says what was said in the pack's words ("három": 3 to go after the lag, in a
three-cushion match to 3; then "kettő").
"""

import json

from helpers import CAROM, free_port, wait_for
from host_tools.voice import pack
from test_speech_vboard import CONFIG, synthetic_clips
from test_web import stop_and_check
from tools.run.sim import Sim, open_page

CHUNK = 512  # bytes a chunk (voicenames.CHUNK): the board writes clips in whole chunks


def samples_of(clip):
    """The samples (16-bit) the board sends for a clip (its bytes): its chunks, the last one whole."""
    return -(-len(clip) // CHUNK) * CHUNK // 2


def test_the_page_plays_what_the_board_says_and_logs_it(browser, tmp_path):
    data = pack.build(synthetic_clips(), "hu")
    (tmp_path / "hu.pack").write_bytes(data)
    (tmp_path / "config.json").write_text(json.dumps(CONFIG))
    sim = Sim(
        [
            CAROM,
            "sim",
            "--listen",
            "127.0.0.1:%d" % free_port(),
            "--config",
            str(tmp_path / "config.json"),
            "--voice",
            str(tmp_path / "hu.pack"),
        ],
        timeout=90,
    )
    try:
        p = open_page(browser, sim)
        sound = p.page.locator("#sound")
        said = p.page.locator('.board[data-board="0"] .log li[data-kind="said"]')

        def count(name):
            return int(sound.get_attribute(name) or 0)

        three = samples_of(pack.Pack(data).clip("n3"))
        two = samples_of(pack.Pack(data).clip("n2"))
        # Off: the samples come, none is played.
        assert sound.get_attribute("aria-pressed") == "false"
        p.button("A.point").click()  # the lag: A breaks, 3 to go
        wait_for(said.all_inner_texts, lambda v: len(v) == 1, 30, "the log's first said line")
        assert "három" in said.all_inner_texts()[0]
        wait_for(lambda: count("data-voice-samples"), three, 30, "the samples of 'három' on the page")
        assert count("data-voice-played") == 0
        # On: the next call's samples are played, every one.
        sound.click()
        wait_for(lambda: sound.get_attribute("aria-pressed"), "true", 10, "the Sound switch on")
        p.let_pass(0.5)  # past the press's lock-out
        p.button("A.point").click()  # 2 to go
        wait_for(said.all_inner_texts, lambda v: len(v) == 2, 30, "the log's second said line")
        assert "kettő" in said.all_inner_texts()[1]
        wait_for(lambda: count("data-voice-samples"), three + two, 30, "the samples of 'kettő' on the page")
        assert count("data-voice-played") == two
        assert p.errors == []
    finally:
        stop_and_check(sim)
