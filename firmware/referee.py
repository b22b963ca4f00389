"""The referee's words as text: one event a line, applied to a match.

Used by the scripted mode (`carom sim --headless`), by the serial console
and by tests.  Parsing builds strings, so it is not on the button path.
Time is virtual: `wait <seconds>` moves this referee's clock forward.

    point [A|B]    miss [A|B]    foul [A|B] <kind>    undo
    foul [A|B] jumped [A] [B] [red]      (three-cushion: the balls that left the table)
    new game=<id> target=<n> [breaker=A|B] [innings_limit=<n>]
        [equalizing=on|off] [draw=on|off] [shot_clock=<s>] [timeouts=<n>] [timeout_s=<s>]
        [break_s=<s>] [breaker_ball=spot|white] [name_A=..] [club_A=..] ...
        [target_A=<n>] [target_B=<n>] [sets=<N>] [deciding_target=<n>]
        [shootout=on|off] [warmup_s=<s>]
    lag A|B    lag_collision [A|B]    lag_fault A|B <kind>    lag_tie
    choose A|B break|give    break_request A|B    resume    left A|B    abandon A|B
    extend <n> [<n_B>]    call entre|dedans|a_cheval|out [anchor]    timeout [A|B]
    next_set    warmup A|B
    frozen [A|B]    frozen_choice start|free_ball|masse    review A|B
    tiebreak A|B    wait <seconds>    close
"""

import config_edit
import matchdoc
import matchwords
import rules_events
import reasons
import rules

_PLAYERS = {"A": rules.A, "B": rules.B}
_ON_OFF = {"on": True, "off": False}
_INT_OPTIONS = (
    "target",
    "innings_limit",
    "shot_clock",
    "timeouts",
    "timeout_s",
    "break_s",
    "target_A",
    "target_B",
    "sets",
    "deciding_target",
    "warmup_s",
)
_TEXT_OPTIONS = ("name_A", "club_A", "name_B", "club_B")

# The longest line taken, in characters: a `new` with every option and four long names fits
# in a tenth of it. A longer line is refused before it is split (TOO_LONG), as a console on the
# board must not spend its heap on one line.
MAX_LINE = 4096
TOO_LONG = "line too long (more than %d characters)" % MAX_LINE


def split(line):
    """Words of a line; "double quotes" keep spaces inside a value ("" is an empty word).

    In time linear in the line, on MicroPython too: str.split and one join per word (not a
    string grown a character at a time, nor indexing, which is not O(1) in a UTF-8 str)."""
    pieces = line.split('"')
    if not len(pieces) % 2:
        raise ValueError("unclosed quote")
    words = []
    word = None  # the pieces of the word being read; None between words
    quoted = False
    for piece in pieces:
        if quoted:  # inside quotes: the piece belongs to the word, spaces and all
            if word is None:
                word = []
            word.append(piece)
        else:
            first = True
            for part in piece.replace("\t", " ").split(" "):
                if not first and word is not None:  # a space: the word ends
                    words.append("".join(word))
                    word = None
                first = False
                if part:
                    if word is None:
                        word = []
                    word.append(part)
        quoted = not quoted
    if word is not None:
        words.append("".join(word))
    return words


def _int(text, what):
    n = config_edit.whole(text)  # plain ASCII digits, as on MicroPython
    if n is None:
        raise ValueError("%s must be a whole number, not %r" % (what, text))
    return n


def _player(text):
    if text not in _PLAYERS:
        raise ValueError("player must be A or B, not %r" % text)
    return _PLAYERS[text]


def _kind(text, kinds, what):
    if text not in kinds:
        raise ValueError("unknown %s %r; one of: %s" % (what, text, " ".join(kinds)))
    return kinds.index(text)


def _optional_player(args, name):
    if not args:
        return rules.NOBODY
    if len(args) > 1:
        raise ValueError("%s takes at most a player" % name)
    return _player(args[0])


def _new_options(args):
    options = {}
    for arg in args:
        key, eq, value = arg.partition("=")
        if not eq:
            raise ValueError("new takes key=value options, not %r" % arg)
        if key in options:
            raise ValueError("%s given twice" % key)
        if key == "game":
            options[key] = value
        elif key in _INT_OPTIONS:
            options[key] = _int(value, key)
        elif key in ("equalizing", "draw", "shootout"):
            if value not in _ON_OFF:
                raise ValueError("%s must be on or off, not %r" % (key, value))
            options[key] = _ON_OFF[value]
        elif key == "breaker":
            options[key] = _player(value)
        elif key == "breaker_ball":
            options[key] = value
        elif key in _TEXT_OPTIONS:
            options[key] = value
        else:
            raise ValueError("unknown option %r for new" % key)
    if "game" not in options or ("target" not in options and ("target_A" not in options or "target_B" not in options)):
        raise ValueError("new needs game=<id> and target=<n>")
    return options


def _foul(m, args, now):
    """foul [A|B] <kind>, and for a jump in three-cushion the balls that left the table."""
    p = rules.NOBODY
    if len(args) >= 2 and args[0] in _PLAYERS:
        p = _player(args[0])
        args = args[1:]
    if not args:
        raise ValueError("usage: foul [A|B] <kind>")
    kind = _kind(args[0], rules.FOULS, "foul")
    if len(args) == 1:
        return m.foul(p, kind, now)
    if rules.FOULS[kind] != "jumped":
        raise ValueError("only a jumped foul names balls: foul [A|B] jumped [A] [B] [red]")
    balls = 0
    for name in args[1:]:
        bit = 1 << _kind(name, [b.decode() for b in matchwords.BALLS], "ball")
        if balls & bit:
            raise ValueError("ball %s named twice" % name)
        balls |= bit
    return rules_events.jumped(m, p, balls, now)


class Referee:
    """Applies text events to a match, on a virtual clock in milliseconds."""

    def __init__(self, match=None, now=0):
        self.match = match or rules.Match()
        self.now = now

    def line(self, text):
        """Apply one line. Returns None, or why it was refused, in words (nothing changed then)."""
        if len(text) > MAX_LINE:
            return TOO_LONG
        try:
            words = split(text)
        except ValueError as e:
            return str(e)
        if not words:
            return "empty line"
        try:
            return reasons.text(self._apply(words[0], words[1:]))
        except ValueError as e:
            return str(e)

    def _need(self, args, n, usage):
        if len(args) != n:
            raise ValueError("usage: " + usage)

    def _apply(self, name, args):
        m = self.match
        now = self.now
        if name == "point":
            return m.point(_optional_player(args, name), now)
        if name == "miss":
            return m.miss(_optional_player(args, name), now)
        if name == "foul":
            return _foul(m, args, now)
        if name == "undo":
            self._need(args, 0, "undo")
            return m.undo(now)
        if name == "wait":
            self._need(args, 1, "wait <seconds>")
            return self._wait(args[0])
        if name == "new":
            return m.new(now, **_new_options(args))
        if name == "lag":
            self._need(args, 1, "lag A|B")
            return m.lag(_player(args[0]), now)
        if name == "lag_collision":
            return rules_events.lag_collision(m, _optional_player(args, name), now)
        if name == "lag_fault":
            self._need(args, 2, "lag_fault A|B <kind>")
            return rules_events.lag_fault(m, _player(args[0]), _kind(args[1], rules.LAG_FAULTS, "lag fault"), now)
        if name == "choose":
            self._need(args, 2, "choose A|B break|give")
            if args[1] not in ("break", "give"):
                raise ValueError("choose A|B break|give, not %r" % args[1])
            return m.choose(_player(args[0]), args[1] == "give", now)
        if name == "break_request":
            self._need(args, 1, "break_request A|B")
            return m.break_request(_player(args[0]), now)
        if name == "resume":
            self._need(args, 0, "resume")
            return m.resume(now)
        if name == "timeout":
            return m.timeout(_optional_player(args, name), now)
        return self._apply_rare(name, args)

    def _wait(self, text):
        """wait <seconds>: the virtual clock moves on (0..86400 s) and the match's clocks with it."""
        m = self.match
        seconds = None
        for c in text:
            if c not in "0123456789.eE+-":  # float() on CPython takes any Unicode digit
                break
        else:
            try:
                seconds = float(text)
            except ValueError:
                pass
        if seconds is None:
            raise ValueError("wait needs seconds, not %r" % text)
        if not 0 <= seconds <= 86400:
            raise ValueError("wait takes 0..86400 seconds")
        if m.closed:
            return rules_events.CLOSED  # after close, only new (as every other event)
        self.now += int(seconds * 1000 + 0.5)
        m.tick(self.now)
        return None

    def _apply_rare(self, name, args):
        """The rarer events' words (rules_events.py's); any other word is no event."""
        m = self.match
        now = self.now
        if name == "left" or name == "abandon" or name == "review":
            self._need(args, 1, name + " A|B")
            return getattr(rules_events, name)(m, _player(args[0]), now)
        if name == "lag_tie":
            self._need(args, 0, "lag_tie")
            return rules_events.lag_tie(m, now)
        if name == "frozen":
            return rules_events.frozen(m, _optional_player(args, name), now)
        if name == "frozen_choice":
            self._need(args, 1, "frozen_choice start|free_ball|masse")
            return rules_events.frozen_choice(m, _kind(args[0], rules_events.FROZEN_CHOICES, "choice"), now)
        if name == "extend":
            if not 1 <= len(args) <= 2:
                raise ValueError("usage: extend <n>, or extend <a> <b> (each player's target)")
            b = _int(args[1], "extend") if len(args) == 2 else None
            return rules_events.extend(m, _int(args[0], "extend"), now, b)
        if name == "next_set":
            self._need(args, 0, "next_set")
            return rules_events.next_set(m, now)
        if name == "warmup":
            self._need(args, 1, "warmup A|B")
            return rules_events.warmup(m, _player(args[0]), now)
        if name == "call":
            if not args or len(args) > 2 or (len(args) == 2 and args[1] != "anchor"):
                raise ValueError("usage: call entre|dedans|a_cheval|out [anchor]")
            return rules_events.call(m, _kind(args[0], rules.CALLS, "call"), now, len(args) == 2)
        if name == "tiebreak":
            self._need(args, 1, "tiebreak A|B")
            return rules_events.tiebreak(m, _player(args[0]), now)
        if name == "close":
            self._need(args, 0, "close")
            return rules_events.close(m, now)
        raise ValueError("unknown event %r" % name)


def run(lines, write, referee=None):
    """The scripted mode: for each line, write the state document as one JSON line.

    Blank lines and lines starting with # are skipped and print nothing.
    """
    import json

    ref = referee or Referee()
    for text in lines:
        text = text.strip()
        if not text or text[0] == "#":
            continue
        reason = ref.line(text)
        d = matchdoc.doc(ref.match, ref.now)
        d["refused"] = reason
        write(json.dumps(d) + "\n")
    return ref


def main():
    """Entry point on MicroPython: `micropython -c "import referee; referee.main()" < script`."""
    import sys

    def lines():
        while True:
            text = sys.stdin.readline()
            if not text:
                return
            yield text

    run(lines(), sys.stdout.write)
