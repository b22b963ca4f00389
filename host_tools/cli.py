"""The `carom` command: one subparser per row of commands.COMMANDS (host_tools/commands/).

Errors are printed as `carom: what went wrong` on stderr with exit status 1; a command
line argparse cannot take, as its usage and `carom: COMMAND: what is wrong`, exit status 2.
"""

import argparse
import os
import sys

from . import __version__
from .commands import COMMANDS, module
from .errors import CommandError


def one_line(text):
    """An error as one line: control characters and line separators (in a file name, say) as escapes."""
    return "".join(ch if ch >= " " and ch not in "\x7f\x85\u2028\u2029" else repr(ch)[1:-1] for ch in text)


class Parser(argparse.ArgumentParser):
    """argparse's parser, its errors in carom's form: `carom: sim: argument --boards: ...`."""

    def error(self, message):
        self.print_usage(sys.stderr)
        where = self.prog.split(None, 1)[1:] or []
        self.exit(2, "carom: %s%s\n" % ("".join(w + ": " for w in where), one_line(message)))


def build_parser():
    parser = Parser(
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
        print("carom: no command given", file=sys.stderr)
        return 2
    try:
        return args.run(args) or 0
    except CommandError as e:
        print("carom: %s" % one_line(str(e)), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("carom: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as e:  # noqa: BLE001 -- a bug: said in one line too (CAROM_DEBUG=1: the traceback)
        if os.environ.get("CAROM_DEBUG"):
            raise
        print(
            "carom: internal error, please report it: %s: %s (CAROM_DEBUG=1 shows where)"
            % (type(e).__name__, one_line(str(e))[:300]),
            file=sys.stderr,
        )
        return 3


if __name__ == "__main__":
    sys.exit(main())
