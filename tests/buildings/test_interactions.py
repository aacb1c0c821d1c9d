"""Interactions between building functions (docs/rules.md §13-§17): functions gaining
activity in the middle of an action, the order of an action's parts, queue order.

The R-8.3.4 Stairway test and the R-8.5.2 Bath reveal test pin bugs (fixed): the engine
decided whether Stairway was active when the main part ended, before the action's grants
and Prison exchange ran; and it never lowered its count of revealed cards when a revealed
card left the hand. The others are tricky interactions that were checked and found
correct, kept as coverage that tests/buildings does not already have.
"""

from __future__ import annotations

import pytest

from support.positions import (
    assert_legal,
    done,
    foundation,
    from_dict,
    hand,
    legal,
    lower_set,
    norm,
    play,
    pool,
    position,
    state_of,
    stock,
    structure,
    turn_over,
)

# =======================================================================================
# Pinned bugs (fixed)


def _stairway_gained_by_prison():
    """P0 completes Prison with the camp Architect action; the Prison exchange takes
    P1's completed Stairway."""
    state = state_of(2, [
        {"hand": ["Bridge"], "stockpile": ["Villa", "Shrine"],
         "structures": [foundation("Prison", ["Garden", "Sewer"])]},
        {"hand": ["Dock"], "structures": [done("Bath"), done("Stairway")]},
    ], deck_size=40)
    play(state, "lead Architect with Bridge", "think: take Jack",
         "architect: add Villa to Prison", "prison: take Stairway from P1")
    assert state.is_active(0, "Stairway")
    return state


def _stairway_completed_by_a_grant():
    """P0 completes Amphitheatre with the camp Architect action (influence 4 -> 4
    Craftsman grants); the first grant adds the third material to P0's Stairway."""
    state = state_of(2, [
        {"hand": ["Bridge", "Basilica"], "stockpile": ["Aqueduct", "Shrine"],
         "structures": [foundation("Amphitheatre", ["Tower"]),
                        foundation("Stairway", ["Temple", "Palace"])]},
        {"hand": ["Dock"], "structures": [done("Bath")]},
    ], deck_size=40)
    play(state, "lead Architect with Bridge", "think: take Jack",
         "architect: add Aqueduct to Amphitheatre",
         "craftsman: add Basilica to Stairway")
    # the three other grants have nothing to do (empty hand) and are skipped
    assert structure(state, 0, "Stairway")["complete"] is True
    assert state.is_active(0, "Stairway")
    return state


def _stairway_laid_by_a_grant_with_gate():
    """P0 has a Gate; the Architect action completes Amphitheatre and the first granted
    Craftsman action lays a Stairway foundation, active at once through the Gate."""
    state = state_of(2, [
        {"hand": ["Bridge", "Stairway"], "stockpile": ["Aqueduct", "Shrine"],
         "structures": [done("Gate"), foundation("Amphitheatre", ["Tower"])]},
        {"hand": ["Dock"], "structures": [done("Bath")]},
    ], deck_size=40)
    play(state, "lead Architect with Bridge", "think: take Jack",
         "architect: add Aqueduct to Amphitheatre", "craftsman: lay Stairway")
    assert structure(state, 0, "Stairway")["complete"] is False
    assert state.is_active(0, "Stairway")
    return state


@pytest.mark.parametrize("setup", [_stairway_gained_by_prison, _stairway_completed_by_a_grant,
                                   _stairway_laid_by_a_grant_with_gate],
                         ids=["prison_exchange", "amphitheatre_grant", "gate_foundation_grant"])
def test_R_8_3_4_stairway_gained_by_the_actions_own_completion_effects(setup):
    """R-8.3.4: "The Stairway part is offered after the main part has fully resolved,
    including any upon-completion actions it granted (R-9.3.2); a Stairway completed by
    this same action may be used for it (R-14.1)."  R-14.1: "A function is usable the
    instant it becomes active (completion, Gate foundation, Stairway), including later
    in the same action step."  §13 #29 Prison: the stolen structure's "function is
    active for you at once".

    (a) prison_exchange: the Architect action completes Prison; its upon-completion
        exchange takes P1's Stairway.
    (b) amphitheatre_grant: the Architect action completes Amphitheatre; a granted
        Craftsman action completes P0's Stairway.
    Either way Stairway is active when the Stairway part of that Architect action comes
    up (after the grants / exchange), so P0 must be offered
    "stairway: add Shrine to Bath of P1".

    (c) gate_foundation_grant: a granted Craftsman action lays a Stairway foundation,
        active at once through P0's Gate.

    Engine (fixed): architect_done() only inserted the Stairway entry if Stairway was
    already active when the main part ended, before the completion effects resolved;
    the Stairway part was never offered and the turn passed to P1.
    """
    state = setup()
    assert state.current_player() == 0 and state.phase() == "stairway", \
        (state.phase(), state.current_player(), state.legal_action_strings())
    assert legal(state) == lower_set(["stairway: add Shrine to Bath of P1",
                                      "stairway: skip"])
    play(state, "stairway: add Shrine to Bath of P1")
    assert structure(state, 1, "Bath")["stairway"] == "Shrine"
    assert state.is_active(0, "Bath")


# =======================================================================================
# Interactions checked and found correct (coverage)


def test_R_14_1_gate_completed_by_the_main_part_activates_stairway_for_the_same_action():
    """R-10.6 + R-14.1 + R-8.3.4: the Architect action completes Gate; P0's incomplete
    Stairway (Marble) becomes active at once and its Stairway part is offered by that
    same action."""
    state = state_of(2, [{"hand": ["Jack"], "stockpile": ["Academy", "Dock"],
                          "structures": [foundation("Gate", ["School"]), foundation("Stairway")]},
                         {"hand": ["Crane"], "structures": [done("Market")]}])
    play(state, "lead Architect with Jack", "think: take Jack",
         "architect: add Academy to Gate")
    assert state.is_active(0, "Stairway")
    assert legal(state) == lower_set(["stairway: add Dock to Market of P1",
                                      "stairway: skip"])
    play(state, "stairway: add Dock to Market of P1")
    assert turn_over(state)
    assert state.influence(0) == 2 + 2          # the incomplete Stairway adds nothing


def test_R_14_1_archway_completed_by_the_main_part_serves_the_stairway_part():
    """§13 #4 Archway ("also usable for the Stairway material") + R-14.1: the main part
    completes Archway; the Stairway part of the same action may take from the pool."""
    state = state_of(2, [{"hand": ["Jack"], "stockpile": ["Shrine"],
                          "structures": [done("Stairway"), foundation("Archway", ["Bath"])]},
                         {"hand": ["Crane"], "structures": [done("Market")]}],
                     pool=["Dock"])
    play(state, "lead Architect with Jack", "think: take Jack",
         "architect: add Shrine to Archway")
    assert legal(state) == lower_set(["stairway: add Dock from pool to Market of P1",
                                      "stairway: skip"])
    play(state, "stairway: add Dock from pool to Market of P1")
    assert pool(state) == [] and structure(state, 1, "Market")["stairway"] == "Dock"


def test_R_8_3_4_prison_exchange_comes_before_the_stairway_part_and_feeds_it():
    """R-8.3.4 order (main part, its upon-completion effects, then Stairway) + §13 #29:
    Prison completed by the main part takes P1's Archway; the Stairway part that follows
    may take its material from the pool."""
    state = state_of(2, [{"hand": ["Jack"], "stockpile": ["Villa"],
                          "structures": [done("Stairway"), foundation("Prison", ["Garden", "Sewer"])]},
                         {"hand": ["Crane"], "structures": [done("Market"), done("Archway")]}],
                     pool=["Dock"])
    play(state, "lead Architect with Jack", "think: take Jack",
         "architect: add Villa to Prison")
    assert state.phase() == "prison"
    play(state, "prison: take Archway from P1")
    assert legal(state) == lower_set(["stairway: add Dock from pool to Market of P1",
                                      "stairway: skip"])


def test_R_8_3_4_garden_grants_come_before_the_stairway_part():
    """R-8.3.4 / R-9.3.2: the Patron grants of a Garden completed by the main part are
    performed before that action's Stairway part."""
    state = state_of(2, [{"hand": ["Jack"], "stockpile": ["Villa", "Dock"],
                          "structures": [done("Stairway"), foundation("Garden", ["Sewer", "Prison"])]},
                         {"hand": ["Crane"], "structures": [done("Market")]}], pool=["Bar"])
    play(state, "lead Architect with Jack", "think: take Jack", "architect: add Villa to Garden")
    assert legal(state) == lower_set(["patron: hire Bar from pool", "patron: skip"])
    play(state, "patron: hire Bar from pool")      # the other grants: empty pool
    assert legal(state) == lower_set(["stairway: add Dock to Market of P1", "stairway: skip"])


@pytest.mark.parametrize("own, card, target", [
    ("Road", "Bar", "Sewer"),            # Road: any material on a Stone structure
    ("Scriptorium", "Temple", "Tower"),  # Scriptorium: Marble on any structure
])
def test_A10_stairway_material_legal_through_own_road_or_scriptorium(own, card, target):
    """A10: the Stairway material must be legal for the target; "the Stairway user's
    Road/Tower/Scriptorium apply" (Tower is covered in tests/buildings)."""
    state = state_of(2, [{"hand": ["Jack"], "stockpile": [card],
                          "structures": [done("Stairway"), done(own)]},
                         {"hand": ["Crane"], "structures": [done(target)]}])
    play(state, "lead Architect with Jack", "think: take Jack")
    assert legal(state) == lower_set([f"stairway: add {card} to {target} of P1",
                                      "stairway: skip"])


def test_R_8_1_5_bath_craftsman_completes_aqueduct_mid_patron_action():
    """R-8.1.5 + R-14.1/R-14.2: a Bath hire's Craftsman action completes Aqueduct; the
    rest of the same Patron action offers the Aqueduct hire from hand."""
    state = state_of(2, [{"hand": ["Temple", "Tower", "Road"],
                          "structures": [done("Bath"), foundation("Aqueduct", ["Wall"])]},
                         {"hand": ["Crane"]}], pool=["Dock"], deck_size=40)
    play(state, "lead Patron with Temple", "think: take Jack", "patron: hire Dock from pool",
         "craftsman: add Tower to Aqueduct")
    assert structure(state, 0, "Aqueduct")["complete"] is True
    assert legal(state) == lower_set(["patron: hire Road from hand", "patron: done"])
    play(state, "patron: hire Road from hand")
    assert hand(state, 0) == []


def test_R_6_3_prison_steals_circus_maximus_mid_step():
    """R-6.3 ("a Circus Maximus ... that becomes active for P earlier in the same step
    (completion, Gate, Stairway, Prison) applies to P's client entries not yet reached")
    + §13 #29: the camp action completes Prison and takes P1's Circus Maximus; each of
    P0's two Architect clients then gives 2 actions (4 foundations)."""
    state = state_of(3, [
        {"hand": ["Jack", "Bar", "Dock", "Academy", "Temple", "Tower"], "stockpile": ["Villa"],
         "clientele": ["Aqueduct", "Wall"], "structures": [foundation("Prison", ["Garden", "Sewer"])]},
        {"hand": ["Crane"], "structures": [done("Circus Maximus")]},
        {"hand": ["Crane"]},
    ], deck_size=40)
    play(state, "lead Architect with Jack", "think: take Jack", "think: take Jack",
         "architect: add Villa to Prison", "prison: take Circus Maximus from P1")
    lays = 0
    while state.current_player() == 0 and state.phase() == "action":
        opts = sorted(s for s in state.legal_action_strings()
                      if s.startswith("architect: lay") and "out of town" not in s)
        assert opts, state.legal_action_strings()
        play(state, opts[0])
        lays += 1
    assert lays == 4
    assert state.current_player() == 1


def test_R_10_6_stairwayed_fountain_works_for_an_opponent():
    """R-10.6: an opponent's Stairwayed Fountain lets me draw for my Craftsman action."""
    state = state_of(2, [{"hand": ["Dock", "Bar"]},
                         {"hand": ["Crane"], "structures": [done("Fountain", stairway="Temple")]}],
                     deck_top=["Insula"], deck_size=40)
    play(state, "lead Craftsman with Dock", "think: take Jack")
    assert_legal(state, "craftsman: draw from deck (Fountain)")
    play(state, "craftsman: draw from deck (Fountain)")
    assert_legal(state, "fountain: lay Insula", "fountain: keep Insula")


def test_A19_simultaneous_forum_winners_via_stairwayed_ludus_magnus():
    """R-11.2 / A19: "If several players satisfy it at the same instant (only possible
    via Stairway), the one with the most VP wins".  Imperium, 3 players: P0 and P1 own
    Forum; each has five roles covered plus a second Merchant client.  P0 Stairways
    P2's Ludus Magnus: Ludus becomes active for everyone and both satisfy Forum at once.
    P1 has more VP (17 vs 8) and wins alone."""
    state = state_of(3, [
        {"hand": ["Jack"], "stockpile": ["Temple"],
         "clientele": ["Bar", "Dock", "Tower", "Shrine", "Villa", "Sewer"],
         "structures": [done("Stairway"), done("Forum")]},
        {"hand": ["Jack"], "vault": ["Basilica", "Fountain", "Palace"],
         "clientele": ["Road", "Market", "Wall", "Bath", "Garden", "Prison"],
         "structures": [done("Forum")]},
        {"hand": ["Jack"], "structures": [done("Ludus Magnus")]},
    ], mode="imperium")
    assert not state.is_terminal()
    play(state, "lead Architect with Jack", "think: take Jack", "think: take Jack",
         "stairway: add Temple to Ludus Magnus of P2")
    assert state.is_terminal() and state.end_reason() == "forum"
    assert state.scores()[:2] == [8, 17]
    assert state.winners() == [1]
    assert stock(state, 0) == []


NO_BRICK_IN_TOWN = {"in_town": {"Brick": 0}, "out_of_town": {"Brick": 4}}
P1_HOLDS_TWO_BRICK = {"hand": ["Latrine"], "structures": [foundation("Academy"), foundation("Archway")]}


def test_R_9_1_4_last_amphitheatre_grant_pairs_with_a_craftsman_client():
    """R-9.1.4: the second action of an out-of-town pair is "the next action in the
    player's current action queue ... camp, client, or completion-granted actions all
    qualify".  The camp Craftsman action completes Amphitheatre (4 grants); after three
    skipped grants the last grant pairs with the Craftsman client's action (the
    converse of the Architect case in tests/buildings)."""
    state = state_of(2, [{"hand": ["Dock", "Tower", "Bath"], "clientele": ["Market"],
                          "structures": [foundation("Amphitheatre", ["Wall"])]},
                         P1_HOLDS_TWO_BRICK], sites=NO_BRICK_IN_TOWN)
    play(state, "lead Craftsman with Dock", "think: take Jack",
         "craftsman: add Tower to Amphitheatre")
    for _ in range(3):
        play(state, "craftsman: skip")
    assert legal(state) == lower_set(["craftsman: lay Bath out of town", "craftsman: skip"])
    play(state, "craftsman: lay Bath out of town")
    assert turn_over(state)                       # the client's action was consumed
    assert structure(state, 0, "Bath")["out_of_town"] is True


def test_R_9_1_4_out_of_town_pair_takes_half_of_a_doubled_client():
    """R-9.1.4 + R-6.3: with Circus Maximus the Craftsman client gives 2 actions; an
    out-of-town foundation by the camp action consumes one of them, the other remains."""
    state = state_of(2, [{"hand": ["Dock", "Bath", "Bar"], "clientele": ["Market"],
                          "structures": [done("Circus Maximus")]},
                         P1_HOLDS_TWO_BRICK], sites=NO_BRICK_IN_TOWN)
    play(state, "lead Craftsman with Dock", "think: take Jack",
         "craftsman: lay Bath out of town")
    assert legal(state) == lower_set(["craftsman: lay Bar", "craftsman: skip"])
    play(state, "craftsman: lay Bar")
    assert turn_over(state)


# ---------------------------------------------------------------------------------------
# R-8.5.2 / §13 #8 Bath: "A card already revealed by this player earlier in the same turn
# may not be revealed again." The engine kept a per-type counter of reveals and never
# lowered it when a revealed card left the hand, so a *different* card of the same type
# that entered the hand later could never be revealed (fixed).


def test_R_8_5_2_bath_legionary_may_reveal_a_new_copy_after_the_revealed_one_left():
    """R-8.5.2, §13 #8 Bath, #3 Aqueduct, #20 Fountain.

    P0 leads Patron (Palace) with Bath, Aqueduct and Fountain and two Patron clients.
    Action 1: hire Academy (Brick) -> Bath Legionary: reveal Atrium (the only card).
              Aqueduct: hire that Atrium from hand (hand now empty).
    Action 2: hire Dock (Wood) -> Bath Craftsman: Fountain draws the *other* Atrium; keep it.
    Action 3: hire Gate (Brick) -> Bath Legionary: the Atrium now in hand was never
              revealed, so revealing it is legal.
    The bug: the engine offered no reveal (its counter still said "Atrium revealed") and
    the Legionary action was silently lost.
    """
    d = position(2, [
        {"hand": ["Palace", "Atrium"], "clientele": ["Temple", "Basilica"],
         "structures": [done("Bath"), done("Aqueduct"), done("Fountain")]},
        {"hand": []},
    ], pool=["Academy", "Dock", "Gate"], deck_top=["Atrium"], deck_size=30)
    state = from_dict(d)
    play(state, "lead Patron with Palace", "think: take Jack",
         "patron: hire Academy from pool",
         "legionary: reveal Atrium", "legionary: done taking",
         "patron: hire Atrium from hand",            # the revealed Atrium leaves the hand
         "patron: hire Dock from pool",
         "craftsman: draw from deck (Fountain)", "fountain: keep Atrium",
         "patron: done")
    assert hand(state, 0) == ["Atrium"]                # a card that was never revealed
    play(state, "patron: hire Gate from pool")         # Bath: a Legionary action
    assert norm("legionary: reveal Atrium") in legal(state), state.legal_action_strings()
