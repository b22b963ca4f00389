"""Buttons -> rules -> display and sound, through the real button group; both interpreters."""

import boarddef
import buttons_setup
import controller
import reasons
import rules
from ticks import ticks_add
import sound
import view
from fwtest import SkipTest
from ht16k33_text import Seg7x4, Seg14x4


class NullI2C:
    def __init__(self):
        self.writes = 0

    def writeto(self, addr, buf):
        self.writes += 1
        return len(buf)


class Level:
    """A button pin whose level the test sets."""

    def __init__(self, level=1):
        self.level = level

    def __call__(self):
        return self.level


class PWM:
    def freq(self, f):
        pass

    def duty_u16(self, d):
        pass


class Rig:
    def __init__(self, board="wall", **options):
        self.board = boarddef.load("boards/%s.json" % board)
        self.bus = NullI2C()
        chips = []
        for d in self.board["displays"]:
            chips.append((Seg14x4 if d["kind"] == "seg14" else Seg7x4)(self.bus, d["addr"]))
        self.chips = chips
        options.setdefault("game", "three_cushion")
        options.setdefault("target", 15)
        self.options = options
        self.m = rules.Match(**options)
        self.v = view.View(self.board, chips, {}, self.m)
        self.buzzer = sound.Buzzer(PWM())
        self.pins = {}
        self.group = buttons_setup.from_board(self.board, self._pin)
        self.c = controller.Controller(self.m, self.v, self.buzzer, self.group, options)
        self.now = 0
        self.advance(100)  # the buttons are seen released before anyone presses

    def _pin(self, num, pull):
        p = Level(1)  # active low: released
        self.pins[num] = p
        return p

    def cues(self):
        out = []
        while self.buzzer.pending():
            kind = self.buzzer._kinds[self.buzzer._head] if self.buzzer._len else None
            count = self.buzzer._counts[self.buzzer._head] if self.buzzer._len else None
            out.append((sound.NAMES[kind], count))
            self.buzzer._head = (self.buzzer._head + 1) % 8
            self.buzzer._len -= 1
        return out

    def advance(self, ms):
        end = self.now + ms
        while self.now < end:
            self.now += 10
            self.group.poll(self.now)
            while self.group.pending():
                e = self.group.get()
                self.c.press(e >> 8, e & 0xFF, self.now)
            self.c.tick(self.now)

    def hold(self, name, ms):
        spec = [b for b in self.board["buttons"] if b["name"] == name][0]
        self.pins[spec["pin"]].level = 0
        self.advance(ms)
        self.pins[spec["pin"]].level = 1
        self.advance(100)

    def press(self, name):
        self.hold(name, 100)
        self.advance(500)  # past the lock-out


def test_actions_match_board_definitions():
    assert controller.ACTIONS == boarddef.ACTIONS


def test_point_and_end_buttons_play_a_match():
    r = Rig(breaker=rules.A, target=3)
    r.press("A.point")
    r.press("A.point")
    assert r.m.score == [2, 0] and r.cues() == [("count", 2), ("count", 1)]  # a target of 3: from the start
    r.press("A.end")
    assert r.m.turn == rules.B and r.cues() == [("count", 3)]  # B needs 3: "last 3"
    r.press("A.point")  # A is not at the table
    assert reasons.text(r.c.last_reason) == reasons.NOT_AT_TABLE and r.cues() == [("refuse", 1)]
    r.press("B.point")
    r.press("B.point")
    r.press("B.point")
    assert r.m.phase == rules.FINISHED and r.m.result == rules.R_B
    assert r.cues()[-1] == ("end", 1)


def test_long_press_on_point_undoes():
    r = Rig(breaker=rules.A)
    r.press("A.point")
    r.press("A.point")
    r.hold("A.point", 1200)
    assert r.m.score[rules.A] == 1  # a long press is an undo, not a point


def test_first_press_in_the_lag_names_the_breaker():
    r = Rig()
    assert r.m.phase == rules.LAG
    r.press("foul")
    assert reasons.text(r.c.last_reason) == reasons.IN_LAG
    r.press("B.point")
    assert r.m.breaker == rules.B and r.m.phase == rules.RUNNING and r.m.score == [0, 0]


def test_generic_buttons_in_the_lag():
    """Boards without player buttons: point = A breaks, end of inning = B breaks."""
    r = Rig("mini")
    r.press("end")
    assert r.m.breaker == rules.B and r.m.turn == rules.B
    r = Rig("mini")
    r.press("point")
    assert r.m.breaker == rules.A and r.m.score == [0, 0]


def test_equalizing_cue_and_break_button():
    r = Rig(breaker=rules.A, target=2)
    r.press("A.point")
    r.cues()
    r.press("A.point")
    assert r.m.phase == rules.EQUALIZING and r.cues() == [("equalizing", 1)]
    r = Rig(breaker=rules.A, target=2)
    r.press("A.point")
    r.press("A.end")
    r.press("break")
    assert r.m.phase == rules.BREAK
    r.press("break")
    assert r.m.phase == rules.RUNNING


def test_lockout_after_the_turn_passes():
    """A late press of the generic point button just after the turn passed is not given to B."""
    r = Rig("mini", breaker=rules.A)
    r.press("point")
    r.hold("end", 100)  # end of inning: B's turn, lock-out starts at the release
    r.hold("point", 100)  # pressed 100 ms later: ignored
    assert r.m.score == [1, 0] and r.m.turn == rules.B
    r.advance(500)
    r.press("point")
    assert r.m.score == [1, 1]


def test_stuck_button_is_ignored_and_reported():
    r = Rig(breaker=rules.A)
    foul = buttons_setup.index(r.board, "foul")
    pin = r.pins[r.board["buttons"][foul]["pin"]]
    pin.level = 0  # pressed, and it stays down
    r.advance(6000)
    # Its press counted once (the foul); held past stuck_ms it is reported, not repeated.
    assert r.m.n == 1 and r.m.turn == rules.B
    assert r.cues() == [("accept", 1), ("error", 1)]
    assert r.v.error == controller.ERROR_STUCK + foul
    r.v.render(r.now)
    msg = r.chips[[d["show"][0]["field"] for d in r.board["displays"]].index("message")]
    ref = Seg14x4(NullI2C(), 0x77)
    ref.set_text("E 15")
    assert bytes(msg._frame) == bytes(ref._frame)
    r.advance(20000)
    assert r.m.n == 1
    pin.level = 1  # released: the error goes, the button works again
    r.advance(200)
    assert r.v.error == 0
    r.press("foul")
    assert r.m.n == 2


def test_shot_clock_beeps_in_its_last_ten_seconds():
    r = Rig(breaker=rules.A, target=25, shot_clock=30)
    r.advance(19000)
    assert r.cues() == []
    r.advance(2000)  # 11 s left -> 9 s left: two beeps
    assert r.cues() == [("clock", 1), ("clock", 1)]
    r.advance(9500)  # the clock runs out: an automatic time-out
    assert r.m.timeouts[rules.A] == 2


def test_new_match_button_uses_the_options():
    r = Rig(breaker=rules.A, target=7)
    r.press("A.point")
    r.hold("new", 3200)
    assert r.m.n == 0 and r.m.score == [0, 0] and r.m.targets == [7, 7]


def test_press_path_does_not_allocate():
    try:
        import micropython

        micropython.heap_lock
    except (ImportError, AttributeError):
        raise SkipTest("needs micropython.heap_lock")
    r = Rig(breaker=rules.A, target=50)
    r.press("A.point")
    c = r.c
    press = lambda: c.press(0, 1, 5000)  # noqa: E731  button 0 is A.end: short = A.miss
    i = buttons_setup.index(r.board, "A.point")
    point = lambda: c.press(i, 1, 5000)  # noqa: E731
    micropython.heap_lock()
    try:
        point()
        point()
        press()
    finally:
        micropython.heap_unlock()
    assert r.m.score[rules.A] == 3 and r.m.turn == rules.B


def allocation_counter():
    """micropython.mem_total (every byte allocated so far) and gc; a skip where there is none."""
    try:
        from micropython import mem_total
    except ImportError:
        raise SkipTest("needs micropython.mem_total")
    import gc

    return mem_total, gc


def quiet_rig(**kw):
    """A Rig whose chips write to a bus that takes the bytes and allocates nothing (the
    emulator's and CPython's buses allocate; a real one does not). The chips set themselves
    up again at the next show(): measured too."""
    r = Rig(**kw)
    for chip in r.chips:
        chip.set_bus(NullI2C())
    return r


def press_sequence(r):
    """[(button index, kind)] of a match to 8 on rig r: points, ends, a foul, an undo (kind 2, a
    long press), a break asked for and refused, until A reaches 8 (the allocation tests' presses)."""

    def idx(name):
        return buttons_setup.index(r.board, name)

    presses = [
        (idx("A.point"), 1),
        (idx("A.point"), 1),
        (idx("A.end"), 1),
        (idx("B.point"), 1),
        (idx("foul"), 1),
        (idx("A.point"), 2),
        (idx("break"), 1),
        (idx("B.end"), 1),
    ]
    return presses + [(idx("A.point"), 1)] * 6  # long press = undo; break refused; A reaches 8


def test_press_path_allocates_not_even_transient_frames():
    """mem_total counts every allocation, even call frames MicroPython puts on the heap
    when it can (frames over 11 words) and frees on return: the press path has none."""
    mem_total, gc = allocation_counter()
    r = quiet_rig(breaker=rules.A, target=8, shot_clock=30)
    c = r.c

    presses = press_sequence(r)
    now = (1 << 30) - 4000  # the ms counter wraps on the way: every int stays a small int
    r.m.new(now, **r.options)
    later = [0, 0, 0]
    gc.collect()
    before = mem_total()
    for i, ev in presses:
        now = ticks_add(now, 700)
        later[0] = ticks_add(now, 300)
        later[1] = ticks_add(now, 350)
        later[2] = ticks_add(now, 400)
        c.press(i, ev, now)
        c.tick(later[0])
        r.v.render(later[1])
        r.group.poll(later[2])
    allocated = mem_total() - before
    assert r.m.n > 8 and r.m.phase == rules.EQUALIZING, (r.m.n, r.m.phase)
    assert allocated == 0, allocated


def test_wall_buttons_limited_while_a_remote_is_paired():
    r = Rig(breaker=rules.A)
    r.c.allowed = buttons_setup.allowed(["A.point", "B.point", "A.miss", "B.miss"])
    r.press("A.point")
    r.press("foul")  # not allowed from the wall: nothing happens, not even a refusal
    r.hold("A.point", 1200)  # undo: not allowed either
    assert r.m.score == [1, 0] and r.m.n == 1 and r.c.refused == 0


def test_remote_commands_with_foul_kinds_and_summary():
    r = Rig(breaker=rules.A, target=3)
    assert r.c.remote(controller.ACTIONS.index("point"), 0, 100) is None
    assert r.c.summary() == (1, 0, 0, rules.RUNNING, 2, rules.R_NONE)
    assert r.c.remote(controller.ACTIONS.index("foul"), rules.FOULS.index("push"), 200) is None
    assert r.m.last_foul == rules.FOULS.index("push") and r.m.turn == rules.B
    assert r.c.remote(controller.ACTIONS.index("foul"), 0, 300) is None  # kind 0 = miss: the inning ends
    assert r.m.turn == rules.A and r.m.fouls == [1, 0]
    assert r.c.remote(controller.ACTIONS.index("undo"), 0, 400) is None
    assert r.m.turn == rules.B


def test_the_remotes_summary_in_the_formats_phases():
    # formats.summary: what the referee's box shows when a set is over, in the shoot-out, in a warm-up.
    point, miss = controller.ACTIONS.index("point"), controller.ACTIONS.index("miss")
    r = Rig(breaker=rules.A, target=1, sets=2)
    assert r.c.remote(point, 0, 100) is None and r.c.remote(miss, 0, 200) is None  # A wins set 1
    s = r.c.summary()
    assert r.m.phase == rules.SET_OVER and (s[0], s[1], s[3], s[4]) == (1, 0, rules.SET_OVER, 1)  # sets 1:0, set 1
    r = Rig(breaker=rules.B, target=1, draw=False, shootout=True)
    assert r.c.remote(point, 0, 100) is None and r.c.remote(point, 0, 200) is None  # 1:1, no draw
    assert r.m.phase == rules.SHOOTOUT and r.c.summary() == (0, 0, rules.B, rules.SHOOTOUT, 1, rules.R_NONE)
    assert r.c.remote(point, 0, 300) is None and r.c.remote(point, 0, 400) is None
    assert r.c.summary() == (0, 2, rules.B, rules.SHOOTOUT, 1, rules.R_NONE)  # round 1: B's run 2
    assert r.c.remote(miss, 0, 500) is None and r.c.remote(point, 0, 600) is None
    assert r.c.remote(point, 0, 700) is None and r.c.remote(miss, 0, 800) is None  # 2:2: round 2
    assert r.c.summary() == (0, 0, rules.B, rules.SHOOTOUT, 2, rules.R_NONE)
    r = Rig(target=15, warmup_s=60)
    assert r.c.remote(controller.ACTIONS.index("warmup"), 0, 100) is None
    assert r.c.summary() == (0, 0, rules.A, rules.WARMUP, 255, rules.R_NONE)  # A's warm-up
    assert r.c.remote(controller.ACTIONS.index("warmup"), 0, 200) is None
    assert r.c.summary()[2] == rules.B


def test_clock_ticks_allocate_nothing():
    """What the clock task does every 100 ms (the controller's tick, the log's room ahead,
    a render) allocates nothing, across the ms counter's wrap (32-bit: ints stay small)."""
    mem_total, gc = allocation_counter()
    r = quiet_rig(breaker=rules.A, target=50, shot_clock=30)
    now = (1 << 30) - 2000
    r.m.new(now, **r.options)
    for _ in range(3):  # warm up
        now = ticks_add(now, 100)
        r.c.tick(now)
        r.m.reserve()
        r.v.render(now)
    gc.collect()
    before = mem_total()
    for _ in range(280):  # 28 s of ticks: the shot clock counts down into its beeping last seconds
        now = ticks_add(now, 100)
        r.c.tick(now)
        r.m.reserve()
        r.v.render(now)
    assert mem_total() - before == 0, mem_total() - before


def test_foul_kinds_of_the_foul_buttons():
    names = [rules.FOULS[k] for k in controller.FOUL_KINDS]
    assert names == ["other", "touched", "push", "jumped", "time"]
    assert [controller.ACTIONS[a] for a in range(6, 11)] == [
        "foul",
        "foul.touch",
        "foul.push",
        "foul.jump",
        "foul.time",
    ]


# ---- the formats: sets, the shoot-out, the warm-up --------------------------------------------


def test_the_formats_actions_come_last():
    assert controller.ACTIONS[-2:] == ("next_set", "warmup")  # appended: the remote's indexes stay


def test_new_buttons_short_press_starts_the_next_set_only_after_a_set():
    r = Rig(breaker=rules.A, target=2, sets=2)
    r.press("new")  # a set under way: refused, nothing changes
    assert reasons.text(r.c.last_reason) == reasons.NO_SET_OVER and r.cues() == [("refuse", 1)]
    r.press("A.point")
    r.press("A.point")
    r.cues()
    r.press("B.end")  # B's equalizing inning: nothing; A wins the set
    assert r.m.phase == rules.SET_OVER and r.cues() == [("end", 1)]  # as the end of a match
    r.press("A.point")
    assert reasons.text(r.c.last_reason) == reasons.SET_IS_OVER
    r.press("new")
    assert r.c.last_reason is None and r.m.phase == rules.RUNNING and r.m.set_no == 2
    assert r.m.turn == rules.B and r.m.score == [0, 0] and r.m.sets_won == [1, 0]
    r.hold("new", 3200)  # held: still a new match
    assert r.m.n == 0 and r.m.set_no == 1


def test_new_buttons_short_press_in_a_plain_match_is_a_refusal_that_loads_nothing():
    r = Rig(breaker=rules.A)
    r.press("new")
    assert reasons.text(r.c.last_reason) == reasons.NO_FORMATS and r.cues() == [("refuse", 1)]
    assert r.m.n == 0
    r.hold("break", 1200)  # warmup: refused too
    assert reasons.text(r.c.last_reason) == reasons.NO_FORMATS


def test_remote_next_set_and_warmup_commands():
    r = Rig(breaker=rules.A, target=1, sets=2, warmup_s=60)
    assert r.c.remote(controller.ACTIONS.index("warmup"), 0, 100) is None and r.m.warm_p == rules.A
    assert r.c.remote(controller.ACTIONS.index("warmup"), 0, 200) is None and r.m.warm_p == rules.B
    assert r.c.remote(controller.ACTIONS.index("warmup"), 0, 300) is None and r.m.phase == rules.RUNNING
    assert r.c.remote(controller.ACTIONS.index("point"), 0, 400) is None
    assert r.c.remote(controller.ACTIONS.index("miss"), 0, 500) is None  # B's equalizing: A wins set 1
    assert r.m.phase == rules.SET_OVER
    assert r.c.remote(controller.ACTIONS.index("next_set"), 0, 600) is None and r.m.set_no == 2


def test_shootout_start_cue():
    r = Rig(breaker=rules.A, target=1, draw=False, shootout=True)
    r.press("A.point")
    r.cues()
    r.press("B.point")  # level at the target, no draw: the shoot-out
    assert r.m.phase == rules.SHOOTOUT and r.cues() == [("equalizing", 1)]
    r.press("A.point")
    r.press("A.end")
    r.press("B.end")  # A 1, B 0: A wins it
    assert r.m.phase == rules.FINISHED and r.m.result == rules.R_A and r.cues()[-1] == ("end", 1)


def test_warmup_button_a_then_b_then_resume_and_the_last_minute():
    r = Rig(target=15, warmup_s=90)
    r.hold("break", 1200)  # held 1 s: the warm-up, A's first
    assert r.m.phase == rules.WARMUP and r.m.warm_p == rules.A
    r.cues()
    r.advance(29000)  # 90 s - 1.3 s - 29 s: just over the last minute
    assert r.cues() == []
    r.advance(1000)  # the last minute begins: three beeps, once
    assert r.cues() == [("clock", 3)]
    r.advance(5000)
    assert r.cues() == []
    r.hold("break", 1200)  # B's, during A's
    assert r.m.phase == rules.WARMUP and r.m.warm_p == rules.B
    r.hold("break", 1200)  # a third press: it ends
    assert r.m.phase == rules.LAG
    r.hold("break", 1200)  # again: the other of the latest, A
    assert r.m.warm_p == rules.A
    r.advance(91000)  # A's time runs out (the last minute beeps)
    assert r.m.phase == rules.LAG and ("clock", 3) in r.cues()
    r.hold("break", 1200)  # next: B's
    assert r.m.phase == rules.WARMUP and r.m.warm_p == rules.B
    r.press("break")  # a short press ends it (resume), as it ends a break
    assert r.m.phase == rules.LAG


def test_clock_ticks_and_renders_in_format_matches_do_not_allocate():
    """A set match's and the shoot-out's clock ticks and renders (every slot drawn again: the set
    score, the messages, the runs), the warm-up's ticks with its last-minute beeps and blinking:
    nothing allocated. (The presses are not measured here: rules' events in a format match
    allocate a call frame of formats.check, which is rules' own.)"""
    mem_total, gc = allocation_counter()
    for options, presses in (
        ({"sets": 2, "target": 8}, ("A.point", "A.point", "A.end", "B.point")),
        (
            {"target": 2, "draw": False, "shootout": True},
            ("A.point", "A.point", "B.point", "B.point", "A.point", "A.end", "B.point"),
        ),
    ):
        r = quiet_rig(breaker=rules.A, shot_clock=30, **options)
        now = (1 << 30) - 4000
        r.m.new(now, **r.options)
        r.v.new_match()
        for name in presses:
            now = ticks_add(now, 700)
            r.c.press(buttons_setup.index(r.board, name), 1, now)
        gc.collect()
        before = mem_total()
        for _ in range(20):
            now = ticks_add(now, 100)
            r.c.tick(now)
            r.v.invalidate()
            r.v.render(now)
        assert mem_total() - before == 0, (options, mem_total() - before)
    assert r.m.phase == rules.SHOOTOUT and r.m.turn == rules.B and r.m.run == 1, r.m.phase  # A 1, B 1 so far
    r = quiet_rig(target=15, warmup_s=65)
    r.c.remote(controller.ACTIONS.index("warmup"), 0, r.now)  # (this allocates: a cold module)
    now = r.now
    for _ in range(3):  # as the board's clock task has run since its start
        now = ticks_add(now, 100)
        r.c.tick(now)
        r.m.reserve()  # its first makes the quarters' states (rules.Match._make_mids)
        r.v.render(now)
    gc.collect()
    before = mem_total()
    for _ in range(100):  # 10 s: into the last minute, its beeps and blinking
        now = ticks_add(now, 100)
        r.c.tick(now)
        r.m.reserve()
        r.v.render(now)
    assert mem_total() - before == 0, mem_total() - before
    assert r.buzzer.pending() and r.m.phase == rules.WARMUP


def test_press_path_of_a_set_match_allocates_not_even_transient_frames():
    """The same in a set match with the shoot-out (formats.py and the wall's formats_wall.py in
    RAM): presses to a set's end, undo across it, the next set's strokes to a drawn set and its
    shoot-out, each with its tick, render and poll, allocate nothing. The next set itself (NEW's
    short press) goes through the cold module rules_events, as a new match does: not measured.
    The clock task's tick loads formats_rare.py ahead of a level end (formats_wall.tick; here
    from the start: the targets are within the last points)."""
    mem_total, gc = allocation_counter()
    r = quiet_rig(breaker=rules.A, target=2, sets=2, shootout=True, game="straight_rail")
    c = r.c

    def idx(name):
        return buttons_setup.index(r.board, name)

    now = 1000
    r.m.new(now, **r.options)

    def play(presses):
        nonlocal now
        presses = [(idx(name), ev) for name, ev in presses]  # the buttons' indexes found beforehand
        gc.collect()
        before = mem_total()
        for i, ev in presses:
            now = ticks_add(now, 700)
            c.press(i, ev, now)
            c.tick(ticks_add(now, 300))
            r.v.render(ticks_add(now, 350))
            r.group.poll(ticks_add(now, 400))
        return mem_total() - before

    assert r.m.fmt.rare is None
    c.tick(now)  # the clock task, before the first press
    assert r.m.fmt.rare is not None
    # Set 1: A 1 and a miss, B 2 (B did not break: the set is his), undo it, B again.
    used = play([("A.point", 1), ("A.end", 1), ("B.point", 1), ("B.point", 1), ("B.point", 2), ("B.point", 1)])
    assert r.m.phase == rules.SET_OVER and used == 0, (r.m.phase, used)
    now = ticks_add(now, 700)
    assert c.press(idx("new"), 1, now) is None and r.m.set_no == 2  # next_set: may allocate
    # Set 2: B breaks, 2; A equalizes: the shoot-out; B 1, A 0: B wins.
    used = play(
        [("B.point", 1), ("B.point", 1), ("A.point", 1), ("A.point", 1), ("B.point", 1), ("B.end", 1), ("A.end", 1)]
    )
    assert r.m.phase == rules.FINISHED and r.m.ended_by == rules.END_SHOOTOUT, (r.m.phase, r.m.ended_by)
    assert used == 0, used


def test_the_controllers_action_numbers_name_their_actions():
    """The small ints _do compares an action with are the indexes of those actions in ACTIONS."""
    if not hasattr(controller, "_MISS"):
        raise SkipTest("MicroPython compiles private constants away")
    for name, number in (
        ("miss", controller._MISS),
        ("A.miss", controller._A_MISS),
        ("B.miss", controller._B_MISS),
        ("foul.time", controller._FOUL_TIME),
        ("undo", controller._UNDO),
        ("break", controller._BREAK),
        ("timeout", controller._TIMEOUT),
        ("new_match", controller._NEW),
    ):
        assert controller.ACTIONS[number] == name, (name, number)
