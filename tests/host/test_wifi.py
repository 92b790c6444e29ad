"""The board's Wi-Fi (firmware/nardy/radio.py, docs/NETWORK.md) on the virtual board's
radio (firmware/nardy/vradio.py, ``main.py ... --radio``): the first boot opens the
board's own network with its own password, kept on flash, and the OLED shows the
QR code a phone joins by (decoded by OpenCV); a home network set in the settings is
joined (the OLED then shows the address and the mDNS name), and when it is gone the
board opens its own network again, then goes back to the home one when it returns."""

import json
import os
import subprocess
import threading

from mqttutil import NET_HEAP
from test_qr_oled import _decode, _pixels
from vboard import ROOT, VBoard, micropython


def _board(tmp_path, radio=True, name="vb"):
    b = VBoard(str(tmp_path / name), ("--radio",) if radio else (), heap=NET_HEAP)
    t = threading.Timer(120, b.kill)      # a hang fails the test (no timed assertion)
    t.daemon = True
    t.start()
    return b


def _wifi(b, state):
    """The next ``wifi`` event in ``state`` (earlier ones in other states skipped)."""
    while True:
        ev = b.wait("wifi")
        if ev["state"] == state:
            return ev


def _radio(b, **cmd):
    b.send({"cmd": "radio", **cmd})
    return b.wait("radio")


def _oled_text(b):
    b.send({"cmd": "oled"})
    return _decode(_pixels(b.wait("oled")["fb"]))


def _address_screen(network, address, name):
    """The address screen as the firmware draws it (nardy.radio.draw_address, on unix
    MicroPython into a real framebuf), as hex: what the OLED must show."""
    script = ("import sys, framebuf, binascii; sys.path.insert(0, %r)\n"
              "from nardy.radio import draw_address\n"
              "buf = bytearray(1024); fb = framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB)\n"
              "draw_address(fb, %r, %r, %r); print(binascii.hexlify(buf).decode())\n"
              % (os.path.join(ROOT, "firmware"), network, address, name))
    return subprocess.run([micropython(), "-c", script], capture_output=True, text=True,
                          timeout=60, check=True).stdout.strip()


def _oled(b):
    b.send({"cmd": "oled"})
    return b.wait("oled")["fb"]


def _own(tmp_path, name="vb"):
    return json.loads((tmp_path / name / "wifi.json").read_text())


def test_first_boot_opens_the_boards_own_network(tmp_path):
    b = _board(tmp_path)
    try:
        ev = _wifi(b, "ap")
        own = _own(tmp_path)
        assert ev["ssid"] == own["ssid"] and ev["ssid"].startswith("nardy-")
        assert own["password"] not in json.dumps(ev)     # the password is on the OLED only
        air = _radio(b)
        assert air["mode"] == "ap" and air["ssid"] == own["ssid"]
        assert air["key"] == own["password"]             # the network is the board's own
        # a phone scanning the OLED joins exactly that network
        assert _oled_text(b) == "WIFI:T:WPA;S:%s;P:%s;;" % (own["ssid"], own["password"])
    finally:
        b.close()
    b = _board(tmp_path)                # after a reboot: the same network, same key
    try:
        _wifi(b, "ap")
        assert _radio(b)["key"] == own["password"] == _own(tmp_path)["password"]
    finally:
        b.close()
    other = _board(tmp_path, name="other")      # another board: its own password
    try:
        _wifi(other, "ap")
        assert _own(tmp_path, "other")["password"] != own["password"]
    finally:
        other.close()


def test_a_home_network_is_joined_and_left_for_the_own_one_when_gone(tmp_path):
    b = _board(tmp_path)
    try:
        ap = _wifi(b, "ap")
        _radio(b, networks={"home": "home-pass-1"})
        b.send({"cmd": "set", "radio": {"ssid": "home", "password": "home-pass-1"}})
        shown = b.wait("set")["settings"]["radio"]
        assert shown == {"ssid": "home", "password_set": True}     # never the password
        st = _wifi(b, "station")
        assert st["ssid"] == "home" and st["name"] == ap["ssid"] + ".local"
        air = _radio(b)
        assert air["mode"] == "sta" and air["status"] == "connected"
        assert air["hostname"] == ap["ssid"] and air["address"] == st["address"]
        # the OLED shows the network, the address and the mDNS name (no join code)
        assert _oled(b) == _address_screen("home", st["address"], ap["ssid"])
        assert _oled_text(b) == ""
        # the home network goes away: the board opens its own again, with its code
        _radio(b, networks={})
        back = _wifi(b, "ap")
        assert back["ssid"] == ap["ssid"] and back["why"].startswith("lost")
        assert _radio(b)["mode"] == "ap"
        assert _oled_text(b).startswith("WIFI:T:WPA;S:%s;" % ap["ssid"])
        # ... and goes back to the home network when it is in range again
        _radio(b, networks={"home": "home-pass-1"})
        assert _wifi(b, "station")["ssid"] == "home"
    finally:
        b.close()
    saved = json.loads((tmp_path / "vb" / "settings.json").read_text())
    assert saved["radio"] == {"ssid": "home", "password": "home-pass-1"}


def test_a_wrong_home_password_falls_back_and_says_why(tmp_path):
    b = _board(tmp_path)
    try:
        _wifi(b, "ap")
        _radio(b, networks={"home": "the-right-one"})
        b.send({"cmd": "set", "radio": {"ssid": "home", "password": "a-wrong-one"}})
        ev = _wifi(b, "ap")
        assert ev["why"] == "wrong password"
        b.send({"cmd": "set", "radio": None})        # back to its own network only
        assert "radio" not in b.wait("set")["settings"]
    finally:
        b.close()


def test_the_radio_off_and_bad_settings(tmp_path):
    b = _board(tmp_path)
    try:
        _wifi(b, "ap")
        b.send({"cmd": "set", "radio": False})
        _wifi(b, "off")
        assert _radio(b)["mode"] is None
        for bad in ({"ssid": ""}, {"ssid": "x", "password": "short"}, {"ssid": "x", "k": 1},
                    "home", 3):
            b.send({"cmd": "set", "radio": bad})
            assert "radio" in b.wait("error")["error"]
        assert b.dump()["settings"]["radio"] is False     # the refused lines changed nothing
    finally:
        b.close()
    b = _board(tmp_path)            # off after a reboot too: no wifi event, radio off
    try:
        b.sync()
        assert _radio(b)["mode"] is None
        assert not [e for e in b.events if e["ev"] == "wifi"]
    finally:
        b.close()


def test_a_board_without_a_radio_never_starts_wifi(tmp_path):
    b = _board(tmp_path, radio=False)
    try:
        b.sync()
        b.send({"cmd": "radio"})
        assert "radio" in b.wait("error")["error"]
        assert not [e for e in b.events if e["ev"] == "wifi"]
        assert not (tmp_path / "vb" / "wifi.json").exists()
    finally:
        b.close()


def test_a_bad_home_network_in_settings_json_is_reported_and_dropped(tmp_path):
    data = tmp_path / "vb"
    data.mkdir()
    (data / "settings.json").write_text(json.dumps(
        {"variant": "long", "brightness": 7, "radio": {"ssid": "", "password": "x"}}))
    b = _board(tmp_path)
    try:
        assert _wifi(b, "ap")["ssid"].startswith("nardy-")    # its own network instead
        errors = [e["error"] for e in b.events if e["ev"] == "error"]
        assert any("bad radio" in e and "ssid" in e for e in errors), errors
        s = b.dump()["settings"]
        assert "radio" not in s and s["brightness"] == 7         # the rest is kept
    finally:
        b.close()
