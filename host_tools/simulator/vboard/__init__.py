"""Virtual board: the real firmware on the MicroPython unix port, emulated hardware,
virtual time, Wi-Fi, sockets and an ESP-NOW radio hub. See board.py for the design
(and README.md for its modules), messages.py and mp/_vb_core.py for the control
protocol, radio.py for the hub, wifi.py for the access point."""

from .board import (
    Boot,
    BoardCrashed,
    BoardError,
    BoardTimeout,
    PinChange,
    SoundEvent,
    Step,
    Tone,
    VirtualBoard,
    i2c_buses,
    DEEPSLEEP_RESET,
    EXT0_WAKE,
    EXT1_WAKE,
    HARD_RESET,
    PWRON_RESET,
    RTC_GPIO,
    SOFT_RESET,
    TIMER_WAKE,
    WDT_RESET,
)
from .chip import ChipState, HT16K33Model
from .radio import BROADCAST, RadioFrame, RadioHub, mac_bytes, mac_text
from .serialport import SerialPort
from .wifi import AccessPoint

__all__ = [
    "AccessPoint",
    "BROADCAST",
    "Boot",
    "BoardCrashed",
    "BoardError",
    "BoardTimeout",
    "ChipState",
    "HT16K33Model",
    "PinChange",
    "RadioFrame",
    "RadioHub",
    "SerialPort",
    "SoundEvent",
    "Step",
    "Tone",
    "VirtualBoard",
    "i2c_buses",
    "mac_bytes",
    "mac_text",
    "DEEPSLEEP_RESET",
    "EXT0_WAKE",
    "EXT1_WAKE",
    "HARD_RESET",
    "PWRON_RESET",
    "RTC_GPIO",
    "SOFT_RESET",
    "TIMER_WAKE",
    "WDT_RESET",
]
