"""The hall's broker as `carom hall-broker` sets it up: mosquitto.conf's lines and the ACL file.

    text = conf()            # hall 1's mosquitto.conf lines (carom hall-broker)
    text = acl("carom")      # its ACL file (carom hall-broker --acl)

Every board logs in as its table id and may write only its own table's topics and read only its
own setup topic; the hall's login reads them all and writes the setups; nobody else gets in. A
login is its client id (`use_username_as_clientid`): without it, any login could connect with the
hall's client id (or another board's) and the broker would throw the other off, every second if it
kept at it. The hall checks this at its start (broker.login_is_client_id).
"""

from .schema import TABLE_NAME

AUTOSAVE_S = 60
MAX_PACKET = 1048576  # larger than any message the hall takes (schema.MAX_REPORT_BYTES)


def check_prefix(prefix):
    """The topics' prefix without its outer slashes; ValueError for one a configuration cannot hold."""
    prefix = prefix.strip("/")
    if not prefix or any(c.isspace() or c in "+#" for c in prefix):
        raise ValueError("--prefix must be a topic prefix without blanks, + or #, e.g. carom")
    return prefix


def _path(what, path):
    if not path.startswith("/") or any(c.isspace() or c == "#" for c in path):
        raise ValueError("%s: an absolute path without blanks, not %s" % (what, ascii(path[:80])))
    return path


def persistence(location):
    """mosquitto.conf's lines that keep its database (sessions, queued QoS 1 messages) across a
    restart, saved every AUTOSAVE_S seconds and when it stops."""
    return [
        "persistence true",
        "persistence_location %s" % _path("--persistence-location", location),
        "autosave_interval %d" % AUTOSAVE_S,
    ]


def conf(
    port=1883,
    password_file="/etc/mosquitto/carom.passwd",
    acl_file="/etc/mosquitto/carom.acl",
    location="/var/lib/mosquitto/",
):
    """mosquitto.conf lines for the hall's broker. ValueError on a port or path that would not make a
    valid file."""
    if type(port) is not int or not 0 < port < 65536:
        raise ValueError("--port: 1 to 65535, not %r" % (port,))
    lines = [
        "# the hall's mosquitto.conf (carom hall-broker)",
        "listener %d" % port,
        "# every client logs in: the boards as their table ids, the hall as its own login",
        "allow_anonymous false",
        "password_file %s" % _path("--password-file", password_file),
        "acl_file %s" % _path("--acl-file", acl_file),
        "# a login is its client id: a board's login cannot take the hall's session or another board's",
        "use_username_as_clientid true",
        "# reports queued for a hall that is away survive a restart of the broker",
        *persistence(location),
        "# nothing larger than the hall takes",
        "max_packet_size %d" % MAX_PACKET,
    ]
    return "\n".join(lines) + "\n"


def acl(prefix="carom", hall="hall"):
    """The ACL file: `hall` reads every table and writes the setups; a board (login = table id, %u)
    writes its own table's state, status and report and reads its own setup."""
    prefix = check_prefix(prefix)
    if not TABLE_NAME.fullmatch(hall):
        raise ValueError("--hall-user: 1 to 24 of a-z, 0-9, _ and -, not %s" % ascii(hall[:40]))
    return """\
# the hall's dashboard (carom hall --user {hall}) reads every table and sends the setups
user {hall}
topic read {p}/+/state
topic read {p}/+/status
topic read {p}/+/report
topic readwrite {p}/+/setup

# a board logs in as its table id (config.json: mqtt.user = mqtt.table), writes only its own
# topics and reads only its own setups
pattern write {p}/%u/state
pattern write {p}/%u/status
pattern write {p}/%u/report
pattern read {p}/%u/setup
""".format(hall=hall, p=prefix)
