"""`carom hall`: the hall dashboard, every table's match on one page (host_tools/hall)."""

import os
import re

from ..errors import CommandError

PASSWORD_ENV = "CAROM_HALL_PASSWORD"


def arguments(p):
    """Show every table of the hall on one web page, live.

    Subscribes to <prefix>/+/state, /status and /report on the MQTT broker the
    boards publish to, and serves a page with a tile per table (names, scores,
    innings, run, countdown, equalizing inning, result, online/offline) and the
    results list of finished matches (/results.csv, /results.json) at
    --listen HOST:PORT (default http://127.0.0.1:8090) until Ctrl-C.  The broker
    connection comes back by itself when the broker goes away and returns.

    The organiser's page (/organiser) runs a tournament kept in --db FILE:
    players, format, the draw; the hall sends each free table its next match
    (<prefix>/<table>/setup, signed with the table's hall key) and fills the
    standings and the bracket from the boards' reports.  /overlay/<table> is a
    score overlay for streaming software.
    """
    p.add_argument("--broker", metavar="HOST[:PORT]", required=True, help="the MQTT broker (port 1883 by default)")
    p.add_argument(
        "--listen",
        metavar="HOST:PORT",
        default="127.0.0.1:8090",
        help="where the dashboard is served (default 127.0.0.1:8090; 0.0.0.0:8090 for a TV on the"
        " network; port 0: any free port)",
    )
    p.add_argument("--prefix", default="carom", help="the boards' topic prefix (default carom)")
    p.add_argument(
        "--results",
        metavar="FILE",
        help="keep the results list in FILE (JSON lines): read at start, each finished match appended",
    )
    p.add_argument(
        "--db",
        metavar="FILE",
        help="the tournament's SQLite file (made if missing; players, matches, standings, the setups"
        " sent), kept across restarts; without it the tournament lives in a temporary file",
    )
    p.add_argument(
        "--keys",
        metavar="FILE",
        help="the hall's key file (carom hall-key writes it; default hall-keys.json beside --db): each"
        " table's key, its setups are signed with; never printed",
    )
    p.add_argument(
        "--client-id",
        metavar="ID",
        help="the MQTT client id (default carom-hall-<host>-<port>; the broker keeps its session)",
    )
    p.add_argument(
        "--user",
        metavar="NAME",
        help="the broker's login (mosquitto's password_file); the password"
        " comes from $%s or --password-file, never from the command line" % PASSWORD_ENV,
    )
    p.add_argument(
        "--password-file",
        metavar="FILE",
        help="a file whose first line is the broker password for --user (else $%s)" % PASSWORD_ENV,
    )
    p.add_argument(
        "--organiser-code-file",
        metavar="FILE",
        help="a file whose first line is the organiser's sign-in code (else a new one is printed at"
        " the start); only the organiser changes the tournament, the rest is read-only",
    )
    p.set_defaults(run=run_hall)


CLIENT_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
MAX_PASSWORD_FILE = 4096  # a password file's first line is the password: a longer file is not one


def password(args):
    """--user's password: from --password-file's first line, else $CAROM_HALL_PASSWORD; never printed."""
    if args.password_file:
        from ..userfile import read_bounded

        data = read_bounded(args.password_file, MAX_PASSWORD_FILE, "the password file")
        try:
            return data.decode("utf-8").splitlines()[0] if data else ""
        except UnicodeDecodeError:
            raise CommandError("cannot read the password file %s: not text" % args.password_file) from None
    secret = os.environ.get(PASSWORD_ENV)
    if args.user and secret is None:
        raise CommandError("--user %s wants a password: put it in $%s or a --password-file" % (args.user, PASSWORD_ENV))
    return secret


def organiser_code(args):
    """--organiser-code-file's first line (checked), or None (a new code)."""
    if not args.organiser_code_file:
        return None
    from ..hall.signin import MAX_CODE, check_code
    from ..userfile import read_bounded

    data = read_bounded(args.organiser_code_file, MAX_CODE * 4, "the organiser's code file")
    try:
        first = data.decode("utf-8").splitlines()[0].strip() if data.strip() else ""
        return check_code(first, args.organiser_code_file)
    except (UnicodeDecodeError, ValueError) as e:
        raise CommandError(
            str(e)
            if isinstance(e, ValueError) and not isinstance(e, UnicodeDecodeError)
            else "the organiser's code file %s is not text" % args.organiser_code_file
        ) from None


def run_hall(args):
    from ..hall import ListenError, run

    prefix = args.prefix.strip("/")
    if not prefix or any(c in prefix for c in "+#"):
        raise CommandError("--prefix must be a topic prefix without + or #, e.g. carom or club/hall1")
    if args.client_id is not None and not CLIENT_ID.fullmatch(args.client_id):
        raise CommandError(
            "--client-id wants 1 to 64 letters, digits, '.', '_' or '-' (the broker keeps the hall's"
            " session under it), not %s" % ascii(args.client_id[:80])
        )

    def out(text):
        print(text, flush=True)

    try:
        return run(
            args.broker,
            args.listen,
            prefix,
            args.client_id,
            args.results,
            out=out,
            user=args.user,
            password=password(args) if args.user else None,
            db=args.db,
            keys=args.keys,
            organiser_code=organiser_code(args),
        )
    except (ValueError, ListenError) as e:
        raise CommandError(str(e))
