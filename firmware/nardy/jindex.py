"""The journal's index, a page at a time (the ``index`` command, nardy.appcmds):
a module of its own, imported only while an ``index`` is answered, so that the
commands' module every host line imports stays small (with the code in flash it
is dropped after).
"""

from micropython import const  # CPython: the shim nardy/__init__.py installs

_TAIL = const(256)              # bytes read to find a game's last line
_DIR = const(0x4000)            # stat mode bit of a directory


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
    p = j.name(gid)
    st = j.stat_of(p)
    broken = None
    if st is None:
        st = j.stat_of(j.name(gid, "bad"))
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
    ids = []
    for n in j.names(j.dir):
        gid, ext = j.parse_name(n)
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
