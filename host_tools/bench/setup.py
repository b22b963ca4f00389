"""`make bench`: the board's own cost of the hall's setup topic (issue 17), on the heap.

A wall board with Wi-Fi, MQTT (a mosquitto started here) and the radio, as tests/host/test_heap32.py
boots it, once without and once with a hall key (config.json's hall.key): the live heap after each
of two boots, the sampled live heap once connected, then with the key three signed setups applied
and an oversized message dropped. On the 32-bit MicroPython (a stock ESP32's 4-byte objects,
112 KB) when there is one, else the 64-bit port. Figures are measured, never asserted here
(tests/host/test_hall_setup.py asserts the goals).
"""

import json
import os
import shutil
import sys
import tempfile
import time

from .. import ROOT, micropython32_exe, micropython_exe
from .heap import RADIO, WIFI, boots, configure, heap_firmware, peak, wall

KEY = "5a" * 32
SETUP = {"players": {"A": {"name": "Anna Kovacs", "club": "BC Pest"}, "B": {"name": "Bela Nagy", "club": "Debreceni BC"}},
         "match": {"game": "three_cushion", "target": 25, "innings_limit": 40, "shot_clock": 40}}


def _wait(fn, timeout):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if fn():
            return True
        time.sleep(0.05)
    return False


def _board(exe, heap, firmware, tmp, port, states, client, key):
    from ..hall import setups
    from ..simulator.vboard import VirtualBoard

    table = "bk" if key else "bn"
    flash = os.path.join(tmp, table)
    shutil.copytree(firmware, flash)
    config = {"board": "wall", "match": {"game": "straight_rail", "target": 200}, "radio": RADIO, "wifi": WIFI,
              "mqtt": {"host": "127.0.0.1", "port": port, "table": table}}
    if key:
        config["hall"] = {"key": KEY}
    configure(flash, config)
    topic = "carom/%s/state" % table
    out = {}
    with VirtualBoard(flash, board=wall(), micropython=exe, firmware_heap=heap, wifi=WIFI) as vb:
        for n in (1, 2):
            states.pop(topic, None)
            vb.run_realtime()
            vb.wait_for(lambda b: len(boots(b)) >= n or "Traceback" in b.stderr, timeout=60)
            _wait(lambda: topic in states, 30)
            time.sleep(3)  # running: the clock's next chunk made, the state published
            vb.stop_realtime()
            out["boot%d" % n] = boots(vb)[-1][0]
            if n == 1:
                vb.power_off()
                vb.power_on()
        out["running"] = peak(vb)
        if key:
            vb.run_realtime()
            for n in (1, 2, 3):
                setup = json.loads(json.dumps(SETUP))
                setup["players"]["A"]["name"] += " %d" % n
                client.publish("carom/%s/setup" % table, setups.sign(KEY, table, n, setup), qos=1, retain=True)
                _wait(lambda: (states.get(topic) or {}).get("setup", {}).get("n") == n, 30)
            client.publish("carom/%s/setup" % table, b"0" * 64 + b" " + b"x" * 5000, qos=1, retain=True)
            _wait(lambda: (states.get(topic) or {}).get("setup", {}).get("last_refused") == "size", 30)
            vb.stop_realtime()
            out["setups"] = peak(vb)
            out["state_setup"] = (states.get(topic) or {}).get("setup")
        out["memory_errors"] = (vb.stdout + vb.stderr).count("MemoryError")
    return out


def setup_section():
    """The figures, printed as a table; a dict for the JSON."""
    sys.path.insert(0, os.path.join(ROOT, "tests", "host"))
    from mosquitto import Mosquitto, available

    import paho.mqtt.client as paho

    if not available():
        print("## The setup topic's heap cost: skipped (no mosquitto)\n")
        return {}
    exe, heap, bits = micropython32_exe(), "112K", "32-bit, 112 KB"
    if exe is None:
        exe, heap, bits = micropython_exe(), None, "64-bit"
    broker = Mosquitto().start()
    states = {}
    client = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id="bench-setup")
    client.on_connect = lambda c, u, f, rc, p=None: c.subscribe("carom/+/state", qos=1)
    client.on_message = lambda c, u, m: states.__setitem__(m.topic, json.loads(m.payload))
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            firmware = heap_firmware(os.path.join(tmp, "firmware"))
            without = _board(exe, heap, firmware, tmp, broker.port, states, client, False)
            with_key = _board(exe, heap, firmware, tmp, broker.port, states, client, True)
    finally:
        client.loop_stop()
        client.disconnect()
        broker.close()
    print("## The setup topic's heap cost (%s; live bytes, the running figure sampled every 100 ms)" % bits)
    print("%-34s %12s %12s %8s" % ("", "no hall key", "hall key", "diff"))
    for label, k in (("boot, first start", "boot1"), ("boot, next start", "boot2"), ("running, MQTT connected", "running")):
        print("%-34s %12d %12d %+8d" % (label, without[k], with_key[k], with_key[k] - without[k]))
    print("%-34s %12s %12d %+8d" % ("3 setups applied, 1 oversized", "", with_key["setups"],
                                    with_key["setups"] - with_key["running"]))
    print("MemoryError lines: %d; the board's setup key at the end: %s" % (
        without["memory_errors"] + with_key["memory_errors"], json.dumps(with_key.get("state_setup"))))
    print()
    return {"bits": bits, "no_key": without, "key": with_key}


if __name__ == "__main__":
    setup_section()
