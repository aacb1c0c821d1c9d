"""Does the search search? Known best moves found as the budget grows, exact visit and
availability counts, the selection rule on a hand-built node, the reward vectors of 2 to 5
players (docs/bots.md, "Rewards"), and the trees' invariants after every kind of search."""
import math
import random
from pathlib import Path

import pytest
from search_positions import all_known, catacomb_now

import glory_ai
from glory_ai.bots import make_bot
from glory_ai.bots._search import _evaluate, _rewards, _select
from support.positions import foundation, play, state_of

# ---- known best moves -------------------------------------------------------------------

SPECS = {"ismcts": "ismcts:iters={n}", "pimc": "pimc:iters={n},worlds=10", "flatmc": "flatmc:iters={n}"}
#: the search without the solver, the reward mix and the robust choice (the ISMCTS
#: defaults before them; PIMC's and flat MC's defaults)
PLAIN = "c=0.7,cutoff=40,solver=false,speed=0,vp=0,final=visits,eval=style,turnwin=0"

#: the smallest budget (of 10, 20, 40, ...) from which each bot finds a best move of each
#: position with every one of 16 seeds, at that budget and all larger ones up to 5,120
#: (measured; docs/bots.md, "Known positions")
FOUND_AT = {
    "catacomb now": {"ismcts": 10, "pimc": 80, "flatmc": 10},
    "catacomb this turn": {"ismcts": 10, "pimc": 2560, "flatmc": 640},
    "forum romanum this turn": {"ismcts": 20, "pimc": 320, "flatmc": 80},
    "stop the forum": {"ismcts": 10, "pimc": 80, "flatmc": 40},
}
KNOWN = {position.name: position for position in all_known()}


def test_the_known_positions_have_the_best_moves_their_stories_tell():
    def best(name):
        return {KNOWN[name].state.action_to_string(a) for a in KNOWN[name].best}

    assert best("catacomb now") == {"architect: add Garden to Catacomb"}
    assert best("catacomb this turn") == {"lead Architect with Tower"}
    assert best("forum romanum this turn") == {"lead Laborer with Road"}
    assert best("stop the forum") == {"laborer: take Temple from pool"}
    assert [position.state.num_players() for position in KNOWN.values()] == [2, 3, 4, 2]
    for position in KNOWN.values():
        assert len(position.others) >= 3


@pytest.mark.parametrize("bot", list(SPECS))
@pytest.mark.parametrize("name", list(FOUND_AT))
def test_each_search_finds_the_known_best_move_from_its_budget_on(name, bot):
    position = KNOWN[name]
    budget = FOUND_AT[name][bot]
    for iterations in (budget, 2 * budget):
        chosen = [make_bot(SPECS[bot].format(n=iterations), seed=seed).step(position.state)
                  for seed in range(8)]
        assert all(action in position.best for action in chosen), (iterations, chosen)


@pytest.mark.parametrize("bot", ["ismcts", "pimc"])
@pytest.mark.parametrize("name", list(FOUND_AT))
def test_the_visits_concentrate_on_the_best_move_as_iterations_grow(name, bot):
    # (the plain ISMCTS: the default one stops as soon as it proves a win)
    position = KNOWN[name]
    spec = SPECS[bot] + ("," + PLAIN if bot == "ismcts" else "")

    def best_share(iterations):
        share = 0.0
        for seed in range(8):
            searcher = make_bot(spec.format(n=iterations), seed=seed)
            searcher.step(position.state)
            rows = searcher.last_search()["actions"]
            share += sum(r["visits"] for r in rows if r["action"] in position.best) / iterations
        return share / 8

    budget = max(FOUND_AT[name][bot], 40 if bot == "pimc" else 160)
    small, large = best_share(budget // 4), best_share(2 * budget)
    assert large > small and large > 1 / len(position.state.legal_actions())


def test_the_winning_move_is_worth_a_whole_win_to_its_mover():
    position = catacomb_now()
    bot = make_bot("ismcts:iters=200,speed=0,vp=0,turnwin=0", seed=1)
    bot.step(position.state)
    (win,) = position.best
    row = next(r for r in bot.last_search()["actions"] if r["action"] == win)
    assert row["mean_reward"] == [1.0, 0.0]


# ---- exact counts -----------------------------------------------------------------------

def _mid_game(num_players=3, seed=5, decisions=30):
    """A greedy-played game's first decision with 10 or more legal actions after
    `decisions` decisions."""
    state = glory_ai.Game(num_players).new_initial_state(seed)
    bot = make_bot("greedy", seed=seed)
    made = 0
    while made < decisions or len(state.legal_actions()) < 10:
        state.apply_action(bot.step(state))
        made += 1
    return state


def test_n_iterations_on_n_actions_try_each_action_once():
    # every iteration expands an untried root action until none is left; the k-th child
    # has been available in every iteration since its own
    state = _mid_game()
    n = len(state.legal_actions())
    bot = make_bot(f"ismcts:iters={n},{PLAIN}", seed=3)
    action = bot.step(state)
    rows = bot.last_search()["actions"]
    assert sorted(r["action"] for r in rows) == state.legal_actions()
    assert all(r["visits"] == 1 for r in rows)
    assert sorted(r["available"] for r in rows) == list(range(1, n + 1))
    assert action == min(state.legal_actions())          # final=visits, equal visits: the lowest id


@pytest.mark.parametrize("extra", [1, 7, 40])
def test_root_availability_counts_every_iteration_since_the_child_was_made(extra):
    state = _mid_game()
    n = len(state.legal_actions())
    iterations = n + extra
    bot = make_bot(f"ismcts:iters={iterations}", seed=4)
    bot.step(state)
    rows = bot.last_search()["actions"]
    # the mover's own actions are legal in every world: available in every iteration
    assert sorted(r["available"] for r in rows) == list(range(extra + 1, iterations + 1))
    assert sum(r["visits"] for r in rows) == iterations


def test_flat_monte_carlo_shares_the_iterations_round_robin():
    state = _mid_game()
    n = len(state.legal_actions())
    iterations = 3 * n + 2
    bot = make_bot(f"flatmc:iters={iterations}", seed=5)
    action = bot.step(state)
    rows = bot.last_search()["actions"]
    assert sorted(r["visits"] for r in rows) == [3] * (n - 2) + [4] * 2
    assert sorted(r["available"] for r in rows) == list(range(iterations - n + 1, iterations + 1))
    # flat MC plays the best mean reward for its player, not the most visited
    player = state.current_player()
    assert action == max(rows, key=lambda r: (r["mean_reward"][player], r["visits"], -r["action"]))["action"]


def test_pimc_searches_every_world_with_its_share_of_the_iterations():
    state = _mid_game()
    n = len(state.legal_actions())
    worlds = 4
    bot = make_bot(f"pimc:iters={worlds * n},worlds={worlds}", seed=6)
    bot.step(state)
    rows = bot.last_search()["actions"]
    assert all(r["visits"] == worlds for r in rows)        # once per action in every world
    assert sum(r["available"] for r in rows) == worlds * n * (n + 1) // 2
    trees = bot._searcher._tree(0)
    assert len(trees) == worlds and all(root["visits"] == n for root in trees)


# ---- the selection rule on a hand-built node ------------------------------------------------

def _ucb(reward, visits, available, c):
    return reward / visits + c * math.sqrt(math.log(available) / visits)


def test_selection_takes_the_highest_ucb_among_the_children_legal_in_this_world():
    children = [  # (action, visits, availability, reward sums per player); mover 1
        (10, 10, 20, [2.0, 7.0]),
        (11, 2, 4, [0.5, 1.0]),
        (12, 0, 3, [0.0, 0.0]),        # never visited, but not legal here
        (13, 5, 5, [1.0, 4.0]),
    ]
    legal = [13, 11, 10, 14, 15]
    chosen, available, untried = _select(children, legal, 1, 0.7)
    assert available == [21, 5, 3, 6]       # one more for each legal child, none for action 12
    assert sorted(untried) == [14, 15]      # the legal actions without a child
    scores = {i: _ucb(children[i][3][1], children[i][1], available[i], 0.7) for i in (0, 1, 3)}
    assert chosen == max(scores, key=scores.get)
    # the mover's entry decides: for player 0 the same statistics rank otherwise
    scores0 = {i: _ucb(children[i][3][0], children[i][1], available[i], 0.7) for i in (0, 1, 3)}
    assert _select(children, legal, 0, 0.7)[0] == max(scores0, key=scores0.get)
    assert max(scores, key=scores.get) != max(scores0, key=scores0.get)


def test_selection_prefers_an_unvisited_child_and_breaks_ties_by_list_order():
    visited = (20, 4, 9, [3.9, 0.1])
    assert _select([visited, (21, 0, 2, [0, 0])], [20, 21], 0, 0.7)[0] == 1
    twins = [(30, 3, 6, [1.5, 0]), (31, 3, 6, [1.5, 0]), (32, 3, 6, [1.5, 0])]
    assert _select(twins, [32, 31, 30], 0, 0.7)[0] == 0
    assert _select(twins, [32, 31], 0, 0.7)[0] == 1
    assert _select(twins, [], 0, 0.7) == (None, [6, 6, 6], [])


def test_exploration_grows_with_availability_and_c():
    # the same child wins on exploitation at c = 0 and loses to the rarely visited one at c = 2
    children = [(40, 50, 60, [35.0]), (41, 3, 60, [1.5])]
    assert _select(children, [40, 41], 0, 0.0)[0] == 0
    assert _select(children, [40, 41], 0, 2.0)[0] == 1
    # availability, not the parent's visits: a child rarely available explores less
    children = [(40, 50, 60, [35.0]), (41, 3, 4, [1.5])]
    assert _select(children, [40, 41], 0, 0.3)[0] == 0


def test_flat_monte_carlo_selection_is_round_robin():
    children = [(50, 4, 9, [4.0]), (51, 3, 9, [0.0]), (52, 3, 9, [3.0])]
    assert _select(children, [50, 51, 52], 0, 0.7, "flatmc")[0] == 1
    assert _select(children, [50, 52], 0, 0.7, "flatmc")[0] == 2


# ---- rewards ----------------------------------------------------------------------------

def reference_rewards(state, reward, temperature=4.0):
    """docs/bots.md, "Rewards", written out in Python."""
    n = state.num_players()
    if not state.is_terminal():
        ev = [-1e9 if state.has_conceded(p) else _evaluate(state, p) for p in range(n)]
        if reward == "win":
            weights = [math.exp((e - max(ev)) / temperature) if e > -1e8 else 0.0 for e in ev]
            return [w / sum(weights) for w in weights]
        if reward == "rank":
            return [sum(1 / (1 + math.exp(-(ev[p] - ev[q]) / temperature)) for q in range(n) if q != p)
                    / (n - 1) for p in range(n)]
        return [0.5 + 0.5 * math.tanh((ev[p] - max(ev[q] for q in range(n) if q != p)) / temperature)
                for p in range(n)]
    scores, winners = state.scores(), set(state.winners())
    hands = [len(state.zone("hand", p)) for p in range(n)]
    if reward == "win":
        return [1 / len(winners) if p in winners else 0.0 for p in range(n)]
    if reward == "rank":
        def beats(p, q):
            if (p in winners) != (q in winners):
                return 1.0 if p in winners else 0.0
            mine, theirs = (scores[p], hands[p]), (scores[q], hands[q])
            return 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
        return [sum(beats(p, q) for q in range(n) if q != p) / (n - 1) for p in range(n)]
    out = []
    for p in range(n):
        base = 0.5 + 0.5 * math.tanh((scores[p] - max(scores[q] for q in range(n) if q != p)) / 8)
        out.append(0.5 + 0.5 * base if p in winners else 0.5 * base)
    return out


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_reward_vectors_of_finished_games_follow_the_documented_formulas(num_players):
    game = glory_ai.Game(num_players, mode="imperium" if num_players % 2 else "republic")
    seen_reasons = set()
    for seed in range(25):
        state = game.new_initial_state(seed)
        state.random_playout(seed)
        seen_reasons.add(state.end_reason())
        for reward in ("win", "rank", "margin"):
            assert _rewards(state, reward) == pytest.approx(reference_rewards(state, reward), abs=1e-12)
        assert sum(_rewards(state, "win")) == pytest.approx(1.0)
        assert sum(_rewards(state, "rank")) == pytest.approx(num_players / 2)
    assert len(seen_reasons) >= 2


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_cutoff_reward_vectors_follow_the_documented_formulas(num_players):
    game = glory_ai.Game(num_players)
    for seed in range(10):
        state = game.new_initial_state(seed)
        state.random_playout(seed, max_decisions=40 + 15 * seed)
        assert not state.is_terminal()
        for reward in ("win", "rank", "margin"):
            for temperature in (1.0, 4.0):
                assert _rewards(state, reward, temperature) == pytest.approx(
                    reference_rewards(state, reward, temperature), abs=1e-12)
        assert sum(_rewards(state, "rank")) == pytest.approx(num_players / 2)


def _catacomb_end(influences, hands):
    """P0 leads Architect, the others take a Jack; P0's next action can complete the
    Catacomb, which ends the game (R-11.1(3)). influences/hands: per player."""
    players = [{"hand": ["Tower"] + hands[0], "stockpile": ["Garden"], "influence": influences[0],
                "structures": [foundation("Catacomb", ["Villa", "Prison"])]}]
    players += [{"hand": hand, "influence": influence}
                for hand, influence in zip(hands[1:], influences[1:], strict=True)]
    state = state_of(len(players), players)
    play(state, "lead Architect with Tower", *["think: take Jack"] * (len(players) - 1))
    return state, state.string_to_action("architect: add Garden to Catacomb")


ENDINGS = {
    # P0 completes the Catacomb with 8 VP against 7 and 5
    "3 players": ([["Stone"], ["Stone", "Concrete"], ["Stone"]], [["Dock"], ["Bath"], ["Road"]]),
    # P0, P1 and P2 end with 8 VP; P2 holds the most cards and wins alone
    "4 players, hands break the tie": (
        [["Stone"], ["Stone", "Stone"], ["Stone", "Stone"], ["Brick"]],
        [["Dock"], [], ["Road"], ["Bath", "Bar"]]),
    # P0 and P1 end with 8 VP and one card each: they share the win
    "5 players, shared win": (
        [["Stone"], ["Stone", "Stone"], ["Concrete"], ["Rubble"], ["Marble"]],
        [["Dock"], [], [], ["Bath"], ["Bar", "Latrine"]]),
}


@pytest.mark.parametrize("ending", list(ENDINGS))
@pytest.mark.parametrize("reward", ["win", "rank", "margin"])
def test_a_move_that_ends_the_game_backs_up_its_exact_reward_vector(ending, reward):
    state, finish = _catacomb_end(*ENDINGS[ending])
    after = state.clone()
    after.apply_action(finish)
    assert after.is_terminal() and after.end_reason() == "catacomb"
    expected = reference_rewards(after, reward)
    for spec in (f"ismcts:iters=150,reward={reward},speed=0,vp=0,turnwin=0",
                 f"flatmc:iters=60,reward={reward}"):
        bot = make_bot(spec, seed=2)
        bot.step(state)
        row = next(r for r in bot.last_search()["actions"] if r["action"] == finish)
        assert row["visits"] > 0
        assert row["mean_reward"] == pytest.approx(expected, abs=1e-12)


def test_the_endings_have_the_winners_their_comments_say():
    winners = {}
    for name, (influences, hands) in ENDINGS.items():
        state, finish = _catacomb_end(influences, hands)
        state.apply_action(finish)
        winners[name] = (state.scores()[:2], state.winners())
    assert winners == {"3 players": ([8, 7], [0]),
                       "4 players, hands break the tie": ([8, 8], [2]),
                       "5 players, shared win": ([8, 8], [0, 1])}


# ---- the trees' invariants ----------------------------------------------------------------

@pytest.mark.parametrize("spec", [
    "ismcts:iters=400", "ismcts:iters=300,reward=rank,cutoff=0", "ismcts:iters=300,reward=margin",
    "ismcts:iters=200,rollout=heuristic,cutoff=8", "ismcts:iters=3000,node_cap=1000",
    "ismcts:iters=400,trees=3,threads=2", "pimc:iters=400,worlds=8", "flatmc:iters=300",
])
@pytest.mark.parametrize("num_players", [2, 5])
def test_every_search_leaves_trees_that_keep_their_invariants(spec, num_players):
    state = _mid_game(num_players, seed=num_players, decisions=25 if num_players == 2 else 60)
    bot = make_bot(spec, seed=7)
    bot.step(state)
    assert bot._searcher._check_trees() == []
    info = bot.last_search()
    assert info["iterations"] == int(spec.split("iters=")[1].split(",")[0])


def test_a_pimc_tree_at_its_node_cap_still_searches_every_world():
    # each world's tree leaves a node for the roots of the worlds after it
    state = _mid_game()
    bot = make_bot("pimc:iters=6000,worlds=40,node_cap=1000", seed=1)
    bot.step(state)
    info = bot.last_search()
    assert info["node_cap_reached"] and info["nodes"] == 1000
    assert info["iterations"] == 6000
    roots = bot._searcher._tree(0)
    assert len(roots) == 40 and all(root["visits"] == 150 for root in roots)
    assert bot._searcher._check_trees() == []


def test_the_availability_stamps_wrap_without_changing_the_search():
    state = _mid_game()
    fresh = make_bot("ismcts:iters=500", seed=9)
    wrapped = make_bot("ismcts:iters=500", seed=9)
    wrapped.step(_mid_game(seed=6))              # stamps of an earlier search in the tables
    wrapped._searcher._set_stamp(2**32 - 300)    # and the counter wraps in this one
    assert wrapped.step(state) == fresh.step(state)
    assert wrapped.last_search()["actions"] == fresh.last_search()["actions"]
    assert wrapped._searcher._tree(0) == fresh._searcher._tree(0)


def _broken_state_without_legal_actions():
    def give(material):
        position = glory_ai.Game(2).new_initial_state(1).to_dict()
        position["turn"].update(phase="legionary_give", decider=0, actor=1, led_role="Legionary")
        position["turn"]["legionary"].update(demand=["Marble", "Stone"], give_left=["Marble", "Stone"],
                                             give_material=material)
        return glory_ai.State.from_dict(position)

    marble, stone = give("Marble"), give("Stone")
    raw = bytearray(marble._raw_bytes())
    differing = [i for i, (a, b) in enumerate(zip(raw, stone._raw_bytes(), strict=True)) if a != b]
    assert len(differing) == 1, differing            # the byte of the material being given
    raw[differing[0]] = glory_ai.MATERIALS.index("Rubble")
    marble._set_raw_bytes(bytes(raw))
    return marble


@pytest.mark.parametrize("spec", ["ismcts:iters=10", "pimc:iters=10,worlds=2", "flatmc:iters=10",
                                  "ismcts:iters=10,trees=2,threads=2", "greedy", "random"])
def test_an_engine_state_without_legal_actions_is_an_error_not_a_move(spec):
    # a broken position: the position reader refuses a turn without a legal action, so the
    # state's bytes are edited. A Legionary give of Marble and Stone, with the material the
    # victim is choosing set to Rubble, which nobody asked for: nothing can be given.
    state = _broken_state_without_legal_actions()
    assert not state.is_terminal() and state.legal_actions() == []
    bot = make_bot(spec, seed=1)
    with pytest.raises(RuntimeError, match="no legal action.*engine bug"):
        bot.step(state)
    if hasattr(bot, "_searcher"):
        with pytest.raises(RuntimeError, match="no legal action, an engine bug"):
            bot._searcher.search(state, 0, 1)


def _one_hire_from_a_full_action_queue() -> glory_ai.State:
    """Player 0 leads Patron with a completed Bath and Aqueduct: every client hired from
    hand acts at once and hires the next, each nesting one more pending action in its
    queue. After 63 hires the queue is full and the next hire from hand exceeds it."""
    from support.cards import CARDS, mode_cards

    marble = [name for name in sorted(CARDS) if CARDS[name][0] == "Marble" and mode_cards()[name]]
    hand = ["Jack"] + [name for name in marble for _ in range(12)][:70]
    state = glory_ai.State.from_dict({
        "num_players": 2, "variant": {"copies": {name: 12 for name in marble}},
        "players": [{"hand": hand, "influence": ["Marble"] * 6 + ["Stone"] * 6,
                     "structures": [{"building": "Bath", "complete": True, "materials": []},
                                    {"building": "Aqueduct", "complete": True, "materials": []}]},
                    {}]})
    play(state, "lead Patron with Jack")
    while state.current_player() != 0:
        state.apply_action(state.legal_actions()[0])
    for _ in range(63):
        state.apply_action_string(next(t for t in state.legal_action_strings() if t.endswith("from hand")))
    return state


@pytest.mark.parametrize("spec", ["ismcts:iters=200", f"ismcts:iters=200,{PLAIN}", "pimc:iters=200,worlds=2",
                                  "flatmc:iters=200", "ismcts:iters=200,rollout=heuristic,trees=2",
                                  "greedy", "heuristic:style=patron"])
def test_a_move_beyond_an_engine_capacity_is_an_error_not_a_move(spec):
    # the engine reports an exceeded capacity (apply_action_c returns -2, the state no longer
    # follows the rules); a search or policy that tries such a move raises instead of
    # searching on from the broken state
    state = _one_hire_from_a_full_action_queue()
    assert state._invariant_code() == 0
    with pytest.raises(RuntimeError, match="engine limit reached"):
        state.clone().apply_action_string(
            next(t for t in state.legal_action_strings() if t.endswith("from hand")))
    bot = make_bot(spec, seed=1)
    with pytest.raises(RuntimeError, match="exceeds a fixed capacity of the engine: .*queue .* is full"):
        bot.step(state)
    assert state._invariant_code() == 0                  # the bot's trials were on copies


def test_the_search_of_wins_within_the_turn_reports_an_exceeded_capacity():
    from glory_ai.bots._search import _turn_wins

    with pytest.raises(RuntimeError, match="wins within the turn met a move that exceeds a fixed capacity"):
        _turn_wins(_one_hire_from_a_full_action_queue())


def test_random_trees_never_choose_an_illegal_action():
    rng = random.Random(1)
    for _ in range(20):
        state = glory_ai.Game(rng.randint(2, 5)).new_initial_state(rng.randrange(1000))
        state.random_playout(rng.randrange(1000), max_decisions=rng.randrange(10, 200))
        if state.is_terminal() or len(state.legal_actions()) < 2:
            continue
        bot = make_bot(f"ismcts:iters={rng.randrange(20, 200)},c={rng.choice([0.0, 0.7, 3.0])}",
                       seed=rng.randrange(100))
        assert bot.step(state) in state.legal_actions()


# ---- what docs/bots.md says about the search ----------------------------------------------

DOCS = (Path(__file__).parents[2] / "docs" / "bots.md").read_text()


def test_the_documented_budgets_are_the_ones_tested():
    table = {}
    for line in DOCS.split("### Known best moves")[1].split("###")[0].splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if len(cells) == 5 and cells[2].replace(",", "").isdigit():
            name = cells[0].split(" (")[0]
            budgets = [int(cell.replace(",", "")) for cell in cells[2:]]
            table[name] = dict(zip(SPECS, budgets, strict=True))
            assert cells[1].strip("`") in {KNOWN[name].state.action_to_string(a) for a in KNOWN[name].best}
    assert table == FOUND_AT


def test_the_documented_memory_figures_are_the_compiled_ones():
    from glory_ai.bots._search import CONTEXT_BYTES, NODE_BYTES

    assert NODE_BYTES == 64 and "A tree node is 64 bytes" in DOCS
    assert f"`{NODE_BYTES} * iters` bytes of nodes" in DOCS
    assert f"200,000: {200_000 * NODE_BYTES / 1e6:.1f} MB per tree" in DOCS
    assert f"about {round(CONTEXT_BYTES / 1024, -1):.0f} KB" in DOCS
