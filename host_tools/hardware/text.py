"""Tables as Markdown and as plain text (aligned columns), for bom.py, power.py and pins.py."""


def _cell(v):
    return str(v).replace("|", "\\|").replace("\n", " ")


def markdown(header, rows, right=()):
    """A Markdown table; columns whose index is in `right` are right-aligned."""
    out = [
        "| " + " | ".join(_cell(h) for h in header) + " |",
        "|" + "|".join("---:" if i in right else "---" for i in range(len(header))) + "|",
    ]
    for r in rows:
        out.append("| " + " | ".join(_cell(v) for v in r) + " |")
    return "\n".join(out) + "\n"


def plain(header, rows, right=()):
    """Aligned columns, two spaces apart, a rule under the header."""
    rows = [[str(v) for v in r] for r in rows]
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(header)]

    def line(cells):
        parts = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))]
        return "  ".join(parts).rstrip()

    return "\n".join([line(header), line(["-" * w for w in widths])] + [line(r) for r in rows]) + "\n"


def table(fmt, header, rows, right=()):
    return markdown(header, rows, right) if fmt == "md" else plain(header, rows, right)


def heading(fmt, text, level=2):
    if fmt == "md":
        return "%s %s\n\n" % ("#" * level, text)
    return "%s\n%s\n\n" % (text, ("=" if level < 3 else "-") * len(text))


def ma(value):
    """A current in mA, as a reader wants it: 1,916 mA, 97.3 mA, 0.33 mA."""
    if value >= 100:
        return "{:,.0f} mA".format(value)
    if value >= 1:
        return "%.1f mA" % value
    return "%.2f mA" % value


def bold(fmt, s):
    return "**%s**" % s if fmt == "md" else s
