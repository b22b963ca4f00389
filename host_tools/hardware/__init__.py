"""Everything generated from a board definition (boards/NAME.json, as firmware/boarddef.py
normalizes it): what to buy, what it draws, where each wire goes, and the docs pages.

    parts.py       the catalogue of parts: one home for each fact about a part (example part,
                   rough price, the electrical figures with their sources)
    bom.py         the bill of materials counted from a definition (text, Markdown, CSV)
    power.py       the power budget, the supply it needs; a remote's battery and its life
    pins.py        the pin table: each GPIO, each I2C bus and chip address (A0/A1/A2 jumpers),
                   the rails
    wiring.py      the wiring harness as WireViz YAML, drawn by WireViz over Graphviz (SVG, PNG)
    artefacts.py   every generated file of a board (docs/build/boards/NAME.md and NAME/...):
                   write them, or check them (stale and missing files named)
    text.py        tables as Markdown and as plain text, for the modules above
    card.py        the printable card for the table: each button, the words, the E-codes
                   (its style: card.css)
    errorhelp.py   each E-code as a builder reads it (docs/build/error-codes.md)
    bigdigits.py   driving 2.3" and larger digits from the same HT16K33: the stage's figures and
                   arithmetic; beside it by job bigdigits_lines.py (the chip's lines),
                   bigdigits_parts.py, bigdigits_schematic.py, bigdigits_page.py
                   (bigger-digits.md) and bigdigits_size.py (digit size against distance)

`carom board parts|power|pins|wiring|card|docs` (host_tools/commands/board.py) is their CLI.
Every function here is pure and deterministic: the same definition gives the same bytes.
"""
