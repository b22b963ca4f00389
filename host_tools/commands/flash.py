"""`carom flash`: write a MicroPython firmware image to an ESP32 with esptool.

The image is checked before the port is opened: it must be an ESP image
(magic 0xE9), its extended header names the chip it was built for (chip id at
offset 12), and esptool's own image parser must find its checksum and SHA-256
intact.  Then, through esptool's Python API (never the protocol by hand):

    detect_chip     sync with the ROM loader and identify the chip; refuse a
                    chip that is not the one the image is for
    run_stub        load esptool's flasher stub (fast, compressed writes)
    change_baud     only when --baud is above the ROM's 115200
    attach_flash    attach the SPI flash
    erase_flash     the whole chip, only with --erase
    write_flash     at the chip's bootloader offset (0x1000 on ESP32 and
                    ESP32-S2, 0x0 on S3/C3/C6..., as MicroPython's deploy notes
                    say), compressed; esptool then checks the MD5 of the flash
                    region against the image and fails on a mismatch
    reset_chip      hard reset, so the board boots the new firmware

esptool's own chatter is hidden (shown with --verbose); its progress drives a
bar on stderr.  Every failure is a CommandError: `carom: message`, exit 1.
"""

import os
import re
import struct
import sys
import time
from contextlib import contextmanager

from ..errors import CommandError
from ..userfile import read_bounded

IMAGE_MAGIC = 0xE9
MAX_FIRMWARE_BYTES = 16 * 1024 * 1024  # the largest ESP32 flash: an image cannot be larger
HEADER_LEN = 24  # the 8-byte image header and the 16-byte extended header
CHIP_ID_OFFSET = 12  # u16, little-endian, in the extended header
ROM_BAUD = 115200
DEFAULT_BAUD = 460800  # MicroPython's deploy notes flash at 460800


class Image:
    """A firmware file read into memory, and the esptool chip it was built for."""

    def __init__(self, path, data, chip_id, chip_key, chip_class):
        self.path = path
        self.data = data
        self.chip_id = chip_id
        self.chip_key = chip_key  # "esp32", "esp32s3", ...
        self.chip_class = chip_class

    @property
    def chip_name(self):
        return self.chip_class.CHIP_NAME


def _esptool():
    """Import esptool's API, or say which esptool is needed."""
    try:
        import esptool
        from esptool import cmds  # noqa: F401
        from esptool.logger import TemplateLogger  # noqa: F401
    except ImportError as e:
        raise CommandError("carom flash needs esptool 5 or newer (pip install -U esptool): %s" % e)
    return esptool


def chip_for_id(chip_id):
    """(key, class) of the esptool chip whose images carry this chip id, or (None, None)."""
    from esptool.targets import CHIP_DEFS

    for key, cls in CHIP_DEFS.items():
        if getattr(cls, "IMAGE_CHIP_ID", None) == chip_id:
            return key, cls
    return None, None


def load_image(path):
    """Read and check a firmware file; CommandError says what is wrong with it."""
    _esptool()
    if not os.path.exists(path):
        raise CommandError("no such firmware file: %s" % path)
    if os.path.isdir(path):
        raise CommandError("the firmware %s is a folder, not a .bin file" % path)
    data = read_bounded(path, MAX_FIRMWARE_BYTES, "the firmware")
    if not data:
        raise CommandError("the firmware %s is empty" % path)
    if data[0] != IMAGE_MAGIC:
        raise CommandError(
            "%s is not an ESP32 firmware image: it starts with byte 0x%02x, an ESP image with 0x%02x "
            "(use the .bin from MicroPython's ESP32 downloads)" % (path, data[0], IMAGE_MAGIC)
        )
    if len(data) < HEADER_LEN:
        raise CommandError("%s is too short (%d bytes) to be an ESP32 firmware image" % (path, len(data)))
    (chip_id,) = struct.unpack_from("<H", data, CHIP_ID_OFFSET)
    key, cls = chip_for_id(chip_id)
    if cls is None:
        raise CommandError(
            "%s is an ESP image for a chip this esptool does not know (chip id %d in its header)" % (path, chip_id)
        )
    _check_image(path, data, key)
    return Image(path, data, chip_id, key, cls)


def _check_image(path, data, chip_key):
    """esptool's parser must read the first image whole, with a good checksum and digest."""
    from esptool.bin_image import LoadFirmwareImage
    from esptool.util import FatalError

    try:
        with esptool_log(sys.stderr):  # its warnings (a suspicious segment) as ours
            img = LoadFirmwareImage(chip_key, data)
    except (FatalError, struct.error, ValueError, KeyError) as e:
        raise CommandError("%s is not a valid ESP image: %s" % (path, _plain(e)))
    if img.checksum != img.calculate_checksum():
        raise CommandError("%s is damaged: its checksum does not match its contents (download it again)" % path)
    if img.append_digest and img.stored_digest != img.calc_digest:
        raise CommandError("%s is damaged: its SHA-256 does not match its contents (download it again)" % path)


# ---------------------------------------------------------------------------
# Progress bar and esptool's log


class ProgressBar:
    """One bar on a stream: redrawn in place on a terminal; a line per quarter otherwise."""

    WIDTH = 30

    def __init__(self, stream):
        self.stream = stream
        self.tty = hasattr(stream, "isatty") and stream.isatty()
        self.open = False  # a terminal line is being redrawn and needs its newline
        self.last = None  # what was drawn last, to skip repeats

    def update(self, done, total, label):
        pct = 100 if total <= 0 else max(0, min(100, done * 100 // total))
        if self.tty:
            if (label, pct) == self.last:
                return
            self.stream.write("\r\x1b[K" + self.line(label, pct))
            self.open = pct < 100
            if not self.open:
                self.stream.write("\n")
            self.last = (label, pct)
        else:
            # Logs and pipes: a line at 0, 25, 50, 75 and 100 % of each phase
            # (the phase is the label without the address that moves along).
            key = (re.sub(r"0x[0-9a-fA-F]+", "", label).strip(), pct // 25)
            if key == self.last:
                return
            self.stream.write(self.line(label, pct) + "\n")
            self.last = key
        self.stream.flush()

    def line(self, label, pct):
        full = pct * self.WIDTH // 100
        return "%s [%s%s] %3d%%" % (label, "#" * full, "." * (self.WIDTH - full), pct)

    def interrupt(self):
        """End a half-drawn bar line so other text starts on a line of its own."""
        if self.open:
            self.stream.write("\n")
            self.stream.flush()
            self.open = False


def _unmarkup(text):
    """esptool's text without Rich markup (its messages escape '[' for Rich)."""
    text = str(text)
    try:
        from rich.text import Text

        return Text.from_markup(text).plain
    except Exception:
        return text


def _plain(text):
    """esptool's message on one line, without markup and its troubleshooting link."""
    text = _unmarkup(text)
    lines = [ln.strip() for ln in text.splitlines()]
    lines = [ln for ln in lines if ln and not ln.startswith("For troubleshooting")]
    return " ".join(lines)


def _make_logger(out, bar, verbose):
    from esptool.logger import TemplateLogger

    class CaromEsptoolLog(TemplateLogger):
        """esptool's log: warnings and errors on `out`, the rest only with --verbose, progress to the bar."""

        def print(self, *args, **kwargs):
            if verbose:
                bar.interrupt()
                text = kwargs.get("sep", " ").join(_unmarkup(a) for a in args)
                out.write(text + kwargs.get("end", "\n"))
                out.flush()

        def note(self, message):
            if verbose:
                self.print("esptool note: %s" % message)

        def warning(self, message):
            bar.interrupt()
            out.write("esptool warning: %s\n" % _plain(message))
            out.flush()

        def error(self, message):
            bar.interrupt()
            out.write("esptool error: %s\n" % _plain(message))
            out.flush()

        def stage(self, finish=False):
            pass

        def progress_bar(self, cur_iter, total_iters, prefix="", suffix="", bar_length=30):
            bar.update(cur_iter, total_iters, _plain(prefix) or "Working")

        def set_verbosity(self, verbosity):
            pass

    return CaromEsptoolLog()


@contextmanager
def esptool_log(out, verbose=False):
    """Route esptool's log through a bar on `out` for the duration; yield the bar."""
    from esptool.logger import log

    try:
        from esp_pylib.logger import EspLog
    except ImportError:  # an esptool without esp-pylib: ours stays installed (one flash per process)
        EspLog = None
    previous = EspLog.instance if EspLog is not None else None
    bar = ProgressBar(out)
    log.set_logger(_make_logger(out, bar, verbose))
    try:
        yield bar
    finally:
        bar.interrupt()
        if EspLog is not None:
            EspLog.instance = previous


# ---------------------------------------------------------------------------
# Talking to the board


def _connect_error(device, e):
    msg = _plain(e)
    if msg.startswith("Could not open"):
        detail = msg.split(", ", 1)[-1] if msg.startswith("Could not open %s, " % device) else msg
        return CommandError("cannot open %s: %s" % (device, detail))
    return CommandError(
        "no answer from an ESP32 bootloader on %s (esptool: %s); check the cable, and if the board "
        "does not enter download mode by itself, hold BOOT while tapping EN/RESET" % (device, msg)
    )


def _describe(esp):
    try:
        desc = esp.get_chip_description()
    except Exception:
        desc = esp.CHIP_NAME
    try:
        mac = esp.read_mac()
        if mac:
            desc += ", MAC " + ":".join("%02x" % b for b in mac)
    except Exception:
        pass
    return desc


def flash_image(device, image, erase=False, baud=DEFAULT_BAUD, out=None, verbose=False):
    """Write `image` to the ESP32 on `device` (a serial path or pyserial URL).

    Returns a dict: chip, offset, size, erased, verified.  Progress and steps go to `out`.
    """
    _esptool()
    from esptool.cmds import attach_flash, detect_chip, erase_flash, reset_chip, run_stub, write_flash
    from esptool.util import FatalError
    from serial import SerialException

    out = out or sys.stderr
    errors = (FatalError, SerialException, OSError)

    def say(text):
        bar.interrupt()
        out.write(text + "\n")
        out.flush()

    with esptool_log(out, verbose) as bar:
        initial_baud = min(ROM_BAUD, baud)
        say("Connecting to %s..." % device)
        try:
            esp = detect_chip(device, initial_baud, "default-reset")
        except ValueError as e:  # pyserial: a URL scheme it does not know
            raise CommandError("%s is neither a serial port nor a URL pyserial knows: %s" % (device, e))
        except errors as e:
            raise _connect_error(device, e)
        step = "identifying the chip"
        try:
            say("Found %s" % _describe(esp))
            if esp.IMAGE_CHIP_ID != image.chip_id:
                raise CommandError(
                    "%s is firmware for %s (chip id %d) but the board on %s is an %s (chip id %s); "
                    "nothing was written"
                    % (image.path, image.chip_name, image.chip_id, device, esp.CHIP_NAME, esp.IMAGE_CHIP_ID)
                )
            offset = type(esp).BOOTLOADER_FLASH_OFFSET
            step = "loading esptool's flasher stub"
            esp = run_stub(esp)
            if baud > initial_baud:
                step = "changing the baud rate to %d" % baud
                esp.change_baud(baud)
            step = "attaching the SPI flash"
            attach_flash(esp)
            if erase:
                step = "erasing the flash"
                say("Erasing the whole flash...")
                t = time.monotonic()
                erase_flash(esp)
                say("Erased in %.1f s" % (time.monotonic() - t))
            step = "writing the firmware"
            say("Writing %s (%d bytes) at 0x%x" % (image.path, len(image.data), offset))
            write_flash(esp, [(offset, image.data)], flash_freq="keep", flash_mode="keep", flash_size="keep")
            # write_flash has compared the flash's MD5 with the image's and raised on a
            # mismatch; only secure download mode makes it skip that check.
            verified = not esp.secure_download_mode
            if verified:
                say("Verified: the MD5 of flash 0x%x-0x%x matches the image" % (offset, offset + len(image.data)))
            else:
                say("Not verified: the chip is in secure download mode, which does not allow reading flash")
            step = "resetting the board"
            reset_chip(esp, "hard-reset")
        except errors as e:
            raise CommandError("%s failed on %s: %s" % (step, device, _plain(e)))
        finally:
            try:  # esptool closes its port only in its loader's __exit__: this is what that does,
                esp._port.close()  # without raising on a port that went away with the cable
            except Exception:  # noqa: BLE001
                pass
    return {"chip": esp.CHIP_NAME, "offset": offset, "size": len(image.data), "erased": erase, "verified": verified}


def arguments(p):
    """Write a MicroPython firmware image (.bin) to an ESP32 board with esptool.

    The image must be built for the chip on the board (ESP32, ESP32-S3, ...):
    the chip id in the image's header is checked against the chip esptool
    detects before anything is written.  The image goes to the chip's
    bootloader offset (0x1000 on ESP32 and ESP32-S2, 0x0 on S3/C3), the flash
    is verified by MD5, and the board is reset.  Progress is shown on stderr;
    one result line is printed on stdout.
    """
    p.add_argument(
        "--device",
        "-d",
        required=True,
        metavar="DEV",
        help="serial port or pyserial URL: /dev/ttyUSB0, COM3, socket://HOST:PORT, rfc2217://HOST:PORT",
    )
    p.add_argument("--firmware", "-f", required=True, metavar="FILE", help="the MicroPython .bin image")
    p.add_argument("--erase", action="store_true", help="erase the whole flash first (also the filesystem)")
    p.add_argument(
        "--baud",
        "-b",
        type=int,
        default=DEFAULT_BAUD,
        metavar="N",
        help="baud rate for the transfer (default %d; the ROM is reached at 115200)" % DEFAULT_BAUD,
    )
    p.add_argument("--verbose", "-v", action="store_true", help="show esptool's own messages")
    p.set_defaults(run=run_flash)


def run_flash(args):
    if not args.device.strip():
        raise CommandError("--device is empty; give a serial port (/dev/ttyUSB0, COM3) or a pyserial URL")
    if args.baud <= 0:
        raise CommandError("--baud must be a positive number, not %d" % args.baud)
    image = load_image(args.firmware)
    result = flash_image(args.device, image, erase=args.erase, baud=args.baud, verbose=args.verbose)
    print(
        "flashed %s (%d bytes) to the %s on %s at 0x%x%s%s"
        % (
            args.firmware,
            result["size"],
            result["chip"],
            args.device,
            result["offset"],
            ", after erasing the flash" if result["erased"] else "",
            ", MD5 verified" if result["verified"] else ", NOT verified",
        )
    )
    return 0
