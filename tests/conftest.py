import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The firmware package is importable as `nardy` (editable install); tests in
# tests/firmware/ also import their shared helpers by plain module name, as they do
# under the MicroPython runner.
for p in (os.path.join(ROOT, "firmware"), os.path.join(ROOT, "tests", "firmware")):
    if p not in sys.path:
        sys.path.insert(0, p)
