"""Setup: R-3.x, R-4.x and scenario S1 (docs/rules.md §3, §4, §17)."""

import collections

import pytest

import glory_ai
from support.cards import CARDS, MATERIALS, mode_cards
from support.positions import deck_with, new_state_with_deck, position

SEEDS = range(12)


def all_cards_in_play(d):
    c = collections.Counter(d["pool"])
    c.update(d["deck"])
    for p in d["players"]:
        for z in ("hand", "camp", "stockpile", "vault", "clientele"):
            c.update(p[z])
    return c


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_R_4_1_influence_starts_at_two(n):
    state = glory_ai.Game(n).new_initial_state(seed=1)
    d = state.to_dict()
    assert state.num_players() == n
    for p in range(n):
        assert state.influence(p) == 2
        assert d["players"][p]["influence"] == []
        assert d["players"][p]["structures"] == []


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_R_4_2_site_stacks(n):
    d = glory_ai.Game(n).new_initial_state(seed=2).to_dict()
    for m in MATERIALS:
        assert d["sites"]["in_town"][m] == n
        assert d["sites"]["out_of_town"][m] == 6 - n


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_R_4_3_R_4_5_republic_jacks_and_hands(n):
    d = glory_ai.Game(n).new_initial_state(seed=3).to_dict()
    assert d["jack_pile"] == 6
    for p in d["players"]:
        assert len(p["hand"]) == 5
        assert "Jack" not in p["hand"]
        assert p["camp"] == [] and p["stockpile"] == [] and p["vault"] == []
        assert p["clientele"] == []


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_R_4_5_imperium_hands_four_orders_and_a_jack(n):
    d = glory_ai.Game(n, mode="imperium").new_initial_state(seed=3).to_dict()
    assert d["jack_pile"] == 6 - n
    for p in d["players"]:
        assert len(p["hand"]) == 5
        assert p["hand"].count("Jack") == 1


@pytest.mark.parametrize("mode", ["republic", "imperium"])
@pytest.mark.parametrize("n", [2, 3, 5])
@pytest.mark.parametrize("seed", [0, 7])
def test_R_3_2_R_4_4_the_144_orders_of_the_mode(mode, n, seed):
    """Every Order of the mode is in play exactly once; the other mode's are absent."""
    d = glory_ai.Game(n, mode=mode).new_initial_state(seed=seed).to_dict()
    c = all_cards_in_play(d)
    c.pop("Jack", None)
    assert sum(c.values()) == 144
    assert c == mode_cards(mode)
    other = ("Circus", "Senate", "Colosseum", "Forum") if mode == "republic" else (
        "Crane", "Tribunal", "Domus Aurea", "Forum Romanum")
    for name in other:
        assert c[name] == 0


@pytest.mark.parametrize("mode", ["republic", "imperium"])
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_R_4_6_first_leader_deal_invariants(mode, n):
    """The first-leader cards stay in the pool; deck = 144 - hand Orders - pool."""
    hand_orders = 5 if mode == "republic" else 4
    leaders = set()
    for seed in SEEDS:
        state = glory_ai.Game(n, mode=mode).new_initial_state(seed=seed)
        d = state.to_dict()
        pool = d["pool"]
        assert len(pool) >= n
        assert len(d["deck"]) == 144 - hand_orders * n - len(pool)
        first = min(pool)
        if len(pool) == n:
            # no tie happened: the alphabetically first card was dealt once
            assert pool.count(first) == 1
        else:
            # a tie happened: some name was dealt to at least two players
            assert max(collections.Counter(pool).values()) >= 2
        assert d["leader"] == state.current_player()
        assert 0 <= d["leader"] < n
        leaders.add(d["leader"])
    assert len(leaders) >= 2, "the first leader should depend on the deal"


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_R_4_7_game_starts_with_the_first_leaders_turn(n):
    state = glory_ai.Game(n).new_initial_state(seed=4)
    d = state.to_dict()
    assert state.current_player() == d["leader"]
    assert all(p["camp"] == [] for p in d["players"])
    # the first decision is to lead or think
    assert all(s.startswith("lead ") or s.startswith("think:")
               for s in state.legal_action_strings())


def _deck(mode, prefix):
    d = position(2, mode=mode)
    return deck_with(d, top=prefix)


def test_S1_R_4_6_first_leader_tie_republic():
    """S1: pool deal A=Bar, B=Bar, C=Wall; tie -> A=Temple, B=Latrine -> B leads.

    Assumes hands (R-4.5) are dealt from the top of the deck before the first-leader
    cards (R-4.6), and that the first-leader cards are dealt to players 0, 1, 2 in order.
    """
    hands = ["Academy", "Amphitheatre", "Aqueduct", "Archway", "Atrium",
             "Basilica", "Bath", "Bridge", "Catacomb", "Circus Maximus",
             "Crane", "Dock", "Domus Aurea", "Forum Romanum", "Foundry"]
    deck = _deck("republic", hands + ["Bar", "Bar", "Wall", "Temple", "Latrine"])
    assert len(deck) == 144
    state = new_state_with_deck(glory_ai.Game(3), deck)
    d = state.to_dict()
    assert state.current_player() == 1
    assert d["leader"] == 1
    assert sorted(d["pool"]) == sorted(["Bar", "Bar", "Wall", "Temple", "Latrine"])
    assert len(d["deck"]) == 144 - 15 - 5 == 124
    assert d["deck"] == deck[20:]
    assert sorted(c for p in d["players"] for c in p["hand"]) == sorted(hands)
    for p in range(3):
        assert len(d["players"][p]["hand"]) == 5
        assert state.influence(p) == 2
    assert d["jack_pile"] == 6
    for m in MATERIALS:
        assert d["sites"]["in_town"][m] == 3
        assert d["sites"]["out_of_town"][m] == 3


def test_S1_R_4_6_first_leader_tie_imperium():
    """S1 Imperium variant: hands 4 Orders + 1 Jack, Jack pile 3, deck 127."""
    hands = ["Academy", "Amphitheatre", "Aqueduct", "Archway", "Atrium",
             "Basilica", "Bath", "Bridge", "Catacomb", "Circus Maximus",
             "Circus", "Dock"]
    deck = _deck("imperium", hands + ["Bar", "Bar", "Wall", "Temple", "Latrine"])
    assert len(deck) == 144
    state = new_state_with_deck(glory_ai.Game(3, mode="imperium"), deck)
    d = state.to_dict()
    assert state.current_player() == 1
    assert sorted(d["pool"]) == sorted(["Bar", "Bar", "Wall", "Temple", "Latrine"])
    assert len(d["deck"]) == 127
    assert d["jack_pile"] == 3
    for p in d["players"]:
        assert p["hand"].count("Jack") == 1
        assert len(p["hand"]) == 5
    assert sorted(c for p in d["players"] for c in p["hand"] if c != "Jack") == sorted(hands)


def test_R_4_6_no_tie_two_players():
    hands = ["Bar"] * 5 + ["Road"] * 5
    deck = _deck("republic", hands + ["Wall", "Academy"])
    state = new_state_with_deck(glory_ai.Game(2), deck)
    d = state.to_dict()
    assert state.current_player() == 1
    assert sorted(d["pool"]) == ["Academy", "Wall"]
    assert len(d["deck"]) == 132


def test_R_4_6_tie_repeats_among_tied_players_only():
    """A=Bar B=Bar C=Wall -> A=Road B=Road (tie again) -> A=Temple B=Atrium -> B.
    C is not dealt extra cards; every dealt card stays in the pool."""
    hands = ["Insula"] * 5 + ["Latrine"] * 5 + ["Market"] * 5
    extra = ["Bar", "Bar", "Wall", "Road", "Road", "Temple", "Atrium"]
    deck = _deck("republic", hands + extra)
    state = new_state_with_deck(glory_ai.Game(3), deck)
    d = state.to_dict()
    assert state.current_player() == 1
    assert sorted(d["pool"]) == sorted(extra)
    assert len(d["deck"]) == 144 - 15 - 7


def test_R_4_6_three_way_tie():
    """A=B=C=Bar -> A=Road, B=Road, C=Dock -> "Dock" < "Road" -> C leads."""
    hands = ["Insula"] * 5 + ["Latrine"] * 5 + ["Market"] * 5
    extra = ["Bar", "Bar", "Bar", "Road", "Road", "Dock"]
    deck = _deck("republic", hands + extra)
    state = new_state_with_deck(glory_ai.Game(3), deck)
    d = state.to_dict()
    assert state.current_player() == 2
    assert sorted(d["pool"]) == sorted(extra)


def test_R_4_6_plain_string_comparison():
    """"Circus Maximus" < "Crane": the player dealt Circus Maximus leads."""
    hands = ["Bar"] * 5 + ["Road"] * 5
    deck = _deck("republic", hands + ["Crane", "Circus Maximus"])
    state = new_state_with_deck(glory_ai.Game(2), deck)
    assert state.current_player() == 1


def test_R_3_2_other_mode_cards_refused_in_positions():
    d = {"num_players": 2, "mode": "imperium",
         "players": [{"hand": ["Forum Romanum"]}, {}]}
    with pytest.raises(ValueError):
        glory_ai.State.from_dict(d)
    d = {"num_players": 2, "mode": "republic", "players": [{"hand": ["Circus"]}, {}]}
    with pytest.raises(ValueError):
        glory_ai.State.from_dict(d)


def test_positions_refuse_too_many_copies():
    d = {"num_players": 2, "players": [{"hand": ["Temple"] * 4}, {}]}
    with pytest.raises(ValueError):
        glory_ai.State.from_dict(d)
    d = {"num_players": 2, "players": [{"hand": ["Jack"] * 7}, {}]}
    with pytest.raises(ValueError):
        glory_ai.State.from_dict(d)


def test_R_3_3_default_mode_is_republic():
    d = glory_ai.Game(3).new_initial_state(seed=0).to_dict()
    c = all_cards_in_play(d)
    assert c["Crane"] == CARDS["Crane"][1]
    assert c["Circus"] == 0


def test_notation_positions_are_json_safe_and_round_trip():
    """notation.md (Positions): to_dict is JSON-safe and from_dict rebuilds the state."""
    import json

    for state in (glory_ai.Game(3).new_initial_state(seed=9),
                  glory_ai.State.from_dict(position(2, [{"hand": ["Bar"]}, {}]))):
        d = state.to_dict()
        json.dumps(d)
        again = glory_ai.State.from_dict(d)
        assert again.to_dict() == d
        assert again.legal_action_strings() == state.legal_action_strings()
