"""The wall board's view of the formats: a handicap's targets, the set score, SET OVER,
the shoot-out's runs and SHOOT-OUT, the warm-up's clock and WARM-UP A/B; on the wall board
definition and mini; each drawn without allocating. Runs on CPython and MicroPython. States
are set up with the referee's words (referee.Referee).
"""

import controller
import formats_rare
import formats_wall
import rules
import view
import viewnames
from fwtest import SkipTest
from referee import Referee
from test_view import build, chip_for, looks, quiet

MINUTE = 60000


def start(name="wall", lines=(), **options):
    """A board playing a match, its referee on the same match."""
    board, buses, chips, leds, m, v = build(name, **options)
    r = Referee(m)
    say(r, *lines)
    return board, chips, m, v, r


def say(r, *lines):
    for line in lines:
        assert r.line(line) is None, line


def at_start(now, n):
    """The first moment from `now` at which a marquee of n characters shows its start."""
    if n > 4:
        while (now // view.SCROLL_MS) % (n + 4) != 4:
            now += view.SCROLL_MS
    return now


def message_shows(board, chips, v, now, text):
    """The message chip shows `text`'s first four characters where its marquee starts."""
    v.render(at_start(now, len(text)))
    return looks(chip_for(board, chips, "message"), (text + "    ")[:4])


def message_window(board, chips, v, now, n, offset, text):
    """The message chip shows `text` where a marquee of n characters is `offset` into its text."""
    now = at_start(now, n)
    while (now // view.SCROLL_MS) % (n + 4) != 4 + offset:
        now += view.SCROLL_MS
    v.render(now)
    return looks(chip_for(board, chips, "message"), text)


def wide_board(*fields):
    """A wall board whose chip 0x74 on bus 1 shows these fields instead (each 4 cells)."""
    import boarddef
    import json

    with open("boards/wall.json") as f:
        d = json.load(f)
    addrs = ["0x74", "0x75", "0x77"]
    d["displays"] = [x for x in d["displays"] if not (x["bus"] == 1 and x["addr"] in addrs)]
    for field, addr in zip(fields, addrs):
        d["displays"].append({"bus": 1, "addr": addr, "kind": "seg7", "show": field})
    return boarddef.load(d)


def build_on(board_def, **options):
    from ht16k33_text import Seg7x4, Seg14x4
    from test_view import FakeI2C

    chips = [(Seg14x4 if d["kind"] == "seg14" else Seg7x4)(FakeI2C(), d["addr"]) for d in board_def["displays"]]
    options.setdefault("game", "three_cushion")
    m = rules.Match(**options)
    return chips, m, view.View(board_def, chips, {}, m)


def heap_locked(fn):
    """fn() run with the heap locked (MicroPython): it must not allocate."""
    try:
        import micropython

        micropython.heap_lock
    except (ImportError, AttributeError):
        fn()
        return False
    micropython.heap_lock()
    try:
        fn()
    finally:
        micropython.heap_unlock()
    return True


def renders_without_allocating(v, chips, now):
    v.render(now)  # the values change here; the next renders draw them again from scratch
    quiet(chips)
    v.invalidate()
    heap_locked(lambda: v.render(now))
    v.invalidate()
    heap_locked(lambda: v.render(now + 7 * view.SCROLL_MS))
    return True


# ---- the codes formats_wall.py keeps -----------------------------------------------------------


def test_formatrares_messages_stay_below_the_set_numbers():
    assert formats_rare.LAST_MINUTE_S == 60
    if not hasattr(formats_rare, "_ROUND_AT"):
        raise SkipTest("MicroPython compiles private constants away")
    import rules_events

    assert formats_rare._ROUND_AT == formats_rare._AT[1] + len(b"SHOOT-OUT ")
    assert formats_rare._MESSAGES + 999 * formats_rare._ROUND + 4 * viewnames.STEPS < formats_wall._SET_NUMBER
    assert rules_events._NEXT_SET == controller.ACTIONS.index("next_set")


def test_the_views_field_codes_are_the_fields_indexes():
    """viewnames.py's field codes (view.py's, formats_wall.py's): indexes into view_setup.FIELDS."""
    import view_setup

    fields = view_setup.FIELDS
    own = [f[2:] for f in fields if f[:2] == "A."]
    assert viewnames.PER_PLAYER == len(own) and viewnames.TARGET == 2 * viewnames.PER_PLAYER
    for name in own:
        code = getattr(viewnames, "OWN_TARGET" if name == "target" else name.upper())
        assert fields.index("A." + name) == code and fields.index("B." + name) == code + viewnames.PER_PLAYER, name
    for name in (f for f in fields if "." not in f):
        assert fields.index(name) == getattr(viewnames, name.upper()), name


def test_the_messages_are_found_in_formatwalls_text_with_blanks_around():
    for r, text in ((1, b"SHOOT-OUT 1  "), (12, b"SHOOT-OUT 12 "), (345, b"SHOOT-OUT 345"), (1, b"SHOOT-OUT 1  ")):
        formats_rare._round_text(r)  # the round's number is written in, blanks after
        got = [bytes(formats_rare._TEXT[a : a + n]) for a, n in zip(formats_rare._AT, formats_rare._LEN)]
        assert got == [b"SET OVER", text, b"WARM-UP A", b"WARM-UP B"]
    for a, n in zip(formats_rare._AT, formats_rare._LEN):
        assert formats_rare._TEXT[a - 4 : a] == b"    " and formats_rare._TEXT[a + n : a + n + 4] == b"    "


# ---- handicap ---------------------------------------------------------------------------------


def test_handicap_target_is_the_player_at_the_tables_and_each_has_his_own_field():
    board, chips, m, v, r = start(target_A=30, target_B=22)
    a, b = chip_for(board, chips, "A.target"), chip_for(board, chips, "B.target")  # the wall board's
    v.render(0)
    assert looks(a, "  30") and looks(b, "  22")
    say(r, "lag B", "choose B break", "miss")
    v.render(0)
    assert looks(a, "  30") and looks(b, "  22")
    chips, m, v = build_on(wide_board("target"), target_A=30, target_B=22)
    target = chips[-1]  # the shared field: the target of the player at the table
    r = Referee(m)
    v.render(0)
    assert looks(target, "  30")  # the lag: nobody at the table, A's
    say(r, "lag B", "choose B break")
    v.render(0)
    assert looks(target, "  22")  # B at the table: his own
    say(r, "miss")
    v.render(0)
    assert looks(target, "  30")
    assert renders_without_allocating(v, chips, 1000)
    wide = wide_board("A.target", "B.target")
    chips, m, v = build_on(wide, target_A=200, target_B=1500, breaker=rules.A)
    v.render(0)
    assert looks(chips[-2], " 200") and looks(chips[-1], "1500")  # 3- and 4-digit targets whole
    assert renders_without_allocating(v, chips, 1000)


def test_handicap_countdown_counts_the_player_at_the_tables_own_points():
    board, chips, m, v, r = start(target_A=10, target_B=3, breaker=rules.A)
    sets = chip_for(board, chips, "countdown")
    v.render(0)
    assert looks(sets, "    ") and sets.get_blink() == 0  # A needs 10
    say(r, "miss")
    v.render(0)
    assert looks(sets, "   3") and sets.get_blink() == 2  # B needs his 3: the last 3, blinking


def test_mini_board_in_a_handicap_match():
    board, chips, m, v, r = start("mini", target_A=5, target_B=3, breaker=rules.B)
    say(r, "point")
    v.render(0)
    assert looks(chips[0], "   0") and looks(chips[1], "   1.")  # B at the table: the point says so
    assert renders_without_allocating(v, chips, 0)


# ---- sets -------------------------------------------------------------------------------------

WIN_SET = ["point"] * 5 + ["miss"]  # the breaker reaches 5; the opponent's equalizing inning: nothing


def set_match(name="wall", **options):
    options.setdefault("target", 5)
    options.setdefault("sets", 2)
    options.setdefault("breaker", rules.A)
    return start(name, **options)


def test_the_set_score_on_the_sets_field_and_the_countdown_its_own():
    board, chips, m, v, r = set_match()  # the wall board: a sets field of its own
    sets, countdown = chip_for(board, chips, "sets"), chip_for(board, chips, "countdown")
    v.render(0)
    assert looks(sets, " 00 ", colon=True) and looks(countdown, "    ", colon=False)  # 0:0
    say(r, "point", "point")  # A needs 3
    v.render(0)
    assert looks(sets, " 00 ", colon=True) and looks(countdown, "   3", colon=False) and countdown.get_blink() == 2
    say(r, "point", "point", "point", "miss")
    v.render(0)
    assert looks(sets, " 10 ", colon=True) and looks(countdown, "    ", colon=False)
    assert renders_without_allocating(v, chips, 2000)


def test_the_set_score_on_the_countdown_with_the_colon_between_the_last_points():
    wall = wide_board("countdown")  # no sets field: the countdown shows the set score between
    chips, m, v = build_on(wall, target=5, sets=2, breaker=rules.A)
    board, r = wall, Referee(m)
    sets = chip_for(board, chips, "countdown")
    v.render(0)
    assert looks(sets, " 00 ", colon=True) and sets.get_blink() == 0  # 0:0
    assert message_shows(board, chips, v, 0, "SET1")  # nothing else to say: which set this is
    say(r, "point", "point")  # A needs 3: the countdown (blinking) has the display
    v.render(0)
    assert looks(sets, "   3", colon=False) and sets.get_blink() == 2
    say(r, "point", "point", "point", "miss")  # A reaches 5, B's equalizing inning: A wins the set
    assert m.phase == rules.SET_OVER
    v.render(0)
    assert looks(sets, " 10 ", colon=True) and sets.get_blink() == 0  # 1:0
    assert looks(chip_for(board, chips, "A.score"), "   5")  # the set's score stays until the next set
    assert message_shows(board, chips, v, 0, "SET OVER")
    assert renders_without_allocating(v, chips, 2000)
    say(r, "next_set")
    v.render(0)
    assert looks(sets, " 10 ", colon=True) and looks(chip_for(board, chips, "A.score"), "   0")
    assert message_shows(board, chips, v, 0, "SET2")
    assert renders_without_allocating(v, chips, 3000)
    say(r, "foul touched")
    assert message_shows(board, chips, v, 0, "FOUL")  # the view's own messages go first
    say(r, "undo")
    assert message_shows(board, chips, v, 0, "SET2")


def test_the_set_number_up_to_the_seventeenth():
    # First to 9 sets: at most 17; the tenth and later as "S 10" (four characters).
    board, chips, m, v, r = set_match()
    for n, text in ((1, "SET1"), (9, "SET9"), (10, "S 10"), (17, "S 17")):
        m.set_no = n
        assert message_shows(board, chips, v, 0, text), n
    assert renders_without_allocating(v, chips, 4000)


def test_the_sets_field_shows_the_set_score_always_and_is_blank_in_a_plain_match():
    chips, m, v = build_on(wide_board("sets", "countdown"), target=5, sets=3, breaker=rules.A)
    sets, countdown = chips[-2], chips[-1]
    r = Referee(m)
    say(r, "point", "point")
    v.render(0)
    assert looks(sets, " 00 ", colon=True) and looks(countdown, "   3", colon=False)
    assert renders_without_allocating(v, chips, 0)
    m.new(0, game="three_cushion", target=3, breaker=rules.A)
    v.new_match()
    v.render(0)
    assert looks(sets, "    ", colon=False) and looks(countdown, "   3", colon=False)


def test_a_set_score_in_smaller_slots_and_a_new_plain_match_turns_the_colon_off():
    import boarddef
    import json

    with open("boards/wall.json") as f:
        d = json.load(f)
    k = [i for i, x in enumerate(d["displays"]) if x["addr"] == "0x74" and x["bus"] == 1][0]
    d["displays"][k]["show"] = [{"field": "sets", "at": 0, "width": 2}, {"field": "countdown", "at": 3, "width": 1}]
    chips, m, v = build_on(boarddef.load(d), target=5, sets=3, breaker=rules.A)
    r = Referee(m)
    say(r, *WIN_SET)
    v.render(0)
    assert looks(chips[k], "10  ", colon=False)  # two cells: the two digits, no colon; one: no room
    say(r, "next_set", "point", "point")  # B needs 3
    v.render(0)
    assert looks(chips[k], "10 3", colon=False)
    chips, m, v = build_on(wide_board("countdown"), target=5, sets=3, breaker=rules.A)
    v.render(0)
    assert looks(chips[-1], " 00 ", colon=True)
    m.new(0, game="three_cushion", target=3, breaker=rules.A)
    v.new_match()
    v.render(0)
    assert looks(chips[-1], "   3", colon=False)  # a plain match: the countdown, the colon off


def test_the_deciding_set_and_the_match_end():
    board, chips, m, v, r = set_match()
    sets = chip_for(board, chips, "sets")
    say(r, *WIN_SET)  # A wins set 1
    say(r, "next_set", *WIN_SET)  # set 2: B breaks and wins it
    v.render(0)
    assert looks(sets, " 11 ", colon=True)
    say(r, "next_set")  # the deciding set starts with a lag
    assert m.phase == rules.LAG
    assert message_shows(board, chips, v, 0, "LAG")
    say(r, "lag A", "choose A break", *WIN_SET)
    v.render(0)
    assert m.phase == rules.FINISHED and looks(sets, " 21 ", colon=True)
    assert message_shows(board, chips, v, 0, "A WINS")


def test_mini_board_in_a_set_match():
    board, chips, m, v, r = set_match("mini")
    say(r, *WIN_SET)
    v.render(0)
    assert looks(chips[0], "   5") and looks(chips[1], "   0")  # the set's score; nobody at the table
    assert renders_without_allocating(v, chips, 0)
    say(r, "next_set")
    v.render(0)
    assert looks(chips[0], "   0") and looks(chips[1], "   0.")  # set 2: B breaks
    assert renders_without_allocating(v, chips, 0)


# ---- the shoot-out ----------------------------------------------------------------------------


def shootout_match(name="wall"):
    """A level end with the shoot-out on: B breaks, both reach 1 (the equalizing inning)."""
    return start(name, target=1, draw=False, shootout=True, breaker=rules.B, lines=("point", "point"))


def test_shootout_message_and_the_rounds_runs_on_the_run_fields():
    board, chips, m, v, r = shootout_match()
    assert m.phase == rules.SHOOTOUT
    a_run = chip_for(board, chips, "A.run")  # A's innings (cells 0-1) and run (2-3)
    b_run = chip_for(board, chips, "B.run")
    assert message_shows(board, chips, v, 0, "SHOOT-OUT 1")
    assert message_window(board, chips, v, 0, 13, 7, "UT 1")  # the round's number
    assert renders_without_allocating(v, chips, 1000)
    v.render(0)
    assert looks(b_run, " 1 0") and looks(a_run, " 1  ")  # B (the breaker) first; A's inning to come
    say(r, "point", "point")
    v.render(0)
    assert looks(b_run, " 1 2") and looks(a_run, " 1  ")
    say(r, "miss")  # B's inning of the round is over: his 2 stays
    v.render(0)
    assert looks(b_run, " 1 2") and looks(a_run, " 1 0")
    say(r, "point", "point", "miss")  # 2 each: another round
    v.render(0)
    assert m.phase == rules.SHOOTOUT and looks(b_run, " 1 0") and looks(a_run, " 1  ")
    assert message_window(board, chips, v, 0, 13, 7, "UT 2")  # round 2
    assert renders_without_allocating(v, chips, 1500)
    say(r, "point", "miss", "point", "point", "miss")  # B 1, A 2: A wins
    v.render(0)
    assert m.phase == rules.FINISHED and m.result == rules.R_A
    assert looks(a_run, " 1 2") and looks(b_run, " 1 1")  # the deciding round's runs stay
    assert message_shows(board, chips, v, 0, "A WINS")
    assert renders_without_allocating(v, chips, 2000)


def test_mini_board_in_the_shootout():
    board, chips, m, v, r = shootout_match("mini")
    v.render(0)
    assert looks(chips[0], "   1") and looks(chips[1], "   1.")  # level; B at the table
    say(r, "point", "miss")
    v.render(0)
    assert looks(chips[0], "   1.") and looks(chips[1], "   1")
    assert renders_without_allocating(v, chips, 0)


# ---- the warm-up ------------------------------------------------------------------------------


def test_warmup_clock_message_and_its_last_minute():
    board, chips, m, v, r = start(target=15, warmup_s=150)
    clock = chip_for(board, chips, "clock")
    say(r, "warmup A")
    v.render(0)
    assert looks(clock, " 230", colon=True) and clock.get_blink() == 0  # 2:30
    assert message_shows(board, chips, v, 0, "WARM-UP A")
    assert renders_without_allocating(v, chips, 1000)
    v.render(90 * 1000 - 1)
    assert looks(clock, " 101", colon=True) and clock.get_blink() == 0  # 1:00.001 shows 1:01
    v.render(90 * 1000)
    assert looks(clock, " 100", colon=True) and clock.get_blink() == 2  # the last minute blinks (1 Hz)
    assert renders_without_allocating(v, chips, 100 * 1000)
    r.now = 100 * 1000
    say(r, "warmup B")
    v.render(r.now)
    assert looks(clock, " 230", colon=True) and clock.get_blink() == 0
    assert message_shows(board, chips, v, r.now, "WARM-UP B")
    m.tick(r.now + 150 * 1000)  # B's time is over: the lag again
    v.render(r.now + 150 * 1000)
    assert m.phase == rules.LAG and looks(clock, "    ", colon=False)
    assert message_shows(board, chips, v, r.now + 150 * 1000, "LAG")


def test_mini_board_in_a_warmup():
    board, chips, m, v, r = start("mini", target=15, warmup_s=60)
    say(r, "warmup B")
    v.render(0)
    assert looks(chips[0], "   0") and looks(chips[1], "   0")
    assert renders_without_allocating(v, chips, 1000)
