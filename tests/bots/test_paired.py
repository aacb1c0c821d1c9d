"""paired= (issue 36, docs/bots.md, "Paired draws"): common random numbers at ISMCTS's root.
The k-th visit of every root action plays the same dealt world and the same draws, so the
actions are compared on the same deals. Off by default; off, the search draws what it drew
before the option existed."""
from __future__ import annotations

import pytest

import glory_ai
from glory_ai.bots import make_bot
from glory_ai.bots.builtin_params import BUILTIN_PARAMS, defaults
from support.play import bot_moves


def _mid_game(num_players=3, seed=5, decisions=60):
    state = glory_ai.Game(num_players).new_initial_state(seed)
    bot = make_bot("greedy", seed)
    for _ in range(decisions):
        state.apply_action(bot.step(state))
    return state


def test_off_by_default_and_off_the_search_is_the_one_it_was():
    assert defaults("ismcts")["paired"] is False
    assert all(p.name != "paired" for bot in ("pimc", "flatmc") for p in BUILTIN_PARAMS[bot])
    plain = bot_moves("ismcts:iters=60", 4)
    assert bot_moves("ismcts:iters=60,paired=false", 4) == plain
    assert bot_moves("ismcts:iters=60,paired=true", 4) != plain


def test_paired_search_is_reproducible_and_its_trees_hold_their_invariants():
    state = _mid_game()
    player = state.current_player()
    rows = []
    for _ in range(2):
        bot = make_bot("ismcts:iters=400,paired=true", 11)
        action = bot.step(state)
        assert action in state.legal_actions()
        assert bot._searcher._check_trees() == []
        found = bot.last_search()["actions"]
        rows.append([(row["action"], row["visits"], row["mean_reward"][player]) for row in found])
    assert rows[0] == rows[1]
    assert sum(visits for _, visits, _ in rows[0]) == 400


def test_the_kth_visit_of_every_root_action_is_dealt_the_same_world():
    state = _mid_game()
    player = state.current_player()
    searcher = make_bot("ismcts:iters=100,paired=true", 3)._searcher
    worlds = searcher._paired_worlds(state, player, 77, [0, 1, 2, 1, 0, 40])
    assert worlds[0] == worlds[4] and worlds[1] == worlds[3]        # the same visit, the same deal
    assert len({repr(world) for world in worlds}) == 4               # visits 0, 1, 2 and 40 differ
    # each is a deal of what the player cannot see: its own hand as it is, every hand's size kept
    hands = [player_dict["hand"] for player_dict in state.to_dict()["players"]]
    own = sorted(glory_ai.cards.CARD_NAMES.index(name) for name in hands[player])
    for world in worlds:
        assert [len(hand) for hand in world] == [len(hand) for hand in hands]
        assert world[player] == own
    # another search key deals other worlds; the same key in another searcher, the same
    again = make_bot("ismcts:iters=100,paired=true", 3)._searcher
    assert again._paired_worlds(state, player, 77, [0, 1]) == worlds[:2]
    assert searcher._paired_worlds(state, player, 78, [0]) != worlds[:1]


def test_paired_worlds_need_the_option():
    state = _mid_game()
    with pytest.raises(ValueError, match="paired=true"):
        make_bot("ismcts:iters=10", 3)._searcher._paired_worlds(state, state.current_player(), 1, [0])


def test_paired_is_checked_like_every_flag():
    with pytest.raises(ValueError, match="paired"):
        make_bot("ismcts:paired=maybe", 0)
    with pytest.raises(ValueError, match="paired"):
        make_bot("pimc:paired=true", 0)
