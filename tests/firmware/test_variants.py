"""The variants registry: one place that names and checks a variant and its options."""

from nardy import protocol, setcheck
from nardy.longnardy import LongNardy
from nardy.shortnardy import ShortNardy
from nardy.variants import NAMES, check_options, find_variant, option_defaults


def _refused(name, options, words):
    try:
        find_variant(name, options)
    except ValueError as e:
        assert words in str(e), str(e)
        return
    raise AssertionError("accepted %r %r" % (name, options))


def test_names_give_their_rules():
    assert isinstance(find_variant("long"), LongNardy)
    assert isinstance(find_variant("short"), ShortNardy)
    assert NAMES == ("long", "short")
    assert option_defaults("short") == {"opening_dice_played": False}


def test_options_are_applied_and_shared():
    v = find_variant("long", {"home_mars": True, "last_roll_draw": False})
    assert v.options["home_mars"] is True and v.options["last_roll_draw"] is False
    assert v is find_variant("long", {"last_roll_draw": False, "home_mars": True})
    assert v is not find_variant("long")
    assert find_variant("long") is find_variant("long", None)


def test_bad_names_and_options_are_refused():
    _refused("chess", {}, "variant must be")
    _refused(None, {}, "variant must be")
    _refused(["long"], {}, "variant must be")
    _refused("long", [1], "options must be an object")
    _refused("short", {"home_mars": True}, "unknown option home_mars for short nardy")
    _refused("long", {"x" * 100: True}, "unknown option " + "x" * 24 + " for")
    # a value that only looks like a boolean is not one (C: never guess the rules)
    for bad in (1, 0, "true", "false", None):
        _refused("short", {"opening_dice_played": bad}, "must be true or false")


def test_protocol_checks_options_the_same_way():
    # the settings' check is the registry's (imported for the call: nardy.setcheck)
    for name, opts in (("long", {"home_mars": True}), ("short", {"home_mars": True}),
                       ("short", {"opening_dice_played": "false"}), ("long", [1])):
        errs = []
        for check in (setcheck.check_options, check_options):
            try:
                check(name, opts)
                errs.append(None)
            except ValueError as e:
                errs.append(str(e))
        assert errs[0] == errs[1], errs
    try:
        protocol.parse('{"cmd": "new", "variant": "short", "options": {"home_mars": true}}')
    except ValueError as e:
        assert "unknown option home_mars" in str(e)
    else:
        raise AssertionError("accepted a long-nardy option for short nardy")
