"""The OLED's "join the board's Wi-Fi" screen (nardy.qr.draw_join) drawn by the
firmware on unix MicroPython into a real framebuf (the SSD1306's MONO_VLSB layout),
then read back pixel by pixel and decoded by a real QR decoder (OpenCV's
QRCodeDetector): a phone pointed at the screen joins the board's network."""

import json
import os
import subprocess

import cv2
import numpy as np
import pytest
from vboard import ROOT, micropython

_SCRIPT = """
import sys, framebuf, os, json, binascii
sys.path.insert(0, %(fw)r)
from nardy import apcred, qr
ssid, pw, why = apcred.credentials(%(data)r, os.urandom)
buf = bytearray(128 * 64 // 8)
fb = framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB)
code = qr.draw_join(fb, ssid, pw)
print(json.dumps({"ssid": ssid, "password": pw, "version": code.version,
                  "oled": binascii.hexlify(buf).decode()}))
"""


def _board_screen(data):
    out = subprocess.run([micropython(), "-X", "heapsize=112wK", "-c", _SCRIPT % {
        "fw": os.path.join(ROOT, "firmware"), "data": str(data)}],
        capture_output=True, text=True, timeout=60, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def _pixels(hexbuf):
    """128 x 64 lit pixels of a MONO_VLSB buffer (a byte: 8 rows of one column)."""
    buf = bytes.fromhex(hexbuf)
    img = np.zeros((64, 128), np.uint8)
    for page in range(8):
        for x in range(128):
            b = buf[page * 128 + x]
            for bit in range(8):
                if b >> bit & 1:
                    img[page * 8 + bit, x] = 255
    return img


def _decode(img):
    # as a camera sees the panel: bigger, the dark glass around it
    big = cv2.resize(img, (128 * 6, 64 * 6), interpolation=cv2.INTER_NEAREST)
    big = cv2.copyMakeBorder(big, 24, 24, 24, 24, cv2.BORDER_CONSTANT, value=0)
    # OpenCV's ArUco-based detector: its classic QRCodeDetector misses codes with
    # mask 2 (vertical stripes) that it and phones read
    text, _, _ = cv2.QRCodeDetectorAruco().detectAndDecode(big)
    return text


@pytest.mark.parametrize("board", range(6))
def test_a_phone_reads_the_boards_wifi_from_the_oled(tmp_path, board):
    data = tmp_path / ("b%d" % board)
    data.mkdir()
    s = _board_screen(data)
    assert s["version"] == 3
    text = _decode(_pixels(s["oled"]))
    assert text == "WIFI:T:WPA;S:%s;P:%s;;" % (s["ssid"], s["password"])
    # the password is the board's own, kept on flash, and drawn again the same
    assert json.loads((data / "wifi.json").read_text())["password"] == s["password"]
    again = _board_screen(data)
    assert again["oled"] == s["oled"]


def test_two_boards_never_share_a_password(tmp_path):
    seen = set()
    for i in range(3):
        d = tmp_path / ("p%d" % i)
        d.mkdir()
        seen.add(_board_screen(d)["password"])
    assert len(seen) == 3
