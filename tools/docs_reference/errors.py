"""docs/reference/error-codes.md: written by host_tools/hardware/errorhelp.py, the one module that
writes the E-codes' pages (docs/build/error-codes.md too), from firmware/errorcodes.py."""

from host_tools.hardware.errorhelp import reference


def page():
    return reference()
