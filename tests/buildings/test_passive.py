"""Passive building functions (docs/rules.md §13, timing P): limits (Insula, Market,
Aqueduct's doubling), refill size (Shrine, Temple), immunity (Palisade, Wall), payments
(Circus, Crane, Palace), client counting (Circus Maximus, Ludus Magnus, Storeroom) and the
Forum conditions (Forum, Forum Romanum)."""

from support.cards import ROLES
from support.positions import (
    add_units,
    assert_legal,
    clients,
    done,
    foundation,
    from_dict,
    hand,
    legal,
    lower_set,
    play,
    play_picks,
    pool,
    position,
    state_of,
    stock,
    think_strings,
    turn_over,
    vault,
    zone,
)


def petition_strings(state):
    return {s for s in legal(state) if "by petition of" in s}


def take_pool(state, cards):
    for c in cards:
        play(state, f"laborer: take {c} from pool")


# --------------------------------------------------------------------------- #23 Insula


def test_23_insula_clientele_limit_plus_two():
    """§13 #23 Insula: clientele limit = influence + 2. Influence 3 (Insula's Rubble site),
    four clients: the camp Patron action hires a fifth, the Palace client's action cannot
    (limit 5 reached) and is skipped."""
    state = state_of(2, [
        {"hand": ["Temple"], "clientele": ["Palace", "Bar", "Dock", "Market"],
         "structures": [done("Insula")]},
        {"hand": ["Road"]},
    ], pool=["Basilica", "Statue"])
    assert state.influence(0) == 3
    assert state.clientele_limit(0) == 5
    play(state, "lead Patron with Temple", "think: take Jack",
         "patron: hire Basilica from pool")
    assert turn_over(state)
    assert clients(state, 0) == ["Bar", "Basilica", "Dock", "Market", "Palace"]
    assert pool(state) == ["Statue", "Temple"]


# --------------------------------------------------------------------------- #26 Market


def test_26_market_vault_limit_plus_two():
    """§13 #26 Market: vault limit = influence + 2 = 3 + 2 = 5. With 4 vault cards the
    first Merchant action vaults, the Merchant client's action cannot."""
    state = state_of(2, [
        {"hand": ["Villa"], "clientele": ["Sewer"], "stockpile": ["Garden", "Prison"],
         "vault": ["Bar", "Road", "Insula", "Latrine"], "structures": [done("Market")]},
        {"hand": ["Dock"]},
    ])
    assert state.influence(0) == 3
    assert state.vault_limit(0) == 5
    play(state, "lead Merchant with Villa", "think: take Jack",
         "merchant: vault Garden from stockpile")
    assert turn_over(state)
    assert vault(state, 0) == ["Bar", "Garden", "Insula", "Latrine", "Road"]
    assert stock(state, 0) == ["Prison"]


# --------------------------------------------------------------------------- #3 Aqueduct (limit)


def test_3_aqueduct_doubles_the_clientele_limit_for_hiring():
    """§13 #3 Aqueduct (passive part): limit (2 + 2) x 2 = 8. Seven clients: the camp
    action hires an eighth; the Patron client's action is then skipped."""
    state = state_of(2, [
        {"hand": ["Temple"],
         "clientele": ["Palace", "Bar", "Dock", "Market", "Road", "Insula", "Latrine"],
         "structures": [done("Aqueduct")]},
        {"hand": ["Crane"]},
    ], pool=["Basilica", "Statue"])
    assert state.influence(0) == 4
    assert state.clientele_limit(0) == 8
    play(state, "lead Patron with Temple", "think: take Jack",
         "patron: hire Basilica from pool")
    assert turn_over(state)
    assert len(clients(state, 0)) == 8
    assert pool(state) == ["Statue", "Temple"]


# --------------------------------------------------------------------------- #35 Shrine, #39 Temple


def test_35_shrine_refill_size_seven():
    """§13 #35 Shrine: refill size 5 + 2 = 7. Hand 5 is below it: refill (to 7), not
    draw 1."""
    d = position(2, [{"hand": ["Bar", "Dock", "Road", "Insula", "Latrine"],
                      "structures": [done("Shrine")]}, {}],
                 deck_top=["Temple", "Villa", "Palace"], deck_size=20)
    state = from_dict(d)
    assert state.refill_size(0) == 7
    assert think_strings(state) == lower_set(["think: take Jack", "think: refill"])
    play(state, "think: refill")
    assert hand(state, 0) == sorted(["Bar", "Dock", "Road", "Insula", "Latrine",
                                     "Temple", "Villa"])
    assert state.to_dict()["deck"][0] == "Palace"


def test_39_temple_refill_size_nine():
    """§13 #39 Temple: refill size 5 + 4 = 9."""
    d = position(2, [{"hand": ["Bar", "Dock", "Road", "Insula", "Latrine", "Market", "Tower",
                               "Wall"], "structures": [done("Temple")]}, {}],
                 deck_top=["Villa"], deck_size=20)
    state = from_dict(d)
    assert state.refill_size(0) == 9
    assert think_strings(state) == lower_set(["think: take Jack", "think: refill"])
    play(state, "think: refill")
    assert len(hand(state, 0)) == 9


def test_39_35_shrine_and_temple_refill_size_eleven():
    """§13 #35 + #39: Shrine + Temple -> 11; hand 6 refills by drawing 5."""
    d = position(2, [{"hand": ["Bar", "Dock", "Road", "Insula", "Latrine", "Market"],
                      "structures": [done("Shrine"), done("Temple")]}, {}], deck_size=20)
    state = from_dict(d)
    assert state.refill_size(0) == 11
    play(state, "think: refill")
    assert len(hand(state, 0)) == 11
    assert len(state.to_dict()["deck"]) == 15


def test_35_incomplete_shrine_does_nothing():
    """§13 #35: a structure's function needs the structure completed (R-10.6)."""
    state = state_of(2, [{"structures": [foundation("Shrine", ["Academy"])]}, {}])
    assert state.refill_size(0) == 5


# --------------------------------------------------------------------------- #28 Palisade, #44 Wall


def test_28_palisade_immune_to_legionary():
    """§13 #28 Palisade: the victim with a completed Palisade gives nothing."""
    state = state_of(2, [{"hand": ["Shrine", "Atrium"]},
                         {"hand": ["Bath"], "structures": [done("Palisade")]}])
    play(state, "lead Legionary with Shrine", "think: take Jack",
         "legionary: reveal Atrium")
    assert turn_over(state)
    assert stock(state, 0) == []
    assert hand(state, 1) == ["Bath", "Jack"]


def test_44_wall_immune_to_legionary():
    """§13 #44 Wall: a victim with a completed Wall gives nothing."""
    state = state_of(2, [{"hand": ["Shrine", "Atrium"]},
                         {"hand": ["Bath"], "structures": [done("Wall")]}])
    play(state, "lead Legionary with Shrine", "think: take Jack",
         "legionary: reveal Atrium")
    assert turn_over(state)
    assert stock(state, 0) == []
    assert hand(state, 1) == ["Bath", "Jack"]


def test_44_wall_scores_one_per_pair_of_stockpile_cards():
    """§13 #44 Wall: floor(5 / 2) = 2 VP; influence 4 (Concrete site)."""
    state = state_of(2, [{"stockpile": ["Bar", "Road", "Dock", "Market", "Temple"],
                          "structures": [done("Wall")]}, {}])
    b = state.score_breakdown(0)
    assert b["wall"] == 2
    assert b["total"] == 4 + 2
    assert state.scores() == [6, 2]


# --------------------------------------------------------------------------- #11 Circus


def test_11_circus_two_card_petition_in_imperium():
    """§13 #11 Circus (Imperium): {Bar, Road} is a legal petition (3 otherwise)."""
    state = state_of(2, [{"hand": ["Bar", "Road", "Dock"], "stockpile": ["Villa"],
                          "structures": [done("Circus")]},
                         {"hand": ["Temple"]}], mode="imperium")
    assert petition_strings(state) == lower_set(
        f"lead {r} by petition of Laborer" for r in ROLES)
    play(state, "lead Merchant by petition of Laborer")
    play_picks(state, "petition:", ["Bar", "Road"])
    assert zone(state, 0, "camp") == ["Bar", "Road"]
    assert hand(state, 0) == ["Dock"]
    play(state, "think: take Jack", "merchant: vault Villa from stockpile")
    assert turn_over(state)
    assert vault(state, 0) == ["Villa"]


def test_11_no_two_card_petition_in_imperium_without_circus():
    """§13 #11 control: the same hand without Circus cannot petition."""
    state = state_of(2, [{"hand": ["Bar", "Road", "Dock"]}, {"hand": ["Temple"]}],
                     mode="imperium")
    assert petition_strings(state) == set()


def test_11_circus_three_card_petition_still_allowed():
    """§13 #11 Circus: "3 still allowed" -- after two picks a third may be added."""
    state = state_of(2, [{"hand": ["Bar", "Insula", "Road"], "stockpile": ["Villa"],
                          "structures": [done("Circus")]},
                         {"hand": ["Temple"]}], mode="imperium")
    play(state, "lead Merchant by petition of Laborer", "petition: Bar",
         "petition: Insula")
    assert_legal(state, "petition: Road")
    play(state, "petition: Road")
    assert zone(state, 0, "camp") == ["Bar", "Insula", "Road"]


# --------------------------------------------------------------------------- #14 Crane


def test_14_crane_any_card_leads_architect():
    """§13 #14 Crane (Republic): a single non-Architect card leads Architect."""
    state = state_of(2, [{"hand": ["Bar", "Bath"], "structures": [done("Crane")]},
                         {"hand": ["Temple"]}])
    assert_legal(state, "lead Architect with Bar (Crane)",
                 "lead Architect with Bath (Crane)")
    play(state, "lead Architect with Bar (Crane)", "think: take Jack")
    assert zone(state, 0, "camp") == ["Bar"]
    play(state, "architect: lay Bath")
    assert turn_over(state)
    assert [s["building"] for s in state.to_dict()["players"][0]["structures"]
            ].count("Bath") == 1


def test_14_crane_follow_architect_with_any_card():
    """§13 #14 Crane: a follower with Crane follows Architect with Dock; without Crane
    the same follower must think."""
    state = state_of(2, [{"hand": ["Tower"]},
                         {"hand": ["Dock", "Bath"], "structures": [done("Crane")]}])
    play(state, "lead Architect with Tower")
    assert_legal(state, "follow Architect with Dock (Crane)")
    play(state, "follow Architect with Dock (Crane)")
    # player 0's action has nothing to lay or add -> skipped; player 1 lays Bath
    assert state.current_player() == 1
    play(state, "architect: lay Bath")
    assert turn_over(state)
    assert sorted(pool(state)) == ["Dock", "Tower"]


def test_14_no_crane_no_off_role_follow():
    state = state_of(2, [{"hand": ["Tower"]}, {"hand": ["Dock", "Bath"]}])
    play(state, "lead Architect with Tower")
    assert not any(s.startswith("follow") for s in legal(state))


def test_14_27_crane_cards_stack_with_palace():
    """§13 #14 Crane + #27 Palace: each Crane card is one action unit -> two Architect
    actions: two foundations."""
    state = state_of(2, [
        {"hand": ["Tower"]},
        {"hand": ["Dock", "Bar", "Bath", "School"],
         "structures": [done("Crane"), done("Palace")]},
    ])
    play(state, "lead Architect with Tower")
    add_units(state, "follow", "Architect", ["Bar (Crane)", "Dock (Crane)"])
    assert zone(state, 1, "camp") == ["Bar", "Dock"]
    play(state, "architect: lay Bath", "architect: lay School")
    assert turn_over(state)
    names = sorted(s["building"] for s in state.to_dict()["players"][1]["structures"])
    assert names == ["Bath", "Crane", "Palace", "School"]


# --------------------------------------------------------------------------- #27 Palace


def test_27_palace_several_units_several_actions():
    """§13 #27 Palace: follow Laborer with Bar, Road and a Jack -> 3 Laborer actions."""
    state = state_of(2, [
        {"hand": ["Insula"]},
        {"hand": ["Bar", "Road", "Jack", "Dock"], "structures": [done("Palace")]},
    ], pool=["Academy", "Basilica", "Garden", "Temple"])
    play(state, "lead Laborer with Insula")
    add_units(state, "follow", "Laborer", ["Bar", "Road", "Jack"])
    assert zone(state, 1, "camp") == ["Bar", "Jack", "Road"]
    play(state, "laborer: skip")
    take_pool(state, ["Academy", "Basilica", "Garden"])
    assert turn_over(state)
    assert stock(state, 1) == ["Academy", "Basilica", "Garden"]
    assert pool(state) == ["Bar", "Insula", "Road", "Temple"]
    assert hand(state, 1) == ["Dock"]
    assert state.to_dict()["jack_pile"] == 6


def test_27_palace_single_card_and_petition_units():
    """§13 #27 Palace: units may mix a single card and a (Republic, 2-card) petition."""
    state = state_of(2, [
        {"hand": ["Insula"]},
        {"hand": ["Bar", "Villa", "Garden"], "structures": [done("Palace")]},
    ], pool=["Academy", "Basilica", "Temple"])
    play(state, "lead Laborer with Insula")
    play(state, "follow Laborer with Bar", "follow Laborer by petition of Merchant")
    play_picks(state, "petition:", ["Garden", "Villa"])
    if "done" in legal(state):
        play(state, "done")
    assert zone(state, 1, "camp") == ["Bar", "Garden", "Villa"]
    play(state, "laborer: skip")
    take_pool(state, ["Academy", "Basilica"])
    assert turn_over(state)
    assert stock(state, 1) == ["Academy", "Basilica"]


def test_27_without_palace_one_unit_only():
    state = state_of(2, [{"hand": ["Insula"]}, {"hand": ["Bar", "Road", "Jack"]}],
                     pool=["Academy", "Basilica", "Garden"])
    play(state, "lead Laborer with Insula", "follow Laborer with Bar")
    assert state.current_player() == 0
    assert zone(state, 1, "camp") == ["Bar"]


# --------------------------------------------------------------------------- #12 Circus Maximus


def test_12_circus_maximus_with_storeroom_doubles_every_client():
    """§13 #12 Circus Maximus + #38 Storeroom: clients {Temple, Villa} both count as
    Laborers for a follower -> 1 + 2 x 2 = 5 Laborer actions."""
    state = state_of(2, [
        {"hand": ["Bar"]},
        {"hand": ["Road"], "clientele": ["Temple", "Villa"],
         "structures": [done("Storeroom"), done("Circus Maximus")]},
    ], pool=["Academy", "Basilica", "Fountain", "Garden", "Gate", "Palace"])
    play(state, "lead Laborer with Bar", "follow Laborer with Road", "laborer: skip")
    take_pool(state, ["Academy", "Basilica", "Fountain", "Garden", "Gate"])
    assert turn_over(state)
    assert stock(state, 1) == ["Academy", "Basilica", "Fountain", "Garden", "Gate"]
    assert pool(state) == ["Bar", "Palace", "Road"]


def test_12_circus_maximus_completed_mid_step_doubles_later_clients():
    """§13 #12 Circus Maximus, R-6.3/R-14.1: completed by the camp Architect action, it
    doubles the two Architect clients reached afterwards: 1 + 2 x 2 = 5 actions."""
    state = state_of(2, [
        {"hand": ["Jack", "Bar", "Dock", "Insula", "Market", "Latrine"],
         "clientele": ["Tower", "Wall"], "stockpile": ["Garden"],
         "structures": [foundation("Circus Maximus", ["Prison", "Sewer"])]},
        {"hand": ["Temple"]},
    ])
    play(state, "lead Architect with Jack", "think: take Jack",
         "architect: add Garden to Circus Maximus")
    assert state.influence(0) == 5
    play(state, "architect: lay Bar", "architect: lay Dock", "architect: lay Insula",
         "architect: lay Market")
    # no fifth client action; Latrine cannot go out of town with no action to pair
    assert turn_over(state)
    assert hand(state, 0) == ["Latrine"]


# --------------------------------------------------------------------------- #25 Ludus Magnus


def test_25_ludus_magnus_merchant_client_joins_a_legionary_batch():
    """§13 #25 Ludus Magnus: a Merchant client counts as a Legionary: batch of 2."""
    state = state_of(2, [
        {"hand": ["Shrine", "Atrium", "Temple"], "clientele": ["Villa"],
         "structures": [done("Ludus Magnus")]},
        {"hand": ["Bath", "Palace", "Dock"]},
    ])
    play(state, "lead Legionary with Shrine", "think: take Jack",
         "legionary: reveal Atrium", "legionary: reveal Temple")
    assert turn_over(state)
    assert stock(state, 0) == ["Bath", "Palace"]
    assert hand(state, 1) == ["Dock", "Jack"]
    assert hand(state, 0) == ["Atrium", "Temple"]


def test_25_without_ludus_magnus_merchant_client_does_not_act():
    state = state_of(2, [
        {"hand": ["Shrine", "Atrium", "Temple"], "clientele": ["Villa"]},
        {"hand": ["Bath", "Palace", "Dock"]},
    ])
    play(state, "lead Legionary with Shrine", "think: take Jack",
         "legionary: reveal Atrium")
    assert turn_over(state)
    assert stock(state, 0) == ["Bath"]


# --------------------------------------------------------------------------- #38 Storeroom


def test_38_storeroom_one_laborer_action_per_client():
    """§13 #38 Storeroom: clients {Temple, Road}: each one Laborer action (Road is not
    counted twice) -> 1 + 2 = 3."""
    state = state_of(2, [
        {"hand": ["Bar"], "clientele": ["Temple", "Road"],
         "structures": [done("Storeroom")]},
        {"hand": ["Dock"]},
    ], pool=["Academy", "Basilica", "Fountain", "Garden"])
    play(state, "lead Laborer with Bar", "think: take Jack")
    take_pool(state, ["Academy", "Basilica", "Fountain"])
    assert turn_over(state)
    assert stock(state, 0) == ["Academy", "Basilica", "Fountain"]
    assert pool(state) == ["Bar", "Garden"]


def test_38_storeroom_only_when_laborer_is_led():
    """§13 #38 Storeroom: clients count as Laborers only -- with Merchant led, the
    Patron client gives no action."""
    state = state_of(2, [
        {"hand": ["Villa"], "clientele": ["Temple"], "stockpile": ["Bar", "Road"],
         "structures": [done("Storeroom")]},
        {"hand": ["Dock"]},
    ])
    play(state, "lead Merchant with Villa", "think: take Jack",
         "merchant: vault Bar from stockpile")
    assert turn_over(state)
    assert vault(state, 0) == ["Bar"]


# --------------------------------------------------------------------------- #17 Forum, #18 Forum Romanum


def test_17_forum_hiring_the_sixth_role_wins():
    """§13 #17 Forum (Imperium): a client of each role -> immediate win."""
    state = state_of(2, [
        {"hand": ["Basilica"], "clientele": ["Temple", "Bar", "Dock", "Tower", "Shrine"],
         "structures": [done("Forum"), done("Insula")]},
        {"hand": ["Road"]},
    ], mode="imperium", pool=["Villa"])
    assert not state.is_terminal()
    play(state, "lead Patron with Basilica", "think: take Jack",
         "patron: hire Villa from pool")
    assert state.is_terminal()
    assert state.end_reason() == "forum"
    assert state.winners() == [0]


def test_17_38_forum_with_storeroom_covers_laborer_A33():
    """§13 #17 Forum + #38 Storeroom, ruling A33: with Storeroom and a non-empty
    clientele the Laborer role is covered; five other roles suffice."""
    state = state_of(2, [
        {"hand": ["Basilica"], "clientele": ["Temple", "Dock", "Tower", "Shrine"],
         "structures": [done("Forum"), done("Storeroom")]},
        {"hand": ["Road"]},
    ], mode="imperium", pool=["Villa"])
    assert not state.is_terminal()
    play(state, "lead Patron with Basilica", "think: take Jack",
         "patron: hire Villa from pool")
    assert state.is_terminal()
    assert state.end_reason() == "forum"
    assert state.winners() == [0]


def test_17_forum_with_storeroom_still_needs_the_other_five_roles():
    state = state_of(2, [
        {"hand": ["Basilica"], "clientele": ["Temple", "Dock", "Tower", "Bar"],
         "structures": [done("Forum"), done("Storeroom")]},
        {"hand": ["Road"]},
    ], mode="imperium", pool=["Villa"])
    play(state, "lead Patron with Basilica", "think: take Jack",
         "patron: hire Villa from pool")
    assert not state.is_terminal()  # no Legionary client


def test_18_forum_romanum_win_from_a_dock_gain():
    """§13 #18 Forum Romanum: "can trigger from a Laborer gain" -- Dock moves the
    missing Marble from hand to the stockpile -> immediate win."""
    state = state_of(2, [
        {"hand": ["Road", "Palace"],
         "clientele": ["Temple", "Bar", "Dock", "Tower", "Shrine", "Villa"],
         "stockpile": ["Bar", "Market", "Tower", "Shrine", "Villa"],
         "structures": [done("Forum Romanum"), done("Dock")]},
        {"hand": ["Latrine"]},
    ])
    assert not state.is_terminal()
    play(state, "lead Laborer with Road", "think: take Jack",
         "laborer: move Palace from hand")
    assert state.is_terminal()
    assert state.end_reason() == "forum"
    assert state.winners() == [0]


def test_11_27_circus_combines_with_palace():
    """§13 #11 Circus: "Combines with Palace" -- two 2-card petitions are two units."""
    state = state_of(2, [
        {"hand": ["Prison"]},
        {"hand": ["Bar", "Road", "Villa", "Garden"],
         "stockpile": ["Sewer", "Scriptorium", "Catacomb"],
         "structures": [done("Palace"), done("Circus")]},
    ], mode="imperium")
    play(state, "lead Merchant with Prison", "follow Merchant by petition of Laborer")
    play_picks(state, "petition:", ["Bar", "Road"])
    play(state, "follow Merchant by petition of Merchant")
    play_picks(state, "petition:", ["Garden", "Villa"])
    if "done" in legal(state):
        play(state, "done")
    assert zone(state, 1, "camp") == ["Bar", "Garden", "Road", "Villa"]
    play(state, "merchant: vault Catacomb from stockpile",
         "merchant: vault Scriptorium from stockpile")
    assert turn_over(state)
    assert vault(state, 1) == ["Catacomb", "Scriptorium"]
    assert stock(state, 1) == ["Sewer"]
