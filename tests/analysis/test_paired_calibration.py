"""Calibration of the paired-deal statistics, measured (slow: about a minute).

Synthetic matches and fields with known strengths and a deal effect
(glory_ai.analysis.stats.calibration): the nominal 95% intervals cover the truth 93-97% of the
time, the pentanomial SPRT's error rates are within one percentage point of its alpha and
beta, and a correct re-run is flagged at most at the re-run test's stated rate. The
independent-games model is measured beside each, so that the difference stays documented
(docs/statistics.md has the full table from benchmarks/calibration.py).
"""
from __future__ import annotations

import pytest

from glory_ai.analysis.stats import calibration as C
from glory_ai.analysis.stats import paired

pytestmark = pytest.mark.slow

RUNS = 4000


@pytest.mark.parametrize("effect", ["none", "seat", "spec"])
def test_head_to_head_intervals_cover_95_percent(effect):
    kwargs = {"none": {}, "seat": {"seat_sd": 1.5}, "spec": {"spec_sd": 1.5}}[effect]
    model = C.Match(**kwargs).with_score(0.64)
    r = C.match_coverage(model, deals=100, runs=RUNS, seed=11)
    assert 0.93 <= r["paired"] <= 0.97
    # the independent-games interval: right without a deal effect, too wide when a deal
    # favours a seat (the two games of a deal pull opposite ways), too narrow when it suits
    # one player (they pull the same way)
    if effect == "none":
        assert 0.93 <= r["independent"] <= 0.97
    elif effect == "seat":
        assert r["independent"] > 0.975
    else:
        assert r["independent"] < 0.935


@pytest.mark.parametrize("effect", ["seat", "spec"])
def test_field_deal_bootstrap_covers_95_percent(effect):
    kwargs = {"seat": {"seat_sd": 1.5}, "spec": {"spec_sd": 1.5}}[effect]
    r = C.field_coverage(C.Field(**kwargs), deals=100, runs=RUNS // 4, seed=12)
    assert 0.93 <= r["bootstrap"] <= 0.97
    if effect == "seat":
        assert r["independent"] > 0.975
    else:
        assert r["independent"] < 0.92


def test_pentanomial_sprt_error_rates_are_its_alpha_and_beta():
    base = C.Match(seat_sd=1.5)
    alpha = C.sprt_errors(base.with_nelo(0.0), 0.0, 40.0, RUNS, seed=13)
    beta = C.sprt_errors(base.with_nelo(40.0), 0.0, 40.0, RUNS, seed=14)
    assert alpha["undecided"] == beta["undecided"] == 0.0
    assert abs(alpha["H1"] - 0.05) <= 0.01
    assert abs(beta["H0"] - 0.05) <= 0.01


def test_a_correct_rerun_is_flagged_at_the_stated_rate():
    model = C.Match().with_score(0.6)
    runs = 20_000
    r = C.rerun_false_alarms(model, deals=100, runs=runs, seed=15)
    standard_error = (paired.RERUN_ALPHA * (1 - paired.RERUN_ALPHA) / runs) ** 0.5
    assert r["test"] <= paired.RERUN_ALPHA + 3 * standard_error
    # the rule it replaces: the new rate outside the old 95% interval, about one time in six
    assert 0.14 <= r["outside_interval"] <= 0.19
