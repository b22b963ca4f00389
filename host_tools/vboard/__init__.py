"""Virtual board: the real firmware on the MicroPython unix port, emulated hardware,
virtual time. See board.py for the design and the control protocol."""

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
    HARD_RESET,
    PWRON_RESET,
    SOFT_RESET,
    WDT_RESET,
)
from .chip import ChipState, HT16K33Model
from .serialport import SerialPort

__all__ = [
    "Boot",
    "BoardCrashed",
    "BoardError",
    "BoardTimeout",
    "ChipState",
    "HT16K33Model",
    "PinChange",
    "SerialPort",
    "SoundEvent",
    "Step",
    "Tone",
    "VirtualBoard",
    "i2c_buses",
    "DEEPSLEEP_RESET",
    "HARD_RESET",
    "PWRON_RESET",
    "SOFT_RESET",
    "WDT_RESET",
]
