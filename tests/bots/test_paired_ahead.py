"""Two options of ISMCTS for the strength frontier (issue 36), both off by default and, off, the
search the one it was: paired= (docs/bots.md, "Paired draws"), common random numbers at the root,
the k-th visit of every root action dealt the same world and draws; ahead= (docs/bots.md, "More
search when ahead"), more iterations for a decision whose root reads the player as the likeliest
winner."""
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


# ---- ahead= (issue 36, docs/bots.md, "More search when ahead") ---------------------------------

def _reads_ahead(rows, player):
    # the root's mean reward per player over every iteration (each went through one root action)
    players = range(len(rows[0]["mean_reward"]))
    totals = [sum(row["visits"] * row["mean_reward"][q] for row in rows) for q in players]
    return all(totals[player] > totals[q] for q in range(len(totals)) if q != player)


def test_ahead_is_off_by_default_and_off_the_search_is_the_one_it_was():
    assert defaults("ismcts")["ahead"] == 0.0
    assert all(p.name != "ahead" for bot in ("pimc", "flatmc") for p in BUILTIN_PARAMS[bot])
    assert bot_moves("ismcts:iters=60,ahead=0", 4) == bot_moves("ismcts:iters=60", 4)


@pytest.mark.parametrize("num_players", [2, 3])
def test_a_root_reading_ahead_searches_on_and_one_reading_behind_does_not(num_players):
    state = glory_ai.Game(num_players).new_initial_state(21)
    greedy = make_bot("greedy", 2)
    seen = {True: 0, False: 0}
    for _ in range(160):
        if state.is_terminal():
            break
        player = state.current_player()
        if len(state.legal_actions()) > 1:
            plain = make_bot("ismcts:iters=200,turnwin=0", 5)
            plain.step(state)
            more = make_bot("ismcts:iters=200,turnwin=0,ahead=1.5", 5)
            more.step(state)
            base, extended = plain.last_search(), more.last_search()
            if base["iterations"] == 200:              # (a root settled early is left out)
                ahead = _reads_ahead(base["actions"], player)
                seen[ahead] += 1
                assert extended["iterations"] == (500 if ahead else 200)
                if not ahead:                          # the same search, draw for draw
                    assert extended["actions"] == base["actions"]
        state.apply_action(greedy.step(state))
    assert seen[True] >= 3 and seen[False] >= 3
