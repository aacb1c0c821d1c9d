"""Role actions without building functions: R-8.1, R-8.2, R-8.3.1, R-8.4.1,
R-8.5.1 ... R-8.5.6, R-8.5.8 and R-8.6.1; scenario S3."""

from support.positions import (
    assert_illegal,
    built,
    foundation,
    legal,
    lower_set,
    play,
    play_picks,
    pool,
    sites,
    state_of,
    structure,
    zone,
)

# --------------------------------------------------------------------------- Patron


def test_R_8_1_1_patron_hires_one_card_from_the_pool():
    state = state_of(2, [{"hand": ["Temple"]}, {"hand": ["Road"]}],
                     pool=["Bar", "Dock", "Dock"])
    play(state, "lead Patron with Temple", "think: take Jack")
    assert state.current_player() == 0
    assert legal(state) == lower_set(["patron: hire Bar from pool",
                                      "patron: hire Dock from pool", "patron: skip"])
    play(state, "patron: hire Dock from pool")
    assert zone(state, 0, "clientele") == ["Dock"]
    assert pool(state) == ["Bar", "Dock", "Temple"]
    assert state.to_dict()["leader"] == 1


def test_R_8_1_4_each_hire_needs_room_under_the_clientele_limit():
    """Influence 2: a Patron client + one hire reach the limit; the client's own Patron
    action then cannot hire and is skipped."""
    state = state_of(2, [{"hand": ["Statue"], "clientele": ["Temple"]},
                         {"hand": ["Road"]}], pool=["Basilica", "Palace"])
    assert state.clientele_limit(0) == 2
    play(state, "lead Patron with Statue", "think: take Jack",
         "patron: hire Basilica from pool")
    d = state.to_dict()
    assert d["leader"] == 1
    assert sorted(d["players"][0]["clientele"]) == ["Basilica", "Temple"]
    assert sorted(d["pool"]) == ["Palace", "Statue"]


def test_R_8_1_patron_client_gives_a_second_hire():
    """Influence 5 (a Marble site): camp action + Patron client = two hires."""
    state = state_of(2, [
        {"hand": ["Statue"], "clientele": ["Temple"], "influence": ["Marble"]},
        {"hand": ["Road"]},
    ], pool=["Basilica", "Palace"])
    assert state.clientele_limit(0) == 5
    play(state, "lead Patron with Statue", "think: take Jack",
         "patron: hire Basilica from pool", "patron: hire Palace from pool")
    d = state.to_dict()
    assert sorted(d["players"][0]["clientele"]) == ["Basilica", "Palace", "Temple"]
    assert sorted(d["pool"]) == ["Statue"]


# --------------------------------------------------------------------------- Laborer


def test_R_8_2_1_laborer_takes_any_material_from_the_pool():
    state = state_of(2, [{"hand": ["Bar"]}, {"hand": ["Dock"]}],
                     pool=["Temple", "Road", "Temple"])
    play(state, "lead Laborer with Bar", "think: take Jack")
    assert legal(state) == lower_set(["laborer: take Road from pool",
                                      "laborer: take Temple from pool", "laborer: skip"])
    play(state, "laborer: take Temple from pool")
    d = state.to_dict()
    assert d["players"][0]["stockpile"] == ["Temple"]
    assert sorted(d["pool"]) == ["Bar", "Road", "Temple"]


def test_R_8_2_1_laborer_with_empty_pool_is_skipped():
    state = state_of(2, [{"hand": ["Bar"], "clientele": ["Insula"]}, {"hand": ["Dock"]}])
    play(state, "lead Laborer with Bar", "think: take Jack")
    d = state.to_dict()
    assert d["leader"] == 1
    assert d["players"][0]["stockpile"] == []
    assert d["pool"] == ["Bar"]


# --------------------------------------------------------------------------- Architect


def architect_position():
    return state_of(2, [
        {"hand": ["Tower", "Temple", "Road"], "stockpile": ["Wall", "Bath"],
         "structures": [foundation("Storeroom")]},
        {"hand": ["Dock"]},
    ])


def test_R_8_3_1_architect_options():
    """Lay a foundation from hand, add a matching material from the stockpile, or skip.
    Never a material from hand."""
    state = architect_position()
    play(state, "lead Architect with Tower", "think: take Jack")
    assert legal(state) == lower_set([
        "architect: lay Temple", "architect: lay Road",
        "architect: add Wall to Storeroom", "architect: skip"])


def test_R_8_3_1_architect_lays_a_foundation():
    state = architect_position()
    assert sites(state, "in_town", "Marble") == 2
    play(state, "lead Architect with Tower", "think: take Jack", "architect: lay Temple")
    s = structure(state, 0, "Temple")
    assert s is not None
    assert s["site"] == "Marble" and s["out_of_town"] is False
    assert s["materials"] == [] and s["complete"] is False
    assert sites(state, "in_town", "Marble") == 1
    assert zone(state, 0, "hand") == ["Road"]
    assert zone(state, 0, "stockpile") == ["Bath", "Wall"]


def test_R_8_3_1_architect_adds_from_the_stockpile():
    state = architect_position()
    play(state, "lead Architect with Tower", "think: take Jack",
         "architect: add Wall to Storeroom")
    s = structure(state, 0, "Storeroom")
    assert s["materials"] == ["Wall"] and s["complete"] is False
    assert zone(state, 0, "stockpile") == ["Bath"]
    assert zone(state, 0, "hand") == ["Road", "Temple"]
    assert state.influence(0) == 2


# --------------------------------------------------------------------------- Craftsman


def test_R_8_4_1_craftsman_options():
    """Lay a foundation from hand, add a matching material from hand, or skip.
    Never a material from the stockpile."""
    state = state_of(2, [
        {"hand": ["Dock", "Wall", "Road"], "stockpile": ["Tower"],
         "structures": [foundation("Storeroom")]},
        {"hand": ["Bar"]},
    ])
    play(state, "lead Craftsman with Dock", "think: take Jack")
    assert legal(state) == lower_set([
        "craftsman: lay Wall", "craftsman: lay Road",
        "craftsman: add Wall to Storeroom", "craftsman: skip"])
    play(state, "craftsman: add Wall to Storeroom")
    s = structure(state, 0, "Storeroom")
    assert s["materials"] == ["Wall"] and s["complete"] is False
    assert zone(state, 0, "hand") == ["Road"]
    assert zone(state, 0, "stockpile") == ["Tower"]


# --------------------------------------------------------------------------- Legionary


def s3_state():
    """S3: four players; player 0 leads Legionary with Shrine and has a Gate client."""
    return state_of(4, [
        {"hand": ["Shrine", "Atrium", "Dock", "Jack"], "clientele": ["Gate"]},
        {"hand": ["Bath", "School", "Market"]},
        {"hand": ["Archway"]},
        {"hand": ["Academy"], "structures": [built("Palisade", ["Crane"])]},
    ], pool=["Foundry", "Road"])


def test_S3_R_8_5_legionary_against_neighbours():
    state = s3_state()
    play(state, "lead Legionary with Shrine", "think: take Jack", "think: take Jack",
         "think: take Jack")
    # camp + Gate client = one batch of 2: Jacks cannot be revealed
    assert state.current_player() == 0
    assert legal(state) == lower_set(["legionary: reveal Atrium", "legionary: reveal Dock",
                                      "legionary: done revealing"])
    play(state, "legionary: reveal Atrium", "legionary: reveal Dock")
    # Brick is in the pool (Foundry), Wood is not
    assert legal(state) == lower_set(["legionary: take Foundry from pool",
                                      "legionary: done taking"])
    play(state, "legionary: take Foundry from pool")
    # player 1 chooses which Brick to give; Market (the only Wood) goes anyway
    assert state.current_player() == 1
    assert legal(state) == lower_set(["give Bath", "give School"])
    play(state, "give School")
    d = state.to_dict()
    assert d["leader"] == 1
    assert sorted(d["players"][0]["stockpile"]) == ["Foundry", "Market", "School"]
    assert sorted(d["players"][0]["hand"]) == ["Atrium", "Dock", "Jack"]
    assert sorted(d["players"][1]["hand"]) == ["Bath", "Jack"]
    assert sorted(d["players"][2]["hand"]) == ["Archway", "Jack"]   # not adjacent
    assert sorted(d["players"][3]["hand"]) == ["Academy", "Jack"]   # Palisade
    assert sorted(d["pool"]) == ["Road", "Shrine"]
    assert d["jack_pile"] == 2


def test_R_8_5_1_camp_and_client_actions_form_one_batch():
    """Camp + two Legionary clients = one demand of three reveals."""
    state = state_of(2, [
        {"hand": ["Shrine", "Atrium", "Temple", "Villa"], "clientele": ["Gate", "Academy"]},
        {"hand": ["Bath", "Palace", "Garden", "Dock"]},
    ])
    play(state, "lead Legionary with Shrine", "think: take Jack",
         "legionary: reveal Atrium", "legionary: reveal Temple", "legionary: reveal Villa")
    d = state.to_dict()
    assert d["leader"] == 1
    assert sorted(d["players"][0]["stockpile"]) == ["Bath", "Garden", "Palace"]
    assert sorted(d["players"][1]["hand"]) == ["Dock", "Jack"]
    assert sorted(d["players"][0]["hand"]) == ["Atrium", "Temple", "Villa"]


def test_R_8_5_1_a_thinkers_legionary_clients_form_a_batch():
    """Player 1 thinks but has two Legionary clients: after player 0's demand, player 1
    makes a demand of two against player 0 (R-6.3: clients of thinkers act)."""
    state = state_of(2, [
        {"hand": ["Shrine", "Atrium", "Statue", "Basilica"]},
        {"hand": ["Palace", "Fountain"], "clientele": ["Gate", "Academy"]},
    ])
    play(state, "lead Legionary with Shrine", "think: take Jack",
         "legionary: reveal Atrium")          # player 1 has no Brick: nothing given
    assert state.current_player() == 1
    assert legal(state) == lower_set(["legionary: reveal Fountain",
                                      "legionary: reveal Palace",
                                      "legionary: done revealing"])
    play(state, "legionary: reveal Fountain", "legionary: reveal Palace")
    d = state.to_dict()
    assert d["leader"] == 1
    assert d["players"][0]["stockpile"] == []
    assert sorted(d["players"][1]["stockpile"]) == ["Basilica", "Statue"]
    assert sorted(d["players"][0]["hand"]) == ["Atrium"]
    assert sorted(d["players"][1]["hand"]) == ["Fountain", "Jack", "Palace"]


def test_R_8_5_2_actions_beyond_revealable_cards_are_lost():
    """Two Legionary actions but one Order card in hand: demand {Brick} only."""
    state = state_of(2, [
        {"hand": ["Shrine", "Atrium", "Jack"], "clientele": ["Gate"]},
        {"hand": ["Bath", "School"]},
    ])
    play(state, "lead Legionary with Shrine", "think: take Jack")
    assert legal(state) == lower_set(["legionary: reveal Atrium",
                                      "legionary: done revealing"])
    play(state, "legionary: reveal Atrium")
    assert state.current_player() == 1
    assert legal(state) == lower_set(["give Bath", "give School"])
    play(state, "give Bath")
    d = state.to_dict()
    assert d["leader"] == 1
    assert sorted(d["players"][0]["stockpile"]) == ["Bath"]
    assert sorted(d["players"][0]["hand"]) == ["Atrium", "Jack"]
    assert sorted(d["players"][1]["hand"]) == ["Jack", "School"]


def test_R_8_5_2_no_revealable_card_loses_the_batch():
    state = state_of(2, [{"hand": ["Shrine", "Jack"]}, {"hand": ["Bath"]}])
    play(state, "lead Legionary with Shrine", "think: take Jack")
    d = state.to_dict()
    assert d["leader"] == 1
    assert sorted(d["players"][1]["hand"]) == ["Bath", "Jack"]
    assert d["players"][0]["stockpile"] == []


def test_R_8_5_2_declining_the_batch():
    state = state_of(2, [{"hand": ["Shrine", "Atrium"]}, {"hand": ["Bath"]}],
                     pool=["Gate"])
    play(state, "lead Legionary with Shrine", "think: take Jack",
         "legionary: done revealing")
    d = state.to_dict()
    assert d["leader"] == 1
    assert sorted(d["players"][1]["hand"]) == ["Bath", "Jack"]
    assert d["players"][0]["stockpile"] == []
    assert sorted(d["pool"]) == ["Gate", "Shrine"]


def test_R_8_5_3_pool_takes_one_per_demanded_material():
    """Demand {Brick, Brick}: at most two Brick cards from the pool."""
    state = state_of(2, [
        {"hand": ["Shrine", "Atrium", "Foundry"], "clientele": ["Gate"]},
        {"hand": ["Dock"]},
    ], pool=["Academy", "Bath", "School", "Road"])
    play(state, "lead Legionary with Shrine", "think: take Jack",
         "legionary: reveal Atrium", "legionary: reveal Foundry")
    assert legal(state) == lower_set(["legionary: take Academy from pool",
                                      "legionary: take Bath from pool",
                                      "legionary: take School from pool",
                                      "legionary: done taking"])
    play(state, "legionary: take Academy from pool")
    play(state, "legionary: take Bath from pool")
    d = state.to_dict()
    assert d["leader"] == 1
    assert sorted(d["players"][0]["stockpile"]) == ["Academy", "Bath"]
    assert sorted(d["pool"]) == ["Road", "School", "Shrine"]
    assert sorted(d["players"][1]["hand"]) == ["Dock", "Jack"]


def test_R_8_5_3_pool_take_is_optional():
    state = state_of(2, [{"hand": ["Shrine", "Atrium"]}, {"hand": ["Dock"]}],
                     pool=["Bath"])
    play(state, "lead Legionary with Shrine", "think: take Jack",
         "legionary: reveal Atrium", "legionary: done taking")
    d = state.to_dict()
    assert d["players"][0]["stockpile"] == []
    assert sorted(d["pool"]) == ["Bath", "Shrine"]


def test_R_8_5_4_two_players_the_opponent_is_demanded_from_once():
    state = state_of(2, [{"hand": ["Shrine", "Atrium"]}, {"hand": ["Bath", "School"]}])
    play(state, "lead Legionary with Shrine", "think: take Jack",
         "legionary: reveal Atrium", "give Bath")
    d = state.to_dict()
    assert d["leader"] == 1
    assert sorted(d["players"][0]["stockpile"]) == ["Bath"]
    assert sorted(d["players"][1]["hand"]) == ["Jack", "School"]


def test_R_8_5_4_three_players_both_opponents_are_victims():
    state = state_of(3, [{"hand": ["Shrine", "Atrium"]}, {"hand": ["Bath"]},
                         {"hand": ["School"]}])
    play(state, "lead Legionary with Shrine", "think: take Jack", "think: take Jack",
         "legionary: reveal Atrium")
    d = state.to_dict()
    assert d["leader"] == 1
    assert sorted(d["players"][0]["stockpile"]) == ["Bath", "School"]
    assert d["players"][1]["hand"] == ["Jack"]
    assert d["players"][2]["hand"] == ["Jack"]


def test_R_8_5_4_five_players_only_neighbours_are_victims():
    state = state_of(5, [{"hand": ["Shrine", "Atrium"]}, {"hand": ["Bath"]},
                         {"hand": ["School"]}, {"hand": ["Gate"]},
                         {"hand": ["Academy"]}], leader=0)
    play(state, "lead Legionary with Shrine", *["think: take Jack"] * 4,
         "legionary: reveal Atrium")
    d = state.to_dict()
    assert d["leader"] == 1
    assert sorted(d["players"][0]["stockpile"]) == ["Academy", "Bath"]
    assert sorted(d["players"][2]["hand"]) == ["Jack", "School"]
    assert sorted(d["players"][3]["hand"]) == ["Gate", "Jack"]


def test_R_8_5_4_victims_are_the_neighbours_of_a_non_first_seat():
    """Leader 2 of 4: victims are players 3 and 1; player 0 is untouched."""
    state = state_of(4, [{"hand": ["Bath"]}, {"hand": ["School"]},
                         {"hand": ["Shrine", "Atrium"]}, {"hand": ["Gate"]}], leader=2)
    play(state, "lead Legionary with Shrine", *["think: take Jack"] * 3,
         "legionary: reveal Atrium")
    d = state.to_dict()
    assert d["leader"] == 3
    assert sorted(d["players"][2]["stockpile"]) == ["Gate", "School"]
    assert sorted(d["players"][0]["hand"]) == ["Bath", "Jack"]


def test_R_8_5_5_palisade_and_wall_make_a_victim_immune():
    state = state_of(3, [
        {"hand": ["Shrine", "Atrium"]},
        {"hand": ["Bath"], "structures": [built("Palisade", ["Crane"])]},
        {"hand": ["School"], "structures": [built("Wall", ["Tower", "Tower"])]},
    ])
    play(state, "lead Legionary with Shrine", "think: take Jack", "think: take Jack",
         "legionary: reveal Atrium")
    d = state.to_dict()
    assert d["leader"] == 1
    assert d["players"][0]["stockpile"] == []
    assert sorted(d["players"][1]["hand"]) == ["Bath", "Jack"]
    assert sorted(d["players"][2]["hand"]) == ["Jack", "School"]


def test_R_8_5_5_immunity_of_one_victim_does_not_protect_the_other():
    state = state_of(3, [
        {"hand": ["Shrine", "Atrium"]},
        {"hand": ["Bath"], "structures": [built("Palisade", ["Crane"])]},
        {"hand": ["School"]},
    ])
    play(state, "lead Legionary with Shrine", "think: take Jack", "think: take Jack",
         "legionary: reveal Atrium")
    d = state.to_dict()
    assert sorted(d["players"][0]["stockpile"]) == ["School"]
    assert sorted(d["players"][1]["hand"]) == ["Bath", "Jack"]


def test_R_8_5_6_victim_gives_one_card_per_demanded_material():
    """Demand {Brick, Brick}: a victim with three Bricks gives exactly two (their
    choice); Wood cards are not demanded."""
    state = state_of(2, [
        {"hand": ["Shrine", "Atrium", "Foundry"], "clientele": ["Gate"]},
        {"hand": ["Academy", "Bath", "School", "Dock"]},
    ])
    play(state, "lead Legionary with Shrine", "think: take Jack",
         "legionary: reveal Atrium", "legionary: reveal Foundry")
    assert state.current_player() == 1
    assert_illegal(state, "give Dock")
    play_picks(state, "give", ["Academy", "Bath"])
    d = state.to_dict()
    assert d["leader"] == 1
    assert sorted(d["players"][0]["stockpile"]) == ["Academy", "Bath"]
    assert sorted(d["players"][1]["hand"]) == ["Dock", "Jack", "School"]
    assert sorted(d["players"][0]["hand"]) == ["Atrium", "Foundry"]


def test_R_8_5_6_victim_gives_what_they_have():
    """Demand {Brick, Brick}, victim holds one Brick: it is given, nothing more."""
    state = state_of(2, [
        {"hand": ["Shrine", "Atrium", "Foundry"], "clientele": ["Gate"]},
        {"hand": ["Bath", "Dock"]},
    ])
    play(state, "lead Legionary with Shrine", "think: take Jack",
         "legionary: reveal Atrium", "legionary: reveal Foundry")
    d = state.to_dict()
    assert d["leader"] == 1
    assert sorted(d["players"][0]["stockpile"]) == ["Bath"]
    assert sorted(d["players"][1]["hand"]) == ["Dock", "Jack"]


def test_R_8_5_6_glory_to_rome_victim_without_the_material():
    state = state_of(2, [{"hand": ["Shrine", "Atrium"]}, {"hand": ["Dock", "Temple"]}])
    play(state, "lead Legionary with Shrine", "think: take Jack",
         "legionary: reveal Atrium")
    d = state.to_dict()
    assert d["leader"] == 1
    assert d["players"][0]["stockpile"] == []
    assert sorted(d["players"][1]["hand"]) == ["Dock", "Jack", "Temple"]


def test_R_8_5_6_demand_of_two_materials():
    state = state_of(2, [
        {"hand": ["Shrine", "Atrium", "Temple"], "clientele": ["Gate"]},
        {"hand": ["Bath", "Palace", "Dock"]},
    ])
    play(state, "lead Legionary with Shrine", "think: take Jack",
         "legionary: reveal Atrium", "legionary: reveal Temple")
    d = state.to_dict()
    assert sorted(d["players"][0]["stockpile"]) == ["Bath", "Palace"]
    assert sorted(d["players"][1]["hand"]) == ["Dock", "Jack"]
    assert sorted(d["players"][0]["hand"]) == ["Atrium", "Temple"]


def test_R_8_5_8_forum_romanum_win_after_a_legionary_gain():
    """Republic: completed Forum Romanum, a client of every role, a stockpile missing
    only Brick; the victim's Brick completes the set -> player 0 wins at once."""
    state = state_of(2, [
        {"hand": ["Atrium", "Bath"],
         "clientele": ["Temple", "Bar", "Dock", "Tower", "Shrine", "Villa"],
         "stockpile": ["Bar", "Dock", "Tower", "Villa", "Temple"],
         "structures": [built("Forum Romanum", ["Palace", "Palace", "Statue"]),
                      built("Insula", ["Latrine"])]},
        {"hand": ["Gate"]},
    ])
    assert not state.is_terminal()
    assert state.clientele_limit(0) == 8
    play(state, "lead Legionary with Atrium", "think: take Jack")
    # two Legionary actions (camp + Shrine client); only Bath can be revealed
    play(state, "legionary: reveal Bath")
    assert state.is_terminal()
    assert state.end_reason() == "forum"
    assert state.winners() == [0]
    assert "Gate" in zone(state, 0, "stockpile")


# --------------------------------------------------------------------------- Merchant


def test_R_8_6_1_merchant_vaults_one_stockpile_card():
    state = state_of(2, [{"hand": ["Villa"], "stockpile": ["Bar", "Temple"]},
                         {"hand": ["Dock"]}])
    assert state.vault_limit(0) == 2
    play(state, "lead Merchant with Villa", "think: take Jack")
    assert legal(state) == lower_set(["merchant: vault Bar from stockpile",
                                      "merchant: vault Temple from stockpile",
                                      "merchant: skip"])
    play(state, "merchant: vault Temple from stockpile")
    d = state.to_dict()
    assert d["leader"] == 1
    assert d["players"][0]["vault"] == ["Temple"]
    assert d["players"][0]["stockpile"] == ["Bar"]


def test_R_8_6_1_merchant_at_the_vault_limit_is_skipped():
    state = state_of(2, [{"hand": ["Villa"], "stockpile": ["Bar"],
                          "vault": ["Road", "Dock"]}, {"hand": ["Dock"]}])
    play(state, "lead Merchant with Villa", "think: take Jack")
    d = state.to_dict()
    assert d["leader"] == 1
    assert sorted(d["players"][0]["vault"]) == ["Dock", "Road"]
    assert d["players"][0]["stockpile"] == ["Bar"]


def test_R_8_5_2_two_copies_of_one_card_can_both_be_revealed():
    """Reveals, pool takes and gives of several copies of the same card."""
    state = state_of(2, [
        {"hand": ["Shrine", "Atrium", "Atrium"], "clientele": ["Gate"]},
        {"hand": ["School", "School", "Dock"]},
    ], pool=["Bath", "Bath", "Road"])
    play(state, "lead Legionary with Shrine", "think: take Jack",
         "legionary: reveal Atrium", "legionary: reveal Atrium",
         "legionary: take Bath from pool", "legionary: take Bath from pool")
    d = state.to_dict()
    assert d["leader"] == 1
    assert sorted(d["players"][0]["stockpile"]) == ["Bath", "Bath", "School", "School"]
    assert sorted(d["players"][0]["hand"]) == ["Atrium", "Atrium"]
    assert sorted(d["players"][1]["hand"]) == ["Dock", "Jack"]
    assert sorted(d["pool"]) == ["Road", "Shrine"]
