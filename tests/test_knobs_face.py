"""The designer knobs (docs/rules.md R-V) in the Python face: the --variant option of
compare/tournament, experiment configs, notation Variant tags, observations, records, and
the places that show a card's material or a score (they read the game's config)."""
import json

import pytest

import glory_ai
from glory_ai.analysis.commands import main_compare, parse_variant
from glory_ai.arena import ArenaError, load_records
from glory_ai.experiments.config import ExperimentError, parse_experiment
from glory_ai.interactive.notation import format_variant, parse_variant_tag
from glory_ai.interactive.view import card_info, table_view

KNOBS = {"materials": {"Catacomb": "Marble", "Forum": "Stone"}, "points": {"Catacomb": 3},
         "powers_off": ["Catacomb"]}


def test_the_variant_option_parses_the_knobs():
    assert parse_variant([("materials", "Catacomb:Marble, Forum:Stone"), ("points", "Catacomb:3"),
                          ("powers_off", "Catacomb")]) == KNOBS
    assert parse_variant([("powers_off", '["Catacomb", "Forum"]')]) == {"powers_off": ["Catacomb", "Forum"]}
    assert parse_variant([("materials", '{"Bath": "Wood"}')]) == {"materials": {"Bath": "Wood"}}
    for key, text in (("points", "Catacomb:x"), ("points", "Catacomb"), ("materials", "Catacomb:"),
                      ("materials", ":Marble")):
        with pytest.raises(ArenaError, match=f"--variant {key}: expected Name:"):
            parse_variant([(key, text)])


def test_compare_plays_and_records_a_knob_variant(tmp_path, capsys):
    out_dir = tmp_path / "run"
    code = main_compare(["greedy", "random", "--games", "2", "--jobs", "1", "--out", str(out_dir),
                         "--no-progress", "--variant", "materials=Catacomb:Marble,Forum:Stone",
                         "--variant", "points=Catacomb:3", "--variant", "powers_off=Catacomb"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert ("materials={'Catacomb': 'Marble', 'Forum': 'Stone'}, points={'Catacomb': 3}, "
            "powers_off=['Catacomb']" in out.splitlines()[0])
    records = load_records(out_dir)
    assert records and all(r["variant"] == {"petition_size": 2, "refill_size": 5, **KNOBS}
                           for r in records)
    assert all("buildings" in vp for r in records for vp in r["vp"])
    assert all(r["end_reason"] != "catacomb" for r in records)
    config = json.loads((out_dir / "config.json").read_text())
    assert config["config"]["variant"]["powers_off"] == ["Catacomb"]


def test_compare_refuses_a_bad_knob_by_name(tmp_path, capsys):
    code = main_compare(["greedy", "random", "--games", "2", "--jobs", "1", "--out", str(tmp_path / "r"),
                         "--no-progress", "--variant", "points=Catacomb:12"])
    out, err = capsys.readouterr()
    assert code == 2 and "points['Catacomb'] must be an integer from 1 to 9, got 12" in err
    assert len(err.strip().splitlines()) == 1


def experiment(variants):
    return {"name": "knobs", "seed": 1, "matchup": [{"specs": ["greedy", "random"], "deals": 1,
                                                     "variants": variants}]}


def test_experiment_variants_take_the_knobs_as_tables_and_lists():
    exp = parse_experiment(experiment({"standard": {}, "tuned": KNOBS}), "knobs")
    runs = {r.variant: r.config for r in exp.runs()}
    assert runs["tuned"].variant == {"petition_size": 2, "refill_size": 5, **KNOBS}
    assert runs["standard"].variant == {"petition_size": 2, "refill_size": 5}
    with pytest.raises(ExperimentError, match="powers_off: unknown card name 'Catacom'"):
        parse_experiment(experiment({"bad": {"powers_off": ["Catacom"]}}), "knobs")


def test_notation_variant_tags_round_trip_the_knobs():
    variant = {"petition_size": 2, "refill_size": 5, **KNOBS}
    assert parse_variant_tag(format_variant(variant)) == variant


def test_observations_and_information_strings_carry_the_variant():
    state = glory_ai.Game(2, **KNOBS).new_initial_state(4)
    assert state.observation(0)["variant"]["points"] == {"Catacomb": 3}
    assert json.loads(state.information_state_string(1))["variant"] == state.config().variant()


def test_card_info_and_the_view_read_the_game_config():
    config = glory_ai.Game(2, **KNOBS).config()
    info = card_info("Catacomb", config)
    assert (info["material"], info["role"], info["value"]) == ("Marble", "Patron", 3)
    assert "switched off" in info["function"] and "3 VP" in info["function"]
    assert card_info("Catacomb")["material"] == "Stone"
    assert card_info("Bath", glory_ai.Game(2).config()) == card_info("Bath")
    state = glory_ai.Game(2, materials={"Bar": "Marble"}).new_initial_state(1)
    view = table_view(state, None)
    assert view["card_materials"] == {"Bar": "Marble"}
    assert "card_materials" not in table_view(glory_ai.Game(2).new_initial_state(1), None)


def test_the_belief_reads_the_variant_roles():
    from glory_ai.bots.belief import Decline, Evidence

    state = glory_ai.Game(2, materials={"Bar": "Marble"}).new_initial_state(1)
    evidence = Evidence(player=0, strength=0.5)
    evidence.declines.append(Decline(player=1, role=5, strength=0.5, old=5.0))   # no Patron
    table = evidence.table(state)
    assert table is not None
    assert table[1][glory_ai.cards.card_id("Bar")] < 0     # a Marble (Patron) card here
    assert table[1][glory_ai.cards.card_id("Road")] == 0
    assert table[1][glory_ai.cards.card_id("Temple")] < 0
