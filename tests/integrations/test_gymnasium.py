"""The single-agent Gymnasium environment (glory_ai.integrations.gymnasium): Gymnasium's
checker, and the learner's seat against glory_ai bots."""
import numpy as np
import pytest

pytest.importorskip("gymnasium", reason="Gymnasium is not installed: pip install 'glory_ai[pettingzoo]'")

from gymnasium.utils.env_checker import check_env  # noqa: E402

import glory_ai  # noqa: E402
from glory_ai.bots import SpecError  # noqa: E402
from glory_ai.integrations.gymnasium import GloryToRomeGymEnv  # noqa: E402


def test_gymnasium_env_checker_passes():
    # the checker steps unmasked random actions: they must not raise
    check_env(GloryToRomeGymEnv(players=3, opponents="random", illegal_action="lose"),
              skip_render_check=True)


def test_gymnasium_make_builds_the_environment_by_its_id():
    import gymnasium

    from glory_ai.integrations import gymnasium as adapter

    environment = gymnasium.make(adapter.ENV_ID, players=3, seat=2, opponents="greedy", max_decisions=5)
    inner = environment.unwrapped
    assert isinstance(inner, GloryToRomeGymEnv)
    assert (inner.game.num_players(), inner.seat, inner.max_decisions) == (3, 2, 5)
    assert environment.spec.id == "GloryToRome-v0"
    observation, _ = environment.reset(seed=4)
    assert environment.observation_space.contains(observation)
    for _ in range(5):
        action = int(np.flatnonzero(observation["action_mask"])[0])
        observation, reward, terminated, truncated, _ = environment.step(action)
        if terminated or truncated:
            break
    assert truncated or terminated
    # the environment the id makes plays the same episode as the class
    made, direct = gymnasium.make(adapter.ENV_ID, players=2, opponents="random"), GloryToRomeGymEnv(players=2)
    assert episode(made.unwrapped, seed=2) == episode(direct, seed=2)


def run_python(code):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


MAKE = ("env = gymnasium.make('GloryToRome-v0', players=2); "
        "print(type(env.unwrapped).__name__, 'glory_ai.integrations.gymnasium' in sys.modules)")


@pytest.mark.parametrize("imports", ["import glory_ai, gymnasium", "import gymnasium, glory_ai"])
def test_import_glory_ai_registers_the_id_whichever_is_imported_first(imports):
    # before gymnasium is imported, glory_ai leaves gymnasium unimported and registers the id
    # the moment it is; the adapter module is imported by gymnasium.make alone
    code = (f"import sys; {imports}; import gymnasium; print('GloryToRome-v0' in gymnasium.registry, "
            "'glory_ai.integrations.gymnasium' in sys.modules); " + MAKE)
    assert run_python(code) == ["True", "False", "GloryToRomeGymEnv", "True"]


def test_import_glory_ai_does_not_import_gymnasium():
    assert run_python("import sys, glory_ai; print('gymnasium' in sys.modules)") == ["False"]


def test_a_search_for_gymnasium_before_its_import_does_not_lose_the_registration():
    # importlib.util.find_spec (how libraries ask whether a package is installed) imports
    # nothing; the import after it registers the id, and the finder then leaves sys.meta_path
    code = ("import sys, importlib.util, glory_ai; importlib.util.find_spec('gymnasium'); "
            "importlib.util.find_spec('gymnasium'); import gymnasium; "
            "from glory_ai.integrations import _RegisterWhenImported as F; "
            "print('GloryToRome-v0' in gymnasium.registry, any(isinstance(f, F) for f in sys.meta_path))")
    assert run_python(code) == ["True", "False"]


@pytest.mark.parametrize("module", ["glory_ai", "glory_ai.integrations.gymnasium"])
def test_the_module_form_of_the_id_imports_glory_ai_itself(module):
    code = f"import sys, gymnasium; env = gymnasium.make('{module}:GloryToRome-v0', players=2); " + MAKE
    assert run_python(code) == ["GloryToRomeGymEnv", "True"]


def test_the_checker_passes_on_the_environment_gymnasium_make_makes():
    import warnings

    import gymnasium

    made = gymnasium.make("GloryToRome-v0", players=3, opponents="random")
    # the id's default: an illegal action loses (the checker steps unmasked actions)
    assert made.unwrapped.illegal_action == "lose"
    assert gymnasium.make("GloryToRome-v0", illegal_action="raise").unwrapped.illegal_action == "raise"
    with pytest.warns(UserWarning, match="different from the unwrapped"):   # the checker prefers it unwrapped
        check_env(made, skip_render_check=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")            # not a warning on the unwrapped environment
        check_env(made.unwrapped)
    assert gymnasium.register_envs(glory_ai) is None          # the ecosystem's idiom is harmless


def episode(environment, seed):
    observation, _ = environment.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions, total = [], 0.0
    while True:
        assert environment.state.current_player() == environment.seat
        assert np.array_equal(np.flatnonzero(observation["action_mask"]), environment.state.legal_actions())
        assert np.array_equal(environment.action_masks(), observation["action_mask"].astype(bool))
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        actions.append(action)
        observation, reward, terminated, truncated, _ = environment.step(action)
        total += reward
        if terminated or truncated:
            return actions, total


def test_the_bots_play_the_other_seats_and_the_reward_is_the_win_share():
    environment = GloryToRomeGymEnv(players=3, seat=1, opponents=["greedy", "heuristic:style=merchant"])
    actions, total = episode(environment, seed=5)
    state = environment.state
    assert state.is_terminal() and len(actions) > 10
    winners = state.winners()
    assert total == (1.0 / len(winners) if 1 in winners else 0.0)
    # the bots made the other seats' decisions
    assert len(actions) < len(state.history())


def test_an_episode_is_a_function_of_the_seed_and_the_actions():
    one = GloryToRomeGymEnv(players=2, opponents="ismcts:iters=30")
    two = GloryToRomeGymEnv(players=2, opponents="ismcts:iters=30")
    first, second = episode(one, seed=3), episode(two, seed=3)
    assert first == second
    assert one.state.history() == two.state.history()


def test_an_illegal_action_raises_or_loses():
    environment = GloryToRomeGymEnv(players=2)
    observation, _ = environment.reset(seed=1)
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    with pytest.raises(glory_ai.IllegalActionError):
        environment.step(illegal)
    losing = GloryToRomeGymEnv(players=2, illegal_action="lose")
    losing.reset(seed=1)
    _, reward, terminated, truncated, info = losing.step(illegal)
    assert (reward, terminated, truncated, info) == (-1.0, True, False, {"illegal_action": illegal})
    with pytest.raises(RuntimeError, match="reset"):
        losing.step(illegal)


@pytest.mark.parametrize("options, error, message", [
    ({"players": 3, "opponents": ["random"]}, ValueError, "one bot spec per other seat"),
    ({"players": 2, "seat": 2}, ValueError, "seat"),
    ({"players": 2, "opponents": "ismcts:iters=x"}, SpecError, "iters"),
    ({"players": 2, "illegal_action": "ignore"}, ValueError, "illegal_action"),
])
def test_bad_options_are_refused(options, error, message):
    with pytest.raises(error, match=message):
        GloryToRomeGymEnv(**options)
