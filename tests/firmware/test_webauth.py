"""The owner of the board's page (nardy.webauth): a random password of the board's
own, kept on flash; sessions; wrong passwords limited by a growing lock-out."""

from apputil import rmtree, tmpdir

from nardy import webauth


class Clock:
    def __init__(self):
        self.t = 1000

    def __call__(self):
        return self.t


def _counter_random():
    """Deterministic "random" bytes (each call different), for the tokens."""
    state = [0]

    def urandom(n):
        state[0] += 1
        return bytes([(state[0] * 37 + i * 11) & 0xFF for i in range(n)])
    return urandom


def test_the_password_is_made_once_random_and_kept_on_flash():
    import os
    d = tmpdir("webauth")
    try:
        pw = webauth.owner_password(d, os.urandom)
        assert len(pw) == 12 and all(c in webauth._LETTERS for c in pw)
        # kept: the same after a "reboot", whatever random numbers come then
        assert webauth.owner_password(d, lambda n: b"\0" * n) == pw
        other = tmpdir("webauth2")
        try:
            assert webauth.owner_password(other, os.urandom) != pw   # per board
        finally:
            rmtree(other)
        with open(d + "/web.json", "w") as f:
            f.write("{not json")
        fresh = webauth.owner_password(d, os.urandom)
        assert fresh != pw and webauth.owner_password(d, os.urandom) == fresh
    finally:
        rmtree(d)


def test_random_text_is_unbiased_over_the_letters():
    # bytes beyond the largest multiple of the alphabet are drawn again: 255 is
    # never used (31 * 8 = 248), 0 and 31 give the same letter
    seq = iter([255, 0, 31, 250, 1])
    t = webauth.random_text(lambda n: bytes([next(seq) for _ in range(min(n, 1))]), 3)
    assert t == "aab", t


def test_same_compares_whole_texts():
    assert webauth.same("abc", "abc")
    assert not webauth.same("abc", "abd")
    assert not webauth.same("abc", "abcd")
    assert not webauth.same("abc", "")
    assert not webauth.same(None, "abc")
    assert not webauth.same("abc", 3)


def test_five_wrong_then_a_lock_out_that_grows():
    clock = Clock()
    g = webauth.Guard("right-password", _counter_random(), clock)
    for i in range(5):
        try:
            g.login("wrong")
            raise AssertionError("a wrong password was accepted")
        except webauth.Refused as e:
            assert e.code == 401 and e.wait == 0, (i, e.code)
    locks = []
    for _ in range(3):
        try:
            g.login("wrong")
            raise AssertionError("a wrong password was accepted")
        except webauth.Refused as e:
            assert e.code == 429
            locks.append(e.wait)
        # while locked even the right password is refused
        try:
            g.login("right-password")
            raise AssertionError("a login went through the lock-out")
        except webauth.Refused as e:
            assert e.code == 429 and 0 < e.wait <= locks[-1]
        clock.t += locks[-1]
    assert locks == [30, 60, 120], locks
    sid, tok = g.login("right-password")
    assert g.token(sid) == tok and sid != tok
    # a right password resets the count: five free tries again
    for _ in range(5):
        try:
            g.login("wrong")
        except webauth.Refused as e:
            assert e.code == 401


def test_sessions_are_few_and_end_on_logout():
    g = webauth.Guard("pw-pw-pw-pw", _counter_random(), Clock())
    sids = [g.login("pw-pw-pw-pw")[0] for _ in range(6)]
    assert len(set(sids)) == 6
    assert g.token(sids[0]) is None and g.token(sids[1]) is None   # the oldest went
    assert g.token(sids[-1]) is not None
    g.logout(sids[-1])
    assert g.token(sids[-1]) is None
    assert g.token(None) is None and g.token("") is None


def test_a_board_serves_its_page_only_with_web_on():
    from nardy.hal_esp32 import web_on
    d = tmpdir("webon")
    try:
        assert web_on(d + "/web.on") is None          # no file: no page, no microdot
        for text, want in (("8080\n", ("0.0.0.0", 8080)), ("", ("0.0.0.0", 80)),
                           ("eighty", None)):
            with open(d + "/web.on", "w") as f:
                f.write(text)
            assert web_on(d + "/web.on") == want, text
    finally:
        rmtree(d)
