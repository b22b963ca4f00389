"""The names of the rules core's small-int codes, for those who name them.

rules.py compiles its codes in as private constants, and matchsetup.py and
matchevents.py their own copies: on the board none of these names is ever
interned. Here they are public, for the report, the tools and the tests
(rules.E_POINT and the like come from here: rules.__getattr__); a test
checks every one against rules.py's. Loaded only when someone asks.
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
F_ZONE = const(8)
F_OTHER = const(10)  # (rules.py: F_TIME)

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
#   E_BREAK, E_LEFT, E_TIEBREAK  p                 E_CALL           CALLS index (+ matchevents.ANCHOR)
#   E_RESUME, E_BREAK_END  0                       E_EXTEND         the extension's number
#   E_ABANDON, E_REVIEW  p                         E_LAG_TIE        0
#   E_WARMUP         p                             E_NEXT_SET, E_WARMUP_END  0
#   E_JUMPED         (p + 1) * 16 + balls (bits: matchdoc.BALLS)
#   E_FROZEN         (p + 1) * 16 + the respot that follows (RESPOT_*)
#   E_FROZEN_CHOICE  matchevents.FROZEN_CHOICES index * 16 + the respot that follows
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

CHUNK = const(128)  # log entries per chunk
WINDOW = const(2)  # chunks of the log kept in RAM when the store can read the others back

# Reasons rules.py returns too, for those who name them (reasons.py reads the texts there).
CLOSED = const(1)
BAD_PLAYER = const(10)
BAD_KIND = const(11)
NO_MEMORY = const(36)
BAD_TARGET = const(30)
