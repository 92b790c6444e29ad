"""The settings checked: whole, as saved (``nardy.protocol.check_settings``), and
the fields of a ``new`` or ``set`` command (``nardy.protocol.parse``). Imported
only while it runs and dropped after (nardy.drop_module), so the code is off the
heap in play. It never imports its owner back: ``nardy.protocol`` passes what the
menu shares with it (``BOT_SIDES``, ``LANGS``) and its own field check (``int_field``);
what only the checks need lives here.
"""

from micropython import const  # CPython: the shim nardy/__init__.py installs

from nardy import drop_module

_DICE_MODES = const(("auto", "manual"))
_AUTO_END_MAX = const(60000)   # ms: the longest stillness that may end a turn (0: off)
VARIANTS = ("long", "short")     # nardy.variants.NAMES, without importing both games
_GAMES = const(("nardy.variants", "nardy.longnardy", "nardy.shortnardy"))


def check_options(variant, opts):
    """``nardy.variants.check_options``. The registry imports both games: on the
    heap only for this check (56wK has no room to keep the one not in play). The
    module of the game in play stays loaded (``nardy.game.variant_for`` keeps it):
    dropped here, the next import would make its class a second time beside the
    one in play, at ``new`` with the board's player still loaded."""
    import sys
    had = [m for m in _GAMES if m in sys.modules]
    from nardy import variants
    try:
        return variants.check_options(variant, opts)
    finally:
        variants = None
        for m in _GAMES:
            if m not in had:
                drop_module(m)


def _check_bot(obj, sides):
    if obj.get("bot", "none") not in sides:
        raise ValueError('bot must be "none", "white", "black" or "both"')


def check_settings(d, sides, langs):
    """A list of the problems of the settings ``d``, empty when every field has the
    right type and range; ``sides``, ``langs``: the values ``bot`` and ``lang`` may
    take."""
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
    if d.get("bot", "none") not in sides:
        bad.append("bot")
    a = d.get("auto_end", 0)
    if not isinstance(a, int) or isinstance(a, bool) or not 0 <= a <= _AUTO_END_MAX:
        bad.append("auto_end")
    if d.get("lang", "en") not in langs:
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


def check_command(obj, int_field, sides, langs):
    """``new`` or ``set``'s fields (``nardy.protocol.parse`` checked the names):
    ValueError for the first one out of its type or range. ``int_field(obj, key, lo,
    hi, default=None)``: the protocol's integer check; ``sides``, ``langs`` as for
    ``check_settings``."""
    if obj["cmd"] == "new":
        v = obj.get("variant", "long")
        if v not in VARIANTS:
            raise ValueError('variant must be "long" or "short"')
        int_field(obj, "match", 1, 99, 1)
        check_options(v, obj.get("options", {}))
        _check_bot(obj, sides)
        return
    if "brightness" in obj:
        int_field(obj, "brightness", 0, 255)
    if "dice" in obj and obj["dice"] not in _DICE_MODES:
        raise ValueError('dice must be "auto" or "manual"')
    _check_bot(obj, sides)
    if "auto_end" in obj:
        int_field(obj, "auto_end", 0, _AUTO_END_MAX)
    if obj.get("lang", "en") not in langs:
        raise ValueError('lang must be "en" or "ru"')
    for k in ("oled", "leds"):
        if k in obj and not isinstance(obj[k], bool):
            raise ValueError("%s must be true or false" % k)
