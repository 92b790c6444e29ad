"""The host's protocol commands (docs/PROTOCOL.md), one function each, as the app
answers them after ``nardy.protocol.parse`` checked the line whole.

A dozen function objects, about 1 KB of heap even with the code in flash: there
the app imports this module for each command and drops it after; with the code in
RAM it is loaded once, at boot (``App.drop_cmds``). The journal's index pages are
built here, not in ``nardy.journal``, so that with the code in flash they are on
the heap only while an ``index`` is answered. A board's own commands (the
virtual board's ``sense``, ``button``...) are the board's (``nardy.hal``); ``mem``
is the app's own, so that it measures the heap as the game has it, and so is
``ping``, the host's most frequent line.
"""

from micropython import const  # CPython: the shim nardy/__init__.py installs

# The module's globals are kept to 16 names: its dict then takes 17 slots (272 bytes
# on the 64-bit port); an 18th name makes it 23 (368 bytes), which a 56wK board with
# its player loaded had no block for at ``new`` (the import runs for each command).
# So the modules only some commands use are imported in those (all are loaded
# already: a look-up).
_TAIL = const(256)              # bytes read to find a game's last line
_DIR = const(0x4000)            # stat mode bit of a directory


def hello(app, cmd):
    """The boot's ``hello`` again, with the LED legend (nardy.lights) for the host."""
    ev = app.hello()
    from nardy import drop_module, lights
    ev["lights"] = lights.legend()
    drop_module("nardy.lights")
    app.emit(ev)


def dump(app, cmd):
    st = app.game.state()
    st["ev"] = "dump"
    st["journal"] = app.journal.summary()
    st["flash"] = app.journal.space()
    st["flash_free"] = app.journal.free()           # bytes, -1 when unknown
    st["flash_held"] = len(app.journal.held)        # records waiting in RAM for room
    st["settings"] = app.settings
    app.emit(st)


def index(app, cmd):
    import gc

    from nardy import protocol
    gc.collect()        # a page is built in one piece (~600 bytes)
    games, nxt = index_page(app.journal, cmd.get("after", 0),
                            cmd.get("limit", protocol.INDEX_LIMIT))
    app.emit({"ev": "index", "games": games, "next": nxt})


# -- the index: the journal's games a page at a time (only ``index`` asks) ----------
def _ends(path, size):
    """Whether the file's last line is an ``end`` record (reads only the tail:
    an end record is ~100 bytes)."""
    from nardy import record
    try:
        with open(path, "rb") as f:
            if size > _TAIL:
                f.seek(size - _TAIL)
            tail = f.read(_TAIL)
    except OSError:
        return False
    end = len(tail)
    while end > 0 and tail[end - 1] in (10, 13, 32):
        end -= 1
    start = tail.rfind(b"\n", 0, end) + 1
    try:
        return record.loads(tail[start:end])["r"] == "end"
    except ValueError:
        return False

def _info(j, gid):
    """One game of the index: {game, finished, current, bytes, broken}."""
    from nardy.journal import _stat
    p = j.name(gid)
    st = _stat(p)
    broken = None
    if st is None:
        st = _stat(j.name(gid, "bad"))
        if st is None:
            return None
        broken = "set aside: unreadable"
    elif st[0] & _DIR:
        broken = "not a file"
    if gid == j.current:
        finished = j.ended
    else:
        finished = broken is None and _ends(p, st[6])
    # current: the game being played (the only one that can still go on)
    return {"game": gid, "finished": finished,
            "current": gid == j.current and not j.ended,
            "bytes": st[6], "broken": broken}

def index_page(j, after=0, limit=8):
    """The games with ids after ``after``, at most ``limit``, in order, and the id
    to ask after for the next page (None on the last page)."""
    import gc

    from nardy.journal import _names, parse_name
    ids = []
    for n in _names(j.dir):
        gid, ext = parse_name(n)
        if gid is None or ext == "tmp" or gid <= after or gid in ids:
            continue
        i = len(ids)
        while i > 0 and ids[i - 1] > gid:
            i -= 1
        if i <= limit:
            ids.insert(i, gid)
            if len(ids) > limit + 1:
                ids.pop()
    more = len(ids) > limit
    del ids[limit:]
    # the names read above are garbage now, scattered: collected before the
    # page (and its one-piece JSON line) is built, it finds whole free blocks
    gc.collect()
    games = []
    for gid in ids:
        g = _info(j, gid)
        if g is not None:
            games.append(g)
    return games, (ids[-1] if more and ids else None)


def log(app, cmd):
    app._log(cmd["game"])


def confirm(app, cmd):
    ok = app.journal.confirm(cmd["game"])
    app.emit({"ev": "confirm", "game": cmd["game"], "deleted": ok})


def new(app, cmd):
    # parse() checked every field: only now is anything changed
    j = app.journal
    if j.held or j.space() == "full":
        # refused before the game in play is closed: it goes on, whole
        raise ValueError("flash full: send games to the host first")
    v = cmd.get("variant", "long")
    app.settings["variant"] = v
    app.settings["match"] = cmd.get("match", 1)
    app.settings["options"][v] = dict(cmd.get("options", {}))
    app.settings["bot"] = cmd.get("bot", "none")
    app.save_settings()
    app.game.new_match()


def roll(app, cmd):
    if app.settings["dice"] != "manual" or not app.game.enter_dice(cmd["dice"]):
        raise ValueError("dice are entered only in manual mode, before a turn")


def oled(app, cmd):
    app.redraw(force=True)
    app.board.send_display()     # in pieces: see nardy.hal.Board.send_display


def set_(app, cmd):
    app.set_settings(cmd)


COMMANDS = {"hello": hello, "dump": dump, "index": index, "log": log, "confirm": confirm,
            "new": new, "set": set_, "roll": roll, "oled": oled}
