"""GD (the general average: points / innings) as result sheets show it, on every host surface.

Shown truncated to three decimals, never rounded (30/14 is 2.142, 2/3 is 0.666): nobody is shown an
average he has not reached; the board does the same (firmware rules.Match.average_x1000).  Ranked by
the exact fraction (points x innings compared crosswise), never by a decimal: ratio() is a Fraction.

    thousandths(30, 14) -> 2142      value(30, 14) -> 2.142      text(30, 14) -> "2.142"
    ratio(30, 14) -> Fraction(15, 7)  (0 innings: 0; the shown ones: None for an unplayed match)
"""

from fractions import Fraction


def _counts(score, innings):
    ok = all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in (score, innings))
    return (score, innings) if ok else None


def thousandths(score, innings):
    """GD x 1000, truncated (whole numbers only: no float ever rounds it up); 0 with no innings."""
    return score * 1000 // innings if innings else 0


def value(score, innings):
    """GD truncated to three decimals as a number (2.142), or None unless both are counts."""
    c = _counts(score, innings)
    return None if c is None else thousandths(*c) / 1000


def text(score, innings):
    """GD truncated to three decimals as text ("2.142"), or "" unless both are counts."""
    c = _counts(score, innings)
    if c is None:
        return ""
    x = thousandths(*c)
    return "%d.%03d" % (x // 1000, x % 1000)


def ratio(score, innings):
    """The exact GD, to rank by: a Fraction (0 with no innings)."""
    return Fraction(score, innings) if innings else Fraction(0)
