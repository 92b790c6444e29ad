"""The settings checked: whole, as saved (``nardy.protocol.check_settings``), and
the fields of a ``new`` or ``set`` command (``nardy.protocol.parse``). Imported
only while it runs and dropped after (nardy.drop_module), so the code is off the
heap in play.
"""

from micropython import const  # CPython: the shim nardy/__init__.py installs

from nardy.protocol import AUTO_END_MAX, BOT_SIDES, LANGS, VARIANTS, _int, check_options

_DICE_MODES = const(("auto", "manual"))


def _check_bot(obj):
    if obj.get("bot", "none") not in BOT_SIDES:
        raise ValueError('bot must be "none", "white", "black" or "both"')


def check_settings(d):
    """A list of the problems of the settings ``d``, empty when every field has the
    right type and range."""
    if not isinstance(d, dict):
        return ["not an object"]
    bad = []
    if d.get("variant") not in VARIANTS:
        bad.append("variant")
    m = d.get("match")
    if not isinstance(m, int) or isinstance(m, bool) or not 1 <= m <= 99:
        bad.append("match")
    b = d.get("brightness")
    if not isinstance(b, int) or isinstance(b, bool) or not 0 <= b <= 255:
        bad.append("brightness")
    if d.get("dice") not in _DICE_MODES:
        bad.append("dice")
    if d.get("bot", "none") not in BOT_SIDES:
        bad.append("bot")
    a = d.get("auto_end", 0)
    if not isinstance(a, int) or isinstance(a, bool) or not 0 <= a <= AUTO_END_MAX:
        bad.append("auto_end")
    if d.get("lang", "en") not in LANGS:
        bad.append("lang")
    o = d.get("options")
    if not isinstance(o, dict):
        bad.append("options")
    else:
        for v in VARIANTS:
            try:
                check_options(v, o.get(v, {}))
            except ValueError:
                bad.append("options." + v)
        for k in o:
            if k not in VARIANTS:
                bad.append("options")
                break
    return bad


def check_command(obj):
    """``new`` or ``set``'s fields (``nardy.protocol.parse`` checked the names):
    ValueError for the first one out of its type or range."""
    if obj["cmd"] == "new":
        v = obj.get("variant", "long")
        if v not in VARIANTS:
            raise ValueError('variant must be "long" or "short"')
        _int(obj, "match", 1, 99, 1)
        check_options(v, obj.get("options", {}))
        _check_bot(obj)
        return
    if "brightness" in obj:
        _int(obj, "brightness", 0, 255)
    if "dice" in obj and obj["dice"] not in _DICE_MODES:
        raise ValueError('dice must be "auto" or "manual"')
    _check_bot(obj)
    if "auto_end" in obj:
        _int(obj, "auto_end", 0, AUTO_END_MAX)
    if obj.get("lang", "en") not in LANGS:
        raise ValueError('lang must be "en" or "ru"')
    for k in ("oled", "leds"):
        if k in obj and not isinstance(obj[k], bool):
            raise ValueError("%s must be true or false" % k)
