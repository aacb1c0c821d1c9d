"""The test `glory-ai reproduce` makes of an experiment with time budgets (whose records
depend on the machine): Welch's t-test on per-deal win shares, Holm-adjusted across the
specs of a run, at alpha = 0.01. Its false-alarm rate, measured by simulation against the
rule it replaces (the new win rate inside the stored 95% interval); the records-level
function; and reproduce end to end on a time-budget experiment."""
from __future__ import annotations

import gc
import gzip
import json

import numpy as np
import pytest
from statsmodels.stats.proportion import proportion_confint

from glory_ai.analysis.stats import calibration, compare_reruns, paired


def _fields(model, deals, runs, rng):
    """Per-deal win shares (runs, deals, specs) of simulated 3-player fields."""
    return model.play(deals, runs, rng) / len(model.strengths)


def field_false_alarms(runs: int, seed: int) -> tuple[float, float]:
    """How often a correct re-run of a 3-spec field (deals that favour seats and suit specs,
    60 deals) is flagged: by the reproduce rule (:func:`paired.rerun_tests`, some spec's
    Holm-adjusted p below alpha) and by the rule it replaces (some spec's new win rate
    outside its stored Wilson interval)."""
    model = calibration.Field(seat_sd=1.0, spec_sd=1.0)
    rng = np.random.default_rng(seed)
    deals = 60
    old, new = _fields(model, deals, runs, rng), _fields(model, deals, runs, rng)
    specs = ["a", "b", "c"]
    flagged = sum(bool(paired.rerun_tests({s: old[r, :, i] for i, s in enumerate(specs)},
                                          {s: new[r, :, i] for i, s in enumerate(specs)})
                       ["differs"].any()) for r in range(runs))
    wins_old, wins_new = old.sum(axis=1) * 3, new.sum(axis=1) * 3       # (runs, specs) wins
    low, high = proportion_confint(wins_old, 3 * deals, method="wilson")
    rate_new = wins_new / (3 * deals)
    return flagged / runs, float(((rate_new < low) | (rate_new > high)).any(axis=1).mean())


@pytest.fixture
def quick_holm(monkeypatch):
    # statsmodels' multipletests runs a full garbage collection on every call, a quarter of
    # a second in a test process: thousands of simulated re-runs skip it
    monkeypatch.setattr(gc, "collect", lambda *args: 0)


def test_a_correct_rerun_is_flagged_at_most_alpha_of_the_time(quick_holm):
    runs = 500
    rate, outside = field_false_alarms(runs, seed=20)
    # the family-wise rate is at most alpha = 1% (simulation standard error ~0.45 points)
    assert rate <= paired.RERUN_ALPHA + 3.5 * np.sqrt(0.01 * 0.99 / runs)
    # the rule it replaces: a correct re-run fails it about one time in three (three specs)
    assert outside > 0.25


@pytest.mark.slow
def test_a_correct_rerun_is_flagged_at_most_alpha_of_the_time_measured_closely(quick_holm):
    runs = 5000
    rate, outside = field_false_alarms(runs, seed=22)
    assert rate <= paired.RERUN_ALPHA + 3 * np.sqrt(0.01 * 0.99 / runs)
    assert 0.25 < outside < 0.45


def test_a_real_change_is_found(quick_holm):
    rng = np.random.default_rng(21)
    before = calibration.Field(strengths=(0.5, 0.0, -0.5))
    after = calibration.Field(strengths=(-0.5, 0.0, 0.5))
    old, new = _fields(before, 100, 20, rng), _fields(after, 100, 20, rng)
    found = [paired.rerun_tests({"a": old[r, :, 0], "c": old[r, :, 2]},
                                {"a": new[r, :, 0], "c": new[r, :, 2]})["differs"].any()
             for r in range(20)]
    assert np.mean(found) > 0.9


def _h2h(synth, deals, a_wins_of):
    """Head-to-head records of a against b, both seatings of every deal."""
    out = []
    for deal in range(deals):
        for rotation in range(2):
            seats = ["a", "b"] if rotation == 0 else ["b", "a"]
            winner = seats.index("a") if a_wins_of(deal, rotation) else seats.index("b")
            rec = synth(deal, seats, [winner])
            rec.update({"rotation": rotation, "game_id": f"{deal}-0-{rotation}"})
            out.append(rec)
    return out


def test_compare_reruns_on_records_names_the_test_and_alpha(synth):
    stored = _h2h(synth, 40, lambda d, r: (d + r) % 3 != 0)
    same = _h2h(synth, 40, lambda d, r: (d + 2 * r) % 3 != 0)
    check = compare_reruns(stored, same)
    # two specs: one test (the second's per-deal score is the first's complement)
    assert list(check.index) == ["a"] and not check["differs"].any()
    assert check.attrs["texts"] == []
    assert check.attrs["rule"] == ("Welch t-test on per-deal win shares, Holm-adjusted across "
                                   "specs, alpha = 0.01")
    worse = _h2h(synth, 40, lambda d, r: d % 5 == 0)
    check = compare_reruns(stored, worse)
    assert check.loc["a", "differs"] and check.loc["a", "p_holm"] == check.loc["a", "p_value"]
    text, = check.attrs["texts"]
    assert text.startswith("a win rate 0.662 stored, 0.200 re-run: differs (Welch t-test on "
                           "per-deal win shares, p = ")
    assert text.endswith("(one test) < alpha = 0.01)")
    # three specs: Holm across them
    field = [synth(d, ["a", "b", "c"][d % 3:] + ["a", "b", "c"][:d % 3], [d % 3]) for d in range(60)]
    swapped = [synth(d, seats, [seats.index("a")]) for d in range(60)
               for seats in [["a", "b", "c"][d % 3:] + ["a", "b", "c"][:d % 3]]]
    check = compare_reruns(field, swapped)
    assert list(check.index) == ["a", "b", "c"] and check["differs"].any()
    assert all("Holm-adjusted over 3 specs" in text for text in check.attrs["texts"])


def test_reproduce_a_time_budget_experiment(tmp_path, capsys):
    from glory_ai.cli import main
    from glory_ai.experiments import run_experiment

    config = tmp_path / "timed.toml"
    config.write_text('description = "search by time against random"\nquestion = "?"\nseed = 3\n\n'
                      '[[matchup]]\nname = "duel"\nspecs = ["ismcts:iters=0,time_ms=0.5", "random"]\n'
                      'deals = 6\n\n[run]\njobs = 1\n\n[analysis]\nreport = false\n')
    folder = run_experiment(config, tmp_path / "results", log=lambda *a: None, progress=False)
    # the search wins nearly every game: a correct re-run is not flagged
    assert main(["reproduce", str(folder), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "Welch t-test on per-deal win shares, Holm-adjusted across specs, alpha = 0.01" in out
    # stored results where random won every game: flagged, with the test and alpha
    games = folder / "runs" / "duel" / "games.jsonl.gz"
    with gzip.open(games, "rt") as fh:
        records = [json.loads(line) for line in fh]
    for r in records:
        r["winners"] = [r["seats"].index("random")]
        r["returns"] = [1.0 if s == r["winners"][0] else 0.0 for s in range(2)]
    with gzip.open(games, "wt") as fh:
        fh.write("".join(json.dumps(r) + "\n" for r in records))
    assert main(["reproduce", str(folder), "--no-progress"]) == 1
    out = capsys.readouterr().out
    assert "ismcts:iters=0,time_ms=0.5 win rate 0.000 stored" in out
    assert "(Welch t-test on per-deal win shares, p = " in out and "< alpha = 0.01)" in out


@pytest.mark.parametrize("bad", [{"a": [1, 0]}, {}])
def test_rerun_tests_need_the_same_specs_on_both_sides(bad):
    from glory_ai.analysis import AnalysisError

    with pytest.raises(AnalysisError):
        paired.rerun_tests({"a": [1, 0, 1], "b": [0, 1, 0]} if bad else {}, bad)
