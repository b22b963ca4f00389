"""The page's form (a part of BoardSession): names and match options, firmware/config.py's `players`
and `match` keys and the voice's (`voice`), written into config.json through the board's serial console."""

import json
import os
import time

from .actions import shown
from .pacing import TICK_S

FORM_KEYS = (
    "players.A.name",
    "players.A.club",
    "players.B.name",
    "players.B.club",
    "match.game",
    "match.target",
    "match.target_A",
    "match.target_B",
    "match.innings_limit",
    "match.draw",
    "match.sets",
    "match.deciding_target",
    "match.shootout",
    "match.warmup_s",
    "voice.on",
    "voice.volume",
    "voice.language",
    "voice.calls",
    "voice.totals",
)
NULLABLE = ("match.target_A", "match.target_B", "match.deciding_target")  # blank: not set (null)
SKIP_BLANK = (
    "match.game",
    "match.target",
    "match.innings_limit",
    "match.draw",
    "match.sets",
    "match.shootout",
    "match.warmup_s",
    "voice.on",
    "voice.volume",
    "voice.language",
    "voice.calls",
    "voice.totals",
)  # blank: left as the board has it
BOOT_WAIT_S = 30  # seconds the board's start is watched after the reset (real time)
SETTLE_S = 0.3  # after the new match's long press, virtual seconds for the board to start it
MAX_FORM_TEXT = 100  # a value longer than this is refused before the board is touched


class _Quiet:
    """BoardIO's progress stream: nothing to show on the page's server terminal."""

    def write(self, text):
        return len(text)

    def flush(self):
        pass


def apply_form(current, settings):
    """A new config dict: `current` with each (key, text) of the form set as `carom config set`
    sets them (each value by its key's type and range, then the whole file checked once: the
    firmware's words for a bad value); CommandError, nothing written, when one is refused."""
    from ...commands.config import apply_settings
    from ...errors import CommandError

    if current is not None and not isinstance(current, dict):
        raise CommandError("config.json on the board is not an object; nothing was written")
    return apply_settings(current, ["%s=%s" % (key, text) for key, text in settings])


def check_form(values):
    """Why the form's JSON is refused (None: each key one of FORM_KEYS, each value a string)."""
    if not isinstance(values, dict) or not values:
        return "values must be a JSON object of the form's fields"
    for k, v in values.items():
        if k not in FORM_KEYS:
            return "%s is not a field of the form (%s)" % (shown(k), ", ".join(FORM_KEYS))
        if not isinstance(v, str):
            return "%s must be a string, not %s" % (k, shown(v))
        if len(v) > MAX_FORM_TEXT or any(c in v for c in "\n\r\x00"):
            return "%s: at most %d characters on one line" % (k, MAX_FORM_TEXT)
    return None


class Form:
    """BoardSession's form: config_values() to fill it, configure() to write it."""

    def config_values(self):
        """The form's fields as the board's config.json has them now (players, match; defaults
        filled in by the firmware's schema), and the games to choose from.  Read from the flash
        folder (read only: no secret is in these keys); written only by configure()."""
        from ...commands.config import as_the_board_reads, firmware_config

        config, _ = firmware_config()
        path = os.path.join(self.flash_dir, "config.json") if self.flash_dir else None
        try:
            with open(path, "rb") as f:
                full = as_the_board_reads(f.read(), "config.json")
        except (OSError, TypeError, ValueError):
            full = config.normalize({}, "config.json")
        values = {}
        for key in FORM_KEYS:
            section, _, name = key.rpartition(".")
            v = full
            for part in section.split("."):
                v = v.get(part) or {}
            values[key] = v.get(name)
        games = next(e[6] for e in next(e for e in config.SCHEMA if e[0] == "match")[6] if e[0] == "game")
        return {"values": values, "games": list(games)}

    def _flash_config(self):
        """config.json in the flash folder as a dict ({} when it is missing or not an object)."""
        try:
            with open(os.path.join(self.flash_dir, "config.json"), "rb") as f:
                d = json.loads(f.read().decode("utf-8"))
        except (OSError, TypeError, ValueError):
            return {}
        return d if isinstance(d, dict) else {}

    def _buttons_up(self):
        """Wait (virtual time, at most BOOT_WAIT_S of real time) until every button's press or
        long press is over: the write resets the board, and a button down at its start is a safe
        boot (E 30; NEW is the wall's safe-boot button). Why not, if one is held by hand."""
        for name, b in self._buttons.items():
            if b["down_at"] is not None and b["free_at"] == float("inf"):
                return "%s is held down: release it first (a button down when the board restarts is a safe boot)" % name
        until = max([b["free_at"] for b in self._buttons.values()] + [0.0]) + SETTLE_S
        deadline = time.monotonic() + BOOT_WAIT_S
        while self.pacer.now < until and time.monotonic() < deadline and not self._stop.is_set():
            time.sleep(TICK_S)
        return None

    def configure(self, values, new_match=False):
        """Write the form's values into config.json the way `carom config set` does: over the
        board's serial console (mpremote's raw REPL: the app stops), each value parsed and the
        whole checked by the firmware's own schema before anything is written, the file written
        atomically, then the board reset and its start watched.  Returns (None, lines said) or
        (the error, lines); nothing is written when a value is refused."""
        from ...commands.config import FILE, changes, parse_board_config, write_config
        from ...errors import CommandError
        from ...link.boardio import BoardIO, boot_problems

        reason = check_form(values)
        if reason:
            return reason, []
        settings = [
            (k, "null" if v == "" and k in NULLABLE else v)
            for k, v in values.items()
            if not (v == "" and k in SKIP_BLANK)
        ]
        try:  # checked before the board is touched, against the config.json the form was filled from
            apply_form(self._flash_config(), settings)
        except CommandError as e:
            return self.redact(str(e)), []
        port = getattr(self.vb, "serial_path", None)
        if not port:
            return "this board has no serial console", []
        reason = self._buttons_up()
        if reason:
            return reason, []
        if not self._configuring.acquire(blocking=False):
            return "a configuration is being written to this board now", []
        said = []
        try:
            self._log("config", "writing config.json through the serial console %s (as carom config set)" % port)
            with BoardIO(port, reset_on_close=True, out=_Quiet()) as board:
                raw = board.read_file(FILE)
                current = parse_board_config(raw, board)
                new = apply_form(current, settings)
                diff = changes(current if isinstance(current, dict) else {}, new, False)
                if raw is not None and new == current:
                    said.append("config.json already says so; nothing written")
                else:
                    said += diff
                    size = write_config(board, new)
                    said.append("wrote config.json (%d bytes)" % size)
                ok, lines = board.restart_and_watch(BOOT_WAIT_S, "wall")
                problems = boot_problems(lines or [])
            for line in said:
                self._log("config", line)
            if ok is False or problems:
                return self.redact("the board reports a problem at boot: %s" % "; ".join(problems)), said
            if ok is None:
                return "the board did not say it runs within %d s after the reset" % BOOT_WAIT_S, said
            said.append("reset; the board started with the new configuration")
        except CommandError as e:
            self._log("refused", "config: %s" % e)
            return self.redact(str(e)), said
        finally:
            self._configuring.release()
        if new_match:
            spec = next((b for b in self.layout["buttons"] if b["long_action"] == "new_match"), None)
            if spec is not None:
                reason = self.act({"do": "long", "button": spec["name"]})
                if reason:
                    return reason, said
                # Answered once the button is back up and the new match began (the hold is virtual time).
                until = self._buttons[spec["name"]]["free_at"] + SETTLE_S
                deadline = time.monotonic() + BOOT_WAIT_S
                while self.pacer.now < until and time.monotonic() < deadline and not self._stop.is_set():
                    time.sleep(TICK_S)
                said.append("%s held %g s: a new match with these options" % (spec["name"], spec["long_s"]))
        else:
            said.append(
                "names, clubs and match options apply now if the match has not started, else from "
                "the next new match (hold NEW 3 s)"
            )
        return None, [self.redact(x) for x in said]
