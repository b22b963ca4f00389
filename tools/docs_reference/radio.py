"""docs/reference/radio.md: the referee remote's ESP-NOW protocol, from firmware/radio.py (its
docstring's frame table and rules: a test holds the table to the code), radionames.py (the codes)
and remote.py (the retries)."""

import re

from host_tools import firmware_path

from .md import cell, code, head, paragraph, table

SOURCES = ("firmware/radio.py", "firmware/radionames.py", "firmware/remote.py", "firmware/errorcodes.py")
INTRO = """
A referee remote (`boards/referee.json`) sends each press to its wall board over ESP-NOW, and the
wall board answers. `carom pair` pairs the two: it makes a new random key, never printed, and
writes it with the other board's MAC address into both config.json files (`radio.key`,
`radio.peer`). ESP-NOW's own acknowledgement says only that a radio heard a frame, and it lets
anyone's frames through: the protocol below authenticates each command, refuses replays and
acknowledges what the wall board did.
"""

_ROW = re.compile(r"^\s+(\d+)\s+(\d+)\s+(\S.*)$")


def layout(doc):
    """[(offset, size, what)] of the frame table in radio.py's docstring: a field a line, indented;
    a line indented further and without numbers goes on the field above; a blank line ends it."""
    rows = []
    for line in doc.split("\n"):
        m = _ROW.match(line)
        if m:
            rows.append((int(m.group(1)), int(m.group(2)), m.group(3).strip()))
        elif rows and line.strip():
            if not line.startswith(" " * 10):
                break
            offset, size, what = rows[-1]
            rows[-1] = (offset, size, what + " " + line.strip())
        elif rows:
            break
    return rows


def rules_text(doc):
    """The docstring's paragraphs after the frame table: the numbers, what the wall acts on, the
    challenge."""
    rest = doc.split("\n\n")
    start = next(i for i, p in enumerate(rest) if p.startswith("All numbers"))
    return [paragraph(p) for p in rest[start:] if p.strip()]


def _modules():
    firmware_path()
    import controller
    import errorcodes
    import matchdoc
    import matchwords
    import radio
    import radionames
    import remote

    return controller, errorcodes, matchdoc, matchwords, radio, radionames, remote


def page():
    controller, errorcodes, matchdoc, matchwords, radio, n, remote = _modules()
    out = [head("The referee remote's radio protocol", SOURCES, INTRO)]
    out.append(
        "## The frame\n\nEvery frame is %d bytes (ESP-NOW allows 250), version %d, little-endian:\n"
        % (n.FRAME_LEN, n.VERSION)
    )
    rows = [[str(o), str(s), cell(w)] for o, s, w in layout(radio.__doc__)]
    out.append(table(["offset", "size", "field"], rows))
    out.append(
        "The tag is HMAC-SHA256 with the pair's %d-byte key (`radio.key`) over the first %d bytes, cut to %d "
        "bytes; the wall board compares it in constant time.\n" % (n.KEY_LEN, n.SIGNED, n.TAG_LEN)
    )
    out.append("## Commands\n\nThe command byte is an index into the wall board's actions:\n")
    rows = [[str(i), code(a), "the foul's kind" if i == n.FOUL else "0"] for i, a in enumerate(controller.ACTIONS)]
    out.append(table(["command", "action", "argument"], rows))
    out.append(
        "The foul kinds (the argument of `foul`): %s.\n"
        % ", ".join("%d %s" % (i, code(f)) for i, f in enumerate(matchwords.FOULS))
    )
    out.append(
        "An acknowledgement's phase: %s. Its result: %s.\n"
        % (
            ", ".join("%d %s" % (i, code(p.decode())) for i, p in enumerate(matchdoc.PHASES)),
            ", ".join("%d %s" % (i, code("none" if r is None else r.decode())) for i, r in enumerate(matchdoc.RESULTS)),
        )
    )
    out.append("## Authentication and replays\n\n" + "\n\n".join(rules_text(radio.__doc__)) + "\n")
    out.append(
        "A frame the wall board drops is counted by its reason: %s.\n" % ", ".join(code(d) for d in remote.DROP_NAMES)
    )
    rows = [
        ["retry", "%d ms" % remote.RETRY_MS, "the remote sends a command again this often until it is acknowledged"],
        [
            "tries",
            str(remote.TRIES),
            "then the remote gives up and shows E %d; a challenge gives %d more"
            % (errorcodes.ERROR_NO_ACK, remote.TRIES),
        ],
        [
            "numbers",
            "below 2**30",
            "the boot counter at its limit: the remote sends nothing (E %d) until paired "
            "again" % errorcodes.ERROR_BOOT_LIMIT,
        ],
        [
            "frames a step",
            str(errorcodes.RADIO_BATCH),
            "the wall board reads at most this many, then lets its other work run",
        ],
        [
            "senders",
            str(errorcodes.RADIO_SENDERS),
            "past this many sender addresses the wall board forgets all but "
            "its remote's (E %d)" % errorcodes.ERROR_RADIO_FLOOD,
        ],
    ]
    out.append("## Limits\n")
    out.append(table(["what", "value", "what it means"], [[cell(a), cell(b), cell(c)] for a, b, c in rows]))
    return "\n".join(out)
