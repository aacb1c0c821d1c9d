"""The statistics' shortcuts for large studies give today's numbers where they apply and the
same intervals in the limit where they change them: codes() is np.unique, the building logit
of cells is the logit of every row, and past MAX_UNITS deals the bootstrap of deal groups is
the bootstrap of deals."""
from __future__ import annotations

import math

import numpy as np
import pytest

from glory_ai.analysis.stats import bootstrap, models


@pytest.mark.parametrize("values", [
    np.array([5, 3, 3, 9, 0, 5, 5, 1]),
    np.random.default_rng(1).integers(0, 50, 1000),
    np.random.default_rng(2).integers(0, 10**12, 300),      # too sparse to count: np.unique
    np.array([], dtype=np.int64),
])
def test_codes_are_numpys_unique(values):
    distinct, first, inverse = models.codes(values)
    expected = np.unique(values, return_index=True, return_inverse=True)
    for mine, theirs in zip((distinct, first, inverse), expected, strict=True):
        assert np.array_equal(mine, np.asarray(theirs).ravel())


def test_the_logit_of_cells_is_the_logit_of_every_row():
    rng = np.random.default_rng(3)
    rows = 4000
    cell = rng.integers(0, 6, rows)
    design = np.column_stack([np.ones(6), [0, 1, 0, 1, 0, 1], [0, 0, 1, 1, 0, 0], [0, 0, 0, 0, 1, 1]])
    x = design[cell]
    p = 1 / (1 + np.exp(-(x @ np.array([-0.2, 0.5, 0.1, -0.3]))))
    trials = rng.integers(1, 3, rows).astype(float)
    successes = rng.binomial(trials.astype(int), p).astype(float)
    clusters = rng.integers(0, 700, rows)
    fast = models.clustered_logit(x, successes, trials, clusters, cells=cell)
    slow = models.clustered_logit_statsmodels(x, successes, trials, clusters, cells=cell)
    assert np.allclose(fast.params, slow.params, rtol=0, atol=1e-9)
    assert np.allclose(fast.bse, slow.bse, rtol=1e-8)
    assert np.allclose(fast.normalized_cov_params, slow.normalized_cov_params, rtol=1e-8)
    assert fast.df_resid_inference == slow.df_resid_inference == len(np.unique(clusters)) - 1


def _field(deals: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-deal win sums and games of three specs, two games a deal, deal effects shared."""
    rng = np.random.default_rng(seed)
    strength = np.array([0.6, 0.5, 0.4])
    deal_effect = rng.normal(0, 0.15, (deals, 1))
    games = np.full((deals, 3), 2.0)
    wins = rng.binomial(2, np.clip(strength + deal_effect, 0.01, 0.99)).astype(float)
    return wins, games


def test_up_to_max_units_the_deals_themselves_are_resampled():
    wins, games = _field(500, 4)
    assert bootstrap.grouped_units(wins, games)[0] is wins
    again = bootstrap.bootstrap_rates(wins, games, resamples=400, seed=9)
    rng = np.random.default_rng(9)      # the draw the bootstrap makes, by hand
    drawn = rng.integers(0, 500, (250, 500)) + 500 * np.arange(250)[:, None]
    weights = np.bincount(drawn.ravel(), minlength=250 * 500).reshape(250, 500)
    first = next(bootstrap.deal_resamples(500, 400, seed=9))
    # the first block: as many rows as BLOCK_DRAWS allows, the hand draw's first rows
    assert len(first) == min(250, bootstrap.BLOCK_DRAWS // 500)
    assert np.array_equal(first, weights[:len(first)])
    low, high = again
    assert (low < wins.sum(0) / games.sum(0)).all() and (wins.sum(0) / games.sum(0) < high).all()


def test_past_max_units_the_groups_give_the_deals_interval(monkeypatch):
    deals = 3 * bootstrap.MAX_UNITS
    wins, games = _field(deals, 5)
    grouped = bootstrap.grouped_units(wins, games)
    assert grouped[0].shape == (bootstrap.GROUPS, 3)
    assert grouped[0].sum() == wins.sum() and grouped[1].sum() == games.sum()
    low, high = bootstrap.bootstrap_rates(wins, games, resamples=1000, seed=1)
    monkeypatch.setattr(bootstrap, "MAX_UNITS", 10 * deals)       # every deal resampled
    every_low, every_high = bootstrap.bootstrap_rates(wins, games, resamples=1000, seed=1)
    width = every_high - every_low
    # the same interval up to the bootstrap's own Monte Carlo error (a few % of its width)
    assert np.all(np.abs(low - every_low) < 0.1 * width)
    assert np.all(np.abs(high - every_high) < 0.1 * width)


@pytest.mark.parametrize("units", [7, 2_001, 10_000])
def test_the_bootstrap_weights_do_not_depend_on_the_block_size(units):
    # the blocks are capped at BLOCK_DRAWS draws to bound the memory: the weights are the
    # generator's draws in order, so any block size gives the same intervals
    expected = np.concatenate(list(bootstrap.deal_resamples(units, 300, seed=4, chunk=300)))
    for chunk in (1, 7, 250):
        blocks = list(bootstrap.deal_resamples(units, 300, seed=4, chunk=chunk))
        assert max(len(b) for b in blocks) * units <= max(bootstrap.BLOCK_DRAWS, units)
        assert np.array_equal(np.concatenate(blocks), expected)


def test_the_building_logit_is_statsmodels_on_every_seat_game():
    # the building model's deal-clustered interval (its scores from per-(deal, cell) sums,
    # one sparse structure shared by the buildings) is statsmodels' on every seat-game and
    # every pseudo seat-game, each of those its own cluster
    import pandas as pd
    from scipy import special
    from scipy import stats as sps

    from glory_ai.analysis.stats import PSEUDO_GAMES, building_strength

    rng = np.random.default_rng(11)
    deals, k = 400, 3
    n = deals * k * k
    deal = np.repeat(np.arange(deals), k * k)
    frame = pd.DataFrame({"deal": deal, "num_players": k, "seat": np.tile(np.arange(k), deals * k),
                          "spec": rng.choice(["a", "b", "c"], n)})
    built = rng.random(n) < 0.3
    win = rng.random(n) < special.expit(-0.7 + 0.8 * built + rng.normal(0, 0.6, deals)[deal])
    frame["win_share"] = win * 1.0
    frame["completed:Forum"] = built
    frame["completed:Bath"] = rng.random(n) < 0.1
    table = building_strength(frame)
    for name in ("Forum", "Bath"):
        side = frame[f"completed:{name}"].to_numpy().astype(int)
        cell = frame.groupby(["spec", "num_players", "seat"]).ngroup().to_numpy()
        # the pseudo seat-games: PSEUDO_GAMES a side, spread over its cells as its seat-games
        counts = np.zeros((cell.max() + 1, 2))
        np.add.at(counts, (cell, side), 1)
        p_cell, p_side = np.nonzero(counts)
        pseudo_n = PSEUDO_GAMES * counts[p_cell, p_side] / counts.sum(axis=0)[p_side]
        first = np.unique(cell, return_index=True)[1]

        def design(cells, sides, first=first):
            rows = frame.iloc[first[cells]]
            spec = pd.get_dummies(rows["spec"]).to_numpy(float)[:, 1:]
            seat = np.eye(k)[rows["seat"].to_numpy()][:, 1:]
            return np.column_stack([np.ones(len(cells)), sides, spec, seat])

        x = np.vstack([design(cell, side), design(p_cell, p_side)])
        y = np.r_[frame["win_share"], pseudo_n * frame["win_share"].mean()]
        trials = np.r_[np.ones(n), pseudo_n]
        clusters = np.r_[deal, deals + np.arange(len(pseudo_n))]
        reference = models.clustered_logit_statsmodels(x, y, trials, clusters)
        se = max(float(reference.bse[1]), math.sqrt(float(reference.normalized_cov_params[1, 1])))
        row = table.loc[name]
        half = (row["log_odds_high"] - row["log_odds_low"]) / 2
        assert row["log_odds"] == pytest.approx(float(reference.params[1]), abs=1e-8)
        assert half == pytest.approx(float(sps.t.ppf(0.975, len(np.unique(clusters)) - 1)) * se, rel=1e-7)


def test_the_pair_sums_are_the_seat_pairs_of_every_game():
    # the finishing matrix, head to head and ratings from per-deal sums of the seat pairs:
    # the counts of a loop over every game's pairs of seats
    import itertools

    import pandas as pd

    from glory_ai.analysis.stats import finishing_matrix, pair_sums, pairwise, ratings

    rng = np.random.default_rng(5)
    games, k = 240, 3
    frame = pd.DataFrame({"game": np.repeat(np.arange(games), k), "seat": np.tile(np.arange(k), games),
                          "deal": np.repeat(np.arange(games) // 3, k), "num_players": k,
                          "spec": rng.choice(["a", "b", "c", "d"], games * k),
                          "rank": rng.integers(0, 3, games * k)})
    sums = pair_sums(frame)
    specs = sums.specs
    score, count, met = (np.zeros((4, 4)) for _ in range(3))
    per_deal: dict[tuple[int, int], dict[int, list[float]]] = {}
    for _, rows in frame.groupby("game"):
        seen = set()
        for (_, s), (_, t) in itertools.permutations(rows.iterrows(), 2):
            i, j = specs.index(s["spec"]), specs.index(t["spec"])
            if i == j:
                continue
            ahead = 1.0 if s["rank"] < t["rank"] else 0.5 if s["rank"] == t["rank"] else 0.0
            score[i, j] += ahead
            count[i, j] += 1
            seen.add((i, j))
            per_deal.setdefault((i, j), {}).setdefault(int(s["deal"]), []).append(ahead)
        for i, j in seen:
            met[i, j] += 1
    matrix = finishing_matrix(frame, sums=sums)
    assert np.array_equal(np.array(matrix.attrs["comparisons"]), count)
    assert np.array_equal(np.array(matrix.attrs["games"]), met)
    assert np.allclose(matrix.to_numpy(), np.where(count > 0, score / np.maximum(count, 1), np.nan),
                       equal_nan=True)
    table = pairwise(frame, sums=sums)
    for _, row in table.iterrows():
        i, j = sorted((specs.index(row["spec"]), specs.index(row["opponent"])))
        deal_scores = [np.mean(v) for _, v in sorted(per_deal[(i, j)].items())]
        assert row["deals"] == len(deal_scores) and row["games"] == met[i, j]
        mean = float(np.mean(deal_scores))
        assert row["score"] == pytest.approx(max(mean, 1 - mean))
    rated = ratings(frame, sums=sums)
    mixed = frame[frame.groupby("game")["spec"].transform("nunique") > 1]
    assert rated["games"].to_dict() == {s: mixed.loc[mixed["spec"] == s, "game"].nunique() for s in specs}
