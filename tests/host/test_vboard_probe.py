"""The emulated machine/time/asyncio/flash checked from inside the board
(tests/host/vboard_fixtures/probe.py), and how the host copes with pin
interrupts, firmware that crashes and firmware that never waits."""

import os

import pytest

from host_tools.simulator.vboard import (
    DEEPSLEEP_RESET,
    PWRON_RESET,
    SOFT_RESET,
    BoardError,
    BoardTimeout,
    VirtualBoard,
    i2c_buses,
)

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vboard_fixtures")

PROBE_CHECKS = 46  # "ok ..." lines probe.py prints over its four boots when all is well


def fixture(name):
    return os.path.join(FIXTURES, name)


def test_probe_checks_pass_and_resets_walk_through(tmp_path):
    b = VirtualBoard(
        tmp_path / "flash",
        main="probe.py",
        chips=[0x70, 0x71],
        firmware=[fixture("probe.py")],
        ticks_start_ms=2**30 - 1000,  # ticks_ms() wraps 1 s after each reset
    )
    try:
        b.power_on()
        b.advance(20)
        lines = b.lines()
        failures = [line for line in lines if line.startswith("FAIL")]
        assert failures == [], "\n".join(failures) + "\n" + b.stderr
        assert b.stderr == ""
        assert len([line for line in lines if line.startswith("ok ")]) == PROBE_CHECKS
        assert "checks done" in lines and "awake" in lines
        assert [(x.cause, x.kind) for x in b.boots] == [
            (PWRON_RESET, "power"),
            (SOFT_RESET, "chip"),  # machine.reset(): the ESP32 reports a software reset
            (SOFT_RESET, "vm"),  # machine.soft_reset(): same cause, ticks go on
            (DEEPSLEEP_RESET, "deepsleep"),
        ]
        reset_at, soft_at, wake_at = (x.t_ms for x in b.boots[1:])
        assert soft_at == reset_at + 100
        assert wake_at == soft_at + 5000
        ticks = [int(line.rsplit("=", 1)[1]) for line in lines if line.startswith("boot cause=")]
        start = 2**30 - 1000
        assert ticks == [start, start, start + 100, start]
        assert b.rtc_memory == b"stage3"
        # The probe's I2C traffic reached the chips' models.
        assert b.chip(0x71).ram[4:7] == b"\xaa\xbb\xcc"
        assert b.sounds[0].freq == 440
    finally:
        b.close()


def test_deep_sleep_without_wake_up_time_passes(tmp_path):
    flash = tmp_path / "flash"
    b = VirtualBoard(flash, main="probe.py", chips=[0x70, 0x71], firmware=[fixture("probe.py")])
    try:
        b.power_on()
        b.advance(5.5)  # the probe sleeps for 5 s at about t=5.6 s
        assert b.asleep and b.pid is None
        assert b.lines()[-1] == "sleeping"
        b.advance(4)
        assert b.asleep
        b.advance(2)
        assert not b.asleep and b.lines()[-1] == "awake"
    finally:
        b.close()


def test_pin_interrupt_task_runs_before_the_press_returns(tmp_path):
    b = VirtualBoard(tmp_path / "flash", main="irq.py", firmware=[fixture("irq.py")], buttons={"a": 13})
    try:
        b.power_on()
        b.advance(1.234)
        b.press("a")
        assert b.lines() == ["irq at 1234 level 0"]
        b.release("a")  # rising edge: not asked for
        b.advance(1)
        b.press("a")
        assert b.lines() == ["irq at 1234 level 0", "irq at 2234 level 0"]
    finally:
        b.close()


def test_crash_prints_traceback_and_board_stays_up(tmp_path):
    b = VirtualBoard(tmp_path / "flash", main="crash.py", firmware=[fixture("crash.py")])
    try:
        b.power_on()
        assert b.lines() == ["starting"]
        assert "RuntimeError: boom" in b.stderr
        assert 'File "/crash.py", line 5' in b.stderr
        b.advance(100)
        assert b.now == 100 and len(b.boots) == 1
    finally:
        b.close()


def test_firmware_that_never_waits_times_out(tmp_path):
    b = VirtualBoard(tmp_path / "flash", main="busy.py", firmware=[fixture("busy.py")], timeout=1.0)
    try:
        with pytest.raises(BoardTimeout, match="never waits"):
            b.power_on()
        assert "spinning" in b.stdout
    finally:
        b.close()
    assert b.pid is None


def test_missing_main_is_reported(tmp_path):
    b = VirtualBoard(tmp_path / "flash", main="nothing.py")
    try:
        b.power_on()
        assert "no /nothing.py on the flash" in b.stderr
    finally:
        b.close()


TWO_BUSES = {
    "i2c": [
        {"bus": 0, "sda": 21, "scl": 22, "freq": 400000},
        {"bus": 1, "sda": 32, "scl": 33, "freq": 400000},
    ],
    "displays": [
        {"bus": 0, "addr": "0x70", "kind": "seg7", "show": "A.score"},
        {"bus": 1, "addr": "0x70", "kind": "seg7", "show": "B.score"},
        {"bus": 1, "addr": "0x71", "kind": "seg14", "show": "B.name"},
    ],
    "buttons": {
        "A.point": {"pin": 34, "active_low": True, "pull": None, "action": "A.point"},
        "foul": {"pin": 25, "active_low": True, "pull": "up", "action": "foul"},
        "break": {"pin": 26, "active_low": True, "pull": "up", "action": "break"},
    },
    "leds": {"A.turn": 18, "B.turn": {"pin": 19, "active_low": False}},
    "buzzer": 23,
}


def test_i2c_buses_from_a_board_definition():
    assert i2c_buses(TWO_BUSES) == [
        {"bus": 0, "scl": 22, "sda": 21, "chips": [0x70]},
        {"bus": 1, "scl": 33, "sda": 32, "chips": [0x70, 0x71]},
    ]
    one = {"i2c": {"bus": 1, "sda": 21, "scl": 22}, "displays": [{"addr": "0x72"}]}
    assert i2c_buses(one) == [{"bus": 1, "scl": 22, "sda": 21, "chips": [0x72]}]
    assert i2c_buses({"displays": [{"addr": "0x70"}]}) == [{"bus": 0, "scl": None, "sda": None, "chips": [0x70]}]
    assert i2c_buses({"buttons": {}}) is None


def test_two_buses_with_the_same_addresses(tmp_path):
    b = VirtualBoard(tmp_path / "flash", main="two_buses.py", board=TWO_BUSES, firmware=[fixture("two_buses.py")])
    try:
        b.power_on()
        assert b.lines() == ["unwired 19", "scan [112] [112, 113] [] True", "softi2c [112, 113]"]
        assert b.chip(0x70, bus=0).ram[:1] == b"\x11"
        assert b.chip(0x70, bus=1).ram[:1] == b"\x22"
        assert b.chip(0x71, bus=1).ram[:2] == b"\x33\x44"
        assert sorted(b.chips()) == [(0, 0x70), (1, 0x70), (1, 0x71)]
        b.unplug(0x70, bus=1)
        assert b.chip(0x70, bus=0).present and not b.chip(0x70, bus=1).present
    finally:
        b.close()


@pytest.mark.parametrize("strict, levels", [(False, "1 1 1"), (True, "1 0 1")])
def test_released_buttons_and_pulls(tmp_path, strict, levels):
    # pulls.py reads GPIO34 (external pull-up), GPIO25 (no pull set: a firmware
    # bug if the board relies on the internal one), GPIO26 (PULL_UP).
    b = VirtualBoard(
        tmp_path / "flash", main="pulls.py", board=TWO_BUSES, firmware=[fixture("pulls.py")], strict_pulls=strict
    )
    try:
        b.power_on()
        assert b.lines() == [levels]
        b.press("A.point")
        b.press("foul")
        b.advance(0.01)
        assert b.lines()[-1] == "0 0 1"
    finally:
        b.close()


def test_named_outputs_follow_the_board_definition(tmp_path):
    b = VirtualBoard(tmp_path / "flash", board=TWO_BUSES)
    assert b.named_pins == {"A.turn": 18, "B.turn": 19, "buzzer": 23, "A.point": 34, "foul": 25, "break": 26}


def test_unknown_names_are_errors(tmp_path):
    b = VirtualBoard(tmp_path / "flash", board={"buttons": {"a": {"pin": 13}}})
    with pytest.raises(BoardError, match="no button named 'b'"):
        b.press("b")
    with pytest.raises(BoardError, match="no chip at 0x71 on bus 0"):
        b.chip(0x71)
    assert b.buttons == {"a": 13}


def test_busy_waits_still_see_time_pass(tmp_path):
    b = VirtualBoard(tmp_path / "flash", main="spin.py", firmware=[fixture("spin.py")])
    try:
        b.power_on()
        b.advance(2)
        assert b.lines() == ["busy-wait done at 50", "spun until 1050"]
    finally:
        b.close()


def test_console_input_is_handled_before_the_call_returns(tmp_path):
    b = VirtualBoard(tmp_path / "flash", main="serial_echo.py", firmware=[fixture("serial_echo.py")])
    try:
        b.power_on()
        b.send_serial("hello\n")
        assert b.lines() == ["got hello"]
        b.advance(1)
        b.send_serial("a\nb\n")
        assert b.lines() == ["got hello", "got a", "got b"]
    finally:
        b.close()
