"""The designer knobs in the engine (docs/rules.md R-V): a building's material (R-V.1), its
points (R-V.2) and its function switched off (R-V.3), taken by the C state's rules.

Positions with a "variant" and short sequences of play; the information-state key of the
published rules against values computed by the build before the knobs existed; random
games under random knobs (tests/rules/test_variant_knobs.py tests the rules from the spec
alone)."""

import json
import random

import pytest

import glory_ai
from glory_ai.config import GameConfig
from support.positions import built, foundation, legal, lower_set, play, state_of, structure, zone

CATACOMB_MARBLE = {"materials": {"Catacomb": "Marble"}}


def s11_state(variant=None, catacomb_site="Stone", catacomb_materials=("Prison", "Sewer"),
              hand=("Dock", "Garden")):
    """docs/rules.md S11: player 0 completes a Catacomb with a Craftsman action."""
    return state_of(3, [
        {"hand": list(hand), "vault": ["Villa"], "clientele": ["Market"],
         "structures": [built("Archway", ["Bath", "Bath"]),
                        foundation("Catacomb", list(catacomb_materials), site=catacomb_site)]},
        {"hand": ["Bar"], "influence": ["Marble", "Stone"]},
        {"hand": ["Road"], "vault": ["Scriptorium", "Bar"]},
    ], variant=variant or {})


def complete_catacomb(state, card="Garden"):
    play(state, "lead Craftsman with Dock", "think: take Jack", "think: take Jack",
         f"craftsman: add {card} to Catacomb")
    return state


# --------------------------------------------------------------------------- R-V.1 materials


def test_materials_a_catacomb_made_of_marble_leads_as_patron():
    state = state_of(2, [{"hand": ["Catacomb", "Bar"]}, {"hand": ["Dock"]}],
                     variant=CATACOMB_MARBLE)
    assert "lead patron with catacomb" in legal(state)
    assert "lead merchant with catacomb" not in legal(state)
    assert state.config().material_of("Catacomb") == 5


def test_materials_a_catacomb_made_of_marble_needs_a_marble_site():
    # no in-town Marble site left: the foundation goes out of town (two Craftsman
    # actions) although Stone sites are in town
    p1 = {"hand": ["Bar"], "structures": [foundation("Temple"), foundation("Palace")]}
    state = state_of(2, [{"hand": ["Dock", "Catacomb", "Bar"], "clientele": ["Market"]}, p1],
                     variant=CATACOMB_MARBLE, sites={"in_town": {"Marble": 0}})
    play(state, "lead Craftsman with Dock", "think: take Jack")
    assert "craftsman: lay catacomb out of town" in legal(state)
    play(state, "craftsman: lay Catacomb out of town")
    s = structure(state, 0, "Catacomb")
    assert s["site"] == "Marble" and s["out_of_town"] is True
    assert state.to_dict()["sites"]["in_town"]["Stone"] == 2


def test_materials_a_marble_catacomb_takes_marble_materials_three_of_them():
    state = s11_state(CATACOMB_MARBLE, catacomb_site="Marble",
                      catacomb_materials=("Temple", "Palace"), hand=("Dock", "Garden", "Statue"))
    play(state, "lead Craftsman with Dock", "think: take Jack", "think: take Jack")
    # Garden (Stone) no longer fits; Statue (Marble) does
    assert "craftsman: add garden to catacomb" not in legal(state)
    play(state, "craftsman: add Statue to Catacomb")
    assert state.is_terminal() and state.end_reason() == "catacomb"
    assert structure(state, 0, "Catacomb")["complete"] is True
    assert state.influence(0) == 4 + 3


def test_materials_the_position_reader_wants_the_variant_site():
    with pytest.raises(ValueError, match="a Catacomb is built on a Marble site"):
        s11_state(CATACOMB_MARBLE, catacomb_site="Stone", catacomb_materials=())
    assert structure(s11_state(CATACOMB_MARBLE, catacomb_site="Marble", catacomb_materials=()),
                     0, "Catacomb")["site"] == "Marble"


def test_materials_vault_value_merchant_bonus_and_demands_follow_the_variant():
    variant = {"materials": {"Catacomb": "Rubble"}}
    state = state_of(2, [{"hand": ["Catacomb", "Bar"], "vault": ["Catacomb"]},
                         {"hand": ["Dock", "Road"], "vault": ["Garden"]}], variant=variant)
    # the vaulted Catacomb is a Rubble card: value 1, and player 0 has the most Rubble
    assert state.score_breakdown(0)["vault"] == 1
    assert state.score_breakdown(0)["merchant_bonus"] == 3
    assert state.score_breakdown(1)["merchant_bonus"] == 3          # the most Stone
    # it is played as a Laborer, and demanded as Rubble
    assert "lead laborer with catacomb" in legal(state)
    published = state_of(2, [{"hand": ["Catacomb", "Bar"], "vault": ["Catacomb"]},
                             {"hand": ["Dock", "Road"], "vault": ["Garden"]}])
    assert published.score_breakdown(0)["vault"] == 3
    assert published.score_breakdown(0)["merchant_bonus"] == 0


def test_materials_a_legionary_demand_of_a_marble_catacomb_asks_for_marble():
    state = state_of(2, [{"hand": ["Jack", "Catacomb"]},
                         {"hand": ["Temple", "Garden"]}], variant=CATACOMB_MARBLE)
    play(state, "lead Legionary with Jack", "think: take Jack", "legionary: reveal Catacomb")
    if state.current_player() == 0:
        play(state, "legionary: done revealing")
    assert zone(state, 0, "stockpile") == ["Temple"]
    assert zone(state, 1, "hand") == ["Garden", "Jack"]


def test_materials_gate_reads_the_variant_material():
    # Gate: "Marble structures work from foundation": a Catacomb made of Marble is one,
    # a Temple made of Stone is not
    variant = {"materials": {"Temple": "Stone", "Catacomb": "Marble"}}
    state = state_of(2, [{"structures": [built("Gate", ["Bath", "Bath"]),
                                         foundation("Temple", site="Stone"),
                                         foundation("Market", site="Wood")]}, {}],
                     variant=variant)
    assert not state.is_active(0, "Temple")
    assert state.refill_size(0) == 5
    variant = {"materials": {"Temple": "Stone", "Market": "Marble"}}
    state = state_of(2, [{"structures": [built("Gate", ["Bath", "Bath"]),
                                         foundation("Market", site="Marble")]}, {}],
                     variant=variant)
    assert state.is_active(0, "Market") and state.vault_limit(0) == 4 + 2


# --------------------------------------------------------------------------- R-V.2 points


def test_points_count_for_completed_structures_only():
    variant = {"points": {"Archway": 4, "Catacomb": 3}, "powers_off": ["Catacomb"]}
    state = s11_state(variant)
    assert state.scores()[0] == s11_state().scores()[0] + 4     # Archway done, Catacomb not
    b = state.score_breakdown(0)
    assert b["buildings"] == 4
    assert b["total"] == b["influence"] + b["vault"] + b["merchant_bonus"] + b["statue"] + b["wall"] + 4
    assert state.score_breakdown(1)["buildings"] == 0
    complete_catacomb(state)
    assert not state.is_terminal()
    assert state.score_breakdown(0)["buildings"] == 7
    assert "buildings" not in s11_state().score_breakdown(0)


def test_points_go_into_the_winner_at_the_end():
    # published: S11 ends 10, 8, 9; with Catacomb worth 3 and Archway 9, player 0 scores 22
    state = complete_catacomb(s11_state({"points": {"Catacomb": 3, "Archway": 9}}))
    assert state.end_reason() == "catacomb"
    assert state.scores() == [22, 8, 9]
    assert state.winners() == [0]


# --------------------------------------------------------------------------- R-V.3 powers off


def test_powers_off_catacomb_does_not_end_the_game():
    state = complete_catacomb(s11_state({"powers_off": ["Catacomb"]}))
    assert not state.is_terminal()
    assert structure(state, 0, "Catacomb")["complete"] is True
    assert state.influence(0) == 7
    assert "Catacomb" not in state.functions_used()
    assert not state.is_active(0, "Catacomb")


def test_powers_off_forum_never_wins():
    def forum_state(variant):
        state = state_of(2, [
            {"hand": ["Basilica"], "clientele": ["Temple", "Bar", "Dock", "Tower", "Shrine"],
             "structures": [built("Forum", ["Fountain", "Stairway", "Stairway"]),
                            built("Insula", ["Latrine"])]},
            {"hand": ["Statue"], "vault": ["Palace", "Palace", "Palace"],
             "influence": ["Marble", "Marble"]},
        ], leader=1, mode="imperium", pool=["Villa", "Road"], variant=variant)
        play(state, "lead Patron with Statue", "follow Patron with Basilica",
             "patron: hire Road from pool", "patron: hire Villa from pool")
        return state
    assert forum_state({}).end_reason() == "forum"
    state = forum_state({"powers_off": ["Forum"]})
    assert not state.is_terminal()
    # player 0 hired the Villa: a client of every role, and no win
    assert zone(state, 0, "clientele") == sorted(["Temple", "Bar", "Dock", "Tower", "Shrine", "Villa"])
    assert "Forum" not in state.functions_used()


def amphitheatre_state(variant):
    state = state_of(2, [
        {"hand": ["Jack", "Bar", "Road"], "clientele": ["Aqueduct"], "stockpile": ["Tower"],
         "structures": [foundation("Amphitheatre", ["Wall"])]},
        {"hand": ["Crane"]},
    ], variant=variant)
    play(state, "lead Architect with Jack", "think: take Jack",
         "architect: add Tower to Amphitheatre")
    return state


def test_powers_off_a_granted_action_building_grants_nothing():
    assert all(s.startswith("craftsman:") for s in legal(amphitheatre_state({})))
    state = amphitheatre_state({"powers_off": ["Amphitheatre"]})
    assert structure(state, 0, "Amphitheatre")["complete"] is True
    assert state.influence(0) == 4
    # straight on to the Architect client's action
    assert legal(state) == lower_set(["architect: lay Bar", "architect: lay Road", "architect: skip"])
    assert "Amphitheatre" not in state.functions_used()


@pytest.mark.parametrize("building,fill,role", [("Foundry", ["Bath", "Bath"], "laborer:"),
                                                ("Garden", ["Villa", "Villa", "Villa"], "patron:"),
                                                ("School", ["Bath", "Bath"], "think:")])
def test_powers_off_other_grants(building, fill, role):
    def completed(variant):
        state = state_of(2, [{"hand": ["Jack"], "stockpile": [fill[-1]],
                              "structures": [foundation(building, fill[:-1])]},
                             {"hand": ["Crane"]}], pool=["Bar"], variant=variant)
        play(state, "lead Architect with Jack", "think: take Jack",
             f"architect: add {fill[-1]} to {building}")
        assert structure(state, 0, building)["complete"] is True
        return state
    granted = completed({})
    assert granted.current_player() == 0 and any(s.startswith(role) for s in legal(granted))
    state = completed({"powers_off": [building]})
    # the turn is over: player 1 leads
    assert state.current_player() == 1 and state.to_dict()["leader"] == 1


def test_powers_off_prison_offers_no_swap():
    def prison(variant):
        state = state_of(2, [
            {"hand": ["Jack"], "stockpile": ["Villa"],
             "structures": [foundation("Prison", ["Garden", "Garden"])]},
            {"hand": ["Bar"], "structures": [built("Market", ["Dock"]),
                                             built("Tower", ["Wall", "Wall"])]},
        ], pool=["Bar", "Road"], variant=variant)
        play(state, "lead Architect with Jack", "think: take Jack", "architect: add Villa to Prison")
        return state
    assert "prison: skip" in legal(prison({}))
    state = prison({"powers_off": ["Prison"]})
    assert not any(s.startswith("prison") for s in legal(state))
    assert structure(state, 0, "Prison")["complete"] is True


def test_powers_off_gate_marble_foundations_stay_inactive():
    def temple(variant):
        return state_of(2, [{"structures": [built("Gate", ["Bath", "Bath"]), foundation("Temple")]}, {}],
                        variant=variant)
    assert temple({}).is_active(0, "Temple")
    state = temple({"powers_off": ["Gate"]})
    assert not state.is_active(0, "Temple") and not state.is_active(0, "Gate")
    assert state.refill_size(0) == 5


def test_powers_off_stairway_on_a_switched_off_building_does_nothing():
    # a Stairway material on player 1's Market: Market works for player 0 too
    d = state_of(2, [{"structures": [built("Temple", ["Palace", "Palace", "Statue"])]},
                     {"structures": [built("Market", ["Dock"])]}]).to_dict()
    d["players"][1]["structures"][0]["stairway"] = "Basilica"
    del d["deck"], d["out_of_play"]
    assert glory_ai.State.from_dict(d).is_active(0, "Market")
    d["variant"] = {"powers_off": ["Market"]}
    off = glory_ai.State.from_dict(d)
    assert not off.is_active(0, "Market") and not off.is_active(1, "Market")
    assert off.vault_limit(1) == off.influence(1)


def test_powers_off_villa_and_statue():
    def villa(variant):
        state = state_of(2, [{"hand": ["Jack"], "stockpile": ["Garden"],
                              "structures": [foundation("Villa")]}, {"hand": ["Dock"]}], variant=variant)
        play(state, "lead Architect with Jack", "think: take Jack", "architect: add Garden to Villa")
        return structure(state, 0, "Villa")["complete"]
    assert villa({}) is True
    assert villa({"powers_off": ["Villa"]}) is False
    state = state_of(2, [{"hand": ["Dock", "Statue", "Bar"], "clientele": ["Market"]},
                         {"hand": ["Road"]}], variant={"powers_off": ["Statue"]})
    play(state, "lead Craftsman with Dock", "think: take Jack")
    assert not any("statue on" in s for s in legal(state))
    assert "craftsman: lay statue" in legal(state)
    state = state_of(2, [{"structures": [built("Statue", ["Temple", "Temple", "Palace"])]}, {}],
                     variant={"powers_off": ["Statue"]})
    assert state.score_breakdown(0)["statue"] == 0
    with pytest.raises(ValueError, match="Statue is built on a Marble site"):
        state_of(2, [{"structures": [foundation("Statue", site="Rubble")]}, {}],
                 variant={"powers_off": ["Statue"]})


def test_features_score_points_and_drop_a_switched_off_function():
    from glory_ai.core.engine import FEATURE_NAMES as names

    published = s11_state().features(0)
    knobbed = s11_state({"points": {"Archway": 4}, "powers_off": ["Archway"]}).features(0)
    at = {name: i for i, name in enumerate(names)}
    assert published[at["completed_archway"]] == 1 and knobbed[at["completed_archway"]] == 0
    assert knobbed[at["score"]] == published[at["score"]] + 4
    assert knobbed[at["influence"]] == published[at["influence"]]


def test_gate_does_not_fire_for_a_switched_off_marble_foundation():
    def lay(variant):
        state = state_of(2, [{"hand": ["Dock", "Temple"], "structures": [built("Gate", ["Bath", "Bath"])]},
                             {"hand": ["Bar"]}], variant=variant)
        play(state, "lead Craftsman with Dock", "think: take Jack", "craftsman: lay Temple")
        return state
    assert "Gate" in lay({}).functions_used() and lay({}).refill_size(0) == 9
    state = lay({"powers_off": ["Temple"]})
    assert "Gate" not in state.functions_used() and state.refill_size(0) == 5


def test_a_position_cannot_list_a_switched_off_function_as_used():
    d = s11_state({"powers_off": ["Archway"]}).to_dict()
    d["functions_used"] = ["Archway"]
    with pytest.raises(ValueError, match=r"functions_used\[0\]: the function of Archway is switched off"):
        glory_ai.State.from_dict(d)


def test_functions_used_never_lists_a_switched_off_function():
    off = ["Circus", "Palace", "Latrine", "Vomitorium", "Academy", "Road", "Tower", "Bath"]
    game = glory_ai.Game(3, mode="imperium", powers_off=off)
    for seed in range(40):
        state = game.new_initial_state(seed)
        code, _ = state._stress(seed, builder=True)
        assert code == 0
        assert not set(off) & set(state.functions_used())


# --------------------------------------------------------------------------- the key


# information_state_key(p).hex() and information_state_hash(p) computed by the build
# before the rules block existed (main at 78f798b), for these seeds and playout lengths
MAIN_KEYS = [
    [2, "republic", 1, 0, 0, "5e6b58d408b6a8b5efe2987bb7206a8b", 13089912465990904670],
    [2, "republic", 7, 40, 1, "2ba82a18794de0e0c86ce43891d35dda", 16204036641770874923],
    [3, "republic", 11, 120, 2, "b0abaaa1c282362d9bbcb1e61d16a2ae", 3257935152896715696],
]


def keyed_state(players, mode, seed, steps, variant=None):
    state = glory_ai.Game(players, mode, **(variant or {})).new_initial_state(seed)
    state.random_playout(seed + 100, max_decisions=steps)
    return state


@pytest.mark.parametrize("players,mode,seed,steps,p,key,hashed", MAIN_KEYS)
def test_the_key_of_the_published_rules_is_unchanged(players, mode, seed, steps, p, key, hashed):
    state = keyed_state(players, mode, seed, steps)
    assert state.information_state_key(p).hex() == key
    assert state.information_state_hash(p) == hashed


@pytest.mark.parametrize("variant", [CATACOMB_MARBLE, {"points": {"Bar": 1}},
                                     {"powers_off": ["Wall"]}])
def test_non_default_rules_change_the_key(variant):
    players, mode, seed, steps, p, key, hashed = MAIN_KEYS[0]
    state = keyed_state(players, mode, seed, steps, variant)
    assert state.information_state_key(p).hex() != key
    assert state.information_state_hash(p) != hashed


def test_a_knob_at_its_published_value_keeps_the_key():
    # Catacomb made of Stone is the published Catacomb: the rules block is the default
    players, mode, seed, steps, p, key, _ = MAIN_KEYS[1]
    state = keyed_state(players, mode, seed, steps, {"materials": {"Catacomb": "Stone"}})
    assert state.information_state_key(p).hex() == key
    assert state.config().variant()["materials"] == {"Catacomb": "Stone"}


# --------------------------------------------------------------------------- random knobs

ALL_BUILDINGS = [n for n in glory_ai.CARD_NAMES if n != "Jack"]


def random_knobs(rng):
    variant = {}
    if rng.random() < 0.7:
        variant["materials"] = {b: rng.choice(glory_ai.MATERIALS)
                                for b in rng.sample(ALL_BUILDINGS, rng.randint(1, 12))}
    if rng.random() < 0.6:
        variant["points"] = {b: rng.randint(1, 9) for b in rng.sample(ALL_BUILDINGS, rng.randint(1, 6))}
    if rng.random() < 0.6:
        variant["powers_off"] = rng.sample(ALL_BUILDINGS, rng.randint(1, 10))
    return variant


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(4))
def test_random_games_under_random_knobs_keep_every_invariant(chunk):
    rng = random.Random(chunk)
    for i in range(400):
        variant = random_knobs(rng)
        players = rng.randint(2, 5)
        mode = rng.choice(["republic", "imperium"])
        game = glory_ai.Game(players, mode, **variant)
        seed = rng.randrange(2 ** 32)
        state = game.new_initial_state(seed)
        code, step = state._stress(seed, try_all=True, builder=i % 2 == 0)
        assert code == 0, (variant, players, mode, seed, step)
        assert not set(game.config().powers_off) & set(state.functions_used())
        # a finished game scores its building points
        points = game.config().building_points()
        for p in range(players):
            done = [s["building"] for s in state.to_dict()["players"][p]["structures"] if s["complete"]]
            extra = sum(points[glory_ai.cards.card_id(b)] for b in done)
            assert state.score_breakdown(p).get("buildings", 0) == extra


@pytest.mark.slow
def test_positions_round_trip_under_random_knobs():
    rng = random.Random(99)
    for _ in range(300):
        variant = random_knobs(rng)
        players = rng.randint(2, 5)
        game = glory_ai.Game(players, rng.choice(["republic", "imperium"]), **variant)
        seed = rng.randrange(2 ** 32)
        state = game.new_initial_state(seed)
        state._stress(seed, builder=True, stop_after=rng.randint(0, 400))
        d = json.loads(json.dumps(state.to_dict()))
        assert d["variant"] == game.config().variant()
        loaded = glory_ai.State.from_dict(d)
        assert loaded._raw_bytes() == state._raw_bytes()
        assert loaded.to_dict() == state.to_dict()
        assert loaded.legal_actions() == state.legal_actions()
        for p in range(players):
            assert loaded.information_state_key(p) == state.information_state_key(p)
            world = state.determinize(p, seed)
            assert world._invariant_code() == 0
            assert world.information_state_key(p) == state.information_state_key(p)


def test_the_config_names_and_orders_the_knobs():
    config = GameConfig(2, materials={"forum romanum": "stone", "Bath": "Wood"},
                        points={"wall": 2}, powers_off=["Wall", "catacomb"])
    assert config.variant() == {"petition_size": 2, "refill_size": 5,
                                "materials": {"Bath": "Wood", "Forum Romanum": "Stone"},
                                "points": {"Wall": 2}, "powers_off": ["Catacomb", "Wall"]}
    assert GameConfig.from_options(2, **config.variant()) == config
    assert GameConfig(2).variant() == {"petition_size": 2, "refill_size": 5}


@pytest.mark.parametrize("options,error,message", [
    ({"materials": {"Jack": "Marble"}}, ValueError, "materials: a Jack"),
    ({"materials": {"Catacom": "Marble"}}, ValueError, "materials: unknown card name 'Catacom'"),
    ({"materials": {"Catacomb": "Gold"}}, ValueError, r"materials\['Catacomb'\]: unknown material 'Gold'"),
    ({"materials": {"Catacomb": 3}}, TypeError, r"materials\['Catacomb'\] must be a material name"),
    ({"materials": ["Catacomb"]}, TypeError, "materials must map building names"),
    ({"materials": {"Bath": "Wood", "bath": "Stone"}}, ValueError, "materials: Bath is given twice"),
    ({"points": {"Catacomb": 0}}, ValueError, r"points\['Catacomb'\] must be an integer from 1 to 9, got 0"),
    ({"points": {"Catacomb": 10}}, ValueError, r"points\['Catacomb'\] must be an integer from 1 to 9, "
                                               r"got 10"),
    ({"points": {"Catacomb": "3"}}, TypeError, r"points\['Catacomb'\] must be an integer"),
    ({"points": {"Catacomb": True}}, TypeError, r"points\['Catacomb'\] must be an integer"),
    ({"points": {"Jack": 2}}, ValueError, "points: a Jack"),
    ({"powers_off": "Catacomb"}, TypeError, "powers_off must be a list of building names"),
    ({"powers_off": ["Catacomb", "Gold"]}, ValueError, "powers_off: unknown card name 'Gold'"),
    ({"powers_off": ["Jack"]}, ValueError, "powers_off: a Jack"),
    ({"powers_off": ["Wall", "wall"]}, ValueError, "powers_off: Wall is given twice"),
    ({"power_off": ["Wall"]}, ValueError, "unknown variant option"),
])
def test_bad_knobs_are_refused_by_name(options, error, message):
    with pytest.raises(error, match=message):
        glory_ai.Game(2, **options)
