"""Tree reuse (`ismcts:reuse=true`), its contract (docs/bots.md, "Tree reuse"):

* when the new state does not continue the last search's state for the same player (as far
  as that player can tell), the bot answers exactly as a fresh bot with the same seed:
  the same action and the same root statistics;
* when it does, the tree kept is exactly the old tree's subtree of the moves played since,
  node by node, less the root children whose action is not legal now, and the search adds
  its iterations to it.
"""
import pytest
from search_positions import catacomb_now, catacomb_this_turn, stop_the_forum

import glory_ai
from glory_ai.bots import make_bot
from glory_ai.core.engine import ACTION_BLOCKS

VAULT_FROM_HAND = next(range(start, start + size) for name, start, size, *_ in ACTION_BLOCKS
                       if name == "vault_hand")


def _same_as_fresh(bot, state, spec, seed):
    """bot answers `state` exactly as a fresh bot of the same spec and seed."""
    fresh = make_bot(spec, seed=seed)
    action = bot.step(state)
    assert action == fresh.step(state)
    assert bot.last_search()["actions"] == fresh.last_search()["actions"]
    assert bot.last_search()["reused_nodes"] == 0
    return action


def test_two_loaded_positions_do_not_share_a_tree():
    # both start with an empty history: the history alone says the second continues the first
    spec = "ismcts:iters=300,reuse=true,turnwin=0"     # (a root win search plays without a tree)
    first, second = catacomb_now().state, stop_the_forum().state
    loaded = [glory_ai.State.from_dict(s.to_dict()) for s in (first, second)]
    assert loaded[0].history() == loaded[1].history() == []
    bot = make_bot(spec, seed=1)
    bot.step(loaded[0])
    _same_as_fresh(bot, loaded[1], spec, 1)
    _same_as_fresh(bot, catacomb_this_turn().state, spec, 1)


def test_a_new_game_on_the_same_bot_starts_afresh():
    spec = "ismcts:iters=200,reuse=true"
    bot = make_bot(spec, seed=3)
    game = glory_ai.Game(2)
    for deal in range(3):
        state = game.new_initial_state(deal)
        while state.current_player() != 0 or len(state.legal_actions()) < 2:
            state.apply_action(state.legal_actions()[0])
        _same_as_fresh(bot, state, spec, 3)
        # a few moves into the game, so that the next deal's history is shorter, or a
        # prefix of this one (a new game played the same way)
        state.apply_action(bot.step(state))


def test_a_state_out_of_order_or_for_another_player_starts_afresh():
    spec = "ismcts:iters=200,reuse=true"
    state = glory_ai.Game(3).new_initial_state(11)
    states = []
    greedy = make_bot("greedy", seed=1)
    while len(states) < 6:
        if len(state.legal_actions()) > 1:
            states.append(state.clone())
        state.apply_action(greedy.step(state))
    bot = make_bot(spec, seed=5)
    bot.step(states[3])
    for earlier in (states[1], states[0]):              # histories shorter than the last one
        _same_as_fresh(bot, earlier, spec, 5)
    later = [s for s in states[1:] if s.current_player() != states[0].current_player()]
    if later:
        bot.step(states[0])
        _same_as_fresh(bot, later[0], spec, 5)            # another player to move
    # the same position reached from another deal's history: the same information state
    # is required, not only the history
    copy = glory_ai.State.from_dict(states[4].to_dict())
    bot.step(states[4])
    bot.step(copy)
    assert bot.last_search()["reused_nodes"] == 0


def _subtree(root, moves, legal):
    """The node reached by `moves` from `root`, as a new root: its root children limited
    to `legal`, its mover the root's. None if a move has no node."""
    node = root
    for action in moves:
        node = next((child for child in node["children"] if child["action"] == action), None)
        if node is None:
            return None
    return dict(node, mover=255, children=[child for child in node["children"] if child["action"] in legal])


def _size(node):
    return 1 + sum(_size(child) for child in node["children"])


@pytest.mark.parametrize("num_players, seed", [(2, 8), (3, 4), (4, 2)])
def test_the_kept_tree_is_exactly_the_subtree_of_the_moves_played(num_players, seed):
    spec = "ismcts:iters=300,reuse=true,turnwin=0"     # (a root win search plays without a tree)
    bot = make_bot(spec, seed=seed)
    searcher = bot._searcher
    opponents = make_bot("greedy", seed=seed)
    state = glory_ai.Game(num_players).new_initial_state(seed)
    last_history = None
    old_tree = None
    kept_counts = []
    for _ in range(60 * num_players):
        if state.is_terminal():
            break
        if state.current_player() != 0 or len(state.legal_actions()) < 2:
            state.apply_action(opponents.step(state))
            continue
        moves = state.history()[len(last_history):] if last_history is not None else None
        expected = None
        if old_tree is not None and not any(a in VAULT_FROM_HAND for a in moves):
            expected = _subtree(old_tree, moves, set(state.legal_actions()))
        kept = searcher._follow(state, 0)
        tree = searcher._tree(0)
        if expected is None:
            assert kept == 0 and tree == []
        else:
            assert tree == [expected]
            assert kept == _size(expected)
        kept_counts.append(kept)
        action = bot.step(state)                         # reuses what _follow kept
        info = bot.last_search()
        assert info["reused_nodes"] == kept
        (root,) = searcher._tree(0)
        # (the search stops early once it has proven the root: nothing is left to search)
        assert info["iterations"] == 300 or info["actions"][0]["proven"] is not None
        assert root["visits"] == (expected["visits"] if expected else 0) + info["iterations"]
        assert {r["action"] for r in info["actions"]} <= set(state.legal_actions())
        assert action in state.legal_actions()
        assert searcher._check_trees() == []
        last_history, old_tree = state.history(), root
        state.apply_action(action)
    assert sum(1 for k in kept_counts if k > 0) >= 3     # reuse did happen, and was checked


def test_a_reused_tree_answers_as_a_fresh_bot_once_it_has_been_dropped():
    # after a move the tree cannot follow, the search is exactly a fresh one
    spec = "ismcts:iters=250,reuse=true"
    state = glory_ai.Game(2).new_initial_state(21)
    bot = make_bot(spec, seed=2)
    greedy = make_bot("greedy", seed=2)
    checked = 0
    for _ in range(200):
        if state.is_terminal():
            break
        if state.current_player() == 0 and len(state.legal_actions()) > 1:
            if bot._searcher._follow(state, 0) == 0:
                action = _same_as_fresh(bot, state, spec, 2)
                checked += 1
            else:
                action = bot.step(state)
            state.apply_action(action)
        else:
            state.apply_action(greedy.step(state))
    assert checked >= 1


def test_reuse_with_several_trees_keeps_each_tree_s_subtree():
    spec = "ismcts:iters=400,trees=2,threads=2,reuse=true,turnwin=0"
    state = glory_ai.Game(2).new_initial_state(5)
    bot = make_bot(spec, seed=4)
    greedy = make_bot("greedy", seed=4)
    reused = []
    for _ in range(120):
        if state.is_terminal():
            break
        if state.current_player() == 0 and len(state.legal_actions()) > 1:
            action = bot.step(state)
            reused.append(bot.last_search()["reused_nodes"])
            assert bot._searcher._check_trees() == []
            assert (sum(r["visits"] for r in bot.last_search()["actions"]) >= 400
                    or bot.last_search()["actions"][0]["proven"] is not None)   # stopped: proven
            state.apply_action(action)
        else:
            state.apply_action(greedy.step(state))
    assert any(reused)
