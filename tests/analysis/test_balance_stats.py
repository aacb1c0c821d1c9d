"""The balance statistics with deal-bootstrap draws (glory_ai.analysis.stats.balance), checked
against plain pandas computations of the same quantities and against building_strength."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from glory_ai.analysis import AnalysisError
from glory_ai.analysis.load import frame_of_records
from glory_ai.analysis.stats import balance, building_strength
from glory_ai.arena import RunConfig, run


@pytest.fixture(scope="module")
def field_frame():
    # three specs in three-player games, every deal in every rotation
    records = run(
        RunConfig(specs=("greedy", "random", "heuristic:style=builder"), players=3, deals=40, seed=5)
    ).records
    return frame_of_records(records)


@pytest.fixture(scope="module")
def duel_frame():
    records = run(
        RunConfig(
            specs=("greedy", "random", "heuristic:style=merchant"),
            players=2,
            deals=30,
            seed=8,
            format="round_robin",
        )
    ).records
    return frame_of_records(records)


def test_draw_weights_are_the_data_then_resamples_of_the_deals():
    w = balance.draw_weights(7, draws=50, seed=3)
    assert w.shape == (51, 7) and (w[0] == 1).all()
    assert (w[1:].sum(axis=1) == 7).all() and (w >= 0).all()
    assert not (w[1:] == 1).all()
    assert np.array_equal(w, balance.draw_weights(7, draws=50, seed=3))


def test_seat_shares_are_the_seats_mean_win_shares(field_frame):
    unit, n = balance.deal_units(field_frame)
    w = balance.draw_weights(n, 20, 1)
    shares = balance.seat_shares(field_frame, w, unit, 3)
    expected = field_frame.groupby("seat")["win_share"].mean().to_numpy()
    assert np.allclose(shares[0], expected)
    parity = balance.seat_parity(field_frame, w, unit)
    assert parity[0] == pytest.approx(np.abs(expected - 1 / 3).max())
    # a resample is the same statistic on the deals repeated by their weights
    rows = np.repeat(np.arange(len(field_frame)), w[5, unit].astype(int))
    again = field_frame.iloc[rows].groupby("seat")["win_share"].mean().to_numpy()
    assert np.allclose(shares[5], again)


def _mh(frame: pd.DataFrame, column: str) -> float:
    """The Mantel-Haenszel risk difference of win share by `column`, strata spec x count x seat."""
    num = den = 0.0
    for _, g in frame.groupby(["spec", "num_players", "seat"]):
        c = g[column].astype(bool)
        n1, n0 = c.sum(), (~c).sum()
        if not n1 or not n0:
            continue
        total = n1 + n0
        a, b = g.loc[c, "win_share"].sum(), g.loc[~c, "win_share"].sum()
        num += (a * n0 - b * n1) / total
        den += n1 * n0 / total
    return num / den if den else float("nan")


def test_building_effects_are_mantel_haenszel_differences(field_frame):
    unit, n = balance.deal_units(field_frame)
    w = balance.draw_weights(n, 10, 2)
    columns = [c for c in field_frame.columns if c.startswith("completed:")]
    effects = balance.building_effects(field_frame, w, unit, columns)
    for column in columns[:12]:
        expected = _mh(field_frame, column)
        got = effects[0, columns.index(column)]
        assert (np.isnan(expected) and np.isnan(got)) or got == pytest.approx(expected), column
    # beside the report's stratified difference (its strata leave the seat out): the same size
    table = building_strength(field_frame)
    eligible = balance.eligible(field_frame, columns)
    assert eligible
    for column in eligible:
        name = column[len("completed:") :]
        assert abs(effects[0, columns.index(column)] - table.loc[name, "mh_diff"]) < 0.1, name


def test_game_length_and_end_shares_are_per_game(field_frame):
    unit, n = balance.deal_units(field_frame)
    w = balance.draw_weights(n, 5, 0)
    games = field_frame[field_frame["seat"] == 0]
    assert balance.mean_per_game(field_frame, w, unit, "turns")[0] == pytest.approx(games["turns"].mean())
    for reason in games["end_reason"].astype(str).unique():
        share = (games["end_reason"].astype(str) == reason).mean()
        assert balance.end_share(field_frame, w, unit, reason)[0] == pytest.approx(share)


def test_spec_rates_spread_and_the_matchup_matrix(field_frame, duel_frame):
    unit, n = balance.deal_units(field_frame)
    w = balance.draw_weights(n, 5, 0)
    specs = sorted(field_frame["spec"].astype(str).unique())
    rates = balance.spec_win_rates(field_frame, w, unit, specs)
    expected = (field_frame.groupby("spec", observed=True)["win_share"].mean() * 3).reindex(specs).to_numpy()
    assert np.allclose(rates[0], expected)
    assert balance.spec_spread(field_frame, w, unit)[0] == pytest.approx(expected.max() - expected.min())

    unit, n = balance.deal_units(duel_frame)
    w = balance.draw_weights(n, 5, 0)
    specs = ["greedy", "heuristic:style=merchant", "random"]
    matrix = balance.matchup_matrix(duel_frame, w, unit, specs)
    for i, a in enumerate(specs):
        for j, b in enumerate(specs):
            if i == j:
                assert np.isnan(matrix[0, i, j])
                continue
            games = duel_frame.groupby("game").filter(lambda g, a=a, b=b: set(g["spec"]) == {a, b})
            expected = games.loc[games["spec"] == a, "win_share"].mean()
            assert matrix[0, i, j] == pytest.approx(expected)
    off = ~np.eye(3, dtype=bool)
    assert np.allclose((matrix[0] + matrix[0].T)[off], 1.0)
    target = [[0, 0.6, 0.9], [0.4, 0, 0.8], [0.1, 0.2, 0]]
    error, first = balance.skill_error(duel_frame, w, unit, specs, target, first_player=0.5)
    assert error[0] == pytest.approx(np.abs(matrix[0] - np.array(target))[off].mean())
    share = duel_frame.loc[duel_frame["seat"] == 0, "win_share"].mean()
    assert first[0] == pytest.approx(abs(share - 0.5))


def test_paired_draws_weigh_a_deal_alike_in_every_rule_set(field_frame):
    other = field_frame.copy()
    w, (a, b) = balance.paired_draws([field_frame, other], draws=30, seed=4)
    assert np.array_equal(a, b)
    fewer = field_frame[field_frame["deal"] < 20]
    with pytest.raises(AnalysisError, match="same deals"):
        balance.paired_draws([field_frame, fewer])
    # a difference of a rule set with itself is exactly zero in every draw
    columns = ["completed:Temple"]
    d = balance.building_effects(field_frame, w, a, columns) - balance.building_effects(other, w, b, columns)
    assert np.nan_to_num(d).max() == 0


def test_summary_of_draws_is_the_estimate_and_a_percentile_interval():
    values = np.concatenate([[0.5], np.linspace(0, 1, 1001)])
    est, low, high = balance.summary_of_draws(values)
    assert est == 0.5 and low == pytest.approx(0.025) and high == pytest.approx(0.975)
