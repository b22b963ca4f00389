"""Benchmark main.py for the virtual board: bytes allocated per received remote command on the wall.

Runs the wall's own objects (app.Board with a paired remote, so radio.Receiver
is the one setup_radio made) on the MicroPython unix port. Measured with
micropython.mem_total() around what radio_task does per frame: Receiver.receive,
Controller.remote (the press path to the displays), Controller.summary and
Receiver.ack; then the same with the flash writes (persist, /radio.last).
ESP-NOW's send is left out: the emulator's allocates for the host, the ESP32
port's does not. Frames are made beforehand with radio.Sender (the remote's side).
"""

import gc
import json

import micropython

import _vb_time
import app
import radio

real = _vb_time._real_time
N = 200


class CountingBus:
    def writeto(self, addr, buf):
        return len(buf)


import startup  # noqa: E402

config, error = startup.load_config()
board = startup.load_board(config["board"])
b = startup.build(board, config, error)
for chip in b.chips:
    chip.set_bus(CountingBus())  # the emulator's I2C allocates to tell the host; a real bus does not
b.view.render(0)
rx = b.rx
key = radio.hex_key(config["radio"]["key"])
tx = radio.Sender(key, rx.own_id, rx.peer, 1)
ctrl = b.ctrl


def frames(n, command):
    return [tx.command(command) for _ in range(n)]


def handle(msg, now, save):
    got = rx.receive(msg)
    command, arg, seq, new = got
    if new:
        ctrl.remote(command, arg, now)
        if save:
            b.persist()
            app.write_last(seq)
    return rx.ack(seq, command, arg, ctrl.summary())


handle(frames(1, 0)[0], 0, False)  # the lag: A breaks

batch = frames(N, 0)  # points
gc.collect()
m0 = micropython.mem_total()
t0 = real.ticks_us()
for i in range(N):
    handle(batch[i], 1000 + i, False)
us = real.ticks_diff(real.ticks_us(), t0)
alloc = (micropython.mem_total() - m0) / N

# The retransmission path: the same frame again (acknowledged, not acted on).
again = batch[-1]
gc.collect()
m0 = micropython.mem_total()
for i in range(N):
    handle(again, 5000 + i, False)
alloc_repeat = (micropython.mem_total() - m0) / N

# A forged frame (bad tag): dropped.
forged = bytearray(batch[-1])
forged[47] ^= 1
forged = bytes(forged)
gc.collect()
m0 = micropython.mem_total()
for i in range(N):
    rx.receive(forged)
alloc_forged = (micropython.mem_total() - m0) / N

# Its parts: the tag alone (two SHA-256 objects and their digests), receive, the controller, the ack.
data = bytes(batch[-1][:32])
gc.collect()
m0 = micropython.mem_total()
for i in range(N):
    rx.hmac.tag(data)
alloc_tag = (micropython.mem_total() - m0) / N

batch = frames(N, 0)
gc.collect()
m0 = micropython.mem_total()
got = [None] * N
for i in range(N):
    got[i] = rx.receive(batch[i])
alloc_receive = (micropython.mem_total() - m0) / N  # the result tuples included
gc.collect()
m0 = micropython.mem_total()
for i in range(N):
    ctrl.remote(0, 0, 7000 + i)
alloc_remote = (micropython.mem_total() - m0) / N
seq = got[-1][2]
gc.collect()
m0 = micropython.mem_total()
for i in range(N):
    rx.ack(seq, 0, 0, ctrl.summary())
alloc_ack = (micropython.mem_total() - m0) / N

batch = frames(N, 0)
gc.collect()
m0 = micropython.mem_total()
t0 = real.ticks_us()
for i in range(N):
    handle(batch[i], 9000 + i, True)
us_saved = real.ticks_diff(real.ticks_us(), t0)
alloc_saved = (micropython.mem_total() - m0) / N

print("BENCH " + json.dumps({
    "alloc_per_frame": alloc,
    "alloc_per_repeat": alloc_repeat,
    "alloc_per_forged": alloc_forged,
    "alloc_per_frame_with_flash": alloc_saved,
    "alloc_tag": alloc_tag,
    "alloc_receive": alloc_receive,
    "alloc_controller": alloc_remote,
    "alloc_ack": alloc_ack,
    "frame_us": us / N,
    "frame_us_with_flash": us_saved / N,
}))
