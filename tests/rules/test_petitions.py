"""Petitions: R-6.6 item 3, scenario S8 (without Palace, Circus, Crane); Republic
petition size (§16 A1: default 2, configurable) and Imperium size 3."""

import collections

import pytest

import glory_ai
from support.cards import ROLES, role
from support.positions import legal, lower_set, play, play_picks, state_of, zone


def petition_strings(state):
    return {s for s in legal(state) if "by petition of" in s}


def all_roles_petition(verb, role2):
    return lower_set(f"{verb} {r} by petition of {role2}" for r in ROLES)


# --------------------------------------------------------------------------- Republic


def test_R_6_6_republic_default_petition_is_two_cards_of_one_role():
    """Hand {Bar, Road, Dock}: two Laborer cards petition for any role."""
    state = state_of(2, [{"hand": ["Bar", "Road", "Dock"]}, {}])
    expected = lower_set(["lead Laborer with Bar", "lead Laborer with Road",
                          "lead Craftsman with Dock", "think: take Jack", "think: refill"])
    expected |= all_roles_petition("lead", "Laborer")
    assert legal(state) == expected


def test_S8_republic_petition_leads_merchant_with_one_action():
    state = state_of(2, [{"hand": ["Bar", "Road", "Dock"], "stockpile": ["Villa", "Garden"]},
                         {"hand": ["Temple"]}])
    play(state, "lead Merchant by petition of Laborer")
    # only Laborer cards can be picked (Dock is a Craftsman card)
    picks = {s for s in legal(state) if s.startswith("petition:")}
    assert picks <= lower_set(["petition: Bar", "petition: Road"])
    play_picks(state, "petition:", ["Bar", "Road"])
    assert zone(state, 0, "camp") == ["Bar", "Road"]
    assert zone(state, 0, "hand") == ["Dock"]
    assert state.current_player() == 1
    play(state, "think: take Jack", "merchant: vault Garden from stockpile")
    # one camp action only: the turn is over though Villa could still be vaulted
    d = state.to_dict()
    assert d["leader"] == 1
    assert d["players"][0]["vault"] == ["Garden"]
    assert d["players"][0]["stockpile"] == ["Villa"]
    assert sorted(d["pool"]) == ["Bar", "Road"]   # petition cards to the pool


def test_R_6_6_republic_petition_takes_exactly_two_of_three():
    state = state_of(2, [{"hand": ["Bar", "Road", "Insula"]}, {"hand": ["Temple"]}])
    play(state, "lead Craftsman by petition of Laborer")
    picks = {s for s in legal(state) if s.startswith("petition:")}
    assert "petition: bar" in picks
    assert picks <= lower_set(["petition: Bar", "petition: Insula", "petition: Road"])
    play(state, "petition: Bar")
    play_picks(state, "petition:", ["Road"])
    assert zone(state, 0, "camp") == ["Bar", "Road"]
    assert zone(state, 0, "hand") == ["Insula"]
    assert state.current_player() == 1


def test_R_6_6_petition_may_be_of_the_led_role():
    state = state_of(2, [{"hand": ["Bar", "Road"]}, {"hand": ["Temple"]}],
                     pool=["Latrine", "Insula"])
    play(state, "lead Laborer by petition of Laborer")
    play_picks(state, "petition:", ["Bar", "Road"])
    assert zone(state, 0, "camp") == ["Bar", "Road"]
    play(state, "think: take Jack", "laborer: take Insula from pool")
    d = state.to_dict()
    assert d["leader"] == 1                        # a petition is one action unit
    assert d["players"][0]["stockpile"] == ["Insula"]


def test_R_6_6_follow_by_petition():
    state = state_of(2, [{"hand": ["Temple"]}, {"hand": ["Villa", "Garden"]}],
                     pool=["Bar", "Road"])
    play(state, "lead Patron with Temple")
    assert petition_strings(state) == lower_set(["follow Patron by petition of Merchant"])
    play(state, "follow Patron by petition of Merchant")
    play_picks(state, "petition:", ["Garden", "Villa"])
    assert zone(state, 1, "camp") == ["Garden", "Villa"]
    play(state, "patron: hire Bar from pool", "patron: hire Road from pool")
    d = state.to_dict()
    assert d["players"][0]["clientele"] == ["Bar"]
    assert d["players"][1]["clientele"] == ["Road"]
    assert sorted(d["pool"]) == ["Garden", "Temple", "Villa"]


def test_R_6_6_mixed_roles_are_no_petition():
    state = state_of(2, [{"hand": ["Bar", "Dock", "Temple", "Villa"]}, {}])
    assert petition_strings(state) == set()


def test_R_6_6_jacks_are_never_part_of_a_petition():
    state = state_of(2, [{"hand": ["Bar", "Jack", "Jack"]}, {}])
    assert petition_strings(state) == set()


def test_R_6_6_several_petition_roles():
    state = state_of(2, [{"hand": ["Bar", "Road", "Villa", "Garden", "Dock"]}, {}])
    assert petition_strings(state) == (all_roles_petition("lead", "Laborer")
                                       | all_roles_petition("lead", "Merchant"))


def test_A1_republic_petition_size_configurable_in_positions():
    d_hand = {"hand": ["Bar", "Road", "Dock"]}
    state = state_of(2, [d_hand, {}], variant={"petition_size": 3})
    assert petition_strings(state) == set()
    state = state_of(2, [{"hand": ["Bar", "Road", "Insula", "Latrine", "Dock"]},
                         {"hand": ["Temple"]}],
                     variant={"petition_size": 3})
    assert petition_strings(state) == all_roles_petition("lead", "Laborer")
    play(state, "lead Merchant by petition of Laborer")
    play_picks(state, "petition:", ["Bar", "Insula", "Latrine"])
    assert zone(state, 0, "camp") == ["Bar", "Insula", "Latrine"]
    assert zone(state, 0, "hand") == ["Dock", "Road"]


def test_A1_variant_round_trips_through_to_dict():
    state = state_of(2, [{"hand": ["Bar", "Road", "Dock"]}, {}],
                     variant={"petition_size": 3})
    again = glory_ai.State.from_dict(state.to_dict())
    assert petition_strings(again) == set()


# --------------------------------------------------------------------------- Imperium


def test_S8_imperium_petition_is_three_cards():
    state = state_of(2, [{"hand": ["Bar", "Road", "Insula", "Dock"],
                          "stockpile": ["Villa"]}, {"hand": ["Temple"]}],
                     mode="imperium")
    assert petition_strings(state) == all_roles_petition("lead", "Laborer")
    play(state, "lead Merchant by petition of Laborer")
    play_picks(state, "petition:", ["Bar", "Insula", "Road"])
    assert zone(state, 0, "camp") == ["Bar", "Insula", "Road"]
    assert zone(state, 0, "hand") == ["Dock"]
    play(state, "think: take Jack", "merchant: vault Villa from stockpile")
    d = state.to_dict()
    assert d["players"][0]["vault"] == ["Villa"]
    assert d["leader"] == 1


def test_S8_imperium_two_cards_are_no_petition_without_circus():
    state = state_of(2, [{"hand": ["Bar", "Road", "Dock"]}, {}], mode="imperium")
    assert petition_strings(state) == set()


def test_S8_imperium_mixed_roles_are_no_petition():
    state = state_of(2, [{"hand": ["Bar", "Road", "Dock", "Market"]}, {}],
                     mode="imperium")
    assert petition_strings(state) == set()


# --------------------------------------------------------------------------- dealt hands


def expected_first_moves(hand, petition_size, jack_pile):
    """All legal first decisions of the first leader on a fresh deal (no buildings)."""
    exp = set()
    orders = [c for c in hand if c != "Jack"]
    for c in set(orders):
        exp.add(f"lead {role(c)} with {c}")
    if "Jack" in hand:
        exp |= {f"lead {r} with Jack" for r in ROLES}
    counts = collections.Counter(role(c) for c in orders)
    for r2, n in counts.items():
        if n >= petition_size:
            exp |= {f"lead {r} by petition of {r2}" for r in ROLES}
    if jack_pile > 0:
        exp.add("think: take Jack")
    exp.add("think: draw 1" if len(hand) >= 5 else "think: refill")
    return lower_set(exp)


@pytest.mark.parametrize("mode,kwargs,size", [
    ("republic", {}, 2),
    ("republic", {"petition_size": 2}, 2),
    ("republic", {"petition_size": 3}, 3),
    ("imperium", {}, 3),
])
@pytest.mark.parametrize("n", [2, 4])
def test_R_6_6_first_decision_on_dealt_hands(mode, kwargs, size, n):
    """Perft-style: the exact legal first decisions for 10 seeded deals."""
    game = glory_ai.Game(n, mode=mode, **kwargs)
    for seed in range(10):
        state = game.new_initial_state(seed=seed)
        d = state.to_dict()
        leader = d["leader"]
        hand = d["players"][leader]["hand"]
        assert legal(state) == expected_first_moves(hand, size, d["jack_pile"]), (
            f"seed {seed}, hand {hand}")


def test_R_6_6_petition_of_two_copies_of_one_card():
    state = state_of(2, [{"hand": ["Bar", "Bar", "Dock"]}, {"hand": ["Temple"]}])
    assert petition_strings(state) == all_roles_petition("lead", "Laborer")
    play(state, "lead Patron by petition of Laborer")
    play_picks(state, "petition:", ["Bar", "Bar"])
    assert zone(state, 0, "camp") == ["Bar", "Bar"]
    assert zone(state, 0, "hand") == ["Dock"]
