"""The rules core's rarer events, reading by reading (shared/rules/rules.md, "Further
rules of the original the board must keep"); runs on CPython and MicroPython.

lag_tie (I.1.3), abandon against left (I.8.2, I.4.3), a frozen ball and the player's choice
(I.5, II.1.3, II.2.7, II.3.3), the balls a jump sent off the table in three-cushion (II.3.4),
the restricted areas' count (II.1.2, II.2.3, II.2.4, III.4.3b), the review (III.4.9a), the
elapsed match time (III.4.2) and the time-out's own length. Every new entry is replayed: undo
then the same line again gives the same document; a rebuild from the log, a checkpoint at a
chunk boundary and the store's journal give it back too.
"""

import json

import matchdoc
import rules_setup
import reasons
import rules
import store
from faultfs import MemFs
from referee import Referee
import store_snapshot as snapshot_module
from store_snapshot import pack_snapshot, parse_snapshot
from test_rules import doc, play, refused, snapshot
from ticks import ticks_add

CUSHION = ("one_cushion", "three_cushion")
BALKLINE = ("balkline_47_2", "balkline_47_1", "balkline_71_2")
AREA_GAMES = ("straight_rail",) + BALKLINE
GAMES = AREA_GAMES + CUSHION


def replays(r, line):
    """Apply `line`; then undo it (the document before it comes back) and apply it again (the
    document after it comes back). No time may pass between the entry before and `line`."""
    before = snapshot(r)
    n = r.match.n
    assert r.line(line) is None, line
    after = snapshot(r)
    assert r.match.n == n + 1, line
    assert r.line("undo") is None, line
    assert snapshot(r) == before, "undo of %r" % line
    assert r.line(line) is None, line
    assert snapshot(r) == after, "redo of %r" % line
    return json.loads(after)


def rebuilt(m):
    """A new match with m's options and its entries applied one by one (m's clock base)."""
    f = rules.Match(**m.options())
    for i in range(m.n):
        code, arg, t = m.entry(i)
        rules_setup.apply(f, code, arg, t, rules_setup.arg2(m, i) if code == rules.E_EXTEND else -1)  # a handicap's B
    f._base = m._base
    f.closed = m.closed
    return f


def same_as_rebuilt(r):
    assert json.dumps(matchdoc.doc(rebuilt(r.match), r.now)) == snapshot(r)


# ---- lag tie (I.1.3) -------------------------------------------------------------------------


def test_lag_tie_lags_again_without_fault_or_collision():
    r = play("new game=three_cushion target=15")
    d = replays(r, "lag_tie")
    assert d["lag"] == {"chooser": None, "collisions": 0, "ties": 1} and d["phase"] == "lag"
    play("lag_collision A\nlag_tie\nlag_tie", r)
    assert doc(r)["lag"] == {"chooser": None, "collisions": 1, "ties": 3}
    # Ties do not count toward "collided twice": the next collision is the second, and only it
    # takes the choice from the player at fault.
    play("lag_collision A", r)
    assert doc(r)["lag"] == {"chooser": "B", "collisions": 2, "ties": 3}
    assert refused(r, "lag_tie") == reasons.LAG_DECIDED  # after the lag's winner is known
    play("choose B break", r)
    assert doc(r)["lag"] is None
    assert refused(r, "lag_tie") == reasons.LAG_DONE  # outside the lag
    r = play("new game=straight_rail target=50 breaker=A")
    assert refused(r, "lag_tie") == reasons.LAG_DONE
    assert "usage" in refused(r, "lag_tie A")
    same_as_rebuilt(r)


def test_lag_tie_undone():
    r = play("new game=three_cushion target=15\nlag_tie\nlag_tie\nlag A")
    play("undo", r)
    assert doc(r)["lag"] == {"chooser": None, "collisions": 0, "ties": 2}
    play("undo\nundo", r)
    assert doc(r)["lag"] == {"chooser": None, "collisions": 0, "ties": 0}
    assert refused(r, "undo") == reasons.NOTHING_TO_UNDO


# ---- abandon against left (I.8.2, I.4.3) ----------------------------------------------------------


def test_abandon_and_left_end_the_match_for_the_opponent():
    for word, ending in (("abandon", "abandoned"), ("left", "left")):
        for p, winner in (("A", "B"), ("B", "A")):
            r = play("new game=three_cushion target=15 breaker=A\npoint\nmiss\npoint")
            d = replays(r, "%s %s" % (word, p))
            assert d["phase"] == "finished" and d["result"] == winner and d["ended_by"] == ending, d
            assert d["turn"] is None
            assert refused(r, "abandon A") == reasons.FINISHED_ALREADY
            assert refused(r, "left B") == reasons.FINISHED_ALREADY
            play("undo", r)
            d = doc(r)
            assert d["phase"] == "running" and d["result"] is None and d["ended_by"] is None
            assert d["turn"] == "B" and d["players"]["B"]["score"] == 1
            play("%s %s\nclose" % (word, p), r)
            assert doc(r)["closed"] and doc(r)["ended_by"] == ending
    r = play("new game=straight_rail target=50")
    assert "player" in refused(r, "abandon C")
    assert "usage" in refused(r, "abandon")


def test_abandon_during_the_lag_and_a_pending_tiebreak():
    r = play("new game=three_cushion target=15\nlag A")
    d = replays(r, "abandon B")
    assert d["result"] == "A" and d["ended_by"] == "abandoned"
    r = play("new game=three_cushion target=1 breaker=A draw=off\npoint\npoint")
    assert doc(r)["phase"] == "tiebreak"
    d = replays(r, "abandon A")
    assert d["phase"] == "finished" and d["result"] == "B" and d["ended_by"] == "abandoned"


# ---- frozen balls (I.5, II.1.3, II.2.7, II.3.3) -------------------------------------------------------


def test_frozen_respots_or_leaves_the_choice_per_game():
    follows = {
        "straight_rail": "start",
        "one_cushion": "start",
        "balkline_47_2": "choice",
        "balkline_47_1": "choice",
        "balkline_71_2": "choice",
        "three_cushion": "choice",
    }
    for game in GAMES:
        r = play("new game=%s target=50 breaker=A\npoint" % game)
        d = replays(r, "frozen")
        assert d["respot"] == follows[game], game
        assert d["respot_balls"] is None and d["spots"] is None
        # No score changes; the player at the table goes on.
        assert d["players"]["A"]["score"] == 1 and d["current_run"] == 1 and d["turn"] == "A"
        assert d["players"]["A"]["fouls"] == 0 and d["last_foul"] is None
        play("undo", r)
        replays(r, "frozen A")
        same_as_rebuilt(r)


def test_frozen_choice_per_game():
    for game in BALKLINE + ("three_cushion",):
        start = "three_cushion" if game == "three_cushion" else "start"
        for choice, respot in (("start", start), ("free_ball", "free_ball"), ("masse", "masse")):
            r = play("new game=%s target=50 breaker=A\npoint\nfrozen" % game)
            d = replays(r, "frozen_choice " + choice)
            assert d["respot"] == respot, (game, choice)
            assert d["players"]["A"]["score"] == 1 and d["turn"] == "A"
            if respot == "three_cushion":  # only the frozen ball(s): not named, all three spots shown
                assert d["respot_balls"] is None
                assert d["spots"] == {"A": "baulk", "B": "centre", "red": "top"}
            else:
                assert d["spots"] is None
            # Chosen once: a second choice needs a new frozen ball.
            assert refused(r, "frozen_choice masse") == reasons.NO_FROZEN
            same_as_rebuilt(r)
    r = play("new game=balkline_47_2 target=50 breaker=A")
    assert refused(r, "frozen_choice start") == reasons.NO_FROZEN  # nothing frozen
    assert "unknown choice" in refused(r, "frozen_choice sideways")
    r = play("new game=straight_rail target=50 breaker=A\nfrozen")
    assert refused(r, "frozen_choice free_ball") == reasons.NO_FROZEN  # no choice in straight rail


def test_frozen_refused_outside_an_inning_and_for_the_other_player():
    r = play("new game=balkline_47_2 target=4")
    assert refused(r, "frozen") == reasons.IN_LAG
    assert refused(r, "frozen_choice start") == reasons.IN_LAG
    play("lag A\nchoose A break\npoint\npoint\nmiss", r)
    assert refused(r, "frozen A") == reasons.NOT_AT_TABLE
    assert "player" in refused(r, "frozen C")
    play("frozen B\nbreak_request B", r)  # a choice pending, then the break
    assert refused(r, "frozen") == reasons.NOT_PLAYING
    assert refused(r, "frozen B") == reasons.NOT_PLAYING
    assert refused(r, "frozen_choice masse") == reasons.NOT_PLAYING
    play("resume\nfrozen_choice masse", r)
    assert doc(r)["respot"] == "masse"
    play("point\npoint\npoint\npoint", r)
    assert doc(r)["phase"] == "finished"
    assert refused(r, "frozen") == reasons.FINISHED_ALREADY
    r = play("new game=three_cushion target=1 breaker=A draw=off\npoint\npoint")
    assert refused(r, "frozen") == reasons.FINISHED_ALREADY  # tie-break pending
    r = play("new game=three_cushion target=1 breaker=A\npoint")
    assert doc(r)["phase"] == "equalizing"
    d = replays(r, "frozen B")  # the equalizing inning is an inning
    assert d["respot"] == "choice"


def test_the_next_stroke_clears_the_respot():
    for stroke in ("point", "miss", "foul push", "foul A jumped"):
        r = play("new game=three_cushion target=50 breaker=A\nfrozen\nfrozen_choice free_ball")
        play(stroke, r)
        d = doc(r)
        if stroke == "foul A jumped":
            assert d["respot"] == "three_cushion" and d["respot_balls"] is None, stroke
        else:
            assert d["respot"] is None and d["respot_balls"] is None and d["spots"] is None, stroke
    # A call, a time-out or a review keep it.
    r = play("new game=balkline_47_1 target=50 breaker=A shot_clock=30\nfrozen\ncall entre\nreview B\ntimeout")
    assert doc(r)["respot"] == "choice"
    r = play("new game=three_cushion target=50 breaker=A\nfoul jumped red\nfrozen")
    d = doc(r)
    assert d["respot"] == "choice" and d["respot_balls"] is None  # a frozen ball follows the jump


def test_frozen_and_respot_to_the_start_ends_the_area_count():
    # All three balls on the starting position: the object balls are in no area any more.
    r = play("new game=straight_rail target=50 breaker=A\ncall entre\npoint")
    assert doc(r)["area"]["out_next"]
    d = replays(r, "frozen")
    assert d["respot"] == "start" and d["area"] is None
    r = play("new game=balkline_47_2 target=50 breaker=A\ncall entre anchor\npoint\nfrozen")
    assert doc(r)["area"]["caroms"] == 1  # the choice is not made yet: the balls lie where they were
    d = replays(r, "frozen_choice masse")
    assert d["area"] == {"anchor": True, "caroms": 1, "limit": 2, "out_next": True}
    play("undo", r)
    d = replays(r, "frozen_choice start")
    assert d["area"] is None


# ---- jumped balls in three-cushion (II.3.4) -------------------------------------------------------


def test_jumped_balls_go_to_their_spots():
    r = play("new game=three_cushion target=15 breaker=A\npoint")
    d = replays(r, "foul jumped B red")
    assert d["respot"] == "three_cushion" and d["respot_balls"] == ["B", "red"]
    assert d["last_foul"] == "jumped" and d["players"]["A"]["fouls"] == 1
    assert d["turn"] == "B"
    # The incoming player's ball on the baulk line, the other's on the centre spot, red on top.
    assert d["spots"] == {"B": "baulk", "A": "centre", "red": "top"}
    play("miss", r)
    assert doc(r)["respot"] is None and doc(r)["respot_balls"] is None and doc(r)["spots"] is None
    d = replays(r, "foul A jumped A B red")
    assert d["respot_balls"] == ["A", "B", "red"] and d["spots"] == {"B": "baulk", "A": "centre", "red": "top"}
    play("undo", r)
    d = replays(r, "foul jumped A")
    assert d["respot_balls"] == ["A"] and d["turn"] == "B"
    play("miss", r)  # B misses: A comes to the table
    d = replays(r, "foul jumped red A")
    assert d["respot_balls"] == ["A", "red"] and d["spots"] == {"A": "centre", "B": "baulk", "red": "top"}
    play("point", r)
    d = replays(r, "foul B jumped B")
    assert d["spots"] == {"A": "baulk", "B": "centre", "red": "top"}
    same_as_rebuilt(r)


def test_jumped_balls_that_end_the_match_have_no_incoming_player():
    r = play("new game=three_cushion target=1 breaker=A\npoint")
    d = replays(r, "foul jumped A red")  # the equalizing inning ends with the foul: A wins
    assert d["phase"] == "finished" and d["result"] == "A"
    assert d["respot_balls"] == ["A", "red"] and d["spots"] is None


def test_jumped_balls_named_only_in_three_cushion():
    for game in GAMES:
        r = play("new game=%s target=15 breaker=A" % game)
        if game == "three_cushion":
            assert "twice" in refused(r, "foul jumped red red")
            assert "twice" in refused(r, "foul A jumped A B A")
            assert "unknown ball" in refused(r, "foul jumped white")
            assert refused(r, "foul B jumped red") == reasons.NOT_AT_TABLE
            assert "only a jumped foul" in refused(r, "foul push red")
        else:
            assert refused(r, "foul jumped red") == reasons.BALLS_3C, game
            assert refused(r, "foul A jumped A B") == reasons.BALLS_3C, game
        # Without balls, as before, in every game.
        d = replays(r, "foul A jumped")
        assert d["respot"] == ("three_cushion" if game == "three_cushion" else "start"), game
        assert d["respot_balls"] is None and d["last_foul"] == "jumped" and d["turn"] == "B"
        assert d["spots"] == ({"B": "baulk", "A": "centre", "red": "top"} if game == "three_cushion" else None)
    r = play("new game=three_cushion target=15")
    assert refused(r, "foul jumped red") == reasons.IN_LAG


# ---- restricted areas (II.1.2, II.2.3, II.2.4, III.4.3b) -----------------------------------------------


def test_area_limit_per_game():
    for game in AREA_GAMES:
        limit = 1 if game == "balkline_47_1" else 2
        r = play("new game=%s target=50 breaker=A" % game)
        assert doc(r)["area"] is None
        d = replays(r, "call entre")
        assert d["area"] == {"anchor": False, "caroms": 0, "limit": limit, "out_next": limit == 1}, game
        assert d["last_call"] == "entre"
        d = replays(r, "point")
        assert d["area"] == {"anchor": False, "caroms": 1, "limit": limit, "out_next": True}, game
        d = replays(r, "call dedans")  # inside: the count goes on
        assert d["area"]["caroms"] == 1 and d["last_call"] == "dedans"
        d = replays(r, "call a_cheval")
        assert d["area"]["caroms"] == 1
        d = replays(r, "call out")  # a ball left the area: the count ends
        assert d["area"] is None and d["last_call"] == "out"
        play("point", r)
        assert doc(r)["area"] is None and doc(r)["last_call"] is None
        d = replays(r, "call dedans")  # from outside: one carom was made in the area
        assert d["area"] == {"anchor": False, "caroms": 1, "limit": limit, "out_next": True}
        play("point", r)
        assert doc(r)["area"]["caroms"] == 2
        d = replays(r, "call entre")  # entre again: a new count
        assert d["area"]["caroms"] == 0 and d["area"]["out_next"] == (limit == 1)
        play("point\nmiss", r)  # a new inning: the balls are elsewhere
        assert doc(r)["area"] is None
        d = replays(r, "call a_cheval")  # a ball on the line counts as inside; no carom yet
        assert d["area"] == {"anchor": False, "caroms": 0, "limit": limit, "out_next": limit == 1}
        play("foul B zone", r)  # zone stays the foul for a carom past the limit
        assert doc(r)["last_foul"] == "zone" and doc(r)["area"] is None
        same_as_rebuilt(r)


def test_anchor_calls():
    r = play("new game=balkline_71_2 target=50 breaker=A")
    d = replays(r, "call entre anchor")
    assert d["area"] == {"anchor": True, "caroms": 0, "limit": 2, "out_next": False}
    play("point", r)
    d = replays(r, "call dedans")  # the anchor stays an anchor while the count goes on
    assert d["area"] == {"anchor": True, "caroms": 1, "limit": 2, "out_next": True}
    d = replays(r, "call entre")  # entre in an area (not an anchor): a new count, no anchor
    assert d["area"] == {"anchor": False, "caroms": 0, "limit": 2, "out_next": False}
    play("point", r)
    d = replays(r, "call dedans anchor")  # the area call before the anchor call: one count
    assert d["area"] == {"anchor": True, "caroms": 1, "limit": 2, "out_next": True}
    assert refused(r, "call out anchor") == reasons.BAD_KIND
    assert "usage" in refused(r, "call entre anchor anchor")
    assert "usage" in refused(r, "call entre corner")
    assert "usage" in refused(r, "call")
    play("call out", r)
    assert doc(r)["area"] is None


def test_area_calls_refused_in_cushion_games_and_outside_play():
    for game in CUSHION:
        r = play("new game=%s target=50 breaker=A" % game)
        for line in ("call entre", "call dedans anchor", "call out", "call a_cheval"):
            assert refused(r, line) == reasons.CUSHION_GAME, (game, line)
        play("point", r)
        assert doc(r)["area"] is None
    r = play("new game=straight_rail target=1 breaker=A equalizing=off")
    play("point", r)
    assert refused(r, "call entre") == reasons.FINISHED_ALREADY
    r = play("new game=straight_rail target=50")
    assert refused(r, "call entre") == reasons.IN_LAG


def test_the_area_count_of_a_long_run():
    # 47/1: every carom must bring a ball out; straight rail: every second.
    r = play("new game=balkline_47_1 target=50 breaker=A\ncall entre")
    for _ in range(3):
        assert r.match.out_next()
        play("point\ncall out\ncall entre", r)
    r = play("new game=straight_rail target=50 breaker=A\ncall entre")
    outs = []
    for _ in range(3):
        outs.append(r.match.out_next())
        play("point", r)
        outs.append(r.match.out_next())
        play("point\ncall out\ncall entre", r)
    assert outs == [False, True] * 3


def test_the_end_of_the_match_ends_the_area_count():
    # No next carom after the end: no OUT on the board, no area in the document; an undo brings it back.
    for end in ("abandon B", "left A", "point\npoint"):
        r = play("new game=balkline_47_2 target=3 breaker=A equalizing=off\ncall entre\npoint\n" + end)
        assert doc(r)["phase"] == "finished" and doc(r)["area"] is None and not r.match.out_next(), end
    play("undo", r)
    assert doc(r)["area"] == {"anchor": False, "caroms": 2, "limit": 2, "out_next": True}


# ---- review (III.4.9a) ----------------------------------------------------------------------------------


def test_review_once_per_player():
    r = play("new game=three_cushion target=15 breaker=A\npoint")
    assert doc(r)["review_used"] == {"A": False, "B": False}
    d = replays(r, "review A")
    assert d["review_used"] == {"A": True, "B": False}
    assert d["players"]["A"]["score"] == 1 and d["turn"] == "A" and d["current_run"] == 1
    assert refused(r, "review A") == reasons.REVIEW_USED
    d = replays(r, "review B")  # the other player still may
    assert d["review_used"] == {"A": True, "B": True}
    assert refused(r, "review B") == reasons.REVIEW_USED
    assert "player" in refused(r, "review C")
    assert "usage" in refused(r, "review")


def test_review_in_every_phase_before_the_close_and_not_renewed_by_an_extension():
    r = play("new game=three_cushion target=1 breaker=B")
    play("point\npoint", r)  # a draw
    assert doc(r)["result"] == "draw"
    d = replays(r, "review A")  # after the end, until the report is signed
    assert d["review_used"] == {"A": True, "B": False} and d["result"] == "draw"
    play("extend 2", r)
    assert refused(r, "review A") == reasons.REVIEW_USED  # an extension gives no new one
    play("point\npoint\nclose", r)
    assert refused(r, "review B") == reasons.CLOSED
    r = play("new game=three_cushion target=15")
    d = replays(r, "review B")  # in the lag
    assert d["review_used"] == {"A": False, "B": True} and d["phase"] == "lag"


def test_review_survives_undo_of_later_entries_and_comes_back_with_its_own():
    r = play("new game=three_cushion target=15 breaker=A\nreview A\npoint\nmiss\npoint")
    play("undo\nundo\nundo", r)
    assert doc(r)["review_used"] == {"A": True, "B": False}
    assert refused(r, "review A") == reasons.REVIEW_USED
    play("undo", r)
    assert doc(r)["review_used"] == {"A": False, "B": False}
    play("review A", r)  # given back: it may be asked again
    play("new game=three_cushion target=15 breaker=A", r)
    assert doc(r)["review_used"] == {"A": False, "B": False}  # once per match


# ---- elapsed match time (III.4.2) ----------------------------------------------------------------------


def test_elapsed_time_from_the_first_stroke_to_the_end():
    r = play("new game=straight_rail target=2 break_s=60\nwait 30")
    assert doc(r)["elapsed_s"] is None  # the lag
    play("lag A\nwait 20", r)
    assert doc(r)["elapsed_s"] is None
    play("choose A break", r)
    assert doc(r)["elapsed_s"] == 0  # counted from the choice: the first stroke follows it
    play("wait 61.5", r)
    assert doc(r)["elapsed_s"] == 61
    play("point\nmiss\nbreak_request B\nwait 30", r)  # through the break
    assert doc(r)["phase"] == "break" and doc(r)["elapsed_s"] == 91
    play("wait 40", r)
    assert doc(r)["phase"] == "running" and doc(r)["elapsed_s"] == 131
    play("point\nwait 9\npoint", r)  # B reaches the target (he did not break): he wins at once
    d = doc(r)
    assert d["phase"] == "finished" and d["elapsed_s"] == 140
    play("wait 500", r)
    assert doc(r)["elapsed_s"] == 140  # stopped at the end
    assert r.match.elapsed_ms(ticks_add(r.now, 1000000)) == 140500


def test_elapsed_time_with_a_tiebreak_and_an_extension():
    r = play("new game=three_cushion target=1 breaker=A draw=off\nwait 10\npoint\nwait 5\npoint")
    assert doc(r)["phase"] == "tiebreak" and doc(r)["elapsed_s"] == 15
    play("wait 50", r)
    assert doc(r)["elapsed_s"] == 15
    play("tiebreak A\nwait 20", r)
    assert doc(r)["result"] == "A" and doc(r)["elapsed_s"] == 15  # the draw's time
    play("undo", r)
    assert doc(r)["elapsed_s"] == 15
    play("wait 5\nextend 3", r)  # the match goes on: its time since the first stroke
    assert doc(r)["elapsed_s"] == 20
    play("wait 12", r)
    assert doc(r)["elapsed_s"] == 32
    play("point\npoint\nwait 2\nmiss", r)  # A makes 3, B's equalizing inning is empty
    d = doc(r)
    assert d["phase"] == "finished" and d["ended_by"] == "target" and d["result"] == "A"
    assert d["elapsed_s"] == 34
    play("wait 100", r)
    assert doc(r)["elapsed_s"] == 34


def test_elapsed_time_with_the_breaker_preset_counts_from_new():
    r = play("new game=three_cushion target=5 breaker=B")
    assert doc(r)["elapsed_s"] == 0
    play("wait 12.9", r)
    assert doc(r)["elapsed_s"] == 12
    play("miss\nwait 3\nleft A", r)
    assert doc(r)["elapsed_s"] == 15
    play("wait 60", r)
    assert doc(r)["elapsed_s"] == 15


def test_elapsed_time_of_a_match_that_ended_in_the_lag():
    # No stroke was played: no match time to show.
    for word in ("left", "abandon"):
        r = play("new game=three_cushion target=15\nwait 40\nlag A\nwait 20\n%s B\nwait 5" % word)
        d = doc(r)
        assert d["phase"] == "finished" and d["elapsed_s"] is None, word
        assert r.match.elapsed_ms(r.now) == -1


# ---- the time-out's own length ------------------------------------------------------------------


def test_timeout_length_defaults_to_one_more_shot_period():
    for clock, extra, limit in (
        (30, "", 60),
        (40, "", 80),
        (40, " timeout_s=20", 60),
        (30, " timeout_s=300", 330),
        (10, " timeout_s=10", 20),
    ):
        r = play("new game=three_cushion target=30 breaker=A shot_clock=%d%s" % (clock, extra))
        d = doc(r)
        assert d["options"]["timeout_s"] == limit - clock and d["shot_clock"]["limit_s"] == clock
        play("wait %d" % (clock + 1), r)  # the clock takes a time-out by itself
        d = doc(r)
        assert d["shot_clock"] == {"left_s": limit - clock - 1, "limit_s": limit}, (clock, extra, d["shot_clock"])
        assert d["players"]["A"]["timeouts_left"] == 2
        play("undo\ntimeout", r)  # asked for
        assert doc(r)["shot_clock"]["limit_s"] == limit
        opts = r.match.options()
        assert opts["timeout_s"] == (int(extra.split("=")[1]) if extra else None)
        m = rules.Match(**opts)
        assert matchdoc.doc(m, 0)["options"] == doc(r)["options"]
        # The snapshot (format 3 and on) keeps it, the default as the default.
        buf = snapshot_of(r.match)
        assert buf[4] == snapshot_module.FORMAT
        assert parse_snapshot(bytes(buf)) == (9, opts)


def snapshot_of(m):
    return pack_snapshot(9, m)


def test_bad_timeout_lengths_are_refused():
    r = play("new game=three_cushion target=30 breaker=A shot_clock=40 timeout_s=25\npoint")
    for bad in ("9", "301", "x", "0", "-10", "2.5"):
        reason = refused(r, "new game=three_cushion target=30 shot_clock=40 timeout_s=" + bad)
        assert reason in (reasons.BAD_TIMEOUT_S, "timeout_s must be a whole number, not %r" % bad), (bad, reason)
    m = rules.Match()
    for bad in (9, 301, "30", 30.0, -1):
        assert reasons.text(m.new(0, timeout_s=bad)) == reasons.BAD_TIMEOUT_S, bad
    assert doc(r)["options"]["timeout_s"] == 25 and doc(r)["players"]["A"]["score"] == 1


# ---- every new entry replays: the log, a checkpoint, the store ------------------------------------------

LAG_SCRIPT = """new game=three_cushion target=3 shot_clock=30 timeout_s=15 name_A=Jaspers name_B=Zanetti
lag_tie
lag_collision
lag_tie
review B
lag B
choose B give
frozen
frozen_choice start
point
foul jumped A red
frozen B
frozen_choice masse
review A
point
foul B jumped
miss
point
point"""

AREA_SCRIPT = """new game=balkline_47_1 target=4 breaker=A timeout_s=20
call entre anchor
point
call out
call dedans
frozen
frozen_choice free_ball
review A
point
call a_cheval
miss
frozen
frozen_choice start
miss
call entre
abandon B
review B"""


def lines_of(script):
    return [line.strip() for line in script.strip().split("\n")]


def test_every_new_entry_undone_and_redone():
    for script in (LAG_SCRIPT, AREA_SCRIPT):
        lines = lines_of(script)
        r = play(lines[0])
        for line in lines[1:]:
            replays(r, line)
            same_as_rebuilt(r)
        assert doc(r)["phase"] == "finished", script


def test_a_checkpoint_keeps_the_new_fields():
    # The state at a chunk boundary (the checkpoint undo starts from) holds every new field.
    for game, setup in (
        ("balkline_47_2", ["call entre anchor", "point", "review B", "frozen"]),
        ("three_cushion", ["review A", "point", "foul jumped A B"]),
        ("three_cushion", ["frozen", "frozen_choice start"]),
    ):
        r = play("new game=%s target=999 breaker=A shot_clock=60 timeout_s=45\nwait 7" % game)
        while r.match.n < rules.CHUNK - len(setup):
            play("point" if r.match.n % 5 else "miss", r)
        play("\n".join(setup), r)
        assert r.match.n == rules.CHUNK
        at = snapshot(r)
        play(
            "point\nwait 3\nreview A\nfrozen\nmiss\ncall out"
            if game != "three_cushion"
            else "point\nwait 3\nreview B\nfrozen\nmiss",
            r,
        )
        while r.match.n > rules.CHUNK:
            play("undo", r)
        assert snapshot(r) == at, game
    # The lag's ties, at a boundary.
    r = play("new game=three_cushion target=15\nwait 5")
    for _ in range(rules.CHUNK):
        play("lag_tie", r)
    at = snapshot(r)
    play("lag_tie\nlag_tie\nlag A\nchoose A break", r)
    play("undo\nundo\nundo\nundo", r)
    assert snapshot(r) == at and doc(r)["lag"]["ties"] == rules.CHUNK
    # A finished match's end time, at a boundary.
    r = play("new game=straight_rail target=%d breaker=A equalizing=off" % (rules.CHUNK + 5))
    play("wait 4", r)
    while r.match.n < rules.CHUNK - 1:
        play("point", r)
    play("wait 6\nabandon A", r)
    assert r.match.n == rules.CHUNK and doc(r)["elapsed_s"] == 10
    at = snapshot(r)
    play("review A\nreview B\nundo\nwait 3", r)
    play("undo", r)
    assert snapshot(r) == at


ROOT = "/sb"


def saved_and_restored(script):
    """Play `script`, saving after each line; after every line a new store on the same files
    restores the match: its document at the newest entry's time must be the live one's."""
    fs = MemFs()
    s = store.MatchStore(ROOT, fs)
    r = Referee(now=5000)
    for line in lines_of(script):
        assert r.line(line) is None, line
        if line.startswith("new "):
            assert s.begin(r.match) is None
        assert s.sync(r.match) is None, line
        m = r.match
        t = m.entry(m.n - 1)[2] if m.n else 0
        want = matchdoc.doc(m, ticks_add(r.now, t - m._time(r.now)))
        m2 = rules.Match()
        assert store.MatchStore(ROOT, fs).restore(m2, 987654), line
        assert matchdoc.doc(m2, 987654) == want, line
    return r, m2


def test_a_match_with_the_new_events_saved_and_restored():
    for script in (LAG_SCRIPT, AREA_SCRIPT):
        r, m2 = saved_and_restored(script + "\nclose")
        assert m2.closed and matchdoc.doc(m2, 0)["closed"]
        assert m2.options() == r.match.options()
        assert [m2.entry(i) for i in range(m2.n)] == [r.match.entry(i) for i in range(r.match.n)]
    r, m2 = saved_and_restored(LAG_SCRIPT.split("\n")[0] + "\nlag A\nchoose A break\nwait 31")
    assert m2.options()["timeout_s"] == 15 and matchdoc.doc(m2, 987654)["shot_clock"]["limit_s"] == 45
    r, m2 = saved_and_restored("new game=straight_rail target=10 shot_clock=40\nlag_tie")
    assert m2.options()["timeout_s"] is None and matchdoc.doc(m2, 0)["options"]["timeout_s"] == 40


def test_the_api_refuses_bad_players_and_kinds():
    import rules_events

    m = rules.Match(game="three_cushion", target=15, breaker=rules.A)
    assert m.point(rules.NOBODY, 0) is None
    before = json.dumps(matchdoc.doc(m, 0))
    for call, reason in (
        (lambda: rules_events.review(m, 2, 0), reasons.BAD_PLAYER),
        (lambda: rules_events.review(m, -1, 0), reasons.BAD_PLAYER),
        (lambda: rules_events.abandon(m, 2, 0), reasons.BAD_PLAYER),
        (lambda: rules_events.abandon(m, rules.NOBODY, 0), reasons.BAD_PLAYER),
        (lambda: rules_events.frozen(m, 2, 0), reasons.BAD_PLAYER),
        (lambda: rules_events.frozen_choice(m, 3, 0), reasons.BAD_KIND),
        (lambda: rules_events.frozen_choice(m, -1, 0), reasons.BAD_KIND),
        (lambda: rules_events.jumped(m, rules.A, 0, 0), reasons.BAD_KIND),
        (lambda: rules_events.jumped(m, rules.A, 8, 0), reasons.BAD_KIND),
        (lambda: rules_events.jumped(m, 2, 1, 0), reasons.BAD_PLAYER),
        (lambda: rules_events.jumped(m, rules.B, 1, 0), reasons.NOT_AT_TABLE),
        (lambda: rules_events.call(m, len(rules.CALLS), 0), reasons.BAD_KIND),
        (lambda: rules_events.call(m, -1, 0), reasons.BAD_KIND),
        (lambda: rules_events.lag_tie(m, 0), reasons.LAG_DONE),
    ):
        assert reasons.text(call()) == reason
        assert json.dumps(matchdoc.doc(m, 0)) == before
    assert m.n == 1
