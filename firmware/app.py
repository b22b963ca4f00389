"""The wall board running: its tasks (startup.py builds it, then leaves RAM).

With main.py, startup.py and its cold half app_cold.py, the only module that touches
`machine`. Six tasks always, eight with a remote and the hall:

- buttons: polls every button every POLL_MS, hands events to the controller;
- clock: lets the match clocks run, and makes room in the match log ahead of need;
- display: redraws the clocks and marquees, shows the error codes, retries dead chips
  and builds a bus anew whose chips all stay dead;
- save: the flash right after the display (journal, then a finished match's report,
  written in steps), in its own task so that it never holds up the next poll;
- buzzer: sound.Buzzer.run plays the cues;
- with a speaker and a voice pack, voice: speech.Voice.run speaks the referee's calls;
- watchdog: feeds machine.WDT only while the buttons, clock and display tasks beat;
- with a remote paired, radio: the remote's commands (radio.Receiver checks them; the
  newest one's number on the flash, radio.last, before it is acted on);
- with Wi-Fi and MQTT, wifi: keeps the station on the network; publisher.py (mqtt.py)
  is loaded the first time it is on it.

Running out of memory never costs the match: an event with no room is refused
(E 24 blinks), a report or a publish that fails for memory is tried again later.

A press or a remote's command that is refused, and a press locked out (the
buttons' lock-out after the turn passed), say so on the console, one line each:

    carom: refused <action>: <reason>

<action> is its name in controller.ACTIONS (A.point, next_set...); <reason> is
the rules' reason number (controller.last_reason; reasons.py has the words, which
the simulator's page shows) or the words "locked out". app_refusals.py writes them,
loaded for it and dropped: a refusal allocates (about 1 KB, for a moment), an
accepted press nothing.
"""

import asyncio
import sys
import time

import machine

import cold
import rules
from errorcodes import (
    CLOCK_MS,
    DISPLAY_MS,
    ERROR_MEMORY,
    ERROR_RADIO_FLOOD,
    ERROR_STORE,
    ERROR_VOICE,
    FEED_MS,
    HEALTHY_MS,
    POLL_MS,
    RADIO_BATCH,
    RADIO_SENDERS,
    SAVE_MS,
    STORE_ERROR_MS,
)

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


RADIO_FILE = "radio.last"  # the newest accepted remote command's (boot, counter)

_RTC_MAGIC = b"CR"


# ---- RTC memory (kept through soft and watchdog resets, lost at power-off) ------------
# b"CR", crash count, crashed flag (our exception handler), watchdog armed flag (boot.py).


def rtc_state():
    mem = machine.RTC().memory()
    if len(mem) >= 5 and mem[:2] == _RTC_MAGIC:
        return mem[2], mem[3], mem[4]
    return 0, 0, 0


def rtc_write(count, crashed, armed):
    machine.RTC().memory(_RTC_MAGIC + bytes((min(count, 255), crashed, armed)))


def wall_clock(offset_s):
    """Seconds since 1970 plus offset_s, or None while the board's clock is not set. The ESP32
    port's time.time() counts from 2000 (time.gmtime(0) says from when), the unix port's from 1970."""
    t = time.time()
    if time.gmtime(0)[0] == 2000:
        t += 946684800  # 2000-01-01 in seconds since 1970
    return t + offset_s if t > 1600000000 else None


class Board:
    """The running wall board: the tasks above, and what they share. startup.build() makes
    what it is given (the hardware, the saved match, the radio and MQTT set-up are there, and
    leave RAM with it); every field is set here.

    Its job is the tasks and what they share, the remote's link too (radio_task; the
    protocol is radio.py's). The journal (store.py), the hall's publishing (publisher.py) and
    the error codes' drawing (view.py) live in their modules; what the tasks do only now
    and then is in cold modules: app_cold.py (the tasks' start, a stuck bus built anew),
    report.py (a finished match's report), publisher.py (loaded once on the network),
    boot_watchdog.py. No more classes than that: every class
    and object stays in RAM for as long as the board runs (tests/host/test_heap32.py)."""

    def __init__(
        self,
        name,
        table,
        match,
        store,
        started_at,
        view,
        ctrl,
        group,
        buzzer,
        buses,
        chips,
        i2c_specs,
        chip_bus,
        error_until,
        radio,
        espnow,
        hall,
        wifi,
        topic,
    ):
        self.name = name  # the board definition's name
        self.table = table  # the configuration's name for the table
        self.match = match  # the rules.Match played
        self.store = store  # its store.MatchStore
        self.started_at = started_at  # the match's start, epoch seconds (None: the clock not set)
        self.view = view  # the view.View of the displays
        self.ctrl = ctrl  # the controller.Controller the presses go to
        self.group = group  # the buttons.ButtonGroup
        self.buzzer = buzzer  # sound.Buzzer, or None
        self.buses = buses  # the I2C buses, and the arguments to build them anew: (bus, scl, sda, freq) each
        self.chips = chips  # a driver per display chip (None: left out)
        self.i2c_specs = i2c_specs
        self.chip_bus = chip_bus  # each chip's bus, a byte each
        self.error_until = error_until  # when a passing error code (E 23, E 44) goes
        self.radio = radio  # the paired remote's radio.Receiver, or None
        self.espnow = espnow  # and its ESPNow object
        self.hall = hall  # MQTT's (client id, host, port, user, password, keepalive s) when the board publishes
        self.wifi = wifi  # (ssid, password), with hall
        self.topic = topic  # "<prefix>/<table>/", with hall
        self.mqtt = None  # the publisher (publisher.py), once the board is on the network
        self.beats = bytearray(3)  # heartbeats of the buttons, clock and display tasks
        self.wdt = None
        self.short_until = None  # E 24 shows until then: something failed for want of memory
        self._oom = 0  # the match's out_of_memory count last seen
        self.saved_matches = ctrl.matches
        self.voice_setup = None  # what makes the voice (app_cold.voice_wake): at the start (speaker, voice
        # config, None), while it rests (its own setup, None, its clips' states)
        # A finished match whose report is not on the flash (a power cut came between the
        # winning point and the report): the save task writes it now.
        self.reported = match.phase != rules.FINISHED or store.held or store.has_report()

    # ---- never lose a match -------------------------------------------------------
    #
    # The display is written first (the buttons task), the flash right after by the
    # save task: a power cut can lose at most the last press, which the board then
    # visibly lacks.

    def changed(self):
        m = self.match
        s = self.store
        return (
            self.ctrl.matches != self.saved_matches
            or s.count != m.n
            or m.low < s.count
            or m.closed != s.closed
            or (not s.gen and not s.held)
        )

    def persist(self):
        """Save what changed since the last call; a new match is begun first."""
        m = self.match
        s = self.store
        if self.ctrl.matches != self.saved_matches or (not s.gen and not s.held):
            if self.ctrl.matches != self.saved_matches:
                self.started_at = wall_clock(0)
            self.saved_matches = self.ctrl.matches
            if s.begin(m):
                return
        s.sync(m)
        if m.phase == rules.FINISHED:
            if self.reported and not s.has_report():
                self.reported = False  # finished now (again, after an undo or an extension)
        else:
            self.reported = True

    async def save_task(self):
        while True:
            if self.changed():
                try:
                    self.persist()
                except MemoryError:  # tried again (a new match's begin loads store_snapshot.py)
                    self.short_of_memory()
                    await asyncio.sleep_ms(1000)
            if not self.reported and not self.store.held:
                # report.save writes it to the flash in steps; report.py leaves RAM after.
                try:
                    await self.save_report()
                except MemoryError:
                    self.short_of_memory()
                    await asyncio.sleep_ms(1000)
            await asyncio.sleep_ms(SAVE_MS)

    # ---- the hall: Wi-Fi (publisher.py publishes once the board is on it) ----------------

    async def wifi_task(self):
        """Keep the station on the hall's Wi-Fi. What publishes (publisher.py, mqtt.py) is
        loaded and started the first time the board is on the network: a board that is not
        costs no RAM for it."""
        import network

        sta = network.WLAN(network.STA_IF)
        sta.active(True)
        while True:
            if not sta.isconnected():
                try:
                    sta.connect(self.wifi[0], self.wifi[1])
                except OSError as e:
                    print("wifi:", e)
                for _ in range(100):  # up to 10 s, without blocking the loop
                    if sta.isconnected():
                        break
                    await asyncio.sleep_ms(100)
            try:
                if self.mqtt is None and sta.isconnected():
                    import publisher

                    self.mqtt = publisher.Publisher(self)
                if self.mqtt is not None:
                    self.mqtt.resend()  # reports the broker may not have (once)
            except MemoryError:
                self.short_of_memory()
            await asyncio.sleep_ms(2000)

    # ---- the tasks on the button path --------------------------------------------------

    async def buttons_task(self):
        group = self.group
        ctrl = self.ctrl
        ticks_ms = time.ticks_ms
        beats = self.beats
        while True:
            now = ticks_ms()
            group.poll(now)
            while group.pending():
                e = group.get()
                if ctrl.press(e >> 8, e & 0xFF, now) is not None:
                    refused(self, e)
            if group.locked:  # presses the lock-out ignored
                refused(self, 0)
            beats[0] = (beats[0] + 1) & 0xFF
            await asyncio.sleep_ms(POLL_MS)

    async def clock_task(self):
        ctrl = self.ctrl
        beats = self.beats
        match = self.match
        while True:
            ctrl.tick(time.ticks_ms())
            if not match.reserve() or match.out_of_memory != self._oom:  # the log's next chunk, ahead of need
                self._oom = match.out_of_memory
                self.short_of_memory()
            beats[1] = (beats[1] + 1) & 0xFF
            await asyncio.sleep_ms(CLOCK_MS)

    async def display_task(self):
        v = self.view
        beats = self.beats
        failures = 0
        while True:
            now = time.ticks_ms()
            self.update_error(now)
            v.render(now)
            # A bus whose chips all stop answering is built anew (a stuck SDA line).
            failures = failures + 1 if v.first_failed() >= 0 else 0
            if failures == 50:
                failures = 0
                try:
                    self.reinit_buses()  # rare: app_cold.py loaded for it, dropped
                except MemoryError:  # tried again after 50 more
                    self.short_of_memory()
            beats[2] = (beats[2] + 1) & 0xFF
            await asyncio.sleep_ms(DISPLAY_MS)

    def short_of_memory(self):
        """Something was refused or not written for want of memory: E 24 for _STORE_ERROR_MS."""
        self.short_until = time.ticks_add(time.ticks_ms(), STORE_ERROR_MS)

    def update_error(self, now):
        v = self.view
        if self.error_until is not None and time.ticks_diff(now, self.error_until) >= 0:
            self.error_until = None
            if v.error == ERROR_STORE or v.error == ERROR_RADIO_FLOOD or v.error == ERROR_VOICE:
                v.error = 0
        if self.short_until is not None and time.ticks_diff(now, self.short_until) >= 0:
            self.short_until = None
        short = self.store.held or self.short_until is not None
        if short and not v.error:
            v.error = ERROR_MEMORY
        elif not short and v.error == ERROR_MEMORY:
            v.error = 0

    async def watchdog_task(self):
        seen = bytearray(3)
        start = time.ticks_ms()
        healthy = False
        while True:
            await asyncio.sleep_ms(FEED_MS)
            alive = True
            for i in range(3):
                if self.beats[i] == seen[i]:
                    alive = False
                seen[i] = self.beats[i]
            if alive:
                self.wdt.feed()
                if not healthy and time.ticks_diff(time.ticks_ms(), start) > HEALTHY_MS:
                    healthy = True
                    count, crashed, armed = rtc_state()
                    rtc_write(0, crashed, armed)
            else:
                print("watchdog: a task stopped; not feeding")

    # ---- the paired remote (ESP-NOW): radio.Receiver checks its commands -------------------

    async def radio_task(self):
        """Commands from the paired remote: acted on once, acknowledged every time. At most
        _RADIO_BATCH frames a step: a flood of frames cannot starve the other tasks.

        ESP-NOW's irecv() keeps the address of every sender in ESPNow.peers_table (a dict):
        forged addresses would fill the heap. Past _RADIO_SENDERS addresses every one but
        the paired remote's is forgotten (app_cold.flooded), and E 44 shows for a while: a
        stranger never locks the paired remote out."""
        e = self.espnow
        table = getattr(e, "peers_table", None)  # None: a build without RSSI keeps no table
        while True:
            k = 0
            while k < RADIO_BATCH and e.any():
                if table is not None and len(table) > RADIO_SENDERS:
                    try:
                        self.flooded(table)
                    except MemoryError:
                        table.clear()  # (the paired remote's address comes back with its next frame)
                k += 1
                try:
                    mac, msg = e.irecv(0)
                    if msg is None:
                        break
                    self.radio_frame(msg)
                except MemoryError:  # the frame is lost; the remote sends it again
                    self.short_of_memory()
            await asyncio.sleep_ms(0 if k == RADIO_BATCH else POLL_MS)

    def radio_frame(self, msg):
        """One frame from the radio: checked (radio.Receiver), a new command recorded
        (radio.last: write_last) and acted on through the controller, acknowledged."""
        rx = self.radio
        got = rx.receive(msg)
        if got is None:
            reply = rx.reply()  # a challenge, when the wall lost its last sequence number
            if reply is not None:
                self.radio_send(reply)
            return
        command, arg, seq, new = got
        if new:
            # The sequence number first: a power cut then loses at most this command
            # (its acknowledgement never went out), never counts it twice. Not recorded,
            # not acted on: the remote sends it again.
            if not write_last(seq):
                return
            rx.accept(seq)
            m = self.match
            ctrl = self.ctrl
            n, edits, matches = m.n, m.edits, ctrl.matches
            try:
                if ctrl.remote(command, arg, time.ticks_ms()) is not None:
                    refused(self, -1 - command)
            except MemoryError:  # radio_task shows E 24
                if m.n == n and m.edits == edits and ctrl.matches == matches:
                    rx.revert()  # not acted on: not recorded either
                    forget_last()
                raise
        self.radio_send(rx.ack(seq, command, arg, self.ctrl.summary()))

    def radio_send(self, frame):
        try:
            self.espnow.send(self.radio.peer, frame, False)
        except OSError:
            pass  # the remote sends again; it gets the next acknowledgement

    def serve(self):
        """Run the tasks until Ctrl-C (the REPL); the watchdog is then fed by a timer."""
        try:
            with cold.Rare():
                import app_cold

                tasks = app_cold.start(self)  # the tasks made (app_cold.py)
                del app_cold  # out of RAM while they run
            asyncio.run(tasks)
        except KeyboardInterrupt:
            with cold.Rare():
                import app_cold

                app_cold.stopped(self)  # the watchdog fed by a timer from now on
        finally:
            asyncio.new_event_loop()

    # The rare paths of the tasks, each in a frame of its own: app_cold.py, report.py and what
    # they load leave RAM when it returns, however it returns.
    async def save_report(self):
        with cold.Rare():
            import report

            await asyncio.sleep(0)  # (loading it takes a while: the others run)
            await report.save(self)

    def reinit_buses(self):
        with cold.Rare():
            import app_cold

            app_cold.reinit_buses(self)

    def flooded(self, table):
        with cold.Rare():
            import app_cold

            app_cold.flooded(self, table)


def refused(board, e):
    """The console's line for a refused button event e, a remote's command (-1 - command), or
    (e == 0) the presses the lock-out ignored: app_refusals.py. Short of memory for it, none."""
    try:
        with cold.Rare():
            import app_refusals

            app_refusals.say(board, e)
    except MemoryError:
        pass


def write_last(seq):
    """Record the newest remote command before it is acted on, so that a frame replayed after
    a restart is refused (written atomically). True when the flash holds `seq`, or no number
    at all (a failed write removes the old one: after a restart the wall challenges the
    remote, radio.py); False when neither could be done: the command must not be acted on."""
    import store

    try:
        store.replace(RADIO_FILE, b"%d %d" % seq)
        return True
    except OSError:
        return forget_last()


def forget_last():
    """Remove the record (after a restart the wall challenges the remote); True when it is gone."""
    import os

    try:
        os.remove(RADIO_FILE)
    except (OSError, MemoryError):
        pass  # not there, or still there: os.stat says which
    try:
        os.stat(RADIO_FILE)
    except OSError:
        return True
    return False


def _exception_handler(loop, context):
    print("carom: task failed:", context.get("message"))
    exc = context.get("exception")
    if exc is not None:
        sys.print_exception(exc)
    count, crashed, armed = rtc_state()
    rtc_write(count, 1, armed)
    machine.reset()
