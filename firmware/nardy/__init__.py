"""Electronic nardy board: the code that runs on the board (and on the host).

The rules engine (``nardy.rules``, ``nardy.longnardy``, ``nardy.shortnardy``) is pure:
no ``machine``, no I/O, no asyncio. It runs unchanged on the ESP32, on the unix
MicroPython port and under CPython.
"""

__version__ = "0.1.0"
