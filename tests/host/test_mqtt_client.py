"""The board's MQTT client (firmware/mqtt.py) on the MicroPython unix port against a real mosquitto.

What is tried: connect with a last will and an "online" birth message, a
retained state and a QoS 1 report; the client's process dies without a
DISCONNECT (the broker publishes the will); the broker is not there at the
start and comes up later (the client keeps retrying with backoff, and what
was queued arrives once); the broker goes away mid-run and comes back.
"""

import os
import subprocess
import threading
import time

import paho.mqtt.client as paho
import pytest

from host_tools import FIRMWARE_DIR, ROOT
from host_tools import micropython_exe
from mosquitto import Mosquitto, available

pytestmark = pytest.mark.skipif(not available(), reason="mosquitto is not installed (tools/deps.sh installs it)")

PROGRAM = r"""
import sys
sys.path.insert(0, %(fw)r)
import asyncio, mqtt
c = mqtt.Client("t1", "127.0.0.1", %(port)d, keepalive=5,
                will=("carom/t1/status", b"offline", True, 1), birth=("carom/t1/status", b"online", True, 1))
acked = []
async def main():
    asyncio.create_task(c.run())
    c.state("carom/t1/state", b"s1")
    c.state("carom/t1/state", b"s2")  # replaces s1 before it is sent
    c.publish("carom/t1/report", b"r1", qos=1, on_ack=acked.append)
    for i in range(%(seconds)d * 10):
        await asyncio.sleep_ms(100)
        if i == %(second_at)d:
            c.publish("carom/t1/report", b"r2", qos=1, on_ack=acked.append)
            c.state("carom/t1/state", b"s3")
    print("ACKED", len(acked), "CONNECTS", c.connects)
asyncio.run(main())
"""


class Listener:
    def __init__(self, port):
        self.messages = []
        self.lock = threading.Lock()
        self.client = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id="listener")
        self.client.on_message = self._message
        self.client.on_connect = lambda c, u, f, rc, p=None: c.subscribe("carom/#", qos=1)
        self.client.reconnect_delay_set(0.1, 0.5)
        self.client.connect_async("127.0.0.1", port)
        self.client.loop_start()

    def _message(self, client, userdata, msg):
        with self.lock:
            self.messages.append((msg.topic, msg.payload, msg.retain))

    def payloads(self, topic):
        with self.lock:
            return [p for t, p, r in self.messages if t == topic]

    def wait(self, pred, timeout=15):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if pred():
                return True
            time.sleep(0.05)
        return False

    def close(self):
        self.client.loop_stop()
        self.client.disconnect()


def run_board(port, seconds, second_at=9999):
    code = PROGRAM % {"fw": FIRMWARE_DIR, "port": port, "seconds": seconds, "second_at": second_at}
    return subprocess.Popen([micropython_exe(), "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=ROOT)


def test_publish_retained_state_qos1_report_and_last_will():
    broker = Mosquitto().start()
    listener = Listener(broker.port)
    try:
        assert listener.wait(lambda: listener.client.is_connected())
        board = run_board(broker.port, seconds=2)
        assert listener.wait(lambda: listener.payloads("carom/t1/report") == [b"r1"])
        assert listener.payloads("carom/t1/state") == [b"s2"]
        assert listener.payloads("carom/t1/status")[:1] == [b"online"]
        out, err = board.communicate(timeout=30)
        assert "ACKED 1 CONNECTS 1" in out, (out, err)
        # The process ended without DISCONNECT: the broker publishes the will.
        assert listener.wait(lambda: listener.payloads("carom/t1/status")[-1:] == [b"offline"], timeout=20)
        # A newcomer gets the retained state and status.
        late = Listener(broker.port)
        try:
            assert late.wait(lambda: late.payloads("carom/t1/state") == [b"s2"])
            assert late.wait(lambda: late.payloads("carom/t1/status") == [b"offline"])
        finally:
            late.close()
    finally:
        listener.close()
        broker.close()


def test_broker_down_then_up_messages_arrive_once():
    broker = Mosquitto()
    board = run_board(broker.port, seconds=9, second_at=60)
    try:
        time.sleep(2.5)  # the board keeps trying with backoff meanwhile (1 s, 2 s, ...)
        broker.start()
        listener = Listener(broker.port)
        try:
            assert listener.wait(lambda: listener.payloads("carom/t1/report") == [b"r1", b"r2"], timeout=20)
            out, err = board.communicate(timeout=30)
            assert "ACKED 2" in out, (out, err)
            time.sleep(0.5)
            assert listener.payloads("carom/t1/report") == [b"r1", b"r2"]  # once each
            assert listener.payloads("carom/t1/state")[-1:] == [b"s3"]
        finally:
            listener.close()
    finally:
        if board.poll() is None:
            board.kill()
        broker.close()


def test_broker_restart_mid_run():
    broker = Mosquitto().start()
    board = run_board(broker.port, seconds=10, second_at=55)
    listener = Listener(broker.port)
    try:
        assert listener.wait(lambda: listener.payloads("carom/t1/report") == [b"r1"])
        broker.stop()
        time.sleep(1.5)  # r2 is queued at 5.5 s, while the broker may still be away
        broker.start()
        listener.close()
        listener = Listener(broker.port)
        assert listener.wait(lambda: b"r2" in listener.payloads("carom/t1/report"), timeout=25)
        out, err = board.communicate(timeout=30)
        assert "ACKED 2" in out and "CONNECTS 1" not in out, (out, err)
    finally:
        listener.close()
        if board.poll() is None:
            board.kill()
        broker.close()
