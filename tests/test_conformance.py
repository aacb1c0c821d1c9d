"""Conformance of the State API (in the manner of pgx's ``api_test`` and OpenSpiel's
``api_test``): random games of 2 to 5 players in both modes, and at every state every
public method of State called and its documented contract checked.

The contracts, by method (docs/notation.md, glory_ai/game.py):

* the player to move, the terminal flag and the legal actions agree (``legal_actions`` is
  sorted and distinct, ``legal_actions_mask`` marks exactly those ids, empty only at the
  end);
* action strings round-trip (unique, ``string_to_action`` inverts ``action_to_string``,
  ignoring case and blanks) and ``apply_action_string`` applies the same action;
* an illegal action is refused with a ValueError naming it, and the state is unchanged;
* a clone (and ``copy``, ``deepcopy``, pickle) is equal and independent of the original;
* ``to_dict`` is JSON-safe and ``from_dict`` gives the same state back;
* observations: JSON-safe dicts for the observer, tensors of the documented size, strings;
* ``determinize`` keeps everything its observer knows (key, string, observation, tensor)
  and, for the player to move, the legal actions;
* scores, breakdowns, limits and the feature vector are consistent; returns, winners and the end reason are
  empty (zero) until the end and describe one result at the end;
* counters (decisions, turns, functions used) only grow, by one decision per action.

A new public method of State fails ``test_every_public_method_has_a_contract`` until a
contract for it is added here.
"""
import copy
import json
import math
import pickle
import random

import numpy as np
import pytest

import glory_ai
from glory_ai.core.engine import FEATURE_COUNT, FEATURE_NAMES, OBSERVATION_TENSOR_SIZE, PHASE_NAMES

CARDS = [name for name in glory_ai.CARD_NAMES if name != "Jack"]
PLAYER_ZONES = ("hand", "camp", "stockpile", "vault", "clientele", "known_hand", "known_vault")
END_REASONS = {"deck", "sites", "catacomb", "forum", "concession"}

#: the public methods of State, each checked below (by the function named)
CONTRACTS = {
    "current_player": "check_turn", "is_terminal": "check_turn", "legal_actions": "check_turn",
    "legal_actions_mask": "check_turn", "phase": "check_turn", "num_players": "check_turn",
    "config": "check_turn", "leader": "check_turn", "led_role": "check_turn",
    "action_to_string": "check_strings", "string_to_action": "check_strings",
    "legal_action_strings": "check_strings", "apply_action_string": "check_strings",
    "apply_action": "check_apply", "history": "check_apply", "decisions": "check_apply",
    "clone": "check_copies", "to_dict": "check_copies", "from_dict": "check_copies",
    "observation": "check_observations", "observation_tensor": "check_observations",
    "observation_string": "check_observations", "information_state_string": "check_observations",
    "information_state_key": "check_observations", "information_state_hash": "check_observations",
    "determinize": "check_observations",
    "scores": "check_results", "score_breakdown": "check_results", "returns": "check_results",
    "winners": "check_results", "end_reason": "check_results", "influence": "check_results",
    "clientele_limit": "check_results", "vault_limit": "check_results", "refill_size": "check_results",
    "is_active": "check_results", "has_conceded": "check_results", "features": "check_results",
    "zone": "check_zones", "deck_size": "check_zones", "jack_pile": "check_zones",
    "turn_number": "check_progress", "functions_used": "check_progress",
    "random_playout": "check_playout_and_concession", "concede": "check_playout_and_concession",
}


def test_every_public_method_has_a_contract():
    public = {name for name in dir(glory_ai.State) if not name.startswith("_")}
    assert public == set(CONTRACTS), (
        f"methods without a contract here: {sorted(public - set(CONTRACTS))}; "
        f"gone: {sorted(set(CONTRACTS) - public)}")


# ---- the contracts, each at one state -----------------------------------------------------

def check_turn(state, game):
    n = game.num_players()
    assert state.num_players() == n
    assert state.config() == game.config()
    legal = state.legal_actions()
    mask = state.legal_actions_mask()
    assert mask.shape == (glory_ai.NUM_DISTINCT_ACTIONS,) and mask.dtype == np.bool_
    assert np.flatnonzero(mask).tolist() == legal
    assert legal == sorted(set(legal))
    assert all(0 <= a < glory_ai.NUM_DISTINCT_ACTIONS for a in legal)
    assert 0 <= state.leader() < n
    assert state.phase() in PHASE_NAMES.values()
    if state.is_terminal():
        assert state.current_player() == glory_ai.TERMINAL
        assert legal == [] and state.phase() == "over"
    else:
        assert 0 <= state.current_player() < n
        assert legal and state.phase() != "over"
    assert state.led_role() is None or state.led_role() in glory_ai.ROLES


def check_strings(state, game):
    legal = state.legal_actions()
    strings = state.legal_action_strings()
    assert strings == [state.action_to_string(a) for a in legal]
    assert len(set(s.lower() for s in strings)) == len(strings)
    for action, text in zip(legal, strings, strict=True):
        assert state.string_to_action(text) == action
        assert state.string_to_action("  " + text.upper().replace(" ", "  ") + " ") == action
    if legal:
        action = legal[len(legal) // 2]
        by_id, by_text = state.clone(), state.clone()
        by_id.apply_action(action)
        by_text.apply_action_string(state.action_to_string(action))
        assert by_text._raw_bytes() == by_id._raw_bytes() and by_text.history() == by_id.history()


def check_apply(state, game):
    before, history = state._raw_bytes(), state.history()
    legal = set(state.legal_actions())
    illegal = next(a for a in range(glory_ai.NUM_DISTINCT_ACTIONS) if a not in legal)
    reason = "game is over" if state.is_terminal() else f"illegal action {illegal}"
    with pytest.raises(ValueError, match=reason):
        state.apply_action(illegal)
    for bad in (-1, glory_ai.NUM_DISTINCT_ACTIONS):
        with pytest.raises(ValueError):
            state.apply_action(bad)
    assert state._raw_bytes() == before and state.history() == history
    if legal:
        child = state.clone()
        action = min(legal)
        child.apply_action(action)
        assert child.history() == history + [action]
        assert child.decisions() == state.decisions() + 1


def check_copies(state, game):
    raw, history = state._raw_bytes(), state.history()
    for twin in (state.clone(), copy.copy(state), copy.deepcopy(state), pickle.loads(pickle.dumps(state))):
        assert twin._raw_bytes() == raw and twin.history() == history
        if not twin.is_terminal():
            twin.apply_action(twin.legal_actions()[-1])
            assert twin._raw_bytes() != raw
        assert state._raw_bytes() == raw and state.history() == history
    d = state.to_dict()
    loaded = glory_ai.State.from_dict(json.loads(json.dumps(d)))
    assert loaded._raw_bytes() == raw
    assert loaded.to_dict() == d and loaded.legal_actions() == state.legal_actions()


def check_observations(state, game, rng):
    n = game.num_players()
    mover = state.current_player()
    for player in range(n):
        observation = state.observation(player)
        assert json.loads(json.dumps(observation)) == observation
        assert observation["observer"] == player and observation["num_players"] == n
        tensor = state.observation_tensor(player)
        assert tensor.shape == (OBSERVATION_TENSOR_SIZE,) and tensor.dtype == np.float32
        assert np.isfinite(tensor).all()
        assert isinstance(state.observation_string(player), str)
        assert isinstance(state.information_state_string(player), str)
        key = state.information_state_key(player)
        assert isinstance(key, bytes) and len(key) == 16
        assert state.information_state_hash(player) == int.from_bytes(key[:8], "little")
    # a world for the player to move and for one other player (both, over the game)
    for player in {mover % n, rng.randrange(n)}:
        world = state.determinize(player, rng.randrange(2**32))
        assert world.history() == []                   # a world starts a history of its own
        assert world.information_state_key(player) == state.information_state_key(player)
        assert world.information_state_hash(player) == state.information_state_hash(player)
        assert world.information_state_string(player) == state.information_state_string(player)
        assert world.observation(player) == state.observation(player)
        assert np.array_equal(world.observation_tensor(player), state.observation_tensor(player))
        assert world.observation_string(player) == state.observation_string(player)
        assert world.current_player() == mover and world.phase() == state.phase()
        if player == mover:
            assert world.legal_actions() == state.legal_actions()
    for bad in (-1, n, "0"):
        with pytest.raises((ValueError, TypeError)):
            state.observation(bad)


def check_results(state, game):
    n = game.num_players()
    scores = state.scores()
    assert len(scores) == n and all(isinstance(s, int) for s in scores)
    for player in range(n):
        breakdown = state.score_breakdown(player)
        assert breakdown["total"] == scores[player]
        assert sum(v for k, v in breakdown.items() if k != "total") == scores[player]
        assert breakdown["influence"] == state.influence(player) >= 2
        assert state.clientele_limit(player) >= 0 and state.vault_limit(player) >= 0
        assert state.refill_size(player) >= 1
        assert not state.has_conceded(player)
        built = {s["building"] for s in state.to_dict()["players"][player]["structures"] if s["complete"]}
        for name in built:
            assert state.is_active(player, name)
        features = dict(zip(FEATURE_NAMES, state.features(player).tolist(), strict=True))
        assert state.features(player).shape == (FEATURE_COUNT,) and all(map(math.isfinite, features.values()))
        assert features["score"] == scores[player] and features[f"players_{n}"] == 1
        assert {name[10:] for name, v in features.items() if name.startswith("completed_") and v} == {
            name.lower().replace(" ", "_") for name in built}
    returns, winners = state.returns(), state.winners()
    if state.is_terminal():
        assert winners and set(winners) <= set(range(n))
        assert returns == [1 / len(winners) if p in winners else 0.0 for p in range(n)]
        assert state.end_reason() in END_REASONS
        if state.end_reason() != "forum":
            assert {scores[p] for p in winners} == {max(scores)}
    else:
        assert returns == [0.0] * n and winners == [] and state.end_reason() is None


def check_zones(state, game):
    d = state.to_dict()
    assert state.zone("pool") == sorted(d["pool"])
    assert state.zone("deck") == d["deck"] and state.deck_size() == len(d["deck"])
    assert state.jack_pile() == d["jack_pile"]
    for player in range(game.num_players()):
        for name in PLAYER_ZONES:
            assert state.zone(name, player) == sorted(d["players"][player][name])
    with pytest.raises(ValueError):
        state.zone("hand")


def check_progress(state, previous):
    assert state.turn_number() >= previous.turn_number()
    assert set(state.functions_used()) >= set(previous.functions_used())
    assert set(state.functions_used()) <= set(CARDS)


def check_playout_and_concession(state, game, rng):
    seed = rng.randrange(2**32)
    ends = [state.clone(), state.clone()]
    for end in ends:
        end.random_playout(seed)
        assert end.is_terminal()
    assert ends[0]._raw_bytes() == ends[1]._raw_bytes()
    if not state.is_terminal():
        quitter = rng.randrange(game.num_players())
        left = state.clone()
        left.concede(quitter)
        assert left.has_conceded(quitter)
        if game.num_players() == 2:
            assert left.is_terminal() and left.winners() == [1 - quitter]
            assert left.end_reason() == "concession"
        else:
            assert left.is_terminal() or left.current_player() != quitter


# ---- random games -------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["republic", "imperium"])
@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_every_method_keeps_its_contract_at_every_state_of_a_random_game(num_players, mode):
    game = glory_ai.Game(num_players, mode=mode)
    rng = random.Random(num_players * 10 + (mode == "imperium"))
    state = game.new_initial_state(rng.randrange(1000))
    previous = state.clone()
    step = 0
    while True:
        check_turn(state, game)
        check_strings(state, game)
        check_apply(state, game)
        check_results(state, game)
        check_progress(state, previous)
        check_copies(state, game)
        check_observations(state, game, rng)
        check_zones(state, game)
        if step % 25 == 0:
            check_playout_and_concession(state, game, rng)
        if state.is_terminal():
            break
        previous = state.clone()
        state.apply_action(rng.choice(state.legal_actions()))
        step += 1
    assert step > 20 and not math.isnan(sum(state.returns()))
