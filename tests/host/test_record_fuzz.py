"""The one journal reader (``nardy.record.Reader``) under byte-level mutations of real
journals: it never raises, and what it says is consistent with the bytes."""

import io
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from journals import play

from nardy import record
from nardy.longnardy import LongNardy
from nardy.shortnardy import ShortNardy


def _journal(seed, variant):
    v = LongNardy() if variant == "long" else ShortNardy()
    return "".join(record.dumps(r) + "\n" for r in play(v, random.Random(seed),
                                                         accept_illegal=0.1)).encode()


JOURNALS = [_journal(1, "long"), _journal(2, "short")]

mutation = st.one_of(
    st.tuples(st.just("flip"), st.integers(0, 10 ** 6), st.integers(0, 7)),
    st.tuples(st.just("cut"), st.integers(0, 10 ** 6), st.just(0)),
    st.tuples(st.just("erase"), st.integers(0, 10 ** 6), st.sampled_from([0x00, 0xFF])),
    st.tuples(st.just("insert"), st.integers(0, 10 ** 6), st.integers(0, 255)),
    st.tuples(st.just("drop"), st.integers(0, 10 ** 6), st.integers(1, 200)),
)


def _mutate(data, muts):
    b = bytearray(data)
    for kind, at, x in muts:
        if not b:
            break
        i = at % len(b)
        if kind == "flip":
            b[i] ^= 1 << x
        elif kind == "cut":
            del b[i:]
        elif kind == "erase":
            b[i:] = bytes([x]) * (len(b) - i)
        elif kind == "insert":
            b.insert(i, x)
        else:
            del b[i:i + x]
    return bytes(b)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(JOURNALS) - 1), st.lists(mutation, min_size=1, max_size=4))
def test_mutated_journals_never_raise(which, muts):
    data = _mutate(JOURNALS[which], muts)
    r = record.Reader(io.BytesIO(data))
    recs = list(r)                      # never raises
    if r.problem is None:
        assert r.header is not None and recs[0] is r.header
        assert len(recs) == r.lines
        assert r.keep <= len(data)
        # the kept bytes read again cleanly, with no torn tail
        again = record.Reader(io.BytesIO(data[:r.keep] + (b"" if r.newline else b"\n")))
        assert len(list(again)) == r.lines and not again.torn and again.problem is None
        assert r.finished == (recs[-1]["r"] == "end")
    for rec in recs:
        record.check(rec)               # everything yielded is a valid record


def test_a_clean_journal_reads_whole():
    for data in JOURNALS:
        r = record.Reader(io.BytesIO(data)).scan()
        assert r.problem is None and r.finished and not r.torn and r.keep == len(data)
        assert r.first in ("white", "black")
