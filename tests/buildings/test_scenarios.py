"""Worked scenarios of docs/rules.md §17 that involve building functions: S2 c/d, S3 (with
the Circus Maximus variant), S4, S5 c, S6, S7 b-e, S8 (Palace, Circus, Crane), S9 a-d,
S10 b/c, S12 Gate variant -- in both modes where they apply."""

import pytest

from support.cards import MATERIALS
from support.positions import (
    add_units,
    assert_illegal,
    assert_legal,
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
    sites,
    state_of,
    stock,
    structure,
    think_strings,
    turn_over,
    use_extras,
    vault,
)

MODES = pytest.mark.parametrize("mode", ["republic", "imperium"])


# --------------------------------------------------------------------------- S2 c, d


def s2_state(hand_cards, structures, mode, deck_top=()):
    """S2: no other structures, Jack pile 4, deck 30."""
    other_jacks = 6 - 4 - hand_cards.count("Jack")
    d = position(2, [{"hand": list(hand_cards), "structures": list(structures)},
                     {"hand": ["Jack"] * other_jacks}], mode=mode,
                 deck_top=list(deck_top), deck_size=30)
    state = from_dict(d)
    assert jack_pile(state) == 4
    return state


S2C_HAND = ["Bar", "Dock", "Road", "Insula", "Market"]


@MODES
def test_S2_c_latrine_discard_then_refill(mode):
    """S2 (c), §13 #24 Latrine: discard 1 (hand 4), then refill draws 1 (hand 5)."""
    state = s2_state(S2C_HAND, [done("Latrine")], mode, deck_top=["Temple"])
    play(state, "think: discard Road (Latrine)")
    assert len(hand(state, 0)) == 4
    assert pool(state) == ["Road"]
    assert think_strings(state) == lower_set(["think: take Jack", "think: refill"])
    play(state, "think: refill")
    assert hand(state, 0) == ["Bar", "Dock", "Insula", "Market", "Temple"]
    assert len(state.to_dict()["deck"]) == 29


@MODES
def test_S2_c_latrine_not_used_take_jack(mode):
    state = s2_state(S2C_HAND, [done("Latrine")], mode)
    play(state, "think: take Jack")
    assert len(hand(state, 0)) == 6
    assert jack_pile(state) == 3


@MODES
def test_S2_c_latrine_not_used_draw_one(mode):
    state = s2_state(S2C_HAND, [done("Latrine")], mode, deck_top=["Temple"])
    play(state, "think: draw 1")
    assert len(hand(state, 0)) == 6
    assert "Temple" in hand(state, 0)


@MODES
def test_S2_d_vomitorium_discard_all_then_refill_five(mode):
    """S2 (d), §13 #43 Vomitorium: Jack to the pile (5), Dock and Road to the pool,
    then a refill draws 5."""
    top = ["Temple", "Villa", "Palace", "Garden", "Prison"]
    state = s2_state(["Jack", "Dock", "Road"], [done("Vomitorium")], mode, deck_top=top)
    play(state, "think: discard hand (Vomitorium)")
    assert jack_pile(state) == 5
    assert pool(state) == ["Dock", "Road"]
    play(state, "think: refill")
    assert hand(state, 0) == sorted(top)
    assert len(state.to_dict()["deck"]) == 25


# --------------------------------------------------------------------------- S3


def s3_state(mode, p0_structures=(), extra_hand=()):
    return state_of(4, [
        {"hand": ["Shrine", "Atrium", "Dock", "Jack"] + list(extra_hand),
         "clientele": ["Gate"], "structures": list(p0_structures)},
        {"hand": ["Bath", "School", "Market"]},
        {"hand": ["Archway"]},
        {"hand": ["Academy"], "structures": [done("Palisade")]},
    ], pool=["Foundry", "Road"], mode=mode)


def s3_finish(state):
    play(state, "legionary: take Foundry from pool")
    assert state.current_player() == 1
    assert legal(state) == lower_set(["give Bath", "give School"])
    play(state, "give School")
    assert turn_over(state)
    assert stock(state, 0) == ["Foundry", "Market", "School"]
    assert hand(state, 1) == ["Bath", "Jack"]
    assert hand(state, 2) == ["Archway", "Jack"]
    assert hand(state, 3) == ["Academy", "Jack"]     # §13 #28 Palisade
    assert pool(state) == ["Road", "Shrine"]
    assert jack_pile(state) == 2         # 6 - P0's Jack - three thinkers' Jacks


@MODES
def test_S3_legionary_against_neighbours(mode):
    """S3 (§13 #28 Palisade): demand {Brick, Wood}; victims players 1 and 3; player 3
    is immune."""
    state = s3_state(mode)
    play(state, "lead Legionary with Shrine", *["think: take Jack"] * 3)
    assert legal(state) == lower_set(["legionary: reveal Atrium", "legionary: reveal Dock",
                                      "legionary: done revealing"])
    play(state, "legionary: reveal Atrium", "legionary: reveal Dock")
    s3_finish(state)
    assert hand(state, 0) == ["Atrium", "Dock", "Jack"]


@MODES
def test_S3_circus_maximus_third_action_lost(mode):
    """S3 variant, §13 #12 Circus Maximus: 1 + 2 = 3 Legionary actions but only two
    revealable cards -> the third action is lost; same outcome."""
    state = s3_state(mode, p0_structures=[done("Circus Maximus")])
    play(state, "lead Legionary with Shrine", *["think: take Jack"] * 3,
         "legionary: reveal Atrium", "legionary: reveal Dock")
    assert legal(state) == lower_set(["legionary: take Foundry from pool",
                                      "legionary: done taking"])
    s3_finish(state)


@MODES
def test_S3_circus_maximus_three_reveals(mode):
    """S3 variant: with a third Order card the Circus Maximus batch reveals three."""
    state = s3_state(mode, p0_structures=[done("Circus Maximus")], extra_hand=["Temple"])
    play(state, "lead Legionary with Shrine", *["think: take Jack"] * 3,
         "legionary: reveal Atrium", "legionary: reveal Dock")
    assert_legal(state, "legionary: reveal Temple")
    play(state, "legionary: reveal Temple")
    s3_finish(state)


@MODES
def test_S3_without_circus_maximus_two_actions_only(mode):
    state = s3_state(mode, extra_hand=["Temple"])
    play(state, "lead Legionary with Shrine", *["think: take Jack"] * 3,
         "legionary: reveal Atrium", "legionary: reveal Dock")
    assert_illegal(state, "legionary: reveal Temple")


# --------------------------------------------------------------------------- S4


@MODES
def test_S4_bridge_versus_palisade_and_wall(mode):
    """S4, §13 #9 Bridge, #28 Palisade, #44 Wall: victims players 1-3; player 1 gives
    Aqueduct (hand) and Storeroom (stockpile); player 2's Palisade is ignored (gives its
    Storeroom from the stockpile); player 3's Wall protects."""
    state = state_of(4, [
        {"hand": ["Foundry", "Tower"], "structures": [done("Bridge")]},
        {"hand": ["Aqueduct"], "stockpile": ["Storeroom", "Bar"]},
        {"stockpile": ["Storeroom"], "structures": [done("Palisade")]},
        {"hand": ["Amphitheatre"], "stockpile": ["Vomitorium"],
         "structures": [done("Wall")]},
    ], mode=mode)
    play(state, "lead Legionary with Foundry", *["think: take Jack"] * 3,
         "legionary: reveal Tower")
    use_extras(state, 1, 2)                    # the legionary applies Bridge
    assert turn_over(state)
    assert stock(state, 0) == ["Aqueduct", "Storeroom", "Storeroom"]
    assert hand(state, 1) == ["Jack"] and stock(state, 1) == ["Bar"]
    assert hand(state, 2) == ["Jack"] and stock(state, 2) == []
    assert hand(state, 3) == ["Amphitheatre", "Jack"]
    assert stock(state, 3) == ["Vomitorium"]
    assert hand(state, 0) == ["Tower"]


# --------------------------------------------------------------------------- S5 c


@MODES
def test_S5_c_tower_out_of_town_with_one_action(mode):
    """S5 (c), §13 #40 Tower: no in-town Brick left, one Craftsman action: Bath is
    founded out of town (out-of-town Brick 4 -> 3)."""
    state = state_of(2, [{"hand": ["Dock", "Bath"], "structures": [done("Tower")]},
                         {"hand": ["Latrine"],
                          "structures": [foundation("Academy"), foundation("Archway")]}],
                     sites={"in_town": {"Brick": 0}, "out_of_town": {"Brick": 4}},
                     mode=mode)
    play(state, "lead Craftsman with Dock", "think: take Jack")
    assert legal(state) == lower_set(["craftsman: lay Bath out of town",
                                      "craftsman: skip"])
    play(state, "craftsman: lay Bath out of town")
    assert turn_over(state)
    s = structure(state, 0, "Bath")
    assert s["out_of_town"] is True and s["materials"] == []
    assert sites(state, "out_of_town", "Brick") == 3


# --------------------------------------------------------------------------- S6


@MODES
def test_S6_archway_completed_mid_turn_used_at_once(mode):
    """S6, §13 #4 Archway, R-14.1: action 1 completes Archway (influence 4); action 2
    takes Tower from the pool to complete Storeroom (influence 6)."""
    state = state_of(2, [
        {"hand": ["Aqueduct"], "clientele": ["Vomitorium"], "stockpile": ["School"],
         "structures": [foundation("Archway", ["Atrium"]), foundation("Storeroom", ["Amphitheatre"])]},
        {"hand": ["Crane" if mode == "republic" else "Circus"]},
    ], pool=["Tower"], mode=mode)
    play(state, "lead Architect with Aqueduct", "think: take Jack")
    assert_illegal(state, "architect: add Tower from pool to Storeroom")
    play(state, "architect: add School to Archway")
    assert structure(state, 0, "Archway")["complete"] is True
    assert state.influence(0) == 4
    assert_legal(state, "architect: add Tower from pool to Storeroom")
    play(state, "architect: add Tower from pool to Storeroom")
    assert turn_over(state)
    assert structure(state, 0, "Storeroom")["complete"] is True
    assert state.influence(0) == 6
    assert state.clientele_limit(0) == 6
    assert state.vault_limit(0) == 6
    assert pool(state) == ["Aqueduct"]


# --------------------------------------------------------------------------- S7 b-e


@MODES
def test_S7_b_insula(mode):
    """S7 (b), §13 #23 Insula: influence 3 -> clientele limit 5."""
    state = state_of(2, [{"structures": [done("Insula")]}, {}], mode=mode)
    assert state.influence(0) == 3
    assert state.clientele_limit(0) == 5


@MODES
def test_S7_c_aqueduct(mode):
    """S7 (c), §13 #3 Aqueduct: influence 4 -> clientele limit 8."""
    state = state_of(2, [{"structures": [done("Aqueduct")]}, {}], mode=mode)
    assert state.influence(0) == 4
    assert state.clientele_limit(0) == 8


@MODES
def test_S7_d_insula_and_aqueduct(mode):
    """S7 (d), A8: (5 + 2) x 2 = 14."""
    state = state_of(2, [{"structures": [done("Insula"), done("Aqueduct")]}, {}],
                     mode=mode)
    assert state.influence(0) == 5
    assert state.clientele_limit(0) == 14


@MODES
def test_S7_e_market_vault_limit(mode):
    """S7 (e), §13 #26 Market: influence 3 -> vault limit 5; with 5 vault cards the
    Merchant action cannot add."""
    state = state_of(2, [
        {"hand": ["Villa"], "stockpile": ["Garden"],
         "vault": ["Bar", "Road", "Insula", "Latrine", "Palisade"],
         "structures": [done("Market")]},
        {"hand": ["Temple"]},
    ], mode=mode)
    assert state.influence(0) == 3
    assert state.vault_limit(0) == 5
    play(state, "lead Merchant with Villa", "think: take Jack")
    assert turn_over(state)
    assert len(vault(state, 0)) == 5
    assert stock(state, 0) == ["Garden"]


# --------------------------------------------------------------------------- S8


def s8_state(p1_hand, p1_structures=None):
    if p1_structures is None:
        p1_structures = [done("Palace")]
    return state_of(2, [
        {"hand": ["Bar", "Road", "Insula", "Dock"], "stockpile": ["Temple"]},
        {"hand": list(p1_hand), "stockpile": ["Garden", "Prison", "Sewer", "Scriptorium"],
         "structures": list(p1_structures)},
    ], mode="imperium")


def s8_lead(state):
    play(state, "lead Merchant by petition of Laborer")
    assert "petition: dock" not in legal(state)          # mixed roles
    play_picks(state, "petition:", ["Bar", "Insula", "Road"])
    assert camp(state, 0) == ["Bar", "Insula", "Road"]
    assert hand(state, 0) == ["Dock"]


def test_S8_palace_three_units_imperium():
    """S8 (Imperium), §13 #27 Palace: follow with Villa, Catacomb and a Jack -> 3 camp
    actions; everything goes to the pool (Jack to the pile) at the end."""
    state = s8_state(["Villa", "Catacomb", "Jack"])
    s8_lead(state)
    add_units(state, "follow", "Merchant", ["Catacomb", "Villa", "Jack"])
    assert camp(state, 1) == ["Catacomb", "Jack", "Villa"]
    play(state, "merchant: vault Temple from stockpile")
    for c in ["Garden", "Prison", "Scriptorium"]:
        play(state, f"merchant: vault {c} from stockpile")
    assert turn_over(state)
    assert vault(state, 1) == ["Garden", "Prison", "Scriptorium"]
    assert stock(state, 1) == ["Sewer"]
    assert pool(state) == ["Bar", "Catacomb", "Insula", "Road", "Villa"]
    assert jack_pile(state) == 6


def test_S8_palace_single_plus_petition_imperium():
    """S8: {Villa, Bar, Road, Insula} -> single + 3-card petition = 2 actions."""
    state = s8_state(["Villa", "Bar", "Road", "Insula"])
    s8_lead(state)
    play(state, "follow Merchant with Villa", "follow Merchant by petition of Laborer")
    play_picks(state, "petition:", ["Bar", "Insula", "Road"])
    if "done" in legal(state):
        play(state, "done")
    assert camp(state, 1) == ["Bar", "Insula", "Road", "Villa"]
    play(state, "merchant: vault Temple from stockpile",
         "merchant: vault Garden from stockpile", "merchant: vault Prison from stockpile")
    assert turn_over(state)
    assert vault(state, 1) == ["Garden", "Prison"]


def test_S8_without_palace_one_unit():
    state = s8_state(["Villa", "Catacomb", "Jack"], p1_structures=())
    s8_lead(state)
    play(state, "follow Merchant with Villa")
    assert state.current_player() == 0
    assert camp(state, 1) == ["Villa"]


def test_S8_circus_two_card_petition_imperium():
    """S8, §13 #11 Circus: {Bar, Road} is a legal petition."""
    state = state_of(2, [{"hand": ["Bar", "Road", "Dock"], "structures": [done("Circus")]},
                         {"hand": ["Temple"]}], mode="imperium")
    play(state, "lead Merchant by petition of Laborer")
    play_picks(state, "petition:", ["Bar", "Road"])
    assert camp(state, 0) == ["Bar", "Road"]
    assert state.current_player() == 1


def test_S8_republic_variant_two_card_petition_and_crane():
    """S8 Republic variant, §13 #14 Crane: P1 follows Architect with a 2-card petition
    (A1 default), P2 with Crane follows with Dock."""
    state = state_of(3, [
        {"hand": ["Tower"]},
        {"hand": ["Bar", "Road", "Temple"]},
        {"hand": ["Dock", "Bath"], "structures": [done("Crane")]},
    ])
    play(state, "lead Architect with Tower", "follow Architect by petition of Laborer")
    play_picks(state, "petition:", ["Bar", "Road"])
    assert camp(state, 1) == ["Bar", "Road"]
    assert_legal(state, "follow Architect with Dock (Crane)")
    play(state, "follow Architect with Dock (Crane)")
    play(state, "architect: lay Temple", "architect: lay Bath")
    assert turn_over(state)
    assert structure(state, 1, "Temple") is not None
    assert structure(state, 2, "Bath") is not None
    assert pool(state) == ["Bar", "Dock", "Road", "Tower"]


# --------------------------------------------------------------------------- S9


POOL14 = ["Academy", "Amphitheatre", "Aqueduct", "Archway", "Atrium", "Basilica",
          "Bridge", "Catacomb", "Foundry", "Fountain", "Garden", "Gate", "Palisade",
          "Prison"]


def take_first(state, n):
    """n Laborer actions, each taking the alphabetically first pool card."""
    for _ in range(n):
        takes = sorted(s for s in legal(state) if s.startswith("laborer: take"))
        assert takes, f"no Laborer action left; legal: {sorted(legal(state))}"
        play(state, takes[0])


def s9_two_player(mode, p1, follow):
    state = state_of(2, [{"hand": ["Road"]}, p1], pool=POOL14[:7], mode=mode)
    play(state, "lead Laborer with Road", follow, "laborer: skip")
    return state


@MODES
def test_S9_a_circus_maximus_follower(mode):
    """S9 (a), §13 #12 Circus Maximus: follows with a Laborer card, clients {Bar,
    Insula} -> 1 + 2 x 2 = 5."""
    state = s9_two_player(mode, {"hand": ["Latrine"], "clientele": ["Bar", "Insula"],
                                 "structures": [done("Circus Maximus")]},
                          "follow Laborer with Latrine")
    take_first(state, 5)
    assert turn_over(state)
    assert len(stock(state, 1)) == 5


@MODES
def test_S9_b_circus_maximus_thinker_not_doubled(mode):
    """S9 (b), A26: the same player thinks -> 2."""
    state = s9_two_player(mode, {"hand": ["Latrine"], "clientele": ["Bar", "Insula"],
                                 "structures": [done("Circus Maximus")]},
                          "think: take Jack")
    take_first(state, 2)
    assert turn_over(state)
    assert len(stock(state, 1)) == 2


@MODES
def test_S9_c_storeroom_thinker(mode):
    """S9 (c), §13 #38 Storeroom: clients {Temple, Villa}, thinks -> 2."""
    state = s9_two_player(mode, {"hand": ["Latrine"], "clientele": ["Temple", "Villa"],
                                 "structures": [done("Storeroom")]},
                          "think: take Jack")
    take_first(state, 2)
    assert turn_over(state)
    assert len(stock(state, 1)) == 2


@MODES
def test_S9_d_ludus_magnus_and_circus_maximus(mode):
    """S9 (d), §13 #25 Ludus Magnus + #12: clients {Villa, Sewer, Bath}, follows with a
    Jack -> 1 + 2 x 2 = 5 (the Bath client gives nothing)."""
    state = s9_two_player(mode, {"hand": ["Jack"], "clientele": ["Villa", "Sewer", "Bath"],
                                 "structures": [done("Ludus Magnus"),
                                                done("Circus Maximus")]},
                          "follow Laborer with Jack")
    take_first(state, 5)
    assert turn_over(state)
    assert len(stock(state, 1)) == 5


@MODES
def test_S9_all_four_players(mode):
    """S9 as one 4-player turn: actions 1 (leader), 5 (a), 2 (c), 5 (d)."""
    state = state_of(4, [
        {"hand": ["Road"]},
        {"hand": ["Latrine"], "clientele": ["Bar", "Insula"],
         "structures": [done("Circus Maximus")]},
        {"hand": ["Dock"], "clientele": ["Temple", "Villa"],
         "structures": [done("Storeroom")]},
        {"hand": ["Jack"], "clientele": ["Villa", "Sewer", "Bath"],
         "structures": [done("Ludus Magnus"), done("Circus Maximus")]},
    ], pool=POOL14, mode=mode)
    play(state, "lead Laborer with Road", "follow Laborer with Latrine",
         "think: take Jack", "follow Laborer with Jack")
    take_first(state, 13)
    assert turn_over(state)
    assert [len(stock(state, p)) for p in range(4)] == [1, 5, 2, 5]
    assert pool(state) == ["Latrine", "Prison", "Road"]


# --------------------------------------------------------------------------- S10 b, c


def s10b_state(pool_cards):
    return state_of(2, [
        {"hand": ["Basilica"], "clientele": ["Temple", "Bar", "Dock", "Tower", "Villa"],
         "structures": [done("Forum"), done("Insula"), done("Ludus Magnus")]},
        {"hand": ["Statue"]},
    ], leader=1, mode="imperium", pool=pool_cards)


def test_S10_b_ludus_forum_win_with_a_second_merchant():
    """S10 (b), §13 #17 Forum + #25 Ludus Magnus: hiring Sewer wins (one Merchant =
    Merchant, the other = Legionary)."""
    state = s10b_state(["Sewer", "Road"])
    assert state.clientele_limit(0) == 11
    play(state, "lead Patron with Statue", "follow Patron with Basilica",
         "patron: hire Road from pool", "patron: hire Sewer from pool")
    assert state.is_terminal()
    assert state.end_reason() == "forum"
    assert state.winners() == [0]


def test_S10_b_one_merchant_fills_one_role():
    """S10 (b): with only one Merchant client no win (Legionary or Merchant missing)."""
    state = s10b_state(["Palace", "Road"])
    play(state, "lead Patron with Statue", "follow Patron with Basilica",
         "patron: hire Road from pool", "patron: hire Palace from pool")
    assert not state.is_terminal()


def test_S10_b_republic_forum_romanum_with_ludus():
    """S10 (b) in Republic with Forum Romanum (stockpile of every material)."""
    state = state_of(2, [
        {"hand": ["Basilica"], "clientele": ["Temple", "Bar", "Dock", "Tower", "Villa"],
         "stockpile": ["Bar", "Dock", "Tower", "Shrine", "Villa", "Temple"],
         "structures": [done("Forum Romanum"), done("Insula"), done("Ludus Magnus")]},
        {"hand": ["Statue"]},
    ], leader=1, pool=["Sewer", "Road"])
    play(state, "lead Patron with Statue", "follow Patron with Basilica",
         "patron: hire Road from pool", "patron: hire Sewer from pool")
    assert state.is_terminal()
    assert state.end_reason() == "forum"
    assert state.winners() == [0]


SIX_CLIENTS = ["Temple", "Bar", "Dock", "Tower", "Shrine", "Villa"]


def test_S10_c_gate_forum_foundation_wins():
    """S10 (c), §13 #22 Gate + #17 Forum: laying the Forum foundation wins at once."""
    state = state_of(2, [{"hand": ["Jack", "Forum"], "clientele": SIX_CLIENTS,
                          "structures": [done("Gate")]},
                         {"hand": ["Road"]}], mode="imperium")
    assert not state.is_terminal()
    play(state, "lead Craftsman with Jack", "think: take Jack", "craftsman: lay Forum")
    assert state.is_terminal()
    assert state.end_reason() == "forum"
    assert state.winners() == [0]


def last_marble_site_sites():
    stacks = {"in_town": {m: 0 for m in MATERIALS}}
    stacks["in_town"]["Marble"] = 1
    return stacks


P1_HOLDS_OTHER_SITES = {"hand": ["Road"],
                        "influence": ["Rubble", "Rubble", "Wood", "Wood", "Concrete",
                                      "Concrete", "Brick", "Stone", "Stone", "Marble"]}


def test_S10_c_forum_check_before_site_end():
    """S10 (c): the Forum foundation takes the last in-town site -> Forum win, not the
    site game end (R-9.1.6)."""
    state = state_of(2, [{"hand": ["Jack", "Forum"], "clientele": SIX_CLIENTS,
                          "structures": [done("Gate")]},
                         P1_HOLDS_OTHER_SITES],
                     mode="imperium", sites=last_marble_site_sites())
    play(state, "lead Craftsman with Jack", "think: take Jack", "craftsman: lay Forum")
    assert state.is_terminal()
    assert state.end_reason() == "forum"
    assert state.winners() == [0]


def test_S10_c_republic_gate_forum_romanum_foundation_wins():
    """S10 (c) in Republic: Gate + Forum Romanum foundation with six roles and a
    stockpile of every material."""
    state = state_of(2, [{"hand": ["Jack", "Forum Romanum"], "clientele": SIX_CLIENTS,
                          "stockpile": ["Bar", "Dock", "Tower", "Shrine", "Villa", "Temple"],
                          "structures": [done("Gate")]},
                         P1_HOLDS_OTHER_SITES], sites=last_marble_site_sites())
    play(state, "lead Craftsman with Jack", "think: take Jack",
         "craftsman: lay Forum Romanum")
    assert state.is_terminal()
    assert state.end_reason() == "forum"
    assert state.winners() == [0]


# --------------------------------------------------------------------------- S12 Gate


@MODES
def test_S12_gate_variant_incomplete_statue_counts(mode):
    """S12 Gate variant, §13 #22 Gate + #37 Statue + #44 Wall: P0 = (2 + 2 + 2) + 3
    (Wall, 7 cards) + 3 (Statue) + 3 (vault) = 15; P1 = 5 + 6 + 3 = 14; the deck runs
    out on P1's refill -> P0 wins."""
    p0 = {"hand": ["Villa", "Garden", "Prison"],
          "stockpile": ["Bar", "Bar", "Insula", "Insula", "Latrine", "Latrine", "Road"],
          "vault": ["Temple"],
          "structures": [done("Wall"), foundation("Statue", site="Rubble"), done("Gate")]}
    p1 = {"hand": ["Sewer", "Sewer", "Scriptorium"],
          "stockpile": ["Dock", "Dock", "Market", "Market", "Palisade", "Palisade", "Road"],
          "vault": ["Basilica", "Fountain"], "structures": [done("Palace")]}
    state = state_of(2, [p0, p1], leader=1, mode=mode, deck=["Academy"])
    b0 = state.score_breakdown(0)
    assert (b0["influence"], b0["vault"], b0["merchant_bonus"], b0["statue"], b0["wall"],
            b0["total"]) == (6, 3, 0, 3, 3, 15)
    b1 = state.score_breakdown(1)
    assert (b1["influence"], b1["vault"], b1["merchant_bonus"], b1["total"]) == (5, 6, 3, 14)
    play(state, "think: refill")
    assert state.is_terminal()
    assert state.end_reason() == "deck"
    assert state.scores() == [15, 14]
    assert state.winners() == [0]
