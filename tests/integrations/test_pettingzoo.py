"""The PettingZoo AEC environment (glory_ai.integrations.pettingzoo, docs/integrations.md):
PettingZoo's API and seed tests, and what the environment promises beyond them."""
import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="PettingZoo is not installed: pip install 'glory_ai[pettingzoo]'")

from pettingzoo.test import api_test, seed_test  # noqa: E402

import glory_ai  # noqa: E402
from glory_ai.integrations.pettingzoo import env  # noqa: E402


# observations are dicts (the observation and the action mask), which the API test notes
@pytest.mark.filterwarnings("ignore:Observation:UserWarning")
@pytest.mark.parametrize("players, mode", [(2, "republic"), (3, "imperium"), (5, "republic")])
def test_pettingzoo_api_test_passes(players, mode):
    api_test(env(players=players, mode=mode), num_cycles=400)


def test_pettingzoo_seed_test_passes():
    seed_test(lambda: env(players=3), num_cycles=300)


def play(environment, seed):
    """A whole game with uniformly random masked actions; (agent, reward) at each last()."""
    rng = np.random.default_rng(seed)
    seen = []
    for agent in environment.agent_iter():
        observation, reward, termination, truncation, _ = environment.last()
        seen.append((agent, reward))
        if termination or truncation:
            environment.step(None)
            continue
        environment.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return seen


def test_the_agent_selected_decides_and_sees_the_only_mask():
    environment = env(players=4)
    environment.reset(seed=9)
    for _ in range(200):
        if environment.state.is_terminal():
            break
        agent = environment.agent_selection
        seat = int(agent.split("_")[1])
        assert seat == environment.state.current_player()
        for other in environment.agents:
            observation = environment.observe(other)
            index = int(other.split("_")[1])
            assert np.array_equal(observation["observation"], environment.state.observation_tensor(index))
            if other == agent:
                assert np.array_equal(np.flatnonzero(observation["action_mask"]),
                                      environment.state.legal_actions())
            else:
                assert not observation["action_mask"].any()
        environment.step(environment.state.legal_actions()[-1])


def test_rewards_are_win_shares_at_the_end_and_everyone_is_told():
    environment = env(players=3)
    environment.reset(seed=4)
    seen = play(environment, seed=4)
    winners = {f"player_{p}" for p in environment.state.winners()}
    final = {agent: reward for agent, reward in seen[-3:]}
    assert set(final) == {"player_0", "player_1", "player_2"}
    assert final == {agent: (1.0 / len(winners) if agent in winners else 0.0) for agent in final}
    assert all(reward == 0.0 for _, reward in seen[:-3])
    assert environment.agents == []


def test_a_seed_deals_that_game_and_reset_without_one_goes_on():
    environment = env(players=2)
    environment.reset(seed=12)
    assert environment.state.to_dict() == glory_ai.Game(2).new_initial_state(12).to_dict()
    environment.reset()
    first = environment.state.to_dict()
    environment.reset(seed=12)
    environment.reset()
    assert environment.state.to_dict() == first


def test_an_illegal_action_is_refused_and_changes_nothing():
    environment = env(players=2)
    environment.reset(seed=1)
    before = environment.state.to_dict()
    illegal = next(a for a in range(glory_ai.NUM_DISTINCT_ACTIONS)
                   if a not in environment.state.legal_actions())
    with pytest.raises(glory_ai.IllegalActionError):
        environment.step(illegal)
    assert environment.state.to_dict() == before
    with pytest.raises(ValueError, match="None"):
        environment.step(None)


def test_max_decisions_truncates():
    environment = env(players=2, max_decisions=5)
    environment.reset(seed=2)
    for _ in range(5):
        assert not any(environment.truncations.values())
        environment.step(environment.state.legal_actions()[0])
    assert all(environment.truncations.values())


def test_bad_options_are_refused():
    with pytest.raises(ValueError, match="render_mode"):
        env(render_mode="rgb_array")
    with pytest.raises(ValueError, match="num_players"):
        env(players=7)
    with pytest.raises(ValueError, match="max_decisions"):
        env(max_decisions=0)
