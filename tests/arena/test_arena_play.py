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


def test_games_of_other_rules_in_turn_are_each_played_by_their_own_rules():
    # play_game keeps the Game of the last rules it played: games of two rule sets in turn,
    # and a variant changed in place after its game, each replay by the rules they record
    standard = RunConfig(specs=("random", "greedy"), deals=2, seed=4)
    small = RunConfig(specs=("random", "greedy"), deals=2, seed=4, variant={"petition_size": 3,
                                                                            "refill_size": 4})
    tasks = [t for pair in zip(standard.tasks(), small.tasks(), strict=True) for t in pair]
    records = [play_game(t) for t in tasks]
    assert [r["variant"]["refill_size"] for r in records] == [5, 4] * 4
    for record in records:
        replay(record)
    mutable = copy.deepcopy(tasks[1])
    assert strip_timing(play_game(mutable)) == strip_timing(records[1])
    mutable.variant["refill_size"] = 5           # the same object, other rules now
    changed = play_game(mutable)
    assert changed["variant"]["refill_size"] == 5
    replay(changed)                              # played by the rules it records


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


def _conceded_record(concede_at, seat, players=3):
    """A random game of ``players`` in which ``seat`` concedes after ``concede_at`` actions,
    as the games people play record it (``concessions``, not actions)."""
    import random

    from glory_ai.game import Game
    from glory_ai.interactive.records import build_record

    state = Game(players, "republic").new_initial_state(7)
    chooser = random.Random(1)
    actions = []
    while not state.is_terminal():
        if len(actions) == concede_at and not state.has_conceded(seat):
            state.concede(seat)
            continue
        action = chooser.choice(state.legal_actions())
        state.apply_action(action)
        actions.append(action)
    return build_record(num_players=players, mode="republic", variant={}, seed=7,
                        seats=["human", "random", "random"][:players], bot_seeds=[0] * players,
                        actions=actions, concessions=[{"decision": concede_at, "seat": seat}])


def test_replay_applies_concessions_where_recorded():
    record = _conceded_record(40, 1)
    final = replay(record)
    assert final.is_terminal() and final.has_conceded(1) and 1 not in record["winners"]
    # the result is checked as for any game: a flipped winner is found
    edited = copy.deepcopy(record)
    edited["winners"] = [1]
    with pytest.raises(ArenaError, match="winners differs"):
        replay(edited)
    # a concession moved or dropped does not replay
    for concessions in ([], [{"decision": 41, "seat": 1}], [{"decision": 10_000, "seat": 1}],
                        [{"decision": "40", "seat": 1}]):
        moved = dict(record, concessions=concessions)
        with pytest.raises(ArenaError, match=r"game 0-0-0"):
            replay(moved)


def test_a_two_player_concession_ends_the_game():
    record = _conceded_record(25, 0, players=2)
    assert record["end_reason"] == "concession" and record["winners"] == [1]
    assert replay(record).is_terminal()


def test_a_game_conceded_at_the_play_screen_replays_through_the_arena(tmp_path):
    """The record `glory-ai play` writes when a person concedes mid-game (the bots play on)
    replays through arena.replay itself, the concession applied where it was made."""
    import io

    from glory_ai.arena import load_records
    from glory_ai.interactive.screen import Screen
    from glory_ai.interactive.seats import seat_seeds, seat_specs
    from glory_ai.interactive.session import PlaySession

    screen = Screen(io.StringIO(), io.StringIO("1\n1\nconcede\nyes\n"), plain=True)
    session = PlaySession(num_players=3, mode="republic", variant={}, seed=6,
                          seats=seat_specs(3, ["random", "greedy"], 0), bot_seeds=seat_seeds(6, 3),
                          human=0, hint_bot="random", save_path=tmp_path / "save.json",
                          games_path=tmp_path / "games.jsonl", screen=screen)
    assert session.run() == 0
    [record] = load_records(tmp_path / "games.jsonl")
    [conceded] = record["concessions"]
    assert conceded["seat"] == 0 and 0 < conceded["decision"] < len(record["actions"])
    final = replay(record)
    assert final.has_conceded(0) and final.scores() == record["scores"]
    assert 0 not in record["winners"] and record["winners"] == final.winners()
    # the concession is part of the game: dropped or moved, the record no longer replays
    for concessions in ([], [{"decision": conceded["decision"] + 1, "seat": 0}],
                        [{"decision": conceded["decision"], "seat": 1}]):
        with pytest.raises(ArenaError, match=f"game {record['game_id']}"):
            replay(dict(record, concessions=concessions))
