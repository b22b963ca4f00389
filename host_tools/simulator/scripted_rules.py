"""The scripted mode's rules: referee lines through the firmware's rules core.

`carom sim --headless` without `--board`: each line is a referee event; after
it, the match state document (the firmware's matchdoc.doc) with a key
`refused` (null, or the reason).  The rules core runs on the real MicroPython
unix port (RulesProcess), or with `--cpython` inside this process
(RulesInProcess).  The virtual board driven by lines of presses is
scripted_board.py.
"""

import json
import subprocess

from .. import FIRMWARE_DIR, firmware_path, micropython_exe
from ..errors import CommandError

# Keys in the order a person reads them (MicroPython's dicts have no order).
KEY_ORDER = (
    "version game target innings_limit phase turn breaker spot_ball current_run countdown "
    "equalizing_inning result ended_by last_foul last_call respot lag break_taken break_left_s "
    "shot_clock options events closed players refused"
).split()
PLAYER_ORDER = "name club score innings high_run average timeouts_left fouls runs".split()


def ordered(doc):
    """The state document with its keys in reading order."""
    out = {k: doc[k] for k in KEY_ORDER if k in doc}
    out.update((k, v) for k, v in doc.items() if k not in out)
    if isinstance(out.get("players"), dict):
        out["players"] = {
            p: {k: d[k] for k in PLAYER_ORDER if k in d} | d for p, d in sorted(out["players"].items())
        }
    return out


class RulesProcess:
    """The rules core in the MicroPython unix port, fed one referee line at a time."""

    def __init__(self):
        code = "import sys; sys.path.insert(0, %r); import referee; referee.main()" % FIRMWARE_DIR
        self.proc = subprocess.Popen(
            [micropython_exe(), "-c", code],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
        )

    def send(self, text):
        """Apply one event line; return the state document it printed."""
        self.proc.stdin.write(text.strip() + "\n")
        self.proc.stdin.flush()
        out = self.proc.stdout.readline()
        if not out:
            err = self.proc.stderr.read().strip()
            raise CommandError("the rules core stopped on MicroPython: %s" % (err or self.proc.wait()))
        return json.loads(out)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


class RulesInProcess:
    """The same firmware modules, imported into this CPython process."""

    def __init__(self):
        firmware_path()
        import matchdoc
        import referee

        self.matchdoc = matchdoc
        self.ref = referee.Referee()

    def send(self, text):
        reason = self.ref.line(text.strip())
        doc = self.matchdoc.doc(self.ref.match, self.ref.now)
        doc["refused"] = reason
        return json.loads(json.dumps(doc))

    def close(self):
        pass


def scripted_docs(lines, interpreter="micropython"):
    """Run referee lines through the rules core; yield (line, state document).

    Blank lines and # comments are skipped, as the firmware's referee.run does.
    """
    rules = RulesInProcess() if interpreter == "cpython" else RulesProcess()
    try:
        for text in lines:
            if text.strip() and not text.lstrip().startswith("#"):
                yield text.strip(), rules.send(text)
    finally:
        rules.close()
