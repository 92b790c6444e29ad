"""Fuzz the tracker with arbitrary observation sequences: it never raises, it never
finishes a turn with an illegal position unless the opponent accepted it (and only a
verdict can be accepted), and a result read off the board is the board."""

import random

from fakeobs import Obs, show
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nardy.longnardy import LongNardy
from nardy.shortnardy import ShortNardy
from nardy.tracker import DONE, VERDICT, Tracker
from nardy.zones import BLIND, NZONES, Layout


def reachable(v, seed, turns):
    rng = random.Random(seed)
    pos = v.start_position()
    for _ in range(turns):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        _, pos = rng.choice(v.legal_turns(pos, dice))
    return pos


ACTIONS = ("arbitrary", "step", "lift", "perturb", "button", "accept", "confirm", "tick",
           "restore", "opponent")


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_arbitrary_observations(data):
    v = data.draw(st.sampled_from([LongNardy, ShortNardy]))()
    pos = reachable(v, data.draw(st.integers(0, 10**6)), data.draw(st.integers(0, 30)))
    dice = (data.draw(st.integers(1, 6)), data.draw(st.integers(1, 6)))
    lay = Layout(data.draw(st.sampled_from([5, 5, 5, 3, 1])))
    trk = Tracker(v, lay)
    obs = show(v, lay, pos)
    trk.start_turn(pos, dice, obs)
    truth = pos
    accepted_by_call = False
    for _ in range(data.draw(st.integers(1, 14))):
        act = data.draw(st.sampled_from(ACTIONS))
        if act == "arbitrary":
            obs = Obs()
            for z in range(1, NZONES):
                obs.vis_w[z] = data.draw(st.integers(0, lay.cap[z]))
                obs.vis_b[z] = data.draw(st.integers(0, lay.cap[z]))
                obs.open_[z] = BLIND if data.draw(st.integers(0, 20)) == 0 else 0
            trk.update(obs)
        elif act == "step":
            played = trk.played if trk.state != DONE else ()
            steps = v.next_steps(pos, dice, played) if not any(
                trk.hyps[0][2]) else []
            if steps:
                truth = v.apply_step(trk.position, data.draw(st.sampled_from(steps)))
                obs = show(v, lay, truth)
                trk.update(obs)
        elif act == "lift":
            z = data.draw(st.integers(1, NZONES - 1))
            c = data.draw(st.integers(0, 1))
            vis = obs.vis_w if c == 0 else obs.vis_b
            if vis[z]:
                vis[z] -= 1
                trk.update(obs)
        elif act == "perturb":
            z = data.draw(st.integers(1, NZONES - 1))
            c = data.draw(st.integers(0, 1))
            vis = obs.vis_w if c == 0 else obs.vis_b
            vis[z] = data.draw(st.integers(0, lay.cap[z]))
            trk.update(obs)
        elif act == "opponent":
            # the mover moves one of the opponent's checkers (or a hit blot stays)
            c = 1 - pos.turn
            vis = obs.vis_w if c == 0 else obs.vis_b
            a = data.draw(st.integers(1, NZONES - 1))
            b = data.draw(st.integers(1, NZONES - 1))
            if vis[a] and vis[b] < lay.cap[b] and a != b:
                vis[a] -= 1
                vis[b] += 1
                trk.update(obs)
        elif act == "restore":
            obs = show(v, lay, truth)
            trk.update(obs)
        elif act == "button":
            trk.end_turn(obs)
        elif act == "accept":
            was = trk.state
            if trk.accept(obs):
                assert was == VERDICT       # never the mover's OK on anything else
                accepted_by_call = True
        elif act == "confirm":
            trk.confirm(data.draw(st.integers(0, 6)))
        elif act == "tick":
            trk.tick(obs, data.draw(st.integers(0, 10000)))
        trk.events.clear()
        if trk.state == DONE:
            r = trk.result
            if r["accepted"]:
                assert accepted_by_call
            else:
                # finished without the opponent's acceptance: must be a legal result
                assert v.check_turn(pos, dice, r["position"]) is None, (r, dice)
            assert r["position"].turn == 1 - pos.turn
            if r["observed"]:
                # read off the board: the journal holds what the board shows
                seen = trk.observed_position(obs)
                assert seen is not None and seen.board == r["position"].board
            break
