"""Upon-completion functions (docs/rules.md §13 timing UC, R-9.3.2, §16 A11/A18): Amphitheatre,
Foundry, Garden, School, Prison, Catacomb."""

import glory_ai
from support.positions import (
    assert_legal,
    clients,
    deck,
    done,
    foundation,
    from_dict,
    hand,
    infl_sites,
    jack_pile,
    legal,
    lower_set,
    names,
    play,
    pool,
    position,
    state_of,
    stock,
    strings_with,
    structure,
    turn_over,
)

NO_BRICK_IN_TOWN = {"in_town": {"Brick": 0}, "out_of_town": {"Brick": 4}}
P1_HOLDS_TWO_BRICK = {"hand": ["Latrine"],
                      "structures": [foundation("Academy"), foundation("Archway")]}


# --------------------------------------------------------------------------- #2 Amphitheatre


def amphitheatre_state(hand_cards, clientele=("Aqueduct",), p1=None, **kw):
    """Player 0 completes Amphitheatre (Concrete, 1 of 2 materials) with the camp
    Architect action; influence after completion 4 -> 4 Craftsman actions."""
    state = state_of(2, [
        {"hand": ["Jack"] + list(hand_cards), "clientele": list(clientele),
         "stockpile": ["Tower"], "structures": [foundation("Amphitheatre", ["Wall"])]},
        p1 or {"hand": ["Crane"]},
    ], **kw)
    play(state, "lead Architect with Jack", "think: take Jack",
         "architect: add Tower to Amphitheatre")
    assert structure(state, 0, "Amphitheatre")["complete"] is True
    assert state.influence(0) == 4
    return state


def test_2_amphitheatre_grants_influence_craftsman_actions_first():
    """§13 #2 Amphitheatre: up to influence (4, counted after completion) Craftsman
    actions, performed before the player's remaining (client) Architect action."""
    state = amphitheatre_state(["Bar", "Road", "Dock", "Market", "Temple"])
    assert strings_with(state, "craftsman:") == legal(state)
    play(state, "craftsman: lay Bar", "craftsman: add Road to Bar",
         "craftsman: lay Dock", "craftsman: add Market to Dock")
    # the four grants are used up (the Bar/Dock completions add influence, not grants)
    assert legal(state) == lower_set(["architect: lay Temple", "architect: skip"])
    play(state, "architect: lay Temple")
    assert turn_over(state)
    assert state.influence(0) == 6
    assert names(state, 0) == ["Amphitheatre", "Bar", "Dock", "Temple"]


def test_2_amphitheatre_grants_pair_for_out_of_town():
    """§13 #2 Amphitheatre: two granted Craftsman actions found out of town."""
    state = amphitheatre_state(["Bath"], clientele=(), p1=P1_HOLDS_TWO_BRICK,
                               sites=NO_BRICK_IN_TOWN)
    assert legal(state) == lower_set(["craftsman: lay Bath out of town",
                                      "craftsman: skip"])
    play(state, "craftsman: lay Bath out of town")
    assert turn_over(state)
    assert structure(state, 0, "Bath")["out_of_town"] is True
    assert state.to_dict()["sites"]["out_of_town"]["Brick"] == 3


def test_2_amphitheatre_last_grant_never_pairs_with_an_architect_action():
    """R-9.3.2: a granted Craftsman action never pairs with an Architect action."""
    state = amphitheatre_state(["Bath", "Road"], p1=P1_HOLDS_TWO_BRICK,
                               sites=NO_BRICK_IN_TOWN)
    for _ in range(3):
        assert_legal(state, "craftsman: lay Bath out of town")
        play(state, "craftsman: skip")
    # the fourth (last) grant is alone among Craftsman actions
    assert legal(state) == lower_set(["craftsman: lay Road", "craftsman: skip"])
    play(state, "craftsman: skip")
    # the Architect client: Bath out of town needs two Architect actions
    assert legal(state) == lower_set(["architect: lay Road", "architect: skip"])
    play(state, "architect: skip")
    assert turn_over(state)


def test_2_incomplete_amphitheatre_grants_nothing():
    state = state_of(2, [{"hand": ["Jack", "Bar"], "stockpile": ["Tower"],
                          "structures": [foundation("Amphitheatre")]},
                         {"hand": ["Crane"]}])
    play(state, "lead Architect with Jack", "think: take Jack",
         "architect: add Tower to Amphitheatre")
    assert turn_over(state)
    assert hand(state, 0) == ["Bar"]


# --------------------------------------------------------------------------- #19 Foundry


def test_19_foundry_grants_influence_laborer_actions():
    """§13 #19 Foundry: completed by a Craftsman action, influence 4 -> 4 Laborer
    actions (the pool holds 5 cards)."""
    state = state_of(2, [{"hand": ["Dock", "School"],
                          "structures": [foundation("Foundry", ["Academy"])]},
                         {"hand": ["Crane"]}],
                     pool=["Bar", "Garden", "Insula", "Road", "Temple"])
    play(state, "lead Craftsman with Dock", "think: take Jack",
         "craftsman: add School to Foundry")
    assert state.influence(0) == 4
    assert strings_with(state, "laborer:") == legal(state)
    for c in ["Bar", "Garden", "Insula", "Road"]:
        play(state, f"laborer: take {c} from pool")
    assert turn_over(state)
    assert stock(state, 0) == ["Bar", "Garden", "Insula", "Road"]
    assert pool(state) == ["Dock", "Temple"]


# --------------------------------------------------------------------------- #21 Garden


def test_21_garden_grants_full_patron_actions():
    """§13 #21 Garden: influence 6 (Bar + Garden) -> 6 Patron actions, each a full
    Patron action: Bar's top-of-deck hire applies."""
    d = position(2, [{"hand": ["Dock", "Villa"],
                      "structures": [done("Bar"), foundation("Garden", ["Prison", "Sewer"])]},
                     {"hand": ["Crane"]}],
                 pool=["Road"], deck_top=["Insula", "Latrine"], deck_size=20)
    state = from_dict(d)
    play(state, "lead Craftsman with Dock", "think: take Jack",
         "craftsman: add Villa to Garden")
    assert state.influence(0) == 6
    assert legal(state) == lower_set(["patron: hire Road from pool",
                                      "patron: hire top of deck", "patron: skip"])
    play(state, "patron: hire Road from pool", "patron: hire top of deck")
    assert legal(state) == lower_set(["patron: hire top of deck", "patron: skip"])
    play(state, "patron: hire top of deck")
    for _ in range(4):                       # grants 3 .. 6
        play(state, "patron: skip")
    assert turn_over(state)
    assert clients(state, 0) == ["Insula", "Latrine", "Road"]
    assert len(deck(state)) == 18


def test_21_8_garden_patron_grant_with_bath():
    """§13 #21 Garden + #8 Bath: a granted Patron hire performs its Bath action."""
    state = state_of(2, [{"hand": ["Dock", "Villa"],
                          "structures": [done("Bath"), foundation("Garden", ["Prison", "Sewer"])]},
                         {"hand": ["Crane"]}], pool=["Road", "Temple"])
    play(state, "lead Craftsman with Dock", "think: take Jack",
         "craftsman: add Villa to Garden", "patron: hire Road from pool")
    assert legal(state) == lower_set(["laborer: take Temple from pool", "laborer: skip"])
    play(state, "laborer: take Temple from pool")
    assert turn_over(state)          # the other six grants have nothing to hire
    assert stock(state, 0) == ["Temple"]
    assert clients(state, 0) == ["Road"]


# --------------------------------------------------------------------------- #31 School


def test_31_school_grants_influence_thinker_actions():
    """§13 #31 School: influence 4 -> 4 Thinker actions (each optional, each §7)."""
    top = ["Temple", "Villa", "Palace", "Garden", "Prison", "Sewer", "Road"]
    d = position(2, [{"hand": ["Dock", "Bath"], "structures": [foundation("School", ["Academy"])]},
                     {"hand": ["Crane"]}], deck_top=top, deck_size=20)
    state = from_dict(d)
    play(state, "lead Craftsman with Dock", "think: take Jack",
         "craftsman: add Bath to School")
    assert state.influence(0) == 4
    assert legal(state) == lower_set(["think: take Jack", "think: refill", "think: skip"])
    play(state, "think: refill")
    assert hand(state, 0) == sorted(top[:5])
    assert legal(state) == lower_set(["think: take Jack", "think: draw 1", "think: skip"])
    play(state, "think: draw 1", "think: take Jack", "think: skip")
    assert turn_over(state)
    assert hand(state, 0) == sorted(top[:6] + ["Jack"])
    assert jack_pile(state) == 4
    assert deck(state)[0] == "Road"


# --------------------------------------------------------------------------- #29 Prison


def prison_state(p0_structures=(), p1_structures=None, num_players=2, others=()):
    players = [{"hand": ["Jack"], "stockpile": ["Villa"],
                "structures": [foundation("Prison", ["Garden", "Sewer"])] + list(p0_structures)},
               {"hand": ["Crane"],
                "structures": list(p1_structures if p1_structures is not None
                                   else [done("Market"), done("Tower")])}]
    players += list(others)
    state = state_of(num_players, players, pool=["Bar", "Road"])
    play(state, "lead Architect with Jack", *["think: take Jack"] * (num_players - 1),
         "architect: add Villa to Prison")
    return state


def test_29_prison_swaps_its_site_for_an_opponents_structure():
    """§13 #29 Prison: the Prison's Stone site goes to the opponent (+3 for them, -3
    for me); I take their Market with its materials; the Market's Wood site stays in
    their influence; the Market works for me at once."""
    state = prison_state()
    assert state.influence(0) == 5
    assert legal(state) == lower_set(["prison: take Market from P1",
                                      "prison: take Tower from P1", "prison: skip"])
    market_before = structure(state, 1, "Market")
    play(state, "prison: take Market from P1")
    assert turn_over(state)
    assert names(state, 0) == ["Market", "Prison"]
    assert names(state, 1) == ["Tower"]
    market = structure(state, 0, "Market")
    assert market["complete"] is True
    assert sorted(market["materials"]) == sorted(market_before["materials"])
    assert state.influence(0) == 2
    assert state.influence(1) == 2 + 1 + 2 + 3
    assert infl_sites(state, 1) == ["Concrete", "Stone", "Wood"]
    assert infl_sites(state, 0) == []
    assert state.is_active(0, "Market") and not state.is_active(1, "Market")
    assert state.vault_limit(0) == 4
    assert state.vault_limit(1) == 8


def test_29_prison_skip_keeps_everything():
    state = prison_state()
    play(state, "prison: skip")
    assert turn_over(state)
    assert state.influence(0) == 5
    assert names(state, 1) == ["Market", "Tower"]


def test_29_prison_cannot_take_a_name_already_owned_A11():
    """§13 #29 Prison, A11: I own a Market -> only the Tower may be taken."""
    state = prison_state(p0_structures=[done("Market")])
    assert legal(state) == lower_set(["prison: take Tower from P1", "prison: skip"])


def test_29_prison_does_not_retrigger_upon_completion_A11():
    """§13 #29 Prison, A11: taking a Foundry grants no Laborer actions."""
    state = prison_state(p1_structures=[done("Foundry")])
    play(state, "prison: take Foundry from P1")
    assert turn_over(state)
    assert names(state, 0) == ["Foundry", "Prison"]
    assert stock(state, 0) == []
    assert pool(state) == ["Bar", "Road"]


def test_29_prison_stairway_material_moves_with_the_structure():
    """§13 #29 Prison: a Stairwayed structure moves with its Stairway material; its
    function stays public."""
    state = prison_state(p1_structures=[done("Market", stairway="Palisade")])
    play(state, "prison: take Market from P1")
    m = structure(state, 0, "Market")
    assert m["stairway"] == "Palisade"
    assert state.is_active(0, "Market") and state.is_active(1, "Market")


def test_29_prison_chooses_among_opponents():
    """§13 #29 Prison: 3 players -- any opponent's completed structure."""
    state = prison_state(num_players=3, p1_structures=[done("Market")],
                         others=[{"hand": ["Road"], "structures": [done("Tower")]}])
    assert legal(state) == lower_set(["prison: take Market from P1",
                                      "prison: take Tower from P2", "prison: skip"])
    play(state, "prison: take Tower from P2")
    assert state.influence(2) == 2 + 2 + 3
    assert state.influence(1) == 3
    assert names(state, 0) == ["Prison", "Tower"]


# --------------------------------------------------------------------------- #10 Catacomb


def test_10_catacomb_completion_ends_the_game():
    """§13 #10 Catacomb: completion ends the game at once (the Architect client's action
    is not performed); the Catacomb's Stone site counts."""
    state = state_of(2, [{"hand": ["Jack", "Temple"], "clientele": ["Tower"],
                          "stockpile": ["Villa"],
                          "structures": [foundation("Catacomb", ["Garden", "Prison"])]},
                         {"hand": ["Crane"]}])
    play(state, "lead Architect with Jack", "think: take Jack",
         "architect: add Villa to Catacomb")
    assert state.is_terminal()
    assert state.current_player() == glory_ai.TERMINAL
    assert state.end_reason() == "catacomb"
    assert hand(state, 0) == ["Temple"]
    assert state.scores() == [5, 2]
    assert state.winners() == [0]


def test_29_4_prison_stolen_archway_works_for_the_next_action():
    """§13 #29 Prison: the stolen structure's function is active for me at once -- the
    Architect client then takes its material from the pool (#4 Archway)."""
    state = state_of(2, [
        {"hand": ["Jack"], "clientele": ["Tower"], "stockpile": ["Villa"],
         "structures": [foundation("Prison", ["Garden", "Sewer"]), foundation("Storeroom")]},
        {"hand": ["Crane"], "structures": [done("Archway")]},
    ], pool=["Wall"])
    play(state, "lead Architect with Jack", "think: take Jack",
         "architect: add Villa to Prison", "prison: take Archway from P1")
    assert_legal(state, "architect: add Wall from pool to Storeroom")
    play(state, "architect: add Wall from pool to Storeroom")
    assert turn_over(state)
    assert structure(state, 0, "Storeroom")["materials"] == ["Wall"]


def test_31_24_school_thinks_use_latrine():
    """§13 #31 School: "each think uses §7" -- the Latrine discard is offered."""
    d = position(2, [{"hand": ["Dock", "Bath", "Road"],
                      "structures": [done("Latrine"), foundation("School", ["Academy"])]},
                     {"hand": ["Crane"]}], deck_top=["Temple", "Villa", "Palace", "Garden",
                                                     "Prison"], deck_size=20)
    state = from_dict(d)
    play(state, "lead Craftsman with Dock", "think: take Jack",
         "craftsman: add Bath to School")
    assert state.influence(0) == 5
    assert "think: discard road (latrine)" in legal(state)
    play(state, "think: discard Road (Latrine)", "think: refill")
    assert hand(state, 0) == ["Garden", "Palace", "Prison", "Temple", "Villa"]
    for _ in range(4):
        play(state, "think: skip")
    assert turn_over(state)
    assert pool(state) == ["Dock", "Road"]


def test_19_15_foundry_grants_are_full_laborer_actions():
    """§13 #19 Foundry + #15 Dock: a granted Laborer action may also move a hand card."""
    state = state_of(2, [{"hand": ["Market", "School", "Temple"],
                          "structures": [done("Dock"), foundation("Foundry", ["Academy"])]},
                         {"hand": ["Crane"]}], pool=["Bar"])
    play(state, "lead Craftsman with Market", "think: take Jack",
         "craftsman: add School to Foundry")
    assert state.influence(0) == 5
    assert legal(state) == lower_set(["laborer: take Bar from pool",
                                      "laborer: move Temple from hand", "laborer: skip"])
