"""Print the magnetic model's predicted readings, crosstalk and default thresholds.

    python hardware/tools/magnet_table.py

hardware/README.md quotes this output; a test checks they agree.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import hwlib  # noqa: E402

if __name__ == "__main__":
    print(hwlib.magnet_table_text())
    print()
    print("How the one-vs-two gap shrinks when a checker sits off its slot centre:")
    print(hwlib.tolerance_text())
