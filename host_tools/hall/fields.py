"""What each key of the match state document and of the match report means, in a reader's words:
docs/reference/state-document.md and report.md.

The board writes the documents (firmware/matchdoc.py, matchdoc_rest.py, report.py, rules_innings.py)
and keeps no text of them; schema.py here checks every key the board writes. These tables say what
each key is, with the words of the choices taken from schema.py (and through it from the
firmware's matchwords.py). A test (tests/host/test_docs_reference.py) checks that each table has
exactly schema.py's keys and that a document the firmware writes has no key they do not name.

Each table: {key: (its value, what it is)}; `null` and the words are JSON's.
"""

from . import schema


def _one_of(words):
    return ", ".join("null" if w is None else "`%s`" % w for w in words)


# The state document's keys (schema.STATE), in the order the board writes them.
STATE = {
    "version": ("1", "the document's version"),
    "game": (_one_of(schema.GAMES), "the game"),
    "target": (
        "number, or null",
        "the points to play to (the agreed total after an extension; in a set match, the set's); null in a"
        " handicap match, where the players' targets differ (`players.X.target`)",
    ),
    "innings_limit": ("number, or null", "the innings limit; null: none"),
    "phase": (
        _one_of(schema.PHASES),
        "where the match is: `set_over` is a set won with the match not (`next_set` starts the next)",
    ),
    "turn": (_one_of(schema.WHO), "the player at the table; null in the lag, at the end, between sets"),
    "breaker": (_one_of(schema.WHO), "the player who breaks; null before the lag is decided"),
    "spot_ball": (_one_of(schema.WHO), "the player with the spot ball; null before the lag is decided"),
    "current_run": ("number", "the run in progress; once the match is over, the last inning's run"),
    "countdown": (
        "number, or null",
        "the points the player at the table still needs to his target, inside the last 5 (3 in three-cushion);"
        " else null",
    ),
    "equalizing_inning": ("true or false", "true while the equalizing inning runs"),
    "result": (_one_of(schema.RESULTS), "who won: a player, a draw, or a tie-break to come; null while it runs"),
    "ended_by": (
        _one_of(schema.ENDINGS),
        "how the match (in `set_over`: the set) ended: `left` (a player left his place: he loses, I.4.3),"
        " `abandoned` (he loses and is excluded, I.8.2), `shootout` (the shoot-out decided)",
    ),
    "last_foul": ("a foul, or null", "the latest foul's kind until the next stroke"),
    "last_call": (
        "a call, or null",
        "the referee's latest position call (`out`: a ball left the area) until the next stroke",
    ),
    "respot": (
        _one_of(schema.RESPOTS),
        "where the balls go until the next stroke: `start` the starting position, `three_cushion` the jumped"
        " or frozen balls to their spots (II.3.3, II.3.4), `choice` the player's choice is awaited (II.2.7),"
        " `free_ball` or `masse` his choice",
    ),
    "respot_balls": (
        "a list of " + _one_of(schema.BALLS) + ", or null",
        "the balls a jump sent off the table, as the referee named them (three-cushion)",
    ),
    "spots": (
        "`{ball: spot}`, spots " + _one_of(schema.SPOTS) + "; or null",
        "with `respot` `three_cushion`: each ball's spot for the player coming to the table (II.3.4)",
    ),
    "area": (
        '`{"anchor", "caroms", "limit", "out_next"}`, or null',
        "while the object balls are in a restricted area (straight rail, balkline): an anchor area or not,"
        " the caroms made since `entre`, the limit (2; 1 in balkline 47/1), whether the next carom must"
        " bring a ball out (II.1.2, II.2.3)",
    ),
    "lag": (
        '`{"chooser", "collisions", "ties"}`, or null',
        "during the lag: the player who chooses (or null), the lag's collisions and ties (I.1.3)",
    ),
    "review_used": ('`{"A": true or false, "B": …}`', "the player has asked for his one review (III.4.9a)"),
    "elapsed_s": (
        "number, or null",
        "the match time in whole seconds, from the first stroke, through breaks, stopped at the end (at the"
        " draw when a tie-break follows); null in the lag (III.4.2)",
    ),
    "break_taken": ("true or false", "the half-time break was held (a set match: the break after this set)"),
    "break_left_s": ("number, or null", "the seconds left of the break"),
    "shot_clock": ('`{"left_s", "limit_s"}`, or null', "the shot clock's seconds left and its limit; null: none"),
    "sets": (
        '`{"to_win", "number", "won": {"A", "B"}, "scores": [[a, b], …]}`, or null',
        "a set match: first to `to_win` sets, the set being played (or just won), the sets won, the finished"
        " sets' scores in order",
    ),
    "shootout": (
        '`{"rounds": [[a, b], …], "played", "current": [a, b] or null}`, or null',
        "once a shoot-out began: the finished rounds (the newest 32), how many were played, the round on",
    ),
    "warmup": ('`{"player", "left_s"}`, or null', "during a warm-up: whose it is and the seconds left"),
    "setup": (
        '`{"n", "waiting", "refused", "last_refused"}`',
        "only a board with a hall key, only in what it publishes: the hall's setups it applied (the newest"
        " n), the one waiting, how many it refused and why the last (" + _one_of(schema.SETUP_REFUSALS) + ")",
    ),
    "options": ("an object (below)", "the match's options"),
    "events": ("number", "the entries in the match's log (what undo can take back)"),
    "closed": ("true or false", "the match report is closed"),
    "players": ('`{"A": player, "B": player}` (below)', "the two players"),
    "refused": ("text, or null", "only the scripted mode (`carom sim --headless`): why the line was refused"),
}

# Each player's object (schema._PLAYER): players.A and players.B.
PLAYER = {
    "name": ("text", "the player's name"),
    "club": ("text", "his club"),
    "target": ("number", "his own target: a handicap's, or the match's"),
    "score": ("number", "his score (a set match: in the current set)"),
    "innings": ("number", "his innings played"),
    "high_run": ("number", "his highest run"),
    "average": ("number", "his general average (GD): points per inning, 3 decimals, as the board shows it"),
    "timeouts_left": ("number", "the time-outs he has left"),
    "fouls": ("number", "his fouls"),
    "runs": ("a list of numbers", "the run of each of his innings, in order"),
    "match": (
        '`{"score", "innings", "high_run", "average"}`, or null',
        "a set match: his totals over all sets",
    ),
}

# The match's options (schema._OPTIONS): the `options` object.
OPTIONS = {
    "equalizing": ("true or false", "the equalizing inning is played"),
    "draw": ("true or false", "a level end may stand as a draw"),
    "break_s": ("number", "the half-time break's seconds"),
    "shot_clock_s": ("number", "the shot clock's seconds (0: none)"),
    "timeouts": ("number, or null", "each player's time-outs"),
    "timeout_s": ("number, or null", "the seconds a time-out adds to the shot (null: one more shot period)"),
    "breaker_ball": ("`spot` or `white`", "the breaker's ball"),
    "sets": ("number", "the sets to win (0: none)"),
    "deciding_target": ("number, or null", "the deciding set's target (null: the target)"),
    "shootout": ("true or false", "a level end that may not stand goes to a shoot-out"),
    "warmup_s": ("number", "each player's warm-up in seconds (0: none)"),
}

# The report's own object (schema.REPORT): the `report` key a report adds to the state document.
REPORT = {
    "table": ("text", "the table's name (config.json's `name`)"),
    "board": ("text", "the board definition it was played on"),
    "started_at": ("seconds since 1970, or null", "when the match began (null: the board had no wall clock)"),
    "ended_at": ("seconds since 1970, or null", "when it ended"),
    "duration_s": ("number", "the match's length in seconds, from `new` (the lag included)"),
    "innings": ("a list of innings (below)", "every inning, in the order played"),
    "fouls": ('`{"A", "B"}`', "each player's fouls"),
    "signatures": (
        '`{"referee", "A", "B"}`',
        "the signatures (empty on the board: the score sheet leaves the lines to sign)",
    ),
}

# Each inning of the report (schema.INNING).
INNING = {
    "player": ("`A` or `B`", "whose inning"),
    "inning": ("number", "his inning's number (in a set match: in the set; a shoot-out round's: the round's)"),
    "run": ("number", "the points of the inning"),
    "fouls": ("a list of fouls", "the fouls in it"),
    "break": ("true or false", "the half-time break was held during it"),
    "equalizing": ("true or false", "the equalizing inning"),
    "set": ("number", "a set match: the set it was played in"),
    "shootout": ("true or false", "a shoot-out round's inning"),
    "start_ms": ("number, or null", "when it began, in milliseconds of match time"),
    "end_ms": ("number, or null", "when it ended, in milliseconds of match time"),
    "start": ("seconds since 1970, or null", "when it began, by the wall clock"),
    "end": ("seconds since 1970, or null", "when it ended, by the wall clock"),
}
