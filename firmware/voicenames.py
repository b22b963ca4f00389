"""The names of the voice's codes: its clips, its calls, its pack's layout, its languages.

speech.py (the wall board's voice: what the referee would call, spoken from a pack of
clips on the flash) reads the codes below; the build compiles them in (host_tools/consts.py),
so that no running board loads this module. config.py reads CALLS and LANGUAGES (voice.calls,
voice.language: the words of a string each); host_tools/voice makes the packs with the same clip numbers (its CLIPS
names each one: a test checks them against these).

A pack (`voice.pack` on the board's flash; `carom voice` makes it) is one file:

    0   b"CVP1"
    4   the language, 2 ASCII letters (b"hu")
    6   the sample rate, u16 (RATE)
    8   the clip slots, u16 (N_CLIPS)
    10  the chunk, u16 (CHUNK bytes)
    12  per clip: offset, length (bytes; 0: not in the pack), CRC-32 of its bytes: u32 each
    ..  silence to the next whole chunk, then the clips' samples: 16-bit signed little-endian
        mono, each clip padded with silence to a whole number of chunks (so the board streams
        whole chunks through one buffer, and keeps each clip's place and length in chunks)
"""

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


PACK_FILE = const("voice.pack")
PACK_MAGIC = const(b"CVP1")
HEADER = const(12)
RATE = const(8000)  # samples per second
CHUNK = const(512)  # bytes: 256 samples, 32 ms

# Words, one string each (a const: compiled in, so that no board loads this module; .split()).
LANGUAGES = const("hu en de")  # hu: the rules' language, the default

# The calls the configuration may choose (voice.calls), a bit each (the board's mask: bit
# C_... for each kind below, in this order from 1; "break" brings its last minute, "end" the
# shoot-out).
CALLS = const("countdown zero foul equalizing end break clock timeout set")

# Call kinds, in the speech queue (and their bit in the mask).
C_COUNT = const(1)  # the points left, in the countdown (arg)
C_ZERO = const(2)  # a zero inning
C_FOUL = const(3)  # a foul (arg: its kind, matchwords.FOULS)
C_EQUALIZING = const(4)  # the equalizing inning starts
C_END = const(5)  # the match is over (its result, the winner, the score)
C_BREAK = const(6)  # the half-time break starts
C_CLOCK = const(7)  # the shot clock's warning: 10 seconds left
C_TIMEOUT = const(8)  # a time-out
C_SET = const(9)  # a set is over (the sets won)
C_TOTAL = const(10)  # a point's running total (voice.totals)
C_MINUTE = const(11)  # the break's last minute (with "break")
C_SHOOTOUT = const(12)  # a shoot-out starts (with "end")

# Clips: numbers 0..19, the tens 20..90, then the words the languages compose numbers with,
# then the calls' words.
K_N0 = const(0)  # .. K_N0 + 19
K_TENS = const(20)  # twenty; K_TENS + t - 2 for t tens, up to ninety (27)
K_HUNDRED = const(28)
K_THOUSAND = const(29)
K_TEEN = const(30)  # hu "tizen" (11..19)
K_TWENTY_ = const(31)  # hu "huszon" (21..29)
K_TWO_ = const(32)  # hu "két" (2 before száz, ezer)
K_AND = const(33)  # de "und"
K_ONE_ = const(34)  # de "ein" (einundzwanzig, einhundert)
K_FOUL = const(35)  # + the foul's kind (matchwords.FOULS, 11 of them)
K_EQUALIZING = const(46)
K_END = const(47)
K_WHITE = const(48)
K_YELLOW = const(49)
K_WINS = const(50)
K_DRAW = const(51)
K_SHOOTOUT = const(52)
K_BREAK = const(53)
K_MINUTE = const(54)
K_SECONDS = const(55)
K_TIMEOUT = const(56)
K_SET = const(57)
N_CLIPS = const(58)
