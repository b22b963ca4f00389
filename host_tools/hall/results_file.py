"""The results list kept in a file (`carom hall --results FILE`): JSON lines, as /results.json's entries.

Read back at the start (each line checked as a report is), each finished match appended; when the
file reaches MAX_FILE_BYTES it becomes FILE.1 and FILE starts again with the newest results.
"""

import errno
import math
import os
import stat

from . import schema

MAX_FILE_BYTES = 64 * 1024 * 1024  # the results file; when full it becomes FILE.1 and FILE starts again


def load(hall, path, out):
    """Results kept by an earlier run (JSON lines, as /results.json's entries), checked as reports are,
    into `hall` (model.Hall)."""
    if not os.path.exists(path):
        return
    if not stat.S_ISREG(os.stat(path).st_mode):  # /dev/zero would never end
        raise OSError(errno.EINVAL, "not a regular file")
    bad = 0
    longest = schema.MAX_REPORT_BYTES + 4096
    read = 0
    with open(path, "rb") as f:
        while read <= MAX_FILE_BYTES:  # (a file that grew past what the hall writes: its start only)
            line = f.readline(longest + 1)
            read += len(line)
            if not line:
                break
            if len(line) > longest:
                bad += 1
                while line and not line.endswith(b"\n"):  # the rest of a line too long to be a report
                    line = f.readline(longest)
                continue
            try:
                entry = schema.parse(line, longest)
                info = entry.pop("hall")
                table, received, signed = info["table"], info["received_at"], info.get("signed") is True
                if (
                    type(table) is not str
                    or not schema.TABLE_NAME.match(table)
                    or type(received) not in (int, float)
                    or not math.isfinite(received)
                ):
                    raise ValueError(line)
                schema.check_report(entry)
                hall.add_result(table, entry, float(received), signed)
            except (ValueError, KeyError, TypeError, AttributeError):
                bad += 1
    out(
        "carom hall: %d results read from %s%s"
        % (len(hall.results), path, ", %d damaged lines skipped" % bad if bad else "")
    )


class ResultsFile:
    """The file's results read into `hall`, then each new one appended (rotated when full).
    ValueError naming the file when it cannot be read or opened."""

    def __init__(self, path, hall, out=print):
        self.path = path
        self.hall = hall
        self.out = out
        try:
            load(hall, path, out)
            self._out = open(path, "ab")
            self._bytes = self._out.tell()
        except OSError as e:
            raise ValueError("cannot use the results file %s: %s" % (path, e.strerror or e)) from None

    def append(self, result):
        line = result.json_bytes() + b"\n"
        try:
            if self._bytes + len(line) > MAX_FILE_BYTES:
                self._rotate()
            self._out.write(line)
            self._out.flush()
            self._bytes += len(line)
        except OSError as e:
            self.out("carom hall: cannot write the results file %s: %s" % (self.path, e.strerror or e))

    def _rotate(self):
        """The results file is full: it becomes FILE.1 (replacing an older one), and FILE starts again
        with the newest results of the list in memory (without the replaced ones), up to half its limit."""
        path = self.path
        self._out.close()
        os.replace(path, path + ".1")
        tmp = path + ".tmp"
        keep, size = [], 0
        for r in reversed(self.hall.results):  # the newest results, up to half the file's limit
            line = r.json_bytes() + b"\n"
            if size + len(line) > MAX_FILE_BYTES // 2:
                break
            keep.append(line)
            size += len(line)
        with open(tmp, "wb") as f:
            f.writelines(reversed(keep))
        os.replace(tmp, path)
        self._out = open(path, "ab")
        self._bytes = self._out.tell()
        self.out(
            "carom hall: the results file reached %d bytes: the older results are in %s.1, %s starts again"
            " with the newest %d results" % (MAX_FILE_BYTES, path, path, len(keep))
        )

    def close(self):
        self._out.close()
