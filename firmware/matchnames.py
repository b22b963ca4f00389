"""The names of the rules core's small-int codes, for those who name them.

The one home of the codes the rules core's modules share (the log's entry codes, the
phases, results, endings and reasons the board's hot path does not name: those are
rules.py's) and of a checkpoint's layout. rules.py, rules_setup.py, formats.py and the
others import them from here; the build compiles them into each (host_tools/consts.py),
so that on the board none of these names is ever interned and this module is loaded only
when someone asks by name (rules.GAMES and the like: rules.__getattr__).
"""

from matchwords import CALLS, FOULS, GAMES, LAG_FAULTS, MAX_INNINGS_LIMIT, MAX_TARGET  # noqa: F401 (as rules.GAMES)

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


# Phases (rules.py: LAG, BREAK, EQUALIZING, FINISHED, TIEBREAK, SET_OVER, SHOOTOUT, WARMUP;
# matchdoc.PHASES names them).
RUNNING = const(1)
SET_OVER = const(6)  # the formats' (formats.py)
SHOOTOUT = const(7)
WARMUP = const(8)

# Results (rules.py: R_A, R_B, R_DRAW; matchdoc.RESULTS).
R_NONE = const(0)
R_TIEBREAK = const(4)

# How a match ended (matchdoc.ENDINGS).
END_TARGET = const(1)
END_INNINGS = const(2)
END_LEFT = const(3)
END_TIEBREAK = const(4)
END_ABANDONED = const(5)  # I.8.2: loses, and is excluded from the competition
END_SHOOTOUT = const(6)  # the shoot-out decided (formats.py)

# Foul kinds (I.9.2); "miss" is the empty inning, not counted as a foul;
# "other" is a foul whose kind the board was not told (a wall board's foul button).
F_MISS = const(0)
F_JUMPED = const(1)
F_TOUCHED = const(3)  # touched a ball with hand, clothes or cue
F_PUSH = const(4)  # a push shot or a double hit
F_ZONE = const(8)
F_OTHER = const(10)  # (rules.py: F_TIME)
N_FOULS = const(11)  # len(FOULS): a foul's kind is an index into it

# Where the balls go (rules.py's respot; matchdoc.RESPOTS names them).
RESPOT_START = const(1)
RESPOT_3C = const(2)
RESPOT_CHOICE = const(3)
RESPOT_FREE_BALL = const(4)
RESPOT_MASSE = const(5)

# Log entry codes (matchdoc.ENTRY_NAMES) and their argument, one byte (p: player A 0, B 1;
# p + 1: 0 when the entry names nobody, the player at the table):
#   E_LAG            p, the lag's winner           E_LAG_COLLISION  p + 1, at fault
#   E_LAG_FAULT      p * 16 + LAG_FAULTS index     E_CHOOSE         p * 2 + give (1: gives the break)
#   E_POINT, E_MISS, E_TIMEOUT  p + 1              E_FOUL           (p + 1) * 16 + FOULS index
#   E_BREAK, E_LEFT, E_TIEBREAK  p                 E_CALL           CALLS index (+ ANCHOR)
#   E_RESUME, E_BREAK_END  0                       E_EXTEND         the extension's number
#   E_ABANDON, E_REVIEW  p                         E_LAG_TIE        0
#   E_WARMUP         p                             E_NEXT_SET, E_WARMUP_END  0
#   E_JUMPED         (p + 1) * 16 + balls (bits: matchwords.BALLS)
#   E_FROZEN         (p + 1) * 16 + the respot that follows (RESPOT_*)
#   E_FROZEN_CHOICE  rules_events.FROZEN_CHOICES index * 16 + the respot that follows
# Three packings: a player and a kind share the byte as p * 16 + kind (11 foul kinds,
# 4 lag faults: up to 15), with p + 1 where nobody may be named (a foul at the table, or
# the shot clock's automatic F_TIME foul, arg F_TIME); a choice is one bit, p * 2 + give.
# Kept as they are: the journal (store.py) stores these bytes, and old journals must
# still be read back, so a new packing would need a new journal format.
E_LAG = const(1)
E_LAG_COLLISION = const(2)
E_LAG_FAULT = const(3)
E_CHOOSE = const(4)
E_POINT = const(5)
E_MISS = const(6)
E_FOUL = const(7)
E_BREAK = const(8)
E_RESUME = const(9)
E_LEFT = const(10)
E_EXTEND = const(11)
E_CALL = const(12)
E_TIMEOUT = const(13)
E_BREAK_END = const(14)
E_TIEBREAK = const(15)
E_LAG_TIE = const(16)
E_ABANDON = const(17)
E_FROZEN = const(18)
E_FROZEN_CHOICE = const(19)
E_JUMPED = const(20)
E_REVIEW = const(21)
E_NEXT_SET = const(22)
E_WARMUP = const(23)
E_WARMUP_END = const(24)

ANCHOR = const(16)  # added to a call's kind (E_CALL): the balls are in an anchor (II.2.4)

CHUNK = const(128)  # log entries per chunk
WINDOW = const(2)  # chunks of the log kept in RAM when the store can read the others back
RUNS = const(64)  # innings' runs per chunk of a player's runs
RSHIFT = const(6)  # RUNS == 1 << RSHIFT

# A checkpoint (rules.Match._save): N_STATE ints, rules._FIELDS' one each, then rules._PAIRS'
# two each (A's, then B's), then formats.py's 14 from FORMATS_AT (a test checks these against
# the tuples).
N_STATE = const(53)
RUN_AT = const(8)  # the run (rules._FIELDS' "run")
EXT_AT = const(18)  # the number of extensions ("extensions")
PLAYED_AT = const(31)  # the innings each player played (rules._PAIRS' "played": A's, then B's)
FORMATS_AT = const(39)  # formats.py's fields

# Why an event is refused: the reasons more than one module returns (rules.py's, rules_setup.py's,
# rules_events.py's, formats.py's and formats_rare.py's own are there; reasons.py reads the texts here too).
CLOSED = const(1)  # match closed
NOT_AT_TABLE = const(3)  # that player is not at the table
NOT_PLAYING = const(4)  # no inning is being played
IN_LAG = const(5)  # the lag decides who breaks first
LAG_DONE = const(6)  # the lag is over
LAG_DECIDED = const(7)  # the lag is decided: the winner chooses
BAD_PLAYER = const(10)  # player must be A or B
BAD_KIND = const(11)  # unknown kind
FINISHED_ALREADY = const(13)  # the match is finished
CUSHION_GAME = const(14)  # not in cushion games
BREAK_TAKEN = const(16)  # the break was taken already
BREAK_OFF = const(18)  # no break in this match
BAD_TARGET = const(30)  # target must be 1..9999
NO_MEMORY = const(36)  # no memory left for the match log
SET_IS_OVER = const(42)  # the set is over: next_set starts the next one
IN_WARMUP = const(44)  # a warm-up is on: resume ends it
WARMUP_LATE = const(46)  # the warm-up is before the first stroke
NO_TIMEOUT_HERE = const(47)  # no time-out in a shoot-out
NO_FORMATS = const(55)  # this match has no sets or warm-up
