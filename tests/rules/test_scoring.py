"""Scoring: R-12.1 ... R-12.3; scenarios S11 and S12 (docs/rules.md §12, §17)."""

import glory_ai
from support.positions import built, foundation, play, state_of

KEYS = {"influence", "vault", "merchant_bonus", "statue", "wall", "total"}


def breakdown(state, p):
    b = state.score_breakdown(p)
    assert KEYS <= set(b), f"score_breakdown keys: {sorted(b)}"
    return {k: b[k] for k in KEYS}


def test_R_12_1_initial_scores_are_the_base_influence():
    state = glory_ai.Game(4).new_initial_state(seed=11)
    assert state.scores() == [2, 2, 2, 2]
    assert breakdown(state, 0) == {"influence": 2, "vault": 0, "merchant_bonus": 0,
                                   "statue": 0, "wall": 0, "total": 2}


def test_R_12_1_vault_values_and_bonuses():
    """Vault {Bar, Dock, Tower, Bath, Villa, Temple} = 1+1+2+2+3+3 = 12, and the only
    vault cards of every material -> six bonuses (+18)."""
    state = state_of(2, [
        {"influence": ["Stone", "Marble"],
         "vault": ["Bar", "Dock", "Tower", "Bath", "Villa", "Temple"]},
        {},
    ])
    assert breakdown(state, 0) == {"influence": 8, "vault": 12, "merchant_bonus": 18,
                                   "statue": 0, "wall": 0, "total": 38}
    assert state.scores() == [38, 2]


def test_R_12_2_merchant_bonus_strictly_most_and_ties():
    """Stone: P0 2 > P1 1 -> P0. Marble: P1 1 = P2 1 -> nobody. Rubble: P2 only."""
    state = state_of(3, [
        {"vault": ["Villa", "Garden"]},
        {"vault": ["Prison", "Temple"]},
        {"vault": ["Palace", "Bar"]},
    ])
    assert [breakdown(state, p)["merchant_bonus"] for p in range(3)] == [3, 0, 3]
    assert state.scores() == [2 + 6 + 3, 2 + 6, 2 + 4 + 3]


def test_R_12_2_no_vault_cards_no_bonus():
    state = state_of(3, [{}, {}, {}])
    assert [breakdown(state, p)["merchant_bonus"] for p in range(3)] == [0, 0, 0]


def s11_end_state():
    state = state_of(3, [
        {"hand": ["Dock", "Garden"], "vault": ["Villa"], "clientele": ["Market"],
         "structures": [built("Archway", ["Bath", "Bath"]),
                      foundation("Catacomb", ["Prison", "Sewer"])]},
        {"hand": ["Bar"], "influence": ["Marble", "Stone"]},
        {"hand": ["Road"], "vault": ["Scriptorium", "Bar"]},
    ])
    play(state, "lead Craftsman with Dock", "think: take Jack", "think: take Jack",
         "craftsman: add Garden to Catacomb")
    return state


def test_S11_R_12_scores_after_catacomb():
    state = s11_end_state()
    assert state.is_terminal()
    assert breakdown(state, 0) == {"influence": 7, "vault": 3, "merchant_bonus": 0,
                                   "statue": 0, "wall": 0, "total": 10}
    assert breakdown(state, 1) == {"influence": 8, "vault": 0, "merchant_bonus": 0,
                                   "statue": 0, "wall": 0, "total": 8}
    assert breakdown(state, 2) == {"influence": 2, "vault": 4, "merchant_bonus": 3,
                                   "statue": 0, "wall": 0, "total": 9}
    assert state.scores() == [10, 8, 9]
    assert state.winners() == [0]


def s12_players(statue_complete=True, gate=False):
    p0_structures = [built("Wall", ["Tower", "Tower"])]
    if statue_complete:
        p0_structures.append(built("Statue", ["Road"], site="Rubble"))
    else:
        p0_structures.append(foundation("Statue", [], site="Rubble"))
    if gate:
        p0_structures.append(built("Gate", ["Academy", "Academy"]))
    p0 = {"hand": ["Villa", "Garden", "Prison"],
          "stockpile": ["Bar", "Bar", "Insula", "Insula", "Latrine", "Latrine", "Road"],
          "vault": ["Temple"], "structures": p0_structures}
    p1 = {"hand": ["Sewer", "Sewer", "Scriptorium"],
          "stockpile": ["Dock", "Dock", "Market", "Market", "Palisade", "Palisade",
                        "Crane"],
          "vault": ["Basilica", "Fountain"],
          "structures": [built("Palace", ["Stairway", "Stairway", "Stairway"])]}
    return [p0, p1]


def test_S12_R_12_1_wall_statue_and_marble_bonus():
    state = state_of(2, s12_players(), leader=1, deck=["Academy"])
    assert state.influence(0) == 5 and state.influence(1) == 5
    assert breakdown(state, 0) == {"influence": 5, "vault": 3, "merchant_bonus": 0,
                                   "statue": 3, "wall": 3, "total": 14}
    assert breakdown(state, 1) == {"influence": 5, "vault": 6, "merchant_bonus": 3,
                                   "statue": 0, "wall": 0, "total": 14}
    assert state.scores() == [14, 14]


def test_S12_R_12_3_tie_broken_by_cards_in_hand():
    """Deck exhaustion: player 1 refills (3 -> 4 cards, deck empty); 14 = 14 and
    player 1 holds 4 cards to player 0's 3 -> player 1 wins."""
    state = state_of(2, s12_players(), leader=1, deck=["Academy"])
    play(state, "think: refill")
    assert state.is_terminal()
    assert state.end_reason() == "deck"
    assert state.scores() == [14, 14]
    assert state.winners() == [1]


def test_S12_gate_variant_incomplete_statue_still_scores():
    """Incomplete Statue (no Rubble site in influence) + completed Gate (Brick site):
    P0 = (2 + 2 + 2) + 3 + 3 + 3 = 15."""
    state = state_of(2, s12_players(statue_complete=False, gate=True), leader=1)
    assert state.influence(0) == 6
    assert breakdown(state, 0) == {"influence": 6, "vault": 3, "merchant_bonus": 0,
                                   "statue": 3, "wall": 3, "total": 15}
    assert state.scores() == [15, 14]


def test_R_12_1_incomplete_statue_without_gate_scores_nothing():
    state = state_of(2, s12_players(statue_complete=False), leader=1)
    assert breakdown(state, 0)["statue"] == 0
    assert breakdown(state, 0)["total"] == 4 + 3 + 3


def test_R_12_1_wall_counts_complete_pairs():
    for n, expected in [(0, 0), (1, 0), (2, 1), (5, 2), (6, 3)]:
        stock = ["Bar", "Road", "Insula", "Latrine", "Dock", "Market"][:n]
        state = state_of(2, [{"stockpile": stock,
                              "structures": [built("Wall", ["Tower", "Tower"])]}, {}])
        assert breakdown(state, 0)["wall"] == expected
        assert state.scores()[0] == 4 + expected


def test_R_12_1_stockpile_scores_nothing_without_wall():
    state = state_of(2, [{"stockpile": ["Bar", "Road", "Insula", "Latrine"]}, {}])
    assert state.scores() == [2, 2]


def test_R_12_3_equal_score_and_hand_is_a_shared_victory():
    state = state_of(2, [
        {"hand": ["Bar", "Dock", "Road", "Jack"]},
        {"hand": ["Insula", "Latrine", "Market", "Jack", "Jack"]},
    ], deck=["Temple"])
    play(state, "think: refill")
    assert state.is_terminal()
    assert state.scores() == [2, 2]
    assert sorted(state.winners()) == [0, 1]


def test_R_12_3_jacks_count_in_the_hand_tie_break():
    state = state_of(2, [
        {"hand": ["Bar", "Dock", "Road", "Jack"]},
        {"hand": ["Insula", "Jack", "Jack", "Jack", "Jack", "Jack"]},
    ], deck=["Temple"])
    play(state, "think: refill")
    assert state.is_terminal()
    assert state.winners() == [1]


def test_R_12_3_highest_score_wins():
    state = state_of(2, [
        {"hand": ["Bar", "Dock", "Road", "Insula"]},
        {"vault": ["Bar"]},
    ], deck=["Temple"])
    play(state, "think: refill")
    assert state.is_terminal()
    assert state.scores() == [2, 2 + 1 + 3]
    assert state.winners() == [1]


def test_R_12_3_three_players_partial_tie():
    """P0 and P2 tie on VP (6) and hand size (2); P1 has 2 VP -> shared P0, P2."""
    state = state_of(3, [
        {"hand": ["Bar"], "vault": ["Road"]},
        {"hand": ["Dock", "Market", "Crane"]},
        {"hand": ["Insula", "Latrine"], "vault": ["Palisade"]},
    ], deck=["Temple"])
    assert state.scores() == [2 + 1 + 3, 2, 2 + 1 + 3]
    # player 0 (hand 1 < 5) refills: draws the last card (hand 2) -> the game ends
    play(state, "think: refill")
    assert state.is_terminal()
    assert sorted(state.winners()) == [0, 2]
