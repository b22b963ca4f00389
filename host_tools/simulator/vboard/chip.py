"""An HT16K33 as the host sees it: its state is decoded from the exact bytes
the firmware wrote over I2C (one transaction = one command byte + data).

    0x00..0x0F + data   display RAM address pointer, data auto-increments (wraps at 16)
    0x20 | s            system setup: s=1 oscillator on, s=0 standby
    0x80 | blink<<1 | on display setup: on/off, blink 0=off 1=2 Hz 2=1 Hz 3=0.5 Hz
    0xE0 | 0..15        dimming: brightness 1/16..16/16
    0xA0 | r            ROW/INT set (recorded, no effect here)
    0x40..0x47, 0x60    key RAM / INT flag pointer (reads return 0)

Power-on state (datasheet): standby, display off, no blink, dimming 16/16.
RAM content is undefined at power-on; the model starts it at zero.
"""

from dataclasses import dataclass

BLINK_HZ = (0.0, 2.0, 1.0, 0.5)


@dataclass(frozen=True)
class ChipState:
    """A snapshot of one emulated HT16K33."""

    address: int
    bus: int
    present: bool
    ram: bytes  # the 16 bytes of display RAM
    oscillator: bool
    display_on: bool
    blink: int  # 0..3 as written (0 = no blink)
    brightness: int  # 0..15 (15 = full)
    writes: int  # I2C write transactions received since power-on

    @property
    def blink_hz(self):
        return BLINK_HZ[self.blink]

    @property
    def lit(self):
        """True when the chip actually shows its RAM (oscillator and display on)."""
        return self.present and self.oscillator and self.display_on


class HT16K33Model:
    def __init__(self, address, bus=0, present=True):
        self.address = address
        self.bus = bus
        self.present = present
        self.log = []  # (t_ms, bytes) for every write transaction
        self.anomalies = []  # (t_ms, text) for writes a real chip would ignore
        self.power_on()

    def power_on(self):
        """Reset to the chip's power-on state (power cut, or unplugged and back)."""
        self.ram = bytearray(16)
        self.pointer = 0
        self.key_pointer = None
        self.oscillator = False
        self.display_on = False
        self.blink = 0
        self.brightness = 15
        self.row_int = 0
        self.writes = 0

    def write(self, data, t_ms=0.0):
        data = bytes(data)
        self.log.append((t_ms, data))
        self.writes += 1
        if not data:
            return  # address probe
        cmd = data[0]
        high = cmd & 0xF0
        if cmd <= 0x0F:
            self.key_pointer = None
            p = cmd
            for b in data[1:]:
                self.ram[p] = b
                p = (p + 1) & 0x0F
            self.pointer = p
            return
        if high == 0x20:
            self.oscillator = bool(cmd & 1)
        elif high == 0x80:
            self.display_on = bool(cmd & 1)
            self.blink = (cmd >> 1) & 3
        elif high == 0xE0:
            self.brightness = cmd & 0x0F
        elif high == 0xA0:
            self.row_int = cmd & 0x03
        elif 0x40 <= cmd <= 0x47 or cmd == 0x60:
            self.key_pointer = cmd
        else:
            self.anomalies.append((t_ms, "unknown command 0x%02X" % cmd))
            return
        if len(data) > 1:
            self.anomalies.append((t_ms, "%d byte(s) after command 0x%02X ignored" % (len(data) - 1, cmd)))

    def read(self, n):
        if self.key_pointer is not None:
            return bytes(n)
        out = bytearray()
        p = self.pointer
        for _ in range(n):
            out.append(self.ram[p])
            p = (p + 1) & 0x0F
        self.pointer = p
        return bytes(out)

    def state(self):
        return ChipState(
            address=self.address,
            bus=self.bus,
            present=self.present,
            ram=bytes(self.ram),
            oscillator=self.oscillator,
            display_on=self.display_on,
            blink=self.blink,
            brightness=self.brightness,
            writes=self.writes,
        )
