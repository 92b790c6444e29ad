"""``nardy deploy`` end to end against a unix-MicroPython "device" on a pty: mpremote
copies the compiled firmware, installs ssd1306 from a local mip index (offline: a
fake driver written here), writes the pin map and calibration; then mpremote itself
checks that the files landed and that the firmware imports on the device."""

import hashlib
import json
import os
import pty
import subprocess
import sys
import tty

import pytest
from vboard import micropython

from nardy_host import cli, deploy

FAKE_SSD1306 = b"""# a stand-in for micropython-lib's ssd1306 (tests only)
class SSD1306_I2C:
    fake = True
"""


FAKE_UMQTT = b"""# a stand-in for micropython-lib's umqtt.simple (tests only)
class MQTTClient:
    fake = True
"""


def _local_index(path):
    for name, target, body in (("ssd1306", "ssd1306.py", FAKE_SSD1306),
                               ("umqtt.simple", "umqtt/simple.py", FAKE_UMQTT)):
        h = hashlib.sha256(body).hexdigest()[:8]
        (path / "file" / h[:2]).mkdir(parents=True, exist_ok=True)
        (path / "file" / h[:2] / h).write_bytes(body)
        pkg = path / "package" / "py" / name
        pkg.mkdir(parents=True)
        (pkg / "latest.json").write_text(json.dumps(
            {"hashes": [[target, h]], "deps": [], "version": "0.1"}))
    return path


@pytest.fixture
def device(tmp_path):
    """unix MicroPython's REPL on a pty; yields the port path."""
    master, slave = pty.openpty()
    # raw at once: a cooked pty echoes the device's own output ("OK") back into its
    # input until the host opens the port, which garbles the first commands
    tty.setraw(slave)
    p = subprocess.Popen([micropython(), "-X", "heapsize=2048wK", "-i"], stdin=master,
                         stdout=master, stderr=master, cwd=str(tmp_path))
    port = os.ttyname(slave)
    os.close(master)
    try:
        yield port
    finally:
        p.kill()
        p.wait()
        os.close(slave)


def _mp(port, *args):
    r = subprocess.run(deploy._mpremote() + ["connect", port, "resume", *args],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_deploy_to_pty_device(tmp_path, device):
    root = tmp_path / "dev"
    root.mkdir()
    cal = tmp_path / "calib.json"
    cal.write_text(json.dumps({"v": 1, "n": 128, "hysteresis": 12, "channels": {},
                               "dead": [5]}))
    # x64: rules.py has @micropython.native code, which only imports on the device's
    # own architecture (the default xtensawin is checked in test_stage_xtensawin)
    assert cli.main(["deploy", "--port", device, "--root", str(root), "--resume",
                     "--arch", "x64", "--mip-index", str(_local_index(tmp_path / "idx")),
                     "--calibration", str(cal), "--no-reset", "--quiet"]) == 0
    listing = _mp(device, "fs", "ls", ":" + str(root / "nardy"))
    assert "rules.mpy" in listing and "app.mpy" in listing
    assert "main.py" in _mp(device, "fs", "ls", ":" + str(root))
    assert json.loads(_mp(device, "fs", "cat", ":" + str(root / "data" / "calib.json"))) \
        == json.loads(cal.read_text())
    check = ("import sys\nsys.path.insert(0, %r)\nsys.path.insert(0, %r)\n"
             "import ssd1306, nardy.app, nardy.hal_esp32, nardy.pinmap, nardy.rules\n"
             "print(nardy.rules.__file__, ssd1306.SSD1306_I2C.fake)\n"
             "from umqtt.simple import MQTTClient\nprint('umqtt', MQTTClient.fake)\n"
             "pm = nardy.pinmap.load(%r)\nprint(pm.name, pm.layout.n)\n"
             "compile(open(%r).read(), 'main.py', 'exec')\nprint('main ok')\n"
             % (str(root / "lib"), str(root), str(root / "pinmap.json"),
                str(root / "main.py")))
    out = _mp(device, "exec", check)
    assert "rules.mpy True" in out and "umqtt True" in out, out
    assert "esp32s3 128" in out and "main ok" in out
    # the same files on the host: nothing else, nothing missing
    assert sorted(os.listdir(root / "nardy")) == sorted(
        n[:-3] + ".mpy" for n in os.listdir(os.path.join(deploy.firmware_dir(), "nardy"))
        if n.endswith(".py"))


def test_stage_xtensawin_and_source(tmp_path):
    files = deploy.stage(str(tmp_path / "a"), "esp32")
    assert ("nardy/rules.mpy", "nardy/rules.mpy") in files
    data = (tmp_path / "a" / "nardy" / "rules.mpy").read_bytes()
    assert data[0:1] == b"M" and (data[2] >> 2) == 10   # MP_NATIVE_ARCH_XTENSAWIN
    pm = json.loads((tmp_path / "a" / "pinmap.json").read_text())
    assert pm["name"] == "esp32"
    files = deploy.stage(str(tmp_path / "b"), "esp32s3", source=True)
    assert ("nardy/rules.py", "nardy/rules.py") in files
    # the board player's weights go along, byte for byte
    for name in ("long.bin", "long-small.bin", "short.bin", "short-small.bin"):
        assert ("weights/" + name, "weights/" + name) in files
        with open(os.path.join(deploy.firmware_dir(), "weights", name), "rb") as f:
            assert (tmp_path / "b" / "weights" / name).read_bytes() == f.read()


def _mpy_source_name(data):
    """The source name an .mpy (version 6) carries: the first entry of its qstr
    table (after the 4-byte header and the table's two counts)."""
    def uint(i):
        n = 0
        while True:
            c = data[i]
            i += 1
            n = (n << 7) | (c & 0x7F)
            if not c & 0x80:
                return n, i
    _, i = uint(4)
    _, i = uint(i)
    n, i = uint(i)
    assert not n & 1, "a static qstr"
    return data[i:i + (n >> 1)].decode()


def test_each_module_carries_its_own_name_as_its_source(tmp_path):
    # mpy-cross -s: the source name is interned on the board for good; the module's
    # name is interned by its import anyway, so naming the source after it costs no
    # name of its own (``nardy/rules.py`` cost one a module: about 50 of the 1,260 a
    # 56wK board's qstr pools hold; test_soak's names test)
    deploy.stage(str(tmp_path / "a"), "esp32")
    pkg = tmp_path / "a" / "nardy"
    names = {n: _mpy_source_name((pkg / n).read_bytes()) for n in os.listdir(pkg)}
    assert names["rules.mpy"] == "nardy.rules"
    assert names["__init__.mpy"] == "nardy"
    assert all(v == "nardy." + n[:-4] for n, v in names.items() if n != "__init__.mpy"), names
    assert len(names) == len([n for n in os.listdir(os.path.join(deploy.firmware_dir(), "nardy"))
                              if n.endswith(".py")])


def _imports(path):
    import ast
    with open(path) as f:
        tree = ast.parse(f.read())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(node.module + "." + a.name for a in node.names)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    return names


def test_the_board_gets_the_firmware_package_as_it_is(tmp_path):
    # deploy copies firmware/nardy whole: the host-only code (the magnetic model, the
    # move service) lives in host_tools/nardy_host, which no deployed module imports
    files = deploy.stage(str(tmp_path / "out"), "esp32s3", source=True)
    deployed = {r for _, r in files}
    fw = os.path.join(deploy.firmware_dir(), "nardy")
    assert {r for r in deployed if r.startswith("nardy/")} == {
        "nardy/" + n for n in os.listdir(fw) if n.endswith(".py")}
    for remote in deployed:
        if remote.endswith(".py"):
            used = _imports(str(tmp_path / "out" / remote))
            assert not [m for m in used if m.split(".")[0] == "nardy_host"], remote


def test_stage_romfs_keeps_the_package_out_of_the_copy_list(tmp_path):
    from nardy_host import romfs
    files = deploy.stage(str(tmp_path / "r"), "esp32s3", arch="x64", romfs=True)
    assert not [f for f in files if f[1].startswith(("nardy/", "weights/"))]
    assert sorted(os.listdir(tmp_path / "r" / "rom" / "weights")) == [
        "long-small.bin", "long.bin", "short-small.bin", "short.bin"]
    assert ("main.py", "main.py") in files and ("pinmap.json", "pinmap.json") in files
    names = sorted(os.listdir(tmp_path / "r" / "rom" / "nardy"))
    assert names == sorted(n[:-3] + ".mpy" for n in os.listdir(
        os.path.join(deploy.firmware_dir(), "nardy"))
        if n.endswith(".py"))
    # the tree is a valid ROMFS image, which the unix port mounts and imports from
    img = tmp_path / "fw.romfs"
    assert romfs.build(str(tmp_path / "r" / "rom"), str(img)) > 10000
    r = subprocess.run([sys.executable, "-m", "nardy_host.romfs", "run", str(img),
                        "-X", "heapsize=56wK", "-c",
                        "import os, sys, uctypes, vfs\n"
                        "a, n = os.getenv('NARDY_ROMFS').split(':')\n"
                        "vfs.mount(vfs.VfsRom(uctypes.bytearray_at(int(a), int(n))), '/rom')\n"
                        "sys.path.insert(0, '/rom')\n"
                        "import nardy.app, nardy.rules\nprint(nardy.rules.__file__)\n"
                        "from nardy import botplay\nfrom nardy.evaluate import Net\n"
                        "p = botplay.weights_path('short')\n"
                        "print(p, Net(p, 'short').hidden > 0)\n"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[:2] == ["/rom/nardy/rules.mpy", "/rom/weights/short.bin True"]
    with pytest.raises(cli.UserError, match="--romfs"):
        deploy.stage(str(tmp_path / "s"), "esp32s3", source=True, romfs=True)


def test_deploy_romfs_to_a_port_without_romfs_changes_nothing(tmp_path, device):
    # unix MicroPython has no ROMFS partition: a clear error, and the step that would
    # copy or delete files never ran
    root = tmp_path / "dev"
    (root / "nardy").mkdir(parents=True)
    (root / "nardy" / "keep.mpy").write_bytes(b"M")
    # the message names the image's size: a partition too small for it (MicroPython's
    # stock 4 MiB layout has 128 KB) fails at the same step
    with pytest.raises(cli.UserError, match=r"romfs deploy of a \d{3} KB image .*holds it"):
        deploy.run(deploy.argparse.Namespace(
            port=device, board="esp32s3", arch="x64", source=False, romfs=True,
            calibration=None, root=str(root), resume=True, no_mip=True, mip_index=None,
            no_reset=True, quiet=True))
    assert (root / "nardy" / "keep.mpy").exists()
    assert not (root / "main.py").exists()
