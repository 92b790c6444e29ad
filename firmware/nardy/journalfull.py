"""The journal's rarely used paths (``nardy.journal``): records held in RAM on a full
flash, the flash warnings, and cutting a torn tail back to whole records.

Imported only when one of them is needed (a write failed, the flash got low or
full, boot found a torn last line) and dropped again once no record waits in RAM:
a board whose flash has room never has it on the heap (issue 22's full-flash work
had grown the resident journal by ~1.2 KB with the code in flash, ~3.4 KB in RAM).
"""

import os

from micropython import const  # CPython: the shim nardy/__init__.py installs

from nardy import record

_RETRY_BYTES = const(1024)      # free bytes before a file that ran out of room is read again


def flush_held(j):
    """Write the records ``j`` holds in RAM, oldest first; what does not fit stays."""
    if j.file is None and 0 <= j.free() < _RETRY_BYTES:
        return                      # no room yet: the file is not read again
    try:
        if j.file is None:
            _reopen(j)
        while j.held:
            j.write_record(j.held[0])
            j.held.pop(0)
    except OSError:
        # flash full (or failing): the file may end in part of a line now; it is
        # closed, and cut back to its whole lines before the next write
        j.close()


def _reopen(j):
    """After a failed write: cut the game's file back to its whole records (a record
    whose newline did not fit is kept, its newline put back), drop the held records
    that made it, open it for appends again."""
    gid = j.current
    r = record.Reader(j.name(gid)).scan()
    if r.problem:
        raise OSError(5, r.problem)
    if r.torn:
        cut(j, gid, r.keep, r.newline)
    written = r.lines - (j.lines - len(j.held))
    if written > 0:
        del j.held[:written]
    j.file = j.opener(j.name(gid), "a")


def cut(j, gid, keep, newline):
    """Keep the first ``keep`` bytes of game ``gid`` (the torn tail goes), through a
    temp copy; OSError (the original as it was) when the flash has no room for it."""
    tmp = j.name(gid, "tmp")
    buf = bytearray(512)
    dst = j.opener(tmp, "wb")
    try:
        with open(j.name(gid), "rb") as src:
            left = keep
            while left > 0:
                n = src.readinto(buf)
                if not n:
                    break
                if n > left:
                    n = left
                dst.write(memoryview(buf)[:n])
                left -= n
            if not newline:
                dst.write(b"\n")
        dst.close()
    except OSError:
        # no room for the copy (a full flash): the original stays as it was
        try:
            dst.close()
        except OSError:
            pass
        try:
            os.remove(tmp)
        except OSError:
            pass
        raise
    os.remove(j.name(gid))
    os.rename(tmp, j.name(gid))


def warning(j, state):
    """The words of a flash warning (``state``: "held", "full" or "low")."""
    if state == "held":
        return "flash full: %d records kept in RAM, send games to the host" % len(j.held)
    if state == "full":
        return "flash full (%d bytes free): no new game, send games to the host" % j.free()
    return "flash low: %d bytes free, send games to the host" % j.free()
