"""The statistics on synthetic record sets with known answers."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import special
from scipy import stats as sps

from glory_ai.analysis import AnalysisError, stats
from glory_ai.analysis.load import load_runs
from glory_ai.analysis.stats import (
    building_strength,
    compare_variants,
    end_conditions,
    finishing_matrix,
    game_length,
    holm,
    paired,
    ratings,
    roles_led,
    seat_advantage,
    seat_tests,
    stratified_difference,
    vp_breakdown,
    win_rates,
)


def _frame(run_folder, records, name=None):
    return load_runs(run_folder(records, name))


# ---- win rates --------------------------------------------------------------------------------

def test_a_spec_that_never_wins_a_field_gets_the_wilson_interval_not_a_point(synth, run_folder):
    # a 3-player field: c never wins, a wins every game with b beside it once; the deal
    # bootstrap cannot vary c's rate (0 in every resample), so its interval is Wilson's
    recs = [synth(i, ["a", "b", "c"], [0] if i % 5 else [0, 1]) for i in range(20)]
    table = win_rates(_frame(run_folder, recs))
    c = table.loc["c"]
    assert c["win_rate"] == 0 and c["interval"] == paired.INTERVAL_WILSON
    assert (c["win_low"], c["win_high"]) == pytest.approx((c["wilson_low"], c["wilson_high"]))
    assert c["win_high"] > 0.1
    assert table.loc["b"]["interval"] == paired.INTERVAL_BOOTSTRAP
    assert "won every game or none" in table.attrs["models"][paired.INTERVAL_WILSON]
    shares = paired.win_shares(_frame(run_folder, recs, "again"))
    assert shares.loc["c", "high"] == pytest.approx(shares.loc["c", "independent_high"])


def test_a_spec_with_the_same_share_of_every_deal_gets_the_wilson_interval(synth, run_folder):
    # a sits in two seats of every game and shares one win with b or c: 1/4 of every deal,
    # which no resampling of deals varies (the bootstrap would give the point 0.25)
    recs = [synth(i, ["a", "a", "b", "c"], [0, 2] if i % 2 else [0, 3]) for i in range(30)]
    table = win_rates(_frame(run_folder, recs))
    a = table.loc["a"]
    assert a["win_rate"] == pytest.approx(0.25) and a["interval"] == paired.INTERVAL_WILSON
    assert a["win_low"] < 0.2 and a["win_high"] > 0.3
    assert table.loc["b"]["interval"] == paired.INTERVAL_BOOTSTRAP
    assert "the same share of every deal" in table.attrs["models"][paired.INTERVAL_WILSON]
    shares = paired.win_shares(_frame(run_folder, recs, "again"))
    assert bool(shares.loc["a", "fixed"]) and not bool(shares.loc["b", "fixed"])
    # self-play: a spec in every seat of its deals has exactly the equal share, so its point
    # interval stands (deals of another pair beside it change nothing)
    selfplay = [synth(i, ["s", "s"], [i % 2]) for i in range(10)] + \
        [synth(i, ["b", "c"], [i % 2]) for i in range(10, 20)]
    table = win_rates(_frame(run_folder, selfplay, "selfplay"))
    assert table.loc["s"]["interval"] == paired.INTERVAL_BOOTSTRAP
    assert (table.loc["s"]["win_low"], table.loc["s"]["win_high"]) == (0.5, 0.5)


def test_win_rates_known(synth, run_folder):
    # a beats b in 30 of 40 games, seats swapped every game; two shared wins among 4 more
    recs = []
    for i in range(40):
        seats = ["a", "b"] if i % 2 == 0 else ["b", "a"]
        a_seat = seats.index("a")
        winner = a_seat if i < 30 else 1 - a_seat
        recs.append(synth(i, seats, [winner]))
    recs += [synth(40 + i, ["a", "b"], [0, 1]) for i in range(4)]
    frame = _frame(run_folder, recs)
    table = win_rates(frame)
    assert list(table.index) == ["a", "b"]
    a = table.loc["a"]
    assert a["games"] == 44 and a["wins"] == 32
    assert a["win_rate"] == pytest.approx(32 / 44)
    # one game per deal, both specs in every game: a head-to-head match without seat
    # rotation, so its deals are single games and the interval is their t interval
    scores = [1.0] * 30 + [0.0] * 10 + [0.5] * 4
    assert (a["win_low"], a["win_high"]) == pytest.approx(paired.mean_interval(scores)[1:])
    assert a["interval"] == "t over deals"
    assert (a["wilson_low"], a["wilson_high"]) == pytest.approx(
        tuple(x[0] for x in paired.wilson(32, 44)))
    assert a["expected"] == 0.5 and a["mean_rank"] == pytest.approx(1 + 10 / 44)   # lost 10
    by_seat = win_rates(frame, by="seat")
    assert by_seat.index.names == ["seat", "spec"] and by_seat["games"].sum() == 88
    by_count = win_rates(frame, by="num_players")
    assert by_count.loc[(2, "b"), "win_rate"] == pytest.approx(12 / 44)


# ---- seat advantage ---------------------------------------------------------------------------

def _seat_games(synth, n, winner_of, players=2):
    specs = [f"s{k}" for k in range(players)]
    recs = []
    for i in range(n):
        rot = i % players
        seats = specs[rot:] + specs[:rot]           # every spec in every seat equally often
        recs.append(synth(i, seats, [winner_of(i)]))
    return recs


def test_seat_advantage_detected(synth, run_folder):
    # P1 wins 60% of 1,000 2-player games
    frame = _frame(run_folder, _seat_games(synth, 1000, lambda i: 0 if i % 5 < 3 else 1))
    seats = seat_advantage(frame)
    assert seats.loc[(2, 0), "win_rate"] == pytest.approx(0.6)
    assert seats.loc[(2, 0), "win_low"] < 0.6 < seats.loc[(2, 0), "win_high"]
    assert seats.loc[(2, 1), "diff"] == pytest.approx(-0.1)
    test = seat_tests(frame).loc[2]
    # one game per deal: P1's per-deal win share is its result in the game
    p1 = np.array([1.0 if i % 5 < 3 else 0.0 for i in range(1000)])
    assert test["test"] == stats.tables.SEAT_TEST_2 and test["deals"] == 1000
    assert test["statistic"] == pytest.approx(sps.ttest_1samp(p1, 0.5).statistic)
    assert test["p_value"] < 1e-8 and test["best_seat"] == 0 and test["balanced"]
    assert test["p_holm"] == test["p_value"]                # one player count: nothing to adjust


def test_equal_seats_large_p(synth, run_folder):
    frame = _frame(run_folder, _seat_games(synth, 1000, lambda i: (i // 2) % 2))
    assert seat_tests(frame).loc[2, "p_value"] > 0.9


def test_seat_advantage_three_players(synth, run_folder):
    # P1 wins half the games, P2 and P3 a quarter each
    frame = _frame(run_folder, _seat_games(synth, 600, lambda i: [0, 0, 1, 2][i % 4], players=3))
    test = seat_tests(frame).loc[3]
    assert test["test"] == stats.tables.SEAT_TEST_K and test["p_value"] < 1e-10
    # Hotelling's T² by hand: the per-deal shares of P1 and P2 against 1/3 each
    shares = np.eye(3)[[[0, 0, 1, 2][i % 4] for i in range(600)]][:, :2]
    diff = shares.mean(axis=0) - 1 / 3
    t2 = 600 * diff @ np.linalg.solve(np.cov(shares, rowvar=False), diff)
    assert test["statistic"] == pytest.approx(t2)
    assert test["p_value"] == pytest.approx(sps.f.sf(t2 * (600 - 2) / (2 * 599), 2, 598))
    uniform = _frame(run_folder, _seat_games(synth, 600, lambda i: (i // 3) % 3, players=3))
    assert seat_tests(uniform).loc[3, "p_value"] > 0.9


def test_seat_balance_flag(synth, run_folder):
    recs = [synth(i, ["a", "b"], [i % 2]) for i in range(20)]          # a always in seat 0
    assert not seat_tests(_frame(run_folder, recs)).loc[2, "balanced"]


# ---- buildings --------------------------------------------------------------------------------

def _building_games(synth, n=600, seed=4):
    """2- and 3-player games of specs a, b, c: the winner completes Forum Romanum half the
    time and nobody else ever does; everyone completes other buildings at random; Senate
    is never completed."""
    rng = np.random.default_rng(seed)
    others = ["Bar", "Road", "Insula", "Palace", "Tower", "Wall"]
    recs = []
    for i in range(n):
        k = 2 + i % 2
        seats = list(rng.permutation(["a", "b", "c"])[:k])
        winner = int(rng.integers(0, k))
        done = [list(rng.choice(others, size=int(rng.integers(0, 3)), replace=False))
                for _ in range(k)]
        if rng.random() < 0.5:
            done[winner].append("Forum Romanum")
        recs.append(synth(i, seats, [winner], completed=done))
    return recs


def test_building_completed_only_by_winners_ranks_first(synth, run_folder):
    frame = _frame(run_folder, _building_games(synth))
    table = building_strength(frame)
    assert len(table) == 44
    top = table.iloc[0]
    assert table.index[0] == "Forum Romanum" and top["rank"] == 1
    assert top["win_rate_completed"] == 1.0
    assert top["effect"] > 0.3 and top["effect_low"] > 0 and top["mh_diff"] > 0.3
    assert top["mh_low"] > 0 and top["log_odds"] > 2 and top["significant"]
    assert top["p_value"] < 1e-6
    # buildings completed at random: effects near 0, none significant after Holm
    random_ones = table.loc[["Bar", "Road", "Insula", "Palace", "Tower", "Wall"]]
    assert (random_ones["effect"].abs() < 0.12).all() and not random_ones["significant"].any()
    never = table.loc["Senate"]
    assert never["n_completed"] == 0 and math.isnan(never["effect"]) and never["rank"] == 0
    assert table["rank"].tolist()[:7] == list(range(1, 8))
    assert table.attrs["controls"] == ["spec", "num_players", "seat"]


def _planted_frame(n=40_000, seed=0, deal=None):
    """Seat-games from win ~ 0.8 completed(Forum) + spec + players:seat (a known model);
    Bath completed at random. ``deal``: the deal of each row (default: one per row)."""
    rng = np.random.default_rng(seed)
    spec = rng.choice(["a", "b", "c"], size=n)
    players = rng.choice([2, 3], size=n)
    seat = (rng.random(n) * players).astype(int)
    built = rng.random(n) < 0.3
    eta = -0.6 + 0.8 * built + np.select([spec == "b", spec == "c"], [0.5, -0.4], 0.0) \
        - 0.3 * (players == 3) + 0.2 * (seat == 0)
    won = rng.random(n) < special.expit(eta)
    cols = {"completed:Forum": built, "completed:Bath": rng.random(n) < 0.2}
    frame = pd.DataFrame({"spec": pd.Categorical(spec), "num_players": players, "seat": seat,
                          "deal": np.arange(n) if deal is None else deal,
                          "win_share": won.astype(float), **cols})
    return frame, eta, built


def test_logistic_recovers_planted_effect():
    frame, eta, built = _planted_frame()
    table = building_strength(frame)
    forum = table.loc["Forum"]
    assert forum["log_odds_low"] < 0.8 < forum["log_odds_high"]
    assert forum["log_odds_high"] - forum["log_odds_low"] < 0.15
    # the true average marginal effect, from the true model
    base = eta - 0.8 * built
    true_ame = float(np.mean(special.expit(base + 0.8) - special.expit(base)))
    assert forum["effect_low"] < true_ame < forum["effect_high"]
    bath = table.loc["Bath"]
    assert bath["log_odds_low"] < 0 < bath["log_odds_high"] and table.index[0] == "Forum"
    assert table.attrs["deals"] == len(frame) and "deal-clustered" in table.attrs["model"]


def test_building_intervals_take_the_deal_as_the_unit():
    # every seat-game played twice with the same outcome: as two games of one deal the
    # evidence is that of one game (the interval is unchanged); as two deals it is twice
    # as much (the interval narrows by about sqrt 2)
    frame, _, _ = _planted_frame(n=8_000, seed=5)
    same_deal = pd.concat([frame, frame], ignore_index=True)
    new_deals = same_deal.assign(deal=np.arange(len(same_deal)))
    width = {}
    for name, f in (("once", frame), ("same deal", same_deal), ("two deals", new_deals)):
        row = building_strength(f).loc["Forum"]
        width[name] = row["log_odds_high"] - row["log_odds_low"]
        assert row["log_odds"] == pytest.approx(building_strength(frame).loc["Forum", "log_odds"],
                                                abs=2e-3)
    assert width["same deal"] == pytest.approx(width["once"], rel=0.01)
    assert width["two deals"] == pytest.approx(width["once"] / math.sqrt(2), rel=0.03)


def test_clustered_logit_pools_rows_of_a_cluster_exactly():
    # the observations one by one, or pooled per cluster and covariates: the same fit and
    # the same deal-clustered standard errors (statsmodels on the observations as reference)
    import statsmodels.api as sm

    from glory_ai.analysis.stats import clustered_logit

    rng = np.random.default_rng(2)
    n = 3_000
    x = np.c_[np.ones(n), rng.integers(0, 2, n), rng.integers(0, 3, n) == 1]
    cluster = rng.integers(0, 400, n)
    y = (rng.random(n) < special.expit(x @ [-0.3, 0.7, 0.4] + 0.8 * rng.normal(size=400)[cluster])) * 1.0
    reference = sm.GLM(y, x, family=sm.families.Binomial()).fit(
        cov_type="cluster", cov_kwds={"groups": cluster, "use_correction": False})
    key = np.unique(np.c_[cluster, x[:, 1:]], axis=0, return_inverse=True)[1].ravel()
    first = np.unique(key, return_index=True)[1]
    fit = clustered_logit(x[first], np.bincount(key, weights=y), np.bincount(key).astype(float),
                          cluster[first])
    g = len(np.unique(cluster))
    assert np.asarray(fit.params) == pytest.approx(np.asarray(reference.params), abs=1e-7)
    assert np.asarray(fit.bse) == pytest.approx(np.asarray(reference.bse) * math.sqrt(g / (g - 1)),
                                                rel=1e-6)


def test_a_building_only_winners_complete_stays_finite_and_rare_ones_stay_open():
    # 20 seat-games completed Forum, every one a win (separation): a finite effect whose
    # interval excludes 0 and cannot pass the most a win rate can rise; Prison, completed by
    # 3 seat-games (one won), gets a wide interval, not a significant one
    frame, _, _ = _planted_frame(n=6_000, seed=7)
    frame["completed:Forum"] = False
    winners = np.flatnonzero(frame["win_share"].to_numpy() == 1)
    frame.loc[winners[:20], "completed:Forum"] = True
    prison = np.r_[winners[20:21], np.flatnonzero(frame["win_share"].to_numpy() == 0)[:2]]
    frame["completed:Prison"] = False
    frame.loc[prison, "completed:Prison"] = True
    table = building_strength(frame)
    forum = table.loc["Forum"]
    assert np.isfinite([forum["log_odds"], forum["log_odds_low"], forum["log_odds_high"]]).all()
    assert 0 < forum["effect_low"] < forum["effect"] < forum["effect_high"]
    assert forum["effect_high"] < 1 - frame["win_share"].mean() + 0.05
    assert forum["significant"]
    rare = table.loc["Prison"]
    assert rare["n_completed"] == 3 and not rare["significant"] and rare["p_value"] > 0.05
    assert rare["log_odds_high"] - rare["log_odds_low"] > 2.5


def test_stratified_difference_and_holm():
    # one stratum: the plain difference of means, its Wald interval with the variances of
    # the groups taken with one pseudo-win and one pseudo-loss (Agresti-Caffo)
    d, lo, hi = stratified_difference([100], [60], [60], [100], [40], [40])
    p1, p0 = 61 / 102, 41 / 102
    se = math.sqrt(p1 * (1 - p1) / 102 + p0 * (1 - p0) / 102)
    assert d == pytest.approx(0.2) and (lo, hi) == pytest.approx((0.2 - 1.959964 * se, 0.2 + 1.959964 * se))
    # two strata with the same difference give it back; a stratum missing a group is ignored
    d2, _, _ = stratified_difference([10, 50, 5], [8, 30, 5], [8, 30, 5], [30, 50, 0],
                                     [18, 20, 0], [18, 20, 0])
    assert d2 == pytest.approx(0.2)
    # a group that always won keeps a variance: the interval is not degenerate
    d3, lo3, hi3 = stratified_difference([4], [4], [4], [36], [16], [16])
    assert d3 == pytest.approx(1 - 16 / 36) and hi3 - lo3 > 0.5
    assert holm(np.array([0.01, 0.02, 0.04]))[0].tolist() == pytest.approx([0.03, 0.04, 0.04])


# ---- pairwise, ratings ------------------------------------------------------------------------

def test_finishing_matrix_by_brute_force(synth, run_folder):
    rng = np.random.default_rng(5)
    recs = []
    for i in range(120):
        seats = list(rng.permutation(["a", "b", "c", "d"])[:3])
        winners = [0, 1] if i % 17 == 0 else [int(rng.integers(0, 3))]
        scores = [int(x) for x in rng.integers(10, 14, size=3)]    # ties among losers too
        recs.append(synth(i, seats, winners, scores=scores))
    frame = _frame(run_folder, recs)
    matrix = finishing_matrix(frame)
    names = ["a", "b", "c", "d"]
    points = {(x, y): [0.0, 0] for x in names for y in names}
    for r in recs:
        # places: winners first, then by VP
        key = [(0 if s in r["winners"] else 1, -r["scores"][s]) for s in range(3)]
        for s in range(3):
            for t in range(3):
                if s != t:
                    ahead = 1.0 if key[s] < key[t] else 0.5 if key[s] == key[t] else 0.0
                    cell = points[(r["seats"][s], r["seats"][t])]
                    cell[0] += ahead
                    cell[1] += 1
    for x in names:
        for y in names:
            total, n = points[(x, y)]
            expected = total / n if n else math.nan
            assert matrix.loc[x, y] == pytest.approx(expected, nan_ok=True), (x, y)
    assert matrix.attrs["num_players"] == 3 and matrix.attrs["caption"] == paired.FINISHING_CAPTION


def _map_ratings(results, names, prior_sd=400.0):
    """Bradley-Terry with a N(0, prior_sd²) prior on every rating (Elo scale), the posterior
    mode found by a generic optimizer: the reference for the ratings."""
    from scipy import optimize

    index = {n: i for i, n in enumerate(names)}
    scale = 400 / math.log(10)

    def minus_log_posterior(r):
        # the value and its exact gradient: with a gradient by finite differences BFGS
        # stopped about 1e-3 Elo short of the mode on some machines
        total, gradient = 0.0, r / prior_sd ** 2
        for x, y, score in results:
            d = (r[index[x]] - r[index[y]]) / scale
            total += score * special.log_expit(d) + (1 - score) * special.log_expit(-d)
            slope = (score - special.expit(d)) / scale
            gradient[index[x]] -= slope
            gradient[index[y]] += slope
        return -total + 0.5 * float(np.sum((r / prior_sd) ** 2)), gradient

    fit = optimize.minimize(minus_log_posterior, np.zeros(len(names)), jac=True, method="BFGS",
                            options={"gtol": 1e-10})
    return dict(zip(names, fit.x - fit.x.mean(), strict=True))


def test_ratings_are_bradley_terry_with_a_prior(synth, run_folder):
    recs = []
    for i in range(60):
        pair = [["a", "b"], ["b", "c"], ["a", "c"]][i % 3]
        seats = pair if i % 2 else pair[::-1]
        strong = min(pair)                                        # a > b > c mostly
        winner = seats.index(strong) if i % 5 else 1 - seats.index(strong)
        recs.append(synth(i, seats, [winner]))
    recs.append(synth(60, ["a", "a"], [0]))                       # self-play: no comparison
    frame = _frame(run_folder, recs)
    table = ratings(frame)
    results = [(r["seats"][0], r["seats"][1], r["returns"][0]) for r in recs[:60]]
    expected = _map_ratings(results, ["a", "b", "c"])
    assert list(table.index) == ["a", "b", "c"]
    assert table["rating"].to_dict() == pytest.approx(expected, abs=1e-3)
    assert (table["low"] < table["rating"]).all() and (table["rating"] < table["high"]).all()
    assert set(table["interval"]) == {paired.RATING_BOOTSTRAP}
    assert table.attrs["num_players"] == 2 and table.loc["a", "comparisons"] == 40
    assert table.equals(paired.ratings(frame).assign())  # the table is paired.ratings


def test_ratings_of_three_players_and_mixed_counts(synth, run_folder):
    recs = [synth(i, ["a", "b", "c"][i % 3:] + ["a", "b", "c"][:i % 3],
                  [(["a", "b", "c"][i % 3:] + ["a", "b", "c"][:i % 3]).index("a")])
            for i in range(30)]
    # a game with the losers tied on VP, one with two winners, one with a repeated spec
    recs.append(synth(30, ["c", "b", "a"], [0], scores=[30, 20, 20]))
    recs.append(synth(31, ["b", "c", "a"], [0, 2], scores=[30, 25, 30]))
    recs.append(synth(32, ["a", "a", "b"], [2]))
    three = _frame(run_folder, recs, "three")
    table = ratings(three)
    assert table.index[0] == "a" and np.isfinite(table[["rating", "low", "high"]].to_numpy()).all()
    # every pair of seats holding two different specs is one comparison
    results = []
    for r in recs:
        key = [(0 if s in r["winners"] else 1, -r["scores"][s]) for s in range(3)]
        for s in range(3):
            for t in range(s + 1, 3):
                if r["seats"][s] != r["seats"][t]:
                    ahead = 1.0 if key[s] < key[t] else 0.5 if key[s] == key[t] else 0.0
                    results.append((r["seats"][s], r["seats"][t], ahead))
    assert table["rating"].to_dict() == pytest.approx(_map_ratings(results, ["a", "b", "c"]),
                                                      abs=1e-3)
    two = run_folder([synth(i, ["a", "b"], [0]) for i in range(10)], "two")
    mixed = load_runs([two, run_folder(recs, "three-again")])
    with pytest.raises(AnalysisError, match=r"ratings needs games of one player count.*"
                                            r"2-player games in two; 3-player games in three-again"):
        ratings(mixed)
    with pytest.raises(AnalysisError, match="finishing_matrix needs games of one player count"):
        finishing_matrix(mixed)
    assert ratings(mixed, num_players=2).attrs["num_players"] == 2
    with pytest.raises(AnalysisError, match="no 4-player games"):
        ratings(mixed, num_players=4)
    selfplay = _frame(run_folder, [synth(i, ["a", "a"], [i % 2]) for i in range(6)])
    assert ratings(selfplay).attrs["model"] is None and ratings(selfplay).empty


# ---- scoring, endings, length, roles -------------------------------------------------------------

def test_vp_end_length(synth, run_folder):
    recs = [synth(0, ["a", "b"], [0], scores=[40, 20], end_reason="deck", turns=40, decisions=100),
            synth(1, ["b", "a"], [0], scores=[30, 10], end_reason="sites", turns=60, decisions=200),
            synth(2, ["a", "b"], [1], scores=[20, 24], end_reason="sites", turns=80, decisions=300)]
    frame = _frame(run_folder, recs)
    vp = vp_breakdown(frame)
    assert vp.loc["a", "total"] == pytest.approx((40 + 10 + 20) / 3)
    assert vp.loc["a", ["influence", "vault", "merchant_bonus", "statue", "wall"]].sum() == \
        pytest.approx(vp.loc["a", "total"])
    ends = end_conditions(frame)
    assert ends.loc["sites", "games"] == 2 and ends.loc["deck", "share"] == pytest.approx(1 / 3)
    by = end_conditions(frame, by="num_players")
    assert by.loc[(2, "sites"), "share"] == pytest.approx(2 / 3)
    # three deals of one game: the bootstrap of whole deals, the Wilson interval beside it
    assert by.loc[(2, "sites"), "low"] < 2 / 3 < by.loc[(2, "sites"), "high"]
    assert by.loc[(2, "sites"), "wilson_low"] == pytest.approx(paired.wilson(2, 3)[0][0])
    assert "deal bootstrap" in by.attrs["model"]
    length = game_length(frame)
    assert length.loc[2, "turns_mean"] == 60 and length.loc[2, "decisions_median"] == 200
    assert length.loc[2, "turns_min"] == 40 and length.loc[2, "games"] == 3
    assert game_length(frame, by=None).index.tolist() == ["all"]
    with pytest.raises(AnalysisError, match="no roles_led"):
        roles_led(frame)


def test_roles_led_table(synth, run_folder):
    recs = [synth(i, ["a", "b"], [0], roles_led=[{"Laborer": 2 + i}, {"Patron": 1}]) for i in range(3)]
    table = roles_led(_frame(run_folder, recs))
    assert table.loc["a", "Laborer"] == 3 and table.loc["b", "Patron"] == 1
    assert table.loc["a", "games"] == 3


# ---- rule variants ------------------------------------------------------------------------------

def test_compare_variants(synth, run_folder):
    rep = [synth(i, ["a", "b"] if i % 2 else ["b", "a"], [0 if i % 4 < 3 else 1]) for i in range(400)]
    # under imperium a wins far more often and games end with the deck
    imp = []
    for i in range(400):
        seats = ["a", "b"] if i % 2 else ["b", "a"]
        imp.append(synth(i, seats, [seats.index("a") if i % 10 < 8 else seats.index("b")],
                         mode="imperium", end_reason="deck" if i % 3 else "sites"))
    frame = load_runs([run_folder(rep, "rep"), run_folder(imp, "imp")])
    table = compare_variants(frame)
    conds = table.attrs["conditions"]
    assert conds == ["imperium refill_size=5", "republic petition_size=2 refill_size=5"]
    assert table.loc[("win rate", "a"), conds[0]] == pytest.approx(0.8)
    assert table.loc[("win rate", "a"), "p_value"] < 1e-6
    # the test: Welch's t on the per-deal win shares of a (one game per deal here)
    shares = [frame.loc[(frame["spec"] == "a") & (frame["mode"] == mode), "win_share"].to_numpy()
              for mode in ("imperium", "republic")]
    assert table.loc[("win rate", "a"), "p_value"] == pytest.approx(
        sps.ttest_ind(shares[1], shares[0], equal_var=False).pvalue)
    assert table.loc[("games", "all"), conds[1]] == 400
    tested = table["p_value"].notna()
    assert table.attrs["tested"] == tested.sum() and table.attrs["holm"] == "Holm-adjusted"
    assert (table.loc[tested, "p_holm"] >= table.loc[tested, "p_value"]).all()
    assert table.loc[("end", "deck"), "p_value"] < 1e-6
    assert table.loc[("P1 win rate", "2 players"), conds[1]] == pytest.approx(0.75)
    by_mode = compare_variants(frame, by="mode")
    assert list(by_mode.columns) == ["imperium", "republic", "p_value", "p_holm"]
    with pytest.raises(AnalysisError, match="needs games of two or more rules values"):
        compare_variants(load_runs(run_folder(rep, "rep-only")))
    three = run_folder([synth(i, ["a", "b", "c"], [0], mode="imperium") for i in range(5)], "imp3")
    with pytest.raises(AnalysisError, match=r"different player counts \(imperium refill_size=5: "
                                            r"3-player; republic petition_size=2 refill_size=5: 2-player\)"):
        compare_variants(load_runs([run_folder(rep, "rep2"), three]))


def test_table_input_errors():
    with pytest.raises(AnalysisError, match="takes the DataFrame of load_runs"):
        win_rates([1, 2])
    with pytest.raises(AnalysisError, match="no column .*'win_share'"):
        win_rates(pd.DataFrame({"spec": ["a"], "num_players": [2]}))


def test_the_tests_of_two_specs_take_the_deal_as_the_unit(synth, run_folder):
    from glory_ai.analysis.stats import conditions_test, rates_test

    # a gauntlet: c plays a on deals 0-29 and b on the same deals; a and b never meet
    recs = []
    for deal in range(30):
        for pairing, other in enumerate(["a", "b"]):
            for rotation in range(2):
                seats = ["c", other] if rotation == 0 else [other, "c"]
                c_wins = (deal + rotation) % (3 if other == "a" else 4) == 0
                winner = seats.index("c") if c_wins else seats.index(other)
                rec = synth(deal, seats, [winner])
                rec.update({"pairing": pairing, "rotation": rotation,
                            "game_id": f"{deal}-{pairing}-{rotation}"})
                recs.append(rec)
    frame = _frame(run_folder, recs)
    per_deal = {spec: frame[frame["spec"] == spec].groupby("deal")["win_share"].mean().to_numpy()
                for spec in ("a", "b")}
    assert rates_test(frame, "a", "b") == pytest.approx(
        sps.ttest_ind(per_deal["b"], per_deal["a"], equal_var=False).pvalue)
    assert np.isnan(conditions_test([[0.5, 0.5], [0.5, 0.5]]))         # nothing varies
    three = [[0.2, 0.4, 0.3], [0.6, 0.8, 0.7, 0.9], [0.1, 0.3]]
    assert conditions_test(three) == pytest.approx(sps.alexandergovern(*three).pvalue)
    assert np.isnan(conditions_test([[0.5, 0.6], [0.7]]))      # one condition of two deals


def test_building_points_of_a_variant_are_a_vp_component(tmp_path):
    # R-V.2: a variant's building points are VP; the breakdown shows them where games hold
    # them (and the published rules' frames keep their columns)
    from glory_ai.analysis.stats import vp_breakdown
    from glory_ai.arena import RunConfig, run

    points = {name: 4 for name in ("Temple", "Bar", "Dock", "Road", "Wall", "Villa")}
    run(RunConfig(specs=("greedy", "heuristic:style=builder"), deals=8, seed=3, variant={"points": points}),
        tmp_path / "points")
    frame = load_runs([tmp_path / "points"])
    parts = [c for c in frame.columns if c.startswith("vp_")]
    assert "vp_buildings" in parts and frame["vp_buildings"].sum() > 0
    assert (frame[parts].sum(axis=1) == frame["score"]).all()
    table = vp_breakdown(frame)
    assert "buildings" in table.columns
    from glory_ai.analysis.load import VP_COMPONENTS

    assert np.allclose(table[[*VP_COMPONENTS, "buildings"]].sum(axis=1), table["total"])
    run(RunConfig(specs=("greedy", "random"), deals=2, seed=3), tmp_path / "published")
    assert "vp_buildings" not in load_runs([tmp_path / "published"]).columns
