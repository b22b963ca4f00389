"""`carom flash` against an emulated ESP32 ROM loader (PyPI esp32-mock-bootloader).

The mock answers esptool's serial protocol (sync, chip detection, the flasher
stub, compressed writes, MD5, reads) and keeps a 4 MB flash in memory.  It is
used two ways:

- as its own process on a TCP port (`esp32-mock-bootloader run --port 0`),
  reached by `carom flash --device socket://127.0.0.1:PORT`; the flash there
  outlives a connection, so the test reads it back afterwards with esptool's
  `read-flash` (ROM reads, --no-stub) and compares byte for byte;
- in this process on a pseudo-terminal, with a flash store the test owns, so
  `carom flash --device /dev/pts/N` is tried on a serial path and the test
  reads the mock's own storage.

Each image is made here: an ESP image header (magic 0xE9, chip id at offset
12), two segments, the checksum and SHA-256, then random bytes.  The CLI runs
as a subprocess (`python -m host_tools flash ...`), every one with a timeout;
servers are waited for through the port file they write once listening.
"""

import hashlib
import os
import socket
import struct
import subprocess
import sys
import threading
import time

import pytest

from helpers import make_image, start_mock_bootloader
from host_tools import ROOT

pytest.importorskip("esp32_mock_bootloader", reason="pip install esp32-mock-bootloader (the test extras)")

from esp32_mock_bootloader.server import (  # noqa: E402
    BootloaderConnection,
    FlashImage,
    PtyMasterTransport,
    handle_client,
)

ESP32, ESP32S2, ESP32C3, ESP32S3 = 0, 2, 5, 9  # chip ids in the extended image header
RUN_TIMEOUT = 60  # seconds for any one subprocess
NO_ANSWER_LIMIT = 30  # seconds within which "no answer" must be reported (esptool gives up after ~6 s)


def carom_flash(*args, timeout=RUN_TIMEOUT):
    return subprocess.run(
        [sys.executable, "-m", "host_tools", "flash", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def write(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def assert_clean_error(r, *words):
    """Exit 1, one `carom: ...` line naming the problem, no traceback."""
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert "Traceback" not in r.stderr, r.stderr
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("carom: "), r.stderr
    for w in words:
        assert w in last, (w, last)
    assert r.stdout == ""


# ---------------------------------------------------------------------------
# The mock on a TCP port, in its own process


class TcpMock:
    def __init__(self, proc, port, chip):
        self.proc = proc
        self.chip = chip
        self.url = "socket://127.0.0.1:%d" % port

    def read_flash(self, offset, size, tmp_path):
        """esptool's read-flash through the ROM loader (64-byte reads, no stub)."""
        out = tmp_path / ("readback-%x-%d.bin" % (offset, time.monotonic_ns()))
        r = subprocess.run(
            [
                sys.executable,
                "-m",
                "esptool",
                "--chip",
                self.chip,
                "--port",
                self.url,
                "--no-stub",
                "--before",
                "no-reset",
                "--after",
                "no-reset",
                "read-flash",
                hex(offset),
                str(size),
                str(out),
            ],
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
        assert r.returncode == 0, r.stdout + r.stderr
        return out.read_bytes()


@pytest.fixture
def tcp_mock(tmp_path):
    """Start mock ROM loaders (one per chip asked for) on free ports; stop them afterwards."""
    started = []

    def start(chip="esp32"):
        proc, port = start_mock_bootloader(tmp_path, chip, len(started))
        started.append(proc)
        return TcpMock(proc, port, chip)

    yield start
    for proc in started:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
        proc.stderr.close()


# ---------------------------------------------------------------------------
# The mock on a pseudo-terminal, in this process, with a flash store we can read


class PtyMock:
    def __init__(self, chip):
        self.flash = FlashImage()
        self.pty = PtyMasterTransport.create(track_disconnect=True)
        self.path = self.pty.client_path
        self.stop = threading.Event()
        conn = BootloaderConnection(pty=self.pty)
        self.thread = threading.Thread(
            target=handle_client,
            args=(conn, self.stop, chip),
            kwargs={"exit_on_disconnect": True, "flash": self.flash},
            daemon=True,
        )
        self.thread.start()

    def close(self):
        self.stop.set()
        self.thread.join(timeout=5)
        self.pty.close()


@pytest.fixture
def pty_mock():
    mocks = []

    def start(chip="esp32"):
        mocks.append(PtyMock(chip))
        return mocks[-1]

    yield start
    for m in mocks:
        m.close()


# ---------------------------------------------------------------------------
# Flashing


def test_esp32_image_written_at_0x1000_reads_back_byte_for_byte(tmp_path, tcp_mock):
    """An ESP32 image (chip id 0, 12 KB of random payload) through a TCP mock
    ESP32 at the default 460800 baud: exit 0, the progress bar reaches 100 % on
    stderr, stdout says 0x1000 and MD5 verified; esptool's read-flash then
    returns the image byte for byte at 0x1000, and the 4 KB below it are still
    erased (0xFF)."""
    mock = tcp_mock("esp32")
    image = make_image(ESP32, payload=12 * 1024, seed=1)
    fw = write(tmp_path, "esp32.bin", image)
    r = carom_flash("--device", mock.url, "--firmware", fw)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    assert "100%" in r.stderr and "[" + "#" * 30 + "]" in r.stderr
    assert "Found ESP32" in r.stderr
    assert r.stdout.strip() == "flashed %s (%d bytes) to the ESP32 on %s at 0x1000, MD5 verified" % (
        fw,
        len(image),
        mock.url,
    )
    assert mock.read_flash(0x1000, len(image), tmp_path) == image
    assert mock.read_flash(0, 0x1000, tmp_path) == b"\xff" * 0x1000


def test_erase_clears_what_a_plain_write_leaves(tmp_path, tcp_mock):
    """On one TCP mock ESP32: a 97 KB image A, then a 5 KB image B at 115200
    baud without --erase: B reads back and A's bytes from 0x10000 on are
    still there (8 KB of them are read).  Then B again with --erase: B reads
    back and those bytes read 0xFF, and stdout and stderr say the flash was erased."""
    mock = tcp_mock("esp32")
    a = make_image(ESP32, payload=96 * 1024, seed=2)
    b = make_image(ESP32, payload=4 * 1024, seed=3)
    fa, fb = write(tmp_path, "a.bin", a), write(tmp_path, "b.bin", b)
    # A's bytes from 0x10000 on: well past B and past the 0xFF padding esptool
    # adds to the last block of an uncompressed write (up to 16 KB).
    keep_from = 0x10000
    tail = a[keep_from - 0x1000 : keep_from - 0x1000 + 8192]
    assert len(tail) == 8192 and 0x1000 + len(b) + 0x4000 <= keep_from

    assert carom_flash("-d", mock.url, "-f", fa).returncode == 0
    r = carom_flash("-d", mock.url, "-f", fb, "--baud", "115200")
    assert r.returncode == 0, r.stderr
    assert mock.read_flash(0x1000, len(b), tmp_path) == b
    assert mock.read_flash(keep_from, len(tail), tmp_path) == tail

    r = carom_flash("-d", mock.url, "-f", fb, "--erase")
    assert r.returncode == 0, r.stderr
    assert "Erasing the whole flash" in r.stderr
    assert "after erasing the flash, MD5 verified" in r.stdout
    assert mock.read_flash(0x1000, len(b), tmp_path) == b
    assert mock.read_flash(keep_from, len(tail), tmp_path) == b"\xff" * len(tail)


def test_esp32s3_image_on_a_serial_path_written_at_0(tmp_path, pty_mock):
    """An ESP32-S3 image (chip id 9) to a mock ESP32-S3 on a pseudo-terminal
    (a device path, as a USB serial port would be), with --erase: written at
    0x0 (the S3's bootloader offset), the mock's own flash holds the image
    byte for byte and 0xFF everywhere else."""
    mock = pty_mock("esp32s3")
    image = make_image(ESP32S3, payload=16 * 1024, seed=4)
    fw = write(tmp_path, "s3.bin", image)
    r = carom_flash("--device", mock.path, "--firmware", fw, "--erase")
    assert r.returncode == 0, r.stderr
    assert "to the ESP32-S3 on %s at 0x0, after erasing the flash, MD5 verified" % mock.path in r.stdout
    data = bytes(mock.flash.data)
    assert data[: len(image)] == image
    assert data[len(image) :] == b"\xff" * (len(data) - len(image))


# ---------------------------------------------------------------------------
# Refusals and failures: one clear line, exit 1, nothing written


@pytest.mark.parametrize(
    "mock_chip,image_chip,image_name,board_name",
    [
        ("esp32", ESP32S3, "ESP32-S3", "ESP32"),
        ("esp32c3", ESP32, "ESP32", "ESP32-C3"),
    ],
)
def test_wrong_chip_is_refused_before_writing(tmp_path, tcp_mock, mock_chip, image_chip, image_name, board_name):
    """An image built for another chip than the mock's (an S3 image to an
    ESP32, an ESP32 image to a C3): `carom: ... firmware for X ... is an Y ...
    nothing was written`, exit 1, and the flash at the board's bootloader
    offset still reads erased."""
    mock = tcp_mock(mock_chip)
    image = make_image(image_chip, payload=2048, seed=5)
    fw = write(tmp_path, "other.bin", image)
    r = carom_flash("--device", mock.url, "--firmware", fw)
    assert_clean_error(r, "firmware for %s" % image_name, "is an %s" % board_name, "nothing was written")
    offset = 0x1000 if mock_chip == "esp32" else 0
    assert mock.read_flash(offset, len(image), tmp_path) == b"\xff" * len(image)


def test_no_answer_on_a_silent_serial_path(tmp_path):
    """A pseudo-terminal nobody answers on (its other end open, never read or
    written): esptool's connection attempts run out and carom says there is
    no answer, within NO_ANSWER_LIMIT seconds, exit 1."""
    master, slave = os.openpty()
    try:
        fw = write(tmp_path, "fw.bin", make_image(ESP32, payload=1024))
        # Within the limit, or subprocess.TimeoutExpired: a deadline against a hang, five times what
        # esptool's own connection attempts take.
        r = carom_flash("--device", os.ttyname(slave), "--firmware", fw, timeout=NO_ANSWER_LIMIT)
    finally:
        os.close(slave)
        os.close(master)
    assert_clean_error(r, "no answer from an ESP32 bootloader on /dev/", "download mode")


def test_no_answer_on_a_silent_tcp_port(tmp_path):
    """A TCP port that accepts the connection and never says anything (a
    serial server with no board behind it): the same clear no-answer error,
    within NO_ANSWER_LIMIT seconds."""
    with socket.socket() as srv:
        srv.bind(("127.0.0.1", 0))
        srv.listen(4)
        url = "socket://127.0.0.1:%d" % srv.getsockname()[1]
        fw = write(tmp_path, "fw.bin", make_image(ESP32, payload=1024))
        r = carom_flash("--device", url, "--firmware", fw, timeout=NO_ANSWER_LIMIT)  # as above
    assert_clean_error(r, "no answer from an ESP32 bootloader on " + url)


def test_a_device_that_cannot_be_opened(tmp_path):
    """A serial path that does not exist, and a TCP port nobody listens on:
    `carom: cannot open DEV: ...`, exit 1, at once; a URL scheme pyserial
    does not know (tcp://): said so."""
    fw = write(tmp_path, "fw.bin", make_image(ESP32, payload=1024))
    r = carom_flash("--device", str(tmp_path / "ttyUSB9"), "--firmware", fw, timeout=20)
    assert_clean_error(r, "cannot open %s" % (tmp_path / "ttyUSB9"), "No such file")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again at once: nothing listens there
    r = carom_flash("--device", "socket://127.0.0.1:%d" % port, "--firmware", fw, timeout=20)
    assert_clean_error(r, "cannot open socket://127.0.0.1:%d" % port, "Connection refused")
    r = carom_flash("--device", "tcp://127.0.0.1:%d" % port, "--firmware", fw, timeout=20)
    assert_clean_error(r, "tcp://127.0.0.1:%d is neither a serial port nor a URL pyserial knows" % port)


NOT_IMAGES = [
    ("zeros.bin", bytes(4096), ["is not an ESP32 firmware image", "starts with byte 0x00", "0xe9"]),
    ("notes.txt", b"MicroPython v1.24 release notes\n", ["is not an ESP32 firmware image", "0x4d"]),
    ("elf.bin", b"\x7fELF" + bytes(60), ["is not an ESP32 firmware image", "0x7f"]),
    ("empty.bin", b"", ["is empty"]),
    ("short.bin", b"\xe9\x03\x02\x20", ["is too short (4 bytes)"]),
    ("unknown-chip.bin", make_image(0x77, payload=256), ["a chip this esptool does not know", "chip id 119"]),
    ("truncated.bin", make_image(ESP32, payload=0)[:600], ["is not a valid ESP image"]),
]


@pytest.mark.parametrize("name,data,words", NOT_IMAGES, ids=[n for n, _, _ in NOT_IMAGES])
def test_not_an_image_is_refused_before_connecting(tmp_path, name, data, words):
    """Files that are not ESP32 firmware (no 0xE9 magic, empty, a header cut
    short, an unknown chip id, segments cut off): refused with a clear line,
    exit 1, before any port is opened (the device given would refuse a
    connection, and stderr never says Connecting)."""
    fw = write(tmp_path, name, data)
    r = carom_flash("--device", "socket://127.0.0.1:1", "--firmware", fw, timeout=20)
    assert_clean_error(r, fw, *words)
    assert "Connecting" not in r.stderr


def test_a_damaged_image_is_refused(tmp_path):
    """A valid image with one bit flipped inside a segment (the checksum no
    longer matches), and one with a bit flipped in the SHA-256 area: both
    refused as damaged before connecting."""
    good = bytearray(make_image(ESP32, payload=512))
    bad_sum = bytearray(good)
    bad_sum[24 + 8 + 10] ^= 0x01  # inside the first segment's data
    r = carom_flash("-d", "socket://127.0.0.1:1", "-f", write(tmp_path, "sum.bin", bytes(bad_sum)), timeout=20)
    assert_clean_error(r, "is damaged", "checksum")
    digest_at = _digest_offset(bytes(good))
    bad_sha = bytearray(good)
    bad_sha[digest_at] ^= 0x01
    r = carom_flash("-d", "socket://127.0.0.1:1", "-f", write(tmp_path, "sha.bin", bytes(bad_sha)), timeout=20)
    assert_clean_error(r, "is damaged", "SHA-256")


def _digest_offset(image):
    """Where make_image put the SHA-256: after the segments and the checksum's 16-byte padding."""
    pos = 24
    for _ in range(image[1]):
        size = struct.unpack_from("<I", image, pos + 4)[0]
        pos += 8 + size
    pos += 16 - pos % 16
    assert hashlib.sha256(image[:pos]).digest() == image[pos : pos + 32]
    return pos


def test_missing_file_and_bad_arguments(tmp_path):
    """A firmware path that does not exist, a folder, a zero baud rate, a
    blank --device, and no --device at all: each a clear error before any
    port is touched (argparse's own usage error, exit 2, for the last)."""
    r = carom_flash("--device", "socket://127.0.0.1:1", "--firmware", str(tmp_path / "nope.bin"), timeout=20)
    assert_clean_error(r, "no such firmware file", "nope.bin")
    r = carom_flash("--device", "socket://127.0.0.1:1", "--firmware", str(tmp_path), timeout=20)
    assert_clean_error(r, "is a folder")
    fw = write(tmp_path, "fw.bin", make_image(ESP32, payload=256))
    r = carom_flash("--device", "socket://127.0.0.1:1", "--firmware", fw, "--baud", "0", timeout=20)
    assert_clean_error(r, "--baud must be a positive number")
    r = carom_flash("--device", " ", "--firmware", fw, timeout=20)
    assert_clean_error(r, "--device is empty")
    r = carom_flash("--firmware", fw, timeout=20)
    assert r.returncode == 2 and "--device" in r.stderr and "Traceback" not in r.stderr


# ---------------------------------------------------------------------------
# The progress bar on its own


class _Stream:
    def __init__(self, tty):
        self.text, self.tty = "", tty

    def write(self, s):
        self.text += s

    def flush(self):
        pass

    def isatty(self):
        return self.tty


def test_progress_bar_in_a_log_and_on_a_terminal():
    """Fed the way esptool feeds it (bytes done of total, a label whose address
    moves): into a log it writes one line per quarter of each phase; on a
    terminal it redraws one line in place and ends it at 100 %."""
    from host_tools.commands.flash import ProgressBar

    log = _Stream(tty=False)
    bar = ProgressBar(log)
    for done in range(0, 100_001, 4096):
        bar.update(done, 100_000, "Writing at 0x%08x" % (0x1000 + done))
    bar.update(100_000, 100_000, "Writing at 0x%08x" % 0x19EA0)
    lines = log.text.splitlines()
    assert [ln[-4:] for ln in lines] == ["  0%", " 28%", " 53%", " 77%", "100%"], lines
    assert lines[-1].endswith("[" + "#" * 30 + "] 100%")

    term = _Stream(tty=True)
    bar = ProgressBar(term)
    bar.update(50, 100, "Writing at 0x00001000")
    assert term.text.startswith("\r") and " 50%" in term.text and "\n" not in term.text
    bar.interrupt()  # a message in between ends the half-drawn line
    assert term.text.endswith("\n")
    bar.update(100, 100, "Writing at 0x00002000")
    assert term.text.endswith("100%\n") and term.text.count("\n") == 2
