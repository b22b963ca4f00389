"""What the wall board does at a start when the flash is not as it left it.

What is tried (the real firmware on a virtual board, read from the chips' segments):
- the journal deleted under a saved match (a rollback): E 23 for 10 s, then the match
  that could be read; a newer match's journal left beside an older snapshot: E 23 too;
- the board definition missing or damaged, and the default one too: the board scans the
  wall board's buses and shows E 21 on every HT16K33 it finds; only the named one gone:
  the wall board's definition runs, E 21 shown;
- a power cut between the winning entry and its report: the report is written at the
  next start, and sent to the hall's broker (a mosquitto started here).
"""

import json
import os

import pytest

from host_tools.simulator.scripted_board import ScriptedBoard, deploy_source
from host_tools.simulator.vboard import VirtualBoard

from helpers import board_def
from tools.run.mosquitto import Mosquitto, available as mosquitto_available

CONFIG = {"board": "wall", "match": {"game": "three_cushion", "target": 2}}


def step(sb, line):
    assert sb.line(line) is None, line
    return sb.state()


def test_a_deleted_journal_shows_e23_then_the_match_that_could_be_read(tmp_path):
    with ScriptedBoard("wall", str(tmp_path / "flash"), config=CONFIG) as sb:
        for line in ("press A.point", "press A.point", "press A.end"):
            step(sb, line)
        step(sb, "power off")
        jnl = os.path.join(sb.flash_dir, "data", "jnl")
        for name in os.listdir(jnl):
            os.remove(os.path.join(jnl, name))
        s = step(sb, "power on")
        assert s["fields"]["message"] == "E 23"
        assert any("damaged or went back" in line for line in s["printed"]), s["printed"]
        assert s["fields"]["A.score"] == "   0"  # the journal had the points: gone with it
        s = step(sb, "wait 11")
        assert s["fields"]["message"] != "E 23"  # a passing code: 10 s
        s = step(sb, "press A.point")  # and the board goes on
        assert s["leds"]["A.turn"] == 1


def _damage_boards(flash, names, how):
    for name in names:
        for ext in (".json", ".ok"):
            path = os.path.join(flash, "boards", name + ext)
            if os.path.exists(path):
                os.remove(path)
        if how == "damaged":
            with open(os.path.join(flash, "boards", name + ".json"), "w") as f:
                f.write('{"schema": 1, "name": "wall", "i2c": [')


@pytest.mark.parametrize("how", ["missing", "damaged"])
def test_no_readable_board_definition_shows_e21_on_every_chip_found(tmp_path, how):
    flash = str(tmp_path / "flash")
    deploy_source(flash, "wall", CONFIG)
    _damage_boards(flash, ["wall"], how)
    raw = board_def("wall")
    with VirtualBoard(flash, board=raw) as vb:
        vb.advance(2)
        chips = vb.chips()
        assert len(chips) == 16  # the wall board's chips, on both buses
        from host_tools.simulator.segments import decode

        for (bus, addr), chip in chips.items():
            kind = next(d["kind"] for d in raw["displays"] if d.get("bus", 0) == bus and int(d["addr"], 16) == addr)
            assert decode(chip.ram, kind).text == "E 21", (bus, hex(addr))
        assert "E 21 on every display found" in vb.stdout


def test_a_missing_named_board_falls_back_to_the_wall_board_with_e21(tmp_path):
    config = dict(CONFIG, board="mini")
    with ScriptedBoard("wall", str(tmp_path / "flash"), config=config) as sb:
        step(sb, "power off")
        _damage_boards(sb.flash_dir, ["mini"], "missing")
        s = step(sb, "power on")
        assert s["fields"]["message"] == "E 21"
        assert any("board 'mini'" in line for line in s["printed"]), s["printed"]
        s = step(sb, "press A.point")  # the wall board's buttons work
        assert s["leds"]["A.turn"] == 1


@pytest.mark.skipif(not mosquitto_available(), reason="mosquitto is not installed")
def test_a_report_lost_to_a_power_cut_is_written_and_sent_at_the_next_start(tmp_path):
    import paho.mqtt.client as paho

    broker = Mosquitto().start()
    got = []
    listener = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id="listener")
    listener.on_connect = lambda c, u, f, rc, p=None: c.subscribe("carom/#", qos=1)
    listener.on_message = lambda c, u, msg: got.append((msg.topic, msg.payload))
    listener.connect("127.0.0.1", broker.port)
    listener.loop_start()
    wifi = {"ssid": "hall", "password": "secret123"}
    config = dict(CONFIG, wifi=wifi, mqtt={"host": "127.0.0.1", "port": broker.port, "table": "t7"})
    flash = str(tmp_path / "flash")
    try:
        with ScriptedBoard("wall", flash, config=config, wifi=wifi) as sb:
            for line in ("press A.point", "press A.point", "press A.end", "press B.point", "press B.point"):
                step(sb, line)  # B wins
            history = os.path.join(flash, "data", "history")
            assert len(os.listdir(history)) == 1
            step(sb, "power off")
            for name in os.listdir(history):  # as if the power went before the report was written
                os.remove(os.path.join(history, name))
            with open(os.path.join(flash, "data", "sent"), "w") as f:
                f.write("0")
        got.clear()
        raw = board_def("wall")
        with VirtualBoard(flash, board=raw, wifi=wifi) as vb:
            vb.run_realtime()
            vb.wait_for(lambda b: any(t == "carom/t7/report" for t, _ in got), timeout=30)
            vb.stop_realtime()
            assert len(os.listdir(history)) == 1
            reports = [p for t, p in got if t == "carom/t7/report"]
            assert reports, got
            rep = json.loads(reports[-1])
            assert rep["result"] == "B"
            with open(os.path.join(history, os.listdir(history)[0]), "rb") as f:
                assert json.loads(f.read()) == rep
    finally:
        listener.loop_stop()
        listener.disconnect()
        broker.close()
