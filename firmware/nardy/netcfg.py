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

_FIELDS = const(("host", "port", "user", "password", "prefix", "id", "peer", "side"))
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


def complete(d, urandom):
    """The settings as kept: defaults filled in, an ``id`` made when there is none
    (``urandom(n)``: the board's random bytes)."""
    if d is None:
        return None
    out = {"host": d["host"], "port": d.get("port", 1883),
           "prefix": d.get("prefix") or "nardy"}
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
    replaced by ``"password_set": true``; the saved settings keep it."""
    m = settings.get("mqtt")
    if not m or "password" not in m:
        return settings
    out = dict(settings)
    m = dict(m)
    del m["password"]
    m["password_set"] = True
    out["mqtt"] = m
    return out


def on_set(app, cmd):
    """``set`` with ``mqtt`` (or on a board that has a broker): keep the broker's
    settings (``null``: none; the app then starts the broadcast, or a running one
    follows the new settings by itself). Returns the settings to send."""
    s = app.settings
    if "mqtt" in cmd:
        m = complete(cmd["mqtt"], app.board.urandom)
        if m is None:
            s.pop("mqtt", None)
        else:
            s["mqtt"] = m
    return public(s)
