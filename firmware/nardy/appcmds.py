"""The host's protocol commands (docs/PROTOCOL.md), one function each, as the app
answers them after ``nardy.protocol.parse`` checked the line whole.

A dozen function objects, about 1 KB of heap even with the code in flash: there
the app imports this module for each command and drops it after; with the code in
RAM it is loaded once, at boot (``App.drop_cmds``). The journal's index pages are
built in ``nardy.jindex``, not in ``nardy.journal``, so that with the code in flash
they are on the heap only while an ``index`` is answered. A board's own commands (the
virtual board's ``sense``, ``button``...) are the board's (``nardy.hal``); ``mem``
is the app's own, so that it measures the heap as the game has it, and so is
``ping``, the host's most frequent line.
"""

# The module's globals are kept to 12 names: its dict then takes 12 slots (192 bytes
# on the 64-bit port; 22 names made it 23, 368 bytes), a block a 56wK board with its
# player loaded must find at each command (the import runs for each one). So the
# index's pages are built in nardy.jindex, imported only for ``index``, and the
# modules only some commands use are imported in those (all are loaded already).


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
    s = app.settings
    if "mqtt" in s or "radio" in s:
        from nardy import drop_module, netcfg
        s = netcfg.public(s)        # never the broker's nor the home network's password
        netcfg = None
        drop_module("nardy.netcfg")
    st["settings"] = s
    app.emit(st)


def index(app, cmd):
    import gc

    from nardy import drop_module, jindex, protocol
    gc.collect()        # a page is built in one piece (~600 bytes)
    try:
        games, nxt = jindex.index_page(app.journal, cmd.get("after", 0),
                                       cmd.get("limit", protocol.INDEX_LIMIT))
    finally:
        jindex = None
        if app.drop_cmds:
            drop_module("nardy.jindex")
    app.emit({"ev": "index", "games": games, "next": nxt})


def log(app, cmd):
    """Send a game's readable lines; ``log_end`` says how many, and why the rest
    could not be read (a set-aside game)."""
    import gc
    gc.collect()
    gid = cmd["game"]
    r = app.journal.reader(gid)
    if r is None:
        raise ValueError("no game %d" % gid)
    n = 0
    out = app.board.out
    for _ in r:
        out({"ev": "log", "game": gid, "seq": n, "line": r.raw.decode().rstrip()})
        n += 1
    end = {"ev": "log_end", "game": gid, "lines": n}
    if r.problem:
        end["problem"] = r.problem
    app.emit(end)


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
