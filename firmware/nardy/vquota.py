"""A journal file on a virtual board with a flash size (``--flash-size``): writes
stop with OSError 28 (ENOSPC) when the flash is full, after writing what still fits,
as littlefs does on a board. Imported only when a size is given (``nardy.hal_virtual
.Board.flash_open``): a board without one never has it on the heap."""

import io


class QuotaFile(io.IOBase):
    """A file that counts its writes against the board's ``flash_free``, asked once
    per record (after each ``flush``: other files may have grown meanwhile)."""

    def __init__(self, board, f):
        self.board = board
        self.f = f
        self.room = -1          # bytes this file may still write; -1: ask the board

    def write(self, b):
        n = len(b)
        if self.room < n:
            self.room = self.board.flash_free()
        if self.room < n:
            part = self.room
            self.room = 0
            if part > 0:
                self.f.write(b[:part])
                self.f.flush()
            raise OSError(28, "no space left on the flash")
        self.room -= n
        return self.f.write(b)

    def flush(self):
        self.f.flush()
        self.room = -1

    def close(self):
        self.f.close()
