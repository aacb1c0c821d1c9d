"""Users' bots in a bot host process (glory_ai.bots.host, glory_ai.arena.hosted): the host never
holds the true state, plays the same games as the worker would, and the worker enforces the
limits a bot cannot be trusted with. Each fault is injected by a bot of tests/plugins/hostile.py."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from glory_ai.analysis.commands import main_compare
from glory_ai.arena import RunConfig, replay, run, strip_timing
from glory_ai.arena.code import read_code
from glory_ai.arena.plan import ArenaError
from glory_ai.arena.play import encode_record
from glory_ai.arena.schema import check_record
from glory_ai.bots._fairplay import fair_view, fair_view_bytes
from glory_ai.game import Game

HOSTILE = Path(__file__).resolve().parent.parent / "plugins" / "hostile.py"
CHEATERS = Path(__file__).resolve().parent.parent / "plugins" / "cheaters.py"


def _bot(name: str) -> str:
    return f"{HOSTILE}:{name}"


def _played(records):
    return [strip_timing(r) for r in records]


def test_fair_view_of_a_fair_view_is_itself():
    # the host puts the view it is sent behind the usual referee: a second fair view changes nothing
    state = Game(3).new_initial_state(11)
    for _ in range(60):
        state.apply_action(state.legal_actions()[-1])
        if state.is_terminal():
            break
    player = state.current_player()
    view = fair_view(state, player, 5)
    assert fair_view(view, player, 5)._raw_bytes() == view._raw_bytes() == fair_view_bytes(state, player, 5)


@pytest.mark.parametrize("jobs", [1, 2])
def test_hosted_play_gives_the_records_of_in_process_play(jobs):
    config = RunConfig((f"{CHEATERS}:Honest", "greedy"), deals=2, seed=3)
    inside = run(config, isolation="none", n_jobs=1, progress=False).records
    hosted = run(config, isolation="users", n_jobs=jobs, progress=False).records
    assert _played(hosted) == _played(inside)
    assert [r.get("isolated_seats") for r in inside] == [None] * 4
    # the user's bot sits in seat 0, then in seat 1 (the rotation)
    assert [r["isolated_seats"] for r in hosted] == [[0], [1], [0], [1]]
    for record in hosted:
        check_record(json.loads(encode_record(record)), config)
        replay(record)


def test_all_hosts_the_builtins_too():
    config = RunConfig(("greedy", "random"), deals=1, seed=2)
    inside = run(config, isolation="none", progress=False).records
    hosted = run(config, isolation="all", progress=False).records
    assert _played(hosted) == _played(inside)
    assert all(r["isolated_seats"] == [0, 1] for r in hosted)
    assert all("isolated_seats" not in r for r in run(config, progress=False).records)


def test_hooks_are_called_in_the_host(tmp_path):
    # new_game and observe cross the pipe too: the hosted bot sees what the in-process one sees
    (tmp_path / "watcher.py").write_text(
        "class Watcher:\n"
        "    def __init__(self, seed=0):\n"
        "        self.seen = 0\n"
        "        self.player = None\n"
        "    def new_game(self, state, player):\n"
        "        self.player, self.seen = player, 0\n"
        "    def observe(self, state, actor, action):\n"
        "        self.seen += 1 if action is None else 2\n"
        "    def step(self, state):\n"
        "        legal = state.legal_actions()\n"
        "        return legal[(self.seen + 7 * self.player) % len(legal)]\n")
    config = RunConfig((f"{tmp_path / 'watcher.py'}:Watcher", "random"), deals=2, seed=8)
    inside = run(config, isolation="none", progress=False).records
    hosted = run(config, isolation="users", progress=False).records
    assert _played(hosted) == _played(inside)


def _hunt(tmp_path: Path, isolation: str, jobs: int) -> tuple[float, float]:
    """(share of the hunter's decisions at which it found a state holding the opponent's true
    hand, share at which its own fair view holds it: chance)."""
    log = tmp_path / f"hunt-{isolation}-{jobs}.jsonl"
    config = RunConfig((f"{_bot('Hunter')}:log={log}", "random"), deals=2, seed=4)
    records = run(config, isolation=isolation, n_jobs=jobs, batch_size=1, progress=False).records
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    by_game: dict[str, list[dict]] = {}
    for entry in entries:
        by_game.setdefault(entry["game"], []).append(entry)
    found = chance = total = 0
    for record in records:
        seat = record["seats"].index(config.specs[0])
        truths = _true_hands(record, seat)
        calls = by_game[str(record["bot_seeds"][seat])]
        assert len(calls) == len(truths)
        for entry, truth in zip(calls, truths, strict=True):
            total += 1
            found += truth in entry["found"]
            chance += truth == entry["view"]
    return found / total, chance / total


def _true_hands(record, seat):
    """The opponent's hand, sorted, at each decision of ``seat`` in a recorded game."""
    state = Game(record["num_players"], record["mode"], **record["variant"]).new_initial_state(record["seed"])
    hands = []
    for action in record["actions"]:
        if state.current_player() == seat:
            hands.append(sorted(state.to_dict()["players"][1 - seat]["hand"]))
        state.apply_action(action)
    return hands


def test_a_hunting_bot_finds_the_true_state_only_in_process(tmp_path):
    found, chance = _hunt(tmp_path, "none", 1)
    assert found > 0.95 and chance < 0.5       # the boundary the host closes: it is real


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_hosted_hunting_bot_finds_the_hidden_cards_at_chance(tmp_path, jobs):
    found, chance = _hunt(tmp_path, "users", jobs)
    # what it finds are its own views (and copies of them): their hands match at chance
    assert found <= chance + 0.05
    assert chance < 0.5


def _compare(tmp_path, spec, *options, jobs=1):
    return main_compare([spec, "random", "--games", "2", "--jobs", str(jobs), "--batch-size", "1",
                         "--no-progress", "--trust", "--out", str(tmp_path / "run"), *options])


def _one_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    return err


def test_a_looping_bot_forfeits_past_the_move_time_limit(tmp_path):
    assert _compare(tmp_path, _bot("Looper"), "--move-time-limit", "1", "--forfeit", jobs=2) == 0
    records = [json.loads(line) for line in (tmp_path / "run" / "games.jsonl").read_text().splitlines()]
    assert len(records) == 2
    for record in records:
        (forfeit,) = record["forfeits"]
        assert forfeit["reason"] == "time_limit" and forfeit["seat"] == record["isolated_seats"][0]
        replay(record)


def test_a_looping_bot_without_forfeit_stops_the_run_naming_it(tmp_path, capsys):
    assert _compare(tmp_path, _bot("Looper"), "--move-time-limit", "1") == 2
    line = _one_line(capsys)
    assert f"bot {_bot('Looper')} (seat 0) took more than 1 s to move" in line and "game 0-0-0" in line


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize(("name", "said"), [
    ("Exiter", "died (its process exited with status 1)"),
    ("Crasher", "died (killed by SIGSEGV)"),
    ("Interrupter", "raised KeyboardInterrupt"),
])
def test_a_bot_that_dies_is_named_with_its_seat_and_game(tmp_path, capsys, name, said, jobs):
    assert _compare(tmp_path, _bot(name), jobs=jobs) == 2
    line = _one_line(capsys)
    assert f"bot {_bot(name)} (seat " in line and said in line and "in game 0-0-" in line


def test_a_dead_host_is_replaced_for_the_next_game(tmp_path):
    # the crashing bot forfeits each of its games: the next game starts a new host
    assert _compare(tmp_path, _bot("Crasher"), "--forfeit") == 0
    records = [json.loads(line) for line in (tmp_path / "run" / "games.jsonl").read_text().splitlines()]
    assert [r["forfeits"][0]["reason"] for r in records] == ["died", "died"]


def test_the_memory_cap_holds_in_the_host(tmp_path, capsys):
    assert _compare(tmp_path, _bot("Hog"), "--bot-memory", "1500") == 2
    line = _one_line(capsys)
    assert f"bot {_bot('Hog')} (seat 0)" in line and ("MemoryError" in line or "died" in line)


def test_code_json_says_how_each_spec_ran(tmp_path):
    assert _compare(tmp_path, f"{CHEATERS}:Honest") == 0
    assert read_code(tmp_path / "run")["isolation"] == {
        "mode": "users", "specs": {f"{CHEATERS}:Honest": "isolated", "random": "in-process"}}


def test_bad_isolation_options_are_one_line(tmp_path, capsys):
    config = RunConfig(("greedy", "random"), deals=1)
    with pytest.raises(ArenaError, match="isolation is one of users, all, none"):
        run(config, isolation="some")
    with pytest.raises(ArenaError, match="memory cap is a positive number"):
        run(config, bot_memory=0)
    assert _compare(tmp_path, "greedy", "--isolation", "some") == 2
    assert "argument --isolation: invalid choice: 'some'" in _one_line(capsys)


def test_a_registered_bot_stays_in_the_worker(registered_bot):
    # code of the calling process already: hosting it would add a process, not a boundary
    config = RunConfig((registered_bot, "greedy", "random"), players=3, deals=1)
    records = run(config, isolation="all", progress=False).records
    assert [r["isolated_seats"] for r in records] == [[1, 2], [0, 2], [0, 1]]


@pytest.fixture
def registered_bot():
    from glory_ai.bots import register, unregister

    class Last:
        def __init__(self, seed=0):
            pass

        def step(self, state):
            return state.legal_actions()[-1]

    register("hosttest-last", Last)
    yield "hosttest-last"
    unregister("hosttest-last")


@pytest.mark.parametrize(("spec", "said"), [
    ("Liar", "returned action 60000, which is not legal here"),
    ("Liar:big=true", "answered with a message of more than 64 KB"),
])
def test_what_a_host_answers_is_checked_against_the_real_game(tmp_path, capsys, spec, said):
    assert _compare(tmp_path, _bot(spec)) == 2
    line = _one_line(capsys)
    assert f"bot {_bot(spec)} (seat 0) {said}" in line
