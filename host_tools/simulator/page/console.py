"""The board's console as the page reads it (a part of BoardSession): refused presses, the identify
mode, the raw REPL's answers to a host tool left out."""

import re

from ...link.boardio import APP_RUNNING as RUNNING
from .actions import GAP_S

REFUSED = re.compile(r"carom: refused (\S+): (.*)$")  # the firmware's line for a refused press or a lock-out
LOCKED_OUT = "locked out: the turn had just passed (a press that soon after is ignored)"
# The identify mode (firmware/identify.py): the line it prints when it shows, the one when it is left.
IDENTIFY_SHOWS = "identify: press a button"
IDENTIFY_LEFT = "identify: done"
RAW_REPL = "raw REPL; CTRL-B to exit"  # the board entered the raw REPL (a host tool: mpremote, carom)
FRIENDLY = 'Type "help()" for more information.'  # the banner: the board left it


def reason_text(n):
    """The words for one of the rules core's reason numbers."""
    from ... import firmware_path

    firmware_path()
    import reasons

    return reasons.text(n)


class Console:
    """BoardSession's reading of what the board printed."""

    def _identify_console(self, line):
        """The identify mode as the board's console tells it: shown (release the button held
        since the power-on), left."""
        if line.startswith(IDENTIFY_SHOWS):
            self.identifying = True
        elif line.startswith(IDENTIFY_LEFT):
            self.identifying = False
        if self._identify_held and (self.identifying or line.startswith(RUNNING)):
            name, self._identify_held = self._identify_held, None
            b = self._buttons[name]
            b["down_at"] = None
            b["free_at"] = self.pacer.now + GAP_S
            self._log("press", "%s released: the %s shows" % (name, "identify mode" if self.identifying else "app"))
            self._release_at(name, self.pacer.now)

    def _refused(self, action, reason):
        """The firmware refused a press (or ignored it in a lock-out): said in the log of the board
        that printed it, and a "refused" event marks the button pressed for it (this board's, or
        the paired referee box's when its press came last)."""
        if reason.isdigit():  # a reason number: its words (firmware/reasons.py, host side)
            reason = reason_text(int(reason))
        elif reason == "locked out":
            reason = LOCKED_OUT
        board, button = self, None
        best = -1.0
        for s in (self, self.partner):
            if s is None or s.layout is None:
                continue
            for spec in s.layout["buttons"]:
                if action not in (spec["name"], spec["action"], spec["long_action"]):
                    continue
                last = s._buttons[spec["name"]]["last"]
                if last > best:
                    board, button, best = s, spec["name"], last
        who = button if board is self else "the referee box's %s" % button
        self._log("refused", "%s refused: %s" % (who if button else action, reason))
        payload = {
            "board": board.index,
            "button": button,
            "action": action,
            "reason": self.redact(reason),
            "t": round(self.vb.now, 3),
        }
        self.publish("refused", board.index, payload)

    def _console_lines(self, lines, rebooted):
        """The lines of the board's console to log (a (kind, text) among them says the raw REPL began):
        at the raw REPL (mpremote, carom config, doctor,
        deploy) the board answers a host tool, in pieces that may split a secret (a file read 512
        bytes at a time, as Python reprs), so those answers are not logged, only that it happened.
        The raw REPL ends with the friendly banner, or with a reset (after the tool's last reply,
        which holds the raw REPL's \\x04)."""
        if self._raw_repl and rebooted:
            last = max((i for i, line in enumerate(lines) if "\x04" in line), default=-1)
            self._raw_repl = False
            lines = lines[last + 1 :]
        out = []
        for line in lines:
            if self._raw_repl:
                if FRIENDLY in line:
                    self._raw_repl = False
                    out.append(line[line.index(FRIENDLY) :])
                continue
            if RAW_REPL in line:
                self._raw_repl = True
                out.append(
                    (
                        "serial",
                        "a host tool (mpremote, carom config, doctor) uses the raw REPL: "
                        "the board's answers to it are not shown here",
                    )
                )
                continue
            out.append(line)
        return out
