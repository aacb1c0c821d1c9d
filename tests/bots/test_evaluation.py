"""Evaluation models (docs/evaluation.md): the feature vector from Python and from the C
API without the GIL, the styles as linear models, model files that play exactly as the
style they hold, clear errors for malformed files, the C evaluation of MLPs against numpy,
model outputs in the cutoff rewards, and seeded model rollouts."""
from __future__ import annotations

import gzip
import hashlib
import json
import math
import random
import runpy
import shutil
from pathlib import Path

import numpy as np
import pytest

import glory_ai
from glory_ai.bots import SpecError, make_bot, model_identities, model_path, parse_spec, registry
from glory_ai.bots._search import (
    CompiledModel,
    _action_values,
    _evaluate,
    _features,
    _rewards,
    _softmax_draws,
)
from glory_ai.bots.bench import states_along_games
from glory_ai.bots.models import (
    FEATURE_COUNT,
    FEATURE_NAMES,
    MAX_HIDDEN_LAYERS,
    MAX_UNITS,
    ModelError,
    linear_model,
    load_model,
    mlp_model,
    style_model,
    style_weights,
)
from glory_ai.bots.styles import STYLES
from glory_ai.core.engine import REFERENCE_GAIN_WEIGHTS

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "models"


def sampled_states(per_setup: int, seed: int = 3):
    """States along random games of 2 to 5 players in both modes (live and finished)."""
    rng = random.Random(seed)
    for num_players in (2, 3, 4, 5):
        for mode in ("republic", "imperium"):
            game = glory_ai.Game(num_players, mode=mode)
            for deal in range(per_setup):
                state = game.new_initial_state(deal)
                while not state.is_terminal():
                    state.random_playout(rng.randrange(2 ** 32), max_decisions=rng.randrange(5, 50))
                    yield state.clone()


def decision_states(num_players: int, games: int, every: int = 3):
    """Live states along greedy games (where styles have choices to make)."""
    return states_along_games(num_players, games, first_deal=100, every=every)


# ---- the feature vector -------------------------------------------------------------------

def test_features_from_python_equal_the_c_api_without_the_gil():
    states, players = [], []
    for state in sampled_states(per_setup=12):
        for p in range(state.num_players()):
            states.append(state)
            players.append(p)
    assert len(states) > 3000
    from_c = _features(states, players)
    from_python = np.array([state.features(p) for state, p in zip(states, players, strict=True)])
    assert from_c.shape == (len(states), FEATURE_COUNT)
    assert np.array_equal(from_c, from_python)
    assert np.count_nonzero(from_c.any(axis=0)) >= 70        # the states exercise the features


def test_the_reference_gain_weights_are_the_balanced_style_s_where_the_estimate_reads():
    reference = dict(zip(FEATURE_NAMES, REFERENCE_GAIN_WEIGHTS, strict=True))
    balanced = dict(zip(FEATURE_NAMES, style_weights("balanced").tolist(), strict=True))
    read = [name for name in FEATURE_NAMES if name.startswith(("clients_", "completed_")) or name in (
        "foundation_value", "progress_materials", "vault_cards", "stockpile_useful", "hand_cards")]
    assert len(read) == 6 + 44 + 5
    for name in FEATURE_NAMES:
        assert reference[name] == (balanced[name] if name in read else 0), name
    # the default prices with the reference; a style model's features with its own weights
    states = list(sampled_states(per_setup=1, seed=5))[::4]
    for state in states:
        assert np.array_equal(state.features(0), state.features(0, gain=REFERENCE_GAIN_WEIGHTS))
        assert np.array_equal(state.features(0), style_model("balanced").features(state, 0))


def test_a_style_s_gain_weights_price_the_actions_to_come():
    # the patron style values a Patron client 1.4 times as much: so does its gain estimate
    seen = 0
    for state in sampled_states(per_setup=3, seed=8):
        for p in range(state.num_players()):
            reference = state.features(p)
            patron = style_model("patron").features(state, p)
            at = FEATURE_NAMES.index("pending_gain_patron")
            if reference[at] > 0:
                seen += 1
                assert patron[at] > reference[at]
            others = [i for i in range(FEATURE_COUNT) if not FEATURE_NAMES[i].startswith("pending_gain_")]
            assert np.array_equal(patron[others], reference[others])
    assert seen > 20


def test_the_gain_weights_of_features_are_checked():
    state = glory_ai.Game(2).new_initial_state(1)
    with pytest.raises(ValueError, match=f"gain must be {FEATURE_COUNT} numbers"):
        state.features(0, gain=[1.0, 2.0])


# ---- the styles are linear models ---------------------------------------------------------

@pytest.mark.parametrize("style", list(STYLES))
def test_a_style_evaluates_its_weights_times_the_features(style):
    weights = style_weights(style)
    for state in list(sampled_states(per_setup=2, seed=11))[::3]:
        for p in range(state.num_players()):
            expected = math.fsum(weights * style_model(style).features(state, p))
            assert _evaluate(state, p, style) == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_the_balanced_weights_are_the_documented_formula():
    # docs/bots.md, "Evaluation and styles": the score, then each weight on its features
    w = dict(zip(FEATURE_NAMES, style_weights("balanced").tolist(), strict=True))
    assert w["score"] == 1 and w["foundation_value"] == 0.15 and w["progress_materials"] == 0.7
    assert w["materials_at_hand"] == pytest.approx(0.28) and w["stockpile_excess"] == pytest.approx(0.05)
    assert w["hand_cards_beyond"] == pytest.approx(0.1) and w["jacks"] == 0.6 and w["jacks_beyond"] == 0
    assert w["clients_patron"] == 0.5 and w["pending_gain_legionary"] == 0.8
    assert w["completed_temple"] == 1.0 and w["completed_villa"] == 0.3 and w["completed_academy"] == 0
    assert all(w[name] == 0 for name in ("influence", "client_room", "pending_units", "deck_cards",
                                         "turn_order", "imperium", "players_2"))


def test_the_styles_evaluate_to_the_last_bit_as_the_hand_written_evaluation_did():
    # Positions of 2 to 5 players in both modes (Jacks beyond two, stockpile excess, cards
    # beyond the refill size, vaults, completed buildings, actions to come of every role)
    # and every player's value under every style, as glory_ai's hand-written evaluation
    # computed them before the styles were linear models: the very same floats, so games
    # of the built-in bots (and the shipped results) do not change.
    with gzip.open(Path(__file__).parent / "data" / "style_evaluations.json.gz", "rt") as handle:
        rows = json.load(handle)["rows"]
    assert len(rows) > 50
    for row in rows:
        state = glory_ai.State.from_dict(row["position"])
        for style, values in row["values"].items():
            assert [_evaluate(state, p, style).hex() for p in range(state.num_players())] == values, style
    jacks = FEATURE_NAMES.index("jacks_beyond")
    assert any(glory_ai.State.from_dict(row["position"]).features(p)[jacks] for row in rows for p in range(2))


@pytest.fixture(scope="module")
def style_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("styles")
    paths = {}
    for style in STYLES:
        paths[style] = folder / f"{style}.npz"
        style_model(style).save(paths[style])
    return paths


@pytest.mark.parametrize("style", ["builder", "merchant", "legionary", "patron"])
def test_a_model_file_of_a_style_plays_the_style_s_moves(style, style_files):
    styled = make_bot(f"heuristic:style={style}", seed=4)
    modelled = make_bot(f"heuristic:eval={style_files[style]}", seed=4)
    states = decision_states(3, games=2, every=2) + decision_states(2, games=1, every=2)
    assert len(states) > 150
    moves = [styled.step(state) for state in states]
    assert [modelled.step(state) for state in states] == moves
    assert len(set(moves)) > 50


@pytest.mark.parametrize("style", list(STYLES))
def test_a_search_with_a_model_file_of_a_style_searches_as_the_style(style, style_files):
    # same moves and the same root statistics, with cutoffs (the default) and heuristic rollouts
    states = decision_states(2, games=1, every=6)[:10] + decision_states(4, games=1, every=8)[:6]
    for spec in ("ismcts:iters=150,style={}", "pimc:iters=60,worlds=3,rollout=heuristic,cutoff=5,style={}"):
        styled = make_bot(spec.format(style), seed=9)
        modelled = make_bot(spec.replace("style={}", f"eval={style_files[style]}"), seed=9)
        for state in states:
            assert modelled.step(state) == styled.step(state)
            assert modelled.last_search()["actions"] == styled.last_search()["actions"]


# ---- model files --------------------------------------------------------------------------

def _good_arrays() -> dict[str, object]:
    rng = np.random.default_rng(0)
    return {"format_version": np.array(1), "feature_set": np.array(1),
            "num_features": np.array(FEATURE_COUNT), "output": np.array("value"),
            "W1": rng.normal(size=(FEATURE_COUNT, 8)), "b1": np.zeros(8),
            "W2": rng.normal(size=(8, 1)), "b2": np.zeros(1)}


def _without(key):
    def change(arrays):
        del arrays[key]
    return change


def _set(key, value):
    def change(arrays):
        arrays[key] = value
    return change


def _deep(arrays):
    for k in range(2, MAX_HIDDEN_LAYERS + 3):
        arrays[f"W{k}"], arrays[f"b{k}"] = np.ones((8, 8)), np.zeros(8)
    arrays[f"W{MAX_HIDDEN_LAYERS + 2}"] = np.ones((8, 1))
    arrays[f"b{MAX_HIDDEN_LAYERS + 2}"] = np.zeros(1)


def _wide(arrays):
    arrays["W1"], arrays["b1"] = np.ones((FEATURE_COUNT, MAX_UNITS + 1)), np.zeros(MAX_UNITS + 1)
    arrays["W2"] = np.ones((MAX_UNITS + 1, 1))


def _nan(arrays):
    arrays["W1"][3, 2] = np.nan


MALFORMED = {
    "missing key": (_without("output"), ["missing key 'output'"]),
    "missing bias": (_without("b2"), ["missing key 'b2'"]),
    "missing layer": (lambda a: (a.pop("W2"), a.pop("b2"), a.update(W3=np.ones((8, 1)), b3=np.zeros(1))),
                      ["missing key 'W2'"]),
    "no weights at all": (lambda a: [a.pop(k) for k in ("W1", "b1", "W2", "b2")],
                          ["missing key 'weights'", "'W1'"]),
    "wrong shape": (_set("W1", np.ones((FEATURE_COUNT - 1, 8))),
                    ["'W1'", f"shape ({FEATURE_COUNT}, H)", f"({FEATURE_COUNT - 1}, 8)"]),
    "bias of the wrong size": (_set("b1", np.zeros(7)), ["'b1'", "shape (8,)", "(7,)"]),
    "two outputs": (_set("W2", np.ones((8, 2))), ["'W2'", "shape (8, 1)"]),
    "non-finite": (_nan, ["'W1'", "1 non-finite value"]),
    "wrong feature count": (_set("num_features", np.array(77)),
                            ["num_features is 77", f"has {FEATURE_COUNT}"]),
    "other feature set": (_set("feature_set", np.array(2)), ["feature set 2", "computes feature set 1"]),
    "other format": (_set("format_version", np.array(9)), ["format_version 9", "reads 1"]),
    "unknown output": (_set("output", np.array("probability")),
                       ["unknown output 'probability'", "win_logit"]),
    "too many layers": (_deep, [f"{MAX_HIDDEN_LAYERS + 2} layers", f"at most {MAX_HIDDEN_LAYERS + 1}"]),
    "too many units": (_wide, [f"{MAX_UNITS + 1} units", f"1 to {MAX_UNITS}"]),
    "unknown key": (_set("W_1", np.ones(3)), ["unknown key 'W_1'"]),
    "text weights": (_set("b1", np.array(["a"] * 8)), ["'b1'", "must hold numbers"]),
    "both kinds": (_set("weights", np.ones(FEATURE_COUNT)), ["both a linear model", "keep one"]),
    "half a normalisation": (_set("mean", np.zeros(FEATURE_COUNT)), ["missing key 'scale'"]),
    "zero scale": (lambda a: a.update(mean=np.zeros(FEATURE_COUNT), scale=np.zeros(FEATURE_COUNT)),
                   ["'scale' must be positive", "(score)"]),
    "wrong feature names": (_set("feature_names", np.array(["x"] + list(FEATURE_NAMES[1:]))),
                            ["feature_names[0] is 'x'", "'score'"]),
    "integer output": (_set("output", np.array(3)), ["'output' must be a string"]),
    "array version": (_set("format_version", np.array([1, 2])), ["'format_version' must be a single value"]),
}


@pytest.mark.parametrize("case", list(MALFORMED))
def test_a_malformed_model_file_is_one_clear_error_naming_what_is_wrong(case, tmp_path):
    change, words = MALFORMED[case]
    arrays = _good_arrays()
    change(arrays)
    path = tmp_path / "model.npz"
    np.savez(path, **arrays)
    with pytest.raises(ModelError) as info:
        load_model(path)
    message = str(info.value)
    assert "\n" not in message and str(path) in message
    for word in words:
        assert word in message, (word, message)
    with pytest.raises(SpecError) as spec_info:          # the spec says which parameter and file
        make_bot(f"ismcts:iters=10,eval={path}")
    assert "parameter 'eval'" in str(spec_info.value) and words[0] in str(spec_info.value)


def test_files_that_are_not_models_are_clear_errors(tmp_path):
    cases = {"missing.npz": "no such file", "text.npz": "not an .npz archive",
             "array.npy": "not an .npz archive", "pickled.npz": "holds Python objects"}
    (tmp_path / "text.npz").write_text("weights = 1, 2, 3\n")
    np.save(tmp_path / "array.npy", np.ones(FEATURE_COUNT))
    arrays = _good_arrays()
    arrays["description"] = np.array([{"a": 1}], dtype=object)
    np.savez(tmp_path / "pickled.npz", **arrays)
    (tmp_path / "folder.npz").mkdir()
    cases["folder.npz"] = "cannot be read"
    for name, words in cases.items():
        with pytest.raises(ModelError, match=words):
            load_model(tmp_path / name)
        with pytest.raises(SpecError, match=words):
            make_bot(f"heuristic:eval={tmp_path / name}")


def test_a_model_round_trips_through_its_file(tmp_path):
    rng = np.random.default_rng(5)
    model = mlp_model([(rng.normal(size=(FEATURE_COUNT, 16)), rng.normal(size=16)),
                       (rng.normal(size=(16, 1)), rng.normal(size=1))], "win_logit",
                      mean=rng.normal(size=FEATURE_COUNT), scale=rng.uniform(0.5, 2, FEATURE_COUNT),
                      description="a test model")
    model.save(tmp_path / "m.npz")
    loaded = load_model(tmp_path / "m.npz")
    assert loaded.output == "win_logit" and loaded.description == "a test model" and loaded.kind == "mlp"
    assert loaded.sha256 == hashlib.sha256((tmp_path / "m.npz").read_bytes()).hexdigest()
    x = rng.normal(size=(20, FEATURE_COUNT))
    assert np.array_equal(loaded.evaluate(x), model.evaluate(x))
    linear = linear_model(np.arange(FEATURE_COUNT) / 10, 0.5, "win_share")
    linear.save(tmp_path / "l.npz")
    assert load_model(tmp_path / "l.npz").kind == "linear"
    assert load_model(tmp_path / "l.npz").evaluate(np.ones(FEATURE_COUNT)) == pytest.approx(
        0.5 + sum(range(FEATURE_COUNT)) / 10)


def _random_mlp(rng, widths, normalised):
    sizes = [FEATURE_COUNT, *widths, 1]
    layers = [(rng.normal(0, 1 / math.sqrt(a), (a, b)), rng.normal(0, 0.5, b))
              for a, b in zip(sizes, sizes[1:], strict=False)]
    if not normalised:
        return mlp_model(layers)
    return mlp_model(layers, mean=rng.normal(0, 3, FEATURE_COUNT), scale=rng.uniform(0.2, 5, FEATURE_COUNT))


@pytest.mark.parametrize("widths", [(), (1,), (64, 64), (5, 300, 7), (MAX_UNITS, 3, 2, 9)])
@pytest.mark.parametrize("normalised", [False, True])
def test_the_c_evaluation_of_a_model_equals_numpy(widths, normalised):
    rng = np.random.default_rng(len(widths) * 10 + normalised)
    model = _random_mlp(rng, widths, normalised)
    # random inputs, with the zeros of real feature vectors (the C code skips them)
    x = rng.normal(0, 4, (300, FEATURE_COUNT)) * (rng.random((300, FEATURE_COUNT)) < 0.4)
    expected = model.evaluate(x)
    got = CompiledModel(model)._outputs(x)
    assert np.all(np.abs(got - expected) <= 1e-12 * np.maximum(np.abs(expected), 1.0))
    assert len(set(np.round(expected, 6))) > 100                 # not a constant model
    for state in list(sampled_states(per_setup=1))[::7]:
        for p in range(state.num_players()):
            value = model.evaluate(state.features(p))
            assert _evaluate(state, p, model=model) == pytest.approx(value, rel=1e-12, abs=1e-12)


# ---- outputs and rewards ------------------------------------------------------------------

def _score_model(output, slope, bias=0.0):
    weights = np.zeros(FEATURE_COUNT)
    weights[FEATURE_NAMES.index("score")] = slope
    return linear_model(weights, bias, output)


def test_win_models_give_their_win_shares_at_a_cutoff():
    for state in decision_states(3, games=1, every=10)[:8] + decision_states(5, games=1, every=25)[:4]:
        scores = np.array(state.scores(), dtype=float)
        logits = 0.3 * scores
        shares = np.exp(logits - logits.max()) / np.exp(logits - logits.max()).sum()
        # temperature does not apply to logits: the model's win chances come back as they are
        for temperature in (1.0, 4.0):
            rewards = _rewards(state, "win", temperature, model=_score_model("win_logit", 0.3))
            assert rewards == pytest.approx(shares)
        share_model = _score_model("win_share", 0.01, 0.05)
        raw = 0.05 + 0.01 * scores
        assert _rewards(state, "win", 4.0, model=share_model) == pytest.approx(raw / raw.sum())
        n = state.num_players()
        rank = [sum(1 / (1 + math.exp(-(logits[p] - logits[q]))) for q in range(n) if q != p) / (n - 1)
                for p in range(n)]
        assert _rewards(state, "rank", 4.0, model=_score_model("win_logit", 0.3)) == pytest.approx(rank)
        # a value model keeps the VP temperature
        value = np.exp((scores - scores.max()) / 4.0)
        rewards = _rewards(state, "win", 4.0, model=_score_model("value", 1.0))
        assert rewards == pytest.approx(value / value.sum())


def test_a_win_share_is_floored_before_its_logarithm():
    state = decision_states(2, games=1)[5]
    weights = np.zeros(FEATURE_COUNT)
    weights[FEATURE_NAMES.index("turn_order")] = 1.0       # the leader's share is 0, the other's 1
    rewards = _rewards(state, "win", model=linear_model(weights, 0.0, "win_share"))
    leader = state.leader()
    assert rewards[leader] == pytest.approx(1e-9, rel=1e-6) and sum(rewards) == pytest.approx(1.0)


# ---- model rollouts -----------------------------------------------------------------------

def test_model_rollouts_draw_from_the_softmax_of_the_one_ply_values():
    state = next(s for s in decision_states(2, games=2, every=1) if 4 <= len(s.legal_actions()) <= 12)
    model = style_model("balanced")
    values = np.array(_action_values(state, model))
    assert values.max() - values.min() > 0.1
    for temperature in (0.3, 1.0):
        draws = 20000
        counts = np.array(_softmax_draws(state, model, temperature, draws, 7))
        weights = np.exp((values - values.max()) / temperature)
        expected = draws * weights / weights.sum()
        # within 5 standard deviations of the binomial count, for every action
        assert np.all(np.abs(counts - expected) <= 5 * np.sqrt(expected * (1 - expected / draws)) + 1)
    # a low temperature plays the one-ply best, as the heuristic policy does
    counts = _softmax_draws(state, model, 0.001, 200, 3)
    assert counts[int(np.argmax(values))] == 200


def test_model_rollouts_are_seeded():
    states = decision_states(3, games=1, every=9)[:4]
    for spec in ("ismcts:iters=120,rollout=model",
                 "flatmc:iters=80,rollout=model,rollout_temperature=2,cutoff=0"):
        for state in states:
            first, again, other = make_bot(spec, 5), make_bot(spec, 5), make_bot(spec, 6)
            assert first.step(state) == again.step(state)
            assert first.last_search() is not None
            assert first.last_search()["actions"] == again.last_search()["actions"]
            other.step(state)
        assert other.last_search()["actions"] != first.last_search()["actions"]


def test_a_model_rollout_bot_finishes_games(tmp_path):
    style_model("patron").save(tmp_path / "patron.npz")
    state = glory_ai.Game(3).new_initial_state(4)
    bots = [make_bot("ismcts:iters=30,rollout=model,cutoff=10", 1),
            make_bot(f"heuristic:eval={tmp_path / 'patron.npz'}", 2),
            make_bot(f"pimc:iters=20,worlds=2,rollout=model,eval={tmp_path / 'patron.npz'}", 3)]
    while not state.is_terminal():
        action = bots[state.current_player()].step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
    assert state.winners()


# ---- fair play --------------------------------------------------------------------------

def test_a_user_model_never_sees_the_hidden_cards(tmp_path):
    # A model that weighs what the other players hold in hand (materials for their
    # structures, Jacks, the gain of their actions to come) would play on the hidden cards
    # if it were handed the real state. The bots evaluate only worlds re-dealt from what
    # their player knows: the same information, dealt otherwise, gives the same move and
    # the same search.
    weights = dict.fromkeys(FEATURE_NAMES, 0.0)
    weights.update(score=1.0, materials_at_hand=2.0, jacks=1.5, jacks_beyond=1.0, hand_cards=0.5,
                   **{f"pending_gain_{role}": 1.0 for role in ("laborer", "craftsman", "architect",
                                                              "legionary", "merchant", "patron")})
    model = linear_model(np.array(list(weights.values())))
    path = tmp_path / "nosy.npz"
    model.save(path)
    specs = [f"heuristic:eval={path}", f"ismcts:iters=60,eval={path}",
             f"ismcts:iters=40,rollout=model,cutoff=8,eval={path}"]
    states = decision_states(3, games=1, every=7)[:12] + decision_states(2, games=1, every=9)[:8]
    telling = 0
    for i, state in enumerate(states):
        mover = state.current_player()
        others = [q for q in range(state.num_players()) if q != mover]
        redealt = [state.determinize(mover, 100 * i + k) for k in range(2)]
        # the real hidden cards matter to this model: its value of another player differs
        if any(model.evaluate(state.features(q)) != model.evaluate(world.features(q))
               for world in redealt for q in others):
            telling += 1
        for spec in specs:
            moves, searches = set(), set()
            for world in [state, *redealt]:
                bot = make_bot(spec, seed=3)
                moves.add(bot.step(world))
                found = bot.last_search()
                searches.add(None if found is None else repr(found["actions"]))
            assert len(moves) == 1 and len(searches) == 1, (spec, i)
    assert telling >= len(states) // 4


# ---- specs --------------------------------------------------------------------------------

def test_a_bot_with_a_model_exposes_the_hash_of_its_file(tmp_path):
    path = tmp_path / "m.npz"
    style_model("builder").save(path)
    bot = make_bot(f"ismcts:iters=10,eval={path}", 1)
    assert bot.model_hash == hashlib.sha256(path.read_bytes()).hexdigest()
    assert make_bot(f"heuristic:eval={path}").model_hash == bot.model_hash
    shipped = hashlib.sha256(model_path("learned").read_bytes()).hexdigest()
    assert make_bot("ismcts:iters=10").model_hash == shipped      # the default evaluation: the shipped model
    assert make_bot("ismcts:iters=10,style=balanced").model_hash is None
    assert make_bot("pimc:iters=10,worlds=1").model_hash is None and make_bot("greedy").model_hash is None
    style_model("patron").save(path)                    # the same path, another model
    assert make_bot(f"ismcts:iters=10,eval={path}", 1).model_hash != bot.model_hash


def test_ismcts_evaluates_with_the_shipped_model_unless_a_style_is_named(tmp_path):
    state = glory_ai.Game(2).new_initial_state(seed=11)
    for _ in range(30):                        # a mid-game position
        state.apply_action(make_bot("greedy").step(state))
    copy = tmp_path / "copy.npz"
    copy.write_bytes(model_path("learned").read_bytes())

    def searched(spec):
        bot = make_bot(spec, seed=5)
        return bot.step(state), bot.last_search()["actions"]

    default = searched("ismcts:iters=300")
    assert searched(f"ismcts:iters=300,eval={copy}") == default         # the very same search
    assert searched("ismcts:iters=300,eval=learned") == default
    style = searched("ismcts:iters=300,style=balanced")
    assert style == searched("ismcts:iters=300,eval=style") != default
    # a run's code identity holds the shipped model's hash, and none for a style
    identities = model_identities(["ismcts:iters=300", "ismcts:iters=300,style=balanced", "greedy"])
    assert list(identities) == ["ismcts:iters=300"]
    assert identities["ismcts:iters=300"]["sha256"] == make_bot("ismcts:iters=10").model_hash
    # the other bots keep the style unless asked
    assert make_bot("pimc:iters=10,worlds=1").model_hash is None
    assert make_bot("flatmc:iters=10,eval=learned").model_hash == make_bot("ismcts:iters=10").model_hash


def test_a_model_replaces_the_style_and_both_at_once_is_an_error(tmp_path):
    path = tmp_path / "m.npz"
    style_model("merchant").save(path)
    with pytest.raises(SpecError, match="style= or eval=, not both"):
        make_bot(f"ismcts:iters=10,style=patron,eval={path}")
    with pytest.raises(SpecError, match="style= or eval=, not both"):
        make_bot(f"heuristic:eval={path},style=builder")
    params = {p.name: p for p in registry()["ismcts"].params}
    assert params["rollout"].choices == ("random", "heuristic", "model")
    assert params["eval"].default == "learned" and params["rollout_temperature"].default == 0.5
    assert {p.name: p for p in registry()["pimc"].params}["eval"].default == "style"
    assert parse_spec("ismcts:style=patron")[1]["eval"] == "style"     # a style alone is the evaluation
    assert parse_spec("ismcts:eval=")[1]["eval"] == "style"            # the old spelling of the style
    assert "eval" in {p.name for p in registry()["heuristic"].params}


def test_a_run_records_its_model_files_and_refuses_to_resume_with_a_changed_one(tmp_path, monkeypatch):
    from glory_ai.arena import ArenaError, RunConfig, load_records, run
    from glory_ai.arena.code import read_code

    monkeypatch.chdir(tmp_path)
    style_model("builder").save(tmp_path / "mine.npz")
    spec = "heuristic:eval=mine.npz"
    config = RunConfig.for_games([spec, "greedy"], 4)
    run(config, "run", n_jobs=1)
    recorded = read_code(tmp_path / "run")["code"]["bots"][spec]
    sha = hashlib.sha256((tmp_path / "mine.npz").read_bytes()).hexdigest()
    assert recorded == {"kind": "evaluation model", "path": str(tmp_path / "mine.npz"), "sha256": sha}
    before = load_records(tmp_path / "run")
    run(config, "run", n_jobs=1)                          # the same file: resumed
    assert load_records(tmp_path / "run") == before
    style_model("patron").save(tmp_path / "mine.npz")     # the same path, another model
    with pytest.raises(ArenaError, match=rf"other code \({spec}: source sha256 {sha[:12]} there, "):
        run(config, "run", n_jobs=1)
    assert load_records(tmp_path / "run") == before
    (tmp_path / "mine.npz").unlink()
    with pytest.raises(ArenaError, match="parameter 'eval': model 'mine.npz' cannot be read"):
        run(config, "run", n_jobs=1)


# ---- the examples -------------------------------------------------------------------------

def test_the_example_models_are_the_ones_their_script_writes_and_they_play(tmp_path):
    script = tmp_path / "make_models.py"
    shutil.copy(EXAMPLES / "make_models.py", script)
    runpy.run_path(str(script), run_name="__main__")
    written = sorted(p.name for p in tmp_path.glob("*.npz"))
    assert written == sorted(p.name for p in EXAMPLES.glob("*.npz")) and len(written) >= 2
    for name in written:
        shipped, fresh = load_model(EXAMPLES / name), load_model(tmp_path / name)
        assert shipped.output == fresh.output and shipped.description == fresh.description
        for (w1, b1), (w2, b2) in zip(shipped.layers, fresh.layers, strict=True):
            assert np.array_equal(w1, w2) and np.array_equal(b1, b2)
    for name in written:
        state = glory_ai.Game(2).new_initial_state(8)
        bots = [make_bot(f"heuristic:eval={EXAMPLES / name}", 1), make_bot("greedy", 2)]
        while not state.is_terminal():
            state.apply_action(bots[state.current_player()].step(state))
        assert state.winners()
