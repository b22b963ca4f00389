"""`carom hall-bridge`: the lines of hall 2's mosquitto.conf that bridge it to hall 1's broker.

    carom hall-bridge --to hall1.example                   hall 2's bridge, printed
    carom hall-bridge --to 192.168.1.10:1883 --name b --user hall2 >> /etc/mosquitto/conf.d/bridge.conf

Persistence included: reports that wait for hall 1 while the link between the halls is down
survive a restart of hall 2's broker. Table ids must differ across the halls (the bridge does
not rename them). The password is never printed: the file gets a placeholder to fill in.
"""

from ..errors import CommandError
from .hallbroker import persistence_argument, prefix_argument


def arguments(p):
    p.add_argument("--to", required=True, metavar="HOST[:PORT]", help="hall 1's broker, where carom hall runs")
    p.add_argument("--name", default="hall2", help="this hall's name: the bridge's is NAME-to-hall1 (default hall2)")
    prefix_argument(p)
    p.add_argument("--user", metavar="NAME", help="the bridge's login on hall 1's broker (its password: a placeholder)")
    persistence_argument(p)
    p.set_defaults(run=run)


def run(args):
    from ..hall.bridge import conf
    from ..hall.broker import parse_broker

    try:
        host, port = parse_broker(args.to)
        text = conf(args.name, host, port, args.prefix, args.user, args.persistence_location)
    except ValueError as e:
        raise CommandError(str(e).replace("--broker", "--to"))
    print(text, end="")
    return 0
