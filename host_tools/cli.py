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
    """Import every module of this package that registers a subcommand with @command."""
    import importlib
    import os

    here = os.path.dirname(os.path.abspath(__file__))
    for name in sorted(os.listdir(here)):
        if not name.endswith(".py") or name.startswith("_") or name == "cli.py":
            continue
        with open(os.path.join(here, name), encoding="utf-8") as f:
            if "\n@command(" not in f.read():
                continue
        importlib.import_module("." + name[:-3], __package__)


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
