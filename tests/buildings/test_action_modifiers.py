"""Building functions that modify role actions (docs/rules.md §13 timing A, §14): Bar,
Aqueduct, Dock, Basilica, Bath, Archway, Atrium, Fountain, Bridge, Colosseum, Domus
Aurea, Villa, Scriptorium, Road, Tower, Statue.  (Stairway: test_gate_stairway.py.)"""

import glory_ai
from support.positions import (
    assert_illegal,
    assert_legal,
    clients,
    done,
    foundation,
    from_dict,
    hand,
    infl_sites,
    legal,
    lower_set,
    names,
    play,
    pool,
    position,
    state_of,
    stock,
    structure,
    turn_over,
    use_extras,
    vault,
)

NO_BRICK_IN_TOWN = {"in_town": {"Brick": 0}, "out_of_town": {"Brick": 4}}
P1_HOLDS_TWO_BRICK = {"hand": ["Latrine"],
                      "structures": [foundation("Academy"), foundation("Archway")]}


# --------------------------------------------------------------------------- #6 Bar


def bar_state(pool_cards=("Dock",), clientele=(), deck_top=("Insula",), deck_size=10,
              mode="republic"):
    d = position(2, [{"hand": ["Temple"], "clientele": list(clientele),
                      "structures": [done("Bar")]},
                     {"hand": ["Road"]}],
                 pool=list(pool_cards), deck_top=list(deck_top), deck_size=deck_size, mode=mode)
    state = from_dict(d)
    play(state, "lead Patron with Temple", "think: take Jack")
    return state


def test_6_bar_hires_pool_card_and_top_of_deck():
    """§13 #6 Bar: the Patron action may also hire the top card of the deck."""
    state = bar_state()
    assert state.clientele_limit(0) == 3
    assert legal(state) == lower_set(["patron: hire Dock from pool",
                                      "patron: hire top of deck", "patron: skip"])
    play(state, "patron: hire Dock from pool")
    assert legal(state) == lower_set(["patron: hire top of deck", "patron: done"])
    play(state, "patron: hire top of deck")
    assert turn_over(state)
    assert clients(state, 0) == ["Dock", "Insula"]
    assert len(state.to_dict()["deck"]) == 9


def test_6_bar_independent_of_the_pool_hire():
    """§13 #6 Bar: usable with an empty pool (A7)."""
    state = bar_state(pool_cards=())
    assert legal(state) == lower_set(["patron: hire top of deck", "patron: skip"])
    play(state, "patron: hire top of deck")
    assert turn_over(state)
    assert clients(state, 0) == ["Insula"]


def test_6_bar_deck_hire_first_then_pool():
    """§13 #6 Bar: the parts may be done in either order (R-8.1.4)."""
    state = bar_state()
    play(state, "patron: hire top of deck", "patron: hire Dock from pool")
    assert turn_over(state)
    assert clients(state, 0) == ["Dock", "Insula"]


def test_6_bar_limit_applies_per_hire():
    """§13 #6 Bar: limit 3, two clients: after the pool hire no deck hire is possible."""
    state = bar_state(clientele=("Market", "Palisade"))
    play(state, "patron: hire Dock from pool")
    assert turn_over(state)
    assert clients(state, 0) == ["Dock", "Market", "Palisade"]
    assert state.to_dict()["deck"][0] == "Insula"


def test_6_bar_last_card_ends_the_game_after_the_hire():
    """§13 #6 Bar, R-8.1.6 / R-11.1: the deck hire takes the last card -> the client is
    placed, then the game ends (the pool hire is not performed)."""
    state = bar_state(deck_top=("Insula",), deck_size=1)
    play(state, "patron: hire top of deck")
    assert state.is_terminal()
    assert state.end_reason() == "deck"
    assert clients(state, 0) == ["Insula"]
    assert pool(state) == ["Dock"]
    assert state.to_dict()["deck"] == []


def test_6_bar_last_card_forum_check_is_made():
    """§13 #6 Bar + #17 Forum, R-11.1(1): the last card is hired and the Forum check is
    made before the deck end: the sixth role wins outright."""
    d = position(2, [{"hand": ["Temple"], "clientele": ["Basilica", "Road", "Dock", "Tower",
                                                         "Shrine"],
                      "structures": [done("Bar"), done("Forum"), done("Insula")]},
                     {"hand": ["Latrine"], "vault": ["Palace", "Palace", "Palace"]}],
                 mode="imperium", deck_top=["Villa"], deck_size=1)
    state = from_dict(d)
    play(state, "lead Patron with Temple", "think: take Jack",
         "patron: hire top of deck")
    assert state.is_terminal()
    assert state.end_reason() == "forum"
    assert state.winners() == [0]


# --------------------------------------------------------------------------- #3 Aqueduct (hire)


def aqueduct_state(pool_cards=("Dock",)):
    state = state_of(2, [{"hand": ["Temple", "Bar", "Jack"],
                          "structures": [done("Aqueduct")]},
                         {"hand": ["Road"]}], pool=list(pool_cards))
    play(state, "lead Patron with Temple", "think: take Jack")
    return state


def test_3_aqueduct_hires_from_hand_and_pool():
    """§13 #3 Aqueduct: the Patron action may also hire one Order card from hand
    (not a Jack)."""
    state = aqueduct_state()
    assert legal(state) == lower_set(["patron: hire Dock from pool",
                                      "patron: hire Bar from hand", "patron: skip"])
    play(state, "patron: hire Dock from pool", "patron: hire Bar from hand")
    assert turn_over(state)
    assert clients(state, 0) == ["Bar", "Dock"]
    assert hand(state, 0) == ["Jack"]
    assert pool(state) == ["Temple"]


def test_3_aqueduct_hand_hire_alone():
    """§13 #3 Aqueduct: the hand hire is independent of the pool hire (A7)."""
    state = aqueduct_state()
    play(state, "patron: hire Bar from hand")
    assert legal(state) == lower_set(["patron: hire Dock from pool", "patron: done"])
    play(state, "patron: done")
    assert turn_over(state)
    assert clients(state, 0) == ["Bar"]
    assert pool(state) == ["Dock", "Temple"]


# --------------------------------------------------------------------------- #15 Dock


def dock_state(pool_cards=("Road",)):
    state = state_of(2, [{"hand": ["Bar", "Temple", "Jack"],
                          "structures": [done("Dock")]},
                         {"hand": ["Market"]}], pool=list(pool_cards))
    play(state, "lead Laborer with Bar", "think: take Jack")
    return state


def test_15_dock_moves_a_hand_card_to_the_stockpile():
    """§13 #15 Dock: the Laborer action may also move one Order card from hand."""
    state = dock_state()
    assert legal(state) == lower_set(["laborer: take Road from pool",
                                      "laborer: move Temple from hand", "laborer: skip"])
    play(state, "laborer: take Road from pool", "laborer: move Temple from hand")
    assert turn_over(state)
    assert stock(state, 0) == ["Road", "Temple"]
    assert hand(state, 0) == ["Jack"]


def test_15_dock_without_a_pool_card():
    """§13 #15 Dock: usable without a pool card."""
    state = dock_state(pool_cards=())
    assert legal(state) == lower_set(["laborer: move Temple from hand", "laborer: skip"])
    play(state, "laborer: move Temple from hand")
    assert turn_over(state)
    assert stock(state, 0) == ["Temple"]


# --------------------------------------------------------------------------- #7 Basilica


def basilica_state(stockpile=("Bar",), vault_cards=()):
    state = state_of(2, [{"hand": ["Villa", "Temple", "Jack"], "stockpile": list(stockpile),
                          "vault": list(vault_cards), "structures": [done("Basilica")]},
                         {"hand": ["Market"]}])
    play(state, "lead Merchant with Villa", "think: take Jack")
    return state


def test_7_basilica_vaults_a_hand_card_too():
    """§13 #7 Basilica: the Merchant action may also vault one Order card from hand."""
    state = basilica_state()
    assert state.vault_limit(0) == 5
    assert legal(state) == lower_set(["merchant: vault Bar from stockpile",
                                      "merchant: vault Temple from hand", "merchant: skip"])
    play(state, "merchant: vault Bar from stockpile", "merchant: vault Temple from hand")
    assert turn_over(state)
    assert vault(state, 0) == ["Bar", "Temple"]
    assert hand(state, 0) == ["Jack"]


def test_7_basilica_without_the_stockpile_part():
    state = basilica_state(stockpile=())
    assert legal(state) == lower_set(["merchant: vault Temple from hand", "merchant: skip"])
    play(state, "merchant: vault Temple from hand")
    assert turn_over(state)
    assert vault(state, 0) == ["Temple"]


def test_7_basilica_limit_applies_per_card():
    """§13 #7 Basilica: vault 4 of 5 -> only one of the two cards fits."""
    state = basilica_state(vault_cards=("Road", "Dock", "Insula", "Latrine"))
    play(state, "merchant: vault Bar from stockpile")
    assert turn_over(state)
    assert vault(state, 0) == ["Bar", "Dock", "Insula", "Latrine", "Road"]
    assert hand(state, 0) == ["Jack", "Temple"]


# --------------------------------------------------------------------------- #8 Bath


def test_8_bath_laborer_hire_acts_once_not_doubled():
    """§13 #8 Bath: the hired Laborer performs one Laborer action at once; Circus
    Maximus (#12) does not double it."""
    state = state_of(2, [{"hand": ["Temple"],
                          "structures": [done("Bath"), done("Circus Maximus")]},
                         {"hand": ["Dock"]}], pool=["Road", "Bar", "Insula"])
    play(state, "lead Patron with Temple", "think: take Jack",
         "patron: hire Road from pool")
    assert legal(state) == lower_set(["laborer: take Bar from pool",
                                      "laborer: take Insula from pool", "laborer: skip"])
    play(state, "laborer: take Bar from pool")
    assert turn_over(state)
    assert clients(state, 0) == ["Road"]
    assert stock(state, 0) == ["Bar"]
    assert pool(state) == ["Insula", "Temple"]


def test_8_bath_legionary_hires_cannot_reveal_the_same_card_twice():
    """§13 #8 Bath: each Legionary hire is a batch of 1; a card revealed by the first
    hire cannot be revealed for the second (same turn) -> the second batch is lost."""
    state = state_of(2, [
        {"hand": ["Palace", "Atrium"], "clientele": ["Temple"],
         "structures": [done("Bath")]},
        {"hand": ["School", "Foundry"]},
    ], pool=["Academy", "Gate"])
    play(state, "lead Patron with Palace", "think: take Jack",
         "patron: hire Academy from pool")
    assert legal(state) == lower_set(["legionary: reveal Atrium",
                                      "legionary: done revealing"])
    play(state, "legionary: reveal Atrium")
    # Gate (Brick) is in the pool: optional take
    play(state, "legionary: done taking")
    assert state.current_player() == 1
    play(state, "give Foundry")
    # second Patron action (Temple client)
    assert state.current_player() == 0
    play(state, "patron: hire Gate from pool")
    assert turn_over(state)
    assert clients(state, 0) == ["Academy", "Gate", "Temple"]
    assert stock(state, 0) == ["Foundry"]
    assert hand(state, 1) == ["Jack", "School"]
    assert hand(state, 0) == ["Atrium"]


def test_8_bath_ludus_merchant_hire_performs_a_merchant_action_A12():
    """§13 #8 Bath + #25 Ludus Magnus, A12: a hired Merchant performs its printed role."""
    state = state_of(2, [{"hand": ["Temple"], "stockpile": ["Garden"],
                          "structures": [done("Bath"), done("Ludus Magnus")]},
                         {"hand": ["Dock"]}], pool=["Villa"])
    play(state, "lead Patron with Temple", "think: take Jack",
         "patron: hire Villa from pool")
    assert legal(state) == lower_set(["merchant: vault Garden from stockpile",
                                      "merchant: skip"])
    play(state, "merchant: vault Garden from stockpile")
    assert turn_over(state)
    assert vault(state, 0) == ["Garden"]
    assert clients(state, 0) == ["Villa"]


def test_8_bath_craftsman_hire_cannot_found_out_of_town():
    """§13 #8 Bath, R-8.1.5: a Bath action never pairs for an out-of-town foundation."""
    state = state_of(2, [{"hand": ["Temple", "Atrium", "Road"],
                          "structures": [done("Bath")]},
                         {"hand": ["Dock"], "structures": [foundation("Academy")]}],
                     pool=["Market"], sites=NO_BRICK_IN_TOWN)
    play(state, "lead Patron with Temple", "think: take Jack",
         "patron: hire Market from pool")
    assert legal(state) == lower_set(["craftsman: lay Road", "craftsman: skip"])
    play(state, "craftsman: skip")
    assert turn_over(state)
    assert hand(state, 0) == ["Atrium", "Road"]
    assert state.to_dict()["sites"]["out_of_town"]["Brick"] == 4


def test_8_without_bath_hire_does_nothing_more():
    state = state_of(2, [{"hand": ["Temple"]}, {"hand": ["Dock"]}],
                     pool=["Road", "Bar"])
    play(state, "lead Patron with Temple", "think: take Jack",
         "patron: hire Road from pool")
    assert turn_over(state)
    assert stock(state, 0) == []


# --------------------------------------------------------------------------- #4 Archway


def test_4_archway_material_from_the_pool():
    """§13 #4 Archway: the Architect action may take its material from the pool."""
    state = state_of(2, [{"hand": ["Jack"], "stockpile": ["Wall"],
                          "structures": [done("Archway"), foundation("Storeroom")]},
                         {"hand": ["Dock"]}], pool=["Tower", "Bar"])
    play(state, "lead Architect with Jack", "think: take Jack")
    assert legal(state) == lower_set(["architect: add Wall to Storeroom",
                                      "architect: add Tower from pool to Storeroom",
                                      "architect: skip"])
    play(state, "architect: add Tower from pool to Storeroom")
    assert turn_over(state)
    assert structure(state, 0, "Storeroom")["materials"] == ["Tower"]
    assert stock(state, 0) == ["Wall"]
    assert pool(state) == ["Bar"]


def test_4_no_archway_no_pool_material():
    state = state_of(2, [{"hand": ["Jack"], "stockpile": ["Wall"],
                          "structures": [foundation("Storeroom")]},
                         {"hand": ["Dock"]}], pool=["Tower"])
    play(state, "lead Architect with Jack", "think: take Jack")
    assert_illegal(state, "architect: add Tower from pool to Storeroom")


# --------------------------------------------------------------------------- #5 Atrium


def atrium_state(extra_structures=(), hand_cards=("Villa",), vault_cards=(),
                 deck_size=10):
    d = position(2, [{"hand": list(hand_cards), "stockpile": ["Bar"], "vault": list(vault_cards),
                      "structures": [done("Atrium")] + list(extra_structures)},
                     {"hand": ["Dock"]}], deck_top=["Temple"], deck_size=deck_size)
    state = from_dict(d)
    play(state, "lead Merchant with Villa", "think: take Jack")
    return state


def test_5_atrium_vaults_the_top_card_instead():
    """§13 #5 Atrium: the top deck card goes to the vault instead of a stockpile card."""
    state = atrium_state()
    assert legal(state) == lower_set(["merchant: vault Bar from stockpile",
                                      "merchant: vault top of deck", "merchant: skip"])
    play(state, "merchant: vault top of deck")
    assert turn_over(state)       # "instead": no stockpile card as well
    assert vault(state, 0) == ["Temple"]
    assert stock(state, 0) == ["Bar"]
    assert len(state.to_dict()["deck"]) == 9


def test_5_atrium_vault_limit_applies():
    """§13 #5 Atrium: vault full (4 of 4) -> the action cannot do anything."""
    state = atrium_state(vault_cards=("Road", "Insula", "Latrine", "Market"))
    assert turn_over(state)
    assert len(state.to_dict()["deck"]) == 10


def test_5_atrium_last_card_ends_the_game():
    """§13 #5 Atrium: vaulting the last deck card ends the game after the move."""
    state = atrium_state(deck_size=1)
    play(state, "merchant: vault top of deck")
    assert state.is_terminal()
    assert state.end_reason() == "deck"
    assert vault(state, 0) == ["Temple"]
    # influence 4 + Temple 3 + Marble bonus 3
    assert state.scores()[0] == 10


def test_5_7_atrium_last_card_before_basilica_card():
    """R-11.1(1): Atrium + Basilica, the Atrium draw takes the last card -> the game
    ends; the Basilica card was not moved."""
    state = atrium_state(extra_structures=[done("Basilica")],
                         hand_cards=("Villa", "Palace"), deck_size=1)
    play(state, "merchant: vault top of deck")
    assert state.is_terminal()
    assert vault(state, 0) == ["Temple"]
    assert hand(state, 0) == ["Palace"]


def test_5_7_atrium_last_card_after_basilica_card():
    state = atrium_state(extra_structures=[done("Basilica")],
                         hand_cards=("Villa", "Palace"), deck_size=1)
    play(state, "merchant: vault Palace from hand", "merchant: vault top of deck")
    assert state.is_terminal()
    assert vault(state, 0) == ["Palace", "Temple"]


# --------------------------------------------------------------------------- #20 Fountain


def fountain_state(extra_structures=(), clientele=(), hand_cards=("Dock", "Bar"),
                   deck_top=("Road",), deck_size=10, p1=None, **kw):
    d = position(2, [{"hand": list(hand_cards), "clientele": list(clientele),
                      "structures": [done("Fountain")] + list(extra_structures)},
                     p1 or {"hand": ["Temple"]}],
                 deck_top=list(deck_top), deck_size=deck_size, **kw)
    state = from_dict(d)
    play(state, "lead Craftsman with Dock", "think: take Jack")
    return state


def test_20_fountain_lays_the_drawn_card():
    """§13 #20 Fountain: look at the top card and use it as the foundation."""
    state = fountain_state()
    assert_legal(state, "craftsman: draw from deck (Fountain)", "craftsman: lay Bar")
    play(state, "craftsman: draw from deck (Fountain)")
    assert legal(state) == lower_set(["fountain: lay Road", "fountain: keep Road"])
    play(state, "fountain: lay Road")
    assert turn_over(state)
    s = structure(state, 0, "Road")
    assert s is not None and s["complete"] is False and s["materials"] == []
    assert hand(state, 0) == ["Bar"]
    assert len(state.to_dict()["deck"]) == 9


def test_20_fountain_keep_forfeits_the_action():
    state = fountain_state()
    play(state, "craftsman: draw from deck (Fountain)", "fountain: keep Road")
    assert turn_over(state)
    assert hand(state, 0) == ["Bar", "Road"]
    assert names(state, 0) == ["Fountain"]


def test_20_fountain_card_as_material():
    """§13 #20 Fountain: the drawn card as the material; it completes Insula."""
    state = fountain_state(extra_structures=[foundation("Insula")])
    play(state, "craftsman: draw from deck (Fountain)")
    assert legal(state) == lower_set(["fountain: lay Road", "fountain: add Road to Insula",
                                      "fountain: keep Road"])
    play(state, "fountain: add Road to Insula")
    assert structure(state, 0, "Insula")["complete"] is True
    assert state.influence(0) == 6


OOT_RUBBLE = {"in_town": {"Rubble": 0}, "out_of_town": {"Rubble": 3}}


def test_20_fountain_out_of_town_still_needs_two_actions():
    """§13 #20 Fountain: in-town Rubble gone, one action -> no out-of-town lay."""
    state = fountain_state(extra_structures=[foundation("Latrine", out_of_town=True)],
                           p1={"hand": ["Temple"], "influence": ["Rubble", "Rubble"]},
                           sites=OOT_RUBBLE)
    play(state, "craftsman: draw from deck (Fountain)")
    assert legal(state) == lower_set(["fountain: add Road to Latrine",
                                      "fountain: keep Road"])


def test_20_fountain_out_of_town_with_a_second_action():
    state = fountain_state(extra_structures=[foundation("Latrine", out_of_town=True)],
                           clientele=["Market"],
                           p1={"hand": ["Temple"], "influence": ["Rubble", "Rubble"]},
                           sites=OOT_RUBBLE)
    play(state, "craftsman: draw from deck (Fountain)")
    assert_legal(state, "fountain: lay Road out of town")
    play(state, "fountain: lay Road out of town")
    assert turn_over(state)
    s = structure(state, 0, "Road")
    assert s["out_of_town"] is True
    assert state.to_dict()["sites"]["out_of_town"]["Rubble"] == 2


def test_20_fountain_last_card_ends_the_game_after_the_action():
    """§13 #20 Fountain: the draw takes the last card; the action is resolved, then the
    game ends (the client's action is not performed)."""
    state = fountain_state(clientele=["Market"], deck_size=1)
    play(state, "craftsman: draw from deck (Fountain)", "fountain: lay Road")
    assert state.is_terminal()
    assert state.end_reason() == "deck"
    assert structure(state, 0, "Road") is not None
    assert hand(state, 0) == ["Bar"]


def test_20_fountain_last_card_completion_grants_nothing():
    """R-11.1(1): the last card completes an Amphitheatre -> influence counts, but its
    upon-completion Craftsman actions are not performed."""
    state = fountain_state(extra_structures=[foundation("Amphitheatre", ["Tower"])],
                           deck_top=("Aqueduct",), deck_size=1)
    play(state, "craftsman: draw from deck (Fountain)",
         "fountain: add Aqueduct to Amphitheatre")
    assert state.is_terminal()
    assert state.end_reason() == "deck"
    assert structure(state, 0, "Amphitheatre")["complete"] is True
    assert state.influence(0) == 7
    assert state.current_player() == glory_ai.TERMINAL


# --------------------------------------------------------------------------- #9 Bridge


def test_9_bridge_takes_from_stockpile_per_demanded_material_A13():
    """§13 #9 Bridge, A13: demand {Concrete, Concrete}: the victim gives its Concrete
    hand card and two Concrete stockpile cards (its choice); Rubble is not taken."""
    state = state_of(2, [
        {"hand": ["Foundry", "Tower", "Wall"], "clientele": ["Gate"],
         "structures": [done("Bridge")]},
        {"hand": ["Aqueduct"], "stockpile": ["Storeroom", "Vomitorium", "Amphitheatre",
                                             "Bar"]},
    ])
    play(state, "lead Legionary with Foundry", "think: take Jack",
         "legionary: reveal Tower", "legionary: reveal Wall")
    use_extras(state, 1)                       # the legionary's choice
    assert state.current_player() == 1
    # two of the three Concrete stockpile cards, picked in name order (never Bar)
    assert "give amphitheatre from stockpile" in legal(state)
    assert legal(state) <= lower_set(["give Amphitheatre from stockpile",
                                      "give Storeroom from stockpile",
                                      "give Vomitorium from stockpile"])
    play(state, "give Amphitheatre from stockpile")
    play(state, "give Storeroom from stockpile")
    assert turn_over(state)
    assert stock(state, 0) == ["Amphitheatre", "Aqueduct", "Storeroom"]
    assert stock(state, 1) == ["Bar", "Vomitorium"]
    assert hand(state, 1) == ["Jack"]


def test_9_bridge_hits_every_opponent():
    """§13 #9 Bridge: 4 players, the non-adjacent player 2 is a victim too."""
    state = state_of(4, [
        {"hand": ["Foundry", "Tower"], "structures": [done("Bridge")]},
        {"hand": ["Aqueduct"]}, {"hand": ["Amphitheatre"]}, {"hand": ["Vomitorium"]},
    ])
    play(state, "lead Legionary with Foundry", "think: take Jack", "think: take Jack",
         "think: take Jack", "legionary: reveal Tower")
    assert turn_over(state)
    assert stock(state, 0) == ["Amphitheatre", "Aqueduct", "Vomitorium"]
    assert [hand(state, p) for p in (1, 2, 3)] == [["Jack"]] * 3


def test_9_28_bridge_ignores_palisade():
    """§13 #9 Bridge vs #28 Palisade: the Palisade does not protect."""
    state = state_of(2, [
        {"hand": ["Foundry", "Tower"], "structures": [done("Bridge")]},
        {"hand": ["Aqueduct"], "stockpile": ["Storeroom"],
         "structures": [done("Palisade")]},
    ])
    play(state, "lead Legionary with Foundry", "think: take Jack",
         "legionary: reveal Tower")
    use_extras(state, 1)
    assert turn_over(state)
    assert stock(state, 0) == ["Aqueduct", "Storeroom"]
    assert stock(state, 1) == []


def test_9_44_bridge_stopped_by_wall():
    """§13 #9 Bridge vs #44 Wall: the Wall still protects (hand and stockpile)."""
    state = state_of(2, [
        {"hand": ["Foundry", "Tower"], "structures": [done("Bridge")]},
        {"hand": ["Aqueduct"], "stockpile": ["Storeroom"],
         "structures": [done("Wall")]},
    ])
    play(state, "lead Legionary with Foundry", "think: take Jack",
         "legionary: reveal Tower")
    assert turn_over(state)
    assert stock(state, 0) == []
    assert stock(state, 1) == ["Storeroom"]
    assert hand(state, 1) == ["Aqueduct", "Jack"]


# --------------------------------------------------------------------------- #13 Colosseum


def colosseum_state(p0_vault=(), p1_structures=(), num_players=2, others=()):
    players = [{"hand": ["Shrine", "Atrium"], "vault": list(p0_vault),
                "structures": [done("Colosseum")]},
               {"hand": ["School", "Academy"], "clientele": ["Bath"],
                "structures": list(p1_structures)}]
    players += list(others)
    state = state_of(num_players, players, mode="imperium")
    play(state, "lead Legionary with Shrine", *["think: take Jack"] * (num_players - 1),
         "legionary: reveal Atrium")
    return state


def test_13_colosseum_takes_a_matching_client_into_the_vault():
    """§13 #13 Colosseum (Imperium): the victim's Brick client goes to the legionary's
    vault; a client lost this way does not act for its former owner (R-6.4)."""
    state = colosseum_state()
    assert state.current_player() == 1
    play(state, "give Academy")
    use_extras(state, 1)
    assert turn_over(state)
    assert vault(state, 0) == ["Bath"]
    assert clients(state, 1) == []
    assert stock(state, 0) == ["Academy"]
    assert hand(state, 0) == ["Atrium"]        # player 1's lost client made no demand
    assert hand(state, 1) == ["Jack", "School"]


def test_13_colosseum_vault_limit_A14():
    """§13 #13 Colosseum, A14: the legionary's vault is full (5 of 5) -> no client."""
    state = colosseum_state(p0_vault=("Bar", "Road", "Dock", "Market", "Insula"))
    play(state, "give Academy")
    # player 1 keeps the Bath client, which then acts: reveal the remaining School
    assert state.current_player() == 1
    assert clients(state, 1) == ["Bath"]
    assert len(vault(state, 0)) == 5


def test_13_colosseum_immunity_protects_clients():
    """§13 #13 Colosseum: a victim with Palisade keeps hand and clients."""
    state = colosseum_state(p1_structures=[done("Palisade")])
    assert clients(state, 1) == ["Bath"]
    assert vault(state, 0) == []
    assert stock(state, 0) == []


def test_13_colosseum_only_victims_A34():
    """§13 #13 Colosseum, A34: 4 players -- the non-adjacent player 2 keeps its client."""
    state = colosseum_state(num_players=4, others=[
        {"hand": ["Foundry"], "clientele": ["Gate"]},
        {"hand": ["Dock"]}])
    if state.current_player() == 1:
        play(state, "give Academy")
    use_extras(state, 1)
    assert clients(state, 2) == ["Gate"]
    assert "Foundry" in hand(state, 2)
    assert vault(state, 0) == ["Bath"]


# --------------------------------------------------------------------------- #16 Domus Aurea


def test_16_domus_aurea_tears_down_an_empty_matching_structure():
    """§13 #16 Domus Aurea (Republic): the victim's material-free Brick structure: its
    foundation to the legionary's stockpile, its site to the legionary's influence
    (not a completion); the Gate with one material is safe."""
    state = state_of(2, [
        {"hand": ["Shrine", "Atrium"], "structures": [done("Domus Aurea")]},
        {"hand": ["Dock"], "structures": [foundation("Bath"), foundation("Gate", ["Academy"])]},
    ])
    assert state.influence(0) == 5
    play(state, "lead Legionary with Shrine", "think: take Jack",
         "legionary: reveal Atrium")
    use_extras(state, 1)
    assert turn_over(state)
    assert stock(state, 0) == ["Bath"]
    assert state.influence(0) == 7
    assert infl_sites(state, 0) == ["Brick", "Stone"]
    assert names(state, 0) == ["Domus Aurea"]
    assert names(state, 1) == ["Gate"]
    assert state.influence(1) == 2


def test_16_domus_aurea_victim_chooses_the_structure():
    """§13 #16: a Statue on a Brick site matches Brick by its site; the victim chooses."""
    state = state_of(2, [
        {"hand": ["Shrine", "Atrium"], "structures": [done("Domus Aurea")]},
        {"hand": ["Dock"], "structures": [foundation("Bath"), foundation("Statue", site="Brick")]},
    ])
    play(state, "lead Legionary with Shrine", "think: take Jack",
         "legionary: reveal Atrium")
    use_extras(state, 1)
    assert state.current_player() == 1
    assert legal(state) == lower_set(["give structure Bath", "give structure Statue"])
    play(state, "give structure Statue")
    assert turn_over(state)
    assert stock(state, 0) == ["Statue"]
    assert infl_sites(state, 0) == ["Brick", "Stone"]
    assert names(state, 1) == ["Bath"]


def test_16_domus_aurea_blocked_by_palisade():
    state = state_of(2, [
        {"hand": ["Shrine", "Atrium"], "structures": [done("Domus Aurea")]},
        {"hand": ["Dock"], "structures": [foundation("Bath"), done("Palisade")]},
    ])
    play(state, "lead Legionary with Shrine", "think: take Jack",
         "legionary: reveal Atrium")
    assert turn_over(state)
    assert stock(state, 0) == []
    assert names(state, 1) == ["Bath", "Palisade"]


# --------------------------------------------------------------------------- #42 Villa


def test_42_villa_completed_by_one_stone_architect_action():
    """§13 #42 Villa, A32: an Architect action adding a Stone material completes it."""
    state = state_of(2, [{"hand": ["Jack"], "stockpile": ["Garden"],
                          "structures": [foundation("Villa")]}, {"hand": ["Dock"]}])
    play(state, "lead Architect with Jack", "think: take Jack",
         "architect: add Garden to Villa")
    s = structure(state, 0, "Villa")
    assert s["complete"] is True and s["materials"] == ["Garden"]
    assert state.influence(0) == 5


def test_42_villa_not_completed_by_craftsman():
    """§13 #42 Villa: "Craftsman does not trigger it"."""
    state = state_of(2, [{"hand": ["Dock", "Garden"], "structures": [foundation("Villa")]},
                         {"hand": ["Bar"]}])
    play(state, "lead Craftsman with Dock", "think: take Jack",
         "craftsman: add Garden to Villa")
    s = structure(state, 0, "Villa")
    assert s["complete"] is False and s["materials"] == ["Garden"]
    assert state.influence(0) == 2


def test_42_villa_non_stone_material_counts_normally_A32():
    """§13 #42 Villa + #30 Road: a Rubble material by Architect does not complete it."""
    state = state_of(2, [{"hand": ["Jack"], "stockpile": ["Bar"],
                          "structures": [foundation("Villa"), done("Road")]},
                         {"hand": ["Dock"]}])
    play(state, "lead Architect with Jack", "think: take Jack",
         "architect: add Bar to Villa")
    s = structure(state, 0, "Villa")
    assert s["complete"] is False and s["materials"] == ["Bar"]


def test_42_4_villa_stone_from_the_pool_with_archway():
    state = state_of(2, [{"hand": ["Jack"], "structures": [foundation("Villa"), done("Archway")]},
                         {"hand": ["Dock"]}], pool=["Garden"])
    play(state, "lead Architect with Jack", "think: take Jack",
         "architect: add Garden from pool to Villa")
    assert structure(state, 0, "Villa")["complete"] is True
    assert state.influence(0) == 2 + 2 + 3


# --------------------------------------------------------------------------- #32 Scriptorium


def test_32_scriptorium_marble_completes_an_empty_structure_A31():
    """§13 #32 Scriptorium, A31: one Marble material completes a structure with no
    materials (Concrete Storeroom: +2 influence)."""
    state = state_of(2, [{"hand": ["Jack"], "stockpile": ["Temple"],
                          "structures": [done("Scriptorium"), foundation("Storeroom")]},
                         {"hand": ["Dock"]}])
    play(state, "lead Architect with Jack", "think: take Jack",
         "architect: add Temple to Storeroom")
    s = structure(state, 0, "Storeroom")
    assert s["complete"] is True and s["materials"] == ["Temple"]
    assert state.influence(0) == 2 + 3 + 2


def test_32_scriptorium_marble_completes_a_marble_structure_early():
    state = state_of(2, [{"hand": ["Dock", "Temple"],
                          "structures": [done("Scriptorium"), foundation("Palace", ["Statue"])]},
                         {"hand": ["Bar"]}])
    play(state, "lead Craftsman with Dock", "think: take Jack",
         "craftsman: add Temple to Palace")
    assert structure(state, 0, "Palace")["complete"] is True
    assert state.influence(0) == 2 + 3 + 3


def test_32_no_scriptorium_no_marble_on_concrete():
    state = state_of(2, [{"hand": ["Jack"], "stockpile": ["Temple"],
                          "structures": [foundation("Storeroom")]}, {"hand": ["Dock"]}])
    play(state, "lead Architect with Jack", "think: take Jack")
    assert_illegal(state, "architect: add Temple to Storeroom")


# --------------------------------------------------------------------------- #30 Road


def test_30_road_any_material_on_a_stone_structure():
    """§13 #30 Road: any material may be added to a Stone structure (not completing
    beyond the count)."""
    state = state_of(2, [{"hand": ["Dock", "Bar", "Tower"],
                          "structures": [done("Road"), foundation("Villa"), foundation("Storeroom")]},
                         {"hand": ["Market"]}])
    play(state, "lead Craftsman with Dock", "think: take Jack")
    assert_legal(state, "craftsman: add Bar to Villa", "craftsman: add Tower to Villa",
                 "craftsman: add Tower to Storeroom")
    assert_illegal(state, "craftsman: add Bar to Storeroom")
    play(state, "craftsman: add Bar to Villa")
    s = structure(state, 0, "Villa")
    assert s["materials"] == ["Bar"] and s["complete"] is False


def test_30_road_stone_site_counts_as_stone_structure():
    """§13 #30 Road: "Stone structure" = Stone foundation or Stone site (Statue)."""
    state = state_of(2, [{"hand": ["Dock", "Bar"],
                          "structures": [done("Road"), foundation("Statue", site="Stone")]},
                         {"hand": ["Market"]}])
    play(state, "lead Craftsman with Dock", "think: take Jack")
    assert_legal(state, "craftsman: add Bar to Statue")


def test_30_without_road_no_rubble_on_stone():
    state = state_of(2, [{"hand": ["Dock", "Bar"], "structures": [foundation("Villa")]},
                         {"hand": ["Market"]}])
    play(state, "lead Craftsman with Dock", "think: take Jack")
    assert_illegal(state, "craftsman: add Bar to Villa")


# --------------------------------------------------------------------------- #40 Tower


def test_40_tower_rubble_on_any_structure():
    """§13 #40 Tower: Rubble is legal for any structure; other materials are not."""
    state = state_of(2, [{"hand": ["Dock", "Bar", "Market"],
                          "structures": [done("Tower"), foundation("Temple")]},
                         {"hand": ["Crane"]}])
    play(state, "lead Craftsman with Dock", "think: take Jack")
    assert_legal(state, "craftsman: add Bar to Temple")
    assert_illegal(state, "craftsman: add Market to Temple")
    play(state, "craftsman: add Bar to Temple")
    assert structure(state, 0, "Temple")["materials"] == ["Bar"]


def test_40_tower_out_of_town_with_one_action():
    """§13 #40 Tower: an out-of-town foundation costs one action."""
    state = state_of(2, [{"hand": ["Dock", "Bath"], "structures": [done("Tower")]},
                         P1_HOLDS_TWO_BRICK], sites=NO_BRICK_IN_TOWN)
    play(state, "lead Craftsman with Dock", "think: take Jack")
    assert legal(state) == lower_set(["craftsman: lay Bath out of town",
                                      "craftsman: skip"])
    play(state, "craftsman: lay Bath out of town")
    assert turn_over(state)
    assert structure(state, 0, "Bath")["out_of_town"] is True
    assert state.to_dict()["sites"]["out_of_town"]["Brick"] == 3


def test_40_tower_out_of_town_keeps_the_second_action():
    """§13 #40 Tower: the client's action is not consumed by the foundation."""
    state = state_of(2, [{"hand": ["Dock", "Bath", "Atrium"], "clientele": ["Market"],
                          "structures": [done("Tower")]},
                         P1_HOLDS_TWO_BRICK], sites=NO_BRICK_IN_TOWN)
    play(state, "lead Craftsman with Dock", "think: take Jack",
         "craftsman: lay Bath out of town")
    assert state.current_player() == 0
    play(state, "craftsman: add Atrium to Bath")
    assert turn_over(state)
    assert structure(state, 0, "Bath")["materials"] == ["Atrium"]


# --------------------------------------------------------------------------- #37 Statue


def test_37_statue_on_a_rubble_site_built_and_scored():
    """§13 #37 Statue: founded on any site (Rubble: cost 1, +1 influence), +3 VP."""
    state = state_of(2, [{"hand": ["Dock", "Statue", "Bar"], "clientele": ["Market"]},
                         {"hand": ["Road"]}])
    play(state, "lead Craftsman with Dock", "think: take Jack",
         "craftsman: lay Statue on Rubble")
    s = structure(state, 0, "Statue")
    assert s["site"] == "Rubble" and s["complete"] is False
    play(state, "craftsman: add Bar to Statue")
    assert turn_over(state)
    assert structure(state, 0, "Statue")["complete"] is True
    assert state.influence(0) == 3
    b = state.score_breakdown(0)
    assert b["statue"] == 3
    assert b["total"] == 6


def test_37_statue_marble_material_on_a_rubble_site_A9():
    """§13 #37 Statue, A9: Marble is also legal on a non-Marble site."""
    state = state_of(2, [{"hand": ["Dock", "Temple"],
                          "structures": [foundation("Statue", site="Rubble")]},
                         {"hand": ["Road"]}])
    play(state, "lead Craftsman with Dock", "think: take Jack",
         "craftsman: add Temple to Statue")
    assert structure(state, 0, "Statue")["complete"] is True
    assert state.influence(0) == 3
    assert state.score_breakdown(0)["statue"] == 3


def test_37_statue_concrete_site_needs_two():
    """§13 #37 Statue: cost = that site's value (Concrete: 2)."""
    state = state_of(2, [{"hand": ["Dock", "Tower", "Wall"], "clientele": ["Market"],
                          "structures": [foundation("Statue", site="Concrete")]},
                         {"hand": ["Road"]}])
    play(state, "lead Craftsman with Dock", "think: take Jack",
         "craftsman: add Tower to Statue")
    assert structure(state, 0, "Statue")["complete"] is False
    play(state, "craftsman: add Wall to Statue")
    assert structure(state, 0, "Statue")["complete"] is True
    assert state.influence(0) == 4


# --------------------------------------------------------------------------- extra combinations


def test_8_6_bath_applies_to_a_bar_hire():
    """§13 #8 Bath + #6 Bar: "each card hired (any source)" -- the top-of-deck hire
    performs its Laborer action."""
    d = position(2, [{"hand": ["Temple"], "structures": [done("Bath"), done("Bar")]},
                     {"hand": ["Dock"]}], pool=["Insula"], deck_top=["Road"], deck_size=10)
    state = from_dict(d)
    play(state, "lead Patron with Temple", "think: take Jack", "patron: hire top of deck")
    assert legal(state) == lower_set(["laborer: take Insula from pool", "laborer: skip"])
    play(state, "laborer: take Insula from pool")
    assert turn_over(state)          # the pool is now empty: nothing more to hire
    assert clients(state, 0) == ["Road"]
    assert stock(state, 0) == ["Insula"]


def test_16_domus_aurea_torn_down_catacomb_is_no_completion():
    """§13 #16 Domus Aurea: "not a completion" -- taking an empty Catacomb's Stone site
    into influence does not end the game."""
    state = state_of(2, [
        {"hand": ["Shrine", "Villa"], "structures": [done("Domus Aurea")]},
        {"hand": ["Dock"], "structures": [foundation("Catacomb")]},
    ])
    play(state, "lead Legionary with Shrine", "think: take Jack",
         "legionary: reveal Villa")
    use_extras(state, 1)
    assert not state.is_terminal()
    assert turn_over(state)
    assert stock(state, 0) == ["Catacomb"]
    assert state.influence(0) == 8
    assert names(state, 1) == []


def test_8_3_bath_applies_to_an_aqueduct_hire():
    """§13 #8 Bath + #3 Aqueduct, R-8.1.5: the card hired from hand acts at once,
    "fully resolved before the next hire"."""
    state = state_of(2, [{"hand": ["Temple", "Road"],
                          "structures": [done("Bath"), done("Aqueduct")]},
                         {"hand": ["Dock"]}], pool=["Insula", "Latrine"])
    play(state, "lead Patron with Temple", "think: take Jack", "patron: hire Road from hand")
    assert legal(state) == lower_set(["laborer: take Insula from pool",
                                      "laborer: take Latrine from pool", "laborer: skip"])


def test_8_6_bath_pool_hire_acts_before_the_bar_hire():
    """§13 #8 Bath, R-8.1.5: the pool hire's action is resolved before the Bar hire is
    offered; the hired Laborer may take the card the Bar hire would not need."""
    d = position(2, [{"hand": ["Temple"], "structures": [done("Bath"), done("Bar")]},
                     {"hand": ["Dock"]}], pool=["Insula", "Latrine"], deck_top=["Road"],
                 deck_size=10)
    state = from_dict(d)
    play(state, "lead Patron with Temple", "think: take Jack",
         "patron: hire Insula from pool")
    assert legal(state) == lower_set(["laborer: take Latrine from pool", "laborer: skip"])
    play(state, "laborer: take Latrine from pool")
    assert legal(state) == lower_set(["patron: hire top of deck", "patron: done"])


def test_9_R_8_5_7_the_legionary_may_spare_a_victim_the_extra():
    """R-8.5.7: the extras are the legionary's choice: sparing the victim leaves its
    stockpile alone (the hand demand is still mandatory)."""
    state = state_of(2, [
        {"hand": ["Foundry", "Tower"], "structures": [done("Bridge")]},
        {"hand": ["Aqueduct"], "stockpile": ["Storeroom"]},
    ])
    play(state, "lead Legionary with Foundry", "think: take Jack",
         "legionary: reveal Tower")
    assert legal(state) == lower_set(["legionary: use Bridge on P1",
                                      "legionary: spare P1 (Bridge)"])
    play(state, "legionary: spare P1 (Bridge)")
    assert turn_over(state)
    assert stock(state, 0) == ["Aqueduct"]
    assert stock(state, 1) == ["Storeroom"]
