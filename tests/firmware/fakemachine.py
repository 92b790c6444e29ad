"""Fake ``machine`` and ``neopixel`` modules for the ESP32 HAL's factory.

``install()`` puts this module in ``sys.modules`` as ``machine`` and ``neopixel``
(MicroPython looks there before its built-in modules), ``remove()`` undoes it. Every
object made is recorded in ``made`` so a test can check pins, pulls and attenuation.
"""

import sys

made = []
_saved = {}


class Pin:
    IN = 1
    OUT = 3
    PULL_UP = 2

    def __init__(self, n, mode=None, pull=None, value=None):
        self.n = n
        self.mode = mode
        self.pull = pull
        self.v = 1 if pull == Pin.PULL_UP else (value or 0)
        made.append(self)

    def value(self, v=None):
        if v is None:
            return self.v
        self.v = v


class ADC:
    ATTN_0DB = 0
    ATTN_2_5DB = 1
    ATTN_6DB = 2
    ATTN_11DB = 3

    def __init__(self, pin, atten=None):
        self.pin = pin
        self.atten = atten
        made.append(self)

    def read_uv(self):
        return 1650000


class SPI:
    def __init__(self, id, baudrate=0, polarity=0, phase=0, sck=None, mosi=None,
                 miso=None):
        self.id = id
        self.baudrate = baudrate
        self.pins = (sck.n, mosi.n, miso.n)
        self.frames = 0
        made.append(self)

    def write_readinto(self, tx, rx):
        # an MCP3208 whose input k reads 2000 + k
        self.frames += 1
        ch = ((tx[0] & 1) << 2) | (tx[1] >> 6)
        v = 2000 + ch
        rx[0] = 0
        rx[1] = v >> 8
        rx[2] = v & 0xFF


class I2C:
    def __init__(self, *a, **k):
        raise OSError("no I2C device")     # no OLED: the board still runs


class NeoPixel:
    def __init__(self, pin, n):
        self.pin = pin
        self.px = [(0, 0, 0)] * n
        self.writes = 0
        made.append(self)

    def __setitem__(self, i, v):
        self.px[i] = v

    def write(self):
        self.writes += 1


def install():
    me = sys.modules[__name__]
    for name in ("machine", "neopixel"):
        if name in sys.modules:
            _saved[name] = sys.modules[name]
        sys.modules[name] = me
    del made[:]


def remove():
    for name in ("machine", "neopixel"):
        sys.modules.pop(name, None)
        if name in _saved:
            sys.modules[name] = _saved.pop(name)


class _FrameBufModule:
    """CPython has no ``framebuf``: enough of it to build the virtual board."""

    MONO_VLSB = 0

    class FrameBuffer:
        def __init__(self, buf, width, height, fmt):
            self.buf = buf


def install_framebuf():
    """Put a stand-in ``framebuf`` in ``sys.modules`` unless the runtime has one
    (MicroPython); True when it did (``remove_framebuf()`` undoes it)."""
    try:
        import framebuf  # noqa: F401
        return False
    except ImportError:
        sys.modules["framebuf"] = _FrameBufModule
        return True


def remove_framebuf():
    sys.modules.pop("framebuf", None)
