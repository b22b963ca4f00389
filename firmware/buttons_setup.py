"""A board definition's buttons as a buttons.ButtonGroup: pins, timings, actions.

Loaded when a board is set up and dropped (cold.py): the running board keeps
the group, not this code.

    with cold.Rare():
        import buttons_setup
        group = buttons_setup.from_board(board, make_pin)
"""

from buttons import NO_ACTION, Button, ButtonGroup
from controller import ACTIONS


def from_board(board, make_pin, callback=None, size=16):
    """The group of a normalized board definition (boarddef.load): button i is
    board["buttons"][i]; make_pin(number, pull) makes its pin ("up"/"down"/None). The
    group's `short` and `long` give each button's action (an index into
    controller.ACTIONS, NO_ACTION for none)."""
    buttons = []
    for spec in board["buttons"]:
        buttons.append(
            Button(
                make_pin(spec["pin"], spec["pull"]),
                active_low=spec["active_low"],
                has_long=spec["long_action"] is not None,
                lockout=spec["lockout"],
                debounce_ms=spec["debounce_ms"],
                long_ms=spec["long_ms"],
                stuck_ms=spec["stuck_ms"],
            )
        )
    group = ButtonGroup(buttons, callback, size, board["timings"]["lockout_ms"])
    group.short = bytes(_code(spec["action"]) for spec in board["buttons"])
    group.long = bytes(_code(spec["long_action"]) for spec in board["buttons"])
    return group


def _code(action):
    return NO_ACTION if action is None else ACTIONS.index(action)


def index(board, name):
    """The index of a board's button by its name (in the group from_board makes)."""
    for i, spec in enumerate(board["buttons"]):
        if spec["name"] == name:
            return i
    raise ValueError("no button %r" % name)


def allowed(names):
    """The bit mask of actions (controller.ACTIONS) with these names: what a board's own
    buttons may do when a referee remote does the rest (Controller.allowed)."""
    mask = 0
    for name in names:
        mask |= 1 << ACTIONS.index(name)
    return mask
