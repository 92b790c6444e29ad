"""The owner of the board's page (nardy.webserve): a password of the board's own,
kept on flash, the sessions it opens, and a limit on wrong guesses.

``owner_password(data_dir, urandom)`` is the one entry point other network code
shares (the board's access point may show or reuse the same file): the password is
made once from the board's random numbers, never a constant of the code, and kept
in ``web.json`` on flash. Anyone on the network may watch the page; changing
anything (settings, a new match, deleting a game) and downloading the journal need
a session, opened by one login with the password (a cookie), never the password
on every request.

Wrong passwords: ``_FREE_TRIES`` are answered "wrong", then each further one locks
the login for ``_LOCK_S`` seconds, doubling with every wrong try after it up to
``_LOCK_MAX_S`` (a guesser gets a few hundred tries a day at most; a right
password resets it). Loaded only when the page is served: no heap otherwise.
"""

import json

from micropython import const

_FILE = "/web.json"
# no 0/O, 1/l/I: the owner reads it off a screen or a USB line and types it
_LETTERS = "abcdefghjkmnpqrstuvwxyz23456789"
_PW_LEN = const(12)          # 31^12: about 59 bits
_FREE_TRIES = const(5)
_LOCK_S = const(30)
_LOCK_MAX_S = const(3600)
_SESSIONS = const(4)         # sessions open at once (the oldest goes first)
_TOKEN_BYTES = const(16)


def random_text(urandom, n, letters=_LETTERS):
    """``n`` characters of ``letters`` from the random bytes ``urandom(k)``, without
    bias (a byte beyond the largest multiple of the alphabet is drawn again)."""
    out = []
    top = 256 - 256 % len(letters)
    while len(out) < n:
        for b in urandom(n):
            if b < top and len(out) < n:
                out.append(letters[b % len(letters)])
    return "".join(out)


def _hex(urandom, n):
    return "".join("%02x" % b for b in urandom(n))


def owner_password(data_dir, urandom):
    """The board's owner password, from ``data_dir/web.json``; made (random) and
    written there the first time. A file that cannot be read as one is replaced."""
    path = data_dir + _FILE
    d = {}
    try:
        with open(path) as f:
            d = json.loads(f.read(512))
    except (OSError, ValueError):
        pass
    if not isinstance(d, dict):
        d = {}
    pw = d.get("password")
    if isinstance(pw, str) and 8 <= len(pw) <= 64:
        return pw
    d["password"] = pw = random_text(urandom, _PW_LEN)
    with open(path, "w") as f:
        f.write(json.dumps(d))
    return pw


def same(a, b):
    """``a == b`` for two texts, in a time that does not tell where they differ."""
    if not isinstance(a, str) or not isinstance(b, str):
        return False
    a, b = a.encode(), b.encode()
    diff = len(a) ^ len(b)
    for i in range(len(a)):
        diff |= a[i] ^ b[i % len(b)] if b else 1
    return diff == 0


class Refused(Exception):
    """A login refused: ``code`` the HTTP status (401 wrong, 429 locked),
    ``wait`` the seconds before the next try may be made (0: now)."""

    def __init__(self, code, text, wait=0):
        super().__init__(text)
        self.code = code
        self.wait = wait


class Guard:
    """The owner's sessions and the lock-out. ``now()``: seconds (any origin; the
    board's real clock, not the game's)."""

    def __init__(self, password, urandom, now):
        self.password = password
        self.urandom = urandom
        self.now = now
        self.fails = 0           # wrong tries since the last right one
        self.until = 0           # no login before this time
        self.sessions = []       # [session id, CSRF token], the newest last

    def wait(self):
        """Seconds before a login may be tried (0: now)."""
        return max(0, self.until - self.now())

    def login(self, password):
        """(session id, CSRF token) for the right password; Refused otherwise."""
        left = self.wait()
        if left:
            raise Refused(429, "too many wrong passwords: try again in %d s" % left, left)
        if not same(password, self.password):
            self.fails += 1
            over = self.fails - _FREE_TRIES - 1
            if over >= 0:
                lock = min(_LOCK_MAX_S, _LOCK_S << min(over, 12))
                self.until = self.now() + lock
                raise Refused(429, "wrong password; locked for %d s" % lock, lock)
            raise Refused(401, "wrong password (%d more wrong, then a lock-out)"
                          % (_FREE_TRIES - self.fails))
        self.fails = 0
        s = [_hex(self.urandom, _TOKEN_BYTES), _hex(self.urandom, _TOKEN_BYTES)]
        self.sessions.append(s)
        del self.sessions[:-_SESSIONS]
        return s[0], s[1]

    def token(self, sid):
        """The CSRF token of session ``sid``, or None (no such session)."""
        if not isinstance(sid, str):
            return None
        for s in self.sessions:
            if same(s[0], sid):
                return s[1]
        return None

    def logout(self, sid):
        self.sessions = [s for s in self.sessions if not same(s[0], sid)]
