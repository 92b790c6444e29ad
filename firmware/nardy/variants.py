"""The variants by name: one place that turns ``"long"``/``"short"`` and a dict of
RULES.md option flags into a rules object (as python-chess's ``find_variant``).

The game, the settings menu, the JSON move service and the host tools all ask here,
so a name or an option is checked the same way everywhere. A variant is built once
per distinct (name, options) and shared: a rules object holds only tables.

>>> find_variant("short").name
'short'
>>> find_variant("long", {"home_mars": True}).options["home_mars"]
True
>>> find_variant("long") is find_variant("long", {})
True
>>> find_variant("long", {"mars": True})
Traceback (most recent call last):
ValueError: unknown option mars for long nardy
>>> find_variant("short", {"opening_dice_played": 1})
Traceback (most recent call last):
ValueError: option opening_dice_played must be true or false
"""

from nardy.longnardy import LongNardy
from nardy.shortnardy import ShortNardy

VARIANTS = {"long": LongNardy, "short": ShortNardy}
NAMES = ("long", "short")
_cache = {}


def find_variant(name, options=None):
    """The rules object for variant ``name`` with ``options`` (option name -> bool).
    ValueError names the first thing wrong: the variant, an unknown option, a
    value that is not a boolean."""
    cls = VARIANTS.get(name) if isinstance(name, str) else None
    if cls is None:
        raise ValueError('variant must be "long" or "short"')
    if options is None:
        options = {}
    check_options(name, options)
    key = name + repr(sorted(options.items()))
    v = _cache.get(key)
    if v is None:
        v = cls(**options)
        _cache[key] = v
    return v


def check_options(name, opts):
    """Rule options for variant ``name``: an object of its known option names, each
    true or false (``"false"`` and 0 are not false). Returns ``opts`` or raises
    ValueError (a name from a hostile line is cut to 24 characters)."""
    if not isinstance(opts, dict):
        raise ValueError("options must be an object")
    known = VARIANTS[name].OPTIONS
    for k in opts:
        if k not in known:
            raise ValueError("unknown option %s for %s nardy" % (str(k)[:24], name))
        if not isinstance(opts[k], bool):
            raise ValueError("option %s must be true or false" % k)
    return opts


def option_defaults(name):
    """Variant ``name``'s options with their defaults (name -> bool)."""
    return VARIANTS[name].OPTIONS
