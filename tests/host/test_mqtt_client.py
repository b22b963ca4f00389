"""The board's MQTT client (firmware/mqtt.py) on the MicroPython unix port against a real mosquitto.

What is tried: connect with a last will and an "online" birth message, a
retained state and a QoS 1 report; the client's process dies without a
DISCONNECT (the broker publishes the will); the broker is not there at the
start and comes up later (the client keeps retrying with backoff, and what
was queued arrives once); the broker goes away mid-run and comes back.
"""

from helpers import LineProcess, Listener, needs_mosquitto
from host_tools import FIRMWARE_DIR, micropython_exe
from tools.run.mosquitto import Mosquitto, PersistentMosquitto

pytestmark = needs_mosquitto

# The board's side, told what to do next on its stdin (so nothing here depends on how fast time
# passes): "r2" queues a second report and a state, "last" a final report whose arrival says
# everything sent before it has arrived, "end" prints the counts and ends the process without a
# DISCONNECT.  It prints "ACK n" as the broker acknowledges the n-th of r1 and r2, "LAST" for the
# last one; the client prints "mqtt: ..." for each failed connection.
PROGRAM = r"""
import sys
sys.path.insert(0, %(fw)r)
import asyncio, mqtt
c = mqtt.Client("t1", "127.0.0.1", %(port)d, keepalive=5,
                will=("carom/t1/status", b"offline", True, 1), birth=("carom/t1/status", b"online", True, 1))
acked = []
def on_ack(topic):
    acked.append(topic)
    print("ACK", len(acked))
async def main():
    asyncio.create_task(c.run())
    c.state("carom/t1/state", b"s1")
    c.state("carom/t1/state", b"s2")  # replaces s1 before it is sent
    c.publish("carom/t1/report", b"r1", qos=1, on_ack=on_ack)
    stdin = asyncio.StreamReader(sys.stdin)
    while True:
        word = (await stdin.readline()).strip()
        if word == b"r2":
            c.publish("carom/t1/report", b"r2", qos=1, on_ack=on_ack)
            c.state("carom/t1/state", b"s3")
        elif word == b"files":  # a file in three pieces, sent plain and signed with a 32-byte key
            with open(%(file)r, "wb") as f:
                f.write(bytes(range(256)) * 4 + b'{"report": "\xc3\xa9"}' * 20)
            c.publish_file("carom/t1/report", %(file)r, qos=1, on_ack=on_ack)
            c.publish_file("carom/t1/report", %(file)r, qos=1, on_ack=on_ack, key=bytes(range(32)))
        elif word == b"last":
            c.publish("carom/t1/report", b"last", qos=1, on_ack=lambda topic: print("LAST"))
        else:
            break
    print("ACKED", len(acked), "CONNECTS", c.connects)
asyncio.run(main())
"""


class MqttBoard(LineProcess):
    name = "the MQTT client"

    def __init__(self, port, file="report.json"):
        super().__init__(
            [micropython_exe(), "-c", PROGRAM % {"fw": FIRMWARE_DIR, "port": port, "file": file}], stdin=True
        )

    def end(self):
        """ "end": the counts it printed as it ended."""
        self.send("end")
        assert self.finish() == 0, "\n".join(self.lines)
        return self.lines[-1]


def test_a_file_is_sent_as_it_is_or_signed_with_the_hall_key(tmp_path):
    """A file of 1,344 bytes (three 512-byte pieces, the last short) sent plain, then with a
    key: the signed one is the file, a space and HMAC-SHA256(key, file) in hex, which the hall's
    check takes (and refuses with another key or one byte changed)."""
    from host_tools.hall.setups import report_signed, sign_report, split_report

    broker = Mosquitto().start()
    listener = Listener(broker.port).wait_subscribed()
    board = MqttBoard(broker.port, str(tmp_path / "report.json"))
    try:
        board.wait_line(r"^ACK 1$")
        board.send("files")
        board.wait_line(r"^ACK 3$")
        assert listener.wait(lambda: len(listener.payloads("carom/t1/report")) == 3)
        plain, signed = listener.payloads("carom/t1/report")[1:]
        data = (tmp_path / "report.json").read_bytes()
        assert plain == data and len(data) == 1344
        key = bytes(range(32))
        assert signed == sign_report(key, data) and len(signed) == len(data) + 65
        body, tag = split_report(signed)
        assert body == data and report_signed(key, body, tag)
        assert not report_signed(bytes(32), body, tag) and not report_signed(key, body[:-1] + b"!", tag)
        assert split_report(plain) == (plain, None)
        board.end()
    finally:
        board.kill()
        listener.close()
        broker.close()


def test_publish_retained_state_qos1_report_and_last_will():
    broker = Mosquitto().start()
    listener = Listener(broker.port).wait_subscribed()
    board = MqttBoard(broker.port)
    try:
        assert listener.wait(lambda: listener.payloads("carom/t1/report") == [b"r1"])
        board.wait_line(r"^ACK 1$")
        assert listener.payloads("carom/t1/state") == [b"s2"]
        assert listener.payloads("carom/t1/status")[:1] == [b"online"]
        assert board.end() == "ACKED 1 CONNECTS 1"
        # The process ended without DISCONNECT: the broker publishes the will.
        assert listener.wait(lambda: listener.payloads("carom/t1/status")[-1:] == [b"offline"], timeout=20)
        # A newcomer gets the retained state and status.
        late = Listener(broker.port, client_id="late")
        try:
            assert late.wait(lambda: late.payloads("carom/t1/state") == [b"s2"])
            assert late.wait(lambda: late.payloads("carom/t1/status") == [b"offline"])
        finally:
            late.close()
    finally:
        board.kill()
        listener.close()
        broker.close()


def test_broker_down_then_up_messages_arrive_once():
    # The listener's session is on the broker's disk: it gets what the board sends as soon as the
    # broker is back, however late the listener itself reconnects.
    broker = PersistentMosquitto().start()
    listener = Listener(broker.port, persistent=True).wait_subscribed()
    broker.stop()
    board = MqttBoard(broker.port)
    try:
        board.wait_line(r"^mqtt: ")
        board.wait_line(r"^mqtt: ")  # refused, and again after 1 s: it keeps trying with backoff
        broker.start()
        assert listener.wait(lambda: listener.payloads("carom/t1/report") == [b"r1"], timeout=20)
        board.wait_line(r"^ACK 1$")
        board.send("r2")
        assert listener.wait(lambda: listener.payloads("carom/t1/report") == [b"r1", b"r2"], timeout=20)
        board.wait_line(r"^ACK 2$")
        board.send("last")
        board.wait_line(r"^LAST$")
        assert listener.wait(lambda: listener.payloads("carom/t1/report")[-1:] == [b"last"])
        assert listener.payloads("carom/t1/report") == [b"r1", b"r2", b"last"]  # once each
        assert listener.wait(lambda: listener.payloads("carom/t1/state")[-1:] == [b"s3"])
        assert board.end().startswith("ACKED 2 ")
    finally:
        board.kill()
        listener.close()
        broker.close()


def test_broker_restart_mid_run():
    broker = PersistentMosquitto().start()
    listener = Listener(broker.port, persistent=True).wait_subscribed()
    board = MqttBoard(broker.port)
    try:
        assert listener.wait(lambda: listener.payloads("carom/t1/report") == [b"r1"])
        board.wait_line(r"^ACK 1$")
        broker.stop()
        board.wait_line(r"^mqtt: ")  # the board saw its connection go
        board.send("r2")  # queued while the broker is away
        broker.start()
        assert listener.wait(lambda: b"r2" in listener.payloads("carom/t1/report"), timeout=25)
        board.wait_line(r"^ACK 2$", timeout=25)
        assert board.end() == "ACKED 2 CONNECTS 2"
    finally:
        board.kill()
        listener.close()
        broker.close()
