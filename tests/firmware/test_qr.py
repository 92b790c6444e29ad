"""Our QR encoder (nardy.qr) and the board's access-point credentials
(nardy.apcred). The host test tests/host/test_qr_oled.py decodes the OLED's pixels
with OpenCV; these check the code's structure from the standard (ISO/IEC 18004)."""

import os
import random

from nardy import apcred, qr


def _finder_at(c, r0, c0):
    for r in range(7):
        for k in range(7):
            ring = max(abs(r - 3), abs(k - 3))
            if c.dark(r0 + r, c0 + k) != (ring != 2):
                return False
    return True


def _format_bits(c):
    """The 15 format bits as read from the copy around the top-left finder."""
    n = 0
    places = [(i, 8) for i in range(6)] + [(7, 8), (8, 8), (8, 7)] + \
        [(8, 14 - i) for i in range(9, 15)]
    for i, (r, k) in enumerate(places):
        n |= c.dark(r, k) << i
    return n


def test_versions_and_capacity():
    assert qr.Code("a" * 17).version == 1 and qr.Code("a" * 18).version == 2
    assert qr.Code("a" * 53).version == 3 and qr.Code("a" * 78).version == 4
    try:
        qr.Code("a" * 79)
    except ValueError as e:
        assert "78 bytes" in str(e)
    else:
        raise AssertionError("79 bytes accepted")


def test_finders_timing_and_the_dark_module():
    for text in ("x", "a" * 30, "a" * 60):
        c = qr.Code(text)
        n = c.size
        assert n == 17 + 4 * c.version
        assert _finder_at(c, 0, 0) and _finder_at(c, 0, n - 7) and _finder_at(c, n - 7, 0)
        assert [c.dark(6, i) for i in range(8, n - 8)] == [
            1 - (i % 2) for i in range(8, n - 8)]
        assert c.dark(n - 8, 8) == 1


def test_format_bits_match_the_standard_table():
    # ISO/IEC 18004 table C.1, level L, masks 0..7 (bit 14 first)
    table = ["111011111000100", "111001011110011", "111110110101010",
             "111100010011101", "110011000101111", "110001100011000",
             "110110001000001", "110100101110110"]
    for mask in range(8):
        c = qr.Code("nardy", mask)
        assert _format_bits(c) == int(table[mask], 2), mask
        # the second copy says the same
        n = c.size
        second = 0
        for i in range(8):
            second |= c.dark(8, n - 1 - i) << i
        for i in range(8, 15):
            second |= c.dark(n - 15 + i, 8) << i
        assert second == _format_bits(c)


def test_error_correction_is_a_reed_solomon_codeword():
    # every codeword of an RS code has the generator's roots a^0..a^(n-1)
    exp, log = qr._gf_tables()
    random.seed(7)
    rng = random
    for _ in range(20):
        k = rng.randrange(1, 40)
        n = rng.choice((7, 10, 15, 20))
        data = bytes(rng.randrange(256) for _ in range(k))
        word = data + bytes(qr._ec(data, n, exp, log))
        for i in range(n):
            s = 0
            for b in word:
                s = (exp[log[s] + i] if s else 0) ^ b
            assert s == 0, (data, n, i)


def test_the_mask_with_the_lowest_penalty_is_chosen():
    text = "WIFI:T:WPA;S:nardy-3fa2;P:Xk3v9QpL2mZr;;"
    best = qr.Code(text)
    for mask in range(8):
        assert best.penalty() <= qr.Code(text, mask).penalty()


def test_wifi_text_escapes():
    assert qr.wifi_text("a;b", 'p:"\\') == 'WIFI:T:WPA;S:a\\;b;P:p\\:\\"\\\\;;'


def _dir(name):
    d = "/tmp/nardy-apcred-%s-%d" % (name, random.getrandbits(30))
    os.mkdir(d)
    return d


def _rm(d):
    for n in os.listdir(d):
        os.remove(d + "/" + n)
    os.rmdir(d)


def test_each_board_makes_its_own_password_once():
    a = _dir("a")
    b = _dir("b")
    try:
        sa, pa, why = apcred.credentials(a, os.urandom)
        assert why is None and sa.startswith("nardy-") and len(pa) == 12
        assert all(ch in apcred.ALPHABET for ch in pa)
        assert apcred.credentials(a, os.urandom) == (sa, pa, None)    # kept
        sb, pb, _ = apcred.credentials(b, os.urandom)
        assert pb != pa                 # random per board, not a constant
    finally:
        _rm(a)
        _rm(b)


def test_a_damaged_file_is_set_aside_and_replaced():
    d = _dir("bad")
    try:
        with open(d + "/wifi.json", "w") as f:
            f.write('{"ssid": "nardy-1", "password": "short"}')
        s, p, why = apcred.credentials(d, os.urandom)
        assert "set aside" in why and len(p) == 12
        assert "wifi.json.bad" in os.listdir(d)
        assert apcred.credentials(d, os.urandom) == (s, p, None)
    finally:
        _rm(d)
