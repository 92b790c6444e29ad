"""``nardy flash``: put a MicroPython firmware image on the board with esptool.

1. ``esptool image-info FILE``: the file must be an ESP image (for the chip);
2. ``esptool erase-flash``;
3. ``esptool write-flash -z ADDR FILE`` (ADDR 0x0 on the ESP32-S3, 0x1000 on the
   classic ESP32, as MicroPython's downloads say), with a progress bar.

Then ``nardy deploy --port PORT`` puts the application on it. esptool is the Python
package (``pip install esptool``); ``$NARDY_ESPTOOL`` replaces the command (tests).
"""

import argparse
import os
import re
import shlex
import subprocess
import sys

from nardy_host.errors import UserError

CHIPS = {"esp32s3": 0x0, "esp32": 0x1000}


def register(sub):
    p = sub.add_parser("flash", help="write a MicroPython image to the board (esptool)",
                       description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--port", required=True, metavar="PORT", help="the board's serial port")
    p.add_argument("--firmware", required=True, metavar="FILE.bin",
                   help="MicroPython image for the chip")
    p.add_argument("--chip", choices=sorted(CHIPS), default="esp32s3",
                   help="esp32s3 (default) or esp32")
    p.add_argument("--baud", type=int, default=460800, help="default 460800")
    p.add_argument("--no-erase", action="store_true", help="write without erasing first")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def esptool():
    env = os.environ.get("NARDY_ESPTOOL")
    if env:
        return shlex.split(env)
    return [sys.executable, "-m", "esptool"]


def commands(port, firmware, chip="esp32s3", baud=460800, erase=True):
    """The esptool command lines, in order: [(what, argv)]."""
    base = esptool() + ["--chip", chip]
    link = ["--port", port, "--baud", str(baud)]
    out = [("checking the image", base + ["image-info", firmware])]
    if erase:
        out.append(("erasing", base + link + ["erase-flash"]))
    out.append(("writing", base + link + ["write-flash", "-z", "0x%x" % CHIPS[chip],
                                           firmware]))
    return out


_PCT = re.compile(r"\((\d+)\s*%\)|(\d+(?:\.\d+)?)\s*%")


def _stream(argv, what, bar):
    """Run one esptool step; feed its percentages to ``bar``. Returns (rc, text)."""
    try:
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL)
    except OSError as e:
        return 127, "cannot run %s: %s" % (argv[0], e.strerror)
    text = []
    buf = b""
    while True:
        c = p.stdout.read(1)
        if not c:
            break
        if c in b"\r\n":
            ln = buf.decode(errors="replace")
            buf = b""
            if ln.strip():
                text.append(ln)
                m = _PCT.search(ln)
                if bar is not None and m and what == "writing":
                    pct = float(m.group(1) or m.group(2))
                    bar.update(max(0.0, pct - bar.n))
        else:
            buf += c
    if buf.strip():
        text.append(buf.decode(errors="replace"))
    return p.wait(), "\n".join(text)


def run(args):
    fw = args.firmware
    if not os.path.isfile(fw):
        raise UserError("no such firmware file: %s" % fw)
    if os.path.getsize(fw) < 1024:
        raise UserError("%s is too small to be a MicroPython image" % fw)
    bar = None
    if not args.quiet:
        from tqdm import tqdm
        bar = tqdm(total=100, unit="%", desc="writing", file=sys.stderr,
                   bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed}")
    try:
        for what, argv in commands(args.port, fw, args.chip, args.baud, not args.no_erase):
            if what != "checking the image" and not os.path.exists(args.port) \
                    and "://" not in args.port and not args.port.upper().startswith("COM"):
                raise UserError("no such port: %s (is the board plugged in?)" % args.port)
            if not args.quiet:
                print("nardy flash: %s" % what, file=sys.stderr, flush=True)
            rc, text = _stream(argv, what, bar)
            if rc:
                last = [ln for ln in text.splitlines() if ln.strip()][-3:]
                if what == "checking the image":
                    raise UserError("%s is not an ESP image for %s: %s"
                                    % (fw, args.chip, " / ".join(last)))
                raise UserError("esptool %s failed (exit %d): %s"
                                % (what, rc, " / ".join(last)))
        if bar is not None:
            bar.update(100 - bar.n)
    finally:
        if bar is not None:
            bar.close()
    print("nardy flash: done; now `nardy deploy --port %s`" % args.port, file=sys.stderr)
    return 0
