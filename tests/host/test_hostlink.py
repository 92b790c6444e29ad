"""One host link: one error type for every link to a board, one ``micropython()``
finder, one virtual-board launcher, ``UserError`` outside cli.py."""

import ast
import glob
import os
import shutil

import pytest

from nardy_host import cli, errors, link, mpunix, session
from nardy_host.errors import LinkError, UserError

HOST = os.path.dirname(os.path.abspath(cli.__file__))


def test_every_link_raises_the_same_error_type(tmp_path):
    assert link.LinkError is session.LinkError is LinkError
    assert cli.UserError is UserError
    with pytest.raises(LinkError, match="no such port"):
        link.Link(str(tmp_path / "ttyNONE"))
    with pytest.raises(LinkError, match="no virtual board"):
        link.Link("vboard:" + str(tmp_path / "absent"), create=False)
    s = session.SerialLink(str(tmp_path / "ttyNONE"), lambda ev: None)
    with pytest.raises(LinkError, match="cannot open"):
        s.start()


def test_a_virtual_board_that_exits_is_a_link_error(tmp_path):
    ln = link.Link("vboard:" + str(tmp_path / "flash"))
    try:
        assert ln.request({"cmd": "hello"}, "hello")["ev"] == "hello"
        ln.proc.kill()
        ln.proc.wait()
        with pytest.raises(LinkError):
            for _ in range(100):
                ln.read(0.1)
    finally:
        ln.close()


def test_micropython_is_found_or_a_user_error(monkeypatch):
    exe = mpunix.micropython()
    assert os.access(exe, os.X_OK)
    monkeypatch.setattr(shutil, "which", lambda *a, **k: None)
    with pytest.raises(UserError, match="not installed"):
        mpunix.micropython()
    with pytest.raises(UserError, match="not installed"):
        mpunix.virtual_board_cmd("somewhere")


def test_one_launcher_for_every_virtual_board():
    cmd = mpunix.virtual_board_cmd("/tmp/flash", heap="56wK")
    assert cmd[1:4] == ["-X", "heapsize=56wK", mpunix.VLAUNCH]
    # the firmware as a board runs it (compiled by mpy-cross, cached by source hash)
    assert cmd[4:] == [mpunix.compiled_firmware(), "/tmp/flash", mpunix.pinmap_path()]
    assert os.path.exists(os.path.join(cmd[4], "nardy", "app.mpy"))
    assert mpunix.compiled_firmware() == cmd[4]      # built once
    with pytest.raises(UserError):
        mpunix.virtual_board_cmd("")


def test_the_compiled_firmware_holds_the_checkouts_nets_not_a_cached_build(tmp_path):
    # CI's temp folder outlived a checkout: a new short.bin with the same code was
    # served the old build's net from the cache. The cache key covers the weights.
    src = str(tmp_path / "firmware")
    shutil.copytree(mpunix.firmware_dir(), src,
                    ignore=shutil.ignore_patterns("__pycache__", "typings"))
    first = mpunix.compiled_firmware(src)
    net = os.path.join(src, "weights", "long-small.bin")
    with open(net, "ab") as f:
        f.write(b"\0")              # same code, another net
    second = mpunix.compiled_firmware(src)
    assert second != first
    for name in os.listdir(os.path.join(src, "weights")):
        with open(os.path.join(src, "weights", name), "rb") as a, \
                open(os.path.join(second, "weights", name), "rb") as b:
            assert a.read() == b.read(), name
    assert mpunix.compiled_firmware(src) == second       # and still built once


def _imports_of_cli(path):
    with open(path) as f:
        tree = ast.parse(f.read())
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module == "nardy_host.cli"]


NOT_YET = set()      # every command module takes UserError from nardy_host.errors


def test_no_command_module_imports_cli():
    found = {}
    for path in glob.glob(os.path.join(HOST, "*.py")):
        name = os.path.basename(path)
        if name not in NOT_YET and _imports_of_cli(path):
            found[name] = _imports_of_cli(path)
    assert found == {}, found
    assert errors.__doc__ and "LinkError" in errors.__doc__


def test_a_line_to_a_closed_board_is_a_link_error():
    import io
    s = session.SerialLink("/dev/null", lambda ev: None)
    s.ser = io.BytesIO()
    s.send_line('{"cmd": "ping"}')
    assert s.ser.getvalue() == b'{"cmd": "ping"}\n'
    s.ser.close()
    with pytest.raises(LinkError, match="serial port gone"):
        s.send_line('{"cmd": "ping"}')
