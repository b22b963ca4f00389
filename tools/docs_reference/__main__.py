"""`python -m tools.docs_reference`: write the reference pages of docs/reference/ that changed;
with --check, write nothing and exit 1 naming each page that is stale or missing."""

import argparse
import os
import sys

from host_tools import ROOT

from . import FOLDER, stale, write


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tools.docs_reference", description=__doc__)
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 naming each stale page")
    args = parser.parse_args(argv)
    shown = os.path.relpath(FOLDER, ROOT)
    if args.check:
        names = [name for name, _ in stale()]
        for name in names:
            print("docs_reference: %s/%s is stale or missing (make docs writes it)" % (shown, name), file=sys.stderr)
        return 1 if names else 0
    for name in write():
        print("docs_reference: wrote %s/%s" % (shown, name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
