"""Hall 2's side of two bridged halls: the lines of its mosquitto.conf that carry its tables'
topics to hall 1's broker (where `carom hall` runs) and the hall's setups back.

    text = conf("hall2", "hall1.example", 1883)      # what `carom hall-bridge` prints

With persistence: what waits for hall 1 while the link between the halls is down (QoS 1
reports, in the bridge's queue) is kept on the disk, so a restart of hall 2's broker during
the outage loses nothing (without it, 5 of 9 reports were lost that way). mosquitto saves its
database when it stops and every `autosave_interval` seconds.
"""

from .brokerconf import check_prefix, persistence
from .schema import TABLE_NAME
from .topics import FROM_BOARDS

KINDS_OUT = FROM_BOARDS
KINDS_IN = ("setup",)


def conf(name, host, port, prefix="carom", user=None, location="/var/lib/mosquitto/"):
    """mosquitto.conf lines for hall `name`'s broker (after its own listener): persistence and a
    bridge named <name>-to-hall1 to hall 1's broker at host:port. ValueError on a name, host,
    prefix or location that would not make a valid file."""
    if not TABLE_NAME.fullmatch(name):
        raise ValueError("the hall's name: 1 to 24 of a-z, 0-9, _ and -, not %s" % ascii(name[:40]))
    if not host or any(c.isspace() or c in "#" for c in host):
        raise ValueError("hall 1's broker: a host name or address, not %s" % ascii(host[:80]))
    prefix = check_prefix(prefix)
    lines = [
        "# %s's mosquitto.conf, after its own listener (carom hall-bridge)" % name,
        "# what waits for hall 1 while the link is down survives a restart of this broker:",
        *persistence(location),
        "connection %s-to-hall1" % name,
        "address %s:%d" % ("[%s]" % host if ":" in host else host, port),
        "cleansession false",
    ]
    lines += ["topic +/%s out 1 %s/ %s/" % (kind, prefix, prefix) for kind in KINDS_OUT]
    lines += ["topic +/%s in 1 %s/ %s/" % (kind, prefix, prefix) for kind in KINDS_IN]
    if user:
        lines += [
            "# its login on hall 1 (an ACL that writes %s/+/state, status and report and reads %s/+/setup):"
            % (prefix, prefix),
            "remote_username %s" % user,
            "remote_password <its password>",
        ]
    return "\n".join(lines) + "\n"
