"""The broker's settings (``mqtt`` in settings.json, the ``set`` command), checked,
and the settings as the board shows them (never with the password).

Layer: journal/protocol (like ``nardy.setcheck``). Imported only while a ``set`` is
checked or applied, settings.json is read at boot, or settings are sent (``dump``,
``set``'s reply) with a broker configured; dropped after. A board without a broker
never loads it.

``{"host": "192.168.1.5", "port": 1883, "user": "board7", "password": "...",
"prefix": "nardy", "id": "nardy-3fa2"}``: ``host`` is required; ``port`` 1883,
``prefix`` "nardy" and no login by default; ``id`` (the board's name on the broker,
its topic ``<prefix>/<id>/...``) is made once from the board's random numbers when
``set`` gives none. ``"mqtt": null`` turns the broadcast off. ``"peer": "nardy-77c1",
"side": "white"``: remote play against that board, this board's player has white.
"""

from micropython import const  # CPython: the shim nardy/__init__.py installs

_FIELDS = const(("host", "port", "user", "password", "prefix", "id", "tls", "peer",
                   "side"))
_TLS_PORT = const(8883)         # MQTT over TLS (IANA): "tls" defaults to true there
_TEXT_MAX = const(64)           # bytes of a host, user or password
_PREFIX_MAX = const(32)
_ID_MAX = const(23)             # MQTT 3.1.1's longest client id every broker takes
_ID_CHARS = const("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")


def _text(d, key, most, required=False):
    v = d.get(key)
    if v is None and not required:
        return
    if not isinstance(v, str) or not 0 < len(v.encode()) <= most:
        raise ValueError("mqtt %s must be a text of 1..%d bytes" % (key, most))
    for c in v:
        if ord(c) < 33 or ord(c) == 127:
            raise ValueError("mqtt %s: no spaces or control characters" % key)


def check(d):
    """ValueError for the first field of a broker's settings out of its type or
    range (``None``: no broker, fine)."""
    if d is None:
        return
    if not isinstance(d, dict):
        raise ValueError("mqtt must be an object or null")
    for k in d:
        if k not in _FIELDS:
            raise ValueError("mqtt: unknown field %s" % str(k)[:24])
    _text(d, "host", _TEXT_MAX, True)
    p = d.get("port", 1883)
    if not isinstance(p, int) or isinstance(p, bool) or not 1 <= p <= 65535:
        raise ValueError("mqtt port must be an integer 1..65535")
    _text(d, "user", _TEXT_MAX)
    _text(d, "password", _TEXT_MAX)
    if d.get("password") is not None and d.get("user") is None:
        raise ValueError("mqtt password needs a user")
    t = d.get("tls")
    if t is not None and not isinstance(t, bool):
        raise ValueError("mqtt tls must be true or false")
    _text(d, "prefix", _PREFIX_MAX)
    pre = d.get("prefix")
    if pre is not None and ("+" in pre or "#" in pre or pre[0] == "/" or pre[-1] == "/"):
        raise ValueError("mqtt prefix: no + or #, no / at either end")
    _name(d, "id")
    _check_peer(d)


def _name(d, key):
    i = d.get(key)
    if i is not None:
        if not isinstance(i, str) or not 0 < len(i) <= _ID_MAX:
            raise ValueError("mqtt %s must be a text of 1..%d characters" % (key, _ID_MAX))
        for c in i:
            if c not in _ID_CHARS:
                raise ValueError("mqtt %s: letters, digits, - and _ only" % key)


def _check_peer(d):
    """Remote play (docs/NETWORK.md "Remote play"): ``peer``, the other board's id,
    and ``side``, the colour this board's player has (the peer's player has the
    other)."""
    _name(d, "peer")
    p = d.get("peer")
    s = d.get("side")
    if (p is None) != (s is None):
        raise ValueError("mqtt peer and side go together")
    if s is not None and s not in ("white", "black"):
        raise ValueError('mqtt side must be "white" or "black"')
    if p is not None and p == d.get("id"):
        raise ValueError("mqtt peer must be another board's id")


_SSID_MAX = const(32)           # bytes of a Wi-Fi network's name (802.11)


def check_wifi(d):
    """``radio``: ``null`` (the board's own access point, the default), ``false``
    (the radio off) or a home network ``{"ssid": "...", "password": "..."}`` the
    board joins, falling back to its own access point when it is gone
    (``nardy.radio``). ValueError for the first thing wrong."""
    if d is None or d is False:
        return
    if not isinstance(d, dict):
        raise ValueError("radio must be an object, false or null")
    for k in d:
        if k not in ("ssid", "password"):
            raise ValueError("radio: unknown field %s" % str(k)[:24])
    v = d.get("ssid")
    if not isinstance(v, str) or not 0 < len(v.encode()) <= _SSID_MAX:
        raise ValueError("radio ssid must be a text of 1..%d bytes" % _SSID_MAX)
    p = d.get("password")
    if p is not None and (not isinstance(p, str) or not 8 <= len(p) <= 63):
        raise ValueError("radio password must be a text of 8..63 characters (WPA2)")
    for t in (v, p or ""):
        for c in t:
            if ord(c) < 32 or ord(c) == 127:
                raise ValueError("radio: no control characters")


def settings(app, d, merged):
    """settings.json's ``mqtt`` and ``radio`` (``d``) into ``merged`` when they check
    (``nardy.appboot``); a bad one is reported and left out (no broker; the board's
    own access point)."""
    if d.get("mqtt") is not None:
        try:
            check(d["mqtt"])
            merged["mqtt"] = d["mqtt"]
        except ValueError as e:
            app.problems.append("settings.json: bad mqtt (%s): no broker" % e)
    if d.get("radio") is not None:
        try:
            check_wifi(d["radio"])
            merged["radio"] = d["radio"]
        except ValueError as e:
            app.problems.append("settings.json: bad radio (%s): own access point" % e)


def check_settings(obj):
    """The network settings a ``set`` names (``mqtt``, ``radio``): ValueError for the
    first one wrong."""
    if "mqtt" in obj:
        check(obj["mqtt"])
    if "radio" in obj:
        check_wifi(obj["radio"])


def complete(d, urandom):
    """The settings as kept: defaults filled in, an ``id`` made when there is none
    (``urandom(n)``: the board's random bytes)."""
    if d is None:
        return None
    port = d.get("port", 1883)
    out = {"host": d["host"], "port": port, "prefix": d.get("prefix") or "nardy"}
    tls = d.get("tls")
    if tls or (tls is None and port == _TLS_PORT):
        out["tls"] = True
    for k in ("user", "password"):
        if d.get(k) is not None:
            out[k] = d[k]
    i = d.get("id")
    if i is None:
        i = "nardy-" + "".join("%02x" % b for b in urandom(2))
    out["id"] = i
    if d.get("peer") is not None:
        out["peer"] = d["peer"]
        out["side"] = d["side"]
    return out


def public(settings):
    """The settings to send (``dump``, ``set``'s reply): the broker's password is
    and the home network's are replaced by ``"password_set": true``; the saved
    settings keep them."""
    out = settings
    for k in ("mqtt", "radio"):      # the broker's and the home network's password
        m = settings.get(k)
        if not m or "password" not in m:
            continue
        if out is settings:
            out = dict(settings)
        m = dict(m)
        del m["password"]
        m["password_set"] = True
        out[k] = m
    return out


def on_set(app, cmd):
    """``set`` with ``mqtt`` or ``radio`` (or on a board that has either): keep the
    broker's settings (``null``: none; the app then starts the broadcast, or a running one
    follows the new settings by itself). Returns the settings to send."""
    s = app.settings
    if "mqtt" in cmd:
        m = complete(cmd["mqtt"], app.board.urandom)
        if m is None:
            s.pop("mqtt", None)
        else:
            s["mqtt"] = m
    if "radio" in cmd:
        if cmd["radio"] is None:
            s.pop("radio", None)        # the board's own access point (the default)
        else:
            s["radio"] = cmd["radio"]
    return public(s)
