"""`python -m tools.docs_reference [--check]` (make docs): the reference pages of docs/reference/.

Each page is made from the code that knows its facts, so that it cannot drift from it:

    cli.md               the `carom` parsers (cli.py)
    config.md            firmware/config.py's schema, host_tools/config_keys.py's words (config.py)
    board-definition.md  host_tools/board_fields.py, checked against firmware/boarddef.py (board.py)
    error-codes.md       firmware/errorcodes.py through host_tools/hardware/errorhelp.py (errors.py)
    state-document.md    host_tools/hall/fields.py and schema.py: what firmware/matchdoc.py writes
    report.md            the same for firmware/report.py's report (matchdoc.py)
    mqtt.md              host_tools/hall/topics.py (mqtt.py)
    radio.md             firmware/radio.py's frame layout, radionames.py's codes (radio.py)

PAGES names each page and the function that writes its text; write() writes them (only those
that changed), check() lists the stale or missing ones (a test runs it).
"""

import os

from host_tools import ROOT

from . import board, cli, config, errors, matchdoc, mqtt, radio

FOLDER = os.path.join(ROOT, "docs", "reference")

# The page's file name, the function that makes its text; in the site's order.
PAGES = {
    "cli.md": cli.page,
    "config.md": config.page,
    "board-definition.md": board.page,
    "error-codes.md": errors.page,
    "state-document.md": matchdoc.state_page,
    "report.md": matchdoc.report_page,
    "mqtt.md": mqtt.page,
    "radio.md": radio.page,
}


def _read(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        return None


def stale(folder=FOLDER):
    """[(file name, the text it should have)] for each page missing or not as generated now."""
    out = []
    for name, make in PAGES.items():
        text = make()
        if _read(os.path.join(folder, name)) != text:
            out.append((name, text))
    return out


def write(folder=FOLDER):
    """Write the pages that changed; return their names."""
    os.makedirs(folder, exist_ok=True)
    changed = stale(folder)
    for name, text in changed:
        with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
            f.write(text)
    return [name for name, _ in changed]
