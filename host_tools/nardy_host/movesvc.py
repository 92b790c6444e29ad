"""The engine's public face as JSON lines (used by ``nardy moves``).

One request per line: ``{"variant": "long"|"short", "position": P, "dice": [a, b]}``
with optional ``"options": {name: bool}``. One reply per line, in order:
``{"n": N, "moves": [{"steps": [[from, to], ...], "position": P}, ...]}`` with the
distinct resulting positions (the opponent to move in them), or ``{"error": "..."}``.
A bad line never stops the batch and gets exactly one error line: not UTF-8, not
JSON, nested too deep, longer than ``MAX_LINE`` bytes (read through, never held).
Nothing but answers goes to the output. Runs the same under CPython and unix
MicroPython:

    micropython -X heapsize=112wK -c "from nardy_host.movesvc import main; main()"

(with firmware/ and host_tools/ on ``sys.path``: ``nardy_host.moves.micropython_cmd``).
Host code: the board never imports it (it lives beside the host tools, not in the
firmware package).
"""

import gc
import json
import sys

from micropython import const  # CPython: the shim nardy/__init__.py installs

from nardy.posjson import from_json, to_json
from nardy.variants import find_variant

MAX_LINE = const(16384)    # bytes; a request is ~400, a position with options ~600
_PIECE = const(512)        # bytes read at a time (a request is one or two pieces)
_MAX_NESTING = const(64)   # brackets in a request; a position with options has ~8
_STARVED = const(8)        # reads in a row that may fail for memory while a line is skipped


def _dice(obj):
    d = obj.get("dice")
    if (not isinstance(d, list) or len(d) != 2 or
            not all(isinstance(x, int) and not isinstance(x, bool) and 1 <= x <= 6
                    for x in d)):
        raise ValueError("dice must be a list of two integers 1..6")
    return (d[0], d[1])


def _request(line):
    try:
        obj = json.loads(line)
    except (ValueError, RuntimeError):
        # RuntimeError: a line nested too deep (CPython's RecursionError)
        raise ValueError("not valid JSON") from None
    if not isinstance(obj, dict):
        raise ValueError("request must be a JSON object")
    v = find_variant(obj.get("variant"), obj.get("options"))
    return v, from_json(v, obj.get("position")), _dice(obj)


def write_answer(line, write):
    """Answer one input line through ``write`` (the text of one line, no newline).
    Never raises. The reply is streamed move by move: a double with 1,800 results
    would not fit the ESP32 heap as one string."""
    try:
        v, pos, dice = _request(line)
        n = v.count_turns(pos, dice)
    except (ValueError, TypeError, KeyError, AttributeError, RuntimeError) as e:
        write(json.dumps({"error": str(e) or type(e).__name__}))
        return
    except MemoryError:
        write(json.dumps({"error": "out of memory"}))
        return
    write('{"n": %d, "moves": [' % n)
    first = True
    for steps, res in v.turns(pos, dice):
        if not first:
            write(", ")
        first = False
        write(json.dumps({"steps": [[f, t] for f, t in steps], "position": to_json(res)}))
    write("]}")


def answer_line(line):
    """The whole reply line for one input line (for callers with memory to spare)."""
    parts = []
    write_answer(line, parts.append)
    return "".join(parts)


class _Lines:
    """The lines of a binary stream, each read in pieces of at most ``_PIECE``
    bytes: a line is never asked for in one block (a 16 KB ``readline`` on a loaded
    heap raised MemoryError and ended the batch), and a request (one piece, ~500
    bytes) costs no more than itself."""

    def __init__(self, inp):
        self.inp = inp
        self.reading = False    # inside ``next``: a MemoryError left a line half read

    def next(self):
        """The next line (bytes, with its newline if it had one), None for one longer
        than MAX_LINE (read through, never held), or b"" at the end of the input.
        A MemoryError may come out of it: ``skip`` then reads through that line."""
        self.reading = True
        first = None
        parts = None
        n = 0
        while True:
            piece = self.inp.readline(_PIECE)
            if piece and n <= MAX_LINE:
                n += len(piece)
                if n > MAX_LINE:
                    first = parts = None        # over-long: the rest is read through
                elif first is None:
                    first = piece
                else:
                    if parts is None:
                        parts = [first]
                    parts.append(piece)
            if not piece or piece[-1] == 10:
                self.reading = False
                if n > MAX_LINE:
                    return None
                if parts is not None:
                    return b"".join(parts)
                return first if first is not None else b""

    def skip(self):
        """After a MemoryError: read through the line ``next`` was reading, in small
        pieces (nothing, if the line had been read whole)."""
        starved = 0
        while self.reading:
            try:
                piece = self.inp.readline(64)
            except MemoryError:
                starved += 1
                if starved > _STARVED:
                    raise
                gc.collect()
                continue
            if not piece or piece[-1] == 10:
                self.reading = False


def _answer(raw, write):
    """One input line (bytes or a memoryview, None for an over-long one) answered;
    False for a blank line (no answer)."""
    if raw is None:
        write('{"error": "line longer than %d bytes"}' % MAX_LINE)
        return True
    try:
        line = str(raw, "utf-8")
    except (UnicodeError, ValueError):
        write('{"error": "not UTF-8"}')
        return True
    if not line.strip():
        return False
    if line.count("[") + line.count("{") > _MAX_NESTING:
        # refused unparsed: a parse 4,000 brackets deep runs the heap out
        write('{"error": "nested deeper than %d"}' % _MAX_NESTING)
        return True
    write_answer(line, write)
    return True


def main(inp=None, out=None):
    """Answer every line of ``inp`` (a binary stream; default stdin) on ``out``: one
    answer per line, also when the heap runs out while the line is read (that line
    gets ``out of memory``; the lines after it are answered)."""
    if inp is None:
        inp = sys.stdin.buffer
    out = out or sys.stdout
    lines = _Lines(inp)
    while True:
        try:
            raw = lines.next()
            if raw == b"":
                return
            if not _answer(raw, out.write):
                continue
        except MemoryError:
            raw = None
            gc.collect()
            lines.skip()
            out.write('{"error": "out of memory"}')
        out.write("\n")
        if hasattr(out, "flush"):
            out.flush()
