"""Gate (§13 #22) and Stairway (§13 #36): functions active without a complete own
structure (R-10.6), ruling A10, A30."""

from support.positions import (
    assert_legal,
    done,
    foundation,
    from_dict,
    hand,
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
)

# --------------------------------------------------------------------------- #22 Gate


def test_22_gate_incomplete_marble_structure_is_active_without_influence():
    """§13 #22 Gate: an incomplete Temple works (refill 9) but gives no influence."""
    state = state_of(2, [{"structures": [done("Gate"), foundation("Temple")]}, {}])
    assert state.is_active(0, "Temple")
    assert state.refill_size(0) == 9
    assert state.influence(0) == 4


def test_22_without_gate_incomplete_marble_is_inactive():
    state = state_of(2, [{"structures": [foundation("Temple", ["Palace", "Palace"])]}, {}])
    assert not state.is_active(0, "Temple")
    assert state.refill_size(0) == 5


def test_22_gate_only_marble_structures():
    """§13 #22 Gate: an incomplete Brick Shrine stays inactive."""
    state = state_of(2, [{"structures": [done("Gate"), foundation("Shrine")]}, {}])
    assert not state.is_active(0, "Shrine")
    assert state.refill_size(0) == 5


def test_22_gate_only_for_its_owner():
    """§13 #22 Gate: "Your Marble structures" -- the opponent's incomplete Temple is
    not active."""
    state = state_of(2, [{"structures": [done("Gate")]},
                         {"structures": [foundation("Temple")]}])
    assert not state.is_active(1, "Temple")
    assert state.refill_size(1) == 5


def test_22_25_gate_foundation_active_at_once_for_later_clients():
    """§13 #22 Gate + #25 Ludus Magnus, R-6.3/R-14.1: the camp action lays Ludus
    Magnus (active at once through Gate); the Merchant client reached later now counts
    as a Craftsman: camp + Market client + Villa client = 3 actions."""
    state = state_of(2, [{"hand": ["Dock", "Ludus Magnus", "Bar", "Road"],
                          "clientele": ["Market", "Villa"],
                          "structures": [done("Gate")]},
                         {"hand": ["Crane"]}])
    play(state, "lead Craftsman with Dock", "think: take Jack",
         "craftsman: lay Ludus Magnus")
    assert state.is_active(0, "Ludus Magnus")
    assert state.influence(0) == 4
    play(state, "craftsman: lay Bar", "craftsman: add Road to Bar")
    assert turn_over(state)
    assert structure(state, 0, "Bar")["complete"] is True


def test_22_25_without_gate_the_new_foundation_does_nothing():
    state = state_of(2, [{"hand": ["Dock", "Ludus Magnus", "Bar", "Road"],
                          "clientele": ["Market", "Villa"]},
                         {"hand": ["Crane"]}])
    play(state, "lead Craftsman with Dock", "think: take Jack",
         "craftsman: lay Ludus Magnus", "craftsman: lay Bar")
    assert turn_over(state)
    assert hand(state, 0) == ["Road"]


def test_22_20_gate_fountain_foundation_usable_by_the_next_action():
    """§13 #22 Gate + #20 Fountain: lay Fountain, then the client's Craftsman action may
    use the top deck card."""
    d = position(2, [{"hand": ["Dock", "Fountain", "Bar"], "clientele": ["Market"],
                      "structures": [done("Gate")]},
                     {"hand": ["Crane"]}], deck_top=["Road"], deck_size=10)
    state = from_dict(d)
    play(state, "lead Craftsman with Dock", "think: take Jack", "craftsman: lay Fountain")
    assert_legal(state, "craftsman: draw from deck (Fountain)")
    play(state, "craftsman: draw from deck (Fountain)", "fountain: lay Road")
    assert turn_over(state)
    assert names(state, 0) == ["Fountain", "Gate", "Road"]


def test_22_17_gate_incomplete_forum_wins():
    """§13 #22 Gate: "incomplete Forum can win" (Imperium)."""
    state = state_of(2, [
        {"hand": ["Basilica"], "clientele": ["Temple", "Bar", "Dock", "Tower", "Shrine"],
         "structures": [done("Gate"), done("Insula"), foundation("Forum", ["Palace"])]},
        {"hand": ["Road"]},
    ], mode="imperium", pool=["Villa"])
    assert not state.is_terminal()
    play(state, "lead Patron with Basilica", "think: take Jack",
         "patron: hire Villa from pool")
    assert state.is_terminal()
    assert state.end_reason() == "forum"
    assert state.winners() == [0]


def test_22_37_gate_incomplete_statue_scores_three():
    """§13 #22 Gate + #37 Statue: an incomplete Statue still gives +3 VP; its site gives
    no influence."""
    state = state_of(2, [{"structures": [done("Gate"), foundation("Statue", site="Stone")]}, {}])
    b = state.score_breakdown(0)
    assert b["statue"] == 3
    assert b["influence"] == 4
    assert b["total"] == 7


def test_22_gate_marble_completion_adds_influence_later():
    state = state_of(2, [{"hand": ["Dock", "Palace"],
                          "structures": [done("Gate"), foundation("Temple", ["Statue", "Statue"])]},
                         {"hand": ["Crane"]}])
    assert state.influence(0) == 4
    play(state, "lead Craftsman with Dock", "think: take Jack",
         "craftsman: add Palace to Temple")
    assert state.influence(0) == 7


# --------------------------------------------------------------------------- #36 Stairway


def stairway_state(p0_structures=(), p1_structures=None, stockpile=("Dock",),
                   pool_cards=(), p0_hand=("Jack",)):
    state = state_of(2, [
        {"hand": list(p0_hand), "stockpile": list(stockpile),
         "structures": [done("Stairway")] + list(p0_structures)},
        {"hand": ["Crane"],
         "structures": list(p1_structures if p1_structures is not None
                            else [done("Market")])},
    ], pool=list(pool_cards))
    play(state, "lead Architect with Jack", "think: take Jack")
    return state


def test_36_stairway_makes_a_function_public_without_stacking():
    """§13 #36 Stairway, R-10.6: a Wood material on the opponent's completed Market;
    the Market then works for me (vault limit 5 + 2) and does not stack for its owner
    (3 + 2)."""
    state = stairway_state()
    assert state.vault_limit(0) == 5 and state.vault_limit(1) == 5
    assert_legal(state, "stairway: add Dock to Market of P1", "stairway: skip")
    assert not any(s.startswith("architect:") and s != "architect: skip"
                   for s in legal(state))
    play(state, "stairway: add Dock to Market of P1")
    assert turn_over(state)
    assert structure(state, 1, "Market")["stairway"] == "Dock"
    assert stock(state, 0) == []
    assert state.is_active(0, "Market") and state.is_active(1, "Market")
    assert state.vault_limit(0) == 7
    assert state.vault_limit(1) == 5


def test_36_stairway_material_must_be_legal_A10():
    """§13 #36, A10: a Rubble card is no material for a Market -> nothing to do."""
    state = stairway_state(stockpile=("Bar",))
    assert turn_over(state)
    assert stock(state, 0) == ["Bar"]


def test_36_40_stairway_material_legal_through_own_tower_A10():
    """A10: the Stairway user's Tower makes Rubble legal for any structure."""
    state = stairway_state(p0_structures=[done("Tower")], stockpile=("Bar",))
    assert_legal(state, "stairway: add Bar to Market of P1")


def test_36_stairway_only_once_per_structure_A10():
    state = stairway_state(p1_structures=[done("Market", stairway="Palisade")])
    assert turn_over(state)
    assert stock(state, 0) == ["Dock"]


def test_36_stairway_only_on_opponents_completed_structures():
    """Own completed structures and the opponent's incomplete ones are no targets."""
    state = stairway_state(p0_structures=[done("Market")],
                           p1_structures=[foundation("Palisade")])
    assert turn_over(state)
    assert stock(state, 0) == ["Dock"]


def test_36_stairway_after_the_main_part():
    """R-8.3.4: the main part (completing Storeroom) first, then the Stairway part."""
    state = stairway_state(p0_structures=[foundation("Storeroom", ["Wall"])],
                           stockpile=("Tower", "Dock"))
    play(state, "architect: add Tower to Storeroom")
    assert structure(state, 0, "Storeroom")["complete"] is True
    assert legal(state) == lower_set(["stairway: add Dock to Market of P1",
                                      "stairway: skip"])
    play(state, "stairway: add Dock to Market of P1")
    assert turn_over(state)
    assert state.influence(0) == 2 + 3 + 2


def test_36_stairway_completed_by_the_same_action_R_14_1():
    """R-8.3.4/R-14.1: completing the Stairway itself lets the same action use it."""
    state = state_of(2, [
        {"hand": ["Jack"], "stockpile": ["Palace", "Dock"],
         "structures": [foundation("Stairway", ["Temple", "Temple"])]},
        {"hand": ["Crane"], "structures": [done("Market")]},
    ])
    play(state, "lead Architect with Jack", "think: take Jack",
         "architect: add Palace to Stairway")
    assert structure(state, 0, "Stairway")["complete"] is True
    assert_legal(state, "stairway: add Dock to Market of P1")
    play(state, "stairway: add Dock to Market of P1")
    assert turn_over(state)
    assert structure(state, 1, "Market")["stairway"] == "Dock"


def test_36_4_stairway_material_from_the_pool_with_archway():
    """§13 #4 Archway: "also usable for the Stairway material"."""
    state = stairway_state(p0_structures=[done("Archway")], stockpile=(),
                           pool_cards=("Dock",))
    assert_legal(state, "stairway: add Dock from pool to Market of P1")
    play(state, "stairway: add Dock from pool to Market of P1")
    assert turn_over(state)
    assert structure(state, 1, "Market")["stairway"] == "Dock"
    assert pool(state) == []


def test_36_stairway_skip():
    state = stairway_state()
    play(state, "stairway: skip")
    assert turn_over(state)
    assert stock(state, 0) == ["Dock"]
    assert not state.is_active(0, "Market")


def test_36_4_stairwayed_archway_works_for_everyone():
    """R-10.6: an opponent's Stairwayed Archway lets me take the material from the pool."""
    state = state_of(2, [{"hand": ["Jack"], "structures": [foundation("Storeroom")]},
                         {"hand": ["Crane"], "structures": [done("Archway", stairway="Bath")]}],
                     pool=["Tower"])
    assert state.is_active(0, "Archway")
    play(state, "lead Architect with Jack", "think: take Jack",
         "architect: add Tower from pool to Storeroom")
    assert structure(state, 0, "Storeroom")["materials"] == ["Tower"]


def test_36_22_stairwayed_gate_A30():
    """A30: a Stairwayed Gate makes every player's incomplete Marble structures active
    for their owners."""
    state = state_of(2, [{"structures": [foundation("Temple")]},
                         {"structures": [done("Gate", stairway="Academy")]}])
    assert state.is_active(0, "Temple")
    assert state.refill_size(0) == 9


def test_36_23_no_stacking_of_own_and_stairwayed_insula():
    """R-10.6: the opponent's Stairwayed Insula gives +2 to a player without one; a
    player owning an Insula too still gets +2 only."""
    state = state_of(2, [{}, {"structures": [done("Insula", stairway="Bar")]}])
    assert state.clientele_limit(0) == 2 + 2
    assert state.clientele_limit(1) == 3 + 2
    state = state_of(2, [{"structures": [done("Insula")]},
                         {"structures": [done("Insula", stairway="Bar")]}])
    assert state.clientele_limit(0) == 3 + 2


def test_36_10_stairwaying_a_catacomb_does_nothing():
    """§13 #10 Catacomb: "Stairwaying it does nothing" -- the game goes on."""
    state = stairway_state(p1_structures=[done("Catacomb")], stockpile=("Villa",))
    play(state, "stairway: add Villa to Catacomb of P1")
    assert not state.is_terminal()
    assert turn_over(state)
    assert structure(state, 1, "Catacomb")["stairway"] == "Villa"


def test_22_36_gate_incomplete_stairway_usable():
    """§13 #22 Gate + #36 Stairway: an incomplete Stairway works through Gate."""
    state = state_of(2, [{"hand": ["Jack"], "stockpile": ["Dock"],
                          "structures": [done("Gate"), foundation("Stairway")]},
                         {"hand": ["Crane"], "structures": [done("Market")]}])
    play(state, "lead Architect with Jack", "think: take Jack")
    assert_legal(state, "stairway: add Dock to Market of P1")


def test_36_44_stairwayed_wall_scores_for_everyone():
    """R-10.6 + R-12.1: an opponent's Stairwayed Wall is active for me -> my stockpile
    pairs score (and the owner's too)."""
    state = state_of(2, [{"stockpile": ["Bar", "Road", "Dock", "Market"]},
                         {"stockpile": ["Insula", "Latrine"],
                          "structures": [done("Wall", stairway="Tower")]}])
    assert state.is_active(0, "Wall")
    assert state.score_breakdown(0)["wall"] == 2
    assert state.score_breakdown(1)["wall"] == 1


def test_36_37_stairwayed_statue_scores_for_everyone_once():
    """R-10.6 + R-12.1: "+3 if Statue active" -- a Stairwayed Statue gives every player
    +3, its owner still +3 only."""
    state = state_of(2, [{}, {"structures": [done("Statue", stairway="Temple")]}])
    assert state.score_breakdown(0)["statue"] == 3
    assert state.score_breakdown(1)["statue"] == 3
    assert state.scores() == [5, 8]
