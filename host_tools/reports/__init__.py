"""A board's finished-match reports (firmware/report.py) read and rendered: what `carom report`
writes, and `carom board`'s PDF.

    match.py    Match: one report read (names, targets, formats, innings, totals, result)
    sheets.py   the sheets written: JSON, CSV (matches.csv, innings.csv), the HTML score sheet
                (its style: sheet.css), and the PDF through pdf.py
    pdf.py      a headless Chromium that prints HTML to PDF
"""
