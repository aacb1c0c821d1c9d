"""Edge cases of the core rules (docs/rules.md §1-§12) that the subject files do not
cover: boundary counts, zones running empty mid-action, clientele snapshots with duplicate
card types, the end-of-turn order around Academy, the timing of the end of the game.

Every test asserts what docs/rules.md requires; each was checked against the engine and
found correct (an engine disagreeing with docs/rules.md would be a bug, not a case to
tolerate).
"""

from __future__ import annotations

import glory_ai
from support.positions import (
    clients,
    deck,
    done,
    foundation,
    from_dict,
    hand,
    jack_pile,
    legal,
    lower_set,
    play,
    pool,
    position,
    state_of,
    stock,
    structure,
    turn_over,
    vault,
)

# ---------------------------------------------------------------------------------------
# client entries and the snapshot taken when the action step begins


def test_R_6_3_two_clients_of_the_same_card_type_each_act():
    """R-6.3: each client adds one client entry. Two copies of Road in the clientele are
    two Laborer clients: 1 camp action + 2 client actions = 3 pool takes."""
    state = state_of(2, [{"hand": ["Insula"], "clientele": ["Road", "Road"]},
                         {"hand": ["Temple"]}],
                     pool=["Bar", "Dock", "Wall", "Villa"])
    play(state, "lead Laborer with Insula", "think: take Jack",
         "laborer: take Bar from pool", "laborer: take Dock from pool",
         "laborer: take Wall from pool")
    assert turn_over(state)
    assert stock(state, 0) == ["Bar", "Dock", "Wall"]
    assert pool(state) == ["Insula", "Villa"]


def test_R_6_4_hiring_another_copy_of_a_client_type_adds_no_action():
    """R-6.4 / A17: the acting clients are fixed when the step begins. P0 has one Patron
    client (Temple) and hires a second Temple with the camp action: exactly one more
    Patron action follows (the original client), not two, although the clientele now
    holds two Temples."""
    state = state_of(2, [{"hand": ["Palace"], "clientele": ["Temple"],
                          "structures": [done("Insula")]},   # limit 5: room for all
                         {"hand": ["Dock"]}],
                     pool=["Temple", "Bar", "Wall"])
    play(state, "lead Patron with Palace", "think: take Jack",
         "patron: hire Temple from pool",                     # camp action
         "patron: hire Bar from pool")                        # the original Temple client
    assert turn_over(state)
    assert clients(state, 0) == ["Bar", "Temple", "Temple"]
    assert "Wall" in pool(state)


def test_R_10_2_limit_reached_by_the_camp_hire_stops_the_client_hire():
    """R-8.1.4 / R-10.2 (boundary): influence 2 -> limit 2; clientele of 1. The camp
    Patron action hires (2 = limit); the Patron client's action then has nothing it may
    do and is skipped; the pool keeps its other card."""
    state = state_of(2, [{"hand": ["Palace"], "clientele": ["Temple"]},
                         {"hand": ["Dock"]}],
                     pool=["Bar", "Wall"])
    play(state, "lead Patron with Palace", "think: take Jack", "patron: hire Bar from pool")
    assert turn_over(state)
    assert clients(state, 0) == ["Bar", "Temple"]
    assert pool(state) == ["Palace", "Wall"]


def test_R_10_3_vault_limit_reached_mid_step_stops_the_client_action():
    """R-8.6.1 / R-10.3 (boundary): influence 2 -> vault limit 2; vault of 1; Merchant led
    with a Merchant client. The camp action vaults (2 = limit); the client action is
    skipped although the stockpile still holds cards."""
    state = state_of(2, [{"hand": ["Villa"], "clientele": ["Garden"], "vault": ["Bar"],
                          "stockpile": ["Road", "Dock"]},
                         {"hand": ["Temple"]}])
    play(state, "lead Merchant with Villa", "think: take Jack",
         "merchant: vault Dock from stockpile")
    assert turn_over(state)
    assert vault(state, 0) == ["Bar", "Dock"]
    assert stock(state, 0) == ["Road"]


# ---------------------------------------------------------------------------------------
# thinking at the hand/Jack-pile boundaries


def test_R_7_1_latrine_jack_discard_refills_an_empty_jack_pile():
    """R-7.1 / R-7.2(a): with the Jack pile empty, "take Jack" is not offered; a Latrine
    discard of a Jack puts it on the pile, after which "take Jack" is legal (and takes
    that very Jack back: the pile is 0 again). Hand 6 >= refill 5 -> "draw 1", not
    "refill"; after the discard the hand is 5 = refill size -> still "draw 1"."""
    d = position(2, [{"hand": ["Jack", "Jack", "Jack", "Bar", "Road", "Dock"],
                      "structures": [done("Latrine")]},
                     {"hand": ["Jack", "Jack", "Jack"]}], jack_pile=0, deck_size=30)
    state = from_dict(d)
    got = {s for s in legal(state) if s.startswith("think:")}
    assert "think: take jack" not in got and "think: draw 1" in got
    play(state, "think: discard Jack (Latrine)")
    assert jack_pile(state) == 1
    assert legal(state) == lower_set(["think: take Jack", "think: draw 1"])
    play(state, "think: take Jack")
    assert jack_pile(state) == 0
    assert hand(state, 0).count("Jack") == 3


def test_R_7_2_refill_counts_jacks_and_stops_at_the_refill_size_with_shrine():
    """R-7.2(b), R-10.5, A3: Shrine -> refill size 7; hand {Jack, Jack, Bar} (3 cards,
    Jacks included) -> refill draws exactly 4."""
    d = position(2, [{"hand": ["Jack", "Jack", "Bar"], "structures": [done("Shrine")]},
                     {"hand": ["Temple"]}], deck_top=["Road", "Dock", "Wall", "Villa", "Palace"],
                 deck_size=20)
    state = from_dict(d)
    assert state.refill_size(0) == 7
    play(state, "think: refill")
    assert hand(state, 0) == sorted(["Jack", "Jack", "Bar", "Road", "Dock", "Wall", "Villa"])
    assert deck(state)[0] == "Palace"


# ---------------------------------------------------------------------------------------
# end of turn order and R-11.1(1) draws at unusual moments


def test_R_6_5_c_d_academy_think_that_empties_the_deck_ends_the_game_after_camps_moved():
    """R-6.5(c) before (d), R-11.1(1): camps go to the pool, then the Academy think draws
    the last card -> the game ends at once and is scored (the Leader card does not pass)."""
    d = position(2, [{"hand": ["Dock", "Bar"], "structures": [done("Academy")]},
                     {"hand": ["Crane"]}], deck_top=["Temple"], deck_size=1)
    state = from_dict(d)
    play(state, "lead Craftsman with Dock", "follow Craftsman with Crane",
         "craftsman: lay Bar")
    assert state.current_player() == 0 and not state.is_terminal()
    assert pool(state) == ["Crane", "Dock"]          # (c) happened before (d)
    play(state, "think: refill")
    assert state.is_terminal() and state.end_reason() == "deck"
    assert hand(state, 0) == ["Temple"]
    assert state.scores() == [4, 2]                 # Academy's Brick site: 2 + 2
    assert state.winners() == [0]


def test_R_11_1_1_school_think_that_empties_the_deck_cancels_the_other_grants():
    """R-9.3.2 School + R-11.1(1): influence 4 -> 4 granted thinks; the first one draws
    the last card of the deck -> the game ends immediately (no further grants, the
    remaining client action is not performed)."""
    d = position(2, [{"hand": ["Dock", "Bath", "Bar"], "clientele": ["Market"],
                      "structures": [foundation("School", ["Academy"])]},
                     {"hand": ["Crane"]}], deck_top=["Temple", "Villa"], deck_size=2)
    state = from_dict(d)
    play(state, "lead Craftsman with Dock", "think: take Jack",
         "craftsman: add Bath to School")
    assert structure(state, 0, "School")["complete"] is True
    play(state, "think: refill")                    # hand 1 -> wants 4, deck has 2
    assert state.is_terminal() and state.end_reason() == "deck"
    assert hand(state, 0) == ["Bar", "Temple", "Villa"]
    assert structure(state, 0, "Bar") is None       # the client action never came


# ---------------------------------------------------------------------------------------
# what ends the game, and what does not


def test_R_11_1_2_out_of_town_foundation_with_no_in_town_sites_left_does_not_end():
    """R-11.1(2): the game ends when a foundation *takes* the last in-town site; with
    every in-town stack already empty, an out-of-town foundation does not end it."""
    empty = {m: 0 for m in glory_ai.MATERIALS}
    state = glory_ai.State.from_dict({
        "num_players": 2,
        "players": [{"hand": ["Dock", "Bath"], "structures": [
            {"building": "Tower", "complete": True, "materials": ["Aqueduct", "Aqueduct"]}]},
            {"hand": ["Bar"]}],
        "sites": {"in_town": empty, "out_of_town": {"Rubble": 6, "Wood": 6, "Concrete": 5,
                                                     "Brick": 6, "Stone": 6, "Marble": 6}},
    })
    for text in ("lead Craftsman with Dock", "think: take Jack", "craftsman: lay Bath out of town"):
        state.apply_action_string(text)
    assert not state.is_terminal()
    assert state.to_dict()["sites"]["out_of_town"]["Brick"] == 5


def test_R_11_2_sewer_completing_forum_romanum_wins():
    """R-11.2 / R-14.5: the Forum check follows every change; a Sewer move that completes
    the stockpile of every material wins at once."""
    clients = ["Temple", "Bar", "Dock", "Tower", "Shrine", "Villa"]
    state = glory_ai.State.from_dict({
        "num_players": 2,
        "players": [{"hand": ["Palace"], "clientele": clients,
                     "stockpile": ["Road", "Market", "Wall", "Bath", "Garden"],
                     "structures": [
                         {"building": "Forum Romanum", "complete": True,
                          "materials": ["Statue", "Statue", "Statue"]},
                         {"building": "Sewer", "complete": True,
                          "materials": ["Catacomb", "Catacomb", "Catacomb"]}]},
                    {"hand": ["Insula"]}],
    })
    assert not state.is_terminal()
    state.apply_action_string("lead Patron with Palace")
    state.apply_action_string("think: take Jack")
    while state.phase() != "sewer":
        state.apply_action(state.legal_actions()[0] if state.phase() != "action" else 0)
    state.apply_action_string("sewer: move Palace to stockpile")
    assert state.is_terminal()
    assert state.end_reason() == "forum" and state.winners() == [0]
