"""The referee's rarer events: checked here and logged (their effects: rules.py).

Loaded for one event and dropped (cold.py), so that a board that never hears
of a lag tie or a frozen ball keeps none of this in RAM, not even its names:
the lag's collisions, faults and ties, a player leaving or abandoning, a
review, a frozen ball and the player's choice, a jump's balls, the position
calls, an extension, a tie-break's winner, the close. It works on Match's
internals, as part of rules.py (rules_setup.py is its other cold half).

    rules_events.extend(match, 40, now)     # None, or the reason (rules.py's numbers)
"""

from matchnames import (
    ANCHOR,
    BAD_KIND,
    BAD_PLAYER,
    BAD_TARGET,
    CLOSED,
    CUSHION_GAME,
    END_INNINGS,
    E_ABANDON,
    E_CALL,
    E_EXTEND,
    E_FROZEN,
    E_FROZEN_CHOICE,
    E_JUMPED,
    E_LAG_COLLISION,
    E_LAG_FAULT,
    E_LAG_TIE,
    E_LEFT,
    E_NEXT_SET,
    E_REVIEW,
    E_TIEBREAK,
    E_WARMUP,
    FINISHED_ALREADY,
    IN_LAG,
    LAG_DECIDED,
    LAG_DONE,
    NOT_AT_TABLE,
    NOT_PLAYING,
    NO_FORMATS,
    NO_MEMORY,
    RESPOT_3C,
    RESPOT_CHOICE,
    RESPOT_FREE_BALL,
    RESPOT_MASSE,
    RESPOT_START,
    RUNNING,
    WARMUP,
)
from rules_setup import keep_extension
from matchwords import CALLS, GAMES, LAG_FAULTS, MAX_TARGET
from rules import A, B, EQUALIZING, FINISHED, LAG, NOBODY, R_DRAW, TIEBREAK

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


FROZEN_CHOICES = ("start", "free_ball", "masse")  # II.2.7, II.3.3: what the player chooses
_NEXT_SET = const(15)  # controller.ACTIONS.index("next_set"); act's other action is warmup
_SCAN = const(64)  # the warmup button looks this far back in the log (warm-ups come before the first stroke)

# Why a rarer event is refused (reasons.py reads these lines, as rules.py's; those rules.py
# or the controller return too are matchnames.py's).
_NOT_DRAWN = const(24)  # only a drawn match can be extended
_EXTEND_LOW = const(25)  # the extension target must be above the target
_EXTEND_INNINGS = const(26)  # a draw on the innings limit is not extended
_NOT_FINISHED = const(12)  # the match is not finished
_NO_TIEBREAK = const(27)  # no tie-break is pending
_TIEBREAK_PENDING = const(28)  # the tie-break winner is not recorded
_REVIEW_USED = const(38)  # that player has had his review (III.4.9a: once per match)
_NO_FROZEN = const(39)  # no frozen ball waits for the player's choice
_BALLS_3C = const(40)  # the jumped balls are named only in three-cushion (elsewhere all go to the start)
_EXTEND_TWO = const(49)  # a handicap match is extended to two targets: extend <a> <b>
_NO_EXTENSION_IN_SETS = const(54)  # a set is not extended: a drawn set goes to the shoot-out or a tie-break


def _check(m, code, arg):
    """Why a rarer event may not be played now (None: it may); rules.Match._check's half
    for the events that come only through here."""
    phase = m.phase
    if code == E_LAG_COLLISION or code == E_LAG_FAULT or code == E_LAG_TIE:
        return _check_lag(m, code, arg, phase)
    if code == E_LEFT or code == E_ABANDON or code == E_REVIEW:
        if arg != A and arg != B:
            return BAD_PLAYER
        if code == E_REVIEW:
            return _REVIEW_USED if m.reviews & (1 << arg) else None
        if phase == FINISHED:
            return FINISHED_ALREADY
        return None
    if code == E_FROZEN or code == E_FROZEN_CHOICE:
        return _check_frozen(m, code, arg, phase)
    if code == E_EXTEND:
        return _check_extend(m, arg, phase)
    if code == E_CALL:
        return _check_call(m, phase)
    if code == E_TIEBREAK:
        if phase != TIEBREAK:
            return _NO_TIEBREAK
        if arg != A and arg != B:
            return BAD_PLAYER
        return None
    return BAD_KIND


def _check_lag(m, code, arg, phase):
    """Why a lag's collision, fault or tie may not be logged now."""
    if phase != LAG:
        return LAG_DONE
    if m.chooser != NOBODY:
        return LAG_DECIDED
    if code == E_LAG_TIE:
        return None
    p = arg - 1 if code == E_LAG_COLLISION else arg >> 4
    if code == E_LAG_COLLISION and p == NOBODY:
        return None
    if p != A and p != B:
        return BAD_PLAYER
    return None


def _check_frozen(m, code, arg, phase):
    """Why a frozen ball, or the player's choice after one, may not be logged now."""
    if phase == LAG:
        return IN_LAG
    if phase == FINISHED or phase == TIEBREAK:
        return FINISHED_ALREADY
    if phase != RUNNING and phase != EQUALIZING:
        return NOT_PLAYING
    if code == E_FROZEN_CHOICE:
        return None if m.respot == RESPOT_CHOICE else _NO_FROZEN
    p = (arg >> 4) - 1
    return NOT_AT_TABLE if p != NOBODY and p != m.turn else None


def _check_extend(m, arg, phase):
    """Why the match may not be extended to target arg now."""
    if not ((phase == FINISHED and m.result == R_DRAW) or phase == TIEBREAK):
        return _NOT_DRAWN
    if m.ended_by == END_INNINGS:
        return _EXTEND_INNINGS
    if m.fmt is not None and m.sets_to_win:
        return _NO_EXTENSION_IN_SETS
    if arg <= m.targets[A]:
        return _EXTEND_LOW
    return None


def _check_call(m, phase):
    """Why a position call may not be logged now."""
    if GAMES[m.game].endswith("cushion"):
        return CUSHION_GAME
    if phase == LAG:
        return IN_LAG
    if phase == FINISHED or phase == TIEBREAK:
        return FINISHED_ALREADY
    if m.turn == NOBODY or phase == WARMUP:  # between sets, in a warm-up: no balls in play
        return NOT_PLAYING
    return None


def _event(m, code, arg, now):
    """A rarer event checked here (rules.Match._event's twin: its frame stays small)."""
    if m.closed:
        return CLOSED
    t = m._time(now)
    m._advance(t)
    reason = _check(m, code, arg)
    if reason is None and not m._log(code, arg, t):
        reason = NO_MEMORY
    return reason


def lag_collision(m, p, now):
    """The lag balls collided; p (or NOBODY) at fault. Second collision: p loses the choice."""
    return _event(m, E_LAG_COLLISION, p + 1, now)


def lag_fault(m, p, kind, now):
    """p's lag was faulty (kind indexes rules.LAG_FAULTS): the opponent has the choice."""
    if not 0 <= kind < len(LAG_FAULTS):
        return BAD_KIND
    if p != A and p != B:
        return BAD_PLAYER
    return _event(m, E_LAG_FAULT, p * 16 + kind, now)


def lag_tie(m, now):
    """The lag balls stopped equally far (I.1.3): lagged again; nobody at fault, no collision."""
    return _event(m, E_LAG_TIE, 0, now)


def left(m, p, now):
    """p left his place (I.4.3): he loses the match."""
    return _event(m, E_LEFT, p, now)


def abandon(m, p, now):
    """p abandoned the match (I.8.2): he loses it and is excluded from the competition."""
    return _event(m, E_ABANDON, p, now)


def review(m, p, now):
    """p asks the referee to review a decision: once per player per match (III.4.9a)."""
    return _event(m, E_REVIEW, p, now)


def frozen(m, p, now):
    """The ball of the player at the table (p: NOBODY, or who it must be) is frozen (I.5):
    no score changes; straight rail and one-cushion respot all three balls, balkline and
    three-cushion leave the choice to the player (frozen_choice)."""
    if p != NOBODY and p != A and p != B:
        return BAD_PLAYER
    choice = GAMES[m.game] not in ("straight_rail", "one_cushion")
    return _event(m, E_FROZEN, (p + 1) * 16 + (RESPOT_CHOICE if choice else RESPOT_START), now)


def frozen_choice(m, kind, now):
    """The player's choice after a frozen ball (FROZEN_CHOICES index): respotting puts all
    three balls on the start in balkline (II.2.7), only the frozen ones on their spots in
    three-cushion (II.3.3, as after a jump)."""
    if not 0 <= kind < len(FROZEN_CHOICES):
        return BAD_KIND
    if kind == 0:
        respot = RESPOT_3C if GAMES[m.game] == "three_cushion" else RESPOT_START
    else:
        respot = RESPOT_FREE_BALL if kind == 1 else RESPOT_MASSE
    return _event(m, E_FROZEN_CHOICE, kind * 16 + respot, now)


def jumped(m, p, balls, now):
    """A jump foul in three-cushion with the balls that left the table (bits: matchwords.BALLS); they go
    to their spots (II.3.4). p: NOBODY, or who must be at the table."""
    if p != NOBODY and p != A and p != B:
        return BAD_PLAYER
    if not 1 <= balls <= 7:
        return BAD_KIND
    if GAMES[m.game] != "three_cushion":
        return _BALLS_3C
    return m._event(E_JUMPED, (p + 1) * 16 + balls, now)


def call(m, kind, now, anchor=False):
    """A position call: entre, dedans, a cheval, out (III.4.3b), in an anchor or not; no
    score changes. The board counts the caroms made in the area (rules.Match.out_next)."""
    if not 0 <= kind < len(CALLS) or (anchor and CALLS[kind] == "out"):
        return BAD_KIND
    return _event(m, E_CALL, kind + (ANCHOR if anchor else 0), now)


def tiebreak(m, p, now):
    """The winner of the tie-break after a draw that may not stand."""
    return _event(m, E_TIEBREAK, p, now)


def extend(m, target, now, target_b=None):
    """A drawn match goes on to an agreed total (I.8.4): `target` for both, or with
    `target_b`, A's and B's (a handicap: rules.md, each above his current one). The log
    keeps the extension's number; its targets are kept apart (m._targets), as the log's
    argument is a byte."""
    if target_b is None:
        if m.targets0[A] != m.targets0[B]:
            return _EXTEND_TWO
        target_b = target
    for x in (target, target_b):
        if not isinstance(x, int) or not 1 <= x <= MAX_TARGET:
            return BAD_TARGET
    if m.closed:
        return CLOSED
    t = m._time(now)
    m._advance(t)
    reason = _check(m, E_EXTEND, target)
    if reason is None and target_b <= m.targets[B]:
        reason = _EXTEND_LOW
    if reason is None:
        reason = keep_extension(m, target, target_b)
    if reason is None and not m._log(E_EXTEND, m.extensions, t):
        reason = NO_MEMORY
    return reason


def next_set(m, now):
    """The next set starts (a set match in phase set_over; rules.Match.next_set)."""
    if m.fmt is None or not m.sets_to_win:
        return NO_FORMATS
    return m._event(E_NEXT_SET, 0, now)  # checked by formats.py


def warmup(m, p, now):
    """p's warm-up starts, before the first stroke (rules.Match.warmup)."""
    if m.fmt is None:
        return NO_FORMATS
    return m._event(E_WARMUP, p, now)  # checked by formats.py


def act(m, action, now):
    """The wall board's next_set and warmup buttons (controller.Controller.act, in a match
    with formats). warmup starts the warm-up of the other of the latest warm-up's player, A
    first (so A's, then B's, B's also during A's); during B's the press ends it (resume)."""
    if action == _NEXT_SET:
        return next_set(m, now)
    if m.phase == WARMUP:
        if m.warm_p != A:
            return m.resume(now)
        return warmup(m, B, now)
    p = A
    i = m.n
    while i > 0 and i > m.n - _SCAN:
        i -= 1
        entry = m.entry(i)
        if entry[0] == E_WARMUP:
            p = B if entry[1] == A else A
            break
    return warmup(m, p, now)


def close(m, now):
    """The report is signed: no more changes, no more undo."""
    if m.closed:
        return CLOSED
    m._advance(m._time(now))
    if m.phase == TIEBREAK:
        return _TIEBREAK_PENDING
    if m.phase != FINISHED:
        return _NOT_FINISHED
    m.closed = True
    return None
