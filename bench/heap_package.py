"""What one package level costs on the heap: the figure behind the firmware's flat
layout (docs/ARCHITECTURE.md, "Why one flat package").

    .venv/bin/python bench/heap_package.py

Imports the same three one-line modules twice under the unix port at 112wK, once
as ``nardy.mN`` and once inside a subpackage ``nardy.pk.mN``, with a collection
before each figure: the difference is the subpackage's own module object, its dict
(which holds each imported submodule as an attribute) and its names. Figures are
for this 64-bit port (a pointer is 8 bytes); an ESP32 needs a little over half.
"""

import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "host_tools"))

_PROBE = r'''
import gc
import nardy
def alloc():
    gc.collect()
    return gc.mem_alloc()
a = alloc()
import nardy.m1, nardy.m2, nardy.m3
flat = alloc() - a
a = alloc()
import nardy.pk.m1, nardy.pk.m2, nardy.pk.m3
pkg = alloc() - a
print(flat, pkg)
'''


def measure(heap="112wK"):
    """(bytes for three flat modules, bytes for the same three in a subpackage)."""
    from nardy_host.mpunix import micropython
    root = tempfile.mkdtemp(prefix="nardy-pkg-")
    try:
        pkg = os.path.join(root, "nardy", "pk")
        os.makedirs(pkg)
        shutil.copy(os.path.join(ROOT, "firmware", "nardy", "__init__.py"),
                    os.path.join(root, "nardy"))
        open(os.path.join(pkg, "__init__.py"), "w").close()
        for i in (1, 2, 3):
            for d in (os.path.join(root, "nardy"), pkg):
                with open(os.path.join(d, "m%d.py" % i), "w") as f:
                    f.write("X = 1\n")
        with open(os.path.join(root, "probe.py"), "w") as f:
            f.write(_PROBE)
        out = subprocess.run([micropython(), "-X", "heapsize=" + heap, "probe.py"],
                             capture_output=True, text=True, cwd=root, check=True).stdout
        flat, pkg_bytes = (int(x) for x in out.split())
        return flat, pkg_bytes
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main():
    flat, pkg = measure()
    print("## One package level on the heap (64-bit unix port, 112wK)")
    print("$ .venv/bin/python bench/heap_package.py")
    print("three modules flat: %d bytes; in a subpackage: %d; the level: %d bytes"
          % (flat, pkg, pkg - flat))


if __name__ == "__main__":
    main()
