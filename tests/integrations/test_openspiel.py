"""The OpenSpiel adapter (glory_ai.integrations.openspiel, docs/integrations.md): OpenSpiel's
own random-walk API checks, the information-state contract, resampling, and OpenSpiel's
Python ISMCTS and MCTS bots playing whole games through it."""
import json

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel",
                              reason="OpenSpiel is not installed: pip install 'glory_ai[openspiel]'")

import glory_ai  # noqa: E402
import glory_ai.integrations.openspiel as gs  # noqa: E402
from support.positions import state_of  # noqa: E402


def dealt(game):
    state = game.new_initial_state()
    state.apply_action(gs.DEAL)
    return state


def play_to(state, decisions, seed):
    rng = np.random.RandomState(seed)
    for _ in range(decisions):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize("params", [
    {"players": 2},
    {"players": 3, "mode": "imperium"},
    {"players": 5, "variant": json.dumps({"refill_size": 6})},
    {"players": 2, "perfect_recall": True},
])
def test_openspiel_random_simulation_checks_pass(params):
    # OpenSpiel's random walk: legal actions, apply, clone, strings, tensors, returns at
    # every step (serialisation needs the game's generator state, which Python games
    # cannot hand to OpenSpiel)
    game = pyspiel.load_game(gs.SHORT_NAME, params)
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


def test_the_game_type_and_parameters():
    game = gs.load_game(players=4, mode="imperium")
    kind = game.get_type()
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.utility == pyspiel.GameType.Utility.CONSTANT_SUM
    assert (kind.min_num_players, kind.max_num_players) == (2, 5)
    assert game.num_players() == 4
    assert game.num_distinct_actions() == glory_ai.NUM_DISTINCT_ACTIONS
    assert game.glory.config() == glory_ai.Game(4, mode="imperium").config()
    size = sum(n for _, n in glory_ai.core.engine.observation_tensor_layout(4))
    assert game.observation_tensor_shape() == game.information_state_tensor_shape() == [size]


@pytest.mark.parametrize("params, message", [
    ({"players": 6}, "num_players"),
    ({"mode": "empire"}, "mode"),
    ({"variant": "{refill: 6}"}, "variant must be a JSON object"),
    ({"variant": json.dumps({"hand_size": 6})}, "hand_size"),
    ({"seed": -1}, "seed"),
])
def test_bad_parameters_are_refused_with_the_reason(params, message):
    with pytest.raises(Exception, match=message):
        pyspiel.load_game(gs.SHORT_NAME, params)


def test_the_deal_is_the_only_chance_node_and_a_seed_repeats_the_deals():
    game = gs.load_game(players=3, seed=11)
    state = game.new_initial_state()
    assert state.is_chance_node() and state.chance_outcomes() == [(gs.DEAL, 1.0)]
    assert state.information_state_string(0) == "chance node: the deal"
    first, second = dealt(game), dealt(game)
    assert not first.is_chance_node() and first.glory_state.to_dict() != second.glory_state.to_dict()
    again = gs.load_game(players=3, seed=11)
    assert dealt(again).glory_state.to_dict() == first.glory_state.to_dict()
    play_to(first, 10_000, seed=1)
    assert first.is_terminal()
    returns = first.returns()
    assert sum(returns) == pytest.approx(1.0)
    assert {p for p, r in enumerate(returns) if r > 0} == set(first.glory_state.winners())


def test_strings_and_tensors_are_glory_ais():
    game = gs.load_game(players=3)
    state = play_to(dealt(game), 60, seed=2)
    glory = state.glory_state
    for player in range(3):
        assert state.information_state_string(player) == glory.information_state_string(player)
        assert state.observation_string(player) == glory.observation_string(player)
        assert np.array_equal(state.observation_tensor(player), glory.observation_tensor(player))
        assert np.array_equal(state.information_state_tensor(player), glory.observation_tensor(player))
    assert state.legal_actions() == glory.legal_actions()
    action = state.legal_actions()[0]
    assert state.action_to_string(action) == glory.action_to_string(action)
    from open_spiel.python.observation import make_observation
    observation = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    observation.set_from(state, 1)
    layout = glory_ai.core.engine.observation_tensor_layout(3)
    assert list(observation.dict) == [name for name, _ in layout]
    at = 0
    for name, size in layout:
        assert np.array_equal(observation.dict[name], glory.observation_tensor(1)[at:at + size])
        at += size


def test_resampling_keeps_what_the_player_knows_and_redeals_the_rest():
    game = gs.load_game(players=3)
    state = play_to(dealt(game), 90, seed=3)
    player = state.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    worlds = [state.resample_from_infostate(player, sampler) for _ in range(8)]
    for world in worlds:
        assert world.information_state_string(player) == state.information_state_string(player)
        assert world.legal_actions() == state.legal_actions()
        assert world.history() == []
    decks = {tuple(w.glory_state.to_dict()["deck"]) for w in worlds}
    assert len(decks) > 1


def test_a_seeded_resampler_repeats_its_worlds():
    game = gs.load_game(players=2)
    state = play_to(dealt(game), 40, seed=4)
    player = state.current_player()
    one, two = gs.make_resampler(7), gs.make_resampler(7)
    for _ in range(3):
        assert one(state, player).glory_state.to_dict() == two(state, player).glory_state.to_dict()


def transposition(params):
    """Two OpenSpiel states of one game that P1 cannot tell apart by what they know now,
    reached by P0 taking two pool cards in either order."""
    game = pyspiel.load_game(gs.SHORT_NAME, params)
    position = state_of(2, [{"hand": ["Road", "Dock"], "clientele": ["Insula"]}, {"hand": ["Temple"]}],
                        pool=["Academy", "Garden"])
    start = gs.from_glory_state(game, position)
    for text in ("lead Laborer with Road", "think: refill"):
        start.apply_action(start.glory_state.string_to_action(text))
    lines = []
    for order in (("Academy", "Garden"), ("Garden", "Academy")):
        state = start.clone()
        for card in order:
            state.apply_action(state.glory_state.string_to_action(f"laborer: take {card} from pool"))
        lines.append(state)
    assert lines[0].glory_state._raw_bytes() == lines[1].glory_state._raw_bytes()
    return lines


def test_without_perfect_recall_the_string_is_what_the_player_knows_now():
    first, second = transposition({"players": 2})
    assert first.information_state_string(1) == second.information_state_string(1)


def test_with_perfect_recall_the_string_tells_the_two_histories_apart():
    first, second = transposition({"players": 2, "perfect_recall": True})
    for player in (0, 1):
        a, b = first.information_state_string(player), second.information_state_string(player)
        assert a != b
        # the digest comes first; what the player knows now follows it
        assert a.split("|", 1)[1] == b.split("|", 1)[1] == first.glory_state.information_state_string(player)
    # a resampled world keeps the player's own sequence
    world = first.resample_from_infostate(1, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    assert world.information_state_string(1) == first.information_state_string(1)


def test_a_glory_state_of_another_game_is_refused():
    game = gs.load_game(players=3)
    with pytest.raises(ValueError, match="another game"):
        gs.from_glory_state(game, glory_ai.Game(2).new_initial_state(1))


@pytest.mark.slow
def test_openspiel_python_ismcts_and_mcts_bots_play_whole_games():
    from open_spiel.python.algorithms import ismcts, mcts

    game = gs.load_game(players=2, seed=5)
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(1))
    searcher = ismcts.ISMCTSBot(game, evaluator, 0.7, 4, random_state=np.random.RandomState(2))
    cheater = mcts.MCTSBot(game, 0.7, 4, evaluator, random_state=np.random.RandomState(3))
    for bots in ((searcher, cheater), (cheater, searcher)):
        state = dealt(game)
        decisions = 0
        while not state.is_terminal():
            action = bots[state.current_player()].step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
            decisions += 1
        assert decisions > 20 and sum(state.returns()) == pytest.approx(1.0)
