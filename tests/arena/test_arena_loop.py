"""The arena's game loop in C (glory_ai/arena/_loop.pyx) against a plain Python loop."""
import time

import pytest

import glory_ai
from glory_ai.arena._loop import play_loop, structures
from glory_ai.bots import make_bot


def _bots(specs, seed):
    return [make_bot(spec, seed + 7 * s) for s, spec in enumerate(specs)]


def _plain_loop(state, bots, limit):
    """What the loop must do, written with the public State API only."""
    n = state.num_players()
    moves = [0] * n
    roles_led = [{} for _ in range(n)]
    while not state.is_terminal() and sum(moves) < limit:
        player = state.current_player()
        leading = state.phase() == "lead"
        state.apply_action(bots[player].step(state))
        moves[player] += 1
        if leading and state.led_role() is not None:
            roles_led[player][state.led_role()] = roles_led[player].get(state.led_role(), 0) + 1
    return moves, roles_led


CASES = [(["random", "random"], "republic", 1), (["greedy", "random", "heuristic:style=legionary"],
         "imperium", 2), (["random"] * 5, "republic", 3), (["heuristic:style=patron", "greedy",
         "random", "random"], "imperium", 4)]


@pytest.mark.parametrize("specs, mode, seed", CASES)
def test_the_loop_plays_the_game_a_plain_loop_plays(specs, mode, seed):
    game = glory_ai.Game(len(specs), mode)
    expected_state = game.new_initial_state(seed)
    expected_moves, expected_roles = _plain_loop(expected_state, _bots(specs, seed), 10**6)
    state = game.new_initial_state(seed)
    seconds, moves, roles_led = play_loop(state, [b.step for b in _bots(specs, seed)], 10**6)
    assert state.is_terminal()
    assert state.history() == expected_state.history()
    assert moves == expected_moves and sum(moves) == state.decisions()
    # the same counts, and the roles in the order each player first led them
    assert roles_led == expected_roles
    assert [list(r) for r in roles_led] == [list(r) for r in expected_roles]
    assert sum(sum(r.values()) for r in roles_led) >= 1
    assert len(seconds) == len(specs) and all(s >= 0.0 for s in seconds)


def test_the_loop_stops_at_the_decision_limit():
    state = glory_ai.Game(3).new_initial_state(5)
    _, moves, _ = play_loop(state, [b.step for b in _bots(["random"] * 3, 5)], 25)
    assert sum(moves) == 25 == len(state.history()) and not state.is_terminal()
    _, moves, roles = play_loop(state, [b.step for b in _bots(["random"] * 3, 5)], 0)
    assert moves == [0, 0, 0] and roles == [{}, {}, {}] and len(state.history()) == 25


def test_the_loop_times_each_players_steps():
    state = glory_ai.Game(2).new_initial_state(8)
    bots = _bots(["random", "random"], 8)

    def slow_step(s):
        time.sleep(0.002)
        return bots[0].step(s)

    seconds, moves, _ = play_loop(state, [slow_step, bots[1].step], 12)
    assert moves[0] >= 1 and seconds[0] >= 0.002 * moves[0]


def test_an_illegal_action_from_a_bot_is_refused_and_leaves_the_state_as_it_was():
    state = glory_ai.Game(2).new_initial_state(3)
    before = state.to_dict()
    with pytest.raises(ValueError, match="illegal action 9999"):
        play_loop(state, [lambda s: 9999, lambda s: 9999], 10)
    assert state.to_dict() == before and state.history() == []
    with pytest.raises(TypeError):
        play_loop(state, [lambda s: "Patron", lambda s: "Patron"], 10)


def test_a_bot_error_reaches_the_caller():
    def broken(state):
        raise RuntimeError("bot failed")

    state = glory_ai.Game(2).new_initial_state(3)
    with pytest.raises(RuntimeError, match="bot failed"):
        play_loop(state, [broken, broken], 10)


def test_the_loop_needs_one_step_per_player():
    state = glory_ai.Game(3).new_initial_state(3)
    with pytest.raises(ValueError, match="2 bots for 3 players"):
        play_loop(state, [lambda s: 0, lambda s: 0], 10)
    with pytest.raises(TypeError):
        play_loop("a state", [lambda s: 0] * 3, 10)


@pytest.mark.parametrize("players, seed", [(2, 11), (3, 12), (4, 13), (5, 14)])
def test_structures_are_those_of_the_position(players, seed):
    state = glory_ai.Game(players, "imperium").new_initial_state(seed)
    state.random_playout(seed)
    built = [p["structures"] for p in state.to_dict()["players"]]
    assert any(built)
    assert structures(state) == [
        {"complete": [s["building"] for s in mine if s["complete"]],
         "incomplete": [s["building"] for s in mine if not s["complete"]]} for mine in built]
