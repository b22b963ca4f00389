"""The view while nobody presses: a chip unplugged is noticed (probes), names run by once.

On CPython and MicroPython; the boards are boards/*.json, the chips ht16k33_text's on fakes.
"""

import rules
import view
import view_setup
from fwtest import SkipTest
from test_view import build, chip_for, looks, quiet
from ht16k33_text import Seg14x4

TICK = 100  # the app's display task renders this often (app._DISPLAY_MS)


def where(board, chips, field):
    """(bus, address) of the chip showing `field`."""
    chip = chip_for(board, chips, field)
    k = chips.index(chip)
    return board["displays"][k].get("bus", 0), chip.addr


def quiet_wall(**options):
    """The wall board at the start of a match that nothing changes (no shot clock, no stroke),
    rendered at 0 and its buses emptied."""
    board, buses, chips, leds, m, v = build("wall", breaker=rules.A, target=40, **options)
    v.render(0)
    for bus in buses.values():
        bus.take()
    return board, buses, chips, leds, m, v


# ---- a chip unplugged, nothing pressed ------------------------------------------------------


def test_an_unplugged_chip_shows_its_code_within_the_retry_period_without_a_press():
    board, buses, chips, leds, m, v = quiet_wall()
    msg = chip_for(board, chips, "message")
    bus, addr = where(board, chips, "A.high_run")
    now = 0
    while now < 5000:  # quiet for a while: every chip has been probed since its last write
        now += TICK
        v.render(now)
    assert looks(msg, "    ") and v.first_failed() == -1
    unplugged = now
    buses[bus].dead.add(addr)
    while not looks_code(msg, addr, bus) and now < unplugged + 10000:
        now += TICK
        v.render(now)
    assert looks_code(msg, addr, bus), "no error code 10 s after the chip was unplugged"
    assert now - unplugged <= view.RETRY_MS, now - unplugged
    assert v.failed[chips.index(chip_for(board, chips, "A.high_run"))] == 1
    # plugged back: it comes back by itself (the full init), the code goes, without a press
    buses[bus].dead.clear()
    back = now
    while v.first_failed() >= 0 and now < back + 10000:
        now += TICK
        v.render(now)
    assert v.first_failed() == -1 and now - back <= view.RETRY_MS + TICK, now - back
    writes = [data for a, data in buses[bus].take() if a == addr]
    assert len(writes[-4][0:1]) == 1 and len(writes[-4]) == 17 and writes[-3] == b"\x21"  # frame, oscillator...
    v.render(now + TICK)
    assert looks(msg, "    ")


def looks_code(msg, addr, bus):
    return looks_quietly(msg, "E %d" % (70 + 10 * bus + (addr & 7)))


def looks_quietly(chip, text):
    try:
        return looks(chip, text)
    except AssertionError:
        return False


def test_a_quiet_board_sends_only_probes_two_bytes_per_chip_every_1_6_s():
    board, buses, chips, leds, m, v = quiet_wall()
    now = 0
    while now < 5000:  # past the names' marquees (PLAYER A, PLAYER B: 3.6 s) and the first probes
        now += TICK
        v.render(now)
    for bus in buses.values():
        bus.take()
    seconds = 30
    end = now + seconds * 1000
    probe_times = []  # the renders that wrote
    while now < end:
        now += TICK
        if v.render(now):
            probe_times.append(now)
    per_chip = {}
    total = 0
    for b, bus in buses.items():
        for addr, data in bus.take():
            assert len(data) == 1 and data[0] & 0xF0 == 0xE0, (b, hex(addr), data)  # the brightness command
            per_chip[(b, addr)] = per_chip.get((b, addr), 0) + 1
            total += len(data) + 1  # and the address byte
    assert len(per_chip) == len(chips)  # every chip asked
    for key, n in per_chip.items():  # every 1.6 s of quiet (two periods of 0.8 s)
        assert seconds * 1000 // 1600 - 1 <= n <= seconds * 1000 // 1600 + 1, (key, n)
    assert total / seconds <= 2 * len(chips) / 1.6 + 1, total / seconds
    assert len(probe_times) <= seconds * 1000 // 1600 + 1  # all chips at the same renders


def test_probes_keep_to_the_ms_counter_not_to_when_renders_come():
    """Two boards rendering at moments a few ms apart send the same probes (the same number, a
    render apart at most): a late render does not push the next probes later."""
    runs = []
    for jitter in (0, 7):
        board, buses, chips, leds, m, v = quiet_wall()
        now = 0
        times = []
        for k in range(600):  # a minute of renders, every other one late by `jitter`
            now += TICK
            t = now + (jitter if k % 2 else 0)
            before = sum(len(bus.writes) for bus in buses.values())
            v.render(t)
            if sum(len(bus.writes) for bus in buses.values()) > before and t > 5000:
                times.append(t)
        runs.append(times)
    assert len(runs[0]) == len(runs[1]) and len(runs[0]) >= 60000 // 1600 - 4
    assert all(abs(a - b) <= TICK + 7 for a, b in zip(*runs)), runs


def test_a_chip_written_is_not_probed():
    board, buses, chips, leds, m, v = quiet_wall(shot_clock=60)
    clock_bus, clock_addr = where(board, chips, "clock")
    now = 0
    for bus in buses.values():
        bus.take()
    while now < 10000:  # the shot clock counts: its chip is written every second
        now += TICK
        v.render(now)
    writes = [data for addr, data in buses[clock_bus].take() if addr == clock_addr]
    assert writes and all(len(data) == 17 for data in writes), writes


def test_renders_with_probes_and_a_dead_chip_allocate_nothing():
    try:
        import micropython

        micropython.heap_lock
    except (ImportError, AttributeError):
        raise SkipTest("needs micropython.heap_lock")
    board, buses, chips, leds, m, v = quiet_wall()
    quiet(chips)

    class Dead:
        def writeto(self, addr, buf):
            raise OSError(19)

    dead = Dead()
    chip = chip_for(board, chips, "A.high_run")
    render = v.render
    micropython.heap_lock()
    try:
        now = 0
        while now < 6000:  # probes from 1.5 s on
            now += TICK
            render(now)
        chip._i2c = dead
        while now < 12000:  # noticed, retried
            now += TICK
            render(now)
    finally:
        micropython.heap_unlock()
    assert v.failed[chips.index(chip)] == 1


# ---- names: run by once, then the short form ---------------------------------------------------


def test_short_forms():
    s = view_setup.short_name
    assert s("Dick Jaspers", "Marco Zanetti") == b"JASP"
    assert s("Marco Zanetti", "Dick Jaspers") == b"ZANE"
    assert s("PLAYER A", "PLAYER B") == b"A"
    assert s("Kovács Ödön", "x") == b"ODON"  # the last word, capitals without accents
    assert s("Ana", "Bea") == b"ANA"
    assert s("  Jan   de Vries ", "x") == b"VRIE"
    assert s("Jan Smit", "Piet Smit") == b"JSMI" and s("Piet Smit", "Jan Smit") == b"PSMI"  # the same surname
    assert s("Smit", "Jan Smit") == b"SMIT"  # one word: nothing to tell them apart by
    assert s("Straße", "x") == b"STRA"


def marquee(text, step):
    """What a 4-character display shows at marquee step `step` of `text` (from the right, out left)."""
    ref = Seg14x4(NullBus(), 0x70)
    ref.set_window(text, step - 4)
    return [ref.get_segments(k) for k in range(4)]


class NullBus:
    def writeto(self, addr, buf):
        return len(buf)


def cells(chip):
    return [chip.get_segments(k) for k in range(4)]


def test_a_long_name_runs_by_once_then_its_short_form_stands():
    board, buses, chips, leds, m, v = build(
        "wall", breaker=rules.A, target=40, name_A="Dick Jaspers", club_A="BC Hoorn", name_B="Ana"
    )
    a, b = chip_for(board, chips, "A.name"), chip_for(board, chips, "B.name")
    text = b"DICK JASPERS - BC HOORN"
    start = 12345  # the first render after the names changed: the marquee starts
    for step in range(len(text) + 4):
        v.render(start + step * view.SCROLL_MS)
        assert cells(a) == marquee(text, step), step
        assert looks(b, "ANA ")  # fits: stands still
    for later in (0, 1, 100, 100000, 10**8):  # then JASP, for good
        v.render(start + (len(text) + 4) * view.SCROLL_MS + later)
        assert looks(a, "JASP") and looks(b, "ANA ")
    # a new match (the names could be new): it runs by once more
    m.new(0, game="three_cushion", target=40, breaker=rules.A, name_A="Dick Jaspers", name_B="Marco Zanetti")
    v.new_match()
    start = 10**8 + 777
    for step in range(0, len("DICK JASPERS") + 4):
        v.render(start + step * view.SCROLL_MS)
        assert cells(a) == marquee(b"DICK JASPERS", step), step
        assert cells(b) == marquee(b"MARCO ZANETTI", step), step
    v.render(start + (len("MARCO ZANETTI") + 4) * view.SCROLL_MS)
    assert looks(a, "JASP") and looks(b, "ZANE")


def test_the_default_names_run_by_once_then_show_the_players_letter():
    board, buses, chips, leds, m, v = build("wall", breaker=rules.A, target=40)
    a, b = chip_for(board, chips, "A.name"), chip_for(board, chips, "B.name")
    v.render(0)
    assert looks(a, "    ")  # PLAYER A enters from the right
    v.render(4 * view.SCROLL_MS)
    assert looks(a, "PLAY") and looks(b, "PLAY")
    v.render(12 * view.SCROLL_MS)
    assert looks(a, "A   ") and looks(b, "B   ")
    v.render(10**6)
    assert looks(a, "A   ") and looks(b, "B   ")


def test_the_names_marquee_and_its_end_allocate_nothing():
    try:
        import micropython

        micropython.heap_lock
    except (ImportError, AttributeError):
        raise SkipTest("needs micropython.heap_lock")
    board, buses, chips, leds, m, v = build(
        "wall", breaker=rules.A, target=40, name_A="Dick Jaspers", club_A="BC Hoorn", name_B="Therese Klompenhouwer"
    )
    quiet(chips)
    render = v.render
    micropython.heap_lock()
    try:
        for step in range(40):
            render(5000 + step * view.SCROLL_MS)
    finally:
        micropython.heap_unlock()
    assert looks(chip_for(board, chips, "A.name"), "JASP") and looks(chip_for(board, chips, "B.name"), "KLOM")
