"""docs/reference/mqtt.md: the topics between the wall boards and the hall, from
host_tools/hall/topics.py (the hall's code takes them from there; a test holds the firmware to them)."""

from host_tools import firmware_path
from host_tools.hall import topics

from .md import cell, code, head, table

SOURCES = ("host_tools/hall/topics.py", "firmware/publisher.py", "firmware/mqtt.py")
INTRO = """
A wall board with `wifi` and `mqtt` in its config.json ([config.md](config.md)) publishes its
match to an MQTT broker (mosquitto on the hall's PC, say), where `carom hall` reads every table.
The network never holds up the scoring: publishing only queues, and presses are shown while the
Wi-Fi or the broker is down.
"""


def page():
    firmware_path()
    import mqtt

    out = [head("MQTT topics", SOURCES, INTRO)]
    out.append(
        "## Topics\n\nEach topic is `<prefix>/<table>/<kind>`: the prefix is the board's `mqtt.prefix` "
        "(`carom`), the table its `mqtt.table` (empty: `t` and the last three bytes of its MAC address). "
        "The hall subscribes to %s with QoS 1.\n"
        % ", ".join(code(topics.pattern("<prefix>", k)) for k in topics.FROM_BOARDS)
    )
    rows = [
        [
            code("<prefix>/<table>/" + t.kind),
            cell(t.publisher),
            cell(t.reader),
            cell("%d (%s)" % (t.qos, t.qos_note) if t.qos_note else str(t.qos)),
            "yes" if t.retained else "no",
            cell(t.payload),
        ]
        for t in topics.TOPICS
    ]
    out.append(table(["topic", "published by", "read by", "QoS", "retained", "payload"], rows))
    out.append(
        "## The board's connection\n\n"
        "- Client id: `carom-<table>`; the login is `mqtt.user` and `mqtt.password` (with the hall's ACLs, "
        "`carom hall-broker`, the user is the table id).\n"
        "- Keepalive: `mqtt.keepalive_s`; an answer that takes longer than %d s means the connection is dead.\n"
        "- Reconnects by itself, waiting 1, 2, 4 … up to %d s between attempts, for as long as it takes.\n"
        "- A QoS 1 report not acknowledged (PUBACK) is sent again (DUP) after a reconnect; the newest "
        "acknowledged one is noted on the flash and every newer one is sent again after a restart, so a "
        "report may arrive twice: the hall keeps it once.\n"
        "- A message to the board longer than %d bytes is dropped unread.\n"
        % (mqtt.TIMEOUT_S, mqtt.BACKOFF_MAX_S, mqtt.MAX_IN)
    )
    return "\n".join(out)
