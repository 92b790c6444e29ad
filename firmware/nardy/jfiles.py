"""The journal's files by name, for every module of the journal (``nardy.journal``,
its boot-time check ``nardy.journalboot``, the ``index`` listing ``nardy.jindex``)
and the app's boot: what is at a path, the names in a directory, the one reader of
a game's file name, a free name to set a file aside under. A leaf below them all,
so that the journal's parts never import the journal back.
"""

import os

from micropython import const  # CPython: the shim nardy/__init__.py installs

from nardy.protocol import MAX_GAME

_ID_DIGITS = const(9)           # MAX_GAME's digits: the longest name parse_name reads


def stat_of(path):
    """``os.stat`` of ``path``, or None when there is nothing there."""
    try:
        return os.stat(path)
    except OSError:
        return None


def file_size(path):
    """Bytes in a file, -1 if there is none, -2 for a directory (the app's error log,
    its boot-time files)."""
    st = stat_of(path)
    if st is None:
        return -1
    return -2 if st[0] & 0x4000 else st[6]


def names(path):
    """The names in a directory one at a time (MicroPython's ilistdir does not build
    a list of 1,000 names on the heap)."""
    il = getattr(os, "ilistdir", None)
    if il is not None:
        for e in il(path):
            yield e[0]
    else:
        yield from os.listdir(path)


def parse_name(name):
    """(game id, "jsonl" | "tmp" | "bad") of a journal file name, or (None, None).

    The one reader of the names ``Journal.name`` writes: "g", the id in at least
    five digits (``g00042``, ``g100000``), a dot, the kind. A name the writer would
    not write for that id (``g012345``, ``g+1234``, a sixth digit of zeros) is not
    a game: so a name read back is always the one its id is written under."""
    if not name.startswith("g"):
        return None, None
    dot = name.find(".")
    if dot < 6 or dot > _ID_DIGITS + 1:
        return None, None
    ext = name[dot + 1:]
    if ext not in ("jsonl", "tmp", "bad"):
        return None, None
    digits = name[1:dot]
    if not digits.isdigit():
        return None, None
    gid = int(digits)
    if gid < 1 or gid > MAX_GAME or "%05d" % gid != digits:
        return None, None
    return gid, ext


def set_aside_name(path):
    """A free name ``path.bad``, ``path.bad2``, ... for a file set aside."""
    cand = path + ".bad"
    n = 1
    while stat_of(cand) is not None:
        n += 1
        cand = "%s.bad%d" % (path, n)
    return cand
