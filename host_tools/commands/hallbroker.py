"""`carom hall-broker`: the hall's mosquitto configuration, and its ACL file.

    carom hall-broker > /etc/mosquitto/conf.d/carom.conf       logins, ACLs, persistence
    carom hall-broker --acl > /etc/mosquitto/carom.acl         who may read and write what

Each login is its client id (`use_username_as_clientid true`), so a board's login cannot take
the hall's session (or another board's); `carom hall --user` checks that at its start. Make the
password file with `mosquitto_passwd` (one login per table, named as its table id, and hall).
"""

from ..errors import CommandError


def arguments(p):
    p.add_argument("--acl", action="store_true", help="print the ACL file instead of mosquitto.conf's lines")
    prefix_argument(p)
    p.add_argument("--hall-user", default="hall", metavar="NAME", help="the hall's login (default hall)")
    p.add_argument("--port", type=int, default=1883, help="the broker's port (default 1883)")
    p.add_argument(
        "--password-file",
        default="/etc/mosquitto/carom.passwd",
        metavar="FILE",
        help="mosquitto's password file (default /etc/mosquitto/carom.passwd)",
    )
    p.add_argument(
        "--acl-file",
        default="/etc/mosquitto/carom.acl",
        metavar="FILE",
        help="where the ACL file (--acl) goes (default /etc/mosquitto/carom.acl)",
    )
    persistence_argument(p)
    p.set_defaults(run=run)


def prefix_argument(p):
    """--prefix, as hall-broker and hall-bridge both take it."""
    p.add_argument("--prefix", default="carom", help="the topics' prefix, as the boards' mqtt.prefix (default carom)")


def persistence_argument(p):
    """--persistence-location, as hall-broker and hall-bridge both take it."""
    p.add_argument(
        "--persistence-location",
        default="/var/lib/mosquitto/",
        metavar="DIR",
        help="where mosquitto keeps its database (default /var/lib/mosquitto/)",
    )


def run(args):
    from ..hall.brokerconf import acl, conf

    try:
        if args.acl:
            text = acl(args.prefix, args.hall_user)
        else:
            text = conf(args.port, args.password_file, args.acl_file, args.persistence_location)
    except ValueError as e:
        raise CommandError(str(e))
    print(text, end="")
    return 0
