"""``nardy log``: pull every game the board holds, keep each safely, then confirm it.

The tool pages through the board's journal index (``index``, a page of games at a
time, so a board holding a thousand games is pulled as easily as one), asks for each
game (``log``), checks what came (every line numbered, none missing, every line a
journal record), writes it to ``DIR/gNNNNN-HASH.jsonl`` through a temporary file that
is flushed, synced and renamed into place, and only then tells the board it has it
(``confirm``), after which the board deletes a game that is over (ended, or
abandoned). The game being played is saved too but never confirmed (the board keeps
it); pulling it again later replaces the copy with the longer one. A game the board
could not read is saved as ``...broken.jsonl`` (what was readable) and left on the
board. If the line breaks at any point nothing is lost: an incomplete transfer is
never written, and a game written but not yet confirmed is simply pulled (and found
identical) next time.

HASH is the start of the SHA-1 of the game's first line, because the board numbers
games from 1 again once its journal is empty.

With ``--follow`` the tool stays connected after pulling, prints every event as a
JSON line on stdout, pulls each game as soon as it ends, and when the board goes
away (unplugged, reset) waits for it and carries on. Stop it with Ctrl-C.

PORT: a serial device (``/dev/ttyACM0``, a pty) or ``vboard:DIR`` (the virtual
board on flash directory DIR); see ``nardy_host.link``.
"""

import argparse
import hashlib
import json
import os
import sys

from nardy import record
from nardy_host.errors import LinkError, UserError
from nardy_host.link import connect


def register(sub):
    p = sub.add_parser("log", help="pull the games off a board (and follow it live)",
                       description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--port", required=True, metavar="PORT",
                   help="serial device, pty, or vboard:DIR")
    p.add_argument("--out", required=True, metavar="DIR", help="where to keep the games")
    p.add_argument("--follow", action="store_true",
                   help="stay connected: print live events, pull games as they end, "
                        "reconnect when the board comes back")
    p.add_argument("--no-confirm", action="store_true",
                   help="copy the games but leave them on the board")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    # tests: leave --follow after this many games were saved
    p.add_argument("--stop-after", type=int, default=None, help=argparse.SUPPRESS)
    p.set_defaults(func=run)


class TransferError(Exception):
    """What came over the line is not a whole, valid game."""


def _say(msg):
    print("nardy log: " + msg, file=sys.stderr, flush=True)


PAGE = 8       # games per ``index`` request


def fetch(link, gid, on_event=None, problem=None):
    """The raw lines of game ``gid``, checked: numbered 0..n-1, n as announced.
    ``problem`` (a list): gets the board's reason when it could not read it all."""
    link.send({"cmd": "log", "game": gid})
    lines = []
    while True:
        ev = link.read(15.0)
        if ev is None:
            raise LinkError("the board stopped sending game %d" % gid)
        kind = ev["ev"]
        if kind == "log" and ev.get("game") == gid:
            if ev.get("seq") != len(lines) or not isinstance(ev.get("line"), str):
                raise TransferError("game %d: line %s out of order" % (gid, ev.get("seq")))
            lines.append(ev["line"])
        elif kind == "log_end" and ev.get("game") == gid:
            if ev.get("lines") != len(lines):
                raise TransferError("game %d: %d lines announced, %d received"
                                    % (gid, ev.get("lines"), len(lines)))
            if ev.get("problem") and problem is not None:
                problem.append(str(ev["problem"]))
            return lines
        elif kind == "error" and str(ev.get("error", "")).startswith("log "):
            raise TransferError("game %d: %s" % (gid, ev["error"]))
        elif on_event is not None:
            on_event(ev)


def check(lines):
    """(finished, problem): every line must be a journal record, the first a game."""
    if not lines:
        return False, "empty"
    finished = False
    for i, ln in enumerate(lines):
        try:
            rec = record.loads(ln)
        except ValueError as e:
            return True, "line %d: %s" % (i + 1, e)
        if i == 0 and rec.get("r") != "game":
            return True, "no game line"
        if rec.get("r") == "end":
            finished = True
    return finished, None


def _fsync_dir(path):
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def save(out, gid, lines, broken=False):
    """Write a game into ``out`` atomically; returns its path. The same game pulled
    again (identical, or grown while unfinished) lands on the same file."""
    data = "".join(ln + "\n" for ln in lines)
    tag = hashlib.sha1(lines[0].encode()).hexdigest()[:10]
    base = "g%05d-%s%s" % (gid, tag, ".broken" if broken else "")
    n = 1
    while True:
        path = os.path.join(out, base + ("" if n == 1 else "-%d" % n) + ".jsonl")
        try:
            with open(path) as f:
                old = f.read()
        except FileNotFoundError:
            break
        if old == data:
            return path
        if data.startswith(old):
            break       # the same game, longer now
        n += 1
    tmp = os.path.join(out, ".%s.%d.tmp" % (os.path.basename(path), os.getpid()))
    with open(tmp, "w") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    _fsync_dir(out)
    return path


def index(link, on_event=None):
    """Every game the board holds, a page at a time: yields its index entries."""
    after = 0
    while True:
        ev = link.request({"cmd": "index", "after": after, "limit": PAGE}, "index",
                          on_event=on_event)
        games = ev.get("games")
        if not isinstance(games, list):
            raise TransferError("the board's index is not a list")
        for g in games:
            if not isinstance(g, dict) or not isinstance(g.get("game"), int):
                raise TransferError("the board's index has a bad entry")
            yield g
        nxt = ev.get("next")
        if nxt is None:
            return
        if not isinstance(nxt, int) or nxt <= after:
            raise TransferError("the board's index does not advance")
        after = nxt


def pull(link, out, confirm=True, progress=True, on_event=None):
    """Pull every game the board holds; returns [(gid, path, deleted)]."""
    dump = link.request({"cmd": "dump"}, "dump", on_event=on_event)
    summary = dump.get("journal")
    total = summary.get("games") if isinstance(summary, dict) else None
    done = []
    bar = None
    if progress and total:
        from tqdm import tqdm
        bar = tqdm(total=total, unit="game", desc="pulling", file=sys.stderr)
    try:
        for g in index(link, on_event):
            done.append(pull_one(link, g["game"], out, confirm, on_event, entry=g))
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    return done


def pull_one(link, gid, out, confirm=True, on_event=None, entry=None):
    """Pull one game; ``entry`` (its index entry) tells whether the board is still
    playing it. Returns (gid, path or None, deleted on the board)."""
    why = []
    lines = fetch(link, gid, on_event, why)
    finished, problem = check(lines)
    problem = problem or (why[0] if why else None)
    if not lines:
        if problem:
            _say("game %d: unreadable on the board (%s); left there" % (gid, problem))
        return gid, None, False
    path = save(out, gid, lines, broken=problem is not None)
    if problem:
        _say("game %d: %s; left on the board" % (gid, problem))
    deleted = False
    # over: it ended, or it is not the game being played (then it can never go on)
    over = finished or (entry is not None and entry.get("current") is False
                        and not entry.get("broken"))
    if confirm and over and problem is None:
        ev = link.request({"cmd": "confirm", "game": gid}, "confirm",
                          match=lambda e: e.get("game") == gid and "deleted" in e,
                          on_event=on_event)
        deleted = bool(ev["deleted"])
    return gid, path, deleted


def run(args):
    confirm = not args.no_confirm
    progress = not args.quiet
    if not args.follow:
        try:
            link = connect(args.port, create=False)
        except LinkError as e:
            raise UserError(str(e)) from None
        try:
            _make_out(args.out)
            done = pull(link, args.out, confirm, progress)
        except (LinkError, TransferError, RuntimeError) as e:
            raise UserError("%s (games already saved are kept; run again)" % e) from None
        except OSError as e:
            raise UserError("cannot write to %s: %s (games already saved are kept)"
                            % (args.out, e.strerror or e)) from None
        finally:
            link.close()
        for gid, path, deleted in done:
            if path:
                _say("game %d -> %s%s" % (gid, path, " (deleted on the board)"
                                           if deleted else " (kept on the board)"))
        _say("%d game(s) pulled" % sum(1 for d in done if d[1]))
        return 0
    return follow(args, confirm, progress)


def _make_out(out):
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as e:
        raise UserError("cannot create %s: %s" % (out, e.strerror)) from None


def follow(args, confirm, progress):
    _make_out(args.out)
    saved = set()

    def emit(ev):
        sys.stdout.write(json.dumps(ev) + "\n")
        sys.stdout.flush()

    def note(done):
        for gid, path, _ in done:
            if path:
                saved.add(path)
                _say("game %d -> %s" % (gid, path))

    def enough():
        return args.stop_after is not None and len(saved) >= args.stop_after

    while True:
        link = connect(args.port, retry=True, say=_say, create=False)
        try:
            note(pull(link, args.out, confirm, progress, on_event=emit))
            _say("following %s (Ctrl-C to stop)" % args.port)
            while not enough():
                ev = link.read(1.0)
                if ev is None:
                    continue
                emit(ev)
                if ev["ev"] == "game_end" and isinstance(ev.get("game"), int):
                    note([pull_one(link, ev["game"], args.out, confirm, emit)])
        except (LinkError, TransferError, RuntimeError) as e:
            _say("line lost (%s); waiting for the board" % e)
            continue
        finally:
            link.close()
        return 0
