"""The partial cheating controls (cheat=; issue 36, docs/strength.md "Never throw a won game"):
each sees exactly one kind of hidden information. A state changed only in what a control
cannot see gives it the same search; a change in what it sees changes it; never a default."""
from __future__ import annotations

import random

import pytest

import glory_ai
from glory_ai.bots import make_bot


def _states(games=2, every=7):
    """Two-player states with a real choice and hidden cards in the other player's hand."""
    out = []
    for seed in range(games):
        state = glory_ai.Game(2).new_initial_state(seed)
        bot = make_bot("greedy", seed=seed)
        step = 0
        while not state.is_terminal():
            d = state.to_dict()
            other = d["players"][1 - state.current_player()]
            hidden = len(other["hand"]) > len(other["known_hand"])
            if (step % every == 0 and len(state.legal_actions()) > 1 and hidden and state.deck_size() > 4
                    and d["turn"]["phase"] != "fountain"):
                out.append(state.clone())
            state.apply_action(bot.step(state))
            step += 1
    return out[:12]


def _shuffled_deck(state, seed):
    d = state.to_dict()
    random.Random(seed).shuffle(d["deck"])
    return glory_ai.State.from_dict(d)


def _hand_swapped(state):
    # the other player's first unknown hand card traded with a deck card of another name
    d = state.to_dict()
    other = d["players"][1 - state.current_player()]
    known = list(other["known_hand"])
    unknown = [c for c in other["hand"] if not (c in known and not known.remove(c))]
    card = unknown[0]
    swap = next(i for i, c in enumerate(d["deck"]) if c != card and c != "Jack")
    other["hand"][other["hand"].index(card)] = d["deck"][swap]
    d["deck"][swap] = card
    return glory_ai.State.from_dict(d)


def _search(spec, state):
    bot = make_bot(spec, seed=5)
    bot.step(state)
    return bot.last_search()["actions"]


@pytest.mark.parametrize("cheat, sees_deck, sees_hands", [("none", False, False), ("hands", False, True),
                                                          ("hidden", False, True), ("deck", True, False)])
def test_a_cheat_sees_its_part_of_the_hidden_cards_and_nothing_else(cheat, sees_deck, sees_hands):
    spec = f"ismcts:iters=150,turnwin=0,cheat={cheat}"
    states = _states()
    assert len(states) >= 8
    deck_moves = hand_moves = 0
    for i, state in enumerate(states):
        base = _search(spec, state)
        deck = _search(spec, _shuffled_deck(state, i)) != base
        hand = _search(spec, _hand_swapped(state)) != base
        if not sees_deck:
            assert not deck
        if not sees_hands and not sees_deck:
            assert not hand
        deck_moves += deck
        hand_moves += hand
    # a control that sees a part moves with it in most states
    assert (deck_moves >= len(states) // 2) == sees_deck
    if sees_hands:
        assert hand_moves >= len(states) // 2


def test_the_cheats_are_off_by_default_and_a_bad_one_is_refused():
    assert make_bot("ismcts", seed=1).params["cheat"] == "none"
    assert make_bot("pimc", seed=1).params["cheat"] == "none"
    with pytest.raises(ValueError, match="cheat"):
        make_bot("ismcts:cheat=cards", seed=1)


def _with_hidden_vault(state):
    # the other player holds two deck cards face down in the vault (unknown to the mover);
    # and the same state with the first traded for a deck card of another name
    d = state.to_dict()
    other = d["players"][1 - state.current_player()]
    first, second = d["deck"].pop(0), d["deck"].pop(0)
    other["vault"] += [first, second]
    swap = next(i for i, c in enumerate(d["deck"]) if c != first and c != "Jack")
    traded = {**d, "deck": list(d["deck"]), "players": [dict(p) for p in d["players"]]}
    traded_other = traded["players"][1 - state.current_player()]
    traded_other["vault"] = [traded["deck"][swap], second]
    traded["deck"][swap] = first
    return glory_ai.State.from_dict(d), glory_ai.State.from_dict(traded)


@pytest.mark.parametrize("cheat, sees_vaults", [("none", False), ("hands", False), ("vaults", True),
                                                ("hidden", True)])
def test_only_a_control_that_sees_the_vaults_moves_with_a_hidden_vault_card(cheat, sees_vaults):
    spec = f"ismcts:iters=150,turnwin=0,cheat={cheat}"
    states = _states()
    moved = 0
    for state in states:
        plain, traded = _with_hidden_vault(state)
        differs = _search(spec, plain) != _search(spec, traded)
        if not sees_vaults:
            assert not differs
        moved += differs
    if sees_vaults:
        assert moved >= len(states) // 2
