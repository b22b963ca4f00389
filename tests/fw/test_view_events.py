"""The wall board's view of the rarer events: OUT (the area's carom limit coming), what follows a
frozen ball, the elapsed match time on the clock; each drawn without allocating. Runs on CPython
and MicroPython. States are set up with the referee's words (referee.Referee).
"""

import boarddef
import rules
import view
from fwtest import SkipTest
from referee import Referee
from test_view import build, chip_for, looks, quiet

AREA_GAMES = ("straight_rail", "balkline_47_2", "balkline_47_1", "balkline_71_2")  # calls are refused elsewhere
MINUTE = 60


def start(name="wall", lines=(), **options):
    """A board playing a match, its referee on the same match (B at the table after `lines`)."""
    board, buses, chips, leds, m, v = build(name, **options)
    r = Referee(m)
    for line in lines:
        assert r.line(line) is None, line
    return board, chips, m, v, r


def say(r, *lines):
    for line in lines:
        assert r.line(line) is None, line


def message(v):
    """The message the view would show now, as text (the whole of it, marquee or not)."""
    msg = v._message_id()
    at = view._MSG_AT[msg]
    return bytes(view._TEXT[at : at + view._MSG_LEN[msg]]).decode()


def shows(board, chips, v, r, text):
    """The message chip shows `text`: its first four characters where the marquee starts
    (the moment after r.now at which a text longer than four cells stands at its start)."""
    assert message(v) == text, (message(v), text)
    n = len(text)
    now = r.now
    if n > 4:
        while (now // view.SCROLL_MS) % (n + 4) != 4:
            now += view.SCROLL_MS
    v.render(now)
    return looks(chip_for(board, chips, "message"), (text + "    ")[:4])


def clock_shows(board, chips, v, now, text, colon):
    v.render(now)
    return looks(chip_for(board, chips, "clock"), text, colon=colon)


# ---- OUT ----------------------------------------------------------------------------------------


def test_out_comes_with_the_area_limit_and_goes_with_out():
    for game in AREA_GAMES:
        board, chips, m, v, r = start(game=game, target=50, breaker=rules.A)
        say(r, "point")
        assert shows(board, chips, v, r, "")
        say(r, "call entre")
        if game == "balkline_47_1":  # every carom in the area must bring a ball out (II.2.3)
            assert shows(board, chips, v, r, "OUT"), game
            say(r, "point")
            assert message(v) == "OUT"  # the next one too: still in the area
        else:  # the second carom must (II.1.2, II.2.4): shown after the first
            assert message(v) == "", game
            say(r, "point")
            assert shows(board, chips, v, r, "OUT"), game
        assert chip_for(board, chips, "message").get_blink() == 2  # 1 Hz, as LAST n: the next strokes
        say(r, "call out")
        assert shows(board, chips, v, r, ""), game
        assert chip_for(board, chips, "message").get_blink() == 0
        say(r, "call dedans")  # a carom already made in the area: the next must bring one out
        assert message(v) == "OUT", game
        say(r, "miss")  # the inning ends: the count with it
        assert shows(board, chips, v, r, ""), game
        say(r, "call entre anchor", "point")
        assert message(v) == "OUT", game
        say(r, "call entre")  # entre again: a new count
        assert message(v) == ("OUT" if game == "balkline_47_1" else ""), game


def test_out_goes_before_last_n_and_a_foul_but_after_the_break_and_the_end():
    board, chips, m, v, r = start(game="straight_rail", target=8, breaker=rules.A)
    say(r, "point", "point", "point", "point", "call entre", "point")
    assert m.countdown() == 3 and message(v) == "OUT"  # not LAST 3
    board, chips, m, v, r = start(game="straight_rail", target=50, breaker=rules.A)
    say(r, "miss", "foul push")  # B's foul: A at the table, the foul shown
    assert message(v) == "FOUL"
    say(r, "call dedans")
    assert message(v) == "OUT"
    board, chips, m, v, r = start(game="straight_rail", target=8, breaker=rules.A, break_s=60, equalizing=False)
    say(r, "point", "point", "point", "point", "miss", "miss", "call dedans")
    assert message(v) == "OUT"
    say(r, "break_request A")
    assert message(v) == "BREAK"
    say(r, "resume")
    assert message(v) == "OUT"
    say(r, "point", "point", "point", "point")
    assert m.phase == rules.FINISHED and message(v) == "A WINS"
    board, chips, m, v, r = start(game="balkline_47_1", target=5)
    assert message(v) == "LAG"


# ---- what follows a frozen ball -----------------------------------------------------------------


def test_respot_messages_after_a_frozen_ball_in_each_game():
    for game in ("straight_rail", "one_cushion"):  # all three balls to the start (I.5)
        board, chips, m, v, r = start(game=game, target=50, breaker=rules.A)
        say(r, "point", "frozen A")
        assert shows(board, chips, v, r, "RESPOT"), game
        assert chip_for(board, chips, "message").get_blink() == 0  # a state, as FOUL: steady
        say(r, "point")
        assert shows(board, chips, v, r, ""), game
    for game in ("balkline_47_2", "balkline_47_1", "balkline_71_2", "three_cushion"):
        board, chips, m, v, r = start(game=game, target=50, breaker=rules.A)
        for choice, text in (
            ("start", "SPOTS" if game == "three_cushion" else "RESPOT"),
            ("free_ball", "FREE BALL"),
            ("masse", "MASSE"),
        ):
            say(r, "frozen")
            assert shows(board, chips, v, r, "FROZEN"), game  # the player chooses (II.2.7, II.3.3)
            say(r, "frozen_choice " + choice)
            assert shows(board, chips, v, r, text), (game, choice)
            say(r, "miss")  # the stroke: the respot is done, B at the table
            assert shows(board, chips, v, r, ""), (game, choice)


def test_a_foul_shows_foul_not_its_respot():
    board, chips, m, v, r = start(game="three_cushion", target=50, breaker=rules.A)
    say(r, "foul jumped B red")
    assert m.respot == 2 and message(v) == "FOUL"  # the jump's spots: the state document says so
    say(r, "frozen")  # the incoming player's ball frozen: what follows it
    assert message(v) == "FROZEN"
    board, chips, m, v, r = start(game="straight_rail", target=50, breaker=rules.A)
    say(r, "foul jumped")
    assert m.respot == 1 and message(v) == "FOUL"


def test_respot_goes_before_out_and_last_n():
    board, chips, m, v, r = start(game="balkline_47_2", target=4, breaker=rules.A)
    say(r, "call dedans", "point")
    assert message(v) == "OUT"
    say(r, "frozen")
    assert message(v) == "FROZEN"
    say(r, "frozen_choice masse")
    assert message(v) == "MASSE"
    say(r, "call out", "point")
    assert message(v) == "LAST 2"


def test_the_equalizing_inning_and_an_extension_are_not_taken_for_a_frozen_ball():
    # The equalizing inning starts from the start (respot "start" in the state document): its
    # message says more than RESPOT would. A frozen ball in it with a choice shows the choice.
    board, chips, m, v, r = start(game="three_cushion", target=6, breaker=rules.A)
    say(r, "point", "point", "point", "point", "point", "point")
    assert m.phase == rules.EQUALIZING and m.respot == 1 and m.last_foul < 0
    assert shows(board, chips, v, r, "EQUALIZING INNING")
    say(r, "frozen")
    assert message(v) == "FROZEN"
    say(r, "frozen_choice free_ball")
    assert message(v) == "FREE BALL"
    say(r, "point")
    assert message(v) == "EQUALIZING INNING"
    say(r, "point", "point", "point", "point", "point")  # B equalizes: a draw, then extended
    assert m.phase == rules.FINISHED and message(v) == "DRAW"
    say(r, "extend 20")  # the breaker opens the extension from the start: true, so shown
    assert m.phase != rules.EQUALIZING and m.respot == 1 and message(v) == "RESPOT"
    say(r, "point")
    assert message(v) == ""


# ---- the elapsed match time on the clock ----------------------------------------------------------


def test_elapsed_time_as_hours_and_minutes_after_the_lag():
    board, chips, m, v, r = start(game="straight_rail", target=3, equalizing=False)
    assert clock_shows(board, chips, v, r.now, "    ", False)  # the lag: blank
    say(r, "wait 100", "lag A")
    assert clock_shows(board, chips, v, r.now, "    ", False)
    say(r, "choose A break")  # the match's first stroke is now
    assert clock_shows(board, chips, v, r.now, " 000", True)  # 0:00
    say(r, "wait 59")
    assert clock_shows(board, chips, v, r.now, " 000", True)
    say(r, "wait 6")  # 65 s: whole minutes, rounded down
    assert clock_shows(board, chips, v, r.now, " 001", True)
    say(r, "wait %d" % (67 * MINUTE - 65))
    assert clock_shows(board, chips, v, r.now, " 107", True)  # 1:07
    say(r, "wait 59")
    assert clock_shows(board, chips, v, r.now, " 107", True)
    say(r, "point", "point", "point")  # A wins at 1:07:59
    assert m.phase == rules.FINISHED
    say(r, "wait 3600")
    assert clock_shows(board, chips, v, r.now, " 107", True)  # stopped at the end


def test_elapsed_time_past_99_59_is_dashes():
    board, chips, m, v, r = start(game="three_cushion", target=3, breaker=rules.A)
    say(r, "wait 86400", "wait 86400", "wait 86400", "wait 86400", "wait %d" % (100 * 3600 - 4 * 86400 - 59))
    assert clock_shows(board, chips, v, r.now, "9959", True)  # 99:59 (and a second)
    say(r, "wait 59")
    assert clock_shows(board, chips, v, r.now, "----", False)  # 100:00 does not fit


def test_the_break_and_the_shot_clock_go_before_the_elapsed_time():
    board, chips, m, v, r = start(game="straight_rail", target=4, breaker=rules.A, break_s=300)
    say(r, "wait 125", "point", "point", "miss", "break_request B")
    assert clock_shows(board, chips, v, r.now, " 500", True)  # the break's 5:00
    say(r, "wait 30")
    assert clock_shows(board, chips, v, r.now, " 430", True)  # 4:30
    say(r, "resume")
    assert clock_shows(board, chips, v, r.now, " 002", True)  # back to the match's 0:02
    board, chips, m, v, r = start(game="three_cushion", target=2, breaker=rules.A, shot_clock=40)
    say(r, "wait 15")
    assert clock_shows(board, chips, v, r.now, "  25", False)  # the shot clock's seconds
    say(r, "point", "wait 35")
    assert clock_shows(board, chips, v, r.now, "   5", False)
    say(r, "point", "wait 20", "miss")  # A's target, B's equalizing inning missed at 70 s: A wins
    assert m.phase == rules.FINISHED
    say(r, "wait 600")
    assert clock_shows(board, chips, v, r.now, " 001", True)  # no shot clock at the end: the match's 1:10


def test_elapsed_time_is_blank_in_a_clock_slot_of_two_cells():
    d = {
        "schema": 1,
        "name": "narrow",
        "role": "wall",
        "description": "a 2-cell clock",
        "i2c": {"bus": 0, "sda": 21, "scl": 22},
        "displays": [{"addr": "0x70", "kind": "seg7", "show": [{"field": "clock", "at": 2, "width": 2}]}],
        "buttons": {"point": {"pin": 32, "active_low": True, "pull": "up", "action": "point"}},
    }
    board = boarddef.load(d)
    from test_view import FakeI2C
    from ht16k33_text import Seg7x4

    chip = Seg7x4(FakeI2C(), 0x70)
    m = rules.Match(game="three_cushion", target=5, breaker=rules.A)
    v = view.View(board, [chip], {}, m)
    r = Referee(m)
    say(r, "wait 300")
    v.render(r.now)
    assert looks(chip, "    ", colon=False)  # 5 minutes: no room for 0:05, and never a bare 5


def one_clock():
    """A board with one 4-digit display showing the clock (the referee box's, as if it showed it)."""
    import json

    with open("boards/referee.json") as f:
        d = json.load(f)
    d["displays"] = [{"addr": "0x70", "kind": "seg7", "show": "clock"}]
    return d


def test_a_board_with_only_a_clock_shows_the_elapsed_time_too():
    board, chips, m, v, r = start(one_clock(), game="three_cushion", target=5, breaker=rules.A)
    say(r, "wait 3720")
    v.render(r.now)
    assert looks(chips[0], " 102", colon=True)  # 1:02


# ---- nothing allocated --------------------------------------------------------------------------


def _locked_renders(chips, v, now):
    """Render each new state from scratch and at later marquee steps with the heap locked."""
    try:
        import micropython

        micropython.heap_lock
    except (ImportError, AttributeError):
        raise SkipTest("needs micropython.heap_lock")
    quiet(chips)
    micropython.heap_lock()
    try:
        v.invalidate()
        for k in range(12):
            v.render(now + k * view.SCROLL_MS)
    finally:
        micropython.heap_unlock()


def test_the_new_states_render_without_allocating():
    states = (
        ("balkline_47_1", ("call entre",)),  # OUT
        ("straight_rail", ("frozen",)),  # RESPOT
        ("three_cushion", ("frozen",)),  # FROZEN
        ("three_cushion", ("frozen", "frozen_choice start")),  # SPOTS
        ("balkline_71_2", ("frozen", "frozen_choice free_ball")),  # FREE BALL
        ("balkline_47_2", ("frozen", "frozen_choice masse")),  # MASSE
        ("straight_rail", ("wait 4020",)),  # the clock's 1:07
        ("straight_rail", ("wait 86400", "wait 86400", "wait 86400", "wait 86400", "wait 86400")),  # dashes
    )
    for game, lines in states:
        board, chips, m, v, r = start(game=game, target=50, breaker=rules.A, lines=lines)
        shown = message(v)
        _locked_renders(chips, v, r.now)
        assert message(v) == shown
    board, chips, m, v, r = start(one_clock(), game="straight_rail", target=50, breaker=rules.A, lines=("wait 4020",))
    _locked_renders(chips, v, r.now)
    assert looks(chips[0], " 107", colon=True)
