"""Run firmware test modules under the unix MicroPython port.

The same files in tests/firmware/ run under CPython with pytest. This runner needs
no unittest: it imports each ``test_*.py`` module, calls every ``test_*`` function and
prints pytest's closing line ("N passed, N failed").

    micropython -X heapsize=112wK tests/mprun.py [test_module ...]

With NARDY_MP_LIB=DIR the firmware is imported from DIR (``nardy/*.mpy``, as
``nardy_host.mpunix.compiled_firmware`` builds it and a board runs it after deploy)
instead of compiled from firmware/ on the capped heap: tests/test_micropython.py
does that, so a test measures the firmware, not the compiler's garbage.
"""

import gc
import os
import sys

_here = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
_root = _here + "/.."
sys.path.insert(0, _root + "/firmware")
if os.getenv("NARDY_MP_LIB"):
    sys.path.insert(0, os.getenv("NARDY_MP_LIB"))
sys.path.insert(0, _here + "/firmware")


def _modules(argv):
    if argv:
        return [a[:-3] if a.endswith(".py") else a for a in argv]
    names = [n[:-3] for n in os.listdir(_here + "/firmware")
             if n.startswith("test_") and n.endswith(".py")]
    names.sort()
    return names


def main(argv):
    passed = failed = 0
    for modname in _modules(argv):
        mod = __import__(modname)
        tests = [n for n in dir(mod) if n.startswith("test_")]
        tests.sort()
        for name in tests:
            fn = getattr(mod, name)
            if not callable(fn):
                continue
            gc.collect()
            try:
                fn()
            except Exception as e:  # noqa: BLE001 - report every failure, keep going
                failed += 1
                print("FAILED %s.%s: %s: %s" % (modname, name, type(e).__name__, e))
                sys.print_exception(e)
            else:
                passed += 1
            # pytest's per-test hook, called here as pytest calls it
            teardown = getattr(mod, "teardown_function", None)
            if teardown:
                teardown(fn)
        del mod
        sys.modules.pop(modname, None)
        gc.collect()
    import nardy.rules
    print("nardy.rules from %s" % nardy.rules.__file__)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed or not passed else 0


sys.exit(main(sys.argv[1:]))
