"""The radio hub: ESP-NOW between virtual boards, with the faults a real
radio has and a few an attacker adds.

    hub = RadioHub(seed=1)
    wall = VirtualBoard(flash_a, board=wall_def, radio=hub, name="wall")
    remote = VirtualBoard(flash_b, board=remote_def, radio=hub, name="remote")
    wall.power_on(); remote.power_on()
    remote.press("point", hold=0.1)
    hub.advance(1.0)                 # both boards in step, frames delivered on the way
    hub.frames                       # every frame: who sent what to whom, when, its fate
    hub.drop = 0.3                   # lose 30 % of the frames (or a pattern: "x..x", or f(frame))
    hub.replay(hub.frames[0])        # send a recorded frame again (a replay attack)
    hub.inject(wall, b"\\x24\\x0a\\xc4\\x00\\x00\\x05", frame_bytes)   # a forged frame

How a frame travels: the sending board's espnow.send() asks the host ("nt");
the hub decides at once who hears it (boards whose radio is on: the
addressed interface active, the same channel; a broadcast: every such
board), whether it is lost, delayed, duplicated, and answers the radio's ack
(unicast: heard and not lost; broadcast: always True, as ESP-NOW does). Each
receiver gets the frame stamped with its arrival time (sent + delay_ms +
jitter); the board hands it to ESP-NOW when its clock reaches that time, or
at once if it is already past it. A frame reaches a board when the host next
talks to that board (any command: advance, a button...), so boards on a hub
should be driven together: hub.advance() runs them all to the same instants,
from event to event (see advance()), hub.run_realtime() lets each follow
real time. A receiver that is off, asleep, or restarted since the frame was
sent does not get it.

Time: every board keeps its own clock (virtual microseconds since its first
power-on); the hub treats them as one timeline, so create and power the
boards together (hub.advance() first brings every board to the latest clock).
"""

import random
import threading
import time
from collections import deque
from dataclasses import dataclass, field

from .drive import advance_until
from .errors import BoardTimeout

BROADCAST = b"\xff" * 6


def mac_text(mac):
    return ":".join("%02x" % b for b in mac)


def mac_bytes(mac):
    """6 bytes from bytes or "aa:bb:cc:dd:ee:ff" / 12 hex digits."""
    if isinstance(mac, (bytes, bytearray)):
        mac = bytes(mac)
    else:
        mac = bytes.fromhex(str(mac).replace(":", "").replace("-", ""))
    if len(mac) != 6:
        raise ValueError("a MAC address has 6 bytes")
    return mac


@dataclass
class RadioFrame:
    """One frame on the air (or forged by the host)."""

    n: int  # its index in hub.frames
    t_ms: float  # virtual time it was sent (the sender's clock; injected: the receiver's)
    src: bytes  # the sender's MAC (forged for an injected frame)
    dst: bytes  # the MAC it is addressed to
    data: bytes
    channel: int
    kind: str = "sent"  # "sent", "injected", "replayed"
    sender: str = None  # the sending board's name (None: injected or replayed by the host)
    dropped: bool = False  # lost on the air (hub.drop)
    acked: bool = False  # what send(..., sync=True) learnt
    heard_by: list = field(default_factory=list)  # names of the boards whose radio took it
    deliveries: list = field(default_factory=list)  # (name, t_ms) as handed to each board, copies included
    lost: list = field(default_factory=list)  # names of boards that were off/asleep/restarted when it arrived
    copies: int = 1  # 2 when duplicated

    @property
    def src_text(self):
        return mac_text(self.src)

    @property
    def dst_text(self):
        return mac_text(self.dst)

    def to_dict(self):
        """JSON-able (for the simulator page)."""
        return {
            "n": self.n,
            "t_ms": self.t_ms,
            "src": self.src_text,
            "dst": self.dst_text,
            "data": self.data.hex(),
            "len": len(self.data),
            "channel": self.channel,
            "kind": self.kind,
            "sender": self.sender,
            "dropped": self.dropped,
            "acked": self.acked,
            "heard_by": list(self.heard_by),
            "deliveries": [list(d) for d in self.deliveries],
            "lost": list(self.lost),
            "copies": self.copies,
        }


class RadioHub:
    """Connects virtual boards' ESP-NOW radios.

    seed: the random generator's seed (drops, duplicates, jitter are repeatable).
    delay_ms: time on the air (ESP-NOW: about 1 ms for a short frame).
    jitter_ms: an extra uniform 0..jitter_ms per copy (frames may overtake each other).
    drop: probability 0..1 that a frame is lost; or a pattern (a string like
        "..x" or a sequence of bools, one per frame sent, then no more losses);
        or a function f(frame) -> bool.
    duplicate: probability that a receiver gets a second copy (dup_gap_ms later).
    ack_loss: probability that a heard frame's ack is lost (send() says False).
    rssi: what receivers see (dBm).
    slice_ms: how far advance() lets the boards run at once while one of them
        waits on a network socket (otherwise they step from event to event).
    """

    def __init__(
        self,
        seed=0,
        delay_ms=1.0,
        jitter_ms=0.0,
        drop=0.0,
        duplicate=0.0,
        ack_loss=0.0,
        rssi=-45,
        slice_ms=5.0,
        dup_gap_ms=1.0,
    ):
        self.random = random.Random(seed)
        self.delay_ms = delay_ms
        self.jitter_ms = jitter_ms
        self.duplicate = duplicate
        self.ack_loss = ack_loss
        self.rssi = rssi
        self.slice_ms = slice_ms
        self.dup_gap_ms = dup_gap_ms
        self.frames = []
        self.on_frame = None  # called with each RadioFrame (after the hub decided its fate)
        self._boards = []  # VirtualBoards, in the order added
        self._lock = threading.RLock()
        self._drop_p = 0.0
        self._drop_fn = None
        self._drop_seq = None
        self._drop_rules = []  # [count, src, dst] from drop_next()
        self.drop = drop

    # ---- boards

    def add(self, board, name=None):
        """Put a board on the hub (VirtualBoard(..., radio=hub) does this)."""
        with self._lock:
            if board in self._boards:
                return board
            if name is not None:
                board.name = name
            if not board.name:
                board.name = "board%d" % (len(self._boards) + 1)
            for b in self._boards:
                if b.name == board.name:
                    raise ValueError("a board named %r is already on the hub" % board.name)
                if b.mac == board.mac:
                    raise ValueError("boards %r and %r have the same MAC %s" % (b.name, board.name, mac_text(b.mac)))
            self._boards.append(board)
            board.hub = self
        return board

    def remove(self, board):
        with self._lock:
            if board in self._boards:
                self._boards.remove(board)
                board.hub = None

    @property
    def boards(self):
        return list(self._boards)

    def board(self, name_or_mac):
        """The board with this name, or whose STA or AP MAC this is."""
        for b in self._boards:
            if b.name == name_or_mac:
                return b
        try:
            mac = mac_bytes(name_or_mac)
        except (ValueError, TypeError):
            mac = None
        for b in self._boards:
            if mac is not None and mac in (b.mac, b.ap_mac):
                return b
        raise KeyError("no board %r on the hub (boards: %s)" % (name_or_mac, ", ".join(b.name for b in self._boards)))

    # ---- faults

    @property
    def drop(self):
        return self._drop_fn or self._drop_seq or self._drop_p

    @drop.setter
    def drop(self, spec):
        self._drop_p, self._drop_fn, self._drop_seq = 0.0, None, None
        if callable(spec):
            self._drop_fn = spec
        elif isinstance(spec, (int, float)):
            if not 0 <= spec <= 1:
                raise ValueError("drop: a probability 0..1")
            self._drop_p = float(spec)
        elif isinstance(spec, str):
            self._drop_seq = deque(c in "xX1!" for c in spec)
        elif spec is not None:
            self._drop_seq = deque(bool(x) for x in spec)

    def drop_next(self, n=1, src=None, dst=None):
        """Lose the next n frames (from src / to dst, MACs or boards, if given)."""
        with self._lock:
            self._drop_rules.append([n, self._mac_of(src), self._mac_of(dst)])

    def _mac_of(self, who):
        if who is None:
            return None
        if hasattr(who, "mac"):
            return who.mac
        try:
            return self.board(who).mac
        except KeyError:
            return mac_bytes(who)

    def _lost_on_air(self, frame):
        for rule in self._drop_rules:
            if (rule[1] is None or rule[1] == frame.src) and (rule[2] is None or rule[2] == frame.dst):
                rule[0] -= 1
                if rule[0] <= 0:
                    self._drop_rules.remove(rule)
                return True
        if self._drop_fn is not None:
            return bool(self._drop_fn(frame))
        if self._drop_seq:
            return self._drop_seq.popleft()
        return self._drop_p > 0 and self.random.random() < self._drop_p

    # ---- frames

    def transmit(self, sender, t_us, src, dst, lmk, data):
        """A board sent a frame (the board's side of the hub: called from the
        sender's pump, holding its lock, for the firmware's espnow.send()).
        Returns the radio's ack."""
        r = sender.radio_state or {}
        with self._lock:
            frame = RadioFrame(len(self.frames), t_us / 1000, src, dst, data, r.get("channel", 1), "sent", sender.name)
            self.frames.append(frame)
            hearers = [b for b in self._boards if b is not sender and b.hears(dst, frame.channel)]
            broadcast = bool(dst[0] & 1)
            if self._lost_on_air(frame):
                frame.dropped = True
                frame.acked = broadcast
            else:
                for b in hearers:
                    self._schedule(frame, b, t_us, lmk)
                ack_lost = bool(self.ack_loss) and self.random.random() < self.ack_loss
                frame.acked = broadcast or (bool(hearers) and not ack_lost)
        self._announce(frame)
        return frame.acked

    def _schedule(self, frame, board, t_us, lmk):
        frame.heard_by.append(board.name)
        copies = 1
        if self.duplicate and self.random.random() < self.duplicate:
            copies = 2
            frame.copies = 2
        for k in range(copies):
            delay = self.delay_ms + (self.random.uniform(0, self.jitter_ms) if self.jitter_ms else 0.0)
            at = t_us + round((delay + k * self.dup_gap_ms) * 1000)
            board.receive_frame(at, frame.src, frame.dst, self.rssi, lmk, frame.data, frame)

    def _announce(self, frame):
        if self.on_frame is not None:
            self.on_frame(frame)

    def inject(self, to, from_mac, data, at=None, dst=None, lmk=None):
        """A forged frame: `to` (a board, its name or MAC) receives `data` as if
        `from_mac` had sent it, at virtual second `at` of its clock (default:
        at once, when the host next talks to it). dst: the address in the
        frame (default: the board's STA MAC). lmk: the 16-byte key if it
        pretends to be encrypted. Returns the RadioFrame."""
        board = to if hasattr(to, "receive_frame") else self.board(to)
        src = mac_bytes(from_mac)
        data = bytes(data)
        t_us = board.now_us if at is None else round(at * 1_000_000)
        r = board.radio_state or {}
        with self._lock:
            frame = RadioFrame(
                len(self.frames),
                t_us / 1000,
                src,
                mac_bytes(dst) if dst else board.mac,
                data,
                r.get("channel", 1),
                "injected",
            )
            self.frames.append(frame)
            frame.heard_by.append(board.name)
            board.receive_frame(t_us, src, frame.dst, self.rssi, bytes(lmk).hex() if lmk else None, data, frame)
        self._announce(frame)
        return frame

    def replay(self, frame, to=None, at=None):
        """Send a recorded frame again, from its original sender's address, to
        its original destination (or `to`). Returns the new RadioFrame."""
        if isinstance(frame, int):
            frame = self.frames[frame]
        if to is None:
            to = mac_text(frame.dst)
        board = to if hasattr(to, "receive_frame") else self.board(to)
        new = self.inject(board, frame.src, frame.data, at=at, dst=frame.dst)
        new.kind = "replayed"
        return new

    def frames_from(self, who):
        mac = self._mac_of(who)
        return [f for f in self.frames if f.src == mac]

    def frames_to(self, who):
        mac = self._mac_of(who)
        return [f for f in self.frames if f.dst == mac]

    def clear(self):
        """Forget the recorded frames (numbering starts again)."""
        with self._lock:
            self.frames = []

    # ---- time

    @property
    def now(self):
        """The latest clock among the boards (virtual seconds)."""
        return max((b.now_us for b in self._boards), default=0) / 1e6

    def _align(self):
        t = max((b.now_us for b in self._boards), default=0)
        for b in self._boards:
            if b.now_us < t:
                b.advance_to(t)
        return t

    def advance(self, seconds):
        """Let `seconds` of virtual time pass on every board.

        The boards run in turn to the same instant, step by step: the next
        instant any of them runs by itself (a sleep's end, a timer, a timed
        wake-up: each board says when, board.next_event_us(), see _vb_core) or
        a frame arrives, so a frame sent at t reaches its receiver at exactly
        t + delay. A board waiting on a network socket (whose answer may come
        at any time) makes the steps slice_ms long."""
        if seconds < 0:
            raise ValueError("cannot go back in time")
        t = self._align()
        goal = t + round(seconds * 1_000_000)
        slice_us = max(1, round(self.slice_ms * 1000))
        while t < goal:
            t = max(min(goal, self._next_event(t, slice_us)), t + 1)
            for b in self._boards:
                b.advance_to(t)

    def _next_event(self, t, slice_us):
        nxt = None
        for b in self._boards:
            cand = b.next_event_us(t, slice_us)
            if cand is not None and (nxt is None or cand < nxt):
                nxt = cand
        return float("inf") if nxt is None else nxt

    def advance_until(self, predicate, limit=10.0, step=0.01):
        """Advance in steps of `step` s until predicate(hub); returns the virtual seconds it took."""
        return advance_until(self, predicate, limit, step)

    def run_realtime(self, tick=0.01, max_step=0.25):
        """Every board follows real time (each in its own thread, see
        VirtualBoard.run_realtime); frames reach a board at its next tick."""
        self._align()
        for b in self._boards:
            b.run_realtime(tick=tick, max_step=max_step)

    def stop_realtime(self):
        errors = []
        for b in self._boards:
            try:
                b.stop_realtime()
            except Exception as e:  # report the first after stopping all
                errors.append(e)
        if errors:
            raise errors[0]

    def wait_for(self, predicate, timeout=10.0, interval=0.005):
        """Wait in real time (run_realtime) until predicate(hub)."""
        deadline = time.monotonic() + timeout
        while not predicate(self):
            for b in self._boards:
                if b.runner_error is not None:
                    raise b.runner_error
            if time.monotonic() > deadline:
                raise BoardTimeout("condition not met within %.1f real s" % timeout)
            time.sleep(interval)
