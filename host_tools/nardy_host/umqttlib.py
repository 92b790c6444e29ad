"""micropython-lib's MQTT client (``umqtt.simple``) for the virtual boards on the
network (``nardy sim --pair``, the network tests): fetched from PyPI once, checked
against its pinned hash, compiled with mpy-cross and kept in the user's cache
(``~/.cache/nardy``, or ``$XDG_CACHE_HOME/nardy``). Never copied into this
repository; on a board ``nardy deploy`` installs it with ``mip``.

PyPI has it as an sdist pip cannot install (no setup.py): the one file we need is
taken out of the archive, as ``mip`` would put it in a board's ``/lib``.
"""

import hashlib
import io
import os
import shutil
import subprocess
import tarfile
import tempfile
import urllib.error
import urllib.request

from nardy_host.errors import UserError
from nardy_host.mpunix import mpy_cross

UMQTT_VERSION = "1.3.4"
UMQTT_URL = ("https://files.pythonhosted.org/packages/bd/cf/697e3418b2f44222b3e848078b1e"
             "33ee76aedca9b6c2430ca1b1aec1ce1d/micropython-umqtt.simple-1.3.4.tar.gz")
UMQTT_SHA256 = "b6a2520239e3992c63a7de9370ee9b3d9d27819a90359c521f1c0f7ccab8d12f"
# The network is meant for the reference ESP32-S3 with PSRAM (docs/NETWORK.md): a
# virtual board on the network runs with a heap that stands for it. At the classic
# ESP32's 112wK a whole broadcasting game fragments the heap until a ``log`` of it
# can fail for want of a 1,280-byte block, and remote play cannot connect at all.
NET_HEAP = "512wK"
FETCH_TIMEOUT_S = 60
WHAT_TO_DO = ("connect this computer to the internet once (it is kept in %s), or put "
              "umqtt/simple.py from micropython-lib in a directory and name it with "
              "--umqtt DIR")


class FetchError(UserError):
    """umqtt.simple could not be had: what went wrong and what to do."""


def cache_dir():
    """The user's cache for nardy: ``$XDG_CACHE_HOME/nardy`` or ``~/.cache/nardy``."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"),
                                                            ".cache")
    return os.path.join(base, "nardy")


def default_dir():
    return os.path.join(cache_dir(), "umqtt.simple-" + UMQTT_VERSION)


def download(url):
    """The bytes at ``url`` (the default ``fetch``)."""
    with urllib.request.urlopen(url, timeout=FETCH_TIMEOUT_S) as r:
        return r.read()


def has_umqtt(lib):
    """Whether ``lib`` (a MICROPYPATH entry) holds umqtt/simple (.mpy or .py)."""
    return any(os.path.isfile(os.path.join(lib, "umqtt", "simple" + ext))
               for ext in (".mpy", ".py"))


def umqtt_lib(dest=None, fetch=download):
    """A directory holding ``umqtt/simple.mpy`` (for MICROPYPATH), fetched into
    ``dest`` (default: the user's cache) unless it is there already. FetchError
    (a UserError, nothing written) when it cannot be fetched or does not match the
    pinned hash."""
    dest = dest or default_dir()
    if has_umqtt(dest):
        return dest
    try:
        data = fetch(UMQTT_URL)
    except (urllib.error.URLError, OSError, ValueError) as e:
        raise FetchError("cannot fetch micropython-umqtt.simple %s from PyPI (%s): %s. "
                         "The virtual boards need it on the network: %s" % (
                             UMQTT_VERSION, getattr(e, "reason", e), UMQTT_URL,
                             WHAT_TO_DO % dest)) from None
    got = hashlib.sha256(data).hexdigest()
    if got != UMQTT_SHA256:
        raise FetchError("the download of micropython-umqtt.simple %s does not match its "
                         "pinned sha256 (%s expected, %s got): nothing was installed. Try "
                         "again later, or %s" % (UMQTT_VERSION, UMQTT_SHA256, got,
                                                 WHAT_TO_DO % dest))
    source = _simple_py(data)
    try:
        _put(dest, source)
    except OSError as e:
        raise FetchError("cannot put umqtt.simple in %s: %s; name another directory with "
                         "--umqtt DIR" % (dest, e)) from None
    return dest


def _put(dest, source):
    """umqtt/simple in ``dest``, built beside it and renamed to it whole: parallel
    runs share it and never see half of it (a rename across filesystems would
    fail)."""
    parent = os.path.dirname(os.path.abspath(dest))
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".umqtt-", dir=parent)
    try:
        _install(tmp, source)
        try:
            os.rename(tmp, dest)        # (replaces an empty ``dest``)
        except OSError:
            if not has_umqtt(dest):     # not another run's: a real failure
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _simple_py(data):
    """umqtt/simple.py out of the sdist's bytes; FetchError when it is not there."""
    try:
        with tarfile.open(fileobj=io.BytesIO(data)) as t:
            for m in t.getmembers():
                if m.isfile() and m.name.endswith("/umqtt/simple.py"):
                    return t.extractfile(m).read()
    except (tarfile.TarError, OSError, EOFError) as e:
        raise FetchError("micropython-umqtt.simple's archive cannot be read: %s" % e) \
            from None
    raise FetchError("micropython-umqtt.simple's archive has no umqtt/simple.py")


def _install(folder, source):
    """umqtt/simple.mpy in ``folder``, compiled by mpy-cross as ``mip`` installs it
    on a board (source would be compiled on the board's heap); the source itself
    where there is no mpy-cross."""
    os.makedirs(os.path.join(folder, "umqtt"))
    py = os.path.join(folder, "umqtt", "simple.py")
    with open(py, "wb") as f:
        f.write(source)
    exe = mpy_cross()
    if not exe:
        return
    r = subprocess.run([exe, "-o", py[:-3] + ".mpy", "-s", "umqtt/simple.py", py],
                       capture_output=True, text=True)
    if r.returncode:
        raise FetchError("mpy-cross failed on umqtt/simple.py: %s" % r.stderr.strip())
    os.remove(py)


def board_env(lib, env=None):
    """The environment of a virtual board on the network: the unix port's own path
    (``.frozen``: asyncio) and ``lib`` holding umqtt."""
    env = dict(os.environ if env is None else env)
    env["MICROPYPATH"] = ".frozen:" + lib
    return env
