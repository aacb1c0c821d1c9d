"""Bots: spec parsing, determinism, information hiding, what a search reports, and whole
games of every bot across player counts and modes. (How well the search searches:
test_search.py; tree reuse: test_reuse.py.)"""
import random

import numpy as np
import pytest

import glory_ai
from glory_ai.bots import SpecError, make_bot, parse_spec, registry
from glory_ai.bots.bench import states_along_games

ALL_SPECS = ["random", "greedy", "heuristic:style=builder", "heuristic:style=merchant",
             "heuristic:style=legionary", "heuristic:style=patron", "flatmc:iters=60",
             "pimc:iters=60,worlds=4", "ismcts:iters=60", "ismcts:iters=40,rollout=heuristic,cutoff=10",
             "ismcts:iters=60,reward=rank", "ismcts:iters=60,reward=margin,cutoff=30",
             "ismcts:iters=60,reuse=true", "ismcts:iters=60,cutoff=0", "pimc:iters=60,worlds=3,cutoff=0"]


def _decision_states(num_players=2, games=3, every=9, mode="republic"):
    """Live states with a real choice, from seeded greedy-played games."""
    return states_along_games(num_players, games, every=every, mode=mode)


# ---- specs -------------------------------------------------------------------------------

def test_a_spec_gives_the_bot_with_its_parameters_and_defaults():
    name, params = parse_spec("ismcts:iters=2000,c=0.5,rollout=heuristic,reuse=true")
    assert name == "ismcts"
    assert params["iters"] == 2000 and params["c"] == 0.5
    assert params["rollout"] == "heuristic" and params["reuse"] is True
    assert params["reward"] == "win"                  # a default
    assert parse_spec("random") == ("random", {})
    assert parse_spec(" Heuristic:style=patron ")[1]["style"] == "patron"


@pytest.mark.parametrize("spec, words", [
    ("alphazero", ["unknown bot 'alphazero'", "ismcts"]),
    ("ismcts:iterations=5", ["no parameter 'iterations'", "iters"]),
    ("ismcts:iters=many", ["'iters'", "expected int"]),
    ("ismcts:iters=-3", ["'iters'", "out of range"]),
    ("ismcts:c=nan", ["'c'", "finite"]),
    ("ismcts:rollout=smart", ["'rollout'", "random|heuristic"]),
    ("ismcts:reuse=maybe", ["'reuse'", "true or false"]),
    ("ismcts:iters=5,iters=6", ["given twice"]),
    ("ismcts:iters", ["not key=value"]),
    ("ismcts:iters=0", ["time_ms"]),
    ("pimc:iters=10,worlds=20", ["worlds"]),
    ("pimc:iters=5000,worlds=2000,node_cap=1000", ["worlds (2000) exceeds node_cap (1000)", "root node"]),
    ("heuristic:style=banker", ["'style'", "builder|merchant|legionary|patron"]),
    ("random:seed=3", ["no parameter 'seed'", "none"]),
    ("", ["non-empty"]),
])
def test_a_bad_spec_is_a_value_error_naming_the_part_and_what_is_accepted(spec, words):
    with pytest.raises(SpecError) as info:
        make_bot(spec)
    assert isinstance(info.value, ValueError)
    for word in words:
        assert word in str(info.value)


def test_the_registry_describes_every_bot_and_parameter():
    bots = registry()
    assert {"random", "greedy", "heuristic", "flatmc", "pimc", "ismcts"} <= set(bots)
    for info in bots.values():
        assert info.description
        for param in info.params:
            assert param.help and param.kind in (int, float, str, bool)
            text = param.describe()
            assert param.name in text and str(param.default) in text
            parse_spec(f"{info.name}:{param.name}={str(param.default).lower()}")   # defaults parse
    names = {p.name for p in bots["ismcts"].params}
    assert {"iters", "time_ms", "c", "rollout", "cutoff", "reward", "reuse", "threads", "node_cap"} <= names


def test_bots_refuse_a_finished_game_and_non_states():
    state = glory_ai.Game(2).new_initial_state(1)
    state.random_playout(1)
    with pytest.raises(ValueError, match="over"):
        make_bot("random").step(state)
    with pytest.raises(TypeError):
        make_bot("random").step(state.to_dict())
    with pytest.raises(TypeError):
        make_bot("random", seed="seven")


# ---- determinism and information ---------------------------------------------------------

@pytest.mark.parametrize("spec", ALL_SPECS)
def test_same_spec_seed_and_state_give_the_same_action_whatever_ran_before(spec):
    states = _decision_states(games=1, every=15)[:6]
    first = [make_bot(spec, seed=11).step(s) for s in states]
    random.seed(12345)
    np.random.seed(54321)
    random.random()
    np.random.random(7)
    bot = make_bot(spec, seed=11)
    for s in reversed(states):                 # another order, and the same bot object reused
        random.random()
        np.random.random()
        bot.step(s.clone())
    second = [make_bot(spec, seed=11).step(s) for s in states]
    assert first == second


@pytest.mark.parametrize("spec", ["random", "flatmc:iters=30", "pimc:iters=30,worlds=3", "ismcts:iters=30"])
def test_the_seed_changes_the_choices_of_random_and_search_bots(spec):
    states = _decision_states(games=1, every=7)[:12]
    choices = {seed: [make_bot(spec, seed=seed).step(s) for s in states] for seed in range(3)}
    assert len({tuple(c) for c in choices.values()}) > 1


@pytest.mark.parametrize("spec", ["random", "greedy", "heuristic:style=legionary", "flatmc:iters=40",
                                  "pimc:iters=40,worlds=4", "ismcts:iters=40",
                                  "ismcts:iters=30,rollout=heuristic,cutoff=8"])
def test_a_bot_decides_the_same_when_only_cards_it_cannot_see_change(spec):
    # Another determinization for the mover is another state of the same information set:
    # different hidden cards (others' hands, the deck), the same knowledge.
    states = _decision_states(num_players=3, games=2, every=7)
    checked = 0
    for i, state in enumerate(states[:30]):
        mover = state.current_player()
        world = state.determinize(mover, seed=1000 + i)
        assert world.information_state_key(mover) == state.information_state_key(mover)
        if world._raw_bytes() == state._raw_bytes():
            continue
        assert make_bot(spec, seed=5).step(state) == make_bot(spec, seed=5).step(world)
        checked += 1
    assert checked >= 10


def test_the_omniscient_control_searches_the_true_state_and_nothing_else():
    # the cheating control (docs/bots.md, "The information ceiling"): its search depends on
    # the hidden cards, and with every world the true state, on nothing the honest one draws
    states = _decision_states(num_players=2, games=2, every=9)
    differs = 0
    for i, state in enumerate(states[:20]):
        mover = state.current_player()
        world = state.determinize(mover, seed=2000 + i)
        if world._raw_bytes() == state._raw_bytes():
            continue
        searches = []
        for s in (state, world):
            bot = make_bot("ismcts:iters=200,omniscient=true", seed=5)
            bot.step(s)
            searches.append(bot.last_search()["actions"])
        honest = [make_bot("ismcts:iters=200", seed=5) for _ in range(2)]
        for bot, s in zip(honest, (state, world), strict=True):
            bot.step(s)
        assert honest[0].last_search()["actions"] == honest[1].last_search()["actions"]
        differs += searches[0] != searches[1]
    assert differs >= 5
    assert make_bot("ismcts", seed=1).params["omniscient"] is False


def test_threads_change_only_the_speed_given_the_number_of_trees():
    states = _decision_states(games=1, every=20)[:4]
    for s in states:
        one = make_bot("ismcts:iters=300,trees=2,threads=1", seed=3)
        two = make_bot("ismcts:iters=300,trees=2,threads=2", seed=3)
        assert one.step(s) == two.step(s)
        assert one.last_search()["actions"] == two.last_search()["actions"]


@pytest.mark.parametrize("spec", ["ismcts:iters=400,trees=5,threads=2", "pimc:iters=400,worlds=4,threads=4",
                                  "flatmc:iters=300,threads=3"])
def test_many_trees_play_and_each_tree_has_its_own_stream(spec):
    # a tree's seed mixes its index into the bot's seed modulo 2**64 (for any index)
    state = _decision_states(games=1, every=25)[1]
    bot = make_bot(spec, seed=11)
    action = bot.step(state)
    assert action in state.legal_actions()
    assert make_bot(spec, seed=11).step(state) == action
    assert sum(row["visits"] for row in bot.last_search()["actions"]) == bot.last_search()["iterations"]
    trees = [bot._searcher._tree(i) for i in range(bot.last_search()["trees"])]
    assert len(trees) >= 3
    for i in range(len(trees)):                  # no two trees searched alike
        for j in range(i):
            assert trees[i] != trees[j]


# ---- what the search reports --------------------------------------------------------------

@pytest.mark.parametrize("spec, iters", [("ismcts:iters=500", 500), ("ismcts:iters=501,threads=2", 501),
                                         ("pimc:iters=500,worlds=7", 500), ("flatmc:iters=300", 300)])
def test_root_visits_sum_to_the_iterations_and_statistics_are_reported(spec, iters):
    state = _decision_states(games=1, every=25)[1]
    bot = make_bot(spec, seed=2)
    action = bot.step(state)
    info = bot.last_search()
    assert info["iterations"] == iters
    assert sum(row["visits"] for row in info["actions"]) == iters
    assert info["actions"][0]["action"] == action                # the first is the choice
    if not spec.startswith("flatmc"):
        assert info["actions"][0]["visits"] == max(row["visits"] for row in info["actions"])
    assert {row["action"] for row in info["actions"]} <= set(state.legal_actions())
    for row in info["actions"]:
        assert len(row["mean_reward"]) == state.num_players()
        assert all(0.0 <= r <= 1.0 for r in row["mean_reward"])
        assert row["available"] >= row["visits"]
    assert info["seconds"] > 0 and info["nodes"] >= len(info["actions"])


def test_win_rewards_share_one_point_between_the_players():
    state = _decision_states(games=1, every=25)[1]
    bot = make_bot("ismcts:iters=400", seed=4)
    bot.step(state)
    for row in bot.last_search()["actions"]:
        assert sum(row["mean_reward"]) == pytest.approx(1.0)


def test_the_node_cap_bounds_the_tree_and_the_search_goes_on():
    state = _decision_states(games=1, every=25)[1]
    bot = make_bot("ismcts:iters=5000,node_cap=1000", seed=1)
    action = bot.step(state)
    info = bot.last_search()
    assert action in state.legal_actions()
    assert info["nodes"] <= 1000 and info["node_cap_reached"]
    assert info["iterations"] == 5000
    assert bot._searcher._check_trees() == []


def test_a_time_budget_searches_until_the_time_is_spent():
    # the clock is read every few iterations and the search stops once it is past the
    # budget: the time spent is never below it (how far above it is a benchmark figure)
    state = _decision_states(games=1, every=25)[1]
    bot = make_bot("ismcts:iters=0,time_ms=60", seed=1)
    bot.step(state)
    info = bot.last_search()
    assert info["iterations"] > 0 and info["iterations"] % 8 == 0
    assert info["seconds"] >= 0.06
    assert sum(row["visits"] for row in info["actions"]) == info["iterations"]


def test_a_cpu_budget_searches_until_the_threads_cpu_time_is_spent():
    # cpu_ms is read from the searching thread's CPU clock (one thread: the caller's), so
    # the thread's CPU time spent in the step is at least the budget, and the wall time too
    import time

    state = _decision_states(games=1, every=25)[1]
    bot = make_bot("ismcts:iters=0,cpu_ms=60", seed=1)
    cpu_before, wall_before = time.thread_time(), time.perf_counter()
    bot.step(state)
    cpu_spent, wall_spent = time.thread_time() - cpu_before, time.perf_counter() - wall_before
    info = bot.last_search()
    assert info["iterations"] > 0 and info["iterations"] % 8 == 0
    assert cpu_spent >= 0.06 and wall_spent >= cpu_spent - 1e-3
    assert sum(row["visits"] for row in info["actions"]) == info["iterations"]


def test_a_cpu_budget_is_kept_by_each_thread_of_a_parallel_search():
    # with threads=2 each tree runs on its own thread until that thread has spent the budget
    state = _decision_states(games=1, every=25)[1]
    bot = make_bot("ismcts:iters=0,cpu_ms=40,threads=2", seed=1)
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF)
    bot.step(state)
    after = resource.getrusage(resource.RUSAGE_SELF)
    process_cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    assert bot.last_search()["iterations"] > 0
    assert process_cpu >= 2 * 0.04 * 0.9      # two threads, each past its 40 ms (clock ticks)


# ---- play --------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["republic", "imperium"])
@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_every_bot_finishes_games_without_an_illegal_action(mode, num_players):
    specs = ["random", "greedy", "heuristic:style=builder", "heuristic:style=merchant",
             "heuristic:style=legionary", "heuristic:style=patron", "flatmc:iters=12",
             "pimc:iters=12,worlds=3", "ismcts:iters=15", "ismcts:iters=10,rollout=heuristic,cutoff=6",
             "ismcts:iters=15,reuse=true,reward=rank"]
    game = glory_ai.Game(num_players, mode=mode)
    for deal in range(2):
        seats = [specs[(deal * num_players + k) % len(specs)] for k in range(num_players)]
        bots = [make_bot(spec, seed=deal * 10 + k) for k, spec in enumerate(seats)]
        state = game.new_initial_state(deal)
        while not state.is_terminal():
            state.apply_action(bots[state.current_player()].step(state))   # checked: legal
        assert state.winners()


def test_a_parameter_bounded_on_one_side_names_its_range():
    from glory_ai.bots import Param

    floor = Param("margin", float, 0.0, "a value of at least 1", low=1.0)
    assert floor.parse("2.5", "x") == 2.5
    with pytest.raises(SpecError, match=r"0.5 is out of range 1\.\.$"):
        floor.parse("0.5", "x")
    ceiling = Param("depth", int, 3, "at most 8", high=8)
    with pytest.raises(SpecError, match=r"9 is out of range \.\.8$"):
        ceiling.parse("9", "x")


def test_the_random_bot_picks_every_legal_action_about_equally_often():
    # one decision point, many bot seeds: each of the k legal actions is chosen about 1/k of
    # the time (a chi-square bound far in the tail: 5 sigma for k-1 degrees of freedom)
    from glory_ai import Game

    state = Game(3).new_initial_state(seed=11)
    legal = state.legal_actions()
    counts = {action: 0 for action in legal}
    draws = 6000
    for seed in range(draws):
        counts[make_bot("random", seed=seed).step(state)] += 1
    expected = draws / len(legal)
    chi_square = sum((c - expected) ** 2 / expected for c in counts.values())
    dof = len(legal) - 1
    assert len(legal) > 5 and chi_square < dof + 5 * (2 * dof) ** 0.5


def test_the_decision_seed_is_the_information_state_hash_mixed_with_the_bot_seed():
    from glory_ai import Game

    state = Game(2).new_initial_state(seed=4)
    player = state.current_player()
    first_half = int.from_bytes(state.information_state_key(player)[:8], "little")
    assert state.information_state_hash(player) == first_half
    for seed in (0, 1, 2**40):
        bot = make_bot("random", seed=seed)
        expected = (state.information_state_hash(player) ^ (seed * 0x9E3779B97F4A7C15)) & (2**64 - 1)
        assert bot._decision_seed(state, player) == expected
