"""The line to a board: JSON lines over USB serial, a pty, or a virtual board.

``PORT`` forms understood by every command that talks the protocol
(docs/PROTOCOL.md):

- ``/dev/ttyACM0``, ``COM5``, a pty path (``/dev/pts/7``, or a symlink to one): a
  serial line opened with pyserial (115200 baud; USB CDC ignores the rate);
- ``vboard:DIR``: start the virtual board (the real firmware on unix MicroPython,
  ``micropython firmware/main.py DIR``) with DIR as its flash, and talk to it over
  its stdin/stdout (heap: ``$NARDY_VBOARD_HEAP``, default 112wK like the ESP32).

A line that is not JSON (REPL noise after a reset, a boot banner) is skipped. A line
that breaks or ends raises ``LinkError`` (``nardy_host.errors``, the same type the
session links raise); callers that must survive unplugging catch it and open the
port again.
"""

import contextlib
import json
import os
import subprocess
import time

from nardy_host.errors import LinkError, UserError
from nardy_host.mpunix import firmware_dir, virtual_board_cmd  # noqa: F401 (re-exported)


class Link:
    """One open line to a board. ``read(timeout)`` returns the next event (a dict) or
    None when nothing came within ``timeout`` seconds."""

    def __init__(self, port, heap=None, create=True):
        self.port = port
        self.proc = None
        self.ser = None
        self._buf = b""
        if port.startswith("vboard:"):
            if not create and not os.path.isdir(port[7:]):
                # reading a board that is not there: say so, do not make a blank one
                raise LinkError("no virtual board at %s (no such directory)" % port[7:])
            self._spawn(port[7:], heap or os.environ.get("NARDY_VBOARD_HEAP", "112wK"))
        else:
            self._serial(port)

    # -- opening ------------------------------------------------------------------------
    def _spawn(self, data, heap):
        if not data:
            raise UserError("vboard:DIR needs a flash directory")
        self.proc = subprocess.Popen(
            virtual_board_cmd(data, heap),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        os.set_blocking(self.proc.stdout.fileno(), False)

    def _serial(self, port):
        try:
            import serial
        except ImportError:
            raise UserError("pyserial is not installed (pip install pyserial)") from None
        if "://" not in port and not os.path.exists(port) and not port.upper().startswith("COM"):
            raise LinkError("no such port: %s" % port)
        try:
            self.ser = serial.serial_for_url(port, baudrate=115200, timeout=0.05,
                                             exclusive=False)
        except (serial.SerialException, OSError, ValueError) as e:
            raise LinkError("cannot open %s: %s" % (port, e)) from None

    # -- lines ----------------------------------------------------------------------------
    def send(self, obj):
        data = (json.dumps(obj) + "\n").encode()
        if self.proc is None and self.ser is None:
            raise LinkError("the line is closed")
        try:
            if self.proc is not None:
                self.proc.stdin.write(data)
                self.proc.stdin.flush()
            else:
                self.ser.write(data)
                self.ser.flush()
        except (OSError, ValueError) as e:
            raise LinkError("write failed: %s" % e) from None
        except Exception as e:  # serial.SerialException
            if type(e).__name__ == "SerialException":
                raise LinkError("write failed: %s" % e) from None
            raise

    def _chunk(self, wait):
        """Some bytes, b"" if none within ``wait`` s; LinkError at the end."""
        if self.proc is None and self.ser is None:
            raise LinkError("the line is closed")
        if self.proc is not None:
            import select
            fd = self.proc.stdout.fileno()
            r, _, _ = select.select([fd], [], [], wait)
            if not r:
                return b""
            try:
                data = os.read(fd, 65536)
            except BlockingIOError:
                return b""
            except OSError as e:
                raise LinkError(str(e)) from None
            if not data:
                raise LinkError("the virtual board exited")
            return data
        try:
            self.ser.timeout = wait
            first = self.ser.read(1)
            if not first:
                return b""
            n = self.ser.in_waiting
            return first + (self.ser.read(n) if n else b"")
        except Exception as e:  # SerialException, OSError: unplugged
            raise LinkError("read failed: %s" % e) from None

    def read(self, timeout=5.0):
        end = time.monotonic() + timeout
        while True:
            i = self._buf.find(b"\n")
            while i >= 0:
                ln = self._buf[:i].strip()
                self._buf = self._buf[i + 1:]
                if ln.startswith(b"{"):
                    try:
                        ev = json.loads(ln)
                    except ValueError:
                        ev = None
                    if isinstance(ev, dict) and "ev" in ev:
                        return ev
                i = self._buf.find(b"\n")
            left = end - time.monotonic()
            if left <= 0:
                return None
            self._buf += self._chunk(min(left, 0.5))

    def request(self, cmd, want, timeout=10.0, match=None, on_event=None):
        """Send ``cmd`` and return the first ``want`` event (that ``match`` accepts);
        an ``error`` event about this command raises RuntimeError. Other events go
        to ``on_event``."""
        self.send(cmd)
        end = time.monotonic() + timeout
        while True:
            ev = self.read(max(0.0, end - time.monotonic()))
            if ev is None:
                raise LinkError("no %s reply to %s within %gs" % (want, cmd["cmd"], timeout))
            if ev["ev"] == want and (match is None or match(ev)):
                return ev
            if ev["ev"] == "error" and str(ev.get("error", "")).startswith(cmd["cmd"] + " "):
                raise RuntimeError(ev["error"])
            if on_event is not None:
                on_event(ev)

    def close(self):
        if self.proc is not None:
            p = self.proc
            with contextlib.suppress(OSError):
                p.stdin.close()
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            p.stdout.close()
            self.proc = None
        if self.ser is not None:
            with contextlib.suppress(Exception):    # already gone
                self.ser.close()
            self.ser = None

    def kill(self):
        """Cut the line at once (tests: an unplugged cable, a power cut)."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
        self.close()


def connect(port, retry=False, interval=1.0, say=None, create=True):
    """Open ``port``; with ``retry``, keep trying until it opens (and answers).
    ``create=False``: a ``vboard:DIR`` whose DIR does not exist is an error (a tool
    that reads a board must not make a blank one)."""
    while True:
        try:
            ln = Link(port, create=create)
        except LinkError as e:
            if not retry:
                raise
            if say:
                say("waiting for %s (%s)" % (port, e))
            time.sleep(interval)
            continue
        try:
            ln.request({"cmd": "hello"}, "hello", timeout=10)
            return ln
        except LinkError as e:
            ln.close()
            if not retry:
                raise
            if say:
                say("waiting for %s (%s)" % (port, e))
            time.sleep(interval)
