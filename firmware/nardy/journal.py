"""The journal on flash: one append-only file per game, JSON lines.

The lines are those of ``nardy.record`` (the same as ``nardy selfplay --log``), plus
the kinds this module adds: ``open`` (the opening roll, C2: every try as [white,
black]) and ``resign`` fields on ``end``. Every line is written and flushed before
the caller shows what it records (``append`` returns only then).

Files: ``<dir>/g00001.jsonl``, numbered in order. A game stays until the host
confirms it has a copy (``confirm``); only then, and only a finished game, is it
deleted. When the flash runs low the board says so first (``LOW``) and refuses new
games only at ``FULL``; it never deletes an unconfirmed game to make room.

Boot: ``scan()`` reads every file's last line; ``load()`` reads a game back. A torn
last line (power cut during a write) is dropped and the file rewritten without it;
a file broken elsewhere is reported and left alone for the host.
"""

import json
import os

from nardy import record

KINDS = record.KINDS + ("open",)

OK = "ok"
LOW = "low"
FULL = "full"


def _exists(path):
    try:
        os.stat(path)
        return True
    except OSError:
        return False


def loads(line):
    """One journal line: record.loads, or a kind this module adds."""
    try:
        rec = json.loads(line)
    except ValueError:
        raise ValueError("not JSON") from None
    if isinstance(rec, dict) and rec.get("r") == "open":
        rolls = rec.get("rolls")
        if not isinstance(rolls, list) or not rolls:
            raise ValueError("open record without rolls")
        return rec
    return record.loads(line)


class Journal:
    def __init__(self, path, free=None, low_bytes=65536, full_bytes=16384):
        self.dir = path
        self._free = free
        self.low_bytes = low_bytes
        self.full_bytes = full_bytes
        self.current = None     # game id being written
        self._f = None
        self.lines = 0          # lines in the current game
        self.index = {}         # id -> {"finished": bool, "broken": str|None, "lines": n}
        try:
            os.mkdir(path)
        except OSError:
            pass

    def _name(self, gid):
        return "%s/g%05d.jsonl" % (self.dir, gid)

    # -- boot ------------------------------------------------------------------------
    def scan(self):
        """Index every game on flash; returns a list of (id, problem) reports."""
        reports = []
        names = []
        for n in os.listdir(self.dir):
            if n.startswith("g") and n.endswith(".tmp"):
                # a rewrite was cut: the temp copy is complete only if the original
                # is gone (it is removed after the copy is flushed)
                final = self.dir + "/" + n[:-4] + ".jsonl"
                if _exists(final):
                    os.remove(self.dir + "/" + n)
                else:
                    os.rename(self.dir + "/" + n, final)
                    names.append(n[:-4] + ".jsonl")
            elif n.startswith("g") and n.endswith(".jsonl"):
                names.append(n)
        for n in names:
            try:
                gid = int(n[1:-6])
            except ValueError:
                continue
            info = self._check(gid)
            self.index[gid] = info
            if info["broken"]:
                reports.append((gid, info["broken"]))
        return reports

    def _check(self, gid):
        """Read a game: finished?, broken?, and repair a torn last line. Streams the
        file a line at a time: a long finished game must not need its size in heap
        at boot."""
        info = {"finished": False, "broken": None, "lines": 0}
        good = 0
        bad_at = 0          # line number of an unreadable line, 0 if none so far
        bad_why = None
        newline_end = True
        n = 0
        with open(self._name(gid)) as f:
            for ln in f:
                n += 1
                newline_end = ln.endswith("\n")
                if not ln.strip():
                    continue
                if bad_at:
                    # an unreadable line with more after it: not a torn tail
                    info["broken"] = "line %d: %s" % (bad_at, bad_why)
                    info["finished"] = True   # never resumed, never written again
                    return info
                try:
                    rec = loads(ln)
                except ValueError as e:
                    bad_at = n
                    bad_why = e
                    continue
                if not good and rec.get("r") != "game":
                    info["broken"] = "no game line"
                    info["finished"] = True
                    return info
                good += 1
                if rec.get("r") == "end":
                    info["finished"] = True
        if not good:
            info["broken"] = "empty"
            info["finished"] = True
            return info
        info["lines"] = good
        if bad_at or not newline_end:
            self._rewrite(gid, good)
            if bad_at:
                info["torn"] = True
        return info

    def _rewrite(self, gid, keep):
        """Keep the first ``keep`` readable lines (the torn tail goes), streaming."""
        tmp = "%s/g%05d.tmp" % (self.dir, gid)
        with open(self._name(gid)) as src, open(tmp, "w") as dst:
            left = keep
            for ln in src:
                if left == 0:
                    break
                if not ln.strip():
                    continue
                dst.write(ln.rstrip("\n"))
                dst.write("\n")
                left -= 1
        os.remove(self._name(gid))
        os.rename(tmp, self._name(gid))

    def unfinished(self):
        """The latest game that has no end line (to resume), or None."""
        best = None
        for gid in self.index:
            if not self.index[gid]["finished"] and (best is None or gid > best):
                best = gid
        return best

    def records(self, gid):
        """Every record of a game, one at a time (a whole game as a list would not
        fit the heap); a broken line is skipped."""
        with open(self._name(gid)) as f:
            for ln in f:
                if ln.strip():
                    try:
                        rec = loads(ln)
                    except ValueError:
                        continue
                    yield rec

    def raw_lines(self, gid):
        with open(self._name(gid)) as f:
            for ln in f:
                ln = ln.rstrip("\n")
                if ln:
                    yield ln

    # -- writing ----------------------------------------------------------------------
    def space(self):
        free = self._free() if self._free else -1
        if free < 0:
            return OK
        if free < self.full_bytes:
            return FULL
        if free < self.low_bytes:
            return LOW
        return OK

    def start(self, header):
        """Open a new game file with its header line; returns the game id. Raises
        OSError when the flash is full (the caller shows it; nothing is deleted)."""
        if self.space() == FULL:
            raise OSError(28, "flash full")
        self.close()
        gid = 1
        for g in self.index:
            if g >= gid:
                gid = g + 1
        self.current = gid
        self.index[gid] = {"finished": False, "broken": None, "lines": 0}
        self._f = open(self._name(gid), "w")  # noqa: SIM115 - kept open for appends
        self.lines = 0
        self.append(header)
        return gid

    def resume(self, gid):
        self.close()
        self.current = gid
        self.lines = self.index[gid]["lines"]
        self._f = open(self._name(gid), "a")  # noqa: SIM115 - kept open for appends

    def append(self, rec):
        """Write and flush one record; returns its line number (0-based)."""
        f = self._f
        if f is None:
            raise OSError(9, "no game open")
        # one write call: a power cut leaves either the whole line or a torn one
        f.write(json.dumps(rec) + "\n")
        f.flush()
        n = self.lines
        self.lines += 1
        info = self.index[self.current]
        info["lines"] = self.lines
        if rec.get("r") == "end":
            info["finished"] = True
        return n

    def close(self):
        if self._f is not None:
            self._f.close()
            self._f = None

    def confirm(self, gid):
        """The host has game ``gid``: delete it if finished. False if it is not."""
        info = self.index.get(gid)
        if info is None or not info["finished"]:
            return False
        if gid == self.current:
            self.close()
            self.current = None
        os.remove(self._name(gid))
        del self.index[gid]
        return True

    def listing(self):
        out = []
        for gid in sorted(self.index):
            i = self.index[gid]
            out.append({"game": gid, "finished": i["finished"], "lines": i["lines"],
                        "broken": i["broken"]})
        return out
