"""The names of the radio protocol's codes: a frame's layout, its kinds, the commands, and why
the wall dropped a frame.

radio.py (the wall's side: it checks and answers) and remote.py (the referee remote's: it
sends and retries) speak it. The codes both read have their one home here: each imports them,
and the build compiles them in (host_tools/consts.py), so that no board loads this module.
"""

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


VERSION = const(2)
T_COMMAND = const(1)
T_ACK = const(2)
T_CHALLENGE = const(3)
FRAME_LEN = const(56)
SIGNED = const(40)  # bytes covered by the tag
TAG_LEN = const(16)
NONCE_LEN = const(8)
KEY_LEN = const(32)
N_COMMANDS = const(17)  # len(controller.ACTIONS): a command is an index into it
FOUL = const(6)  # controller.ACTIONS.index("foul"), the command whose argument is a foul kind
AT_COMMAND = const(16)

# Why the wall dropped a frame (an index into radio.Receiver.drops; remote.DROP_NAMES names them).
DROP_SIZE = const(0)
DROP_VERSION = const(1)
DROP_TYPE = const(2)
DROP_SENDER = const(3)
DROP_TAG = const(4)
DROP_REPLAY = const(5)
DROP_COMMAND = const(6)
DROP_UNPROVEN = const(7)  # authentic, but the wall does not know its last number: challenged
N_DROPS = const(8)
