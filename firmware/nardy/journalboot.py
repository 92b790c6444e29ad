"""Boot's part of the journal (``nardy.journal``): finding the games on flash, reading
the latest one to resume it, and the match between games. Imported by
``Journal.scan`` and dropped after ``Journal.load_match``, which boot asks last:
with the code in RAM its bytecode goes back to the heap once the board is up,
loaded and dropped once (each load and drop can leave a hole in the heap).
"""

import json
import os

from micropython import const  # CPython: the shim nardy/__init__.py installs

from nardy import record

_MATCH_MAX = const(512)          # bytes: match.json is ~150
_DIR = const(0x4000)            # stat mode bit of a directory


def _setup(j, reports):
    st = j.stat_of(j.dir)
    if st is not None and not st[0] & _DIR:
        # a file where the journal directory should be: keep it, under a new name
        aside = j.set_aside_name(j.dir)
        try:
            os.rename(j.dir, aside)
            reports.append((None, "%s was a file: set aside as %s" % (j.dir, aside)))
        except OSError as e:
            reports.append((None, "%s is a file and cannot be moved: %s" % (j.dir, e)))
            j.usable = False
            return
        st = None
    if st is None:
        try:
            os.mkdir(j.dir)
        except OSError as e:
            reports.append((None, "cannot make %s: %s" % (j.dir, e)))
            j.usable = False

def scan(j):
    """Find the games on flash and read the latest one (``j.latest``, a
    record.Reader that read it to the end; None if there is none or it was set
    aside). Returns [(game id or None, problem)] to report. Never raises."""
    reports = []
    _setup(j, reports)
    if not j.usable:
        return reports
    tmps = []
    last = 0
    top = [0, 0, 0]     # the three latest games: if one is set aside, the next
    count = 0
    try:
        for n in j.names(j.dir):
            gid, ext = j.parse_name(n)
            if gid is None:
                continue
            if ext == "tmp":
                if len(tmps) < 8:
                    tmps.append(gid)
                continue
            count += 1
            if gid > last:
                last = gid
            if ext == "jsonl" and gid > top[-1]:
                top[-1] = gid
                top.sort(reverse=True)
    except OSError as e:
        reports.append((None, "cannot list %s: %s" % (j.dir, e)))
        j.usable = False
        return reports
    for gid in tmps:
        # a cut was interrupted: the temp copy is complete only if the original
        # is gone (it is removed after the copy is flushed)
        try:
            if j.stat_of(j.name(gid)) is not None:
                os.remove(j.name(gid, "tmp"))
            else:
                os.rename(j.name(gid, "tmp"), j.name(gid))
                count += 1
                last = max(last, gid)
                if gid > top[-1]:
                    top[-1] = gid
                    top.sort(reverse=True)
        except OSError as e:
            reports.append((gid, "cannot recover %s: %s" % (j.name(gid, "tmp"), e)))
    j.last = last
    j.count = count
    j.latest = None
    for latest in top:
        if latest and _read_latest(j, latest, reports):
            break
    return reports

def _read_latest(j, gid, reports):
    r = record.Reader(j.name(gid)).scan()
    if r.problem or r.damaged:
        # a whole last record that fails the checks is no torn write: damage,
        # reported and kept like any other (cutting it would hide it)
        j.set_aside(gid, r.problem or (
            "%s: a whole record that fails the checks" % r.damaged), reports)
        return False
    if r.torn:
        try:
            j.rare("cut", gid, r.keep, r.newline)
        except OSError as e:
            j.set_aside(gid, "torn tail not cut: %s" % e, reports)
            return False
    j.latest = r
    j.current = gid
    j.ended = r.finished
    j.lines = r.lines
    return True


def load_match(j):
    """(match dict or None, problem or None); a bad file is set aside."""
    p = j.dir + "/match.json"
    st = j.stat_of(p)
    if st is None:
        return None, None
    try:
        if st[0] & _DIR or st[6] > _MATCH_MAX:
            raise ValueError("not a small file")
        with open(p, "rb") as f:
            m = json.loads(f.read().decode())
        return record.check_match(m), None
    except (OSError, ValueError, UnicodeError, TypeError, RuntimeError) as e:
        why = "match.json unreadable (%s)" % e
        try:
            os.rename(p, j.set_aside_name(p))
        except OSError:
            pass
        return None, why
