"""``nardy_host.romfs``'s image, read back by MicroPython's own ``vfs.VfsRom`` (the
unix port, the same C code as the board's): every file whole, and every file's data
at a multiple of 4 from the image's start, whatever the names and sizes before it
(``nardy.netfile`` maps a weights file in place only at an even address)."""

import hashlib
import os
import random
import subprocess
import sys

from nardy_host import romfs

_LIST = """import os, sys, uctypes, vfs, hashlib, binascii
a, n = os.getenv('NARDY_ROMFS').split(':')
vfs.mount(vfs.VfsRom(uctypes.bytearray_at(int(a), int(n))), '/rom')
def walk(d):
    for e in os.ilistdir(d):
        p = d + '/' + e[0]
        if e[1] == 0x4000:
            walk(p)
        else:
            with open(p, 'rb') as f:
                mv = memoryview(f)
                print(p[5:], uctypes.addressof(mv) - int(a),
                      binascii.hexlify(hashlib.sha256(mv).digest()).decode())
walk('/rom')
"""


def _tree(root, rng):
    files = {}
    for d in ("", "nardy", "weights", "a/b"):
        os.makedirs(os.path.join(root, d), exist_ok=True)
        for _ in range(rng.randint(1, 5)):
            name = "".join(rng.choice("abcdefgh-_.") for _ in range(rng.randint(1, 20)))
            data = rng.randbytes(rng.choice((0, 1, 2, 3, rng.randint(4, 300))))
            path = os.path.join(d, "f" + name)
            with open(os.path.join(root, path), "wb") as f:
                f.write(data)
            files[path] = hashlib.sha256(data).hexdigest()
    return files


def _read_back(image):
    r = subprocess.run([sys.executable, "-m", "nardy_host.romfs", "run", image,
                        "-X", "heapsize=56wK", "-c", _LIST],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return {p: (int(at), h) for p, at, h in (ln.split() for ln in r.stdout.split("\n") if ln)}


def test_every_file_is_read_back_whole_and_aligned(tmp_path):
    for seed in range(4):
        src = tmp_path / ("t%d" % seed)
        files = _tree(str(src), random.Random(seed))
        image = str(tmp_path / ("t%d.romfs" % seed))
        size = romfs.build(str(src), image)
        assert size == os.path.getsize(image) and size % 2 == 0
        got = _read_back(image)
        assert {p: h for p, (_, h) in got.items()} == files
        assert all(at % romfs.ALIGN == 0 for at, _ in got.values()), got
    # one byte after an aligned start: a padding record evens the image's length
    one = tmp_path / "one"
    one.mkdir()
    (one / "x").write_bytes(b"\x01")
    romfs.build(str(one), str(tmp_path / "one.romfs"))
    got = _read_back(str(tmp_path / "one.romfs"))
    assert got == {"x": (got["x"][0], hashlib.sha256(b"\x01").hexdigest())}
    assert os.path.getsize(tmp_path / "one.romfs") % 2 == 0


def test_the_firmware_image_maps_the_weights_in_place(tmp_path):
    # the tree nardy deploy --romfs puts on the board: the weights come back whole,
    # each at an aligned offset (with mpremote's tight writer long.bin lay at an odd
    # one once long-small.bin came before it, and a 56wK board could not load it)
    from nardy_host import deploy
    deploy.stage(str(tmp_path / "r"), "esp32s3", arch="x64", romfs=True)
    got = _read_back(_image(tmp_path))
    wdir = os.path.join(deploy.firmware_dir(), "weights")
    for name in os.listdir(wdir):
        with open(os.path.join(wdir, name), "rb") as f:
            assert got["weights/" + name][1] == hashlib.sha256(f.read()).hexdigest()
        assert got["weights/" + name][0] % romfs.ALIGN == 0


def _image(tmp_path):
    image = str(tmp_path / "fw.romfs")
    romfs.build(str(tmp_path / "r" / "rom"), image)
    return image
