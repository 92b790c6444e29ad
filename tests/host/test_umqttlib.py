"""micropython-lib's umqtt.simple for the virtual boards on the network
(``nardy_host.umqttlib``: ``nardy sim --pair`` and the network tests): fetched from
PyPI once, checked against its pinned hash, kept in a cache. Here without a network:
the download is a stand-in, so the bad cases (no network, a changed download, an
archive without the file) are each a clear error that writes nothing."""

import hashlib
import io
import os
import tarfile
import urllib.error

import pytest

from nardy_host import umqttlib
from nardy_host.errors import UserError

FAKE = b"# a stand-in for umqtt/simple.py (tests only)\nclass MQTTClient:\n    pass\n"


def sdist(files):
    """An sdist's bytes holding ``files`` ({path under the top folder: bytes})."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as t:
        for name, data in files.items():
            info = tarfile.TarInfo("micropython-umqtt.simple-1.3.4/" + name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    return buf.getvalue()


class Fetches:
    """A stand-in for the download: gives ``data`` (or raises ``error``), counts."""

    def __init__(self, data=None, error=None):
        self.data, self.error, self.urls = data, error, []

    def __call__(self, url):
        self.urls.append(url)
        if self.error is not None:
            raise self.error
        return self.data


def pin(monkeypatch, data):
    monkeypatch.setattr(umqttlib, "UMQTT_SHA256", hashlib.sha256(data).hexdigest())


def test_no_network_is_a_clear_error_saying_what_to_do(tmp_path):
    dest = str(tmp_path / "cache" / "umqtt")
    fetch = Fetches(error=urllib.error.URLError("[Errno -3] Temporary failure in name "
                                                "resolution"))
    with pytest.raises(UserError) as e:
        umqttlib.umqtt_lib(dest, fetch=fetch)
    text = str(e.value)
    assert fetch.urls == [umqttlib.UMQTT_URL]
    assert "cannot fetch micropython-umqtt.simple 1.3.4" in text
    assert "name resolution" in text                   # why
    assert "internet" in text and "--umqtt DIR" in text and dest in text   # what to do
    assert not os.path.exists(dest)


def test_a_download_that_does_not_match_the_pinned_hash_installs_nothing(tmp_path):
    dest = str(tmp_path / "umqtt")
    data = sdist({"umqtt/simple.py": FAKE})             # not PyPI's file: another hash
    with pytest.raises(UserError) as e:
        umqttlib.umqtt_lib(dest, fetch=Fetches(data))
    text = str(e.value)
    assert "does not match its pinned sha256" in text
    assert umqttlib.UMQTT_SHA256 in text and hashlib.sha256(data).hexdigest() in text
    assert "nothing was installed" in text
    assert not os.path.exists(dest)
    assert os.listdir(tmp_path) == []                  # no half-built folder beside it


def test_an_archive_without_the_client_is_refused(tmp_path, monkeypatch):
    dest = str(tmp_path / "umqtt")
    data = sdist({"umqtt/robust.py": FAKE})
    pin(monkeypatch, data)
    with pytest.raises(UserError, match="has no umqtt/simple.py"):
        umqttlib.umqtt_lib(dest, fetch=Fetches(data))
    garbage = b"not a tar archive at all"
    pin(monkeypatch, garbage)
    with pytest.raises(UserError, match="cannot be read"):
        umqttlib.umqtt_lib(dest, fetch=Fetches(garbage))
    assert os.listdir(tmp_path) == []


def test_the_client_is_fetched_once_compiled_and_kept(tmp_path, monkeypatch):
    dest = str(tmp_path / "cache" / "umqtt.simple")
    data = sdist({"umqtt/__init__.py": b"", "umqtt/simple.py": FAKE})
    pin(monkeypatch, data)
    fetch = Fetches(data)
    assert umqttlib.umqtt_lib(dest, fetch=fetch) == dest
    names = os.listdir(os.path.join(dest, "umqtt"))
    assert names == (["simple.mpy"] if umqttlib.mpy_cross() else ["simple.py"])
    assert umqttlib.has_umqtt(dest)
    # the second time from the cache: no download
    assert umqttlib.umqtt_lib(dest, fetch=Fetches(error=AssertionError("fetched"))) == dest
    assert len(fetch.urls) == 1
    assert os.listdir(os.path.dirname(dest)) == ["umqtt.simple"]   # nothing left beside


def test_the_cache_is_the_users(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert umqttlib.default_dir() == str(tmp_path / "xdg" / "nardy" / "umqtt.simple-1.3.4")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert umqttlib.default_dir() == str(tmp_path / "home" / ".cache" / "nardy" /
                                         "umqtt.simple-1.3.4")


def test_board_env_puts_the_client_beside_asyncio():
    env = umqttlib.board_env("/some/lib", {"PATH": "/bin"})
    assert env == {"PATH": "/bin", "MICROPYPATH": ".frozen:/some/lib"}
