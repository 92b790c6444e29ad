"""Electronic nardy board: the code that runs on the board (and on the host).

The rules engine (``nardy.rules``, ``nardy.longnardy``, ``nardy.shortnardy``) is pure:
no ``machine``, no I/O, no asyncio. It runs unchanged on the ESP32, on the unix
MicroPython port and under CPython.
"""

__version__ = "0.1.0"

try:
    import micropython  # noqa: F401  (MicroPython: the real module)
except ImportError:
    # CPython: the hot search functions are marked @micropython.native (the
    # evaluator's @micropython.viper); here that
    # (and const) does nothing. Installed once, before any firmware module loads.
    import sys

    class _CPythonShim:
        @staticmethod
        def native(fn):
            return fn

        @staticmethod
        def viper(fn):
            return fn

        @staticmethod
        def const(x):
            return x

    sys.modules["micropython"] = _CPythonShim()
