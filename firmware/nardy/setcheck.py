"""The saved settings checked whole (``nardy.protocol.check_settings``): imported
only while it runs and dropped after (nardy.drop_module), so the code is off the
heap in play.
"""

from micropython import const  # CPython: the shim nardy/__init__.py installs

from nardy.protocol import AUTO_END_MAX, BOT_SIDES, LANGS, VARIANTS, check_options

_DICE_MODES = const(("auto", "manual"))    # nardy.protocol's (a const: not in its dict)


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
