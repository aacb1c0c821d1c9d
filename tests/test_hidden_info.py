"""Hidden information (docs/rules.md §5): observations, information-state keys,
observation tensors and determinizations never leak a card a player cannot know."""
import json

import numpy as np

import glory_ai
import glory_ai.cards
from glory_ai import State
from glory_ai.core.engine import OBSERVATION_TENSOR_SIZE, observation_tensor_layout
from support.random_play import every_decision, mid_game


def samples():
    for num_players in (2, 3, 4, 5):
        for seed in range(12):
            mode = "imperium" if seed % 3 == 0 else "republic"
            state = mid_game(num_players, seed, 40 + 23 * seed, mode)
            if not state.is_terminal():
                yield state


def public_view(state, observer):
    """What an observer may know, computed from to_dict independently of the engine's masking."""
    d = state.to_dict()
    view = {k: v for k, v in d.items() if k not in ("deck", "rng", "players", "turn")}
    view["deck_size"] = len(d["deck"])
    view["players"] = []
    for q, pd in enumerate(d["players"]):
        entry = {k: v for k, v in pd.items() if k not in ("hand", "vault")}
        entry["hand_size"], entry["vault_size"] = len(pd["hand"]), len(pd["vault"])
        if q == observer:
            entry["hand"], entry["vault"] = pd["hand"], pd["vault"]
        view["players"].append(entry)
    turn = dict(d["turn"])
    if turn["actor"] != observer:
        turn["fountain_card"] = 0
    view["turn"] = turn
    return view


def test_determinizing_never_changes_what_the_observer_knows():
    for state in samples():
        for observer in range(state.num_players()):
            obs = state.observation(observer)
            key = state.information_state_key(observer)
            tensor = state.observation_tensor(observer)
            for seed in range(3):
                world = state.determinize(observer, seed)
                assert world.observation(observer) == obs
                assert world.information_state_key(observer) == key
                assert np.array_equal(world.observation_tensor(observer), tensor)
                assert public_view(world, observer) == public_view(state, observer)


def test_changing_a_knowable_card_changes_the_views():
    """The key is not trivially constant: swapping a card the observer can see with a
    deck card of another type changes observation, key and tensor."""
    checked = 0
    for state in samples():
        d = state.to_dict()
        observer = state.current_player()
        hand = d["players"][observer]["hand"]
        swap_out = next((c for c in hand if c != "Jack"), None)
        swap_in = next((c for c in d["deck"] if c != swap_out), None)
        if swap_out is None or swap_in is None:
            continue
        changed = json.loads(json.dumps(d))
        changed["players"][observer]["hand"].remove(swap_out)
        changed["players"][observer]["hand"].append(swap_in)
        changed["players"][observer]["known_hand"] = [c for c in d["players"][observer]["known_hand"]]
        if swap_out in changed["players"][observer]["known_hand"]:
            continue
        changed["deck"][changed["deck"].index(swap_in)] = swap_out
        other = State.from_dict(changed)
        assert other.observation(observer) != state.observation(observer)
        assert other.information_state_key(observer) != state.information_state_key(observer)
        assert not np.array_equal(other.observation_tensor(observer), state.observation_tensor(observer))
        # ... while a player who cannot see that hand notices nothing
        for q in range(state.num_players()):
            if q != observer:
                assert other.information_state_key(q) == state.information_state_key(q)
        checked += 1
    assert checked >= 20


def test_public_zone_changes_are_seen_by_everyone():
    state = mid_game(3, 5, 60)
    d = state.to_dict()
    card = d["deck"][0]
    changed = json.loads(json.dumps(d))
    changed["deck"] = changed["deck"][1:]
    changed["pool"] = sorted(changed["pool"] + [card])
    other = State.from_dict(changed)
    for q in range(3):
        assert other.information_state_key(q) != state.information_state_key(q)


def test_determinization_is_consistent_and_playable():
    for state in samples():
        for observer in range(state.num_players()):
            world = state.determinize(observer, 99)
            world._check_invariants()
            d, w = state.to_dict(), world.to_dict()
            assert w["players"][observer]["hand"] == d["players"][observer]["hand"]
            assert w["players"][observer]["vault"] == d["players"][observer]["vault"]
            for q in range(state.num_players()):
                for key in ("camp", "stockpile", "clientele", "influence", "structures",
                            "known_hand", "known_vault"):
                    assert w["players"][q][key] == d["players"][q][key]
                assert len(w["players"][q]["hand"]) == len(d["players"][q]["hand"])
                assert len(w["players"][q]["vault"]) == len(d["players"][q]["vault"])
                for card in d["players"][q]["known_hand"]:
                    assert w["players"][q]["hand"].count(card) >= d["players"][q]["known_hand"].count(card)
            assert w["pool"] == d["pool"] and len(w["deck"]) == len(d["deck"])
            assert sorted(w["deck"] + [c for p in w["players"] for c in p["hand"] + p["vault"]]) == \
                sorted(d["deck"] + [c for p in d["players"] for c in p["hand"] + p["vault"]])
            assert world.legal_actions() or world.is_terminal()
            world.random_playout(observer)
            assert world.is_terminal()


def test_determinization_is_seeded():
    state = mid_game(4, 3, 150)
    a, b = state.determinize(2, 7), state.determinize(2, 7)
    assert a._raw_bytes() == b._raw_bytes()
    assert state.determinize(2, 8)._raw_bytes() != a._raw_bytes()


def test_determinization_is_uniform_over_unknown_slots():
    """Chi-square: copies of one unknown card type land in the deck and in each opponent's
    hidden hand in proportion to the slot counts (fixed seeds, generous bound)."""
    # a state where nobody is known to lack a material (that would skew the slots: see
    # test_a_hand_seen_to_lack_a_material_never_receives_one)
    seed = 21
    while True:
        state = mid_game(3, seed, 90)
        d = state.to_dict()
        if not state.is_terminal() and not any(p["lacks"] for p in d["players"]):
            break
        seed += 1
    observer = 0
    groups = {"deck": len(d["deck"])}
    for q in (1, 2):
        groups[f"hand{q}"] = len(d["players"][q]["hand"]) - len(d["players"][q]["known_hand"])
        groups[f"vault{q}"] = len(d["players"][q]["vault"]) - len(d["players"][q]["known_vault"])
    total_slots = sum(groups.values())
    everything = d["deck"] + [c for q in (1, 2) for c in d["players"][q]["hand"] + d["players"][q]["vault"]]
    # a card type with several unknown copies
    card = max(set(everything), key=everything.count)
    copies = sum(1 for c in d["deck"] if c == card) + sum(
        d["players"][q]["hand"].count(card) - d["players"][q]["known_hand"].count(card)
        + d["players"][q]["vault"].count(card) - d["players"][q]["known_vault"].count(card)
        for q in (1, 2))
    observed = {g: 0 for g in groups}
    trials = 3000
    for seed in range(trials):
        w = state.determinize(observer, seed).to_dict()
        observed["deck"] += w["deck"].count(card)
        for q in (1, 2):
            wq, dq = w["players"][q], d["players"][q]
            observed[f"hand{q}"] += wq["hand"].count(card) - dq["known_hand"].count(card)
            observed[f"vault{q}"] += wq["vault"].count(card) - dq["known_vault"].count(card)
    chi2 = 0.0
    used = 0
    for g, slots in groups.items():
        if slots == 0:
            assert observed[g] == 0
            continue
        expected = trials * copies * slots / total_slots
        chi2 += (observed[g] - expected) ** 2 / expected
        used += 1
    # critical value of chi-square with <= 4 degrees of freedom at p = 1e-4 is < 24
    assert used >= 2 and chi2 < 24, (observed, groups, chi2)


def test_observation_is_json_safe_and_hides_others_hands():
    state = mid_game(4, 8, 100)
    for observer in range(4):
        obs = json.loads(json.dumps(state.observation(observer)))
        assert "deck" not in obs and "rng" not in obs
        assert obs["deck_size"] == state.deck_size()
        for q, pd in enumerate(obs["players"]):
            assert pd["hand_size"] == len(state.zone("hand", q))
            if q == observer:
                assert pd["hand"] == state.zone("hand", q)
            else:
                assert "hand" not in pd and "vault" not in pd


def test_observation_tensor_layout():
    state = mid_game(3, 2, 77)
    tensor = state.observation_tensor(1)
    assert tensor.dtype == np.float32 and tensor.shape == (OBSERVATION_TENSOR_SIZE,)
    assert sum(size for _, size in observation_tensor_layout()) == OBSERVATION_TENSOR_SIZE
    offsets, at = {}, 0
    for name, size in observation_tensor_layout():
        offsets[name] = (at, size)
        at += size
    start, size = offsets["seat0.hand"]
    names = glory_ai.CARD_NAMES
    own = state.zone("hand", 1)
    assert [int(v) for v in tensor[start:start + size]] == [own.count(n) for n in names]
    start, _ = offsets["pool"]
    assert int(tensor[start:start + 45].sum()) == len(state.zone("pool"))


# ---- knowledge tracking through public events -----------------------------------------

def base(players, **extra):
    d = {"num_players": 2, "players": players, "seed": 1}
    d.update(extra)
    return State.from_dict(d)


def test_a_jack_taken_by_a_thinker_is_known_to_all():
    state = base([{"hand": ["Bar"]}, {"hand": ["Temple"]}])
    state.apply_action_string("think: take Jack")
    assert state.observation(1)["players"][0]["known_hand"] == ["Jack"]


def test_cards_revealed_and_given_to_a_legionary_are_public():
    state = base([{"hand": ["Bath", "Foundry", "Jack"]}, {"hand": ["School", "Market"]}])
    for text in ("lead Legionary with Foundry", "think: take Jack", "legionary: reveal Bath"):
        state.apply_action_string(text)
    obs = state.observation(1)
    assert obs["players"][0]["known_hand"] == ["Bath", "Jack"]      # revealed stays in hand, known
    assert obs["players"][0]["stockpile"] == ["School"]             # given: public


def test_vaulted_from_stockpile_is_known_but_basilica_is_not():
    state = base([{"hand": ["Villa", "Temple"], "stockpile": ["Road"],
                   "structures": [{"building": "Basilica", "complete": True,
                                   "materials": ["Palace", "Palace", "Palace"]}]},
                  {"hand": ["Bar"]}])
    state.apply_action_string("lead Merchant with Villa")
    state.apply_action_string("think: take Jack")
    state.apply_action_string("merchant: vault Road from stockpile")
    state.apply_action_string("merchant: vault Temple from hand")
    obs = state.observation(1)
    assert obs["players"][0]["known_vault"] == ["Road"]
    assert obs["players"][0]["vault_size"] == 2
    assert state.observation(0)["players"][0]["vault"] == ["Road", "Temple"]
    world = state.determinize(1, 3)
    assert "Road" in world.zone("vault", 0) and len(world.zone("vault", 0)) == 2


def test_atrium_card_is_hidden_from_opponents():
    state = base([{"hand": ["Villa"], "structures": [{"building": "Atrium", "complete": True,
                                                        "materials": ["Bath", "Bath"]}]},
                  {"hand": ["Bar"]}])
    state.apply_action_string("lead Merchant with Villa")
    state.apply_action_string("think: take Jack")
    state.apply_action_string("merchant: vault top of deck")
    assert state.observation(1)["players"][0]["known_vault"] == []
    assert state.observation(1)["players"][0]["vault_size"] == 1
    assert len(state.observation(0)["players"][0]["vault"]) == 1


def test_fountain_card_is_seen_only_by_its_drawer():
    state = base([{"hand": ["Dock"], "structures": [{"building": "Fountain", "complete": True,
                                                      "materials": ["Palace"] * 3}]},
                  {"hand": ["Bar"]}], deck=["Temple", "Road", "Wall"])
    state.apply_action_string("lead Craftsman with Dock")
    state.apply_action_string("think: take Jack")
    state.apply_action_string("craftsman: draw from deck (Fountain)")
    assert state.observation(0)["turn"]["fountain_card"] == "Temple"
    assert state.observation(1)["turn"]["fountain_card"] is None
    key = state.information_state_key(1)
    worlds = {state.determinize(1, s).to_dict()["turn"]["fountain_card"] for s in range(40)}
    assert len(worlds) > 1                                         # the Fountain card is resampled
    assert all(state.determinize(1, s).information_state_key(1) == key for s in range(5))
    state.apply_action_string("fountain: keep Temple")
    assert state.observation(1)["players"][0]["known_hand"] == []


def test_latrine_and_vomitorium_discards_go_to_the_public_pool():
    state = base([{"hand": ["Bar", "Road", "Jack"],
                   "structures": [{"building": "Vomitorium", "complete": True,
                                   "materials": ["Tower", "Tower"]}]}, {"hand": ["Bar"]}])
    state.apply_action_string("think: discard hand (Vomitorium)")
    obs = state.observation(1)
    assert obs["pool"] == ["Bar", "Road"]
    assert obs["jack_pile"] == 6                                    # the Jack went back to the pile


def test_basilica_vault_does_not_leak_which_card_left():
    """A hidden removal lowers every known Order type: the public part must not depend on
    which card was vaulted."""
    views = []
    for vaulted in ("Temple", "Bar"):
        state = base([{"hand": ["Villa", "Temple", "Bar", "Bath", "Foundry"],
                       "structures": [{"building": "Basilica", "complete": True,
                                       "materials": ["Palace", "Palace", "Palace"]}]},
                      {"hand": ["School"]}])
        for text in ("lead Merchant with Villa", "think: take Jack"):
            state.apply_action_string(text)
        state.apply_action_string(f"merchant: vault {vaulted} from hand")
        views.append((state.information_state_key(1), state.observation(1)))
    assert views[0] == views[1]


def test_a_hand_seen_to_lack_a_material_never_receives_one():
    """A victim with no demanded card ("Glory to Rome!") shows everyone it holds none of
    that material; determinizations respect it until the victim draws unseen cards."""
    state = base([{"hand": ["Foundry", "Bath"]}, {"hand": ["Road", "Dock", "Temple"]}],
                 deck=["Villa", "Shrine", "Bar", "Atrium", "Gate", "Bridge", "Wall", "Forum Romanum",
                       "School", "Academy", "Archway", "Insula"])
    for text in ("lead Legionary with Foundry", "think: take Jack", "legionary: reveal Bath"):
        state.apply_action_string(text)
    assert state.to_dict()["players"][1]["lacks"] == ["Brick"]
    assert state.observation(0)["players"][1]["lacks"] == ["Brick"]
    materials = glory_ai.cards.CARD_MATERIAL
    brick = glory_ai.MATERIALS.index("Brick")
    for seed in range(300):
        world = state.determinize(0, seed)
        hand = world.zone("hand", 1)
        assert all(c == "Jack" or materials[glory_ai.CARD_NAMES.index(c)] != brick for c in hand)
        world._check_invariants()
    # a refill brings unseen cards: the constraint is gone
    state.apply_action_string("think: refill")
    assert state.to_dict()["players"][1]["lacks"] == []


def test_every_decision_play_reaches_is_one_the_engine_would_ask():
    """determinize() rejects worlds in which the pending question would not be asked (a
    forced choice is settled at once, so being asked is public). That test must hold in
    every real state, or determinize would reject the truth: builder-biased and uniform
    play, both modes, every decision."""
    checked = 0
    for where, state in every_decision(25, builder=lambda seed: seed % 2 == 0):
        assert state._decision_would_be_asked(), (where, state.phase())
        checked += 1
    assert checked > 50_000


def test_determinize_keeps_lacks_when_only_the_true_cards_fit():
    """The tightest case: P1 is known to lack every material but Marble, and its 5 hidden
    cards are the only Marble cards P0 cannot see (the other 19 lie in the pool). A
    uniform deal fits with probability about 1e-8, so rejection gives up and the greedy
    fallback deals: it must still give P1 exactly those Marble cards."""
    marble = [name for x, name in enumerate(glory_ai.cards.CARD_NAMES)
              if x and glory_ai.cards.CARD_MATERIAL[x] == 5 and glory_ai.cards.CARD_MODE[x] != 1
              for _ in range(glory_ai.cards.CARD_COPIES[x])]
    assert len(marble) == 24
    hidden = marble[:5]
    state = State.from_dict({"num_players": 2, "pool": marble[5:], "players": [
        {"hand": ["Bar", "Road"]},
        {"hand": hidden, "lacks": [m for m in glory_ai.cards.MATERIALS if m != "Marble"]}]})
    for seed in range(3):
        world = state.determinize(0, seed)
        assert sorted(world.zone("hand", 1)) == sorted(hidden)
        assert world.information_state_key(0) == state.information_state_key(0)
        world._check_invariants()
