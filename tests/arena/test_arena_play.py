"""Arena game records and replay."""
import copy
import json

import pytest

import glory_ai
from glory_ai.arena import ArenaError, RunConfig, play_game, replay, strip_timing
from glory_ai.arena.play import RECORD_VERSION, TIMING_FIELDS

FIELDS = ["record_version", "version", "game_id", "deal", "pairing", "rotation", "seed",
          "bot_seeds", "seats", "num_players", "mode", "variant", "scores", "winners",
          "returns", "vp", "structures", "functions_used", "end_reason", "turns", "decisions",
          "seat_decisions", "roles_led", "seconds", "seconds_per_decision", "actions"]


def _records():
    configs = [
        RunConfig(specs=("greedy", "random"), deals=2, seed=3),
        RunConfig(specs=("random", "heuristic:style=legionary", "greedy"), players=3, deals=1,
                  mode="imperium"),
        RunConfig(specs=("heuristic:style=builder", "random"), deals=1, seed=4,
                  variant={"refill_size": 6, "removed": ["Sewer"], "copies": {"Forum": 2}}),
    ]
    return [play_game(t) for c in configs for t in c.tasks()]


RECORDS = _records()


def test_a_record_holds_every_field_compactly():
    rec = RECORDS[0]
    assert list(rec) == FIELDS
    assert rec["record_version"] == RECORD_VERSION and rec["version"] == glory_ai.__version__
    n = rec["num_players"]
    for key in ("bot_seeds", "seats", "scores", "returns", "vp", "structures", "seat_decisions",
                "seconds", "seconds_per_decision"):
        assert len(rec[key]) == n, key
    assert set(rec["vp"][0]) == {"influence", "vault", "merchant_bonus", "statue", "wall", "total"}
    assert [v["total"] for v in rec["vp"]] == rec["scores"]
    assert set(rec["structures"][0]) == {"complete", "incomplete"}
    assert all(isinstance(a, int) for a in rec["actions"])
    assert rec["decisions"] == len(rec["actions"]) == sum(rec["seat_decisions"])
    assert len(rec["roles_led"]) == n and sum(sum(r.values()) for r in rec["roles_led"]) <= rec["turns"]
    assert all(role in glory_ai.ROLES for r in rec["roles_led"] for role in r)
    assert rec["end_reason"] and rec["turns"] >= 1
    assert abs(sum(rec["returns"])) < 1e-9 or sum(rec["returns"]) > 0
    line = json.dumps(rec, separators=(",", ":"))
    assert "\n" not in line and json.loads(line) == rec


def test_play_game_is_a_function_of_the_task():
    config = RunConfig(specs=("greedy", "random"), deals=2, seed=3)
    again = [play_game(t) for t in config.tasks()]
    assert [strip_timing(r) for r in again] == [strip_timing(r) for r in RECORDS[:4]]
    assert set(TIMING_FIELDS) <= set(RECORDS[0])


def test_replay_rebuilds_every_recorded_game():
    for rec in RECORDS:
        state = replay(json.loads(json.dumps(rec)))
        assert state.is_terminal() and state.scores() == rec["scores"]
        assert state.history() == rec["actions"]


@pytest.mark.parametrize("tamper, message", [
    (lambda r: r["scores"].__setitem__(0, r["scores"][0] + 1), "scores differs"),
    (lambda r: r.__setitem__("winners", [1 - r["winners"][0]]), "winners differs"),
    (lambda r: r.__setitem__("end_reason", "concession"), "end_reason differs"),
    (lambda r: r["vp"][1].__setitem__("vault", 99), "vp differs"),
    (lambda r: r.__setitem__("seed", r["seed"] + 1), "action"),
    (lambda r: r["actions"].pop(), "not over"),
    (lambda r: r["actions"].append(1), "game is over"),
    (lambda r: r["actions"].__setitem__(3, 100_000), "action 3"),
    (lambda r: r.__delitem__("actions"), "no actions"),
])
def test_replay_detects_a_tampered_record(tamper, message):
    rec = copy.deepcopy(RECORDS[0])
    tamper(rec)
    with pytest.raises(ArenaError, match=message) as info:
        replay(rec)
    assert f"game {rec['game_id']}" in str(info.value)


def test_a_search_bot_game_is_reproducible():
    config = RunConfig(specs=("ismcts:iters=30", "random"), deals=1, seed=11, rotate=False)
    task = next(config.tasks())
    first, second = play_game(task), play_game(task)
    assert strip_timing(first) == strip_timing(second)
    replay(first)


def test_a_game_that_does_not_end_is_adjudicated_at_the_decision_limit(monkeypatch):
    # bots that cycle without end must not stall a run: the game is scored where it stands
    from glory_ai.arena import play as play_module

    monkeypatch.setattr(play_module, "MAX_DECISIONS", 40)
    task = next(iter(RunConfig(specs=("random", "greedy"), deals=1, seed=2).tasks()))
    rec = play_game(task)
    assert rec["end_reason"] == "decision_limit" and rec["decisions"] == 40
    state = replay(rec)
    assert not state.is_terminal()
    scores = state.scores()
    best = max((scores[p], len(state.zone("hand", p))) for p in range(2))
    assert rec["winners"] == [p for p in range(2) if (scores[p], len(state.zone("hand", p))) == best]
    assert sum(rec["returns"]) == 1.0
