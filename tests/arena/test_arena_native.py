"""The built-in cheap bots played in C by the arena's loop (NativeSeat, glory_ai/arena/_loop.pyx):
the same decisions, records and errors as through their Python ``step``."""
import pytest

import glory_ai
from glory_ai.arena import RunConfig, play, run
from glory_ai.arena._loop import NativeSeat, Tally, play_loop
from glory_ai.arena.play import PlayOptions, strip_timing
from glory_ai.bots import BotError, make_bot
from glory_ai.bots.builtin import RandomBot


def _records(config, native, monkeypatch, options=None):
    monkeypatch.setattr(play, "NATIVE_SEATS", native)
    records = []
    for task in config.tasks():
        if options is not None:
            task = type(task)(**{**task.__dict__, "options": options})
        records.append(strip_timing(play.play_game(task)))
    return records


TABLES = [
    (("random",), 2, "republic", {}),
    (("greedy", "random"), 2, "imperium", {"refill_size": 6}),
    (("heuristic:style=legionary", "random", "greedy"), 3, "republic", {"petition_size": 2}),
    (("heuristic:style=patron,epsilon=0.3", "heuristic:style=merchant"), 4, "imperium",
     {"removed": ["Sewer", "Bath"]}),
    (("random", "heuristic:style=builder", "greedy", "random", "heuristic:epsilon=0.5"), 5, "republic",
     {"materials": {"Catacomb": "Marble"}, "points": {"Forum": 2}, "powers_off": ["Forum"]}),
    (("random", "greedy"), 5, "imperium", {"in_town_sites": 2, "copies": {"Forum": 2}}),
]


@pytest.mark.parametrize("specs, players, mode, variant", TABLES)
def test_the_records_are_those_of_the_python_steps(specs, players, mode, variant, monkeypatch):
    config = RunConfig(specs=specs, players=players, mode=mode, variant=variant, deals=2, seed=players,
                       format="field", rotate=False)
    native = _records(config, True, monkeypatch)
    python = _records(config, False, monkeypatch)
    assert native == python
    assert all(r["end_reason"] != play.DECISION_LIMIT for r in native)
    assert len({tuple(r["actions"]) for r in native}) == len(native)


def test_wide_choices_are_drawn_alike(monkeypatch):
    # decisions of more than 32 legal actions take the other sort: some must have come up
    config = RunConfig(specs=("random",), players=3, deals=6, seed=11, format="field", rotate=False)
    records = _records(config, True, monkeypatch)
    assert records == _records(config, False, monkeypatch)
    widest = 0
    for record in records:
        state = glory_ai.Game(3).new_initial_state(record["seed"])
        for action in record["actions"]:
            widest = max(widest, len(state.legal_actions()))
            state.apply_action(action)
    assert widest > 32


class Careful(RandomBot):
    """A subclass: it may choose otherwise, so it keeps its Python step."""

    def _choose(self, state, player, legal):
        return legal[-1]


def test_a_mixed_table_keeps_each_seats_own_path(monkeypatch):
    config = RunConfig(specs=("greedy", "ismcts:iters=30", "random"), players=3, deals=1, seed=3,
                       format="field")
    assert _records(config, True, monkeypatch) == _records(config, False, monkeypatch)
    monkeypatch.setattr(play, "NATIVE_SEATS", True)
    steps = [play._step_of(make_bot("random", 1)), play._step_of(make_bot("greedy", 1)),
             play._step_of(make_bot("ismcts:iters=30", 1)), play._step_of(Careful("random", {}, 1))]
    assert [type(s) is NativeSeat for s in steps] == [True, True, False, False]
    game = glory_ai.Game(2)
    state, expected = game.new_initial_state(4), game.new_initial_state(4)
    careful, plain = Careful("random", {}, 9), RandomBot("random", {}, 9)
    play_loop(state, [play._step_of(careful), play._step_of(plain)], 10**6)
    play_loop(expected, [careful.step, plain.step], 10**6)
    assert state.history() == expected.history()


def test_the_native_seats_never_call_step(monkeypatch):
    def refuse(self, state):
        raise AssertionError("asked through step")
    monkeypatch.setattr(RandomBot, "step", refuse)
    state = glory_ai.Game(2).new_initial_state(1)
    seconds, moves, _ = play_loop(state, [NativeSeat("random", 1), NativeSeat("random", 2)], 10**6)
    assert state.is_terminal() and sum(moves) == state.decisions() and all(s > 0 for s in seconds)
    with pytest.raises(AssertionError, match="asked through step"):
        play_loop(glory_ai.Game(2).new_initial_state(1), [RandomBot("random", {}, 1).step] * 2, 10**6)


def test_observers_limits_and_tallies_work_on_native_seats():
    game = glory_ai.Game(3, "imperium")
    seen, expected = [], []
    bots = [make_bot(spec, 5 + s) for s, spec in enumerate(["greedy", "random", "heuristic:style=builder"])]
    tally = Tally(3)
    state = game.new_initial_state(2)
    play_loop(state, [play._step_of(b) for b in bots], 40, observers=[lambda s, p, a: seen.append((p, a))],
              tally=tally)
    play_loop(state, [play._step_of(b) for b in bots], 10**6, observers=[lambda s, p, a: seen.append((p, a))],
              tally=tally)
    other = game.new_initial_state(2)
    _, moves, roles = play_loop(other, [b.step for b in bots], 10**6,
                                observers=[lambda s, p, a: expected.append((p, a))])
    assert seen == expected and len(seen) == other.decisions()
    assert tally.decisions == sum(moves) and tally.results()[1:] == (moves, roles)
    with pytest.raises(BotError) as caught:
        play_loop(game.new_initial_state(2), [play._step_of(b) for b in bots], 10**6, move_time_limit=1e-12)
    first = game.new_initial_state(2).current_player()
    assert caught.value.reason == "time_limit" and caught.value.seat == first


def test_a_time_limit_on_a_native_seat_forfeits_as_in_python(monkeypatch):
    config = RunConfig(specs=("random", "greedy"), deals=1, seed=6)
    options = PlayOptions(move_time_limit=1e-12, forfeit=True)
    native = _records(config, True, monkeypatch, options)
    python = _records(config, False, monkeypatch, options)
    assert [[(f["seat"], f["decision"], f["reason"]) for f in r["forfeits"]] for r in native] == \
        [[(f["seat"], f["decision"], f["reason"]) for f in r["forfeits"]] for r in python]
    assert all(r["forfeits"][0]["decision"] == 0 for r in native)


def test_runs_write_the_same_games_either_way(tmp_path, monkeypatch):
    config = RunConfig(specs=("greedy", "random"), deals=3, seed=8)
    monkeypatch.setattr(play, "NATIVE_SEATS", False)
    python = run(config, tmp_path / "python", n_jobs=1, progress=False).records
    monkeypatch.setattr(play, "NATIVE_SEATS", True)
    native = run(config, tmp_path / "native", n_jobs=1, progress=False).records
    assert [strip_timing(r) for r in native] == [strip_timing(r) for r in python]


def test_a_native_seat_is_made_of_a_known_kind():
    with pytest.raises(ValueError, match="kind is random or policy, got 'greedy'"):
        NativeSeat("greedy", 1)
    with pytest.raises(ValueError, match="a policy seat takes its PolicyPlayer"):
        NativeSeat("policy", 1)
    with pytest.raises(ValueError, match="a policy seat takes its PolicyPlayer"):
        NativeSeat("random", 1, make_bot("greedy", 1)._policy)
    with pytest.raises(OverflowError):
        NativeSeat("random", -1)
