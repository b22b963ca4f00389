"""Run firmware test modules on the MicroPython unix port.

Usage: micropython tests/mp_runner.py tests/fw [module ...]
Each tests/fw/test_*.py module is imported and every function whose name
starts with test_ is called with no arguments.  A test that raises
SkipTest (defined in tests/fw/fwtest.py) counts as skipped.  The last line
is "N passed, N failed, N skipped", which CI reads.
"""

import gc
import os
import sys


def main():
    args = sys.argv[1:]
    folder = args[0] if args else "tests/fw"
    here = folder.rstrip("/")
    root = here
    for _ in range(2):
        root = root.rpartition("/")[0] or "."
    sys.path.insert(0, here)
    sys.path.insert(0, root + "/firmware")
    wanted = args[1:]
    names = sorted(n[:-3] for n in os.listdir(here) if n.startswith("test_") and n.endswith(".py"))
    if wanted:
        names = [n for n in names if n in wanted]
    passed = failed = skipped = 0
    for name in names:
        try:
            mod = __import__(name)
        except Exception as e:
            failed += 1
            print("FAIL", name, "(import)", repr(e))
            sys.print_exception(e)
            continue
        for attr in sorted(dir(mod)):
            if not attr.startswith("test_"):
                continue
            fn = getattr(mod, attr)
            if not callable(fn):
                continue
            gc.collect()
            try:
                fn()
            except Exception as e:
                if type(e).__name__ == "SkipTest":
                    skipped += 1
                    print("SKIP", name + "." + attr, e)
                    continue
                failed += 1
                print("FAIL", name + "." + attr)
                sys.print_exception(e)
            else:
                passed += 1
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    sys.exit(1 if failed or not passed else 0)


main()
