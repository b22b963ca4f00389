"""The names of the configuration's codes: its file, the schema's value kinds and flags, what a
secret shows as.

config.py checks config.json against its schema, whose entries are (key, kind, default, lo,
hi, flags, extra); config_edit.py edits it by dotted paths; startup.py reads its checked form
without loading config.py. The codes they read have their one home here: each imports them,
and the build compiles them in (host_tools/consts.py), so that no board loads this module.
"""

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


FILE = const("config.json")
REDACTED = const("***")  # what redact() shows for a secret

# Value kinds.
T_INT = const(0)  # lo..hi
T_BOOL = const(1)
T_TEXT = const(2)  # printable text, length lo..hi
T_ID = const(3)  # characters from the string in `extra`, length lo..hi
T_CHOICE = const(4)  # one of the tuple in `extra`
T_HEX = const(5)  # lo bytes as 2*lo hex digits
T_MAC = const(6)
T_ACTIONS = const(7)  # "all" or a list of ACTIONS
T_OBJ = const(8)  # `extra` is the section's schema
T_NAMES = const(9)  # "all" or a list of the names in `extra`

# Flags.
F_NULL = const(1)  # null allowed
F_SECRET = const(2)  # never shown: not in errors, "***" in redact()
F_OR_ZERO = const(4)  # 0 (or "") also allowed besides lo..hi
F_BYTES = const(8)  # text length counted in UTF-8 bytes
