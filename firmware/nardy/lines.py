"""Protocol lines assembled from a byte stream that delivers bytes as they come.

The ESP32's USB serial (``sys.stdin``) hands over whatever the host has sent so far:
half a line, or a line and a half. ``readline()`` on it would wait for the rest and
stop the scan, so the board reads only the bytes that are already there, one at a
time after a zero-timeout poll, into a preallocated buffer, at most ``budget``
bytes per call, and returns a line once its newline has arrived.

A line longer than the buffer is not kept: its bytes are dropped up to the next
newline, and ``readline`` then returns ``TOO_LONG`` once (the app answers with an
``error``). ``\\r``, ``\\n`` and ``\\r\\n`` all end a line; empty lines are skipped.
Pure: the stream and the poll are injected (tests use a fake that delivers random
chunks).
"""

MAX_LINE = 4096      # the longest protocol line, both ways (docs/PROTOCOL.md)
TOO_LONG = b"\x00too long"   # a marker no JSON line can equal (a NUL is not JSON)


class LineReader:
    """``stream``: ``readinto(buf)`` (reads at most len(buf) bytes, here one);
    ``ready()``: true when a byte can be read without waiting."""

    def __init__(self, stream, ready, max_line=MAX_LINE):
        self.stream = stream
        self.ready = ready
        self.buf = bytearray(max_line)
        self.mv = memoryview(self.buf)
        self.n = 0
        self.over = False          # dropping the rest of an over-long line
        self._one = bytearray(1)
        self.eof = False

    def readline(self, budget=256):
        """A whole line (bytes, without its end) if one is complete, ``TOO_LONG``
        after an over-long line, else None. Reads at most ``budget`` bytes."""
        one = self._one
        buf = self.buf
        size = len(buf)
        stream = self.stream
        ready = self.ready
        while budget > 0 and ready():
            budget -= 1
            got = stream.readinto(one)
            if not got:
                # a readable stream that gives nothing has ended
                self.eof = True
                return None
            c = one[0]
            if c == 10 or c == 13:
                n = self.n
                self.n = 0
                if self.over:
                    self.over = False
                    return TOO_LONG
                if n:
                    return bytes(self.mv[:n])
                continue
            if self.over:
                continue
            if self.n == size:
                self.over = True
                self.n = 0
                continue
            buf[self.n] = c
            self.n += 1
        return None
