"""The host's HT16K33 model decodes the bytes the firmware writes."""

from host_tools.simulator.vboard import HT16K33Model


def test_power_on_state():
    s = HT16K33Model(0x70).state()
    assert (s.oscillator, s.display_on, s.blink, s.brightness) == (False, False, 0, 15)
    assert s.ram == bytes(16) and not s.lit and s.writes == 0


def test_setup_commands():
    chip = HT16K33Model(0x70)
    chip.write(b"\x21")
    chip.write(b"\x85")  # display on, blink 2 (1 Hz)
    chip.write(b"\xe7")
    s = chip.state()
    assert (s.oscillator, s.display_on, s.blink, s.blink_hz, s.brightness) == (True, True, 2, 1.0, 7)
    assert s.lit
    chip.write(b"\x80")
    chip.write(b"\x20")
    s = chip.state()
    assert (s.oscillator, s.display_on, s.blink) == (False, False, 0)
    assert chip.anomalies == []


def test_ram_writes_auto_increment_and_wrap():
    chip = HT16K33Model(0x70)
    chip.write(b"\x00" + bytes(range(1, 17)))
    assert chip.state().ram == bytes(range(1, 17))
    chip.write(b"\x0e\xaa\xbb\xcc")  # 14, 15, then wraps to 0
    ram = chip.state().ram
    assert ram[14:] == b"\xaa\xbb" and ram[0] == 0xCC and ram[1] == 2
    assert chip.read(2) == b"\x02\x03"  # reading goes on from the pointer


def test_extra_bytes_after_a_command_are_flagged():
    chip = HT16K33Model(0x70)
    chip.write(b"\x21\x81", t_ms=5.0)
    assert chip.state().oscillator and not chip.state().display_on
    assert chip.anomalies == [(5.0, "1 byte(s) after command 0x21 ignored")]
    chip.write(b"\x30")
    assert chip.anomalies[-1][1] == "unknown command 0x30"
    assert [data for _, data in chip.log] == [b"\x21\x81", b"\x30"]
