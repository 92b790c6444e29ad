"""The scanner's own cost on the unix port: the real Scanner and Mcp3208 driver over
fake pins and a fake SPI bus whose transfers and sleeps take no time (the caller adds
the real bus time and the sleeps). Prints JSON: microseconds per full scan (best of
RUNS) and bytes allocated per scan.

    micropython -X heapsize=112wK bench/scan_bench_mp.py FIRMWARE_DIR PINMAP
"""

import gc
import json
import sys
import time
from array import array

sys.path.insert(0, sys.argv[1])

from nardy.hal_esp32 import Mcp3208, McpInput, Scanner  # noqa: E402
from nardy.pinmap import load  # noqa: E402


# The board's Pin.value and SPI.write_readinto are C functions: stand-ins that are C
# functions too (a Python fake would cost several times a C call and inflate the
# figure). abs(v) takes a pin level, max(tx, rx) two buffers.
class P:
    value = staticmethod(abs)


class Spi:
    write_readinto = staticmethod(max)


def main():
    pm = load(sys.argv[2])
    chip = Mcp3208(Spi(), P())
    adcs = [McpInput(chip, c) for c in pm.adc_channel]
    sc = Scanner([P() for _ in range(4)], adcs, pm.order, pm.nmux, pm.nch,
                 [P() for _ in range(3)], P(), pm.settle_us, pm.on_us, pm.samples,
                 sleep_us=lambda us: None)
    buf = array("H", [0] * pm.layout.n)
    best = None
    for _ in range(50):
        t0 = time.ticks_us()
        sc.scan(buf)
        dt = time.ticks_diff(time.ticks_us(), t0)
        best = dt if best is None or dt < best else best
    gc.collect()
    gc.disable()
    a0 = gc.mem_alloc()
    for _ in range(20):
        sc.scan(buf)
    alloc = (gc.mem_alloc() - a0) // 20
    gc.enable()
    print(json.dumps({"scan_us": best, "alloc": alloc, "n": pm.layout.n, "nmux": pm.nmux,
                      "settle_us": pm.settle_us, "on_us": pm.on_us,
                      "baud": pm.spi.get("baud", 1000000)}))


main()
