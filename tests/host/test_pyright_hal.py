"""pyright checks the hardware layer against micropython-esp32-stubs.

The config is firmware/pyrightconfig.json; its typeshedPath is pointed at the
site-packages of the running venv (where micropython-stdlib-stubs puts ``stdlib/``),
so the check works wherever the venv lives. pyright's PyPI wrapper uses the
machine's node (PYRIGHT_PYTHON_GLOBAL_NODE) and fetches pyright itself from npm.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FW = os.path.join(ROOT, "firmware")


def _pyright():
    exe = shutil.which("pyright", path=os.path.dirname(sys.executable))
    if exe is None:
        pytest.fail("pyright is missing: pip install -r requirements/test.txt")
    if shutil.which("node") is None:
        pytest.fail("pyright needs node (apt-get install nodejs)")
    return exe


def _config(tmp_path, include):
    with open(os.path.join(FW, "pyrightconfig.json")) as f:
        text = re.sub(r"^\s*//.*$", "", f.read(), flags=re.M)
    cfg = json.loads(text)
    site = sysconfig.get_paths()["purelib"]
    assert os.path.isdir(os.path.join(site, "stdlib")), "micropython-stdlib-stubs missing"
    cfg["typeshedPath"] = site
    cfg["include"] = include
    cfg["stubPath"] = os.path.join(FW, "typings")
    cfg["extraPaths"] = [FW]
    path = tmp_path / "pyrightconfig.json"
    path.write_text(json.dumps(cfg))
    return str(path)


def _run(tmp_path, include):
    env = dict(os.environ, PYRIGHT_PYTHON_GLOBAL_NODE="1")
    # --pythonpath: resolve imports in this venv (where the stubs are), whatever
    # python is first on PATH (CI runs .venv/bin/python without activating the venv)
    r = subprocess.run([_pyright(), "-p", _config(tmp_path, include), "--outputjson",
                        "--pythonpath", sys.executable, *include],
                       capture_output=True, text=True, env=env, timeout=600, cwd=FW)
    try:
        out = json.loads(r.stdout)
    except ValueError:
        pytest.fail("pyright did not run:\n" + r.stdout[-3000:] + r.stderr[-3000:])
    return out


def _hal_files():
    with open(os.path.join(FW, "pyrightconfig.json")) as f:
        text = re.sub(r"^\s*//.*$", "", f.read(), flags=re.M)
    return [os.path.join(FW, p) for p in json.loads(text)["include"]]


def test_hal_is_clean_under_pyright(tmp_path):
    files = _hal_files()
    for p in files:
        assert os.path.exists(p), p
    out = _run(tmp_path, files)
    errs = [d for d in out["generalDiagnostics"] if d["severity"] == "error"]
    assert not errs, "\n".join("%s:%d: %s" % (d["file"], d["range"]["start"]["line"] + 1,
                                              d["message"]) for d in errs)
    assert out["summary"]["filesAnalyzed"] >= len(files)


def test_pyright_sees_the_esp32_api(tmp_path):
    """The check can fail: a call the ESP32's machine module does not have."""
    bad = tmp_path / "bad_hal.py"
    bad.write_text("from machine import ADC, Pin\n"
                   "a = ADC(Pin(1))\n"
                   "a.read_u16()\n"
                   "a.read_volts()\n")
    out = _run(tmp_path, [str(bad)])
    msgs = [d["message"] for d in out["generalDiagnostics"] if d["severity"] == "error"]
    assert len(msgs) == 1 and "read_volts" in msgs[0], msgs
