"""``nardy flash`` without hardware: the real esptool refuses a file that is not an
ESP image; with a fake esptool the exact command lines, their order, the progress
and the error paths are checked."""

import json
import shlex
import sys

from nardy_host import cli, flash

FAKE = r'''
import json, os, sys
log = os.environ["FAKE_ESPTOOL_LOG"]
with open(log, "a") as f:
    f.write(json.dumps(sys.argv[1:]) + "\n")
fail = os.environ.get("FAKE_ESPTOOL_FAIL", "")
if fail and fail in sys.argv:
    print("A fatal error occurred: Could not open port")
    sys.exit(2)
if "write-flash" in sys.argv:
    for pct in (0, 25, 50, 100):
        print("Writing at 0x%08x [ ] %d.0%% 1000/4000 bytes..." % (pct * 40, pct), end="\r")
    print()
print("ok")
'''


def _image(tmp_path, size=4096):
    fw = tmp_path / "fw.bin"
    fw.write_bytes(b"\xe9" + bytes(size - 1))
    return fw


def _fake(tmp_path, monkeypatch, fail=None):
    script = tmp_path / "fake_esptool.py"
    script.write_text(FAKE)
    log = tmp_path / "calls.jsonl"
    monkeypatch.setenv("NARDY_ESPTOOL", "%s %s" % (shlex.quote(sys.executable),
                                                   shlex.quote(str(script))))
    monkeypatch.setenv("FAKE_ESPTOOL_LOG", str(log))
    if fail:
        monkeypatch.setenv("FAKE_ESPTOOL_FAIL", fail)
    return log


def _calls(log):
    return [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []


def test_command_lines(tmp_path, monkeypatch):
    log = _fake(tmp_path, monkeypatch)
    fw = _image(tmp_path)
    port = tmp_path / "ttyACM0"
    port.write_text("")
    assert cli.main(["flash", "--port", str(port), "--firmware", str(fw)]) == 0
    assert _calls(log) == [
        ["--chip", "esp32s3", "image-info", str(fw)],
        ["--chip", "esp32s3", "--port", str(port), "--baud", "460800", "erase-flash"],
        ["--chip", "esp32s3", "--port", str(port), "--baud", "460800", "write-flash", "-z",
         "0x0", str(fw)],
    ]


def test_classic_esp32_address_and_no_erase(tmp_path, monkeypatch):
    log = _fake(tmp_path, monkeypatch)
    fw = _image(tmp_path)
    port = tmp_path / "ttyUSB0"
    port.write_text("")
    assert cli.main(["flash", "--port", str(port), "--firmware", str(fw), "--chip", "esp32",
                     "--no-erase", "--baud", "115200", "--quiet"]) == 0
    calls = _calls(log)
    assert [c[-3:] for c in calls[1:]] == [["-z", "0x1000", str(fw)]]
    assert "erase-flash" not in sum(calls, [])


def test_progress_parsing(tmp_path, monkeypatch):
    _fake(tmp_path, monkeypatch)

    class Bar:
        n = 0

        def update(self, k):
            self.n += k
    bar = Bar()
    rc, text = flash._stream(flash.esptool() + ["write-flash"], "writing", bar)
    assert rc == 0 and bar.n == 100


def test_not_an_image_real_esptool(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("NARDY_ESPTOOL", raising=False)
    bad = tmp_path / "bad.bin"
    # a first byte that is no image's magic: not 0xE9 (ESP32) nor 0xEA (ESP8266's v2
    # image, which esptool parses further and refuses in other words)
    bad.write_bytes(b"\x00" + b"not an image" * 400)
    rc = cli.main(["flash", "--port", "/dev/null", "--firmware", str(bad), "--quiet"])
    assert rc == 2
    err = capsys.readouterr().err
    assert "not an ESP image" in err and "invalid magic" in err


def test_errors(tmp_path, monkeypatch, capsys):
    log = _fake(tmp_path, monkeypatch)
    assert cli.main(["flash", "--port", "/dev/null", "--firmware",
                     str(tmp_path / "missing.bin")]) == 2
    assert "no such firmware file" in capsys.readouterr().err
    tiny = tmp_path / "tiny.bin"
    tiny.write_bytes(b"\xe9\x00")
    assert cli.main(["flash", "--port", "/dev/null", "--firmware", str(tiny)]) == 2
    assert "too small" in capsys.readouterr().err
    fw = _image(tmp_path)
    assert cli.main(["flash", "--port", str(tmp_path / "ttyNONE"), "--firmware", str(fw),
                     "--quiet"]) == 2
    assert "no such port" in capsys.readouterr().err
    assert _calls(log) == [["--chip", "esp32s3", "image-info", str(fw)]]   # checked only


def test_esptool_failure(tmp_path, monkeypatch, capsys):
    _fake(tmp_path, monkeypatch, fail="erase-flash")
    fw = _image(tmp_path)
    port = tmp_path / "ttyACM0"
    port.write_text("")
    assert cli.main(["flash", "--port", str(port), "--firmware", str(fw), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "esptool erasing failed (exit 2)" in err and "Could not open port" in err
