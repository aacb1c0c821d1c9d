"""The OpenSpiel adapter (glory_ai.integrations.openspiel, docs/integrations.md): OpenSpiel's
own random-walk API checks (serialisation included), the deal's chance nodes, pickling and
copies, the hot calls answered in Python as OpenSpiel's C++ answers them, the
information-state contract, resampling, and OpenSpiel's Python ISMCTS and MCTS bots playing
whole games through it."""
import copy
import json
import pickle

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel",
                              reason="OpenSpiel is not installed: pip install 'glory_ai[openspiel]'")

import glory_ai  # noqa: E402
import glory_ai.integrations.openspiel as gs  # noqa: E402
from support.positions import state_of  # noqa: E402


def dealt(game, seed=1):
    return gs.deal(game.new_initial_state(), seed)


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
    {"players": 5, "variant": json.dumps({"refill_size": 6, "removed": ["Insula", "Road"]})},
    {"players": 2, "perfect_recall": True},
])
def test_openspiel_random_simulation_checks_pass_serialisation_included(params):
    # OpenSpiel's random walk: legal actions, apply, clone, strings, tensors, returns, and
    # serialize_game_and_state / deserialize_game_and_state along the way
    game = pyspiel.load_game(gs.SHORT_NAME, params)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_the_game_type_and_parameters():
    game = gs.load_game(players=4, mode="imperium")
    kind = game.get_type()
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.utility == pyspiel.GameType.Utility.CONSTANT_SUM
    assert (kind.min_num_players, kind.max_num_players) == (2, 5)
    assert game.num_players() == 4
    assert game.num_distinct_actions() == glory_ai.NUM_DISTINCT_ACTIONS
    assert game.max_chance_outcomes() == gs.DEAL_OUTCOMES == 256
    assert game.glory.config() == glory_ai.Game(4, mode="imperium").config()
    size = sum(n for _, n in glory_ai.core.engine.observation_tensor_layout(4))
    assert game.observation_tensor_shape() == game.information_state_tensor_shape() == [size]


@pytest.mark.parametrize("params, message", [
    ({"players": 6}, "num_players"),
    ({"mode": "empire"}, "mode"),
    ({"variant": "{refill: 6}"}, "variant must be a JSON object"),
    ({"variant": json.dumps({"hand_size": 6})}, "hand_size"),
    ({"seed": 1}, "seed"),
])
def test_bad_parameters_are_refused_with_the_reason(params, message):
    with pytest.raises(Exception, match=message):
        pyspiel.load_game(gs.SHORT_NAME, params)


def test_the_game_string_names_a_variant_without_commas_and_loads_back():
    variant = {"refill_size": 6, "removed": ["Insula", "Road"], "points": {"Bar": 2}}
    game = gs.load_game(players=3, **variant)
    text = str(game)
    assert "," not in text.split("variant=", 1)[1]
    assert pyspiel.load_game(text).glory.config() == glory_ai.Game(3, **variant).config()
    as_json = pyspiel.load_game(gs.SHORT_NAME, {"players": 3, "variant": json.dumps(variant)})
    assert str(as_json) == text


def test_the_deal_is_eight_chance_nodes_of_a_seeds_bytes():
    game = gs.load_game(players=3)
    state = game.new_initial_state()
    seed = 0x0123456789ABCDEF
    assert gs.deal_actions(seed) == [0xEF, 0xCD, 0xAB, 0x89, 0x67, 0x45, 0x23, 0x01]
    for node, byte in enumerate(gs.deal_actions(seed)):
        assert state.is_chance_node() and not state.is_player_node()
        assert state.current_player() == pyspiel.PlayerId.CHANCE
        assert state.chance_outcomes() == [(b, 1 / 256) for b in range(256)]
        assert state.legal_actions() == list(range(256))
        assert state.information_state_string(0) == "chance node: the deal"
        assert str(state) == f"chance node: the deal ({node} of 8 seed bytes dealt)"
        state.apply_action(byte)
    assert not state.is_chance_node()
    assert state.glory_state.to_dict() == glory_ai.Game(3).new_initial_state(seed).to_dict()
    assert [a for _, a in [(h.player, h.action) for h in state.full_history()]] == gs.deal_actions(seed)
    with pytest.raises(ValueError, match="dealt"):
        gs.deal(state, 1)
    with pytest.raises(ValueError, match=r"2\*\*64"):
        gs.deal_actions(2 ** 64)
    play_to(state, 10_000, seed=1)
    assert state.is_terminal()
    returns = state.returns()
    assert sum(returns) == pytest.approx(1.0)
    assert {p for p, r in enumerate(returns) if r > 0} == set(state.glory_state.winners())


def _states_along_a_game(params, seed=2):
    game = pyspiel.load_game(gs.SHORT_NAME, params)
    state = game.new_initial_state()
    yield state.clone()
    for byte in gs.deal_actions(seed)[:3]:
        state.apply_action(byte)
    yield state.clone()
    for byte in gs.deal_actions(seed)[3:]:
        state.apply_action(byte)
    rng = np.random.RandomState(seed)
    while not state.is_terminal():
        if rng.random_sample() < 0.1:
            yield state.clone()
        state.apply_action(rng.choice(state.legal_actions()))
    yield state


@pytest.mark.parametrize("params", [{"players": 2}, {"players": 4, "perfect_recall": True}])
def test_the_hot_calls_answered_in_python_are_openspiels_answers(params):
    # each is called through OpenSpiel's C++ State (pyspiel.State.method(state, ...), which
    # reaches the Python game through its callbacks) and through the adapter's Python method
    cpp = pyspiel.State
    checked = 0
    for state in _states_along_a_game(params):
        n = state.num_players()
        assert state.current_player() == cpp.current_player(state)
        for name in ("is_terminal", "is_chance_node", "is_player_node", "is_simultaneous_node",
                     "legal_actions", "returns", "legal_actions_mask"):
            assert getattr(state, name)() == getattr(cpp, name)(state), name
        for player in range(n):
            assert state.legal_actions(player) == cpp.legal_actions(state, player)
            assert state.legal_actions_mask(player) == cpp.legal_actions_mask(state, player)
            assert state.player_return(player) == cpp.player_return(state, player)
            for name in ("information_state_string", "observation_string",
                         "information_state_tensor", "observation_tensor"):
                assert getattr(state, name)(player) == getattr(cpp, name)(state, player), name
        if state.is_player_node():
            for name in ("information_state_string", "observation_string", "observation_tensor"):
                assert getattr(state, name)() == getattr(cpp, name)(state), name
        checked += 1
    assert checked > 5


def test_the_hot_calls_are_the_adapters_own_methods():
    # answered in Python, not by OpenSpiel's C++ State calling back into Python
    for name in ("current_player", "is_terminal", "is_chance_node", "is_player_node",
                 "legal_actions", "legal_actions_mask", "returns", "player_return",
                 "information_state_string", "observation_string", "information_state_tensor",
                 "observation_tensor", "apply_action", "clone", "child", "history", "full_history",
                 "history_str", "move_number", "is_initial_state", "serialize"):
        assert getattr(gs.GloryToRomeState, name) is not getattr(pyspiel.State, name, None), name
        assert getattr(gs.GloryToRomeState, name).__module__ == gs.__name__, name


HISTORY_VIEWS = ("history", "history_str", "move_number", "is_initial_state", "serialize")


def _cpp_history(state):
    return [(h.player, h.action) for h in pyspiel.State.full_history(state)]


@pytest.mark.parametrize("params", [{"players": 3}, {"players": 2, "perfect_recall": True}])
def test_the_python_history_is_openspiels_when_cpp_applies_the_actions(params):
    # OpenSpiel's C++ ApplyAction (random_sim_test, C++ algorithms) calls back _apply_action,
    # which records the action too: the two histories agree, and so does the serialisation
    game = pyspiel.load_game(gs.SHORT_NAME, params)
    state = game.new_initial_state()
    rng = np.random.RandomState(1)
    for step in range(200):
        if state.is_terminal():
            break
        for name in HISTORY_VIEWS:
            assert getattr(state, name)() == getattr(pyspiel.State, name)(state), (name, step)
        assert [tuple(h) for h in state.full_history()] == _cpp_history(state)
        if step % 20 == 0:
            clone = pyspiel.State.clone(state)            # C++ Clone: a deep copy per attribute
            assert clone.history() == pyspiel.State.history(clone) == state.history()
            assert str(clone) == str(state)
        pyspiel.State.apply_action(state, int(rng.choice(state.legal_actions())))
    assert state.move_number() == len(state.history()) > 100


def test_actions_applied_from_python_are_in_the_history_and_its_serialisations():
    game = gs.load_game(players=2)
    state = game.new_initial_state()
    assert state.is_initial_state() and state.history() == [] and state.move_number() == 0
    gs.deal(state, 11)
    rng = np.random.RandomState(2)
    played = gs.deal_actions(11)
    for _ in range(30):
        played.append(int(rng.choice(state.legal_actions())))
        state.apply_action(np.int64(played[-1]))            # as OpenSpiel's Python bots pass them
    assert state.history() == played and state.move_number() == 38 and not state.is_initial_state()
    assert state.history_str() == ", ".join(map(str, played))
    leader = glory_ai.Game(2).new_initial_state(11).current_player()
    assert [h.player for h in state.full_history()][:9] == [pyspiel.PlayerId.CHANCE] * 8 + [leader]
    child = state.child(state.legal_actions()[0])
    assert child.history() == played + [state.legal_actions()[0]] and state.history() == played
    # OpenSpiel's C++ history holds the actions applied through C++ only (here none); the
    # serialisations the adapter writes (serialize, pickle) name the whole history, and every
    # round trip brings it back
    assert pyspiel.State.history(state) == []
    assert state.serialize().startswith("history=-1:" + str(played[0]))
    assert f"history=-1:{played[0]}," in pickle.dumps(state).decode("latin-1")
    for how, copied in _round_trips(game, state):
        assert copied.history() == played, how
        assert copied.move_number() == 38, how
    # OpenSpiel's deserialize_state reads the history the adapter wrote into its C++ history
    assert pyspiel.State.history(game.deserialize_state(state.serialize())) == played
    # what is no integer is refused, as OpenSpiel's C++ refuses it
    with pytest.raises(TypeError):
        state.apply_action(1.5)


def _round_trips(game, state):
    yield "pickle", pickle.loads(pickle.dumps(state))
    yield "deepcopy", copy.deepcopy(state)
    yield "copy", copy.copy(state)
    yield "clone", state.clone()
    yield "serialize_game_and_state", pyspiel.deserialize_game_and_state(
        pyspiel.serialize_game_and_state(game, state))[1]
    yield "deserialize_state", game.deserialize_state(state.serialize())


@pytest.mark.parametrize("params", [
    {"players": 2},
    {"players": 3, "perfect_recall": True,
     "variant": json.dumps({"refill_size": 6, "removed": ["Road", "Bar"]})},
])
def test_game_and_state_pickle_copy_and_serialise(params):
    game = pyspiel.load_game(gs.SHORT_NAME, params)
    again = pickle.loads(pickle.dumps(game))
    assert type(again) is gs.GloryToRomeGame and str(again) == str(game)
    assert again.glory.config() == game.glory.config()
    assert str(copy.deepcopy(game)) == str(game)
    for state in _states_along_a_game(params, seed=5):
        for how, copied in _round_trips(game, state):
            assert type(copied) is gs.GloryToRomeState, how
            assert copied.history() == state.history(), how
            assert str(copied) == str(state), how
            for player in range(game.num_players()):
                assert copied.information_state_string(player) == state.information_state_string(player), how
            if state.glory_state is not None:
                assert copied.glory_state._raw_bytes() == state.glory_state._raw_bytes(), how
                assert copied.glory_state is not state.glory_state, how
            # the copy plays on as the original does, and leaves it alone
            if not state.is_terminal():
                before = str(state)
                one, two = play_to(copied, 50, seed=9), play_to(state.clone(), 50, seed=9)
                assert str(one) == str(two) and one.history() == two.history(), how
                assert str(state) == before, how
    # a state pickled with its game comes back with it
    state = play_to(dealt(game, 3), 20, seed=1)
    game_again, state_again = pickle.loads(pickle.dumps((game, state)))
    assert str(state_again) == str(state) and str(game_again) == str(game)


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

    game = gs.load_game(players=2)
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(1))
    searcher = ismcts.ISMCTSBot(game, evaluator, 0.7, 4, random_state=np.random.RandomState(2))
    cheater = mcts.MCTSBot(game, 0.7, 4, evaluator, random_state=np.random.RandomState(3))
    for deal, bots in enumerate(((searcher, cheater), (cheater, searcher))):
        state = dealt(game, deal)
        decisions = 0
        while not state.is_terminal():
            action = bots[state.current_player()].step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
            decisions += 1
        assert decisions > 20 and sum(state.returns()) == pytest.approx(1.0)
