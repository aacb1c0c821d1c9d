"""Building without building functions: R-9.1 (foundations, in town / out of town),
R-9.2 (adding materials), R-9.3.1 (completion and influence); scenario S5 (a, b, d, e)."""

from support.cards import MATERIALS
from support.positions import built, foundation, legal, lower_set, play, sites, state_of, structure, zone

# Every material has 6 sites, in town + out of town + in structures and influence
# . With no in-town Brick site left in a 2-player game, the two in-town Brick
# sites are held by player 1's foundations.
NO_BRICK_IN_TOWN = {"in_town": {"Brick": 0}, "out_of_town": {"Brick": 4}}
P1_HOLDS_TWO_BRICK = {"hand": ["Bar"],
                      "structures": [foundation("Academy"), foundation("Archway")]}


def craftsman_turn(hand, clientele=(), structures=(), site_stacks=None, p1=None, **kw):
    """Player 0 leads Craftsman with Dock (the first card of ``hand`` must be Dock);
    player 1 thinks. Returns the state at player 0's first Craftsman action."""
    extra = dict(kw)
    if site_stacks is not None:
        extra["sites"] = site_stacks
    state = state_of(2, [
        {"hand": list(hand), "clientele": list(clientele), "structures": list(structures)},
        p1 or {"hand": ["Bar"]},
    ], **extra)
    play(state, "lead Craftsman with Dock", "think: take Jack")
    return state


# ---------------------------------------------------------------------------


def test_R_9_1_1_R_9_1_3_foundation_on_an_in_town_site_of_its_material():
    state = craftsman_turn(["Dock", "Bath", "Road"])
    assert sites(state, "in_town", "Brick") == 2
    assert sites(state, "out_of_town", "Brick") == 4
    play(state, "craftsman: lay Bath")
    s = structure(state, 0, "Bath")
    assert s["site"] == "Brick" and s["out_of_town"] is False
    assert s["materials"] == [] and s["complete"] is False
    assert sites(state, "in_town", "Brick") == 1
    assert sites(state, "out_of_town", "Brick") == 4
    assert zone(state, 0, "hand") == ["Road"]
    assert state.influence(0) == 2
    assert state.to_dict()["leader"] == 1


def test_R_9_1_2_no_second_structure_of_the_same_name():
    """Own incomplete Temple: a second Temple cannot be laid (it may be added)."""
    state = craftsman_turn(["Dock", "Temple", "Road"],
                           structures=[foundation("Temple")])
    assert legal(state) == lower_set(["craftsman: lay Road",
                                      "craftsman: add Temple to Temple",
                                      "craftsman: skip"])


def test_R_9_1_2_completed_structure_also_blocks_the_name():
    state = craftsman_turn(["Dock", "Temple", "Road"],
                           structures=[built("Temple", ["Palace", "Palace", "Statue"])])
    assert legal(state) == lower_set(["craftsman: lay Road", "craftsman: skip"])


def test_R_9_1_2_other_players_may_own_the_same_name():
    state = craftsman_turn(["Dock", "Temple"],
                           p1={"hand": ["Bar"], "structures": [foundation("Temple")]})
    play(state, "craftsman: lay Temple")
    assert structure(state, 0, "Temple") is not None
    assert structure(state, 1, "Temple") is not None


def test_S5_a_R_9_1_4_out_of_town_needs_two_actions():
    """In-town Brick empty, one Craftsman action: Bath cannot be laid."""
    state = craftsman_turn(["Dock", "Bath", "Road"], site_stacks=NO_BRICK_IN_TOWN,
                           p1=P1_HOLDS_TWO_BRICK)
    assert legal(state) == lower_set(["craftsman: lay Road", "craftsman: skip"])


def test_S5_a_R_9_1_4_only_option_is_skip_so_the_action_is_skipped():
    state = craftsman_turn(["Dock", "Bath"], site_stacks=NO_BRICK_IN_TOWN,
                           p1=P1_HOLDS_TWO_BRICK)
    d = state.to_dict()
    assert d["leader"] == 1
    assert d["players"][0]["hand"] == ["Bath"]
    assert d["players"][0]["structures"] == []
    assert d["sites"]["out_of_town"]["Brick"] == 4


def test_S5_b_R_9_1_4_two_actions_found_out_of_town():
    """A Craftsman client gives the second action; both are consumed."""
    state = craftsman_turn(["Dock", "Bath", "Road"], clientele=["Market"],
                           site_stacks=NO_BRICK_IN_TOWN,
                           p1=P1_HOLDS_TWO_BRICK)
    assert legal(state) == lower_set(["craftsman: lay Road",
                                      "craftsman: lay Bath out of town",
                                      "craftsman: skip"])
    play(state, "craftsman: lay Bath out of town")
    d = state.to_dict()
    s = structure(state, 0, "Bath")
    assert s["site"] == "Brick" and s["out_of_town"] is True
    assert s["materials"] == [] and s["complete"] is False
    assert d["sites"]["out_of_town"]["Brick"] == 3
    assert d["sites"]["in_town"]["Brick"] == 0
    # no action left: the turn is over, Road still in hand
    assert d["leader"] == 1
    assert d["players"][0]["hand"] == ["Road"]


def test_R_9_1_4_second_action_must_be_of_the_same_role():
    """A Laborer client does not pair with a Craftsman action."""
    state = craftsman_turn(["Dock", "Bath", "Road"], clientele=["Insula"],
                           site_stacks=NO_BRICK_IN_TOWN,
                           p1=P1_HOLDS_TWO_BRICK)
    assert legal(state) == lower_set(["craftsman: lay Road", "craftsman: skip"])


def test_R_9_1_4_architect_out_of_town_with_an_architect_client():
    state = state_of(2, [
        {"hand": ["Tower", "Bath"], "clientele": ["Wall"]},
        P1_HOLDS_TWO_BRICK,
    ], sites=NO_BRICK_IN_TOWN)
    play(state, "lead Architect with Tower", "think: take Jack",
         "architect: lay Bath out of town")
    s = structure(state, 0, "Bath")
    assert s["out_of_town"] is True
    d = state.to_dict()
    assert d["sites"]["out_of_town"]["Brick"] == 3
    assert d["leader"] == 1


def test_S5_d_R_9_1_3_in_town_site_must_be_taken_and_costs_one_action():
    state = craftsman_turn(["Dock", "Bath", "Atrium"], clientele=["Market"],
                           site_stacks={"in_town": {"Brick": 1}, "out_of_town": {"Brick": 4}},
                           p1={"hand": ["Bar"], "structures": [foundation("Academy")]})
    assert legal(state) == lower_set(["craftsman: lay Bath", "craftsman: lay Atrium",
                                      "craftsman: skip"])
    play(state, "craftsman: lay Bath")
    assert sites(state, "in_town", "Brick") == 0
    assert sites(state, "out_of_town", "Brick") == 4
    assert not state.is_terminal()  # other in-town stacks remain
    # the second action is still there; Atrium can't go out of town with one action
    assert state.current_player() == 0
    assert legal(state) == lower_set(["craftsman: add Atrium to Bath", "craftsman: skip"])
    play(state, "craftsman: add Atrium to Bath")
    s = structure(state, 0, "Bath")
    assert s["out_of_town"] is False
    assert s["materials"] == ["Atrium"] and s["complete"] is False


def test_S5_e_R_9_1_6_last_in_town_site_ends_the_game():
    stacks = {"in_town": {m: 0 for m in MATERIALS}, "out_of_town": {"Brick": 4}}
    stacks["in_town"]["Brick"] = 1
    # the other in-town sites are in player 1's influence
    p1_influence = ["Brick"] + [m for m in MATERIALS if m != "Brick" for _ in range(2)]
    state = craftsman_turn(["Dock", "Bath", "Atrium"], clientele=["Market"],
                           site_stacks=stacks,
                           p1={"hand": ["Bar"], "influence": p1_influence})
    play(state, "craftsman: lay Bath")
    assert state.is_terminal()
    assert state.end_reason() == "sites"
    s = structure(state, 0, "Bath")
    assert s is not None and s["materials"] == []
    assert zone(state, 0, "hand") == ["Atrium"]   # 2nd action not performed


def test_R_9_1_5_no_site_of_the_material_left():
    p1 = {"hand": ["Bar"], "structures": [
        foundation("Academy"), foundation("Archway"),
        foundation("Atrium", out_of_town=True), foundation("Foundry", out_of_town=True),
        foundation("Gate", out_of_town=True), foundation("School", out_of_town=True)]}
    state = craftsman_turn(["Dock", "Bath", "Road"], clientele=["Market"],
                           site_stacks={"in_town": {"Brick": 0},
                                        "out_of_town": {"Brick": 0}}, p1=p1)
    assert legal(state) == lower_set(["craftsman: lay Road", "craftsman: skip"])


# ---------------------------------------------------------------------------


def test_R_9_2_2_material_must_match_the_foundation():
    state = craftsman_turn(["Dock", "Palace", "Road", "Bath"],
                           structures=[foundation("Temple")])
    assert legal(state) == lower_set(["craftsman: lay Palace", "craftsman: lay Road",
                                      "craftsman: lay Bath",
                                      "craftsman: add Palace to Temple", "craftsman: skip"])


def test_R_9_2_1_only_own_incomplete_structures():
    state = state_of(2, [
        {"hand": ["Jack"], "stockpile": ["Tower", "Palace"],
         "structures": [built("Basilica", ["Statue", "Statue", "Stairway"]),
                      foundation("Storeroom")]},
        {"hand": ["Bar"], "structures": [foundation("Temple")]},
    ])
    play(state, "lead Architect with Jack", "think: take Jack")
    assert legal(state) == lower_set(["architect: add Tower to Storeroom",
                                      "architect: skip"])


# ---------------------------------------------------------------------------


def test_R_9_2_3_R_9_3_1_completion_moves_the_site_to_influence():
    """Concrete needs 2 materials; completing adds 2 influence at once (mid-turn)."""
    state = craftsman_turn(["Dock", "Tower", "Road"], clientele=["Market"],
                           structures=[foundation("Storeroom", ["Wall"])])
    assert state.influence(0) == 2
    in_town_concrete = sites(state, "in_town", "Concrete")
    play(state, "craftsman: add Tower to Storeroom")
    s = structure(state, 0, "Storeroom")
    assert s["complete"] is True
    assert sorted(s["materials"]) == ["Tower", "Wall"]
    assert state.influence(0) == 4
    assert sorted(pdict_influence(state, 0)) == ["Concrete"]
    assert state.clientele_limit(0) == 4
    assert state.vault_limit(0) == 4
    assert sites(state, "in_town", "Concrete") == in_town_concrete
    # the second Craftsman action is still to come
    assert state.current_player() == 0
    play(state, "craftsman: lay Road")
    assert structure(state, 0, "Road") is not None


def pdict_influence(state, p):
    return state.to_dict()["players"][p]["influence"]


def test_R_9_2_3_marble_needs_three_materials():
    state = craftsman_turn(["Dock", "Palace", "Statue"], clientele=["Market"],
                           structures=[foundation("Temple", ["Basilica"])])
    play(state, "craftsman: add Palace to Temple")
    assert structure(state, 0, "Temple")["complete"] is False
    assert state.influence(0) == 2
    play(state, "craftsman: add Statue to Temple")
    s = structure(state, 0, "Temple")
    assert s["complete"] is True
    assert state.influence(0) == 5
    assert pdict_influence(state, 0) == ["Marble"]


def test_R_9_2_3_rubble_built_in_one_turn():
    """Rubble: foundation + 1 material; lay and complete with two actions."""
    state = craftsman_turn(["Dock", "Road", "Bar"], clientele=["Market"])
    play(state, "craftsman: lay Road", "craftsman: add Bar to Road")
    s = structure(state, 0, "Road")
    assert s["complete"] is True and s["materials"] == ["Bar"]
    assert state.influence(0) == 3


def test_R_9_3_1_out_of_town_structure_gives_the_same_influence():
    state = craftsman_turn(["Dock", "School"],
                           structures=[foundation("Bath", ["Atrium"], out_of_town=True)])
    out_brick = sites(state, "out_of_town", "Brick")
    play(state, "craftsman: add School to Bath")
    s = structure(state, 0, "Bath")
    assert s["complete"] is True and s["out_of_town"] is True
    assert state.influence(0) == 4
    assert pdict_influence(state, 0) == ["Brick"]
    assert sites(state, "out_of_town", "Brick") == out_brick


def test_R_10_1_influence_from_several_completed_structures():
    state = state_of(2, [{"structures": [
        built("Insula", ["Road"]),
        built("Tower", ["Wall", "Wall"]),
        foundation("Temple", ["Palace", "Palace"]),   # incomplete: no influence
    ]}, {}])
    assert state.influence(0) == 2 + 1 + 2
    assert sorted(pdict_influence(state, 0)) == ["Concrete", "Rubble"]


def test_R_9_1_4_a_thinkers_two_craftsman_clients_pair_out_of_town():
    """Client actions qualify for the pairing (R-9.1.4): player 1 thinks and founds
    out of town with its two Craftsman clients."""
    state = state_of(2, [
        {"hand": ["Dock"], "structures": [foundation("Academy"), foundation("Archway")]},
        {"hand": ["Bath", "Road"], "clientele": ["Market", "Palisade"]},
    ], sites=NO_BRICK_IN_TOWN)
    play(state, "lead Craftsman with Dock", "think: take Jack")
    # player 0 has nothing to lay or add: skipped; player 1's clients act
    assert state.current_player() == 1
    assert legal(state) == lower_set(["craftsman: lay Road",
                                      "craftsman: lay Bath out of town",
                                      "craftsman: skip"])
    play(state, "craftsman: lay Bath out of town")
    assert structure(state, 1, "Bath")["out_of_town"] is True
    d = state.to_dict()
    assert d["leader"] == 1
    assert sorted(d["players"][1]["hand"]) == ["Jack", "Road"]
