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

# Keys in the order a person reads them (MicroPython's dicts have no order): matchdoc.py's.
KEY_ORDER = (
    "version game target innings_limit phase turn breaker spot_ball current_run countdown "
    "equalizing_inning result ended_by last_foul last_call respot respot_balls spots area lag review_used "
    "elapsed_s break_taken break_left_s shot_clock sets shootout warmup options events closed players refused"
).split()
PLAYER_ORDER = "name club target score innings high_run average timeouts_left fouls runs match".split()
# The small objects inside, the same way.
INNER_ORDER = {
    "spots": "A B red".split(),
    "area": "anchor caroms limit out_next".split(),
    "lag": "chooser collisions ties".split(),
    "review_used": "A B".split(),
    "shot_clock": "left_s limit_s".split(),
    "sets": "to_win number won scores".split(),
    "shootout": "rounds played current".split(),
    "warmup": "player left_s".split(),
    "options": (
        "equalizing draw break_s shot_clock_s timeouts timeout_s breaker_ball sets deciding_target shootout warmup_s"
    ).split(),
}
MATCH_ORDER = "score innings high_run average".split()  # players.X.match


def _in_order(d, order):
    return {k: d[k] for k in order if k in d} | d


def ordered(doc):
    """The state document with its keys in reading order."""
    out = _in_order(doc, KEY_ORDER)
    for k, order in INNER_ORDER.items():
        if isinstance(out.get(k), dict):
            out[k] = _in_order(out[k], order)
    if isinstance(out.get("sets"), dict) and isinstance(out["sets"].get("won"), dict):
        out["sets"]["won"] = _in_order(out["sets"]["won"], "A B".split())
    if isinstance(out.get("players"), dict):
        out["players"] = {p: _in_order(d, PLAYER_ORDER) for p, d in sorted(out["players"].items())}
        for d in out["players"].values():
            if isinstance(d.get("match"), dict):
                d["match"] = _in_order(d["match"], MATCH_ORDER)
    return out


def max_line():
    """The longest line the referee takes, in characters (firmware/referee.py's MAX_LINE), and
    its reason for a longer one."""
    firmware_path()
    import referee

    return referee.MAX_LINE, referee.TOO_LONG


class Refused(str):
    """A line refused here, before the rules core or the board sees it: its text as shown (bytes
    that are not UTF-8 replaced by U+FFFD, a line too long cut to 60 characters), and `reason`."""

    def __new__(cls, text, reason):
        self = super().__new__(cls, text)
        self.reason = reason
        return self


def text_lines(stream, limit=None):
    """The lines of a binary stream as text, read one at a time (a line of any length costs
    at most its first `limit` characters' worth of memory). A line that is not UTF-8, or is
    longer than `limit` characters (default: the referee's MAX_LINE), comes as a Refused:
    nothing is replaced and then applied."""
    if limit is None:
        limit, too_long = max_line()
    else:
        too_long = "line too long (more than %d characters)" % limit
    most = 4 * limit + 2  # bytes: 4 per character at most in UTF-8, and \r\n
    while True:
        raw = stream.readline(most + 1)
        if not raw:
            return
        if len(raw) > most and not raw.endswith(b"\n"):
            head = raw[:240].decode("utf-8", "replace")
            while raw and not raw.endswith(b"\n"):  # the rest of the line, skipped a block at a time
                raw = stream.readline(1 << 16)
            yield Refused(_shown(head), too_long)
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            yield Refused(
                raw.decode("utf-8", "replace").strip(),
                "not UTF-8 text (byte 0x%02x at column %d)"
                % (raw[e.start], len(raw[: e.start].decode("utf-8", "replace")) + 1),
            )
            continue
        if len(text.rstrip("\r\n")) > limit:
            yield Refused(_shown(text), too_long)
            continue
        yield text


def _shown(text):
    """A line refused for its length as printed: stripped, its first 60 characters (a line that is
    not UTF-8 is shown whole, its bad bytes as U+FFFD: it is at most MAX_LINE long)."""
    text = text.strip()
    return text if len(text) <= 60 else text[:59] + "\u2026"


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
            encoding="utf-8",
            errors="replace",
            bufsize=1,
        )

    def send(self, text):
        """Apply one event line; return the state document it printed."""
        try:
            self.proc.stdin.write(text.strip() + "\n")
            self.proc.stdin.flush()
            out = self.proc.stdout.readline()
        except OSError:  # the process is gone (a broken pipe)
            out = ""
        if not out:
            raise CommandError("the rules core stopped on MicroPython: %s" % self._last_words())
        try:
            return json.loads(out)
        except ValueError:
            raise CommandError(
                "the rules core on MicroPython printed what is not a state document: %r%s"
                % (out.strip()[:120], "; " + self._last_words() if self.proc.poll() is not None else "")
            )

    def refuse(self, reason):
        """The state document, unchanged, with `reason` as why the line was refused. (The rules
        core is sent a lone quote, which its referee refuses before anything changes.)"""
        doc = self.send('"')
        doc["refused"] = reason
        return doc

    def _last_words(self):
        self.proc.kill()
        self.proc.wait()
        err = self.proc.stderr.read().strip()
        return last_line(err) if err else "exit status %d" % self.proc.returncode

    def close(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
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
        return self.refuse(reason)

    def refuse(self, reason):
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
            if isinstance(text, Refused):
                yield str(text), rules.refuse(text.reason)
            elif text.strip() and not text.lstrip().startswith("#"):
                yield text.strip(), rules.send(text)
    finally:
        rules.close()


def last_line(text):
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1] if lines else text


def run_script(lines, write, interpreter="micropython", pretty_lines=False):
    """The scripted mode: after each referee line, write(text) the state document as one JSON line
    (ordered()), or with pretty_lines the line, whole, and its summary()."""
    for text, doc in scripted_docs(lines, interpreter):
        if pretty_lines:
            write("%-28s %s\n" % (text, summary(doc)))  # the whole event, however long
        else:
            write(json.dumps(ordered(doc)) + "\n")


def summary(doc):
    """One line a person can follow: score, innings, run, phase."""
    a, b = doc["players"]["A"], doc["players"]["B"]
    turn = doc["turn"] or "-"
    parts = [
        "A %3d (%d inn, HR %d)" % (a["score"], a["innings"], a["high_run"]),
        "B %3d (%d inn, HR %d)" % (b["score"], b["innings"], b["high_run"]),
        "turn %s run %d" % (turn, doc["current_run"]),
        doc["phase"],
    ]
    if doc["countdown"] is not None:
        parts.append("last %d" % doc["countdown"])
    if doc["shot_clock"]:
        parts.append(
            "clock %ds/%ds TO %d:%d"
            % (doc["shot_clock"]["left_s"], doc["shot_clock"]["limit_s"], a["timeouts_left"], b["timeouts_left"])
        )
    if doc["break_left_s"] is not None:
        parts.append("break %d:%02d" % divmod(doc["break_left_s"], 60))
    if doc["last_foul"]:
        parts.append("foul %s" % doc["last_foul"])
    parts += _event_parts(doc)
    if doc["result"]:
        parts.append("result %s" % doc["result"])
        if doc.get("ended_by"):
            parts.append("by %s" % doc["ended_by"])
    if doc.get("refused"):
        parts.append("REFUSED: %s" % doc["refused"])
    return "  ".join(parts)


def _event_parts(doc):
    """The referee's helps: what follows a jump or a frozen ball, the restricted area's count
    and OUT, the lag's ties, the reviews used, the match's time (H:MM:SS)."""
    parts = []
    lag = doc.get("lag") or {}
    if lag.get("ties"):
        parts.append("lag ties %d" % lag["ties"])
    if doc.get("respot"):
        text = "respot %s" % doc["respot"]
        if doc.get("respot_balls"):
            text += " (%s)" % " ".join(doc["respot_balls"])
        if doc.get("spots"):
            text += " spots " + " ".join("%s:%s" % kv for kv in sorted(doc["spots"].items()))
        parts.append(text)
    area = doc.get("area")
    if area:
        parts.append(
            "%s %d/%d%s"
            % (
                "anchor" if area["anchor"] else "area",
                area["caroms"],
                area["limit"],
                " OUT" if area["out_next"] else "",
            )
        )
    used = [p for p in ("A", "B") if (doc.get("review_used") or {}).get(p)]
    if used:
        parts.append("review used " + " ".join(used))
    if doc.get("elapsed_s") is not None:
        h, rest = divmod(doc["elapsed_s"], 3600)
        parts.append("time %d:%02d:%02d" % (h, rest // 60, rest % 60))
    return parts + _format_parts(doc)


def _format_parts(doc):
    """The formats: a handicap's targets, the set and the sets won, the shoot-out's
    round, the warm-up's clock."""
    parts = []
    a, b = doc["players"]["A"], doc["players"]["B"]
    if doc.get("target") is None and "target" in a:
        parts.append("targets %d:%d" % (a["target"], b["target"]))
    sets = doc.get("sets")
    if sets:
        parts.append("set %d, sets %d:%d" % (sets["number"], sets["won"]["A"], sets["won"]["B"]))
    so = doc.get("shootout")
    if so:
        text = "shoot-out round %d" % (so["played"] + (1 if so["current"] else 0))
        if so["current"]:
            text += " %d:%d" % tuple(so["current"])
        parts.append(text)
    if doc.get("warmup"):
        parts.append("warm-up %s %d:%02d" % ((doc["warmup"]["player"],) + divmod(doc["warmup"]["left_s"], 60)))
    return parts
