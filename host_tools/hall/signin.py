"""The organiser signs in: only they change the tournament.

A hall listens beyond 127.0.0.1 for its TV, so any phone on the club's Wi-Fi reaches it. The TV,
the overlays, the results and the tournament's views stay open and read-only; every change
(POST /api/organiser/...) needs the organiser's code:

- a person signs in on the organiser's page once (POST /api/organiser/signin {"code"}): the hall
  answers with a session cookie (HttpOnly, SameSite=Strict: no script and no other site's page
  can use it), good for SESSION_S;
- a script sends the code itself, in the header X-Carom-Organiser-Code (tourneyrun, the tests).

The code is made at the hall's start (printed on its console, once) or read from a file the
organiser keeps (--organiser-code-file: the same code across restarts). Wrong codes are counted:
past MAX_FAILURES within FAILURE_WINDOW_S every attempt is refused at once (429), so guessing
takes years, not minutes.
"""

import hmac
import secrets
import time

COOKIE = "carom_organiser"
HEADER = "x-carom-organiser-code"
SESSION_S = 12 * 3600  # a club day
MAX_SESSIONS = 32  # the oldest goes first
MAX_FAILURES = 10
FAILURE_WINDOW_S = 60.0
MIN_CODE = 8
MAX_CODE = 128


def new_code():
    """16 hex digits in four groups: read off a screen and typed on a phone."""
    h = secrets.token_hex(8)
    return "-".join(h[i : i + 4] for i in range(0, 16, 4))


def check_code(code, where):
    """A code read from a file: ValueError naming `where` when it is too short or long, or not one line."""
    if not MIN_CODE <= len(code) <= MAX_CODE or any(c.isspace() for c in code):
        raise ValueError("%s: the organiser's code is %d to %d characters with no blanks" % (where, MIN_CODE, MAX_CODE))
    return code


class SignIn:
    """The code, the sessions it gave, and the wrong attempts."""

    def __init__(self, code, clock=time.monotonic):
        self._code = code.encode()
        self.clock = clock
        self._sessions = {}  # session id -> when it ends
        self._failures = []  # when the recent wrong attempts came

    def __repr__(self):  # never the code
        return "SignIn(%d sessions)" % len(self._sessions)

    def _throttled(self):
        now = self.clock()
        self._failures = [t for t in self._failures if now - t < FAILURE_WINDOW_S]
        return len(self._failures) >= MAX_FAILURES

    def _matches(self, code):
        if not isinstance(code, str) or len(code) > MAX_CODE:
            return False
        return hmac.compare_digest(code.encode(), self._code)

    def sign_in(self, code):
        """A new session id for the right code; "throttled" or None otherwise."""
        if self._throttled():
            return "throttled"
        if not self._matches(code):
            self._failures.append(self.clock())
            return None
        now = self.clock()
        for sid, end in list(self._sessions.items()):
            if end <= now:
                del self._sessions[sid]
        while len(self._sessions) >= MAX_SESSIONS:
            del self._sessions[min(self._sessions, key=self._sessions.get)]
        sid = secrets.token_urlsafe(24)
        self._sessions[sid] = now + SESSION_S
        return sid

    def allowed(self, headers):
        """ "ok" for a request with a live session's cookie or the right code in its header;
        "throttled" after too many wrong codes; None otherwise."""
        sid = cookie(headers.get("cookie", ""), COOKIE)
        if sid is not None:
            end = self._sessions.get(sid)
            if end is not None and end > self.clock():
                return "ok"
        code = headers.get(HEADER)
        if not code:  # (none given: not a guess)
            return None
        if self._throttled():
            return "throttled"
        if self._matches(code):
            return "ok"
        self._failures.append(self.clock())
        return None

    def set_cookie(self, sid):
        """The answer's header that gives the page its session (a dict, as web.Server.send_bytes takes)."""
        return {"Set-Cookie": "%s=%s; HttpOnly; SameSite=Strict; Path=/; Max-Age=%d" % (COOKIE, sid, SESSION_S)}


def cookie(header, name):
    """The value of cookie `name` in a Cookie header, or None."""
    for part in header.split(";")[:64]:
        key, eq, value = part.strip().partition("=")
        if eq and key == name:
            return value
    return None
