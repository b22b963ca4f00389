"""A MemoryError while the wall handles a remote command loses only that frame: the
sequence number is recorded (in RAM and in /radio.last) if and only if the command was
acted on, and the frame sent again is acted on once in all.

The wall's real objects on the virtual board (tests/host/vboard_fixtures/radio_memory.py
as main.py): the heap locked in one step of app.Board.radio_frame at a time (the Receiver's
check, write_last, Controller.remote, the view's new match, the summary, the
acknowledgement, the send), for points, misses, undos, fouls and new matches, and for
the command answering a challenge (the wall lost its record).
"""

import os
import shutil

from host_tools.simulator.scripted_board import ScriptedBoard

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vboard_fixtures", "radio_memory.py")
KEY = "5a" * 32


def test_a_memory_error_never_records_a_command_not_acted_on(tmp_path):
    flash = str(tmp_path / "wall")
    with ScriptedBoard(
        "wall",
        flash,
        {
            "board": "wall",
            "match": {"game": "straight_rail", "target": 500},
            "radio": {"peer": "24:0a:c4:00:00:91", "key": KEY},
        },
        power=False,
    ) as wall:
        shutil.copyfile(FIXTURE, os.path.join(flash, "main.py"))
        with open(os.path.join(flash, "radio.last"), "w") as f:
            f.write("1 7")
        wall.vb.power_on()
        wall.vb.advance(1)
        lines = wall.vb.lines()
        fails = [line for line in lines if line.startswith("FAIL")]
        assert not fails, fails
        done = [line for line in lines if line.startswith("DONE")]
        assert done == ["DONE 36"], (lines[-5:], wall.vb.stderr[-3000:])
        oks = [line for line in lines if line.startswith("ok ")]
        assert len(oks) == 37
        # Both branches were taken: faults before the act (acted on when sent again) and after it.
        assert len([line for line in oks if line.endswith("(acted on before the fault)")]) >= 10
        assert len([line for line in oks if line.endswith("(acted on when sent again)")]) >= 10
        assert "ok Controller.remote new_match (acted on when sent again)" in oks
        assert "ok challenged Controller.remote new_match (acted on when sent again)" in oks
