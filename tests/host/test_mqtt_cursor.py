"""The broadcast's cursor kept on flash (firmware/nardy/mqttcast.py, netcur.json):
after a power cut the board republishes only what the broker may not have
acknowledged since the cursor was last saved, not the whole game in play from
record 0; a cursor naming another broker, or a game no longer on flash, is not
used."""

import json

from mqttutil import Mosquitto, Subscriber, dedup
from test_mqtt import _board, _journal, _new_game, _set_broker, _turns

SAVE_EVERY = 16          # mqttcast._SAVE_EVERY: the most a power cut repeats


def _cut_and_reboot(tmp_path, b):
    b.kill()                # a power cut: nothing saved at exit
    return _board(tmp_path)


def test_a_power_cut_repeats_at_most_the_unsaved_records(tmp_path, board_path):
    import random
    broker = Mosquitto(str(tmp_path / "mq"))
    sub = Subscriber(broker.port)
    b = _board(tmp_path)
    try:
        _set_broker(b, host="127.0.0.1", port=broker.port, id="table5")
        _new_game(b, "long")
        rng = random.Random(7)
        assert _turns(b, rng, 10)
        gid = b.dump()["game"]
        before = len(_journal(b, gid))
        assert before > 2 * SAVE_EVERY      # more than a save's worth: a repeat shows
        assert sub.wait_for(lambda s: len(dedup(s.events())) >= before)
        b = _cut_and_reboot(tmp_path, b)
        assert b.dump()["game"] == gid      # the game resumed from the journal
        assert _turns(b, rng, 2)
        recs = _journal(b, gid)
        assert sub.wait_for(lambda s: len(dedup(s.events())) >= len(recs), 60)
        got = sub.events()
        once = dedup(got)
        assert [(e["game"], e["seq"]) for e in once] == [(gid, i) for i in range(len(recs))]
        assert [e["rec"] for e in once] == recs
        # the broker got again only what followed the last save, not the game from 0
        assert len(got) - len(once) <= SAVE_EVERY, (len(got) - len(once), before)
        cur = json.loads((tmp_path / "vb" / "netcur.json").read_text())
        assert cur["to"] == "127.0.0.1:%d/nardy/table5" % broker.port
        assert cur["game"] == gid and 0 < cur["seq"] <= len(recs)
    finally:
        b.close()
        sub.close()
        broker.stop()


def test_a_cursor_for_another_broker_or_a_bad_file_is_not_used(tmp_path, board_path):
    broker = Mosquitto(str(tmp_path / "mq"))
    data = tmp_path / "vb"
    b = _board(tmp_path)
    try:
        _new_game(b, "short")
        gid = b.dump()["game"]
        n = len(_journal(b, gid))
    finally:
        b.close()
    for cur in ({"to": "elsewhere:1883/nardy/t", "game": gid, "seq": n, "off": 10 ** 6},
                {"to": "127.0.0.1:%d/nardy/t6" % broker.port, "game": gid, "seq": 1,
                 "off": 10 ** 9},              # past the file's end: not that file
                "not json"):
        (data / "netcur.json").write_text(cur if isinstance(cur, str) else json.dumps(cur))
        sub = Subscriber(broker.port, "nardy/t6/event")
        b = _board(tmp_path)
        try:
            _set_broker(b, host="127.0.0.1", port=broker.port, id="t6")
            # the whole game in play, from record 0
            assert sub.wait_for(lambda s, n=n: len(dedup(s.events())) >= n)
            assert [e["seq"] for e in dedup(sub.events())][:n] == list(range(n))
        finally:
            b.close()
            sub.close()
    broker.stop()
