"""The formats beyond the original, reading by reading (shared/rules/rules.md,
"Formats beyond the original"); runs on CPython and MicroPython.

Handicap (a target per player: the countdown, the half for the break, the equalizing inning,
the innings limit by shares, the extension to two targets), sets (set_over, next_set, the
breaker alternating, the deciding set's lag and target, the match's totals, a drawn set), the
shoot-out (rounds of one inning, the longer run wins), the warm-up (before the first stroke,
its clock, its end by time or resume), new()'s refusals. Every format match is replayed: undo
and redo of each entry, a rebuild from the log, a checkpoint, the store (with a power cut
between an extension's B-target record and its entry), the snapshot's format 4 and format 3.
"""

import struct

import formats
import matchdoc
import reasons
import rules
import store_snapshot as snapshot_module
import store
import storenames
from faultfs import MemFs, read_all
from referee import Referee
from store_snapshot import pack_snapshot, parse_snapshot
from test_rules import doc, play, refused, snapshot
from test_rules_events import lines_of, replays, same_as_rebuilt, saved_and_restored


def points(n, who=""):
    return "\n".join(["point" + (" " + who if who else "")] * n)


# ---- handicap ------------------------------------------------------------------------------


def test_handicap_targets_in_the_document():
    r = play("new game=three_cushion target_A=10 target_B=4 breaker=A")
    d = doc(r)
    assert d["target"] is None  # a handicap: each player's own
    assert d["players"]["A"]["target"] == 10 and d["players"]["B"]["target"] == 4
    assert r.match.options()["target_A"] == 10 and r.match.options()["target_B"] == 4
    r = play("new game=three_cushion target=20 target_B=12")  # target= sets both, target_B overrides
    d = doc(r)
    assert d["target"] is None and d["players"]["A"]["target"] == 20 and d["players"]["B"]["target"] == 12
    r = play("new game=three_cushion target_A=15 target_B=15")  # equal: no handicap
    assert doc(r)["target"] == 15 and "target_A" not in r.match.options()


def test_handicap_countdown_is_the_player_at_the_tables_own():
    r = play("new game=three_cushion target_A=10 target_B=4 breaker=A\n" + points(6))
    assert doc(r)["countdown"] is None  # A needs 4: not in the last 3
    play("point", r)
    assert doc(r)["countdown"] == 3
    play("miss", r)
    assert doc(r)["turn"] == "B" and doc(r)["countdown"] is None  # B needs his 4
    play("point", r)
    assert doc(r)["countdown"] == 3
    r = play("new game=straight_rail target_A=50 target_B=5 breaker=B")
    assert doc(r)["countdown"] == 5  # the last 5 outside three-cushion: B's own
    play("miss", r)
    assert doc(r)["countdown"] is None


def test_handicap_half_time_break_at_either_players_own_half():
    # A's half of 10 is 5; B's half of 5 is 3 (rounded up).
    r = play("new game=straight_rail target_A=10 target_B=5 breaker=A\npoint\nmiss\npoint\npoint\nmiss")
    assert refused(r, "break_request A") == reasons.BREAK_NOT_HALF  # 1 of 10, 2 of 5
    play("miss\npoint\nmiss", r)  # B's 3 of 5: half
    play("break_request A", r)
    assert doc(r)["phase"] == "break"
    r = play("new game=straight_rail target_A=10 target_B=5 breaker=A\n%s\nmiss" % points(4))
    assert refused(r, "break_request B") == reasons.BREAK_NOT_HALF  # A's 4 of 10
    play("miss\npoint\nmiss", r)
    play("break_request B", r)  # A's 5 of 10
    assert doc(r)["phase"] == "break"


def test_handicap_breaker_at_his_target_gives_the_equalizing_inning():
    r = play("new game=three_cushion target_A=3 target_B=2 breaker=A\n" + points(3))
    d = doc(r)
    assert d["phase"] == "equalizing" and d["turn"] == "B" and d["countdown"] == 2
    play("point\npoint", r)  # B reaches his own 2 in it: a draw
    d = doc(r)
    assert d["phase"] == "finished" and d["result"] == "draw" and d["ended_by"] == "target"
    assert d["players"]["A"]["score"] == 3 and d["players"]["B"]["score"] == 2
    r = play("new game=three_cushion target_A=3 target_B=2 breaker=A\n%s\npoint\nmiss" % points(3))
    assert doc(r)["result"] == "A"
    # The opponent (not the breaker) reaching his own target wins at once.
    r = play("new game=three_cushion target_A=3 target_B=2 breaker=A\nmiss\npoint\npoint")
    d = doc(r)
    assert d["result"] == "B" and d["phase"] == "finished" and d["players"]["B"]["innings"] == 1


def test_handicap_innings_limit_by_shares_of_ones_own_target():
    script = "new game=three_cushion target_A=10 target_B=5 breaker=A innings_limit=1\n%s\nmiss\n%s\nmiss"
    r = play(script % (points(4), points(2)))  # 4/10 = 2/5
    d = doc(r)
    assert d["result"] == "draw" and d["ended_by"] == "innings_limit"
    r = play(script % (points(4), points(3)))  # 3/5 beats 4/10 (more points: fewer of one's own)
    assert doc(r)["result"] == "B"
    r = play(script % (points(5), points(2)))  # 5/10 beats 2/5
    assert doc(r)["result"] == "A"
    r = play(script.replace("innings_limit=1", "innings_limit=1 draw=off") % (points(4), points(2)))
    assert doc(r)["phase"] == "tiebreak"


def test_handicap_extension_gives_each_his_own_new_target():
    r = play("new game=three_cushion target_A=3 target_B=2 breaker=A\n%s\n%s" % (points(3), points(2)))
    assert refused(r, "extend 6") == reasons.EXTEND_TWO  # a handicap match needs two
    assert refused(r, "extend 3 5") == reasons.EXTEND_LOW  # A's not above his 3
    assert refused(r, "extend 5 2") == reasons.EXTEND_LOW  # B's not above his 2
    assert refused(r, "extend 0 5") == reasons.BAD_TARGET
    assert refused(r, "extend 5 10000") == reasons.BAD_TARGET
    d = replays(r, "extend 5 4")
    assert d["phase"] == "running" and d["turn"] == "A" and d["result"] is None
    assert d["target"] is None and d["players"]["A"]["target"] == 5 and d["players"]["B"]["target"] == 4
    assert d["countdown"] == 2
    play("point\npoint", r)
    assert doc(r)["phase"] == "equalizing" and doc(r)["countdown"] == 2
    play("point\npoint", r)
    assert doc(r)["result"] == "draw"
    play("extend 6 6", r)  # equal targets again
    assert doc(r)["target"] == 6
    same_as_rebuilt(r)
    play("undo\nundo\nundo\nundo\nundo\nundo", r)
    d = doc(r)
    assert d["phase"] == "finished" and d["players"]["A"]["target"] == 3 and d["players"]["B"]["target"] == 2
    # Without a handicap, `extend n` as ever.
    r = play("new game=three_cushion target=2 breaker=A\n%s" % points(4))
    play("extend 4", r)
    assert doc(r)["target"] == 4 and doc(r)["players"]["B"]["target"] == 4


def test_handicap_undo():
    r = play("new game=three_cushion target_A=3 target_B=2 breaker=A")
    before = snapshot(r)
    for line in ("point", "point", "point", "point", "point"):
        replays(r, line)
    assert doc(r)["result"] == "draw"
    while r.match.n:
        play("undo", r)
    assert snapshot(r) == before


# ---- sets ----------------------------------------------------------------------------------


def won_set(r, who, n):
    """`who` at the table makes n points (the set's target) and wins the set."""
    play("\n".join(["point " + who] * n), r)


def test_a_set_won_is_set_over_then_next_set():
    r = play("new game=three_cushion target=2 sets=2 equalizing=off\nlag A\nchoose A break\nmiss\npoint B\nmiss B")
    won_set(r, "A", 2)
    d = doc(r)
    assert d["phase"] == "set_over" and d["turn"] is None and d["result"] is None
    assert d["sets"] == {"to_win": 2, "number": 1, "won": {"A": 1, "B": 0}, "scores": [[2, 1]]}
    assert d["players"]["A"]["score"] == 2 and d["players"]["A"]["innings"] == 2  # the set's, until next_set
    assert refused(r, "point") == reasons.SET_IS_OVER
    assert refused(r, "miss") == reasons.SET_IS_OVER
    assert refused(r, "foul A push") == reasons.SET_IS_OVER
    assert refused(r, "lag A") == reasons.SET_IS_OVER
    assert refused(r, "extend 5") == reasons.NOT_DRAWN
    d = replays(r, "next_set")
    assert d["phase"] == "running" and d["sets"]["number"] == 2 and d["breaker"] == "B" and d["turn"] == "B"
    for p in "AB":
        x = d["players"][p]
        assert x["score"] == 0 and x["runs"] == ([0] if p == "B" else []) and x["high_run"] == 0
        assert x["innings"] == (1 if p == "B" else 0) and x["average"] == 0
    assert d["players"]["A"]["match"] == {"score": 2, "innings": 2, "high_run": 2, "average": 1.0}
    assert d["players"]["B"]["match"] == {"score": 1, "innings": 2, "high_run": 1, "average": 0.5}
    assert refused(r, "next_set") == reasons.NO_SET_OVER


def test_the_breaker_alternates_and_the_deciding_set_has_a_lag_and_its_target():
    r = play(
        "new game=three_cushion target=2 sets=3 deciding_target=1 equalizing=off shot_clock=30 timeouts=1"
        "\nlag B\nchoose B give"
    )
    breakers = []
    for k, who in enumerate("ABAB"):
        d = doc(r)
        breakers.append(d["breaker"])
        assert d["sets"]["number"] == k + 1 and d["players"]["A"]["target"] == 2
        if d["turn"] != who:
            play("miss", r)
        play("timeout", r)  # a time-out in each set: they come back with the set
        won_set(r, who, 2)
        play("next_set", r)
        assert doc(r)["players"]["A"]["timeouts_left"] == 1
    assert breakers == ["A", "B", "A", "B"]  # the lag's, then alternating
    d = doc(r)
    assert d["sets"]["number"] == 5 and d["sets"]["won"] == {"A": 2, "B": 2}
    assert d["phase"] == "lag" and d["breaker"] is None and d["turn"] is None
    assert d["lag"] == {"chooser": None, "collisions": 0, "ties": 0}
    assert d["players"]["A"]["target"] == 1 and d["players"]["B"]["target"] == 1 and d["target"] == 1
    assert d["sets"]["scores"] == [[2, 0], [0, 2], [2, 0], [0, 2]]
    assert refused(r, "point") == reasons.IN_LAG
    play("lag A\nchoose A give\npoint", r)
    d = doc(r)
    assert d["phase"] == "finished" and d["result"] == "B" and d["ended_by"] == "target"
    assert d["sets"]["won"] == {"A": 2, "B": 3} and d["sets"]["scores"][-1] == [0, 1]
    assert d["players"]["B"]["match"]["score"] == 5 and d["players"]["A"]["match"]["score"] == 4
    assert refused(r, "next_set") == reasons.NO_SET_OVER
    same_as_rebuilt(r)


def test_no_deciding_set_target_plays_the_set_target():
    r = play("new game=three_cushion target=2 sets=2 breaker=A equalizing=off")
    won_set(r, "A", 2)
    play("next_set\nmiss B", r)
    won_set(r, "A", 1)
    play("miss A", r)
    won_set(r, "B", 2)  # 1:1 in sets
    play("next_set", r)
    d = doc(r)
    assert d["phase"] == "lag" and d["players"]["A"]["target"] == 2
    assert r.match.options()["deciding_target"] is None


def test_the_matchs_totals_over_all_sets():
    r = play(
        "new game=straight_rail target=3 sets=2 breaker=A equalizing=off\npoint\npoint\nmiss\npoint B\nmiss B\npoint"
    )  # A 3:1 in 2 innings, high run 2
    play("next_set\n%s\nmiss\n%s" % (points(2), points(3)), r)  # set 2: B breaks, 2 then misses; A makes 3
    d = doc(r)
    assert d["phase"] == "finished" and d["result"] == "A"
    assert d["sets"]["scores"] == [[3, 1], [3, 2]]
    a, b = d["players"]["A"], d["players"]["B"]
    assert a["score"] == 3 and a["innings"] == 1 and a["runs"] == [3] and a["high_run"] == 3
    assert a["match"] == {"score": 6, "innings": 3, "high_run": 3, "average": 2.0}
    assert b["match"] == {"score": 3, "innings": 2, "high_run": 2, "average": 1.5}
    assert b["runs"] == [2] and b["score"] == 2
    # The totals are the sums over the sets.
    for p, x in (("A", a), ("B", b)):
        k = 0 if p == "A" else 1
        assert x["match"]["score"] == sum(s[k] for s in d["sets"]["scores"])


def test_break_only_between_sets_and_it_ends_back_in_set_over():
    r = play("new game=straight_rail target=4 sets=2 breaker=A equalizing=off break_s=60\npoint\npoint\nmiss")
    assert refused(r, "break_request B") == reasons.BREAK_BETWEEN_SETS  # a set runs: no half-time break
    won_set(r, "B", 4)
    assert doc(r)["phase"] == "set_over"
    assert refused(r, "break_request C")
    d = replays(r, "break_request A")
    assert d["phase"] == "break" and d["break_left_s"] == 60 and d["turn"] is None
    assert refused(r, "break_request B") == reasons.BREAK_TAKEN
    assert refused(r, "point")  # no inning is played
    play("wait 61", r)
    d = doc(r)
    assert d["phase"] == "set_over" and d["break_left_s"] is None
    play("undo\nundo\nbreak_request B\nresume", r)  # ended by resume: set_over again
    assert doc(r)["phase"] == "set_over"
    assert refused(r, "break_request A") == reasons.BREAK_TAKEN
    play("next_set", r)
    assert doc(r)["break_taken"] is False
    assert refused(r, "break_request B") == reasons.BREAK_BETWEEN_SETS
    r = play("new game=straight_rail target=1 sets=2 breaker=A equalizing=off break_s=0\npoint")
    assert refused(r, "break_request A") == reasons.BREAK_OFF


def test_a_jump_that_ends_a_set_is_not_the_next_sets():
    r = play("new game=three_cushion target=1 sets=2 breaker=A\npoint\nfoul jumped B red")
    d = doc(r)
    assert d["phase"] == "set_over" and d["respot_balls"] == ["B", "red"] and d["spots"] is None
    play("next_set", r)
    d = doc(r)
    assert d["respot"] is None and d["respot_balls"] is None and d["last_foul"] is None and d["spots"] is None


def test_a_point_in_a_break_between_sets_is_refused():
    r = play("new game=straight_rail target=1 sets=2 breaker=A equalizing=off\npoint\nbreak_request A")
    for line in ("point", "miss", "foul push", "timeout"):
        assert refused(r, line)
    play("resume\nnext_set", r)
    assert doc(r)["turn"] == "B"


def test_no_extension_in_a_set_match():
    r = play("new game=three_cushion target=1 sets=2 breaker=A\npoint\npoint")  # a drawn set: its tie-break
    d = doc(r)
    assert d["phase"] == "tiebreak" and d["result"] == "tiebreak"
    assert refused(r, "extend 3") == reasons.NO_EXTENSION_IN_SETS
    assert refused(r, "next_set") == reasons.NO_SET_OVER
    play("tiebreak B", r)
    d = doc(r)
    assert d["phase"] == "set_over" and d["sets"]["won"] == {"A": 0, "B": 1} and d["sets"]["scores"] == [[1, 1]]
    assert d["ended_by"] == "tiebreak" and d["result"] is None
    play("next_set", r)
    assert doc(r)["breaker"] == "B"


def test_a_drawn_set_goes_to_the_shootout_when_it_is_on():
    r = play("new game=three_cushion target=1 sets=2 breaker=A shootout=on\npoint\npoint")
    d = doc(r)
    assert d["phase"] == "shootout" and d["turn"] == "A"
    assert d["shootout"] == {"rounds": [], "played": 0, "current": [0, 0]}
    play("point\npoint\nmiss\npoint\nmiss", r)  # 2:1 for A
    d = doc(r)
    assert d["phase"] == "set_over" and d["ended_by"] == "shootout" and d["sets"]["won"] == {"A": 1, "B": 0}
    assert d["sets"]["scores"] == [[1, 1]] and d["shootout"]["rounds"] == [[2, 1]]
    assert d["players"]["A"]["score"] == 1 and d["players"]["A"]["runs"] == [1]  # the set's own score
    play("next_set", r)
    d = doc(r)
    assert d["breaker"] == "B" and d["players"]["A"]["match"]["score"] == 1
    assert d["shootout"] == {"rounds": [[2, 1]], "played": 1, "current": None}  # until another one
    play("point B", r)  # B wins set 2 at once... as the breaker, A equalizes
    assert doc(r)["phase"] == "equalizing"
    play("miss", r)
    d = doc(r)
    assert d["phase"] == "set_over" and d["sets"]["won"] == {"A": 1, "B": 1}
    play("next_set\nlag B\nchoose B break\npoint\npoint", r)  # the deciding set drawn too
    assert doc(r)["phase"] == "shootout" and doc(r)["turn"] == "B"  # the deciding set's breaker first
    play("miss\nmiss\npoint\nmiss\nmiss", r)  # 0:0, then B 1, A 0
    d = doc(r)
    assert d["phase"] == "finished" and d["result"] == "B" and d["ended_by"] == "shootout"
    assert d["shootout"]["rounds"] == [[0, 0], [0, 1]] and d["sets"]["won"] == {"A": 1, "B": 2}


def test_undo_reaches_back_across_sets():
    r = play("new game=three_cushion target=2 sets=2 breaker=A equalizing=off\npoint\nmiss")
    before = snapshot(r)
    for line in ("point B", "miss B", "point"):
        replays(r, line)  # the last: the set-winning point
    assert doc(r)["phase"] == "set_over"
    for line in ("next_set", "point B", "point B"):
        replays(r, line)
    assert doc(r)["phase"] == "set_over" and doc(r)["sets"]["won"] == {"A": 1, "B": 1}
    play("undo\nundo\nundo", r)  # back through next_set
    d = doc(r)
    assert d["phase"] == "set_over" and d["sets"]["number"] == 1 and d["sets"]["won"] == {"A": 1, "B": 0}
    assert d["players"]["A"]["score"] == 2 and d["players"]["A"]["match"]["score"] == 2
    play("undo", r)  # the set-winning point
    d = doc(r)
    assert d["phase"] == "running" and d["sets"]["won"] == {"A": 0, "B": 0} and d["sets"]["scores"] == []
    play("undo\nundo", r)
    assert snapshot(r) == before
    same_as_rebuilt(r)


def test_undo_into_an_earlier_sets_shootout_finds_its_rounds():
    # A checkpoint keeps so_base and so_round, not the runs: a later set's shoot-out keeps its rounds
    # after the earlier one's (so_base), so an undo back past a checkpoint into the earlier set finds
    # them as they were (hypothesis found a later set's shoot-out writing over them).
    r = play("new game=straight_rail target=1 sets=3 breaker=A shootout=on")
    play("point\npoint", r)  # 1:1: the shoot-out
    play("point\npoint\nmiss\nmiss", r)  # A 2, B 0: A wins set 1
    d = doc(r)
    assert d["phase"] == "set_over" and d["shootout"]["rounds"] == [[2, 0]]
    play("next_set", r)
    play("\n".join(["miss"] * 150), r)  # set 2 past the first checkpoint (128 entries): it keeps set 1's end
    play("point\npoint", r)  # set 2: B broke; 1:1, the shoot-out (B first)
    play("miss\nmiss\npoint\nmiss\nmiss", r)  # 0:0, then B 1, A 0: B wins set 2
    d = doc(r)
    assert d["sets"]["won"] == {"A": 1, "B": 1} and d["shootout"]["rounds"] == [[0, 0], [0, 1]]
    while r.match.phase != rules.EQUALIZING:  # back before set 2's shoot-out, past the checkpoint
        play("undo", r)
    assert doc(r)["shootout"] == {"rounds": [[2, 0]], "played": 1, "current": None}  # set 1's, until another
    same_as_rebuilt(r)


# ---- shoot-out -----------------------------------------------------------------------------


def test_a_level_end_goes_to_the_shootout():
    r = play(
        "new game=three_cushion target=2 breaker=B draw=off shootout=on shot_clock=30\n%s\n%s" % (points(2), points(2))
    )
    d = doc(r)
    assert d["phase"] == "shootout" and d["turn"] == "B" and d["result"] is None
    assert d["shot_clock"] is None  # no shot clock in it
    assert d["players"]["A"]["score"] == 2 and d["players"]["B"]["score"] == 2
    assert refused(r, "timeout") == reasons.NO_TIMEOUT_HERE
    assert refused(r, "point A") == reasons.NOT_AT_TABLE
    assert refused(r, "extend 5") == reasons.NOT_DRAWN
    assert refused(r, "break_request B")
    assert refused(r, "close") == reasons.NOT_FINISHED
    assert refused(r, "next_set") == reasons.NO_FORMATS
    play("point\npoint\nmiss", r)  # B's inning of round 1: 2
    d = doc(r)
    assert d["turn"] == "A" and d["shootout"]["current"] == [0, 2] and d["current_run"] == 0
    play("point\npoint\nfoul A push", r)  # A: 2 too, ended by a foul: another round
    d = doc(r)
    assert d["phase"] == "shootout" and d["turn"] == "B" and d["shootout"]["rounds"] == [[2, 2]]
    assert d["shootout"]["played"] == 1 and d["shootout"]["current"] == [0, 0]
    play("wait 100", r)  # no clock runs out in it
    assert r.match.n == doc(r)["events"] and doc(r)["phase"] == "shootout"
    play("point\nmiss\n%s\nmiss" % points(3), r)  # B 1, A 3: A wins
    d = doc(r)
    assert d["phase"] == "finished" and d["result"] == "A" and d["ended_by"] == "shootout"
    assert d["shootout"] == {"rounds": [[2, 2], [3, 1]], "played": 2, "current": None}
    assert d["players"]["A"]["score"] == 2 and d["players"]["B"]["score"] == 2  # the match score unchanged
    assert d["players"]["A"]["runs"] == [2] and d["players"]["B"]["runs"] == [2]  # no innings of theirs
    play("close", r)


def test_the_shootout_checks_a_stroke_as_the_match_does():
    r = play("new game=three_cushion target=1 breaker=A draw=off shootout=on\npoint\npoint")
    assert refused(r, "foul A zone") == reasons.CUSHION_GAME
    assert refused(r, "foul B push") == reasons.NOT_AT_TABLE
    assert refused(r, "frozen") == reasons.NOT_PLAYING
    r = play("new game=straight_rail target=1 breaker=A draw=off shootout=on\npoint\npoint")
    play("foul A zone", r)
    assert doc(r)["last_foul"] == "zone" and doc(r)["turn"] == "B"


def test_no_position_call_between_sets_or_in_a_warmup():
    r = play("new game=straight_rail target=1 sets=2 breaker=A equalizing=off warmup_s=60")
    play("warmup A", r)
    assert refused(r, "call entre") == reasons.NOT_PLAYING
    play("resume\npoint", r)
    assert refused(r, "call entre") == reasons.NOT_PLAYING  # set_over
    play("break_request A", r)
    assert refused(r, "call entre") == reasons.NOT_PLAYING
    play("resume\nnext_set\ncall entre", r)
    assert doc(r)["area"]["caroms"] == 0


def test_the_shootout_after_an_innings_limit_draw():
    r = play("new game=three_cushion target=30 breaker=A innings_limit=1 draw=off shootout=on\nmiss\nmiss")
    d = doc(r)
    assert d["phase"] == "shootout" and d["turn"] == "A" and d["ended_by"] is None
    play("miss\npoint\nmiss", r)
    assert doc(r)["result"] == "B" and doc(r)["ended_by"] == "shootout"


def test_undo_inside_the_shootout():
    r = play("new game=straight_rail target=1 breaker=A draw=off shootout=on\npoint\npoint")
    before = snapshot(r)
    for line in ("point", "miss", "point", "foul B push", "miss", "point B", "miss B"):
        replays(r, line)
        same_as_rebuilt(r)
    assert doc(r)["result"] == "B" and doc(r)["shootout"]["rounds"] == [[1, 1], [0, 1]]
    while doc(r)["phase"] != "equalizing":
        play("undo", r)
    play("point", r)
    assert snapshot(r) == before


# ---- warm-up -------------------------------------------------------------------------------


def test_warmup_before_the_lag_with_its_clock():
    r = play("new game=three_cushion target=5 warmup_s=300")
    d = replays(r, "warmup A")
    assert d["phase"] == "warmup" and d["warmup"] == {"player": "A", "left_s": 300}
    assert refused(r, "lag A") == reasons.IN_WARMUP
    assert refused(r, "point") == reasons.IN_WARMUP
    assert refused(r, "warmup C")
    play("wait 100.5", r)
    assert doc(r)["warmup"]["left_s"] == 200
    play("warmup B", r)  # B's starts: A's is over
    d = doc(r)
    assert d["warmup"] == {"player": "B", "left_s": 300}
    play("wait 299", r)
    assert doc(r)["warmup"]["left_s"] == 1 and r.match.fmt.more().warmup_left_ms(r.match, r.now) == 1000
    n = r.match.n
    play("wait 1", r)  # its time is over: an entry of its own
    d = doc(r)
    assert d["phase"] == "lag" and d["warmup"] is None and r.match.n == n + 1 and d["elapsed_s"] is None
    assert r.match.fmt.more().warmup_left_ms(r.match, r.now) == -1
    play("lag B", r)
    play("warmup A\nresume", r)  # a warm-up once the lag is won, before the choice: back to it
    d = doc(r)
    assert d["phase"] == "lag" and d["lag"]["chooser"] == "B"
    play("choose B break\nwait 5", r)
    assert doc(r)["elapsed_s"] == 5
    same_as_rebuilt(r)


def test_warmup_with_a_preset_breaker_and_the_match_time():
    r = play("new game=three_cushion target=5 breaker=A warmup_s=60 shot_clock=40\nwait 5")
    assert doc(r)["elapsed_s"] == 5
    play("warmup A", r)
    d = doc(r)
    assert d["phase"] == "warmup" and d["turn"] == "A" and d["shot_clock"] is None
    play("wait 30", r)
    assert doc(r)["elapsed_s"] is None  # the match has not begun: no match time in a warm-up
    assert doc(r)["warmup"]["left_s"] == 30
    play("warmup B\nwait 60", r)  # ended by time
    d = doc(r)
    assert d["phase"] == "running" and d["turn"] == "A" and d["elapsed_s"] == 0
    assert d["shot_clock"] == {"left_s": 40, "limit_s": 40}
    play("wait 3", r)
    assert doc(r)["elapsed_s"] == 3 and doc(r)["shot_clock"]["left_s"] == 37
    play("warmup A\nresume", r)  # A is at the table, no stroke played: once more
    play("point", r)
    assert refused(r, "warmup B") == reasons.WARMUP_LATE
    same_as_rebuilt(r)


def test_warmup_refused_after_the_first_stroke_and_without_warmup_s():
    r = play("new game=three_cushion target=5 breaker=A warmup_s=60\nmiss")
    assert refused(r, "warmup A") == reasons.WARMUP_LATE
    assert refused(r, "warmup B") == reasons.WARMUP_LATE
    r = play("new game=three_cushion target=5")
    assert refused(r, "warmup A") == reasons.NO_FORMATS
    r = play("new game=three_cushion target=5 sets=2")  # formats, but no warm-up
    assert refused(r, "warmup A") == reasons.NO_WARMUP
    r = play("new game=three_cushion target=1 sets=2 breaker=A warmup_s=60 equalizing=off\npoint\nnext_set\npoint B")
    play("next_set", r)
    assert doc(r)["phase"] == "lag"
    assert refused(r, "warmup A") == reasons.WARMUP_LATE  # the deciding set's lag: not before the match
    r = play("new game=three_cushion target=5 warmup_s=60\nabandon A")
    assert refused(r, "warmup A") == reasons.WARMUP_LATE


def test_a_review_or_leaving_in_a_warmup_is_that():
    r = play("new game=straight_rail target=5 warmup_s=60\nwarmup A")
    d = replays(r, "review B")
    assert d["phase"] == "warmup" and d["review_used"]["B"] and d["warmup"]["player"] == "A"
    for word, result in (("left A", "B"), ("abandon B", "A")):
        r = play("new game=straight_rail target=5 breaker=A warmup_s=60\nwarmup B")
        d = replays(r, word)
        assert d["phase"] == "finished" and d["result"] == result and d["warmup"] is None, word
        same_as_rebuilt(r)


def test_warmup_undo_and_resume():
    r = play("new game=three_cushion target=5 breaker=B warmup_s=120")
    before = snapshot(r)
    replays(r, "warmup B")
    play("wait 10\nresume", r)
    d = doc(r)
    assert d["phase"] == "running" and d["elapsed_s"] == 0 and d["turn"] == "B"
    play("wait 4\nundo\nundo", r)
    d = doc(r)
    assert d["phase"] == "running" and d["warmup"] is None
    assert snapshot(r) == before


# ---- new()'s refusals ----------------------------------------------------------------------


def test_new_refuses_bad_format_options():
    r = play("new game=three_cushion target=5 breaker=A\npoint")
    for line, reason in (
        ("new game=three_cushion target=5 sets=10", reasons.BAD_SETS),
        ("new game=three_cushion target=5 deciding_target=3", reasons.BAD_DECIDING),
        ("new game=three_cushion target=5 sets=2 deciding_target=0", reasons.BAD_DECIDING),
        ("new game=three_cushion target=5 sets=2 deciding_target=10000", reasons.BAD_DECIDING),
        ("new game=three_cushion target=5 shootout=on", reasons.SHOOTOUT_DRAW),
        ("new game=three_cushion target=5 draw=on shootout=on", reasons.SHOOTOUT_DRAW),
        ("new game=three_cushion target=5 warmup_s=901", reasons.BAD_WARMUP),
        ("new game=three_cushion target=5 target_A=0", reasons.BAD_TARGET),
        ("new game=three_cushion target=5 target_B=10000", reasons.BAD_TARGET),
    ):
        assert refused(r, line) == reason, line
    assert r.match.n == 1 and r.match.fmt is None
    play("new game=three_cushion target=5 sets=9 deciding_target=3 warmup_s=900", r)
    play("new game=three_cushion target=5 sets=2 shootout=on", r)  # a drawn set may not stand: draw=on is fine
    play("new game=three_cushion target=5 draw=off shootout=on", r)


# ---- replay: undo and redo, a rebuild, a checkpoint, the store, the snapshot ----------------

FORMAT_SCRIPTS = (
    # A handicap: the break at B's half, a draw, an extension to two targets, B wins in it.
    """new game=three_cushion target_A=3 target_B=2 innings_limit=5 break_s=30
lag B
choose B give
point
miss
point B
miss B
break_request A
resume
point
point
point B
extend 5 4
point
miss
point B
miss B
miss
point B""",
    # Sets: warm-ups, a time-out, a break between sets, a set to the shoot-out, the deciding set's
    # lag and its target, drawn and decided by the shoot-out.
    """new game=straight_rail target=2 sets=2 deciding_target=1 shootout=on break_s=20 shot_clock=20 timeouts=1 warmup_s=60
warmup A
warmup B
resume
lag A
choose A break
point
wait 21
miss
point B
miss B
point
miss B
break_request B
wait 20
next_set
point B
point B
point A
point A
point B
miss B
miss A
next_set
lag_tie
lag B
choose B give
point A
point B
miss A
point B
miss B""",
    # The shoot-out of a match: after a warm-up ended by time, rounds of equal runs, a foul.
    """new game=three_cushion target=1 breaker=A draw=off shootout=on warmup_s=30
warmup A
wait 31
point
point
miss
miss
point
point
miss
point B
point B
foul B push
miss
point B
miss B
review A
close""",
)


def test_every_format_entry_undone_and_redone_and_rebuilt():
    for script in FORMAT_SCRIPTS:
        lines = lines_of(script)
        r = play(lines[0])
        waited = False
        for line in lines[1:]:
            if waited or line.startswith("wait") or line == "close":
                play(line, r)  # replays() undoes to the entry before: no time may pass after it
            else:
                replays(r, line)
            waited = line.startswith("wait")
            same_as_rebuilt(r)
        assert doc(r)["phase"] == "finished", script
        while r.match.n and not r.match.closed:
            play("undo", r)
            same_as_rebuilt(r)


def test_a_checkpoint_inside_the_formats():
    # The state at a chunk boundary (undo replays from it) in a set, in set_over, in a break
    # between sets, in a shoot-out's round, in a warm-up: undo back to it gives the same
    # document, and so does every prefix of what follows, undone.
    for setup, after in (
        ("new game=straight_rail target=999 sets=2 breaker=A", "point\nmiss\npoint"),
        (
            "new game=straight_rail target=1 sets=2 breaker=A equalizing=off\npoint",
            "break_request A\nresume\nnext_set\npoint B",
        ),
        (
            "new game=straight_rail target=1 sets=2 breaker=A equalizing=off\npoint\nbreak_request A",
            "resume\nnext_set\nmiss B",
        ),
        (
            "new game=straight_rail target=1 breaker=A draw=off shootout=on\npoint\npoint\npoint",
            "point\nmiss\npoint B\npoint B\nmiss B\nmiss\npoint B",
        ),
        (
            "new game=straight_rail target=1 breaker=A draw=off shootout=on\npoint\npoint\npoint\nmiss\npoint",
            "miss\nmiss\npoint\npoint",
        ),
        (
            "new game=straight_rail target=1 breaker=A draw=off shootout=on\npoint\npoint\npoint\nmiss\npoint",
            "miss\npoint\nmiss",
        ),
        ("new game=three_cushion target=5 warmup_s=600\nwarmup A", "warmup B\nresume\nlag A\nchoose A break"),
        (
            "new game=straight_rail target=1 sets=2 breaker=A warmup_s=600 equalizing=off\nwarmup A",
            "resume\npoint\nnext_set",
        ),
    ):
        lines = lines_of(setup)
        r = play(lines[0])
        pad = "call entre" if "straight_rail" in setup else "lag_tie"
        while r.match.n < rules.CHUNK - (len(lines) - 1):
            play(pad, r)
        play("\n".join(lines[1:]), r)
        assert r.match.n == rules.CHUNK, setup
        at = snapshot(r)
        live = lines_of(after)
        for k in range(1, len(live) + 1):
            for line in live[:k]:
                play(line, r)
                same_as_rebuilt(r)
            while r.match.n > rules.CHUNK:
                play("undo", r)
                same_as_rebuilt(r)
            assert snapshot(r) == at, (setup, k)


def test_the_shootout_across_a_checkpoint_keeps_the_runs():
    # The players' runs before the shoot-out stay what they were when an undo replays from a
    # checkpoint inside it (the shoot-out's run is not one of the players' innings).
    r = play("new game=straight_rail target=2 breaker=A draw=off shootout=on\npoint\npoint\npoint\npoint")
    while r.match.n < rules.CHUNK - 1:
        play("call entre", r)
    play("point\npoint\npoint\nmiss\npoint B", r)
    d = doc(r)
    assert d["players"]["A"]["runs"] == [2] and d["shootout"]["current"] == [3, 1]
    for want in ([3, 0], [3, 0], [2, 0], [1, 0]):
        play("undo", r)
        d = doc(r)
        assert d["players"]["A"]["runs"] == [2] and d["players"]["B"]["runs"] == [2], d
        assert d["shootout"]["current"] == want, (d["shootout"], want)
        assert d["current_run"] == (want[0] if d["turn"] == "A" else want[1])
        same_as_rebuilt(r)
    play("point\nmiss\npoint B\npoint B\nmiss B\nmiss\npoint B\nmiss B", r)
    d = doc(r)
    assert d["result"] == "B" and d["shootout"]["rounds"] == [[2, 2], [0, 1]]
    assert d["players"]["A"]["runs"] == [2] and d["players"]["B"]["runs"] == [2]
    play("undo", r)  # the checkpoint is behind: a finished shoot-out comes back too
    assert doc(r)["players"]["A"]["runs"] == [2]
    same_as_rebuilt(r)


def test_format_matches_saved_and_restored():
    for script in FORMAT_SCRIPTS:
        r, m2 = saved_and_restored(script)
        assert m2.options() == r.match.options()
        assert [m2.entry(i) for i in range(m2.n)] == [r.match.entry(i) for i in range(r.match.n)]


def journal_records(fs, root, gen):
    out = []
    seg = 0
    while True:
        data = read_all(fs, "%s/jnl/%d.%d" % (root, gen, seg))
        if not data:
            return out
        for k in range(len(data) // 16):
            out.append(struct.unpack_from("<IBBHi", data, 16 * k)[1:4])
        seg += 1


def drawn_handicap():
    """A handicap match (3 to 2) drawn on target, begun in a store on a MemFs and not yet synced:
    (fs, store, referee)."""
    fs = MemFs()
    s = store.MatchStore("/sb", fs)
    r = play("new game=three_cushion target_A=3 target_B=2 breaker=A")
    assert s.begin(r.match) is None
    play("%s\n%s" % (points(3), points(2)), r)
    return fs, s, r


def test_a_handicap_extension_keeps_its_b_target_in_the_journal():
    fs, s, r = drawn_handicap()
    play("extend 5 4", r)
    assert s.sync(r.match) is None
    recs = journal_records(fs, "/sb", s.gen)
    assert recs[-2] == (storenames.K_ARG2, rules.E_EXTEND, 4) and recs[-1] == (storenames.K_ENTRY, rules.E_EXTEND, 5)
    m2 = rules.Match()
    assert store.MatchStore("/sb", fs).restore(m2, 0)
    d = matchdoc.doc(m2, 0)
    assert d["players"]["A"]["target"] == 5 and d["players"]["B"]["target"] == 4 and d["phase"] == "running"


def test_a_power_cut_between_the_b_target_and_the_extension():
    fs, s, r = drawn_handicap()
    assert s.sync(r.match) is None
    drawn = matchdoc.doc(r.match, r.now)
    play("extend 5 4", r)
    code, arg, t = r.match.entry(r.match.n - 1)
    assert s._put(storenames.K_ARG2, code, 4, t) is None  # the B target's record, then the cut
    m2 = rules.Match()
    s2 = store.MatchStore("/sb", fs)
    assert s2.restore(m2, r.now)
    d = matchdoc.doc(m2, r.now)
    assert d == drawn  # no extension; nothing else lost
    # The match goes on from there: an extension to equal targets is that, not the lost one's.
    r2 = Referee(m2, r.now)
    play("extend 6 6", r2)
    assert s2.sync(m2) is None
    m3 = rules.Match()
    assert store.MatchStore("/sb", fs).restore(m3, r.now)
    d = matchdoc.doc(m3, r.now)
    assert d["players"]["A"]["target"] == 6 and d["players"]["B"]["target"] == 6, d["players"]


OPTIONS = (
    {"target_A": 30, "target_B": 22},
    {"sets": 3, "deciding_target": 11, "draw": False, "equalizing": False},
    {"sets": 9, "shootout": True},
    {"draw": False, "shootout": True, "warmup_s": 300},
    {"warmup_s": 900, "target": 9999, "target_B": 1},
    {"sets": 1},
)


def test_the_snapshot_keeps_every_new_option():
    for extra in OPTIONS:
        options = {"game": "three_cushion", "target": 15, "name_A": "Ä", "club_B": "x"}
        options.update(extra)
        m = rules.Match(**options)
        gen, got = parse_snapshot(pack_snapshot(7, m))
        assert gen == 7 and rules.Match(**got).options() == m.options(), extra
        assert len(pack_snapshot(7, m)) == 128


def test_a_format_3_snapshot_is_still_read():
    m = rules.Match(game="straight_rail", target=40, shot_clock=30, timeout_s=20, name_A="Ceulemans")
    buf = bytearray(pack_snapshot(3, m))
    # Format 3: the head, timeout_s (u16) at 21, the four texts' lengths at 23, the texts at 27.
    texts = snapshot_module.fit_texts(("Ceulemans", "", "", ""))
    buf[4] = 3
    struct.pack_into("<H4B", buf, 21, 20, len(texts[0]), 0, 0, 0)
    buf[27:124] = bytes(97)
    buf[27 : 27 + len(texts[0])] = texts[0]
    struct.pack_into("<I", buf, 124, store.crc32(memoryview(buf)[:124]))
    gen, got = parse_snapshot(bytes(buf))
    assert gen == 3 and got["timeout_s"] == 20 and got["name_A"] == "Ceulemans"
    assert "sets" not in got and "target_A" not in got
    assert rules.Match(**got).options() == m.options()


def test_the_checkpoints_layout_is_rules_fields_then_the_formats():
    """matchnames.py says where a checkpoint keeps what: rules.py's fields,
    its pairs' two values each, then formats.py's 14 (which overwrites the run)."""
    import matchnames

    fields, pairs = rules._FIELDS, rules._PAIRS
    assert matchnames.FORMATS_AT == len(fields) + 2 * len(pairs)
    assert matchnames.N_STATE == matchnames.FORMATS_AT + 14
    assert matchnames.RUN_AT == fields.index("run") and matchnames.EXT_AT == fields.index("extensions")
    assert matchnames.PLAYED_AT == len(fields) + 2 * pairs.index("played")
    assert matchnames.RUNS == 1 << matchnames.RSHIFT


# ---- formats_rare.py: in RAM once its moments may come, gone with the match -------------------


def test_the_rarer_part_is_loaded_ahead_of_the_shootout_and_goes_with_the_match():
    import sys

    r = play("new game=straight_rail target=20 breaker=A draw=off shootout=on")
    m = r.match
    assert m.fmt.rare is None  # the start of a match: not in RAM
    play(points(10), r)
    assert m.fmt.ready(m) and m.fmt.rare is None  # A 10 of 20: no level end near
    play(points(5), r)  # the last 5 points: the clock task (formats_wall.tick) loads it
    assert m.fmt.ready(m) and m.fmt.rare is not None
    play("new game=straight_rail target=20 breaker=A draw=off shootout=on", r)
    assert m.fmt.rare is None
    if sys.implementation.name == "micropython":
        assert "formats_rare" not in sys.modules  # its code is garbage
    play("new game=straight_rail target=20 sets=2 warmup_s=60", r)
    assert m.fmt.rare is None
    play("warmup A", r)  # the warm-up's press loads it
    assert m.fmt.rare is not None and doc(r)["warmup"]["player"] == "A"


def test_a_stroke_that_may_start_the_shootout_is_refused_when_its_code_cannot_be_loaded():
    r = play("new game=straight_rail target=20 breaker=A innings_limit=4 draw=off shootout=on\n" + points(3))
    m = r.match
    play("miss\nmiss\nmiss\nmiss", r)  # A's third inning of 4: the limit's level end comes near
    assert m.fmt.rare is None  # (no clock task here)
    more = formats.more

    def no_memory():
        raise MemoryError

    oom = m.out_of_memory
    formats.more = no_memory
    try:
        assert refused(r, "point") == reasons.NO_MEMORY
        assert m.out_of_memory == oom + 1 and m.fmt.rare is None
    finally:
        formats.more = more
    play("point\nmiss\n" + points(4) + "\nmiss\nmiss\nmiss", r)  # loaded on the path now: 4 all, the shoot-out
    assert m.fmt.rare is not None and doc(r)["phase"] == "shootout"
