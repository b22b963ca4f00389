"""What to press now: the phase of the match a wall board keeps, and a hint line for it.

The board's state document (firmware/matchdoc.py) names the phase: lag, running, break,
equalizing, finished, tiebreak, set_over, shootout, warmup.  The page learns it the way a
host tool that reads a board's flash would (tests/host/helpers.restored_match): the match
the board journaled on its flash (data/), copied and restored on the host by the
firmware's own store and rules -- read only, never written.  It is read again only when a
file under data/ changed, and only to word the hint: every display the page draws still
comes from the segments the firmware wrote.

    reader = PhaseReader(flash_dir)
    info = reader.read()     # {"phase": "running", "turn": "A", "result": None, ...} or None
    hint(info, "wall")       # "A at the table: POINT for each carom; END is a miss (the turn passes)"
"""

import os
import shutil
import tempfile

from ... import firmware_path


def _signature(folder):
    """(path, size, mtime) of every file under folder: changes when the board writes one."""
    out = []
    for root, _dirs, files in os.walk(folder):
        for name in sorted(files):
            path = os.path.join(root, name)
            try:
                st = os.stat(path)
            except OSError:
                continue
            out.append((path, st.st_size, st.st_mtime_ns))
    return tuple(sorted(out))


class PhaseReader:
    """The phase of the match on a board's flash (its data/ folder), restored when it changed."""

    def __init__(self, flash_dir):
        self.data = os.path.join(flash_dir, "data") if flash_dir else None
        self._sig = None
        self._info = None

    def read(self):
        """{"phase", "turn", "breaker", "result", "sets", "game"} of the saved match, or None
        (no match saved yet: a fresh board waits in the lag)."""
        if not self.data or not os.path.isdir(self.data):
            return None
        sig = _signature(self.data)
        if sig == self._sig:
            return self._info
        try:
            info = restore_info(self.data)
        except Exception:  # noqa: BLE001 -- a file gone while copied, a journal half written: next time
            return self._info
        self._sig = sig
        self._info = info
        return self._info


def restore_info(data_dir):
    firmware_path()
    import matchdoc
    import rules
    import store

    tmp = tempfile.mkdtemp(prefix="carom-phase-")
    try:
        copy = os.path.join(tmp, "data")
        shutil.copytree(data_dir, copy)
        m = rules.Match()
        if not store.MatchStore(copy).restore(m, 0):
            return None
        who = {rules.A: "A", rules.B: "B"}
        return {
            "phase": matchdoc.PHASES[m.phase].decode(),
            "turn": who.get(m.turn),
            "breaker": who.get(m.breaker),
            "result": (matchdoc.RESULTS[m.result] or b"").decode() or None,
            "sets": bool(getattr(m, "sets_to_win", 0)),
        }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# The hint for each phase, for the wall board's buttons (POINT/END per player, FOUL, BREAK, NEW)
# and for the referee box's (point/miss for the player at the table).
WALL = {
    "lag": "The lag: press the POINT of the player who won it: he breaks",
    "running": "{turn} at the table: POINT for each carom; END is a miss (the turn passes)",
    "break": "Half-time break: BREAK ends it, or the next POINT or END (or its clock)",
    "equalizing": "Equalizing inning, {turn}'s last: POINT for each carom; END (a miss) ends it",
    "finished": "Match over{result}. Hold NEW 3 s for a new match",
    "tiebreak": "A draw that may not stand (tie-break): hold NEW 3 s for a new match",
    "set_over": "Set over: press NEW for the next set (BREAK: a break between sets)",
    "shootout": "Shoot-out, {turn}'s inning: POINT for each carom; END is a miss",
    "warmup": "Warm-up: a short BREAK ends it (BREAK held 1 s in A's: B's warm-up)",
}
REMOTE = {
    "lag": "The lag: POINT says A breaks, MISS says B breaks",
    "running": "{turn} at the table: POINT for a carom; MISS ends the inning",
    "break": "Half-time break: BREAK ends it (or POINT, MISS)",
    "equalizing": "Equalizing inning, {turn}'s last: POINT; MISS ends it",
    "finished": "Match over{result}. Hold NEW 3 s for a new match",
    "tiebreak": "Tie-break: hold NEW 3 s for a new match",
    "set_over": "Set over: NEW for the next set",
    "shootout": "Shoot-out, {turn}'s inning: POINT; MISS ends it",
    "warmup": "Warm-up: BREAK ends it",
}
# A board with only the generic buttons (boards/mini.json: point, end; end held: a new match).
GENERIC = {
    "lag": "The lag: POINT says A breaks, END says B breaks",
    "running": "{turn} at the table: POINT for each carom; END is a miss (the turn passes)",
    "break": "Half-time break: the next POINT or END ends it (or its clock)",
    "equalizing": "Equalizing inning, {turn}'s last: POINT for each carom; END (a miss) ends it",
    "finished": "Match over{result}. Hold {new} for a new match",
    "tiebreak": "A draw that may not stand (tie-break): hold {new} for a new match",
    "set_over": "Set over: the referee box's NEW starts the next set",
    "shootout": "Shoot-out, {turn}'s inning: POINT for each carom; END is a miss",
    "warmup": "Warm-up: the referee box's BREAK ends it",
}
RESULTS = {"A": ": A wins", "B": ": B wins", "draw": ": a draw"}  # after "Match over"


def hint(info, role="wall", new="NEW 3 s"):
    """The line that says what to press, for the board's phase (None: no match saved yet, the lag).
    role: "wall", "remote" or "generic" (a wall board without a player's buttons); new: the
    button held for a new match and how long ("END 1 s" on the mini board)."""
    table = {"remote": REMOTE, "generic": GENERIC}.get(role, WALL)
    if info is None:
        return table["lag"]
    text = table.get(info["phase"])
    if text is None:
        return ""
    result = "" if info["phase"] == "set_over" else RESULTS.get(info.get("result") or "", "")
    return text.format(turn=info.get("turn") or "?", result=result, new=new)
