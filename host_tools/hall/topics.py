"""The MQTT topics between the wall boards and the hall: the one table (docs/reference/mqtt.md).

Each topic is <prefix>/<table>/<kind>: the prefix is config.json's mqtt.prefix (`carom`), the
table its mqtt.table (empty: `t` and the last three bytes of the board's MAC address). The
boards publish with firmware/publisher.py (through firmware/mqtt.py) and read the setups with
publisher_hall.py; the hall reads with broker.py and model.py and sends the setups with
organiser.py. The hall's code takes the kinds, QoS and retain flags from here; a test
(tests/host/test_docs_reference.py) holds the firmware's publisher to the same rows.
"""

from collections import namedtuple

from . import schema

# qos: the QoS it is published with (qos_note: a message of it sent otherwise).
Topic = namedtuple("Topic", "kind publisher reader qos retained payload qos_note", defaults=("",))

TOPICS = (
    Topic(
        "state",
        "the wall board",
        "the hall",
        0,
        True,
        "the match state document (JSON, at most %d KB: state-document.md) after every change, looked at"
        " every 200 ms; only the newest waits to be sent, and it is sent again after every connect"
        % (schema.MAX_STATE_BYTES // 1024),
    ),
    Topic(
        "status",
        "the wall board",
        "the hall",
        1,
        True,
        "`online` at every connect; `offline` is the board's last will, which the broker publishes when the"
        " board vanishes (after 1.5 times `mqtt.keepalive_s` when its link just goes silent)",
        "`offline`; `online`: 0",
    ),
    Topic(
        "report",
        "the wall board",
        "the hall",
        1,
        False,
        "each finished match's report (JSON, at most %d KB: report.md), as saved on the board's flash and"
        " kept there until the broker has it (sent again after a power cut; the hall keeps a report once);"
        " with `hall.key` set, followed by a space and 64 hex digits of HMAC-SHA256(`hall.key`, the report)"
        % (schema.MAX_REPORT_BYTES // 1024),
    ),
    Topic(
        "setup",
        "the hall (`carom hall`)",
        "the wall board with a `hall.key`",
        1,
        True,
        "the table's next match: 64 hex digits of HMAC-SHA256(`hall.key`, the JSON), a space, the JSON"
        ' `{"table": "t3", "n": 7, "setup": {"players": {…}, "match": {…}}}` (config.json\'s sections,'
        " whole; n only grows; at most 2048 bytes); an empty payload clears it",
    ),
)

BY_KIND = {t.kind: t for t in TOPICS}
FROM_BOARDS = tuple(t.kind for t in TOPICS if t.publisher == "the wall board")  # what the hall reads


def pattern(prefix, kind):
    """The topic every table's messages of this kind come on: <prefix>/+/<kind>."""
    return "%s/+/%s" % (prefix, kind)
