"""Electronic nardy board: the code that runs on the board (and on the host).

The rules engine (``nardy.rules``, ``nardy.longnardy``, ``nardy.shortnardy``) is pure:
no ``machine``, no I/O, no asyncio. It runs unchanged on the ESP32, on the unix
MicroPython port and under CPython.
"""

__version__ = "0.1.0"


def drop_module(name):
    """Forget a module needed only now and then (the menu, the move service, boot-time
    checks): once nothing else refers to them its functions and tables go back to the
    heap (about 80 bytes a function even with the code in flash); it is imported again
    when next needed (from flash: a few ms). CPython keeps its modules."""
    import sys
    if sys.implementation.name != "micropython":
        return
    sys.modules.pop(name, None)
    pkg, _, leaf = name.rpartition(".")
    pkg = sys.modules.get(pkg)
    if pkg is not None and leaf in pkg.__dict__:
        delattr(pkg, leaf)      # the import set it on the package too

def code_in_flash():
    """True when the firmware's code runs in place from flash (a ROMFS image mounted
    at /rom, as ``nardy deploy --romfs`` and the virtual board's ROMFS mode have it):
    importing a module again then makes only its small objects, while code loaded
    from a file into RAM needs blocks for its bytecode that a fragmented heap may
    not have (a command table imported per command failed that way at 112wK).
    Anything else (a filesystem, frozen modules, CPython) counts as RAM: the safe
    side, modules stay loaded."""
    f = globals().get("__file__")
    return isinstance(f, str) and f.startswith("/rom/")


try:
    import micropython  # noqa: F401  (MicroPython: the real module)
    del micropython     # only the check: not a name in the package's dict
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
