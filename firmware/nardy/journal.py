"""The journal on flash: one append-only file per game, JSON lines (``nardy.record``).

Every line is written and flushed before the caller shows what it records
(``append`` returns only then), but on a full flash: a line that does not fit
(ENOSPC) is held in RAM, in order, and written when there is room (``held``); the
board says so (``warn``), and a game with lines held is never deleted.

Files in ``<dir>``: ``g00001.jsonl`` (the id in at least five digits: ``g100000``
follows ``g99999``; ``Journal.parse_name`` reads exactly what ``name`` writes);
``gNNNNN.tmp`` while a torn tail is being cut; ``gNNNNN.bad``: a game the board could
not read, set aside (never resumed, written or deleted; ``log`` still sends what is
readable of it);
``match.json``: the match between two games (so a power cut then loses nothing).
A game stays until the host confirms it has a copy (``confirm``); only then, and
only a game that is over (an ``end`` record, or one that is not the game being
played and so can never be resumed) is it deleted. When the flash runs low the
board says so first (low) and refuses new games only when full (the reserve is
for the game in play); it never deletes an unconfirmed game to make room.

Memory does not grow with the number of games: nothing is kept per game. Boot
(``scan``) lists the names once and reads only the latest game (to resume it);
the ``index`` command (``nardy.jindex.index_page``) pages through the games by id,
reading only each file's last line.

What a board needs only now and then is not kept on the heap: boot's scan and the
match file (``nardy.journalboot``, dropped after boot), a full flash's records held
in RAM and warnings (``nardy.journalfull``, loaded only while needed), the index.
"""

import json
import os

from micropython import const  # CPython: the shim nardy/__init__.py installs

from nardy import drop_module, record
from nardy.protocol import MAX_GAME

OK = "ok"
_LOW = const("low")
_FULL = const("full")
_HELD = const("held")

_DIR = const(0x4000)            # stat mode bit of a directory
_ID_DIGITS = const(9)           # MAX_GAME's digits: the longest name parse_name reads
_CHECK_EVERY = const(8)         # records between two looks at the free space
_ID_TRIES = const(16)           # names tried past ``last`` before a new game is refused


def _stat(path):
    try:
        return os.stat(path)
    except OSError:
        return None


def file_size(path):
    """Bytes in a file, -1 if there is none, -2 for a directory (the app's error log,
    its boot-time files)."""
    st = _stat(path)
    if st is None:
        return -1
    return -2 if st[0] & 0x4000 else st[6]


def _close(f):
    try:
        f.close()
    except OSError:
        pass


def _remove(path):
    try:
        os.remove(path)
    except OSError:
        pass


class Journal:

    # The journal's files by name, for its parts too: its boot-time check
    # (nardy.journalboot) and the index (nardy.jindex) call them on the journal they
    # are given, so they never import this module back; the app's boot sets a file
    # aside with ``Journal.set_aside_name``.
    stat_of = staticmethod(_stat)

    @staticmethod
    def names(path):
        """The names in a directory one at a time (MicroPython's ilistdir does not build
        a list of 1,000 names on the heap)."""
        il = getattr(os, "ilistdir", None)
        if il is not None:
            for e in il(path):
                yield e[0]
        else:
            yield from os.listdir(path)

    @staticmethod
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

    @staticmethod
    def set_aside_name(path):
        """A free name ``path.bad``, ``path.bad2``, ... for a file set aside."""
        cand = path + ".bad"
        n = 1
        while _stat(cand) is not None:
            n += 1
            cand = "%s.bad%d" % (path, n)
        return cand

    def __init__(self, path, free=None, low_bytes=65536, full_bytes=16384, opener=None):
        self.dir = path
        self._free = free
        self.opener = opener or open     # the board's flash_open (a quota on a virtual one)
        self.held = []          # records of the current game not on flash yet (full)
        self.warn = None        # callback(text): the app shows and logs a flash warning
        self._said = OK         # the flash state last warned about
        self._appended = 0      # records written since the flash was last looked at
        self.low_bytes = low_bytes
        self.full_bytes = full_bytes
        self.current = None     # game id being written (or last written)
        self.ended = False      # the current game has its end record
        self.file = None        # the current game's file, open to append (journalfull reopens it)
        self.lines = 0          # lines in the current game
        self.last = 0           # highest game id on flash: new games count on from it
        self.count = 0          # games on flash (set-aside ones too)
        self.latest = None      # record.Reader of the latest game, read at boot
        self.usable = True      # False: no journal directory could be made
        try:
            os.mkdir(path)      # (a file in its way is dealt with by scan)
        except OSError:
            pass

    def name(self, gid, ext="jsonl"):
        return "%s/g%05d.%s" % (self.dir, gid, ext)

    # -- boot ------------------------------------------------------------------------
    def scan(self):
        """Find the games on flash and read the latest one (``self.latest``, a
        record.Reader that read it to the end; None if there is none or it was set
        aside). Returns [(game id or None, problem)] to report. Never raises.
        (``nardy.journalboot``: boot's code, left loaded for the ``load_match``
        that boot asks next, which drops it: one load, one hole in the heap.)"""
        from nardy import journalboot
        return journalboot.scan(self)

    def unfinished(self):
        """The game to resume (read by ``scan``), or None."""
        r = self.latest
        return self.current if r is not None and not r.finished else None

    def raw_lines(self, gid):
        """The readable lines of a game as text (what ``log`` sends)."""
        r = self.reader(gid)
        for _ in r or ():
            yield r.raw.decode().rstrip()

    def records(self, gid):
        """Every record of a game, one at a time (see ``reader``)."""
        return iter(self.reader(gid) or ())

    def set_aside(self, gid, why, reports=None):
        """Rename a game the board cannot use to ``gNNNNN.bad``: never resumed,
        written or deleted; the host can still pull what is readable."""
        if gid == self.current:
            self.close()
            self.current = None
        try:
            os.rename(self.name(gid), self.name(gid, "bad"))
            why = "%s (set aside as g%05d.bad)" % (why, gid)
        except OSError as e:
            why = "%s (not set aside: %s)" % (why, e)
        if reports is not None:
            reports.append((gid, why))
        return why

    def reader(self, gid):
        """A record.Reader of game ``gid`` (also of a set-aside one), or None."""
        for ext in ("jsonl", "bad"):
            p = self.name(gid, ext)
            if _stat(p) is not None:
                return record.Reader(p)
        return None

    # -- writing ----------------------------------------------------------------------
    def free(self):
        """Bytes free on the flash, -1 when unknown (the board's ``flash_free``)."""
        return self._free() if self._free else -1

    def space(self):
        free = self.free()
        if free < 0:
            return OK
        if free < self.full_bytes:
            return _FULL
        if free < self.low_bytes:
            return _LOW
        return OK

    def start(self, header):
        """Open a new game file with its header line; returns the game id. Raises
        OSError when the flash cannot hold a new game (full: under ``full_bytes``
        free, the reserve the game in play writes into; or records of the last game
        still held in RAM); the caller shows it; nothing is deleted."""
        if not self.usable:
            raise OSError(5, "no journal directory")
        if self.space() == _FULL or self.held:
            self._check_space()
            raise OSError(28, "flash full")
        self.close()
        gid = self._next_id()
        p = self.name(gid)
        self.file = self.opener(p, "w")
        try:
            self.write_record(header)
        except OSError:
            # not even the header fits: no game (and no empty file) is left
            self.close()
            _remove(p)
            raise
        self.last = gid
        self.count += 1
        self.current = gid
        self.ended = False
        self.lines = 1
        self._check_space()
        return gid

    def _next_id(self):
        """The id of a new game: the first after ``last`` that no file on flash has
        (in any form: a name the scan did not count is skipped, never truncated).
        OSError when ids up to MAX_GAME are used up (the host confirms games, the
        journal empties and numbers from 1 again)."""
        gid = self.last + 1
        for _ in range(_ID_TRIES):
            if gid > MAX_GAME:
                break
            if (_stat(self.name(gid)) is None and _stat(self.name(gid, "bad")) is None
                    and _stat(self.name(gid, "tmp")) is None):
                return gid
            gid += 1
        raise OSError(28, "no game id left: send games to the host")

    def resume(self, gid):
        """Go on appending to game ``gid`` (read at boot: ``self.lines`` is set)."""
        self.close()
        self.current = gid
        self.file = self.opener(self.name(gid), "a")

    def write_record(self, rec):
        # Written as json.dump makes it, piece by piece: no block the size of the line
        # (a fragmented 56 KB heap may have none). A power cut leaves the whole line
        # or a torn one, with or without its newline, which the next boot cuts off
        # (record.Reader's torn-tail rule, journalfull.cut); so does a full flash
        # (ENOSPC), which ``journalfull.flush_held`` cuts before the next write.
        f = self.file
        json.dump(rec, f)
        f.write("\n")
        f.flush()

    def append(self, rec):
        """Write and flush one record; returns its line number (0-based). A record
        the flash has no room for is held in RAM, in order, and written (with any
        held before it) as soon as there is room: by the next ``append`` or
        ``confirm``; the board says so (``warn``). Nothing is ever dropped."""
        if self.file is None and not self.held:
            raise OSError(9, "no game open")
        n = self.lines
        self.lines += 1
        if rec.get("r") == "end":
            self.ended = True
        if self.held or self.file is None:
            self.held.append(rec)           # after the ones waiting: in order
            self.rare("flush_held")
        else:
            try:
                self.write_record(rec)
            except OSError:
                # flash full (or failing): the file may end in part of a line now;
                # it is closed, and cut back to its whole lines before the next write
                self.close()
                self.held.append(rec)
        self._appended += 1
        if self.held or self._appended >= _CHECK_EVERY:
            # not every record: littlefs's statvfs walks the whole filesystem
            self._check_space()
        return n

    def rare(self, what, *args):
        """Call ``nardy.journalfull``'s ``what`` (a full flash's paths, not kept on
        the heap; public for the boot-time check, nardy.journalboot): imported for
        it, dropped after unless records wait in RAM. A heap with no block for it
        (code in RAM) leaves the records held, for the next try: None then (a torn
        tail not cut: OSError)."""
        try:
            from nardy import journalfull
        except MemoryError:
            if what == "cut":
                raise OSError(12, "no memory to cut the torn tail") from None
            return None
        try:
            return getattr(journalfull, what)(self, *args)
        finally:
            if not self.held:
                drop_module("nardy.journalfull")

    def _check_space(self):
        """Say it (``warn``) when the flash gets low or full, or records wait in RAM:
        once each time that changes."""
        self._appended = 0
        s = self.space()
        if self.held:
            s = _HELD
        if s == self._said:
            return
        self._said = s
        if self.warn is not None and s != OK:
            self.warn(self.rare("warning", s) or "flash " + (_LOW if s == _LOW else _FULL))

    def close(self):
        if self.file is not None:
            _close(self.file)     # (every record was flushed: a close has nothing left)
            self.file = None

    def confirm(self, gid):
        """The host has game ``gid``: delete it if it is over (ended, or not the
        game being played: that one is the only game that can still go on). False
        if it is not deleted."""
        if gid == self.current and (not self.ended or self.held):
            return False        # (an end record held in RAM: the game is not on flash)
        p = self.name(gid)
        st = _stat(p)
        if st is None or st[0] & _DIR:
            return False
        if gid == self.current:
            self.close()
            self.current = None
        os.remove(p)
        self.count -= 1
        if self.count <= 0 and not self.held:
            self.count = 0
            self.last = 0           # an empty journal numbers from 1 again
        # room has come back: what the game in play holds in RAM goes to flash
        if self.held:
            self.rare("flush_held")
        self._check_space()
        return True

    def summary(self):
        """For ``dump``: how many games, the highest id, the game being written."""
        return {"games": self.count, "last": self.last or None,
                "current": self.current if not self.ended else None}

    # -- the match between games --------------------------------------------------------
    def save_match(self, m):
        """Keep the match state (a dict, see record.check_match) or forget it (None)."""
        p = self.dir + "/match.json"
        try:
            if m is None:
                if _stat(p) is not None:
                    os.remove(p)
                return
            with open(p + ".tmp", "w") as f:
                f.write(json.dumps(m))
            os.rename(p + ".tmp", p)
        except OSError:
            pass    # losing it costs the match after a power cut, not the board

    def load_match(self):
        """(match dict or None, problem or None); a bad file is set aside. Boot's
        last use of ``nardy.journalboot``: dropped after it."""
        from nardy import journalboot
        try:
            return journalboot.load_match(self)
        finally:
            drop_module("nardy.journalboot")
