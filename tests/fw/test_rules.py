"""The rules core, rule by rule (shared/rules/rules.md); runs on CPython and MicroPython.

Each test plays referee lines through referee.Referee; a line starting with
"!" must be refused (and is checked to change nothing).
"""

import json

from fwtest import SkipTest

import matchdoc
import rules_events
import reasons
import rules
from ticks import ticks_add
from referee import Referee


def snapshot(r):
    return json.dumps(matchdoc.doc(r.match, r.now))


def play(script, r=None):
    r = r or Referee()
    for line in script.strip().split("\n"):
        line = line.strip()
        if not line or line[0] == "#":
            continue
        if line[0] == "!":
            before = snapshot(r)
            n = r.match.n
            reason = r.line(line[1:])
            assert reason, "expected a refusal: " + line
            assert isinstance(reason, str) and reason
            assert r.match.n == n, line
            assert snapshot(r) == before, "refused event changed the state: " + line
        else:
            reason = r.line(line)
            assert reason is None, "%s: refused: %s" % (line, reason)
    return r


def doc(r):
    return matchdoc.doc(r.match, r.now)


def refused(r, line):
    before = snapshot(r)
    reason = r.line(line)
    assert reason, line
    assert snapshot(r) == before, line
    return reason


# ---- start of the match: lag and choice (I.1) -----------------------------


def test_lag_winner_chooses_to_break():
    r = play("new game=three_cushion target=15\nlag A\nchoose A break")
    d = doc(r)
    assert d["phase"] == "running" and d["breaker"] == "A" and d["turn"] == "A"
    assert d["players"]["A"]["innings"] == 1 and d["players"]["B"]["innings"] == 0
    assert d["spot_ball"] == "A"


def test_lag_winner_gives_the_break():
    r = play("new game=three_cushion target=15\nlag B\nchoose B give")
    d = doc(r)
    assert d["breaker"] == "A" and d["turn"] == "A" and d["spot_ball"] == "A"


def test_lag_phase_before_choice():
    r = play("new game=straight_rail target=50")
    d = doc(r)
    assert d["phase"] == "lag" and d["turn"] is None and d["breaker"] is None
    assert d["spot_ball"] is None and d["countdown"] is None
    assert d["lag"] == {"chooser": None, "collisions": 0, "ties": 0}
    play("lag A", r)
    assert doc(r)["lag"]["chooser"] == "A"


def test_lag_refusals():
    r = play("new game=three_cushion target=15")
    assert refused(r, "choose A break") == reasons.NO_CHOICE_YET
    assert refused(r, "point") == reasons.IN_LAG
    assert refused(r, "miss") == reasons.IN_LAG
    assert refused(r, "foul push") == reasons.IN_LAG
    assert refused(r, "break_request A") == reasons.IN_LAG
    play("lag A", r)
    assert refused(r, "lag B") == reasons.LAG_DECIDED
    assert refused(r, "lag_fault B short") == reasons.LAG_DECIDED
    assert refused(r, "choose B break") == reasons.NOT_CHOOSER
    play("choose A break", r)
    assert refused(r, "lag A") == reasons.LAG_DONE
    assert refused(r, "choose A break") == reasons.LAG_DONE
    assert refused(r, "lag_collision") == reasons.LAG_DONE


def test_lag_collision_second_time_player_at_fault_loses_choice():
    r = play("new game=three_cushion target=15\nlag_collision A")
    assert doc(r)["lag"] == {"chooser": None, "collisions": 1, "ties": 0}  # first: lag again
    play("lag_collision A", r)
    assert doc(r)["lag"]["chooser"] == "B"
    play("choose B break", r)
    assert doc(r)["breaker"] == "B"


def test_lag_collision_without_fault_lags_again():
    r = play("new game=three_cushion target=15\nlag_collision\nlag_collision\nlag_collision")
    assert doc(r)["lag"] == {"chooser": None, "collisions": 3, "ties": 0}
    play("lag B\nchoose B break", r)
    assert doc(r)["turn"] == "B"


def test_lag_faults_give_the_choice_to_the_opponent():
    for kind in rules.LAG_FAULTS:
        r = play("new game=one_cushion target=50\nlag_fault A " + kind)
        assert doc(r)["lag"]["chooser"] == "B", kind
    r = Referee()
    assert "unknown lag fault" in refused(r, "lag_fault A sideways")
    assert "player" in refused(r, "lag_fault C short")


def test_breaker_set_directly_and_white_ball_option():
    r = play("new game=three_cushion target=15 breaker=B")
    d = doc(r)
    assert d["phase"] == "running" and d["turn"] == "B" and d["spot_ball"] == "B"
    r = play("new game=three_cushion target=15 breaker=B breaker_ball=white")
    assert doc(r)["spot_ball"] == "A"


# ---- innings, runs, fouls (I.9.2) ------------------------------------------


def test_points_runs_innings_high_run_average():
    r = play("""
        new game=straight_rail target=50 breaker=A
        point
        point
        point
        miss
        point B
        miss B
        point A
        miss A
    """)
    d = doc(r)
    a, b = d["players"]["A"], d["players"]["B"]
    assert a["score"] == 4 and a["innings"] == 2 and a["runs"] == [3, 1] and a["high_run"] == 3
    assert b["score"] == 1 and b["innings"] == 2 and b["runs"] == [1, 0] and b["high_run"] == 1
    assert a["average"] == 2.0 and b["average"] == 0.5
    assert d["turn"] == "B" and d["current_run"] == 0
    assert r.match.average_x1000(rules.A) == 2000 and r.match.average_x1000(rules.B) == 500


def test_high_run_includes_run_in_progress():
    r = play("new game=straight_rail target=50 breaker=A\npoint\npoint")
    assert doc(r)["players"]["A"]["high_run"] == 2 and doc(r)["current_run"] == 2


def test_average_three_decimals():
    r = play("new game=three_cushion target=30 breaker=A\npoint\nmiss\nmiss\nmiss\nmiss")
    assert doc(r)["players"]["A"]["average"] == 0.333  # 1 point in 3 innings


def test_average_is_truncated_never_rounded_up():
    # 2 points in 3 innings is 0.666 (never 0.667: an average not reached); 30 in 14 is 2.142.
    r = play("new game=three_cushion target=40 breaker=A\npoint\npoint\nmiss\nmiss\nmiss\nmiss\nmiss")
    assert doc(r)["players"]["A"]["average"] == 0.666 and r.match.average_x1000(rules.A) == 666
    script = ["new game=straight_rail target=30 breaker=A"]
    for k in range(14):  # A: 13 innings of 2, the 14th of 4; B misses each
        script += ["point"] * (4 if k == 13 else 2) + ["miss"] + (["miss"] if k < 13 else [])
    r = play("\n".join(script))
    a = doc(r)["players"]["A"]
    assert (a["score"], a["innings"], a["average"]) == (30, 14, 2.142)
    assert r.match.average_x1000(rules.A) == 2142


def test_every_foul_ends_inning_and_keeps_points_before_it():
    for kind in rules.FOULS[1:]:
        game = "straight_rail"
        r = play("new game=%s target=50 breaker=A\npoint\npoint\nfoul %s" % (game, kind))
        d = doc(r)
        assert d["players"]["A"]["score"] == 2, kind
        assert d["players"]["A"]["runs"] == [2], kind
        assert d["players"]["A"]["fouls"] == 1, kind
        assert d["last_foul"] == kind and d["turn"] == "B", kind
        assert d["players"]["B"]["innings"] == 1


def test_miss_is_not_a_foul():
    r = play("new game=three_cushion target=15 breaker=A\nmiss\nfoul B miss")
    d = doc(r)
    assert d["players"]["A"]["fouls"] == 0 and d["players"]["B"]["fouls"] == 0
    assert d["last_foul"] is None and d["turn"] == "A" and d["players"]["A"]["innings"] == 2


def test_last_foul_cleared_by_next_stroke():
    r = play("new game=three_cushion target=15 breaker=A\nfoul push")
    assert doc(r)["last_foul"] == "push"
    play("point", r)
    assert doc(r)["last_foul"] is None


def test_jumped_ball_respot():
    r = play("new game=three_cushion target=15 breaker=A\nfoul jumped")
    assert doc(r)["respot"] == "three_cushion"
    for game in ("straight_rail", "balkline_47_2", "balkline_47_1", "balkline_71_2", "one_cushion"):
        r = play("new game=%s target=50 breaker=A\nfoul jumped" % game)
        assert doc(r)["respot"] == "start", game


def test_zone_foul_only_in_straight_rail_and_balkline():
    for game in ("one_cushion", "three_cushion"):
        r = play("new game=%s target=15 breaker=A" % game)
        assert refused(r, "foul zone") == reasons.CUSHION_GAME
    for game in ("straight_rail", "balkline_47_2", "balkline_47_1", "balkline_71_2"):
        r = play("new game=%s target=50 breaker=A\nfoul zone" % game)
        assert doc(r)["last_foul"] == "zone"


def test_named_player_must_be_at_the_table():
    r = play("new game=three_cushion target=15 breaker=A")
    assert refused(r, "point B") == reasons.NOT_AT_TABLE
    assert refused(r, "miss B") == reasons.NOT_AT_TABLE
    assert refused(r, "foul B push") == reasons.NOT_AT_TABLE
    play("point A\nmiss A\npoint B", r)


def test_reaching_target_ends_inning_at_once():
    r = play("new game=three_cushion target=2 breaker=B equalizing=off\npoint\npoint")
    d = doc(r)
    assert d["phase"] == "finished" and d["result"] == "B" and d["turn"] is None
    assert refused(r, "point") == reasons.FINISHED_ALREADY
    assert d["current_run"] == 2  # the last inning's run once the match is over


# ---- countdown (III.4.11a) --------------------------------------------------


def test_countdown_last_five():
    r = play("new game=straight_rail target=10 breaker=A")
    for _ in range(4):
        play("point", r)
        assert doc(r)["countdown"] is None
    for left in (5, 4, 3, 2, 1):
        play("point", r)
        assert doc(r)["countdown"] == left, left
    play("miss", r)
    assert doc(r)["countdown"] is None  # B needs 10
    assert doc(r)["turn"] == "B"


def test_countdown_last_three_in_three_cushion():
    r = play("new game=three_cushion target=6 breaker=A\npoint\npoint")
    assert doc(r)["countdown"] is None
    play("point", r)
    assert doc(r)["countdown"] == 3


def test_countdown_follows_player_at_table():
    r = play("new game=one_cushion target=5 breaker=A\npoint\npoint")
    assert doc(r)["countdown"] == 3  # A needs 3
    play("miss", r)
    assert doc(r)["countdown"] == 5  # B at the table needs 5
    play("undo", r)
    assert doc(r)["countdown"] == 3


def test_countdown_target_below_window_from_start():
    r = play("new game=straight_rail target=3 breaker=A")
    assert doc(r)["countdown"] == 3
    r = play("new game=three_cushion target=2 breaker=A")
    assert doc(r)["countdown"] == 2


# ---- end of the match: equalizing inning, draw, extension (I.8) -----------


def test_equalizing_inning_then_win():
    r = play("new game=three_cushion target=3 breaker=A\nmiss\nmiss\npoint\npoint\npoint")
    d = doc(r)
    assert d["phase"] == "equalizing" and d["equalizing_inning"] and d["turn"] == "B"
    assert d["players"]["A"]["innings"] == 2 and d["players"]["B"]["innings"] == 2
    assert d["respot"] == "start"  # the equalizing inning starts from the starting position
    assert d["countdown"] == 3
    play("point\nmiss", r)
    d = doc(r)
    assert d["phase"] == "finished" and d["result"] == "A" and d["ended_by"] == "target"
    assert d["players"]["B"]["score"] == 1


def test_equalizing_inning_draw():
    r = play("new game=three_cushion target=2 breaker=A\npoint\npoint\npoint\npoint")
    d = doc(r)
    assert d["phase"] == "finished" and d["result"] == "draw"
    assert d["players"]["A"]["innings"] == d["players"]["B"]["innings"] == 1


def test_equalizing_foul_loses():
    r = play("new game=three_cushion target=2 breaker=A\npoint\npoint\npoint\nfoul touched")
    assert doc(r)["result"] == "A"


def test_non_breaker_reaching_target_wins_at_once():
    r = play("new game=three_cushion target=2 breaker=A\nmiss\npoint\npoint")
    d = doc(r)
    assert d["phase"] == "finished" and d["result"] == "B"
    assert d["players"]["A"]["innings"] == d["players"]["B"]["innings"] == 1


def test_no_equalizing_option():
    r = play("new game=three_cushion target=2 breaker=A equalizing=off\npoint\npoint")
    d = doc(r)
    assert d["result"] == "A" and d["players"]["B"]["innings"] == 0


def test_draw_not_allowed_means_tiebreak():
    r = play("new game=three_cushion target=1 breaker=A draw=off\npoint\npoint")
    d = doc(r)
    assert d["phase"] == "tiebreak" and d["result"] == "tiebreak" and d["turn"] is None
    assert refused(r, "close") == reasons.TIEBREAK_PENDING
    assert refused(r, "point") == reasons.FINISHED_ALREADY
    assert refused(r, "tiebreak C")
    play("tiebreak B", r)
    d = doc(r)
    assert d["phase"] == "finished" and d["result"] == "B" and d["ended_by"] == "tiebreak"
    assert refused(r, "tiebreak A") == reasons.NO_TIEBREAK
    play("close", r)


def test_extension_after_draw_repeatable():
    r = play("new game=three_cushion target=2 breaker=A\npoint\npoint\npoint\npoint")
    assert refused(r, "extend 2") == reasons.EXTEND_LOW
    play("extend 4", r)
    d = doc(r)
    assert d["phase"] == "running" and d["target"] == 4 and d["turn"] == "A" and d["result"] is None
    assert d["players"]["A"]["innings"] == 2 and d["countdown"] == 2
    play("point\npoint", r)  # A reaches 4: equalizing applies again
    assert doc(r)["phase"] == "equalizing"
    play("point\npoint", r)
    assert doc(r)["result"] == "draw"
    play("extend 5\npoint\nmiss", r)  # A reaches 5, B fails in his equalizing inning
    d = doc(r)
    assert d["result"] == "A" and d["target"] == 5 and d["players"]["B"]["innings"] == 3


def test_extension_from_tiebreak():
    r = play("new game=three_cushion target=1 breaker=A draw=off\npoint\npoint\nextend 2")
    assert doc(r)["phase"] == "running"


def test_extend_refused_unless_drawn():
    r = play("new game=three_cushion target=2 breaker=A")
    assert refused(r, "extend 5") == reasons.NOT_DRAWN
    play("point\npoint\nmiss", r)
    assert refused(r, "extend 5") == reasons.NOT_DRAWN  # A won


def test_innings_limit_higher_score_wins():
    r = play("new game=three_cushion target=30 breaker=A innings_limit=2\npoint\nmiss\nmiss\nmiss")
    assert doc(r)["phase"] == "running" and doc(r)["turn"] == "B"
    play("point\npoint\nmiss", r)
    d = doc(r)
    assert d["phase"] == "finished" and d["result"] == "B" and d["ended_by"] == "innings_limit"
    assert d["players"]["A"]["innings"] == d["players"]["B"]["innings"] == 2
    assert d["innings_limit"] == 2


def test_innings_limit_draw_and_tiebreak():
    r = play("new game=three_cushion target=30 breaker=A innings_limit=1\nmiss\nmiss")
    assert doc(r)["result"] == "draw" and doc(r)["ended_by"] == "innings_limit"
    assert refused(r, "extend 40") == reasons.EXTEND_INNINGS
    r = play("new game=three_cushion target=30 breaker=A innings_limit=1 draw=off\nmiss\nmiss")
    assert doc(r)["phase"] == "tiebreak"


def test_innings_limit_with_equalizing_inning():
    r = play("new game=three_cushion target=1 breaker=A innings_limit=1\npoint")
    assert doc(r)["phase"] == "equalizing"
    play("miss", r)
    assert doc(r)["result"] == "A"


def test_an_extension_is_played_without_the_innings_limit():
    """The extension of a match drawn by the target ended after one inning each on the
    innings limit (and could not be extended again). The limit is the match's as agreed; an
    extension plays to its own total, with the equalizing inning, as often as needed (I.8.4)."""
    r = play("new game=three_cushion target=2 breaker=A innings_limit=1\npoint A\npoint A\npoint B\npoint B")
    d = doc(r)
    assert d["result"] == "draw" and d["ended_by"] == "target"
    play("extend 3\nmiss A\nmiss B", r)
    d = doc(r)
    assert d["phase"] == "running" and d["turn"] == "A" and d["target"] == 3
    assert d["players"]["A"]["innings"] == 3 and d["players"]["B"]["innings"] == 2
    play("point A\nmiss B", r)
    d = doc(r)
    assert d["phase"] == "finished" and d["result"] == "A" and d["ended_by"] == "target"
    r = play("new game=three_cushion target=2 breaker=A innings_limit=1\npoint A\npoint A\npoint B\npoint B")
    play("extend 3\nmiss A\nmiss B\npoint A\npoint B", r)
    assert doc(r)["result"] == "draw" and doc(r)["ended_by"] == "target"
    play("extend 4", r)
    assert doc(r)["phase"] == "running" and doc(r)["target"] == 4
    r = play("new game=three_cushion target=30 breaker=A innings_limit=1\nmiss\nmiss")
    assert refused(r, "extend 40") == reasons.EXTEND_INNINGS  # a draw on the limit itself: as before


def test_player_leaving_loses():
    r = play("new game=three_cushion target=15 breaker=A\npoint\nleft A")
    d = doc(r)
    assert d["result"] == "B" and d["ended_by"] == "left" and d["phase"] == "finished"
    assert refused(r, "left B") == reasons.FINISHED_ALREADY
    r = play("new game=three_cushion target=15\nleft B")  # during the lag
    assert doc(r)["result"] == "A"


# ---- the half-time break (I.4) ---------------------------------------------


def test_break_only_at_half_to_player_about_to_shoot():
    r = play("new game=straight_rail target=10 breaker=A\npoint\npoint\npoint\npoint\nmiss")
    assert refused(r, "break_request B") == reasons.BREAK_NOT_HALF  # 4 of 10: not half
    play("miss\npoint", r)  # B misses; A makes his 5th: half, but in a run
    assert refused(r, "break_request A") == reasons.BREAK_IN_RUN
    play("miss", r)
    assert refused(r, "break_request A") == reasons.BREAK_NOT_ASKER  # B is about to shoot
    play("break_request B", r)
    d = doc(r)
    assert d["phase"] == "break" and d["break_left_s"] == 180 and d["break_taken"]
    assert d["turn"] == "B"
    assert refused(r, "break_request B") == reasons.BREAK_TAKEN


def test_break_ends_after_its_time():
    r = play("new game=straight_rail target=2 breaker=A\npoint\nmiss\nbreak_request B\nwait 100")
    assert doc(r)["break_left_s"] == 80 and doc(r)["phase"] == "break"
    play("wait 79.5", r)
    assert doc(r)["break_left_s"] == 1
    play("wait 0.5", r)
    d = doc(r)
    assert d["phase"] == "running" and d["break_left_s"] is None and d["turn"] == "B"
    assert refused(r, "resume") == reasons.NOT_IN_BREAK
    play("miss\nmiss", r)
    assert refused(r, "break_request B") == reasons.BREAK_TAKEN  # once per match


def test_break_ends_when_play_resumes():
    r = play("new game=straight_rail target=2 breaker=A\npoint\nmiss\nbreak_request B\nresume")
    assert doc(r)["phase"] == "running"
    r = play("new game=straight_rail target=4 breaker=A\npoint\npoint\nmiss\nbreak_request B\npoint")
    d = doc(r)
    assert d["phase"] == "running" and d["players"]["B"]["score"] == 1


def test_break_length_option_and_off():
    r = play("new game=straight_rail target=2 breaker=A break_s=60\npoint\nmiss\nbreak_request B")
    assert doc(r)["break_left_s"] == 60
    r = play("new game=straight_rail target=2 breaker=A break_s=0\npoint\nmiss")
    assert refused(r, "break_request B") == reasons.BREAK_OFF


def test_no_break_in_equalizing_inning():
    r = play("new game=straight_rail target=2 breaker=A\npoint\npoint")
    assert refused(r, "break_request B") == reasons.BREAK_NOT_HALF


# ---- position calls (III.4.3b) -----------------------------------------------


def test_position_calls():
    for game in ("straight_rail", "balkline_47_2", "balkline_47_1", "balkline_71_2"):
        r = play("new game=%s target=50 breaker=A" % game)
        for kind in rules.CALLS:
            play("call " + kind, r)
            assert doc(r)["last_call"] == kind
            assert doc(r)["players"]["A"]["score"] == 0
        play("point", r)
        assert doc(r)["last_call"] is None
    for game in ("one_cushion", "three_cushion"):
        r = play("new game=%s target=50 breaker=A" % game)
        assert refused(r, "call entre") == reasons.CUSHION_GAME
    r = play("new game=straight_rail target=50 breaker=A")
    assert "unknown call" in refused(r, "call banane")


# ---- shot clock and time-outs -------------------------------------------------


def test_shot_clock_automatic_timeout_then_time_foul():
    r = play("new game=three_cushion target=25 breaker=A shot_clock=30")
    d = doc(r)
    assert d["shot_clock"] == {"left_s": 30, "limit_s": 30}
    assert d["players"]["A"]["timeouts_left"] == 3
    play("wait 20", r)
    assert doc(r)["shot_clock"]["left_s"] == 10
    play("wait 10", r)  # clock runs out: a time-out is used, limit 60
    d = doc(r)
    assert d["shot_clock"] == {"left_s": 30, "limit_s": 60}
    assert d["players"]["A"]["timeouts_left"] == 2 and d["turn"] == "A"
    play("wait 30", r)  # one time-out per shot: time foul
    d = doc(r)
    assert d["turn"] == "B" and d["last_foul"] == "time" and d["players"]["A"]["fouls"] == 1
    assert d["shot_clock"] == {"left_s": 30, "limit_s": 30}
    assert d["players"]["A"]["timeouts_left"] == 2


def test_shot_clock_restarts_on_point():
    r = play("new game=three_cushion target=25 breaker=A shot_clock=40\nwait 25\npoint")
    assert doc(r)["shot_clock"]["left_s"] == 40


def test_shot_clock_no_timeouts_left_is_time_foul():
    r = play("new game=three_cushion target=25 breaker=A shot_clock=30 timeouts=0\nwait 30")
    d = doc(r)
    assert d["turn"] == "B" and d["last_foul"] == "time"


def test_timeouts_default_by_target():
    r = play("new game=three_cushion target=35 shot_clock=30 breaker=A")
    assert doc(r)["players"]["B"]["timeouts_left"] == 3
    r = play("new game=three_cushion target=40 shot_clock=30 breaker=A")
    assert doc(r)["players"]["B"]["timeouts_left"] == 4
    r = play("new game=three_cushion target=40 breaker=A")
    assert doc(r)["shot_clock"] is None and doc(r)["players"]["B"]["timeouts_left"] == 0


def test_timeout_requested():
    r = play("new game=three_cushion target=25 breaker=A shot_clock=30 timeouts=1\nwait 5\ntimeout A")
    d = doc(r)
    assert d["shot_clock"] == {"left_s": 55, "limit_s": 60} and d["players"]["A"]["timeouts_left"] == 0
    assert refused(r, "timeout") == reasons.TIMEOUT_USED
    play("point", r)
    assert refused(r, "timeout") == reasons.NO_TIMEOUTS
    assert refused(r, "timeout B") == reasons.NOT_AT_TABLE
    r = play("new game=three_cushion target=25 breaker=A")
    assert refused(r, "timeout") == reasons.NO_SHOT_CLOCK


def test_shot_clock_paused_in_break_and_restarted():
    r = play("new game=three_cushion target=4 breaker=A shot_clock=30\npoint\npoint\nmiss\nbreak_request B")
    assert doc(r)["shot_clock"] is None
    play("wait 200", r)  # the break ended at 180 s; the clock started then
    d = doc(r)
    assert d["phase"] == "running" and d["shot_clock"]["left_s"] == 10
    assert d["players"]["B"]["timeouts_left"] == 3


def test_long_wait_fires_every_expiry_in_order():
    r = play("new game=three_cushion target=25 breaker=A shot_clock=30 timeouts=0 innings_limit=2\nwait 600")
    d = doc(r)
    assert d["phase"] == "finished" and d["ended_by"] == "innings_limit" and d["result"] == "draw"
    assert d["players"]["A"]["fouls"] == 2 and d["players"]["B"]["fouls"] == 2


# ---- undo -------------------------------------------------------------------


def test_undo_restores_everything_newest_first():
    r = Referee()
    script = """new game=straight_rail target=6 shot_clock=30 timeouts=1
        lag_collision
        lag_fault B short
        choose A give
        point
        wait 12
        call entre
        point
        foul push
        wait 45
        point
        point
        point
        miss
        point
        point
        miss
        break_request A
        wait 30
        point
        point
        point"""
    docs = []
    for line in script.split("\n"):
        assert r.line(line.strip()) is None, line
        docs.append((line.split()[0], snapshot(r)))
    end = json.loads(docs[-1][1])
    assert end["phase"] == "finished", end
    n = r.match.n
    while r.match.n:
        r.now += 7000  # time passes before each undo: clocks must come back anyway
        assert r.line("undo") is None
        # The state equals the one just after the entry that is now newest.
        # (the first document with as many entries; a wait that added entries
        # shows its clocks at the end of the wait, so those are left out).
        want = None
        got = doc(r)
        for name, text in docs:
            d = json.loads(text)
            if d["events"] == r.match.n:
                want = d
                if name == "wait":
                    for d in (want, got):
                        d.pop("shot_clock")
                        d.pop("break_left_s")
                        d.pop("elapsed_s")
                break
        if want is not None:
            assert got == want, (r.match.n, got, want)
    assert n == 19  # 18 referee entries and one automatic time-out
    assert refused(r, "undo") == reasons.NOTHING_TO_UNDO
    d = doc(r)
    assert d["phase"] == "lag" and d["players"]["A"]["score"] == 0


def test_undo_automatic_timeout_gives_the_time_back():
    r = play("new game=three_cushion target=25 breaker=A shot_clock=30\nwait 10\npoint\nwait 35")
    d = doc(r)
    assert d["players"]["A"]["timeouts_left"] == 2 and d["shot_clock"]["limit_s"] == 60
    play("undo", r)
    d = doc(r)
    assert d["players"]["A"]["timeouts_left"] == 3
    assert d["shot_clock"] == {"left_s": 30, "limit_s": 30}  # as just after the point


def test_undo_time_foul():
    r = play("new game=three_cushion target=25 breaker=A shot_clock=30 timeouts=0\npoint\nwait 31")
    assert doc(r)["turn"] == "B"
    play("undo", r)
    d = doc(r)
    assert d["turn"] == "A" and d["players"]["A"]["fouls"] == 0 and d["current_run"] == 1
    assert d["shot_clock"]["left_s"] == 30


def test_undo_result_and_phase():
    r = play("new game=three_cushion target=1 breaker=A draw=off\npoint\npoint")
    assert doc(r)["phase"] == "tiebreak"
    play("undo", r)
    d = doc(r)
    assert d["phase"] == "equalizing" and d["result"] is None and d["turn"] == "B"
    play("undo", r)
    d = doc(r)
    assert d["phase"] == "running" and d["turn"] == "A" and d["countdown"] == 1


def test_undo_left_and_extension():
    r = play("new game=three_cushion target=1 breaker=A\npoint\npoint\nextend 3\nleft B")
    play("undo", r)
    assert doc(r)["phase"] == "running" and doc(r)["target"] == 3
    play("undo", r)
    assert doc(r)["result"] == "draw" and doc(r)["target"] == 1


def test_close_ends_undo():
    r = play("new game=three_cushion target=1 breaker=A equalizing=off")
    assert refused(r, "close") == reasons.NOT_FINISHED
    play("point\nclose", r)
    assert doc(r)["closed"]
    for line in ("undo", "point", "close", "extend 5", "left A"):
        assert refused(r, line) == reasons.CLOSED
    play("new game=three_cushion target=5", r)  # a new match is always possible
    assert not doc(r)["closed"]


def test_undo_depth_unlimited_beyond_initial_capacity():
    m = rules.Match(capacity=4, game="straight_rail", target=400, breaker=rules.A)
    for i in range(300):
        assert m.point(rules.NOBODY, i) is None
        if i % 7 == 0:
            assert m.miss(rules.NOBODY, i) is None
    s = m.score[rules.A] + m.score[rules.B]
    assert s == 300
    for i in range(m.n):
        assert m.undo(1000) is None
    assert m.score == [0, 0] and m.innings == [1, 0] and m.n == 0


# ---- refusals of setup and of text ----------------------------------------


def test_new_with_bad_options_changes_nothing():
    r = play("new game=three_cushion target=15 breaker=A\npoint")
    for line in (
        "new game=snooker target=15",
        "new game=three_cushion target=0",
        "new game=three_cushion target=10000",
        "new game=three_cushion target=x",
        "new game=three_cushion",
        "new target=15",
        "new game=three_cushion target=15 innings_limit=-1",
        "new game=three_cushion target=15 shot_clock=5",
        "new game=three_cushion target=15 timeouts=10",
        "new game=three_cushion target=15 break_s=99999",
        "new game=three_cushion target=15 breaker=C",
        "new game=three_cushion target=15 equalizing=maybe",
        "new game=three_cushion target=15 breaker_ball=red",
        "new game=three_cushion target=15 colour=red",
        "new game=three_cushion target=15 target=16",
        "new game=three_cushion target=15 stray",
        'new game=three_cushion target=15 name_A="open quote',
    ):
        refused(r, line)
    assert doc(r)["players"]["A"]["score"] == 1


def test_malformed_lines_refused_with_reason():
    r = play("new game=straight_rail target=50 breaker=A")
    for line in (
        "pont",
        "point C",
        "point A B",
        "foul",
        "foul A",
        "foul A push extra",
        "foul scratch",
        "undo 2",
        "wait",
        "wait soon",
        "wait -1",
        "lag",
        "choose A",
        "choose A maybe",
        "break_request",
        "left",
        "extend",
        "extend many",
        "call",
        "tiebreak",
        "close now",
    ):
        reason = refused(r, line)
        assert len(reason) > 5, line


def test_quoted_names_and_clubs():
    r = play('new game=three_cushion target=15 name_A="Kim Ho" club_A="BC Szeged" name_B=Bert club_B=""')
    d = doc(r)
    assert d["players"]["A"]["name"] == "Kim Ho" and d["players"]["A"]["club"] == "BC Szeged"
    assert d["players"]["B"]["name"] == "Bert" and d["players"]["B"]["club"] == ""


def test_match_constructor_rejects_bad_options():
    try:
        rules.Match(game="pool")
    except ValueError as e:
        assert reasons.text(e.args[0]) == reasons.BAD_GAME
    else:
        raise AssertionError("no error")


def test_a_match_whose_clock_crosses_the_wrap_keeps_its_times():
    m = rules.Match(game="three_cushion", target=25, breaker=rules.A, shot_clock=30)
    start = (1 << 30) - 10000
    m.new(start, game="three_cushion", target=25, breaker=rules.A, shot_clock=30)
    assert m.shot_left_ms(ticks_add(start, 20000)) == 10000
    assert m.point(rules.NOBODY, ticks_add(start, 25000)) is None
    assert m.shot_left_ms(ticks_add(start, 26000)) == 29000


def test_new_refusal_reasons():
    r = Referee()
    assert refused(r, "new game=snooker target=15") == reasons.BAD_GAME
    assert refused(r, "new game=three_cushion target=0") == reasons.BAD_TARGET
    assert refused(r, "new game=three_cushion target=15 innings_limit=1000") == reasons.BAD_INNINGS_LIMIT
    assert refused(r, "new game=three_cushion target=15 shot_clock=301") == reasons.BAD_SHOT_CLOCK
    assert refused(r, "new game=three_cushion target=15 timeouts=10") == reasons.BAD_TIMEOUTS
    assert refused(r, "new game=three_cushion target=15 break_s=3601") == reasons.BAD_BREAK
    assert refused(r, "new game=three_cushion target=15 breaker_ball=red") == reasons.BAD_BALL


def test_api_refuses_bad_players_and_kinds():
    """What is tried: out-of-range player and kind numbers straight at the API."""
    m = rules.Match(game="straight_rail", target=50, breaker=rules.A)
    before = (m.n, list(m.score), m.turn)
    assert reasons.text(m.foul(rules.NOBODY, 99, 0)) == reasons.BAD_KIND
    assert reasons.text(m.foul(rules.NOBODY, -1, 0)) == reasons.BAD_KIND
    assert reasons.text(rules_events.call(m, 7, 0)) == reasons.BAD_KIND
    assert reasons.text(rules_events.lag_fault(m, rules.A, 9, 0)) == reasons.BAD_KIND
    assert reasons.text(m.break_request(5, 0)) == reasons.BAD_PLAYER
    assert reasons.text(rules_events.left(m, -1, 0)) == reasons.BAD_PLAYER
    assert reasons.text(m.choose(2, False, 0)) == reasons.BAD_PLAYER
    assert reasons.text(m.point(3, 0)) == reasons.NOT_AT_TABLE
    assert reasons.text(rules_events.extend(m, 0, 0)) == reasons.BAD_TARGET
    assert reasons.text(rules_events.extend(m, 10000, 0)) == reasons.BAD_TARGET
    assert reasons.text(m.new(0, game="straight_rail", target=50, breaker=2)) == reasons.BAD_PLAYER
    assert (m.n, list(m.score), m.turn) == before
    m = rules.Match(game="straight_rail", target=50)
    assert reasons.text(rules_events.lag_fault(m, 7, 0, 0)) == reasons.BAD_PLAYER
    assert reasons.text(m.lag(7, 0)) == reasons.BAD_PLAYER
    assert m.n == 0


def test_no_timeout_during_break():
    r = play("new game=three_cushion target=4 breaker=A shot_clock=30\npoint\npoint\nmiss\nbreak_request B")
    assert refused(r, "timeout") == reasons.NOT_PLAYING


def test_every_reason_has_one_number_and_words():
    """reasons.py reads the reason lines of rules.py: unique numbers, a text each; the referee
    gives people the words, the rules core gives the board a small int."""
    names = reasons.names()
    assert len(names) >= 37
    numbers = [reasons.code(n) for n in names]
    assert len(set(numbers)) == len(numbers) and min(numbers) == 1
    for n in names:
        assert reasons.text(reasons.code(n)) == getattr(reasons, n) and len(getattr(reasons, n)) > 5, n
    assert reasons.code("LOCKED") == rules.LOCKED
    r = Referee()
    assert r.line("new game=three_cushion target=5 breaker=A") is None
    assert r.match.point(rules.B, r.now) == reasons.code("NOT_AT_TABLE")
    assert r.line("point B") == reasons.NOT_AT_TABLE
    assert reasons.text(None) is None and reasons.text(999) == "refused (reason 999)"


# ---- names kept in matchnames.py, private constants in rules.py ----------------------------


def test_names_the_hot_path_does_not_need_come_from_matchnames():
    import matchnames
    import matchwords

    assert rules.E_POINT == matchnames.E_POINT and rules.FOULS is matchwords.FOULS is matchnames.FOULS
    assert rules.GAMES[rules.Match(game="three_cushion").game] == "three_cushion"
    from rules import E_EXTEND, CHUNK  # `from` goes the same way

    assert (E_EXTEND, CHUNK) == (matchnames.E_EXTEND, matchnames.CHUNK)


def test_the_codes_that_index_the_words_are_the_words():
    """A game, a foul's kind: indexes into matchwords.py's tuples; the hot path's names stay in
    rules.py (the others come from matchnames.py: test_names_the_hot_path_does_not_need...)."""
    import matchnames
    import matchwords

    assert matchnames.N_FOULS == len(matchwords.FOULS)
    assert matchwords.FOULS[rules.F_TIME] == "time"
    for name in ("LAG", "BREAK", "EQUALIZING", "FINISHED", "TIEBREAK", "R_A", "R_B", "R_DRAW", "A", "B", "NOBODY"):
        assert name in rules.__dict__, name
    if not hasattr(rules, "_ONE_CUSHION"):
        raise SkipTest("MicroPython compiles private constants away")
    assert matchwords.GAMES[rules._ONE_CUSHION] == "one_cushion"
    assert matchwords.GAMES[rules._THREE_CUSHION] == "three_cushion"
    assert matchwords.GAMES[rules._BALKLINE_47_1] == "balkline_47_1"
