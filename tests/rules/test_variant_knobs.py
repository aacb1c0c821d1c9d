"""The designer knobs of issue 33 (/work/notes/knobs.md): ``materials``, ``points`` and
``powers_off``, read against the rules (docs/rules.md) and the knob specification only.

Most tests are a parametrized pair over the same position: ``published`` (no knob: the
published rule, which today's build already plays) and ``knob`` (the variant: what the
implementation must do). Rule ids in the comments are those of docs/rules.md.
"""

import pytest

from glory_ai import Game, State
from support.positions import (
    built,
    done,
    foundation,
    legal,
    lower_set,
    norm,
    play,
    state_of,
    stock,
    strings_with,
    structure,
    turn_over,
    zone,
)

PUBLISHED = {"petition_size": 2, "refill_size": 5}   # today's Republic variant dict
STANDARD_VP = {"influence", "vault", "merchant_bonus", "statue", "wall", "total"}

CATACOMB_MARBLE = {"materials": {"Catacomb": "Marble"}}
BAR_STONE = {"materials": {"Bar": "Stone"}}


def pair(knob):
    """Parametrize a test over the published rules (variant None) and ``knob``."""
    return pytest.mark.parametrize("variant", [None, knob], ids=["published", "knob"])


def game_state(players, variant=None, num_players=2, **extra):
    """A position (support.positions) under ``variant`` (None: the published rules)."""
    if variant:
        extra["variant"] = variant
    return state_of(num_players, players, **extra)


def off(*names):
    return {"powers_off": list(names)}


# =========================================================================== materials
# Catacomb is printed Stone (Merchant, value 3); the knob makes it Marble (Patron, value 3).
# Bar is printed Rubble (Laborer, value 1); {"Bar": "Stone"} makes it Stone (value 3).


@pair(CATACOMB_MARBLE)
def test_R_2_1_R_6_6_made_material_sets_the_role_a_card_leads(variant):
    # the role of an Order card is fixed by its material; R-6.6 (1) one card of the role
    role, other = ("Patron", "Merchant") if variant else ("Merchant", "Patron")
    state = game_state([{"hand": ["Catacomb", "Bar"]}, {"hand": ["Dock"]}], variant)
    assert norm(f"lead {role} with Catacomb") in legal(state)
    assert norm(f"lead {other} with Catacomb") not in legal(state)
    play(state, f"lead {role} with Catacomb")
    assert state.led_role() == role


@pair(CATACOMB_MARBLE)
def test_R_6_2_made_material_sets_the_role_a_card_follows(variant):
    # following Patron needs a Patron (Marble) card, a Jack or a petition
    state = game_state([{"hand": ["Temple"]}, {"hand": ["Catacomb", "Bar"]}], variant)
    play(state, "lead Patron with Temple")
    assert (norm("follow Patron with Catacomb") in legal(state)) == bool(variant)
    assert norm("follow Merchant with Catacomb") not in legal(state)


@pair(CATACOMB_MARBLE)
def test_R_6_6_petition_counts_the_made_material(variant):
    # R-6.6 (3): a petition is P cards sharing one role; Catacomb + Temple share Patron only
    # under the knob (Republic P = 2)
    state = game_state([{"hand": ["Catacomb", "Temple", "Bar"]}, {"hand": ["Dock"]}], variant)
    petitions = {s for s in legal(state) if "by petition of" in s}
    if variant:
        assert norm("lead Laborer by petition of Patron") in petitions
        assert not any(s.endswith("petition of merchant") for s in petitions)
    else:
        assert petitions == set()


@pair(CATACOMB_MARBLE)
def test_R_9_1_1_R_9_1_3_foundation_takes_an_in_town_site_of_the_made_material(variant):
    # site material s = material(F): an in-town site of s, one action
    site = "Marble" if variant else "Stone"
    other = "Stone" if variant else "Marble"
    state = game_state([{"hand": ["Dock", "Catacomb"]}, {"hand": ["Bar"]}], variant)
    play(state, "lead Craftsman with Dock", "think: take Jack", "craftsman: lay Catacomb")
    s = structure(state, 0, "Catacomb")
    assert s["site"] == site and s["out_of_town"] is False and s["complete"] is False
    d = state.to_dict()["sites"]
    assert d["in_town"][site] == 1 and d["in_town"][other] == 2   # 2 players: 2 in town each
    assert d["out_of_town"][site] == 4


@pair(CATACOMB_MARBLE)
def test_R_9_1_3_R_9_1_4_out_of_town_when_no_in_town_site_of_the_made_material(variant):
    # no in-town Marble site left (P1 holds both in influence), in-town Stone left:
    # in town when possible; out of town takes two Craftsman actions
    state = game_state([{"hand": ["Dock", "Catacomb"], "clientele": ["Market"]},
                        {"hand": ["Bar"], "influence": ["Marble", "Marble"]}], variant,
                       sites={"in_town": {"Marble": 0}, "out_of_town": {"Marble": 4}})
    play(state, "lead Craftsman with Dock", "think: take Jack")
    in_town, out = norm("craftsman: lay Catacomb"), norm("craftsman: lay Catacomb out of town")
    if variant:
        assert in_town not in legal(state) and out in legal(state)
        play(state, "craftsman: lay Catacomb out of town")
        s = structure(state, 0, "Catacomb")
        assert s["site"] == "Marble" and s["out_of_town"] is True
        assert state.to_dict()["sites"]["out_of_town"]["Marble"] == 3
        assert turn_over(state)   # both Craftsman actions were used
    else:
        assert in_town in legal(state) and out not in legal(state)
        play(state, "craftsman: lay Catacomb")
        assert structure(state, 0, "Catacomb")["site"] == "Stone"


@pair(CATACOMB_MARBLE)
def test_R_9_2_2_architect_pays_only_with_the_made_material_from_the_stockpile(variant):
    # a material is legal if material(X) == material(foundation)
    site = "Marble" if variant else "Stone"
    state = game_state([{"hand": ["Tower"], "stockpile": ["Villa", "Temple"],
                         "structures": [foundation("Catacomb", site=site)]},
                        {"hand": ["Bar"]}], variant)
    play(state, "lead Architect with Tower", "think: take Jack")
    payer = "Temple" if variant else "Villa"
    assert strings_with(state, "architect: add") == lower_set(
        [f"architect: add {payer} to Catacomb"])


@pair(CATACOMB_MARBLE)
def test_R_9_2_2_craftsman_pays_only_with_the_made_material_from_hand(variant):
    # material from hand, of the foundation's material
    site = "Marble" if variant else "Stone"
    state = game_state([{"hand": ["Dock", "Villa", "Temple"],
                         "structures": [foundation("Catacomb", site=site)]},
                        {"hand": ["Bar"]}], variant)
    play(state, "lead Craftsman with Dock", "think: take Jack")
    payer = "Temple" if variant else "Villa"
    assert strings_with(state, "craftsman: add") == lower_set(
        [f"craftsman: add {payer} to Catacomb"])


@pair(CATACOMB_MARBLE)
def test_R_9_2_3_R_11_1_3_marble_catacomb_completes_with_three_marble_and_still_ends(variant):
    # complete at value(site) = 3 materials; R-9.3.1 +3 influence;
    # R-11.1(3): the Catacomb's own function is untouched by the materials knob
    site, mats, last = (("Marble", ["Temple", "Palace"], "Statue") if variant
                        else ("Stone", ["Villa", "Prison"], "Garden"))
    state = game_state([{"hand": ["Dock", last],
                         "structures": [foundation("Catacomb", mats, site=site)]},
                        {"hand": ["Bar"]}], variant)
    play(state, "lead Craftsman with Dock", "think: take Jack",
         f"craftsman: add {last} to Catacomb")
    s = structure(state, 0, "Catacomb")
    assert s["complete"] is True and sorted(s["materials"]) == sorted(mats + [last])
    assert state.influence(0) == 5
    assert state.is_terminal() and state.end_reason() == "catacomb"


@pair(BAR_STONE)
def test_R_9_2_3_R_9_3_1_completion_count_and_influence_follow_the_made_material(variant):
    # Bar as Rubble: 1 material, +1 influence. Bar as Stone: a Stone site, 3 Stone
    # materials (R-2.2 build cost), +3 influence; Rubble no longer pays
    site = "Stone" if variant else "Rubble"
    state = game_state([{"hand": ["Dock", "Road", "Villa", "Garden", "Prison"],
                         "clientele": ["Market", "Palisade"],
                         "structures": [foundation("Bar", site=site)]},
                        {"hand": ["Insula"]}], variant)
    play(state, "lead Craftsman with Dock", "think: take Jack")
    if variant:
        assert norm("craftsman: add Road to Bar") not in legal(state)
        play(state, "craftsman: add Villa to Bar")
        assert structure(state, 0, "Bar")["complete"] is False
        play(state, "craftsman: add Garden to Bar")
        assert structure(state, 0, "Bar")["complete"] is False
        play(state, "craftsman: add Prison to Bar")
        assert structure(state, 0, "Bar")["complete"] is True
        assert state.influence(0) == 2 + 3
    else:
        assert norm("craftsman: add Villa to Bar") not in legal(state)
        play(state, "craftsman: add Road to Bar")
        assert structure(state, 0, "Bar")["complete"] is True
        assert state.influence(0) == 2 + 1


@pair(BAR_STONE)
def test_R_12_1_vault_value_and_merchant_bonus_follow_the_made_material(variant):
    # a vault card scores value(material): bonus to strictly the most.
    # Published: P0 Rubble 1 (+3 bonus), P1 Stone 1 (+3). Knob: Stone 1 vs 1 -> tie, nobody.
    state = game_state([{"vault": ["Bar"]}, {"vault": ["Villa"]}], variant)
    b0, b1 = state.score_breakdown(0), state.score_breakdown(1)
    if variant:
        assert (b0["vault"], b0["merchant_bonus"]) == (3, 0)
        assert (b1["vault"], b1["merchant_bonus"]) == (3, 0)
        assert state.scores() == [5, 5]
    else:
        assert (b0["vault"], b0["merchant_bonus"]) == (1, 3)
        assert (b1["vault"], b1["merchant_bonus"]) == (3, 3)
        assert state.scores() == [6, 8]


@pair(CATACOMB_MARBLE)
def test_R_12_2_merchant_bonus_counts_the_card_as_its_made_material(variant):
    # P0 vault {Catacomb, Villa}, P1 vault {Temple}. Published: P0 Stone 2 (+3), P1 Marble
    # 1 (+3). Knob: Marble 1 vs 1 tie (nobody); Stone P0 1 (+3).
    state = game_state([{"vault": ["Catacomb", "Villa"]}, {"vault": ["Temple"]}], variant)
    assert state.score_breakdown(0)["merchant_bonus"] == 3
    assert state.score_breakdown(1)["merchant_bonus"] == (0 if variant else 3)
    assert state.scores() == ([11, 5] if variant else [11, 8])


@pair(CATACOMB_MARBLE)
def test_R_8_5_2_revealed_card_demands_its_made_material(variant):
    # R-8.5.2: the demand is the multiset of the revealed cards' materials;
    # the victim must give a card of that material (one choice: given at once)
    state = game_state([{"hand": ["Shrine", "Catacomb"]}, {"hand": ["Temple", "Villa"]}],
                       variant)
    play(state, "lead Legionary with Shrine", "think: take Jack", "legionary: reveal Catacomb")
    given = "Temple" if variant else "Villa"
    kept = "Villa" if variant else "Temple"
    assert stock(state, 0) == [given]
    assert zone(state, 1, "hand") == sorted(["Jack", kept])


@pair(CATACOMB_MARBLE)
def test_R_8_5_3_R_8_5_6_made_material_card_answers_a_demand(variant):
    # demand Marble (Temple revealed): the Catacomb in the pool may be taken,
    # the victim's Catacomb must be given -- only when Catacomb is Marble
    state = game_state([{"hand": ["Shrine", "Temple"]},
                        {"hand": ["Catacomb", "Villa"]}], variant, pool=["Catacomb"])
    play(state, "lead Legionary with Shrine", "think: take Jack", "legionary: reveal Temple")
    if variant:
        play(state, "legionary: take Catacomb from pool")
        assert stock(state, 0) == ["Catacomb", "Catacomb"]
        assert zone(state, 1, "hand") == ["Jack", "Villa"]
    else:
        # no Marble in the pool (not asked) nor in the victim's hand ("Glory to Rome!")
        assert stock(state, 0) == []
        assert zone(state, 1, "hand") == ["Catacomb", "Jack", "Villa"]
        assert "Catacomb" in state.to_dict()["pool"]


@pair(CATACOMB_MARBLE)
def test_R_11_2_forum_romanum_stockpile_counts_the_made_material(variant):
    # S10 (d) with a Catacomb taken instead of the Temple: needs >= 1 stockpile card
    # of every material; the Catacomb supplies the Marble only under the knob
    state = game_state([
        {"hand": ["Jack"], "clientele": ["Temple", "Bar", "Dock", "Tower", "Shrine", "Villa"],
         "stockpile": ["Bar", "Dock", "Tower", "Shrine", "Villa"],
         "structures": [built("Forum Romanum", ["Palace", "Palace", "Statue"]),
                        built("Insula", ["Latrine"])]},
        {"hand": ["Dock"]},
    ], variant, pool=["Catacomb", "Road"])
    assert not state.is_terminal()
    play(state, "lead Laborer with Jack", "think: take Jack", "laborer: take Catacomb from pool")
    if variant:
        assert state.is_terminal() and state.end_reason() == "forum"
        assert state.winners() == [0]
    else:
        assert not state.is_terminal()


@pair(CATACOMB_MARBLE)
def test_R_11_2_forum_romanum_client_role_follows_the_made_material(variant):
    # A Catacomb client is a Patron client under the knob; hiring a Merchant
    # (Garden) then completes the six roles (R-11.2) -- published it is a second Merchant
    state = game_state([
        {"hand": ["Basilica"], "clientele": ["Catacomb", "Bar", "Dock", "Tower", "Shrine"],
         "stockpile": ["Bar", "Dock", "Tower", "Shrine", "Villa", "Temple"],
         "structures": [built("Forum Romanum", ["Palace", "Palace", "Statue"]),
                        built("Insula", ["Latrine"])]},
        {"hand": ["Road"]},
    ], variant, pool=["Garden"])
    assert not state.is_terminal()
    play(state, "lead Patron with Basilica", "think: take Jack", "patron: hire Garden from pool")
    assert state.is_terminal() == bool(variant)
    if variant:
        assert state.end_reason() == "forum" and state.winners() == [0]


@pair(CATACOMB_MARBLE)
def test_R_9_2_2_road_no_longer_serves_a_catacomb_made_marble(variant):
    # R-9.2.2 / Road: any material may be added to a Stone structure (Stone foundation or
    # Stone site); a Marble Catacomb on a Marble site is no Stone structure
    site = "Marble" if variant else "Stone"
    state = game_state([{"hand": ["Dock", "Bar"],
                         "structures": [built("Road", ["Latrine"]),
                                        foundation("Catacomb", site=site)]},
                        {"hand": ["Insula"]}], variant)
    play(state, "lead Craftsman with Dock", "think: take Jack")
    assert (norm("craftsman: add Bar to Catacomb") in legal(state)) == (not variant)


@pair({"materials": {"Insula": "Marble"}})
def test_R_10_6_gate_makes_a_building_made_marble_work_from_foundation(variant):
    # R-10.6 / Gate: own incomplete Marble structures are active; Insula +2 clientele limit
    # . Gate on a Brick site: influence 4.
    site = "Marble" if variant else "Rubble"
    state = game_state([{"hand": ["Basilica"], "clientele": ["Bar", "Dock", "Tower", "Shrine"],
                         "structures": [built("Gate", ["Bath", "Bath"]),
                                        foundation("Insula", site=site)]},
                        {"hand": ["Road"]}], variant, pool=["Temple"])
    assert state.influence(0) == 4
    assert state.clientele_limit(0) == (6 if variant else 4)
    play(state, "lead Patron with Basilica", "think: take Jack")
    hire = norm("patron: hire Temple from pool")
    if variant:
        play(state, hire)
        assert len(zone(state, 0, "clientele")) == 5
    else:
        assert hire not in legal(state) or state.current_player() != 0


@pair({"materials": {"Temple": "Wood"}})
def test_R_10_6_gate_no_longer_serves_a_marble_building_made_wood(variant):
    # Temple (refill +4, R-10.5) under construction with Gate: active only while Marble
    site = "Wood" if variant else "Marble"
    state = game_state([{"hand": ["Bar", "Road", "Dock", "Villa", "Sewer"],
                         "structures": [built("Gate", ["Bath", "Bath"]),
                                        foundation("Temple", site=site)]},
                        {"hand": ["Insula"]}], variant)
    assert state.refill_size(0) == (5 if variant else 9)
    assert (norm("think: refill") in legal(state)) == (not variant)
    assert (norm("think: draw 1") in legal(state)) == bool(variant)


@pair(CATACOMB_MARBLE)
def test_positions_default_site_of_a_made_building_is_its_made_material(variant):
    # docs/notation.md: a structure's site defaults to the building's own material
    state = game_state([{"structures": [{"building": "Catacomb"}]}, {}], variant)
    assert structure(state, 0, "Catacomb")["site"] == ("Marble" if variant else "Stone")


def test_positions_printed_site_is_refused_for_a_building_made_another_material():
    # only a Statue may stand on a site of another material (R-9.1.1, docs/notation.md):
    # under the knob a Catacomb's site is Marble, so a Stone site is refused
    accepted = game_state([{"structures": [foundation("Catacomb", site="Marble")]}, {}],
                          CATACOMB_MARBLE)
    assert structure(accepted, 0, "Catacomb")["site"] == "Marble"
    with pytest.raises(ValueError, match="site"):
        game_state([{"structures": [foundation("Catacomb", site="Stone")]}, {}],
                   CATACOMB_MARBLE)


# =========================================================================== points


@pair({"points": {"Insula": 4}})
def test_R_12_points_a_completed_structure_scores_its_extra_vp(variant):
    state = game_state([{"structures": [built("Insula", ["Road"])]}, {}], variant)
    extra = 4 if variant else 0
    assert state.scores() == [2 + 1 + extra, 2]
    b = state.score_breakdown(0)
    assert b["total"] == 3 + extra
    assert {k: b[k] for k in STANDARD_VP - {"total"}} == {
        "influence": 3, "vault": 0, "merchant_bonus": 0, "statue": 0, "wall": 0}
    if variant:
        assert b["buildings"] == 4
    else:
        assert set(b) == STANDARD_VP   # the published breakdown keeps its exact keys


@pair({"points": {"Insula": 4}})
def test_R_12_points_only_once_complete_and_counted_at_any_time(variant):
    # incomplete: nothing extra; completing it mid-turn adds influence and points
    state = game_state([{"hand": ["Dock", "Road"], "structures": [foundation("Insula")]},
                        {"hand": ["Bar"]}], variant)
    assert state.scores() == [2, 2]
    play(state, "lead Craftsman with Dock", "think: take Jack", "craftsman: add Road to Insula")
    assert structure(state, 0, "Insula")["complete"] is True
    assert state.scores()[0] == 3 + (4 if variant else 0)


@pair({"points": {"Insula": 2, "Market": 3}})
def test_R_12_points_each_completed_copy_and_each_building_count(variant):
    # P0: Insula + Market complete; P1: Insula complete, Market incomplete (another copy)
    state = game_state([
        {"structures": [built("Insula", ["Road"]), built("Market", ["Dock"])]},
        {"structures": [built("Insula", ["Latrine"]), foundation("Market")]},
    ], variant)
    base = [2 + 1 + 1, 2 + 1]
    extra = [2 + 3, 2] if variant else [0, 0]
    assert state.scores() == [b + e for b, e in zip(base, extra, strict=True)]


@pair({"points": {"Statue": 2, "Wall": 1}})
def test_R_12_1_points_add_to_every_other_vp_source(variant):
    # influence 2+3+2 = 7, vault Temple 3, Marble bonus 3, Statue 3, Wall floor(4/2) = 2
    state = game_state([{"vault": ["Temple"], "stockpile": ["Bar", "Bar", "Road", "Road"],
                         "structures": [built("Statue", ["Palace", "Palace", "Fountain"]),
                                        built("Wall", ["Tower", "Tower"])]}, {}], variant)
    b = state.score_breakdown(0)
    assert {k: b[k] for k in STANDARD_VP - {"total"}} == {
        "influence": 7, "vault": 3, "merchant_bonus": 3, "statue": 3, "wall": 2}
    assert b["total"] == 18 + (3 if variant else 0)
    assert state.scores()[0] == b["total"]


@pair({"points": {"Statue": 5, "Gate": 1}})
def test_R_12_1_points_need_completion_even_where_gate_activates_statue(variant):
    # Gate: an incomplete Statue's +3 counts (R-10.6, S12 variant) -- but it is not a
    # completed structure, so it earns no points; the completed Gate does
    state = game_state([{"structures": [built("Gate", ["Bath", "Bath"]),
                                        foundation("Statue")]}, {}], variant)
    assert state.score_breakdown(0)["statue"] == 3
    assert state.scores()[0] == 2 + 2 + 3 + (1 if variant else 0)


@pair({"points": {"Insula": 1}})
def test_R_12_3_points_decide_the_winner_at_game_end(variant):
    # 3 VP each; P1 holds more cards (R-12.3 tie-break) -- the Insula's point breaks the tie
    state = game_state([{"hand": ["Bar", "Dock"], "structures": [built("Insula", ["Road"])]},
                        {"hand": ["Temple", "Villa", "Garden", "Prison", "Sewer"],
                         "influence": ["Rubble"]}], variant, deck=["Tower"])
    play(state, "think: refill")   # draws the last card: the game ends (R-11.1(1))
    assert state.is_terminal() and state.end_reason() == "deck"
    assert state.scores() == ([4, 3] if variant else [3, 3])
    assert state.winners() == ([0] if variant else [1])


@pair({"points": {"Insula": 2}})
def test_R_12_record_vp_breakdown_has_buildings_only_under_points(variant):
    # knobs.md: the record's VP breakdown gains "buildings" only when the variant has points
    from glory_ai.interactive.records import build_record

    game = Game(2, **(variant or {}))
    state = game.new_initial_state(3)
    state.random_playout(3)
    record = build_record(num_players=2, mode="republic", variant=state.config().variant(),
                          seed=3, seats=["random", "random"], bot_seeds=[1, 2],
                          actions=state.history())
    assert record["scores"] == state.scores()
    for vp in record["vp"]:
        assert set(vp) == (STANDARD_VP | {"buildings"} if variant else STANDARD_VP)
        assert vp["total"] == sum(v for k, v in vp.items() if k != "total")


# =========================================================================== powers_off


def catacomb_position(variant):
    """S11 cut to 2 players: P0 completes a Catacomb with the first of two Craftsman
    actions (camp Dock + client Market); Temple stays in hand for the second."""
    return game_state([{"hand": ["Dock", "Garden", "Temple"], "clientele": ["Market"],
                        "structures": [built("Archway", ["Bath", "Bath"]),
                                       foundation("Catacomb", ["Prison", "Sewer"])]},
                       {"hand": ["Bar"]}], variant)


@pair(off("Catacomb"))
def test_R_11_1_3_catacomb_off_does_not_end_the_game(variant):
    state = catacomb_position(variant)
    play(state, "lead Craftsman with Dock", "think: take Jack",
         "craftsman: add Garden to Catacomb")
    assert structure(state, 0, "Catacomb")["complete"] is True
    assert state.influence(0) == 2 + 2 + 3          # the site still counts
    if variant:
        assert not state.is_terminal() and state.end_reason() is None
        assert state.current_player() == 0          # the Market client's action is next
        assert norm("craftsman: lay Temple") in legal(state)
        assert "Catacomb" not in state.functions_used()
    else:
        assert state.is_terminal() and state.end_reason() == "catacomb"


def test_R_11_1_3_catacomb_off_with_points_is_worth_three_without_ending():
    variant = {"powers_off": ["Catacomb"], "points": {"Catacomb": 3}}
    state = catacomb_position(variant)
    play(state, "lead Craftsman with Dock", "think: take Jack",
         "craftsman: add Garden to Catacomb")
    assert not state.is_terminal()
    assert state.scores() == [2 + 2 + 3 + 3, 2]
    assert state.score_breakdown(0)["buildings"] == 3
    play(state, "craftsman: lay Temple")            # the game goes on
    assert structure(state, 0, "Temple") is not None
    d = state.to_dict()["variant"]
    assert d["powers_off"] == ["Catacomb"] and d["points"] == {"Catacomb": 3}


@pair(off("Forum Romanum"))
def test_R_11_2_forum_romanum_off_never_wins(variant):
    # S10 (d): six roles among the clients, the Temple brings the sixth material
    state = game_state([
        {"hand": ["Jack"], "clientele": ["Temple", "Bar", "Dock", "Tower", "Shrine", "Villa"],
         "stockpile": ["Bar", "Dock", "Tower", "Shrine", "Villa"],
         "structures": [built("Forum Romanum", ["Palace", "Palace", "Statue"]),
                        built("Insula", ["Latrine"])]},
        {"hand": ["Dock"]},
    ], variant, pool=["Temple", "Road"])
    play(state, "lead Laborer with Jack", "think: take Jack", "laborer: take Temple from pool")
    if variant:
        assert not state.is_terminal()
        play(state, "laborer: take Road from pool")  # the Bar client still acts
        assert not state.is_terminal()
        assert "Forum Romanum" not in state.functions_used()
    else:
        assert state.is_terminal() and state.end_reason() == "forum"


@pair(off("Forum"))
def test_R_11_2_forum_off_never_wins_in_imperium(variant):
    # S10 (a): hiring Villa gives clients of all six roles
    state = game_state([
        {"hand": ["Basilica"], "clientele": ["Temple", "Bar", "Dock", "Tower", "Shrine"],
         "structures": [built("Forum", ["Fountain", "Stairway", "Stairway"]),
                        built("Insula", ["Latrine"])]},
        {"hand": ["Statue"]},
    ], variant, leader=1, mode="imperium", pool=["Villa", "Road"])
    play(state, "lead Patron with Statue", "follow Patron with Basilica",
         "patron: hire Road from pool", "patron: hire Villa from pool")
    assert len(zone(state, 0, "clientele")) == 6
    assert state.is_terminal() != bool(variant)
    if not variant:
        assert state.end_reason() == "forum"


# upon completion, actions = influence after completion, queued first
GRANTS = {  # building: (materials already on it, the last material, granted-role prefix)
    "Amphitheatre": (["Aqueduct"], "Bridge", "craftsman:"),
    "Foundry": (["Bath"], "Atrium", "laborer:"),
    "Garden": (["Villa", "Prison"], "Sewer", "patron:"),
    "School": (["Shrine"], "Academy", "think:"),
}


@pytest.mark.parametrize("building", sorted(GRANTS))
@pytest.mark.parametrize("powered", [True, False], ids=["published", "off"])
def test_R_9_3_2_no_granted_actions_when_the_power_is_off(building, powered):
    mats, last, prefix = GRANTS[building]
    variant = None if powered else off(building)
    # the pool and the Temple in hand give each granted action something to do
    state = game_state([{"hand": ["Tower", "Temple"], "stockpile": [last],
                         "structures": [foundation(building, mats)]},
                        {"hand": ["Bar"]}], variant, pool=["Road"])
    play(state, "lead Architect with Tower", "think: take Jack",
         f"architect: add {last} to {building}")
    assert structure(state, 0, building)["complete"] is True
    if powered:
        assert state.current_player() == 0 and strings_with(state, prefix)
    else:
        assert turn_over(state)                     # P0 had no other action
        assert building not in state.functions_used()


@pair(off("Prison"))
def test_R_9_3_2_prison_off_offers_no_swap(variant):
    state = game_state([{"hand": ["Tower"], "stockpile": ["Sewer"],
                         "structures": [foundation("Prison", ["Villa", "Garden"])]},
                        {"hand": ["Bar"], "structures": [built("Market", ["Dock"])]}],
                       variant)
    play(state, "lead Architect with Tower", "think: take Jack", "architect: add Sewer to Prison")
    assert structure(state, 0, "Prison")["complete"] is True
    if variant:
        assert not strings_with(state, "prison:")
        assert turn_over(state)
    else:
        assert norm("prison: take Market from P1") in legal(state)


@pair(off("Market"))
def test_R_10_3_market_off_gives_no_extra_vault_room(variant):
    # Market on a Wood site: influence 3; vault limit 3 + 2 only with the power on
    state = game_state([{"hand": ["Villa"], "stockpile": ["Insula"], "vault": ["Bar", "Road", "Dock"],
                         "structures": [built("Market", ["Palisade"])]},
                        {"hand": ["Latrine"]}], variant)
    assert state.vault_limit(0) == (3 if variant else 5)
    play(state, "lead Merchant with Villa", "think: take Jack")
    assert (norm("merchant: vault Insula from stockpile") in legal(state)) == (not variant)


@pair(off("Insula"))
def test_R_10_2_insula_off_gives_no_extra_clients(variant):
    # Insula on a Rubble site: influence 3; clientele limit 3 + 2 only with the power on
    state = game_state([{"hand": ["Basilica"], "clientele": ["Bar", "Dock", "Tower"],
                         "structures": [built("Insula", ["Road"])]},
                        {"hand": ["Latrine"]}], variant, pool=["Temple"])
    assert state.clientele_limit(0) == (3 if variant else 5)
    play(state, "lead Patron with Basilica", "think: take Jack")
    assert (norm("patron: hire Temple from pool") in legal(state)) == (not variant)


@pair(off("Shrine"))
def test_R_10_5_shrine_off_keeps_the_refill_size(variant):
    # hand 5: refill only below the refill size, which Shrine raises to 7
    state = game_state([{"hand": ["Bar", "Road", "Dock", "Villa", "Sewer"],
                         "structures": [built("Shrine", ["Bath", "Bath"])]},
                        {"hand": ["Latrine"]}], variant)
    assert state.refill_size(0) == (5 if variant else 7)
    assert (norm("think: refill") in legal(state)) == (not variant)
    assert (norm("think: draw 1") in legal(state)) == bool(variant)


@pair(off("Wall"))
def test_R_8_5_5_wall_off_gives_no_legionary_immunity(variant):
    state = game_state([{"hand": ["Shrine", "Garden"]},
                        {"hand": ["Villa"], "structures": [built("Wall", ["Tower", "Tower"])]}],
                       variant)
    play(state, "lead Legionary with Shrine", "think: take Jack", "legionary: reveal Garden")
    if variant:
        assert stock(state, 0) == ["Villa"]
        assert "Wall" not in state.functions_used()
    else:
        assert stock(state, 0) == [] and "Villa" in zone(state, 1, "hand")
        assert "Wall" in state.functions_used()


@pair(off("Wall"))
def test_R_12_1_wall_off_scores_nothing_for_the_stockpile(variant):
    state = game_state([{"stockpile": ["Bar", "Bar", "Road", "Road"],
                         "structures": [built("Wall", ["Tower", "Tower"])]}, {}], variant)
    assert state.score_breakdown(0)["wall"] == (0 if variant else 2)
    assert state.scores()[0] == 2 + 2 + (0 if variant else 2)


@pair(off("Gate"))
def test_R_10_6_gate_off_marble_foundations_do_not_work(variant):
    state = game_state([{"hand": ["Bar", "Road", "Dock", "Villa", "Sewer"],
                         "structures": [built("Gate", ["Bath", "Bath"]), foundation("Temple")]},
                        {"hand": ["Latrine"]}], variant)
    assert state.refill_size(0) == (5 if variant else 9)
    assert (norm("think: refill") in legal(state)) == (not variant)


@pair(off("Insula"))
def test_R_10_6_stairway_on_a_building_whose_power_is_off_does_nothing(variant):
    # P1's completed Insula carries a Stairway material: published, its +2 is active for
    # every player; off, for nobody
    state = game_state([{}, {"structures": [done("Insula", stairway="Latrine",
                                                 materials=["Road"])]}], variant)
    assert state.clientele_limit(0) == (2 if variant else 4)
    assert state.clientele_limit(1) == (3 if variant else 5)


# =========================================================================== bad input

BAD = [
    ({"materials": {"Catacmb": "Marble"}}, "materials"),      # unknown building
    ({"materials": {"Catacomb": "Gold"}}, "materials"),       # unknown material
    ({"materials": {"Jack": "Marble"}}, "materials"),         # a Jack has no material
    ({"points": {"Catacomb": 0}}, "points"),
    ({"points": {"Catacomb": 10}}, "points"),
    ({"points": {"Catacomb": 2.5}}, "points"),
    ({"points": {"Catacomb": "3"}}, "points"),
    ({"points": {"Nothing": 3}}, "points"),
    ({"powers_off": ["Nothing"]}, "powers_off"),
    ({"powers_off": ["Jack"]}, "powers_off"),
    ({"powers_off": ["Marble"]}, "powers_off"),               # a material, not a building
]


@pytest.mark.parametrize("kwargs, knob", BAD, ids=[repr(k) for k, _ in BAD])
def test_bad_knob_values_are_refused_naming_the_knob(kwargs, knob):
    # knobs.md: refused with one clear error naming the knob (a known knob, a bad value)
    with pytest.raises((ValueError, TypeError), match=knob) as err:
        Game(2, **kwargs)
    assert "unknown variant option" not in str(err.value)


@pytest.mark.parametrize("kwargs, knob", BAD[:2] + BAD[4:5] + BAD[8:9],
                         ids=["building", "material", "points 10", "powers_off"])
def test_bad_knob_values_in_a_position_are_refused(kwargs, knob):
    # docs/notation.md: a flaw inside a position is a ValueError naming the field
    with pytest.raises(ValueError, match=knob) as err:
        State.from_dict({"num_players": 2, "players": [{}, {}], "variant": kwargs})
    assert "unknown variant option" not in str(err.value)


# =========================================================================== identity

KNOBS = {
    "materials": {"Catacomb": "Marble"},
    "points": {"Catacomb": 1, "Temple": 9},                  # both ends of 1..9
    "powers_off": ["Market", "Catacomb"],
}


@pytest.mark.parametrize("knob", sorted(KNOBS))
def test_identity_each_knob_given_is_named_in_the_variant(knob):
    game = Game(2, **{knob: KNOBS[knob]})
    expected = sorted(KNOBS[knob]) if knob == "powers_off" else KNOBS[knob]
    assert game.config().variant() == {**PUBLISHED, knob: expected}
    assert game.new_initial_state(0).to_dict()["variant"] == {**PUBLISHED, knob: expected}


def test_identity_all_knobs_together_and_round_trip():
    state = Game(2, **KNOBS).new_initial_state(0)
    v = state.to_dict()["variant"]
    assert v == {**PUBLISHED, "materials": {"Catacomb": "Marble"},
                 "points": {"Catacomb": 1, "Temple": 9},
                 "powers_off": ["Catacomb", "Market"]}
    again = State.from_dict(state.to_dict())
    assert again.to_dict() == state.to_dict()
    assert again.config().variant() == v


@pytest.mark.parametrize("mode, variant", [("republic", PUBLISHED),
                                           ("imperium", {"refill_size": 5})])
def test_identity_published_rules_keep_their_exact_variant(mode, variant):
    assert Game(2, mode).config().variant() == variant
    assert Game(2, mode).new_initial_state(0).to_dict()["variant"] == variant
    d = State.from_dict({"num_players": 2, "mode": mode, "players": [{}, {}]}).to_dict()
    assert d["variant"] == variant


def test_identity_empty_knobs_are_the_published_rules():
    # knobs.md: a default (absent) knob changes nothing and is absent from variant()
    game = Game(2, materials={}, points={}, powers_off=[])
    assert game.config().variant() == PUBLISHED


def test_identity_knob_survives_a_position_round_trip_and_still_plays():
    state = game_state([{"hand": ["Catacomb", "Bar"]}, {"hand": ["Dock"]}], CATACOMB_MARBLE)
    assert state.to_dict()["variant"] == {**PUBLISHED, **CATACOMB_MARBLE}
    again = State.from_dict(state.to_dict())
    play(again, "lead Patron with Catacomb")         # under the knob, after the trip
    assert again.led_role() == "Patron"
