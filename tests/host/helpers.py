"""What the host tests share: plain functions and classes (the shared fixtures are in tests/conftest.py).

Imported as `from helpers import ...`: tests/host has no __init__.py, so pytest puts this folder on
sys.path for the test files in it.  What tools/pictures.py uses too (the waits, LineProcess, the
broker, the browser, `carom sim` and `carom hall` started and read) lives in tools/run/, and the
names the tests take from here are imported from there.

Every wait here is for a condition, with a generous deadline that only bounds a hang: nothing
sleeps a fixed time, and nothing passes or fails by how fast the machine is.
"""

import contextlib
import hashlib
import os
import shutil
import subprocess
import sys
import threading
import time

import pytest

from tools.run import (  # noqa: F401 (shared from here too)
    BIN,
    CAROM,
    LineProcess,
    board_def,
    carom,
    lay_out_flash,
    wait_for,
    wait_until,
)
from tools.run.mosquitto import available, free_port  # noqa: F401 (free_port: shared from here too)

MPREMOTE = os.path.join(BIN, "mpremote")
RUNNING = "carom: running on board %s"  # what the app prints once it runs

needs_mosquitto = pytest.mark.skipif(not available(), reason="mosquitto is not installed (tools/deps.sh installs it)")
needs_mpremote = pytest.mark.skipif(not os.path.exists(MPREMOTE), reason="mpremote is not installed in the venv")


# ---- the referee's lines of matches that more than one test plays ------------------------------------


def innings(*runs):
    """The referee's lines of innings that made these runs: each inning its points, then a miss."""
    lines = []
    for run in runs:
        lines += ["point"] * run + ["miss"]
    return lines


# sets through the deciding set (its lag and target), a break between sets
SETS_MATCH = [
    "new game=three_cushion target=2 sets=2 deciding_target=1 name_A=Anna name_B=Bela",
    "lag A",
    "choose A break",
    *innings(1, 1, 1),
    "break_request A",
    "resume",
    "next_set",
    "point",
    "point",
    "miss",
    "next_set",
    "lag B",
    "choose B break",
    "miss",
    "point",
]

# a shoot-out after a level end that may not stand: a round of equal runs, then the longer run
SHOOTOUT_MATCH = [
    "new game=three_cushion target=2 draw=off shootout=on innings_limit=1 name_A=Anna name_B=Bela",
    "lag A",
    "choose A break",
    *innings(1, 1, 1, 1),
    "point",
    "point",
    "foul push",
    "point",
    "miss",
]


# ---- `carom` and boards in folders ---------------------------------------------------------------


def ok(out):
    """The stdout of a CompletedProcess that exited 0 (else an assertion with both streams)."""
    assert out.returncode == 0, "exit %d\nstdout:\n%s\nstderr:\n%s" % (out.returncode, out.stdout, out.stderr)
    return out.stdout


def run_mpremote(device, *args, timeout=60, text=False):
    """`mpremote connect <device> ...` (the venv's): a CompletedProcess, bytes unless text=True."""
    return subprocess.run([MPREMOTE, "connect", device, *args], capture_output=True, text=text, timeout=timeout)


def start_running(flash, board="wall", **vb_options):
    """A VirtualBoard on `flash`, powered and following real time, once the app printed that it runs."""
    from host_tools.simulator.vboard import VirtualBoard

    vb = VirtualBoard(flash, board=board_def(board), **vb_options)
    vb.power_on()
    vb.run_realtime()
    vb.wait_for(lambda b: RUNNING % board in b.stdout)
    return vb


def flash_hashes(folder):
    """{relative path: sha256} of every file below `folder` (a flash: what a write changes)."""
    out = {}
    for top, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(top, name)
            with open(path, "rb") as f:
                out[os.path.relpath(path, folder)] = hashlib.sha256(f.read()).hexdigest()
    return out


def restored_match(flash_dir, copy):
    """The match a wall's flash holds, restored on the host by the firmware's own rules and store
    from a copy of its /data in the new folder `copy` (the board's own files stay untouched)."""
    from host_tools import firmware_path

    firmware_path()
    import rules
    import store

    shutil.copytree(os.path.join(flash_dir, "data"), copy)
    m = rules.Match()
    assert store.MatchStore(copy).restore(m, 0)
    return m


# ---- the referee remote and the wall on one radio hub --------------------------------------------

KEY = "5a" * 32  # the pairing key the radio tests give both boards


def mac_text(mac):
    return ":".join("%02x" % b for b in mac)


# The MAC addresses radio_pair gives the wall and its remote.
WALL_MAC = bytes.fromhex("240ac4000011")
REMOTE_MAC = bytes.fromhex("240ac4000021")


def radio_pair(folder, firmware, match, seed=5, wall_config=None, remote_options=None, **wall_options):
    """A radio hub (RadioHub(seed=seed)) with a wall board (boards/wall.json, playing `match`,
    WALL_MAC) and its referee remote (boards/referee.json, REMOTE_MAC) on it, paired with KEY,
    from the built `firmware`, in folder/wall and folder/remote; not powered.

    Returns (hub, wall, remote), the boards ScriptedBoards (displays read from the chips);
    wall_config is merged into the wall's config.json, wall_options go to its VirtualBoard
    (wifi=, micropython=, ...), remote_options to the remote's (tools/bench/remote.py: the 32-bit
    interpreter with the chip's heap)."""
    from host_tools.simulator.vboard import RadioHub

    hub = RadioHub(seed=seed)
    wall_mac, remote_mac = WALL_MAC, REMOTE_MAC
    from host_tools.simulator.scripted_board import ScriptedBoard

    config = {"board": "wall", "match": match, "radio": {"peer": mac_text(remote_mac), "key": KEY}}
    config.update(wall_config or {})
    wall = ScriptedBoard(
        "wall",
        os.path.join(str(folder), "wall"),
        config,
        firmware=firmware,
        power=False,
        radio=hub,
        name="wall",
        unique_id=wall_mac,
        **wall_options,
    )
    try:
        remote = ScriptedBoard(
            "referee",
            os.path.join(str(folder), "remote"),
            {"board": "referee", "radio": {"peer": mac_text(wall_mac), "key": KEY}},
            firmware=firmware,
            power=False,
            radio=hub,
            name="remote",
            unique_id=remote_mac,
            **(remote_options or {}),
        )
    except BaseException:
        wall.close()
        raise
    return hub, wall, remote


def hub_press(hub, vb, button, down=0.1, settle=0.5):
    """Press the VirtualBoard's `button` for `down` virtual seconds, then let `settle` pass: every board on
    the hub in step."""
    vb.press(button)
    hub.advance(down)
    vb.release(button)
    hub.advance(settle)


def remote_shows(board):
    """The referee remote's four digits (its HT16K33 at 0x70) as its lit segments read; `board` is the
    VirtualBoard or a ScriptedBoard holding it."""
    from host_tools.simulator.segments import decode

    vb = getattr(board, "vb", board)
    return decode(vb.chip(0x70).ram, "seg7").text


def frame_seq(frame):
    """(boot, counter) of a radio frame (firmware/radio.py's layout)."""
    import struct

    return struct.unpack_from("<II", frame.data, 8)


# ---- MQTT ----------------------------------------------------------------------------------------


@contextlib.contextmanager
def running_mosquitto():
    """A real mosquitto on a free loopback port for the with-block (the test is skipped if there is none)."""
    from tools.run.mosquitto import Mosquitto, available

    if not available():
        pytest.skip("mosquitto is not installed (tools/deps.sh installs it)")
    m = Mosquitto().start()
    try:
        yield m
    finally:
        m.close()


class Listener:
    """A paho client subscribed to carom/# (QoS 1) on a broker at 127.0.0.1:port: what it got, in order.

    It connects in the background and reconnects quickly; wait_subscribed() before anything it must
    see is published.  persistent: a session the broker keeps (clean_session off), so what is
    published while it is away waits for it (with a PersistentMosquitto, across a restart too)."""

    def __init__(self, port, client_id="listener", persistent=False):
        import paho.mqtt.client as paho

        self.messages = []  # (topic, payload, retain)
        self.arrived = []  # time.monotonic() as each message came, taken in paho's thread
        self.lock = threading.Lock()
        self._subscribed = threading.Event()
        self.client = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=not persistent)
        self.client.on_message = self._message
        self.client.on_connect = self._connected
        self.client.on_subscribe = lambda c, u, mid, rc, p=None: self._subscribed.set()
        self.client.reconnect_delay_set(0.1, 0.5)
        self.client.connect_async("127.0.0.1", port)
        self.client.loop_start()

    def _connected(self, client, userdata, flags, rc, properties=None):
        self._subscribed.clear()
        client.subscribe("carom/#", qos=1)

    def _message(self, client, userdata, msg):
        with self.lock:
            self.messages.append((msg.topic, msg.payload, msg.retain))
            self.arrived.append(time.monotonic())

    def payloads(self, topic):
        with self.lock:
            return [p for t, p, r in self.messages if t == topic]

    def arrival(self, topic, payload):
        """When the last message `payload` on `topic` came (time.monotonic()), or None."""
        with self.lock:
            times = [at for (t, p, r), at in zip(self.messages, self.arrived) if (t, p) == (topic, payload)]
        return times[-1] if times else None

    def wait(self, pred, timeout=15):
        """True once pred() is, False if `timeout` real seconds pass first."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if pred():
                return True
            time.sleep(0.02)
        return bool(pred())

    def wait_subscribed(self, timeout=15):
        assert self._subscribed.wait(timeout), "the listener did not subscribe within %d s" % timeout
        return self

    def close(self):
        self.client.loop_stop()
        self.client.disconnect()


# ---- a board that does not answer ----------------------------------------------------


class Pty:
    """A pseudo-terminal whose other end this test holds: `path` is the port carom opens."""

    def __init__(self, answer_repl=False):
        self.master, self.slave = os.openpty()
        self.path = os.ttyname(self.slave)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve if answer_repl else self._drain, daemon=True)
        self.thread.start()

    def _read(self):
        import select

        while not self.stop.is_set():
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if ready:
                try:
                    return os.read(self.master, 4096)
                except OSError:
                    return b""
        return b""

    def _drain(self):
        """Read what carom writes (so its writes never block) and answer nothing."""
        while self._read():
            pass

    def _serve(self):
        """Answer the raw-REPL handshake and the soft reset as MicroPython does, then nothing."""
        got = b""
        entered = False
        while True:
            data = self._read()
            if not data:
                return
            got += data
            if not entered and b"\x01" in got:
                os.write(self.master, b"raw REPL; CTRL-B to exit\r\n>")
                got = got[got.index(b"\x01") + 1 :]
                entered = True
            if entered and b"\x04" in got:
                os.write(self.master, b"soft reboot\r\nraw REPL; CTRL-B to exit\r\n>")
                self._drain()
                return

    def close(self):
        self.stop.set()
        self.thread.join(5)
        os.close(self.master)
        os.close(self.slave)


# ---- an ESP32's ROM loader, emulated (PyPI esp32-mock-bootloader) -----------------------------------


def make_image(chip_id, payload=8192, seed=0):
    """A small ESP image that esptool's parser accepts, followed by random bytes."""
    import random
    import struct

    rnd = random.Random(seed)
    segments = [(0x3FFF0000, rnd.randbytes(256)), (0x40078000, rnd.randbytes(1024))]
    # magic, segment count, flash mode DIO, 4 MB / 40 MHz, entry point
    head = struct.pack("<BBBBI", 0xE9, len(segments), 2, 0x20, 0x40080000)
    # wp pin, 3 drive bytes, chip id, min rev, min/max full rev, reserved, hash appended
    head += struct.pack("<BBBBHBHHIB", 0xEE, 0, 0, 0, chip_id, 0, 0, 0xFFFF, 0, 1)
    body = bytearray(head)
    checksum = 0xEF
    for addr, data in segments:
        body += struct.pack("<II", addr, len(data)) + data
        for b in data:
            checksum ^= b
    body += bytes(15 - len(body) % 16) + bytes([checksum])
    body += hashlib.sha256(body).digest()
    return bytes(body) + rnd.randbytes(payload)


def start_mock_bootloader(folder, chip="esp32", n=0):
    """The mock ROM loader in its own process on a free TCP port (its flash kept in `folder`):
    (process, port). The caller ends the process."""
    port_file = os.path.join(str(folder), "mock-port-%d" % n)
    env = dict(os.environ, ESP32_MOCK_BOOTLOADER_STATE_DIR=os.path.join(str(folder), "mock-state"))
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "esp32_mock_bootloader.cli",
            "run",
            "--chip",
            chip,
            "--port",
            "0",
            "--port-file",
            port_file,
            "--timeout",
            "300",
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    # The mock writes its port to the file after bind() and listen().
    deadline = time.monotonic() + 20
    while True:
        text = open(port_file).read().strip() if os.path.exists(port_file) else ""
        if text.isdigit():
            return proc, int(text)
        if proc.poll() is not None:
            pytest.fail("the mock bootloader exited at start: %s" % proc.stderr.read().decode())
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail("the mock bootloader did not start listening within 20 s")
        time.sleep(0.02)
