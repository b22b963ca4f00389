"""Secrets never shown: the Redactor every line the simulator logs and every error it shows goes
through."""

import json
import os
import re

HIDDEN = "***"  # firmware/config.py's REDACTED
MIN_SECRET = 4  # a shorter secret is too common a string to hide by its value (the rules below still do)
HEX_RUN = re.compile(r"(?<![0-9A-Fa-f])[0-9A-Fa-f]{64,}(?![0-9A-Fa-f])")  # a radio key (or any 32+ bytes in hex)
# A quoted "password"/"key"/"psk" field's value: up to its closing quote, a backslash escaping the
# next character; without one before the line's end, up to the line's last quote of its kind.  What
# `(?:\\.|(?!\3).)*\3` matched, in one pass: that took a backslash two ways, so a value of n
# backslashes never closed cost about 1.6 ** n steps (0.8 to 2.3 s for a form value's error in
# carom sim, two days for 60).
SECRET_FIELD = re.compile(r"""((["'])(?:password|key|psk)\2\s*:\s*)(["'])(?:(?:\\.|(?!\3)[^\\\n])*+\3|[^\n]*\3)""")


def _secret_paths():
    from ...commands.config import secret_paths  # the config schema's F_SECRET entries

    return secret_paths()


class Redactor:
    """Hides the board's secrets (Wi-Fi and MQTT passwords, the radio key) in text the simulator shows.

    By value: every secret the board's config.json (and config.json.tmp, a write under way) held
    since the session started, as written and as JSON or Python would escape it.  By shape: any run
    of 64 or more hex digits, and the value of a quoted "password"/"key"/"psk" field."""

    def __init__(self, paths=None):
        self.paths = paths if paths is not None else _secret_paths()
        self.secrets = set()
        self._forms = []
        self._seen = {}  # file -> (mtime_ns, size) when last read

    def learn_config(self, d):
        """Every non-empty secret value of a config dict."""
        for path in self.paths:
            v = d
            for key in path.split("."):
                v = v.get(key) if isinstance(v, dict) else None
            if isinstance(v, str) and v and v != HIDDEN:
                self.learn(v)

    def learn(self, secret):
        if secret in self.secrets:
            return
        self.secrets.add(secret)
        if len(secret) < MIN_SECRET:
            return
        forms = set()
        for written in (secret, json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1]):
            forms |= {written, repr(written)[1:-1], repr(written.encode())[2:-1]}  # as text, as a repr of it
        self._forms = sorted(set(self._forms) | forms, key=len, reverse=True)

    def watch(self, folder):
        """Learn the secrets of folder/config.json and config.json.tmp when they changed."""
        if not folder:
            return
        for name in ("config.json", "config.json.tmp"):
            path = os.path.join(folder, name)
            try:
                st = os.stat(path)
                if self._seen.get(path) == (st.st_mtime_ns, st.st_size):
                    continue
                self._seen[path] = (st.st_mtime_ns, st.st_size)
                with open(path, "rb") as f:
                    raw = f.read(1 << 16)
                self.learn_config(json.loads(raw.decode("utf-8", "replace")))
            except (OSError, ValueError):
                continue

    def __call__(self, text):
        if not isinstance(text, str):
            return text
        for form in self._forms:
            if form in text:
                text = text.replace(form, HIDDEN)
        text = HEX_RUN.sub(HIDDEN, text)
        return SECRET_FIELD.sub(lambda m: m.group(1) + m.group(3) + HIDDEN + m.group(3), text)
