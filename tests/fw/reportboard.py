"""A stand-in for app.Board with what report.save reads of it: the report's tests
(test_report_save.py) and the long match's bench (tests/bench/long_match_main.py, which
tools/bench/longmatch.py copies this file beside) write a report through it."""


class Quiet:
    voice = None  # a controller without a voice (report.save rests one)


class Board:
    """What report.save reads of app.Board."""

    def __init__(self, m, st):
        self.ctrl = Quiet()
        self.voice_setup = None
        self.match = m
        self.store = st
        self.started_at = 1764489600
        self.table = "Table 3"
        self.name = "wall"
        self.mqtt = None
        self.reported = False
