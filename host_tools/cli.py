"""The `carom` command: one subparser per row of commands.COMMANDS (host_tools/commands/).

Errors are printed as `carom: what went wrong` on stderr with exit status 1.
"""

import argparse
import sys

from . import __version__
from .commands import COMMANDS, module
from .errors import CommandError


def build_parser():
    parser = argparse.ArgumentParser(
        prog="carom",
        description="Carom billiards scoreboard: simulate, flash, deploy and configure boards.",
    )
    parser.add_argument("--version", action="version", version="carom " + __version__)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_, help) in COMMANDS.items():
        arguments = module(name).arguments
        p = sub.add_parser(name, help=help, description=(arguments.__doc__ or help).strip())
        arguments(p)
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
