"""End-of-turn functions (docs/rules.md §13 timing ET, R-6.5): Senate (Imperium), Sewer,
Academy."""

from support.positions import (
    add_units,
    camp,
    done,
    foundation,
    from_dict,
    hand,
    jack_pile,
    legal,
    lower_set,
    play,
    play_picks,
    pool,
    position,
    state_of,
    stock,
    structure,
    turn_over,
)

# --------------------------------------------------------------------------- #33 Senate


def test_33_senate_takes_jacks_an_opponent_played():
    """§13 #33 Senate (Imperium): at the end of the turn the owner may take the Jack
    the follower played (it does not return to the Jack pile)."""
    state = state_of(2, [{"hand": ["Temple"], "structures": [done("Senate")]},
                         {"hand": ["Jack"]}], mode="imperium")
    assert jack_pile(state) == 5
    play(state, "lead Patron with Temple", "follow Patron with Jack")
    assert state.current_player() == 0
    assert legal(state) == lower_set(["senate: take Jacks", "senate: skip"])
    play(state, "senate: take Jacks")
    assert turn_over(state)
    assert hand(state, 0) == ["Jack"]
    assert hand(state, 1) == []
    assert jack_pile(state) == 5
    assert pool(state) == ["Temple"]


def test_33_senate_skip_returns_the_jack_to_the_pile():
    state = state_of(2, [{"hand": ["Temple"], "structures": [done("Senate")]},
                         {"hand": ["Jack"]}], mode="imperium")
    play(state, "lead Patron with Temple", "follow Patron with Jack", "senate: skip")
    assert turn_over(state)
    assert hand(state, 0) == []
    assert jack_pile(state) == 6


def test_33_senate_not_for_own_jacks():
    """§13 #33 Senate: only Jacks *opponents* played -> nothing to ask."""
    state = state_of(2, [{"hand": ["Jack"], "structures": [done("Senate")]},
                         {"hand": ["Temple"]}], mode="imperium")
    play(state, "lead Patron with Jack", "follow Patron with Temple")
    assert turn_over(state)
    assert jack_pile(state) == 6
    assert hand(state, 0) == []


def senate3():
    return state_of(3, [
        {"hand": ["Jack"]},
        {"hand": ["Jack"], "structures": [done("Senate")]},
        {"hand": ["Jack"], "structures": [done("Senate")]},
    ], mode="imperium")


def test_33_several_senates_turn_order_from_leader_A21():
    """§13 #33, A21: players 1 and 2 own Senates, all three played a Jack. Player 1
    (first after the leader) takes the Jacks of players 0 and 2; player 2 then takes
    player 1's Jack."""
    state = senate3()
    play(state, "lead Patron with Jack", "follow Patron with Jack",
         "follow Patron with Jack")
    assert state.current_player() == 1
    play(state, "senate: take Jacks")
    assert hand(state, 1) == ["Jack", "Jack"]
    assert state.current_player() == 2
    assert legal(state) == lower_set(["senate: take Jacks", "senate: skip"])
    play(state, "senate: take Jacks")
    assert turn_over(state)
    assert hand(state, 2) == ["Jack"]
    assert hand(state, 0) == []
    assert jack_pile(state) == 3


def test_33_several_senates_second_claimant_after_a_skip_A21():
    state = senate3()
    play(state, "lead Patron with Jack", "follow Patron with Jack",
         "follow Patron with Jack", "senate: skip", "senate: take Jacks")
    assert turn_over(state)
    assert hand(state, 2) == ["Jack", "Jack"]
    assert hand(state, 1) == []
    assert jack_pile(state) == 4


# --------------------------------------------------------------------------- #34 Sewer


def test_34_sewer_moves_a_subset_of_own_camp_orders():
    """§13 #34 Sewer: the owner's petition cards may go to the stockpile (any subset);
    the follower's card goes to the pool."""
    state = state_of(2, [{"hand": ["Bar", "Road"], "structures": [done("Sewer")]},
                         {"hand": ["Insula"]}])
    play(state, "lead Laborer by petition of Laborer")
    play_picks(state, "petition:", ["Bar", "Road"])
    play(state, "follow Laborer with Insula")
    # the pool is empty: both Laborer actions are skipped; end of turn
    assert state.current_player() == 0
    assert legal(state) == lower_set(["sewer: move Bar to stockpile",
                                      "sewer: move Road to stockpile", "sewer: done"])
    play(state, "sewer: move Bar to stockpile")
    assert legal(state) == lower_set(["sewer: move Road to stockpile", "sewer: done"])
    play(state, "sewer: done")
    assert turn_over(state)
    assert stock(state, 0) == ["Bar"]
    assert pool(state) == ["Insula", "Road"]
    assert camp(state, 0) == []


def test_34_sewer_all_cards():
    state = state_of(2, [{"hand": ["Bar", "Road"], "structures": [done("Sewer")]},
                         {"hand": ["Insula"]}])
    play(state, "lead Laborer by petition of Laborer")
    play_picks(state, "petition:", ["Bar", "Road"])
    play(state, "think: take Jack", "sewer: move Bar to stockpile",
         "sewer: move Road to stockpile")
    assert turn_over(state)
    assert stock(state, 0) == ["Bar", "Road"]
    assert pool(state) == []


def test_34_sewer_never_jacks():
    """§13 #34 Sewer: "Jacks never" -- with Palace, Bar and a Jack on the camp: only
    Bar may move; the Jack returns to the pile."""
    state = state_of(2, [{"hand": ["Bar", "Jack"],
                          "structures": [done("Sewer"), done("Palace")]},
                         {"hand": ["Insula"]}])
    add_units(state, "lead", "Laborer", ["Bar", "Jack"])
    play(state, "think: take Jack")
    assert legal(state) == lower_set(["sewer: move Bar to stockpile", "sewer: done"])
    play(state, "sewer: move Bar to stockpile")
    assert turn_over(state)
    assert stock(state, 0) == ["Bar"]
    assert jack_pile(state) == 5       # P1 took one; P0's Jack is back
    assert hand(state, 0) == []


# --------------------------------------------------------------------------- #1 Academy


def academy_state(hand_cards=("Dock", "Bar", "Road"), clientele=("Market",),
                  extra=(), deck_top=("Temple", "Villa", "Palace", "Garden", "Prison")):
    d = position(2, [{"hand": list(hand_cards), "clientele": list(clientele),
                      "structures": [done("Academy")] + list(extra)},
                     {"hand": ["Crane"]}], deck_top=list(deck_top), deck_size=20)
    state = from_dict(d)
    play(state, "lead Craftsman with Dock", "think: take Jack")
    return state


def test_1_academy_one_think_after_craftsman_actions():
    """§13 #1 Academy: two Craftsman actions performed -> one Thinker action, after the
    camp cards went to the pool (R-6.5 c, d)."""
    state = academy_state()
    play(state, "craftsman: lay Bar", "craftsman: add Road to Bar")
    assert state.current_player() == 0
    assert legal(state) == lower_set(["think: take Jack", "think: refill", "think: skip"])
    assert pool(state) == ["Dock"]
    play(state, "think: refill")
    assert turn_over(state)
    assert hand(state, 0) == sorted(["Temple", "Villa", "Palace", "Garden", "Prison"])


def test_1_academy_nothing_without_a_craftsman_action():
    """§13 #1 Academy: skipped Craftsman actions do not count (R-8.4.3)."""
    state = academy_state()
    play(state, "craftsman: skip", "craftsman: skip")
    assert turn_over(state)
    assert hand(state, 0) == ["Bar", "Road"]


def test_1_academy_think_may_be_declined():
    state = academy_state()
    play(state, "craftsman: lay Bar", "craftsman: skip", "think: skip")
    assert turn_over(state)
    assert hand(state, 0) == ["Road"]


def test_1_20_academy_counts_a_fountain_action_A24():
    """§13 #1 Academy + #20 Fountain, A24: a Craftsman action using the Fountain card
    counts."""
    state = academy_state(hand_cards=("Dock",), clientele=(), extra=[done("Fountain")],
                          deck_top=("Road", "Temple", "Villa"))
    play(state, "craftsman: draw from deck (Fountain)", "fountain: lay Road")
    assert legal(state) == lower_set(["think: take Jack", "think: refill", "think: skip"])


def test_1_20_academy_fountain_keep_does_not_count():
    state = academy_state(hand_cards=("Dock",), clientele=(), extra=[done("Fountain")],
                          deck_top=("Road", "Temple", "Villa"))
    play(state, "craftsman: draw from deck (Fountain)", "fountain: keep Road")
    assert turn_over(state)
    assert hand(state, 0) == ["Road"]


def test_1_academy_for_a_thinker_whose_client_built():
    """§13 #1 Academy: "any source" -- player 1 thought, its Craftsman client laid a
    foundation -> player 1 may think at the end of the turn."""
    state = state_of(2, [{"hand": ["Dock"]},
                         {"hand": ["Bar"], "clientele": ["Market"],
                          "structures": [done("Academy")]}])
    play(state, "lead Craftsman with Dock", "think: take Jack")
    assert state.current_player() == 1
    play(state, "craftsman: lay Bar")
    assert state.current_player() == 1
    assert legal(state) == lower_set(["think: take Jack", "think: refill", "think: skip"])
    play(state, "think: take Jack")
    assert turn_over(state)
    assert hand(state, 1) == ["Jack", "Jack"]
    assert structure(state, 1, "Bar") is not None


def test_1_two_academies_in_turn_order_from_the_leader():
    """§13 #1 Academy, R-6.5(d): both players built -> the leader thinks first."""
    state = state_of(2, [{"hand": ["Dock", "Bar"], "structures": [done("Academy")]},
                         {"hand": ["Market", "Road"], "structures": [done("Academy")]}])
    play(state, "lead Craftsman with Dock", "follow Craftsman with Market",
         "craftsman: lay Bar", "craftsman: lay Road")
    assert state.current_player() == 0
    play(state, "think: take Jack")
    assert state.current_player() == 1
    assert legal(state) == lower_set(["think: take Jack", "think: refill", "think: skip"])
    play(state, "think: take Jack")
    assert turn_over(state)
    assert hand(state, 0) == ["Jack"] and hand(state, 1) == ["Jack"]
    assert jack_pile(state) == 4


def test_1_2_academy_counts_granted_craftsman_actions():
    """§13 #1 Academy: "any source" -- a Craftsman action granted by Amphitheatre (#2)
    in an Architect turn counts."""
    state = state_of(2, [{"hand": ["Jack", "Bar"], "stockpile": ["Tower"],
                          "structures": [done("Academy"), foundation("Amphitheatre", ["Wall"])]},
                         {"hand": ["Crane"]}])
    play(state, "lead Architect with Jack", "think: take Jack",
         "architect: add Tower to Amphitheatre", "craftsman: lay Bar")
    assert state.current_player() == 0
    assert legal(state) == lower_set(["think: take Jack", "think: refill", "think: skip"])
