"""A user's bot that fails stops the run with one line naming the bot, the game, its seeds
and the decision; the finished games stay on disk and the run resumes once the bot is
fixed. With --forfeit the failing bot concedes that game and the run goes on; every record
still replays."""
from __future__ import annotations

import json

import pytest

from glory_ai.analysis.commands import main_compare
from glory_ai.arena import RunConfig, load_records, replay, run
from glory_ai.arena.code import read_code
from glory_ai.arena.play import BotFailure, PlayOptions, play_game
from support.userbots import write_bot

FLAKY = """
    import random
    import time


    class Flaky:
        def __init__(self, seed=0, fail_seed=0, after=12):
            self.seed, self.fail_seed, self.after = seed, fail_seed, after
            self.rng = random.Random(seed)
            self.calls = 0

        def step(self, state):
            self.calls += 1
            legal = state.legal_actions()
            if self.seed == self.fail_seed and self.calls > self.after:
                FAULT
            return self.rng.choice(legal)
"""

FAULTS = {
    "raised": ("return 1 // 0", "raised ZeroDivisionError: integer division or modulo by zero"),
    "illegal": ("return 999999", "returned action 999999, which is not legal here"),
    "not_an_action": ("return str(legal[0])", "(a str), not an action id (an int)"),
    "mutated": ("state.apply_action(legal[0]); return legal[0]", "changed the state it was handed"),
    "time_limit": ("time.sleep(1.5)", "over the move time limit of 0.3 s"),
}

GAMES = 8
#: the game the bot fails in: the third deal, the bot in seat 0
FAILING = RunConfig.for_games(["random", "greedy"], GAMES).task(2, 0, 0)


def _bot(folder, fault):
    source = FLAKY.replace("FAULT", FAULTS[fault][0] if fault else "pass")
    write_bot(folder / "flaky.py", source)
    return f"./flaky.py:Flaky:fail_seed={FAILING.bot_seeds[0]}"


def _compare(spec, *options):
    return main_compare([spec, "random", "--games", str(GAMES), "--jobs", "1", "--batch-size", "1",
                         "--no-progress", "--out", "run", "--trust", *options])


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_failing_bot_stops_the_run_in_one_line_and_resumes_once_fixed(fault, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    spec = _bot(tmp_path, fault)
    limit = ["--move-time-limit", "0.3"] if fault == "time_limit" else []
    assert _compare(spec, *limit) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith(f"glory-ai: error: bot {spec} (seat 0) ")
    assert FAULTS[fault][1] in err
    assert (f"in game 2-0-0 (deal seed {FAILING.seed}, bot seed {FAILING.bot_seeds[0]}) at decision "
            in err)
    assert "fix the bot and run the same command again to resume" in err
    # the games finished before stay on disk, whole, and replay
    done = load_records(tmp_path / "run")
    assert [r["game_id"] for r in done] == ["0-0-0", "0-0-1", "1-0-0", "1-0-1"]
    for record in done:
        replay(record)
    failure = read_code(tmp_path / "run")["failure"]
    assert failure["bot"] == "./flaky.py:Flaky" and failure["game_id"] == "2-0-0"
    assert failure["reason"] == fault
    # fixed (the file changed, and only it), the same command resumes
    _bot(tmp_path, None)
    assert _compare(spec, *limit) == 0
    out = capsys.readouterr().out
    assert f"played {GAMES - 4} games" in out and "(4 resumed from the folder)" in out
    records = load_records(tmp_path / "run")
    assert len(records) == GAMES and not any("forfeits" in r for r in records)
    code = read_code(tmp_path / "run")
    assert "failure" not in code
    [earlier] = code["earlier"]
    assert earlier["games"] == 4 and earlier["failure"]["game_id"] == "2-0-0"
    assert (earlier["code"]["bots"]["./flaky.py:Flaky"]["sha256"]
            != code["code"]["bots"]["./flaky.py:Flaky"]["sha256"])


def test_a_failing_bot_forfeits_its_game_with_forfeit(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    spec = _bot(tmp_path, "raised")
    assert _compare(spec, "--forfeit") == 0
    records = {r["game_id"]: r for r in load_records(tmp_path / "run")}
    assert len(records) == GAMES
    lost = records["2-0-0"]
    [forfeit] = lost["forfeits"]
    assert forfeit["seat"] == 0 and forfeit["reason"] == "raised"
    assert forfeit["message"] == "raised ZeroDivisionError: integer division or modulo by zero"
    assert forfeit["decision"] == len(lost["actions"]) and lost["seat_decisions"][0] == 12
    assert lost["end_reason"] == "concession" and lost["winners"] == [1]
    assert [gid for gid, r in records.items() if "forfeits" in r] == ["2-0-0"]
    for record in records.values():
        replay(record)
    # a record whose forfeit is altered no longer replays
    altered = dict(lost, forfeits=[dict(forfeit, decision=forfeit["decision"] - 1)])
    with pytest.raises(ValueError, match="game 2-0-0"):
        replay(altered)


def test_a_forfeit_in_a_field_lets_the_others_play_on(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    spec = _bot(tmp_path, "illegal")
    config = RunConfig(specs=(spec, "random", "greedy"), players=3, deals=1, seed=3, rotate=False)
    fail_seed = config.task(0).bot_seeds[0]
    spec = spec.replace(f"fail_seed={FAILING.bot_seeds[0]}", f"fail_seed={fail_seed}")
    config = RunConfig(specs=(spec, "random", "greedy"), players=3, deals=1, seed=3, rotate=False)
    [record] = run(config, n_jobs=1, forfeit=True).records
    assert record["forfeits"][0]["seat"] == 0 and record["forfeits"][0]["reason"] == "illegal"
    assert record["end_reason"] != "concession" and 0 not in record["winners"]
    assert len(record["actions"]) > record["forfeits"][0]["decision"]
    assert replay(record).has_conceded(0)


HOOKS = """
    class Hooked:
        def __init__(self, seed=0, where="step"):
            self.where = where
            if where == "init":
                raise ValueError("no")

        def new_game(self, state, player):
            if self.where == "new_game":
                raise KeyError("start")

        def observe(self, state, player, action):
            if self.where == "observe" and player != state.current_player():
                raise RuntimeError("watching")

        def step(self, state):
            return state.legal_actions()[0]
"""


@pytest.mark.parametrize("where, words", [("init", "raised ValueError: no while being built"),
                                          ("new_game", "raised KeyError: 'start' in new_game"),
                                          ("observe", "raised RuntimeError: watching in observe")])
def test_a_failing_hook_or_constructor_is_a_failure_of_the_bot(where, words, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_bot(tmp_path / "hooked.py", HOOKS)
    spec = f"./hooked.py:Hooked:where={where}"
    config = RunConfig(specs=("random", spec), deals=1, rotate=False)
    with pytest.raises(BotFailure) as caught:
        play_game(config.task(0))
    assert caught.value.seat == 1 and words in str(caught.value) and "in game 0-0-0" in str(caught.value)
    [record] = run(config, n_jobs=1, forfeit=True).records
    assert record["forfeits"][0]["seat"] == 1 and record["winners"] == [0]
    replay(record)


def test_the_failure_crosses_process_boundaries_whole(tmp_path, monkeypatch):
    import pickle

    failure = BotFailure("bot x failed", spec="x", seat=1, game_id="2-0-0", seed=5, bot_seed=6,
                         decision=7, reason="illegal")
    again = pickle.loads(pickle.dumps(failure))
    assert (str(again), again.seat, again.game_id, again.seed, again.bot_seed, again.decision,
            again.reason) == ("bot x failed", 1, "2-0-0", 5, 6, 7, "illegal")
    assert PlayOptions().move_time_limit is None


def test_play_options_refuse_a_bad_time_limit():
    from glory_ai.arena import ArenaError
    from glory_ai.arena.play import play_options

    config = RunConfig(specs=("random", "greedy"))
    assert play_options(config) is None
    assert play_options(config, move_time_limit=2).move_time_limit == 2.0
    for bad in (0, -1, float("nan"), "1", True):
        with pytest.raises(ArenaError, match="the move time limit is a positive number of seconds"):
            play_options(config, move_time_limit=bad)
    assert json.dumps(play_options(config, forfeit=True).forfeit) == "true"


def test_a_failure_on_a_worker_process_is_the_same_line_and_resumes(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    spec = _bot(tmp_path, "raised")
    assert main_compare([spec, "random", "--games", str(GAMES), "--jobs", "2", "--batch-size", "1",
                         "--no-progress", "--out", "run", "--trust"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and f"bot {spec} (seat 0) raised ZeroDivisionError" in err
    assert "in game 2-0-0" in err
    assert read_code(tmp_path / "run")["failure"]["game_id"] == "2-0-0"
    # With two workers the failing game can end the run before any other game is written.
    kept = len(load_records(tmp_path / "run")) if any((tmp_path / "run").glob("games.jsonl*")) else 0
    _bot(tmp_path, None)
    assert main_compare([spec, "random", "--games", str(GAMES), "--jobs", "2", "--no-progress",
                         "--out", "run", "--trust"]) == 0
    assert f"({kept} resumed from the folder)" in capsys.readouterr().out or kept == 0
    assert len(load_records(tmp_path / "run")) == GAMES
