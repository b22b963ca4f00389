"""The `carom` command: a table of subcommands, each a handler and its own parser.

Errors are printed as `carom: what went wrong` on stderr with exit status 1.
"""

import argparse
import sys

from . import __version__
from .errors import CommandError

COMMANDS = {}


def command(name, help):
    """Register a subcommand: the decorated function adds arguments to its parser."""

    def wrap(fn):
        COMMANDS[name] = (fn, help)
        return fn

    return wrap


def _load_commands():
    # Each module registers its subcommands with @command when imported.
    from . import sim  # noqa: F401
    from . import flash  # noqa: F401


def build_parser():
    _load_commands()
    parser = argparse.ArgumentParser(
        prog="carom",
        description="Carom billiards scoreboard: simulate, flash, deploy and configure boards.",
    )
    parser.add_argument("--version", action="version", version="carom " + __version__)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (fn, help) in COMMANDS.items():
        p = sub.add_parser(name, help=help, description=(fn.__doc__ or help).strip())
        fn(p)
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return args.run(args) or 0
    except CommandError as e:
        print("carom: %s" % e, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("carom: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
