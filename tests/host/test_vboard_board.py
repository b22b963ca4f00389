"""The virtual board running the counter fixture (tests/host/vboard_fixtures/main.py)
on the real MicroPython unix port, on virtual time."""

import os

import pytest

from host_tools.simulator.vboard import HARD_RESET, PWRON_RESET, WDT_RESET, VirtualBoard

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vboard_fixtures")
COUNTER = os.path.join(FIXTURES, "main.py")

# In the schema of firmware/boarddef.py.
BOARD = {
    "name": "counter",
    "i2c": {"bus": 0, "sda": 21, "scl": 22, "freq": 400000},
    "displays": [{"addr": "0x70", "kind": "seg7", "show": "A.score"}],
    "buttons": {
        "count": {"pin": 13, "active_low": True, "pull": "up", "action": "A.point"},
        "hang": {"pin": 14, "active_low": True, "pull": "up", "action": None},
    },
    "leds": {"status": 2},
    "buzzer": 25,
}

DIGITS = b"\x3f\x06\x5b\x4f\x66\x6d\x7d\x07\x7f\x6f"


def ram_showing(n):
    """The 16 RAM bytes the fixture writes for n (right aligned, digits at 0, 2, 6, 8)."""
    ram = bytearray(16)
    for k, pos in enumerate((8, 6, 2, 0)):
        if n >= 10**k or k == 0:
            ram[pos] = DIGITS[(n // 10**k) % 10]
    return bytes(ram)


@pytest.fixture
def board(tmp_path):
    b = VirtualBoard(tmp_path / "flash", board=BOARD, firmware=[COUNTER])
    b.power_on()
    yield b
    b.close()


def test_boot_sets_up_the_display(board):
    chip = board.chip(0x70)
    assert chip.present and chip.oscillator and chip.display_on and chip.lit
    assert (chip.blink, chip.brightness) == (0, 15)
    assert chip.ram == ram_showing(0) == b"\x00" * 8 + b"\x3f" + b"\x00" * 7
    writes = [data for _, data in board.chip_writes(0x70)]
    assert writes == [b"\x21", b"\x81", b"\xef", b"\x00" + ram_showing(0)]
    assert board.chip_anomalies(0x70) == []
    assert [b.cause_name for b in board.boots] == ["PWRON_RESET"]
    assert board.reset_cause == PWRON_RESET
    assert "boot cause=1 rtc=b''" in board.lines()
    assert board.wdt_starts == [(0.0, 3000)]


def test_five_presses_show_5(board):
    for _ in range(5):
        board.tap("count")
    chip = board.chip(0x70)
    assert chip.ram == b"\x00\x00\x00\x00\x00\x00\x00\x00\x6d\x00\x00\x00\x00\x00\x00\x00"
    assert chip.writes == 4 + 5  # set-up + "0", then one write per press
    assert [line for line in board.lines() if line.startswith("count")] == [
        "count 1",
        "count 2",
        "count 3",
        "count 4",
        "count 5",
    ]
    assert board.rtc_memory == b"count=5"
    tones = board.tones()
    assert len(tones) == 5
    assert all((t.pin, t.freq, t.duty_u16, t.duration_ms) == (25, 2000, 32768, 50.0) for t in tones)


def test_press_is_seen_at_the_next_poll(board):
    board.advance(0.005)
    board.press("count")
    assert board.chip(0x70).ram == ram_showing(0)  # the poll task has not run yet
    board.advance(0.005)  # next 10 ms poll
    assert board.chip(0x70).ram == ram_showing(1)
    assert board.pin_level("status") == 1
    board.release("count")
    board.advance(0.01)
    assert board.pin_level("status") == 0
    assert [(c.t_ms, c.level) for c in board.pin_changes if c.pin == 2] == [(0.0, 0), (10.0, 1), (20.0, 0)]


def test_sixty_virtual_seconds(board):
    start = board.now
    step = board.advance(60)
    assert step.virtual_s == 60
    assert board.now - start == 60
    assert board.ticks_ms == 60000
    assert [line for line in board.lines() if line.startswith("uptime")] == ["uptime %d" % s for s in range(10, 61, 10)]
    assert board.boots[-1].cause == PWRON_RESET  # the watchdog was fed all along
    print("60 virtual seconds took %.3f real seconds" % step.real_s)


def test_unplugged_chip_is_reported_and_set_up_again(board):
    board.tap("count")
    board.unplug(0x70)
    assert not board.chip(0x70).present
    board.tap("count")
    assert "display error 19" in board.lines()
    assert board.chip(0x70).ram == bytes(16)  # it lost its power and its RAM
    board.plug(0x70)
    chip = board.chip(0x70)
    assert chip.present and not chip.lit  # back in its power-on state
    board.advance(1.0)  # the refresh task retries every second
    chip = board.chip(0x70)
    assert chip.lit and chip.ram == ram_showing(2)
    assert [data for _, data in board.chip_writes(0x70)][-4:] == [b"\x21", b"\x81", b"\xef", b"\x00" + ram_showing(2)]


def test_power_cut_keeps_the_flash_and_loses_rtc_memory(board):
    for _ in range(3):
        board.tap("count")
    assert board.rtc_memory == b"count=3"
    log = board.flash_path("/log.txt")
    with open(log) as f:
        assert f.read() == "boot cause=1\n"
    board.power_off()
    assert not board.powered and board.pid is None
    assert board.rtc_memory == b""
    assert not board.chip(0x70).lit and board.chip(0x70).ram == bytes(16)
    board.advance(5)  # time passes while the power is off
    boot = board.power_on()
    assert (boot.cause, boot.kind, boot.t_ms) == (PWRON_RESET, "power", 5600.0)
    assert board.lines().count("boot cause=1 rtc=b''") == 2
    assert board.chip(0x70).ram == ram_showing(0)
    with open(log) as f:
        assert f.read() == "boot cause=1\nboot cause=1\n"
    assert not os.path.exists(board.flash_path("/log.tmp"))


def test_watchdog_resets_and_rtc_memory_survives(board):
    for _ in range(3):
        board.tap("count")
    board.press("hang", hold=0.05)
    assert "hanging: no more watchdog feeds" in board.lines()
    board.advance(5)
    assert [b.cause for b in board.boots] == [PWRON_RESET, WDT_RESET]
    # The last feed was at t=0 (feeds every second, the hang came at 0.6 s).
    assert board.boots[-1].t_ms == 3000.0
    assert board.reset_cause == WDT_RESET
    assert "boot cause=3 rtc=b'count=3'" in board.lines()
    assert board.rtc_memory == b"count=3"
    assert board.chip(0x70).ram == ram_showing(3)
    with open(board.flash_path("/log.txt")) as f:
        assert f.read() == "boot cause=1\nboot cause=3\n"
    board.advance(10)  # fed again after the reset
    assert len(board.boots) == 2


def test_hard_reset_keeps_rtc_memory(board):
    board.tap("count")
    boot = board.hard_reset()
    assert boot.cause == HARD_RESET
    assert "boot cause=2 rtc=b'count=1'" in board.lines()
    assert board.chip(0x70).ram == ram_showing(1)


def test_button_held_through_power_on(tmp_path):
    b = VirtualBoard(tmp_path / "flash", board=BOARD, firmware=[COUNTER])
    try:
        b.press("count")  # held while the board is off
        b.power_on()
        b.advance(0.01)
        assert b.chip(0x70).ram == ram_showing(1)
    finally:
        b.close()


def test_same_inputs_same_run(tmp_path):
    runs = []
    for name in ("one", "two"):
        b = VirtualBoard(tmp_path / name, board=BOARD, firmware=[COUNTER])
        try:
            b.power_on()
            for _ in range(3):
                b.tap("count", down=0.03, up=0.07)
            b.advance(12)
            runs.append((b.chip_writes(0x70), b.sounds, b.pin_changes, b.stdout))
        finally:
            b.close()
    assert runs[0] == runs[1]


def test_close_ends_the_process(tmp_path):
    b = VirtualBoard(tmp_path / "flash", board=BOARD, firmware=[COUNTER])
    b.power_on()
    pid = b.pid
    assert pid is not None
    b.close()
    assert b.pid is None
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
