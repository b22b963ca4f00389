"""`carom board`: what a board is built from, generated from its definition.

    carom board parts NAME [--format text|md|csv]   the bill of materials, counted from the definition
    carom board power NAME [--format text|md]       the power budget and the supply (a remote: its battery)
    carom board pins NAME [--format text|md]        each GPIO, each I2C bus, each address and its jumpers
    carom board wiring NAME [--out DIR]             the wiring: DIR/NAME.yml (WireViz), NAME.svg, NAME.png
    carom board card NAME [--out FILE.html] [--pdf FILE.pdf]   the printable card for the table
    carom board docs [NAME ...] [--out DIR] [--check]          every generated file of docs/build/

NAME is a board in boards/ (wall, mini, referee, or one of your own) or the path of a
definition file. Everything comes from host_tools/hardware/ (the catalogue of parts in
parts.py); the definition is checked by the firmware's own boarddef.py first.
"""

import os
import sys

from .. import ROOT, firmware_path
from ..boards import board_names, load_board
from ..errors import CommandError

WHATS = ("parts", "power", "pins", "wiring", "card", "docs")


def definition(name):
    """The normalized definition of board NAME (boards/NAME.json) or of a definition file."""
    if "/" in name or os.sep in name or name.endswith(".json"):
        if not os.path.isfile(name):
            raise CommandError("no definition file %s" % name)
        firmware_path()
        import boarddef

        try:
            return boarddef.load(name)
        except ValueError as e:
            raise CommandError(str(e))
        except OSError as e:
            raise CommandError("cannot read %s: %s" % (name, e.strerror or e))
    return load_board(name)


def _progress(text):
    print("carom: %s" % text, file=sys.stderr, flush=True)


def _shown(path):
    """A path as the reader typed it or, inside the project, relative to it."""
    full = os.path.abspath(path)
    return os.path.relpath(full, ROOT) if full.startswith(ROOT + os.sep) else path


def arguments(p):
    """What a board is built from, generated from its definition (boards/NAME.json or a file):
    its parts and their rough prices, its power budget and supply (a remote's battery life),
    its pins, I2C addresses and address jumpers, its wiring drawing (WireViz over Graphviz),
    its card for the table, and the docs pages of every board (make docs)."""
    sub = p.add_subparsers(dest="what", metavar="WHAT")

    def board_parser(what, short, long, run):
        """The parser of a WHAT made from one board: its NAME argument, its run."""
        q = sub.add_parser(what, help=short, description=long)
        q.add_argument(
            "name", metavar="NAME", help="a board in boards/ (wall, mini, referee, ...) or a definition file"
        )
        q.set_defaults(run=run)
        return q

    # The three that print a table of the board: (name, help, description, formats, run).
    for what, short, long, formats, run in (
        (
            "parts",
            "the bill of materials, counted from the definition",
            "The bill of materials: one line per kind of part (the ESP32 board, each backpack by kind and digit "
            "size, buttons, LEDs and resistors, pull resistors, buzzer, supply, connectors, cable), an example "
            "part and a rough price each.",
            ("text", "md", "csv"),
            run_parts,
        ),
        (
            "power",
            "the power budget and the supply it needs (a remote: its battery life)",
            "Each chip's current at the board's brightness and at full, the ESP32 with Wi-Fi, LEDs, buzzer, each "
            "rail's total, the supply with its margin; for a remote the charge of a press and the days a charge "
            "lasts. Each figure says whether it comes from a datasheet, a maker, a measurement or an estimate.",
            ("text", "md"),
            run_power,
        ),
        (
            "pins",
            "each GPIO, each I2C bus and chip address (A0/A1/A2 jumpers), the rails",
            "Each ESP32 GPIO and what it connects to (pull resistor, active level), each I2C bus with its pins, "
            "frequency and chips, each chip's address and the address pads to bridge for it, the GND, 5V and "
            "3V3 rails.",
            ("text", "md"),
            run_pins,
        ),
    ):
        q = board_parser(what, short, long, run)
        q.add_argument("--format", "-f", choices=formats, default="text", help="default: text")

    q = board_parser(
        "wiring",
        "the wiring drawing: NAME.yml (WireViz), NAME.svg and NAME.png",
        "Writes the wiring harness as WireViz YAML and draws it with WireViz over "
        "Graphviz (Debian: apt-get install graphviz) as SVG and PNG.",
        run_wiring,
    )
    q.add_argument("--out", "-o", default=".", metavar="DIR", help="the folder for the three files (default: here)")

    q = board_parser(
        "card",
        "the printable card for the table (HTML, and PDF through Chromium)",
        "One printable page for the table: each button, what a press and a long "
        "press do, what the words on the display mean, each error code in a line.",
        run_card,
    )
    q.add_argument("--out", "-o", metavar="FILE.html", help="the HTML file (default: NAME-card.html here)")
    q.add_argument("--pdf", metavar="FILE.pdf", help="print it to this PDF too (headless Chromium)")

    q = sub.add_parser(
        "docs",
        help="write (or --check) every generated file of docs/build/",
        description="Writes each board's page (boards/NAME.md: parts, power, pins, wiring) and "
        "its files (boards/NAME/: parts.csv, wiring.yml, wiring.svg, wiring.png, "
        "card.html) under the docs folder, for every board in boards/ or the ones "
        "named, and the pages of no one board (error-codes.md, digit-size.md, "
        "bigger-digits.md and its schematic). --check writes nothing and fails naming "
        "each file that is stale or missing.",
    )
    q.add_argument("names", nargs="*", metavar="NAME", help="only these boards (default: every board in boards/)")
    q.add_argument("--out", "-o", metavar="DIR", help="the docs folder (default: docs/build); pages go to DIR/boards/")
    q.add_argument("--check", action="store_true", help="write nothing; exit 1 naming each stale or missing file")
    q.set_defaults(run=run_docs)
    p.set_defaults(run=run_nothing)


def run_nothing(args):
    raise CommandError("board: say what to make: %s (carom board --help)" % ", ".join(WHATS))


def run_parts(args):
    from ..hardware import bom

    sys.stdout.write(bom.report(definition(args.name), args.format))


def run_power(args):
    from ..hardware import power

    sys.stdout.write(power.report(definition(args.name), args.format))


def run_pins(args):
    from ..hardware import pins

    sys.stdout.write(pins.table(definition(args.name), args.format))


def _draw(bd):
    """(yml, svg, png) of a board's wiring, as CommandError when WireViz or Graphviz is missing."""
    from ..hardware import wiring

    yml = wiring.yaml_text(bd)
    _progress("drawing the wiring of %s (WireViz over Graphviz)" % bd["name"])
    try:
        svg, png = wiring.draw(yml)
    except ImportError as e:
        raise CommandError("WireViz is not installed (pip install wireviz): %s" % e)
    except Exception as e:  # graphviz.ExecutableNotFound and Graphviz's own errors
        if type(e).__name__ == "ExecutableNotFound":
            raise CommandError("Graphviz is not installed: WireViz needs its dot (Debian: apt-get install graphviz)")
        raise
    return yml, svg, png


def _write(path, data):
    if isinstance(data, str):
        data = data.encode("utf-8")
    try:
        with open(path, "wb") as f:
            f.write(data)
    except OSError as e:
        raise CommandError("cannot write %s: %s" % (path, e.strerror or e))


def run_wiring(args):
    bd = definition(args.name)
    try:
        os.makedirs(args.out, exist_ok=True)  # a folder, or one that can be made
    except OSError as e:
        raise CommandError("cannot make the folder %s: %s" % (args.out, e.strerror or e))
    yml, svg, png = _draw(bd)
    for ext, data in (("yml", yml), ("svg", svg), ("png", png)):
        path = os.path.join(args.out, "%s.%s" % (bd["name"], ext))
        _write(path, data)
        print(path)


def run_card(args):
    from ..hardware import card

    bd = definition(args.name)
    out = args.out or "%s-card.html" % bd["name"]
    _write(out, card.card_html(bd))
    print(out)
    if args.pdf:
        from ..reports.pdf import find_chromium, html_to_pdf

        chromium = find_chromium()
        if chromium is None:
            raise CommandError(
                "PDF needs Chromium to print the card and none was found (Debian: apt-get install "
                "chromium; or set CAROM_CHROMIUM); any browser prints %s to PDF" % out
            )
        html_to_pdf(chromium, out, args.pdf)
        print(args.pdf)


def run_docs(args):
    from ..hardware import artefacts

    docs = args.out or artefacts.DOCS
    every = board_names()
    boards = [definition(n) for n in (args.names or every)]
    if args.check:
        problems = artefacts.check(boards, docs, all_names=None if args.names else every)
        if problems:
            for rel, what in problems:
                print("%s: %s" % (_shown(os.path.join(docs, rel)), what), file=sys.stderr)
            raise CommandError(
                "%d generated file%s not current (run `make docs`): %s"
                % (
                    len(problems),
                    "s are" if len(problems) != 1 else " is",
                    ", ".join("%s (%s)" % (_shown(os.path.join(docs, rel)), what) for rel, what in problems),
                )
            )
        print("%d files current in %s" % (len(artefacts.expected(boards)), _shown(docs)))
        return 0
    if not args.names:
        for rel in artefacts.orphans(boards, docs, every):
            path = os.path.join(docs, rel)
            _progress("removing %s (no board %s in boards/)" % (_shown(path), rel.split("/")[1].split(".")[0]))
            os.remove(path)
            parent = os.path.dirname(path)
            if parent != os.path.join(docs, artefacts.BOARDS_SUBDIR) and not os.listdir(parent):
                os.rmdir(parent)
    try:
        written = artefacts.write(
            boards, docs, progress=lambda rel: _progress("writing %s" % _shown(os.path.join(docs, rel)))
        )
    except ImportError as e:
        raise CommandError("WireViz is not installed (pip install wireviz): %s" % e)
    except OSError as e:
        raise CommandError("cannot write the docs in %s: %s" % (_shown(docs), e.strerror or e))
    except Exception as e:
        if type(e).__name__ == "ExecutableNotFound":
            raise CommandError("Graphviz is not installed: WireViz needs its dot (Debian: apt-get install graphviz)")
        raise
    print(
        "%d file%s written, %d current, in %s"
        % (len(written), "s"[: len(written) != 1], len(artefacts.expected(boards)) - len(written), _shown(docs))
    )
    return 0
