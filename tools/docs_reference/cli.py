"""docs/reference/cli.md: every `carom` command and its options, read from its argparse parser
(host_tools/cli.py builds it from host_tools/commands/)."""

import argparse
import inspect
import os

from host_tools.cli import build_parser

from .md import cell, code, head, paragraph, table

SOURCES = ("host_tools/cli.py", "host_tools/commands/")
INTRO = """
Every `carom` command, its options and what each does, as `carom COMMAND --help` prints them.
A command that fails prints `carom: what went wrong` and exits with status 1; a command line it
cannot take, its usage and the reason, status 2.
"""


def _subparsers(parser):
    """[(name, parser, one-line help)] of the parser's subcommands, in their order."""
    for action in parser._actions:  # argparse has no public way to list them
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help for a in action._choices_actions}
            return [(name, p, helps.get(name, "")) for name, p in action.choices.items()]
    return []


def _options(parser):
    """The parser's arguments but --help and the subcommands."""
    return [
        a
        for a in parser._actions
        if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction, argparse._VersionAction))
    ]


def _metavar(a):
    if a.nargs == 0:
        return ""
    if a.metavar is not None:
        m = a.metavar
    elif a.choices is not None:
        m = "{%s}" % ",".join(str(c) for c in a.choices)
    else:
        m = a.dest.upper() if a.option_strings else a.dest
    if a.nargs == "*":
        m = "[%s ...]" % m
    elif a.nargs == "+":
        m = "%s [%s ...]" % (m, m)
    elif a.nargs == "?":
        m = "[%s]" % m
    return code(m)


def _default(a):
    if a.nargs == 0 or a.default in (None, argparse.SUPPRESS) or a.default == []:
        return ""
    return code(a.default)


def _help(a, parser):
    h = a.help or ""
    if "%(" in h:
        h = h % dict(vars(a), prog=parser.prog)
    if a.required and a.option_strings:
        h = "required: " + h
    if a.choices is not None and a.metavar is not None:
        h += " (one of %s)" % ", ".join(str(c) for c in a.choices)
    return cell(h)


def _flags(a):
    """The option's flags; a positional argument's name (with how many it takes)."""
    return ", ".join(code(f) for f in a.option_strings) if a.option_strings else _metavar(a)


def _synopsis(parser, prog):
    """carom NAME, its positional arguments and required options, then [options]."""
    words = [prog]
    optional = False
    for a in _options(parser):
        m = _metavar(a).strip("`")
        if not a.option_strings:
            words.append(m)
        elif a.required:
            words.append("%s %s" % (a.option_strings[0], m) if m else a.option_strings[0])
        else:
            optional = True
    if _subparsers(parser):
        words.append("WHAT")
    if optional:
        words.append("[options]")
    return "```\n%s\n```\n" % " ".join(words)


def _section(parser, prog, short, level):
    out = ["%s %s\n" % ("#" * level, code(prog)), cell(short) + "\n" if short else ""]
    description = inspect.cleandoc(parser.description or "")
    if description and description.strip() != (short or "").strip():
        out.append("\n".join(paragraph(p) for p in description.split("\n")) + "\n")
    out.append(_synopsis(parser, prog))
    options = _options(parser)
    if options:
        rows = [[_flags(a), _metavar(a) if a.option_strings else "", _default(a), _help(a, parser)] for a in options]
        out.append(table(["option", "value", "default", "what it does"], rows))
    for name, sub, help in _subparsers(parser):
        out.append(_section(sub, "%s %s" % (prog, name), help, level + 1))
    return "\n".join(x for x in out if x)


def parser_as_shipped():
    """The parser as a fresh shell has it: a default the environment gives (--device from
    $CAROM_DEVICE) would change the page from one machine to the next."""
    saved = {k: os.environ.pop(k) for k in list(os.environ) if k.startswith("CAROM_")}
    try:
        return build_parser()
    finally:
        os.environ.update(saved)


def page():
    parser = parser_as_shipped()
    out = [head("The carom command", SOURCES, INTRO)]
    rows = [[code("carom " + name), cell(help)] for name, _, help in _subparsers(parser)]
    out.append(table(["command", "what it does"], rows))
    for name, sub, help in _subparsers(parser):
        out.append(_section(sub, "carom " + name, help, 2))
    return "\n".join(out)
