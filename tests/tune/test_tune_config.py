"""Study configs and knobs: every mistake is one error naming the knob or key, before any game."""

from __future__ import annotations

import copy

import pytest

from glory_ai.tune import SearchSpace, TuneError, parse_knob, parse_tune_config
from glory_ai.tune.knobs import variant_key, variant_label

BASE = {
    "name": "t",
    "seed": 1,
    "validation_seed": 2,
    "play": {"specs": ["random"], "players": [2]},
    "knobs": {"copies.Catacomb": {"low": 1, "high": 4}},
    "objective": [{"statistic": "building_effect:Catacomb"}],
    "search": {"trials": 3, "deals": [4, 8]},
    "validation": {"top": 2, "deals": 10},
}


def config(**changes):
    data = copy.deepcopy(BASE)
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    return parse_tune_config(data, "t")


def test_a_config_reads():
    c = config()
    assert c.rungs == (4, 8) and c.specs == ("random",) and c.players == (2,)
    assert [k.name for k in c.knobs] == ["copies.Catacomb"] and c.knobs[0].values == (1, 2, 3, 4)
    assert c.knobs[0].is_range
    assert [s.name for s in c.statistics()] == ["building_effect:Catacomb"]


@pytest.mark.parametrize(
    ("knobs", "words"),
    [
        ({"colour.Catacomb": [1]}, ["colour.Catacomb", "unknown knob"]),
        ({"copies.Catacombs": [1]}, ["copies.Catacombs", "not a building"]),
        ({"copies.Catacomb": [13]}, ["copies.Catacomb", "out of range", "0 to 12"]),
        ({"copies.Catacomb": {"low": 3, "high": 1}}, ["copies.Catacomb", "low <= high"]),
        ({"copies.Catacomb": []}, ["copies.Catacomb", "non-empty"]),
        ({"copies.Catacomb": [2, 2]}, ["copies.Catacomb", "twice"]),
        ({"removed.Catacomb": [1]}, ["removed.Catacomb", "true or false"]),
        ({"materials.Catacomb": ["Gold"]}, ["materials.Catacomb", "not a material"]),
        ({"points.Catacomb": [10]}, ["points.Catacomb", "out of range"]),
        ({"refill_size": [0]}, ["refill_size", "out of range"]),
        ({"in_towns": [1]}, ["in_towns", "unknown knob"]),
        ({"materials.Catacomb": {"low": 1, "high": 2}}, ["materials.Catacomb", "integer knobs"]),
    ],
)
def test_a_bad_knob_is_named(knobs, words):
    with pytest.raises(TuneError) as error:
        config(knobs=knobs)
    for word in words:
        assert word in str(error.value), (word, str(error.value))


def test_a_variant_the_engine_cannot_deal_is_refused_before_any_game():
    # every building but a few removed: too few cards for two hands and a deck
    from glory_ai.cards import CARD_NAMES

    removed = [n for n in CARD_NAMES[1:] if n not in ("Catacomb", "Temple")]
    with pytest.raises(TuneError, match="deck holds"):
        config(play={"specs": ["random"], "players": [2], "variant": {"removed": removed}})
    # a knob value that leaves too few cards is named with its value: 8 buildings of 3 cards
    # are 24 Orders, and 2 players need 22
    from glory_ai.core.config import GameConfig

    copies = dict(zip(CARD_NAMES, GameConfig(2).deck_copies(), strict=True))
    kept = ["Catacomb"] + [n for n in CARD_NAMES[1:] if copies[n] == 3 and n != "Catacomb"][:7]
    variant = {"removed": [n for n in CARD_NAMES[1:] if n not in kept]}
    config(play={"specs": ["random"], "players": [2], "variant": variant}, knobs={"copies.Catacomb": [3, 4]})
    with pytest.raises(TuneError) as error:
        config(
            play={"specs": ["random"], "players": [2], "variant": variant}, knobs={"copies.Catacomb": [0, 3]}
        )
    assert "knob 'copies.Catacomb' = 0" in str(error.value) and "21 Order cards" in str(error.value)


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"seed": None}, ["seed", "required"]),
        ({"validation_seed": 1}, ["validation_seed", "differ"]),
        ({"play": {"specs": ["ismcts:iterz=3"]}}, ["iterz"]),
        ({"play": {"specs": ["random"], "players": [6]}}, ["players", "2 to 5"]),
        ({"objective": []}, ["objective"]),
        ({"objective": [{"statistic": "fun"}]}, ["unknown statistic", "fun"]),
        ({"objective": [{"statistic": "building_effect"}]}, ["names a building"]),
        ({"objective": [{"statistic": "building_effect:Circus"}]}, ["Circus", "not in the deck"]),
        ({"objective": [{"statistic": "skill_error"}]}, ["skill_error", "[skill]"]),
        ({"objective": [{"statistic": "turns", "goal": "range"}]}, ["range = [LOW, HIGH]"]),
        ({"objective": [{"statistic": "turns", "goal": "target"}]}, ["target = VALUE"]),
        ({"objective": [{"statistic": "turns", "goal": "least"}]}, ["goal", "least"]),
        ({"objective": [{"statistic": "turns", "weight": 0}]}, ["weight"]),
        ({"objective": [{"statistic": "end_share:boredom"}]}, ["end_share", "boredom"]),
        ({"objective": [{"statistic": "table:nonsense:x"}]}, ["table:nonsense"]),
        ({"constraint": [{"statistic": "turns"}]}, ["constraint", "min, max"]),
        ({"constraint": [{"statistic": "turns", "min": 9, "max": 3}]}, ["min (9) exceeds max (3)"]),
        ({"search": {"sampler": "magic"}}, ["sampler", "magic"]),
        ({"search": {"deals": [8, 4]}}, ["rungs must rise"]),
        ({"search": {"combine": "pareto", "sampler": "cmaes"}}, ["cmaes", "Pareto"]),
        ({"validation": {"top": 0}}, ["top"]),
        ({"colour": 1}, ["unknown key", "colour"]),
    ],
)
def test_a_bad_config_is_named(changes, words):
    with pytest.raises(TuneError) as error:
        config(**changes)
    for word in words:
        assert word in str(error.value), (word, str(error.value))


def test_skill_targets_must_be_a_consistent_matrix():
    skill = {"specs": ["greedy", "random"], "target": [[0, 0.7], [0.4, 0]], "first_player": 0.5}
    with pytest.raises(TuneError, match="add up to 1"):
        config(
            play={"specs": ["greedy", "random"]},
            skill=skill,
            objective=[{"statistic": "competition_score", "goal": "maximize"}],
        )
    skill["target"] = [[0, 0.7], [0.3, 0]]
    c = config(
        play={"specs": ["greedy", "random"]},
        skill=skill,
        objective=[{"statistic": "competition_score", "goal": "maximize"}],
    )
    assert c.skill is not None and c.skill.specs == ("greedy", "random")
    with pytest.raises(TuneError, match="not among"):
        config(
            play={"specs": ["greedy", "random"]},
            skill={**skill, "specs": ["greedy", "pimc:iters=100"]},
            objective=[{"statistic": "skill_error"}],
        )


def test_knobs_set_a_variant_and_name_it():
    knobs = [
        parse_knob("copies.catacomb", [0, 3, 6]),
        parse_knob("removed.Temple", [False, True]),
        parse_knob("refill_size", {"low": 4, "high": 6}),
    ]
    space = SearchSpace(knobs, "republic", (2,), {})
    assert space.size() == 18
    assert space.variant({"copies.Catacomb": 6, "removed.Temple": True, "refill_size": 4}) == {
        "copies": {"Catacomb": 6},
        "removed": ["Temple"],
        "refill_size": 4,
    }
    # the printed values are no entry at all: the published rules, the published variant
    assert space.variant({"copies.Catacomb": 3, "removed.Temple": False, "refill_size": 5}) == {
        "refill_size": 5
    }
    assert space.published() == {"copies.Catacomb": 3, "removed.Temple": False, "refill_size": 5}
    params = {"copies.Catacomb": 6, "removed.Temple": False, "refill_size": 5}
    assert variant_label(knobs, params, space.published()) == "6 Catacomb cards"
    assert variant_label(knobs, space.published(), space.published()) == "the published rules"
    # the same rules have the same folder; other rules another
    a = variant_key("republic", space.variant(params))
    assert a == variant_key("republic", {"copies": {"Catacomb": 6}, "refill_size": 5})
    assert a != variant_key("imperium", space.variant(params))


def test_a_study_config_file_is_read_with_one_line_errors(tmp_path):
    from glory_ai.tune import load_tune_config

    with pytest.raises(TuneError, match="no such file"):
        load_tune_config(tmp_path / "missing.toml")
    (tmp_path / "bad.toml").write_text("name = [")
    with pytest.raises(TuneError, match="not valid TOML"):
        load_tune_config(tmp_path / "bad.toml")
    with pytest.raises(TuneError, match="a character device, not a regular file"):
        load_tune_config("/dev/zero")
    with pytest.raises(TuneError, match="not a file"):
        load_tune_config(tmp_path)
