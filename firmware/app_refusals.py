"""The wall board's console line for a refused press or command (app.py's docstring):

    carom: refused <action>: <reason>

Loaded by app.refused for the line and dropped (cold.py): nothing of it stays in RAM.
"""

import controller
from buttons import LONG


def say(board, e):
    """e: a button event (index << 8 | event) the controller refused; -1 - command: a remote's
    command it refused; 0: the presses the lock-out ignored (board.group.locked, cleared)."""
    group = board.group
    if e < 0:
        line(-1 - e, board.ctrl.last_reason)
    elif e:
        line((group.long if e & 0xFF == LONG else group.short)[e >> 8], board.ctrl.last_reason)
    else:
        locked = group.locked
        group.locked = 0
        for i in range(len(group.buttons)):
            if locked >> i & 1:
                line(group.short[i] if group.short[i] < len(controller.ACTIONS) else group.long[i], "locked out")


def line(action, reason):
    if action < len(controller.ACTIONS):
        print("carom: refused %s: %s" % (controller.ACTIONS[action], reason))
