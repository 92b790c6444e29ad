"""The board's own Wi-Fi access point: its name and password, made once per board
from its random numbers and kept on flash (``wifi.json`` in the data directory),
never a constant in the code (docs/NETWORK.md).

Layer: journal/protocol (a small file on flash, like settings.json). Imported only
when the access point is shown or started; dropped after.
"""

import json

from micropython import const  # CPython: the shim nardy/__init__.py installs

# no 0/O, 1/l/I: the password is also read off the OLED and typed by hand
ALPHABET = const("abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789")
_PASSWORD_LEN = const(12)       # 12 of 57 symbols: about 70 bits
_FILE_MAX = const(512)


def _valid(d):
    if not isinstance(d, dict):
        return False
    s = d.get("ssid")
    p = d.get("password")
    if not isinstance(s, str) or not isinstance(p, str):
        return False
    # WPA2: 8..63 characters; the name as made below
    return s.startswith("nardy-") and 7 <= len(s) <= 32 and 8 <= len(p) <= 63


def _random_text(urandom, n):
    out = ""
    k = len(ALPHABET)
    while len(out) < n:
        for b in urandom(n):
            if b < 256 - 256 % k:           # no bias toward the first symbols
                out += ALPHABET[b % k]
                if len(out) == n:
                    break
    return out


def credentials(data_dir, urandom):
    """(ssid, password, problem): read from ``wifi.json``, or made and saved when
    there is none. A file that cannot be used is set aside (``wifi.json.bad``) and
    a new one made: ``problem`` says so (the OLED then shows the new password)."""
    import os
    path = data_dir + "/wifi.json"
    problem = None
    try:
        if os.stat(path)[6] > _FILE_MAX:
            raise ValueError("too big")
        with open(path) as f:
            d = json.loads(f.read())
        if _valid(d):
            return d["ssid"], d["password"], None
        raise ValueError("not a name and a password")
    except OSError as e:
        if e.args and e.args[0] != 2:       # ENOENT: the first boot, no problem
            problem = "wifi.json unreadable: %s" % e
    except (ValueError, UnicodeError) as e:
        problem = "wifi.json unusable: %s" % e
    if problem is not None:
        try:
            os.rename(path, path + ".bad")
            problem += " (set aside as wifi.json.bad)"
        except OSError:
            pass
    ssid = "nardy-" + "".join("%02x" % b for b in urandom(2))
    password = _random_text(urandom, _PASSWORD_LEN)
    with open(path + ".tmp", "w") as f:
        f.write(json.dumps({"ssid": ssid, "password": password}))
    os.rename(path + ".tmp", path)
    return ssid, password, problem


def password(data_dir):
    """The board's own password (the owner's, for its web page), or None before
    the first boot made it. Makes nothing."""
    try:
        with open(data_dir + "/wifi.json") as f:
            d = json.loads(f.read())
    except (OSError, ValueError):
        return None
    return d["password"] if _valid(d) else None
