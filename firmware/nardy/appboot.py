"""Boot: the files read once at boot (settings.json, calib.json) and the journal's
first look (resume the unfinished game, or restore the match). Used by ``App`` while
it starts, then dropped from the heap (``nardy.drop_module``): 56wK has no room for
code that never runs again.

Every file is size-capped and checked; one that cannot be used is reported (the
app's ``problems``, then an ``error`` event, errors.log and the OLED) and set aside
(renamed ``.bad``), and the board goes on with defaults.
"""

import gc
import json

from micropython import const  # CPython: the shim nardy/__init__.py installs

from nardy import drop_module, protocol
from nardy.journal import Journal, file_size

_SETTINGS_MAX = const(2048)       # bytes: settings.json is ~150
_CALIB_MAX = const(32768)         # bytes: calib.json with every channel's levels is ~12 KB


def set_aside(app, path, why):
    """A file the board cannot use: keep it under a new name, say so."""
    import os
    try:
        aside = Journal.set_aside_name(path)
        os.rename(path, aside)
        why = "%s (set aside as %s)" % (why, aside.rsplit("/", 1)[-1])
    except OSError:
        pass
    app.problems.append(why)


def read_small(app, name, cap):
    """A small JSON file's object, or None (missing, or reported and set
    aside: too big, a directory, not UTF-8, not JSON)."""
    path = app.dir + "/" + name
    n = file_size(path)
    if n == -1:
        return None
    try:
        if n == -2:
            raise ValueError("a directory")
        if n > cap:
            raise ValueError("%d bytes, more than %d" % (n, cap))
        with open(path, "rb") as f:
            return json.loads(f.read().decode())
    except (OSError, ValueError, UnicodeError, TypeError, RuntimeError,
            MemoryError) as e:
        set_aside(app, path, "%s unreadable: %s" % (name, e))
        return None


def calibration(app, pm):
    """The sensing calibration (calib.json, or the model's defaults)."""
    from nardy.calibration import load as load_calibration
    path = app.dir + "/calib.json"
    n = file_size(path)
    if n == -2 or n > _CALIB_MAX:
        set_aside(app, path, "calib.json unreadable: %s" % (
            "a directory" if n == -2 else "%d bytes" % n))
    try:
        # strict: a file that is there but wrong is reported and set aside here (the
        # default load would quietly fall back and leave it for the self-test)
        return load_calibration(path, app.layout.n, pm.slots, strict=True)
    except Exception as e:  # noqa: BLE001 - any bad value: defaults, report
        set_aside(app, path, "calib.json unusable: %s: %s" % (type(e).__name__, e))
        return load_calibration(app.dir + "/calib.none", app.layout.n, pm.slots)
    finally:
        # the file's parser (nardy.calibfile, 1.6 KB) and the calibration's own module
        # (~2 KB: Sensing keeps only the thresholds it flattens) are needed again only
        # by the self-test and the calibration tool
        drop_module("nardy.calibfile")
        drop_module("nardy.calibration")


def settings(app):
    """settings.json merged over the defaults; a bad field gets its default."""
    from nardy.menu import defaults
    s = defaults()
    # the menu and the variants registry it asked for the options (both games'
    # modules): 5 KB that a game imports again when it needs them
    for m in ("menu", "variants", "longnardy", "shortnardy"):
        drop_module("nardy." + m)
    gc.collect()
    d = read_small(app, "settings.json", _SETTINGS_MAX)
    if d is None:
        return s
    if not isinstance(d, dict):
        app.problems.append("settings.json is not an object: defaults used")
        return s
    merged = dict(s)
    for k in s:
        if k in d:
            merged[k] = d[k]
    if "auto_end" in d:
        merged["auto_end"] = d["auto_end"]    # optional: absent means off
    if d.get("mqtt") is not None or d.get("radio") is not None:
        # optional (absent: no broker; the board's own access point), checked here,
        # not by check_settings, so that nardy.netcfg is loaded only on a board that
        # names one
        from nardy import netcfg
        netcfg.settings(app, d, merged)
        netcfg = None
        drop_module("nardy.netcfg")
    bad = protocol.check_settings(merged)
    for k in bad:
        k = k.split(".")[0]
        if k == "options":
            merged["options"] = s["options"]
        elif k in s:
            merged[k] = s[k]
        else:
            del merged[k]
    if bad:
        app.problems.append("settings.json: bad %s: defaults used" % ", ".join(bad))
    merged["options"] = {"long": dict(merged["options"].get("long", {})),
                         "short": dict(merged["options"].get("short", {}))}
    return merged


def journal(app):
    """The journal's boot: report what it found, resume the unfinished game or
    restore the match; then start the network's tasks the settings ask for."""
    try:
        j = app.journal
        for gid, why in j.scan():
            app.report("journal %s: %s" % ("-" if gid is None else gid, why), gid)
        r = j.latest
        j.latest = None         # its header and last line are not needed after boot
        if r is not None and not r.finished:
            gid = j.current
            try:
                app.game.resume(gid, j.reader(gid))
                j.resume(gid)
                return
            except (ValueError, KeyError, TypeError, IndexError, AttributeError,
                    OSError) as e:
                app.report("journal %d not resumed: %s" % (
                    gid, j.set_aside(gid, "%s: %s" % (type(e).__name__, e))), gid)
        m, why = j.load_match()
        if why:
            app.report(why)
        if m is not None:
            try:
                app.game.restore_match(m)
            except (ValueError, KeyError, TypeError, IndexError) as e:
                app.report("match not restored: %s" % e)
    finally:
        # (here, not in the app: a board without a network pays nothing for these
        # lines) the Wi-Fi task on a board with a radio, or a virtual board started
        # with one (main.py ... --radio) (nardy.radio: unless its settings switch it
        # off); the broadcast with a broker (nardy.mqttcast)
        import sys
        b = app.board
        # ("--radio" compared without its dashes: a new string here would be a new
        # name every board keeps, see nardy.radio)
        if b.radio is not None or (b.virtual and any(a[2:] == "radio" for a in sys.argv)):
            from nardy import radio
            radio.start(app)
        if app.settings.get("mqtt"):
            from nardy import mqttcast
            mqttcast.start(app)
