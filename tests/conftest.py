"""Put firmware/ and tests/fw on sys.path so firmware tests run under pytest too."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for p in (os.path.join(ROOT, "firmware"), os.path.join(HERE, "fw")):
    if p not in sys.path:
        sys.path.insert(0, p)
