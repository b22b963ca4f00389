"""The referee remote's app: a button press, a command over ESP-NOW, deep sleep.

Touches `machine`, `network`, `espnow` and `esp32`. A press wakes the box from
deep sleep (EXT1, any button high: the remote's buttons are active high); the
button that woke it is read from the EXT1 status register, because a quick
tap is over before MicroPython runs. The command goes to the paired wall
board, again every 50 ms until acknowledged (10 tries); the acknowledgement's
summary (scores, whose turn) shows on the box's display and LEDs; after
AWAKE_MS without a press the radio goes off and the display stays lit SHOW_MS
more in light sleep (a press wakes it: the box then goes to deep sleep at once,
and the press, still down, wakes it again to be sent), then the box sleeps.

The display: the scores AA:BB; in a format match's phases (formats.summary)
the sets won ` 2-1` when a set is over, the round's runs AA:BB in the
shoot-out, `UP A` / `UP b` during a player's warm-up.

Sequence numbers never repeat: the boot counter (flash, remote.boot) moves
on at every start that is not a wake from deep sleep, and the counter lives
in RTC memory, which deep sleep keeps. A boot counter that could not be saved
sends nothing (E 42; the next press tries again); one at its limit, 2**30-1,
sends nothing either (E 43, awake for the serial port) until `carom pair`
restarts it. A wall that lost its record challenges a command: remote.Link
sends it again with the challenge's nonce, in the same awake time.
"""

import time

import machine

import cold
import remote
from buttons import LONG, NO_ACTION, SHORT
from errorcodes import ERROR_BOOT_COUNTER, ERROR_BOOT_LIMIT, ERROR_NO_ACK, ERROR_NOT_PAIRED
from matchnames import SET_OVER, WARMUP

BOOT_FILE = "remote.boot"
AWAKE_MS = 300  # after the last press or acknowledgement: the radio is the battery's main cost
SHOW_MS = 3000  # then the display stays lit, the radio off and the chip in light sleep
POLL_MS = 5
RADIO_BATCH = 4  # frames read per step


# ESP32: RTC_CNTL_EXT_WAKEUP1_STATUS_REG, bit n = RTC GPIO n; and RTC GPIO n -> GPIO.
_EXT1_STATUS = 0x3FF480D0
_RTC_GPIO = (36, 37, 38, 39, 34, 35, 25, 26, 33, 32, 4, 0, 2, 15, 13, 12, 14, 27)


def woken_by():
    """GPIO numbers whose level woke the chip (EXT1), or ()."""
    if machine.reset_cause() != machine.DEEPSLEEP_RESET:
        return ()
    try:
        mask = machine.mem32[_EXT1_STATUS] & 0x3FFFF
    except (AttributeError, OSError):
        return ()
    return tuple(_RTC_GPIO[n] for n in range(18) if mask >> n & 1)


def boot_counter():
    """(boot, counter, error): kept through deep sleep; after any other start the boot
    counter moves on (new_boot) and the counter starts at 0."""
    kept = remote.read_rtc(machine.RTC().memory())
    if kept is not None and machine.reset_cause() == machine.DEEPSLEEP_RESET:
        return kept[0], kept[1], 0
    boot, error = new_boot()
    return boot, 0, error


def new_boot():
    """(boot, error): the boot counter moved on, saved (remote.boot, temporary file and
    rename) and put in RTC memory with counter 0; or error ERROR_BOOT_LIMIT, or
    ERROR_BOOT_COUNTER when it could not be saved (RTC memory then keeps what it had)."""
    try:
        with open(BOOT_FILE) as f:
            text = f.read()
    except OSError:
        text = ""
    boot = remote.next_boot(text)
    if boot is None:
        return 0, ERROR_BOOT_LIMIT
    try:
        with cold.Rare():
            import store

            store.replace(BOOT_FILE, b"%d" % boot)
    except OSError:
        return 0, ERROR_BOOT_COUNTER
    machine.RTC().memory(remote.rtc_record(boot, 0))
    return boot, 0


class Remote:
    def __init__(self, board, config, make_pin, chips):
        import buttons_setup
        import controller

        self.board = board
        self.chips = chips
        self.leds = {}
        for name, spec in (board.get("leds") or {}).items():
            self.leds[name] = machine.Pin(spec["pin"], machine.Pin.OUT)
        self.group = buttons_setup.from_board(board, make_pin)
        self.actions = controller.ACTIONS
        self.kinds = controller.FOUL_KINDS
        radio_cfg = config["radio"]
        self.paired = bool(radio_cfg["peer"] and radio_cfg["key"])
        self.error = 0
        self.link = None
        if self.paired:
            import espnow
            import network

            self.sta = network.WLAN(network.STA_IF)
            self.sta.active(True)
            if radio_cfg["channel"]:  # ESP-NOW hears only its own channel: the wall's Wi-Fi channel
                self.sta.config(channel=radio_cfg["channel"])
            own = self.sta.config("mac")
            self.peer = remote.mac_bytes(radio_cfg["peer"])
            self.espnow = espnow.ESPNow()
            self.espnow.active(True)
            self.espnow.add_peer(self.peer)
            boot, counter, self.error = boot_counter()
            if not self.error:
                key = remote.hex_key(radio_cfg["key"])
                self.link = remote.Link(remote.Sender(key, self.peer, own, boot, counter))
        else:
            self.error = ERROR_NOT_PAIRED

    def show(self):
        chip = self.chips[0] if self.chips else None
        s = self.link.summary if self.link else None
        if chip is not None:
            if self.error:
                chip.set_code(self.error)
                chip.set_colon(False)
            elif self.link is not None and self.link.busy():
                chip.set_window(b"----", 0)
                chip.set_colon(False)
            elif s is not None and s[3] == SET_OVER:
                chip.set_window(b" %d-%d" % (s[0] % 10, s[1] % 10), 0)
                chip.set_colon(False)
            elif s is not None and s[3] == WARMUP:
                chip.set_window(b"UP b" if s[2] else b"UP A", 0)
                chip.set_colon(False)
            elif s is not None:
                chip.set_number_at((s[0] % 100) * 100 + s[1] % 100, 3, 4, 0, 4)
                chip.set_colon(True)
            else:
                chip.set_window(b"    ", 0)
            try:
                chip.show()
            except OSError:
                pass
        for name, pin in self.leds.items():
            on = s is not None and ((name == "A.turn" and s[2] == 0) or (name == "B.turn" and s[2] == 1))
            pin.value(1 if on else 0)

    def send(self, action, now):
        if self.link is None:
            return
        sender = self.link.sender
        if sender.exhausted():  # 2**30 commands since the last power-on: as if it were a new one
            boot, error = new_boot()
            if error:
                self.error = error
                self.link = None
                self.show()
                return
            sender.boot = boot
            sender.counter = 0
        # A foul from the box's own foul button has no kind: "other" (the foul.* buttons name theirs).
        arg = self.kinds[0] if self.actions[action] == "foul" else 0
        frame = self.link.start(action, arg, now)
        machine.RTC().memory(remote.rtc_record(sender.boot, sender.counter))
        self.espnow.send(self.peer, frame, False)
        self.error = 0
        self.show()

    def step(self, now):
        """Poll the buttons and the radio once; True while something happens."""
        self.group.poll(now)
        busy = False
        while self.group.pending():
            e = self.group.get()
            i, event = e >> 8, e & 0xFF
            code = self.group.short[i] if event == SHORT else self.group.long[i] if event == LONG else NO_ACTION
            if code != NO_ACTION:
                self.send(code, now)
                busy = True
        if self.link is not None:
            for _ in range(RADIO_BATCH):  # a flood of frames cannot hold the loop
                if not self.espnow.any():
                    break
                mac, msg = self.espnow.irecv(0)
                if msg and self.link.received(msg) is not None:
                    self.show()
            frame = self.link.due(now)
            if frame is not None:
                self.espnow.send(self.peer, frame, False)
            if self.link.failed:
                self.link.failed = False
                self.error = ERROR_NO_ACK
                self.show()
            busy = busy or self.link.busy()
        return busy

    def press_woken(self, pins, now):
        """The button that woke the box: its press, even if it is already released."""
        for spec in self.board["buttons"]:
            if spec["pin"] in pins and spec["action"] is not None:
                self.send(self.actions.index(spec["action"]), now)
                return

    def any_down(self):
        """A button is held: no sleeping (a held button would wake the box at once, again and again)."""
        for b in self.group.buttons:
            if b.pin() ^ (1 if b.active_low else 0):
                return True
        return False

    def serve(self):
        """The remote's loop: answer the press that woke it, then stay awake AWAKE_MS after the
        last one, then sleep (deep sleep ends the run: a press starts the box anew)."""
        now = time.ticks_ms()
        self.group.poll(now)  # a button already down is not a new press (buttons.py)
        self.press_woken(woken_by(), now)
        self.show()
        last = now
        while True:
            now = time.ticks_ms()
            if self.step(now):
                last = now
            if not self.paired or self.error == ERROR_BOOT_LIMIT:  # stay awake for the serial port (carom pair)
                time.sleep_ms(POLL_MS)
                continue
            if self.any_down():
                last = now
            elif time.ticks_diff(now, last) > AWAKE_MS:
                self.sleep()
            time.sleep_ms(POLL_MS)

    def sleep(self):
        """The radio off, the display lit SHOW_MS more in light sleep (a press ends it),
        then the display off and deep sleep; a button still down wakes the box at once."""
        import esp32

        pins = [machine.Pin(spec["pin"], machine.Pin.IN) for spec in self.board["buttons"]]
        esp32.wake_on_ext1(pins=pins, level=esp32.WAKEUP_ANY_HIGH)
        if self.link is not None:
            self.espnow.active(False)
            self.sta.active(False)
        if self.chips and SHOW_MS:
            machine.lightsleep(SHOW_MS)
        for chip in self.chips:  # a lit display would draw more than the sleeping ESP32
            try:
                chip.standby()
            except OSError:
                pass
        machine.deepsleep()
