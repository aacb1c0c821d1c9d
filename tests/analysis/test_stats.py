"""The statistics on plain data (glory_ai.analysis.stats: intervals, ratings, sprt): win-rate
intervals, Elo, Bradley-Terry, Plackett-Luce, pairwise scores, SPRT."""
import doctest
import math

import numpy as np
import pytest
from scipy import optimize, special
from scipy import stats as scipy_stats

from glory_ai.analysis.stats import (
    ELO_PER_NAT,
    SPRT,
    Rating,
    SkillRating,
    bradley_terry,
    elo_from_score,
    elo_interval,
    intervals,
    ladder,
    pairwise_scores,
    plackett_luce_ratings,
    score_from_elo,
    sprt,
    sprt_decide,
    wilson_interval,
)

ELO_75 = 400 * math.log10(3)  # 190.848...


@pytest.mark.parametrize("module", [intervals, ladder, sprt], ids=lambda m: m.__name__)
def test_module_doctests_pass(module):
    result = doctest.testmod(module)
    assert result.attempted >= 3 and result.failed == 0


# --------------------------------------------------------------------- Wilson

def test_wilson_known_values():
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-4)
    assert high == pytest.approx(0.5962, abs=1e-4)
    z2 = scipy_stats.norm.ppf(0.975) ** 2
    assert wilson_interval(0, 10) == pytest.approx((0.0, z2 / (10 + z2)))
    assert wilson_interval(10, 10) == pytest.approx((10 / (10 + z2), 1.0))
    assert wilson_interval(10, 10)[0] == pytest.approx(0.7225, abs=1e-4)


@pytest.mark.parametrize("wins,games", [(3, 17), (0, 5), (40, 40), (123, 456)])
def test_wilson_matches_scipy_for_whole_wins(wins, games):
    ci = scipy_stats.binomtest(wins, games).proportion_ci(0.9, method="wilson")
    assert wilson_interval(wins, games, confidence=0.9) == pytest.approx((ci.low, ci.high))


def test_wilson_fractional_wins_zero_games_and_confidence():
    low, high = wilson_interval(2.5, 5)  # five games, one shared win among them: 50%
    assert low + high == pytest.approx(1.0)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    narrow = wilson_interval(30, 100, confidence=0.8)
    wide = wilson_interval(30, 100, confidence=0.99)
    assert wide[0] < narrow[0] < 0.3 < narrow[1] < wide[1]


@pytest.mark.parametrize(
    "args,message",
    [
        ((-1, 10), "wins must be non-negative"),
        ((1, -10), "games must be non-negative"),
        ((11, 10), "cannot exceed"),
        ((1, 2.5), "whole number"),
        ((float("nan"), 10), "finite"),
        (("x", 10), "must be a number"),
        ((1, 10, 1.0), "confidence"),
        ((1, 10, 0.0), "confidence"),
    ],
)
def test_wilson_bad_inputs(args, message):
    with pytest.raises(ValueError, match=message):
        wilson_interval(*args)


# ------------------------------------------------------------------------ Elo

def test_elo_score_known_values_and_round_trip():
    assert elo_from_score(0.75) == pytest.approx(190.85, abs=0.01)
    assert elo_from_score(0.75) == pytest.approx(ELO_75, abs=1e-9)
    assert elo_from_score(0.25) == pytest.approx(-ELO_75, abs=1e-9)
    assert elo_from_score(0.5) == 0.0
    assert score_from_elo(ELO_75) == pytest.approx(0.75)
    assert score_from_elo(400) == pytest.approx(10 / 11)
    for s in (0.01, 0.3, 0.64, 0.999):
        assert score_from_elo(elo_from_score(s)) == pytest.approx(s)


def test_elo_extremes_are_infinite():
    assert elo_from_score(1.0) == math.inf
    assert elo_from_score(0.0) == -math.inf
    assert score_from_elo(math.inf) == 1.0
    assert score_from_elo(-math.inf) == 0.0
    assert score_from_elo(1e6) == 1.0  # no overflow


@pytest.mark.parametrize("bad", [-0.01, 1.01, float("nan"), "half", True])
def test_elo_from_score_bad_inputs(bad):
    with pytest.raises(ValueError, match="score"):
        elo_from_score(bad)


def test_score_from_elo_rejects_nan():
    with pytest.raises(ValueError, match="NaN"):
        score_from_elo(float("nan"))


def test_elo_interval_known_values():
    elo, low, high = elo_interval(75, 0, 25)
    assert elo == pytest.approx(ELO_75)
    half = scipy_stats.norm.ppf(0.975) * math.sqrt(0.75 * 0.25 / 100)
    assert low == pytest.approx(elo_from_score(0.75 - half))
    assert high == pytest.approx(elo_from_score(0.75 + half))


def test_elo_interval_draws_shrink_the_interval():
    # Same 60% score; draws lower the per-game variance.
    _, low_nd, high_nd = elo_interval(60, 0, 40)
    elo, low_d, high_d = elo_interval(40, 40, 20)
    assert elo == pytest.approx(elo_from_score(0.6))
    assert low_nd < low_d < elo < high_d < high_nd
    # per-game variance with draws: (0.4*0.16 + 0.4*0.01 + 0.2*0.36) = 0.14
    half = scipy_stats.norm.ppf(0.975) * math.sqrt(0.14 / 100)
    assert high_d == pytest.approx(elo_from_score(0.6 + half))


def test_elo_interval_perfect_score_and_bad_inputs():
    assert elo_interval(10, 0, 0) == (math.inf, math.inf, math.inf)
    elo, low, high = elo_interval(0, 1, 0)
    assert (elo, low, high) == (0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="at least one game"):
        elo_interval(0, 0, 0)
    with pytest.raises(ValueError, match="draws must be non-negative"):
        elo_interval(1, -1, 1)


# ------------------------------------------------------------- Bradley-Terry

def _gap(ratings):
    by_name = {r.name: r.rating for r in ratings}
    return by_name["a"] - by_name["b"]


def test_bradley_terry_75_25_is_190_8_elo():
    games = [("a", "b", 1.0)] * 75 + [("b", "a", 1.0)] * 25
    assert _gap(bradley_terry(games, prior=0)) == pytest.approx(ELO_75, abs=1e-6)
    # the default prior (one virtual draw each) shrinks this by about an Elo point;
    # with ten times the games it is within half a point
    assert 189.0 < _gap(bradley_terry(games)) < ELO_75
    assert _gap(bradley_terry(games * 10)) == pytest.approx(190.8, abs=0.5)


def test_bradley_terry_matrix_input_matches_list_input():
    games = [("a", "b", 1.0)] * 75 + [("a", "b", 0.0)] * 25
    from_list = bradley_terry(games)
    from_matrix = bradley_terry(np.array([[0, 75], [25, 0]]), names=["a", "b"])
    assert [(r.name, r.games) for r in from_matrix] == [("a", 100), ("b", 100)]
    for x, y in zip(from_list, from_matrix, strict=True):
        assert x.rating == pytest.approx(y.rating)
        assert (x.low, x.high) == pytest.approx((y.low, y.high))
    # shared wins: 2.5 of 4 games is a 62.5% score
    ratings = bradley_terry(np.array([[0.0, 2.5], [1.5, 0.0]]), prior=0)
    assert [r.name for r in ratings] == ["0", "1"]
    assert ratings[0].rating - ratings[1].rating == pytest.approx(elo_from_score(0.625))
    assert ratings[0].games == 4


def test_bradley_terry_half_scores_count_as_shared_wins():
    games = [("a", "b", 1.0)] * 2 + [("a", "b", 0.5)] * 2  # a scores 3 of 4
    assert _gap(bradley_terry(games, prior=0)) == pytest.approx(ELO_75)


def _round_robin(true_elo, games_per_pair, seed):
    rng = np.random.default_rng(seed)
    names = sorted(true_elo)
    results = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            p = score_from_elo(true_elo[a] - true_elo[b])
            results += [(a, b, float(x)) for x in rng.random(games_per_pair) < p]
    return results


def test_bradley_terry_recovers_synthetic_round_robin():
    true_elo = {"strong": 250.0, "middle": 50.0, "weak": -300.0}
    ratings = bradley_terry(_round_robin(true_elo, 3000, seed=7))
    assert [r.name for r in ratings] == ["strong", "middle", "weak"]
    assert sum(r.rating for r in ratings) == pytest.approx(0.0, abs=1e-6)  # anchor
    mean_true = sum(true_elo.values()) / 3
    for r in ratings:
        assert r.rating == pytest.approx(true_elo[r.name] - mean_true, abs=25)
        assert r.low < true_elo[r.name] - mean_true < r.high
        assert r.games == 6000
    assert isinstance(ratings[0], Rating)


def test_bradley_terry_bootstrap_is_reproducible_and_contains_estimate():
    results = _round_robin({"a": 100.0, "b": 0.0, "c": -60.0}, 300, seed=3)
    first = bradley_terry(results, bootstrap=200, seed=11)
    again = bradley_terry(results, bootstrap=200, seed=11)
    other = bradley_terry(results, bootstrap=200, seed=12)
    assert first == again
    assert [(r.low, r.high) for r in first] != [(r.low, r.high) for r in other]
    fisher = {r.name: r for r in bradley_terry(results)}
    for r in first:
        assert r.low < r.rating < r.high
        assert r.rating == fisher[r.name].rating  # bootstrap leaves the estimate alone
        width, fisher_width = r.high - r.low, fisher[r.name].high - fisher[r.name].low
        assert 0.7 < width / fisher_width < 1.4
    narrower = bradley_terry(results * 4, bootstrap=100, seed=11)
    width = {r.name: r.high - r.low for r in first}
    for r in narrower:
        assert r.high - r.low < 0.7 * width[r.name]


def test_bradley_terry_perfect_record_stays_finite():
    games = [("a", "b", 1.0)] * 10 + [("b", "c", 0.5)] * 4
    ratings = bradley_terry(games)
    # c only drew with b, who lost everything to a; the prior pulls c towards 0, above b
    assert [r.name for r in ratings] == ["a", "c", "b"]
    assert all(math.isfinite(v) for r in ratings for v in (r.rating, r.low, r.high))
    stronger_prior = bradley_terry(games, prior=5.0)
    assert _gap(stronger_prior) < _gap(ratings)
    with pytest.raises(ValueError, match="prior > 0"):
        bradley_terry(games, prior=0)


def test_bradley_terry_prior_is_one_virtual_draw_against_a_zero_rated_player():
    # 10-0 head to head; by symmetry a = d/2, b = -d/2 (natural-log strengths), and
    # a's score equation with one virtual draw is 10 + 0.5 = 10 sigmoid(d) + sigmoid(d/2).
    d = optimize.brentq(lambda d: 10 * special.expit(d) + special.expit(d / 2) - 10.5, 0, 20)
    ratings = bradley_terry([("a", "b", 1.0)] * 10)
    assert ratings[0].rating - ratings[1].rating == pytest.approx(d * ELO_PER_NAT, abs=1e-3)
    assert 570 < d * ELO_PER_NAT < 590


def test_bradley_terry_names_and_absent_players():
    games = [("a", "b", 1.0), ("a", "b", 0.0), ("b", "a", 1.0)]
    ratings = bradley_terry(games, names=["b", "a", "idle"])
    idle = next(r for r in ratings if r.name == "idle")
    assert idle.games == 0 and math.isfinite(idle.rating)
    assert ratings[0].name == "b"
    with pytest.raises(ValueError, match=r"not in names: \['b'\]"):
        bradley_terry(games, names=["a"])


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"results": []}, "results is empty"),
        ({"results": [("a", "a", 1.0)]}, "cannot play itself"),
        ({"results": [("a", "b", 1.5)]}, r"score must be in \[0, 1\]"),
        ({"results": [("a", "b")]}, "triple"),
        ({"results": [[0, 1, 1]]}, "names must be strings"),
        ({"results": [("a", "b", 1.0)], "names": ["a", "b", "a"]}, "duplicates"),
        ({"results": [("a", "b", 1.0)], "bootstrap": -1}, "bootstrap must be non-negative"),
        ({"results": [("a", "b", 1.0)], "bootstrap": 10, "prior": 0}, "bootstrap needs prior"),
        ({"results": [("a", "b", 1.0)], "prior": -1}, "prior must be non-negative"),
        ({"results": np.zeros((2, 3))}, "square"),
        ({"results": np.array([[0, -1], [2, 0]])}, "negative"),
        ({"results": np.array([[0, 1.2], [1.3, 0]])}, "whole number of games"),
        ({"results": np.array([[1, 1], [1, 0]])}, "zero diagonal"),
        ({"results": np.zeros((2, 2))}, "no games"),
        ({"results": np.array([[0, 1], [1, 0]]), "names": ["a"]}, "matrix is 2x2"),
    ],
)
def test_bradley_terry_bad_inputs(kwargs, message):
    with pytest.raises(ValueError, match=message):
        bradley_terry(**kwargs)


# -------------------------------------------------------------- Plackett-Luce

def test_plackett_luce_ranks_the_constant_winner_first():
    rng = np.random.default_rng(5)
    names = ["alpha", "beta", "gamma", "delta", "eps"]
    games = []
    for _ in range(60):
        others = list(rng.permutation(names[1:]))
        seats = int(rng.integers(2, 5))  # 3 to 5 players
        games.append(["alpha"] + others[:seats])
    ratings = plackett_luce_ratings(games, names)
    assert ratings[0].name == "alpha"
    assert ratings[0].games == 60
    assert ratings[0].low > max(r.rating for r in ratings[1:])  # clearly separated
    for r in ratings:
        assert isinstance(r, SkillRating)
        assert r.rating == r.mu
        assert r.ordinal == pytest.approx(r.mu - 3 * r.sigma)
        assert (r.low, r.high) == pytest.approx((r.mu - 1.959964 * r.sigma,
                                                 r.mu + 1.959964 * r.sigma))
    assert [r.rating for r in ratings] == sorted((r.rating for r in ratings), reverse=True)


def test_plackett_luce_ties_and_absent_players():
    games = [["a", ("b", "c")], ["a", {"b", "c"}], [["b", "c"], "a"]]
    ratings = {r.name: r for r in plackett_luce_ratings(games, ["a", "b", "c", "d"])}
    assert ratings["b"].mu == pytest.approx(ratings["c"].mu)  # always tied: symmetric
    assert ratings["b"].sigma == pytest.approx(ratings["c"].sigma)
    assert ratings["a"].mu > ratings["b"].mu
    assert ratings["d"].games == 0
    assert ratings["d"].mu == pytest.approx(25.0) and ratings["d"].sigma == pytest.approx(25 / 3)
    # confidence changes only the interval
    wide = {r.name: r for r in plackett_luce_ratings(games, list("abcd"), confidence=0.99)}
    assert wide["a"].mu == ratings["a"].mu and wide["a"].low < ratings["a"].low


@pytest.mark.parametrize(
    "games,names,message",
    [
        ([["a", "x"]], ["a", "b"], "unknown name 'x'"),
        ([["a", "a"]], ["a", "b"], "more than once"),
        ([["a", ["b", "a"]]], ["a", "b"], "more than once"),
        ([["a"]], ["a", "b"], "at least two players"),
        ([["a", []]], ["a", "b"], "empty group"),
        (["ab"], ["a", "b"], "list of names"),
        ([["a", 3]], ["a", "b"], "name or a group"),
        ([], ["a", "b"], "games is empty"),
        ([["a", "b"]], [], "names is empty"),
        ([["a", "b"]], ["a", "b", "a"], "duplicates"),
    ],
)
def test_plackett_luce_bad_inputs(games, names, message):
    with pytest.raises(ValueError, match=message):
        plackett_luce_ratings(games, names)


# ----------------------------------------------------------- pairwise_scores

def test_pairwise_scores_hand_computed():
    records = [
        {"a": 1, "b": 0, "c": 0},        # a>b, a>c, b=c
        {"a": 0, "b": 1},                # b>a
        {"a": 0.5, "b": 0.5, "c": 0},    # a=b, a>c, b>c
        {"c": 0.0, "a": 1.0},            # a>c
        {"a": 1 / 3, "b": 1 / 3, "d": 1 / 3},  # three-way shared win: all equal
    ]
    names, mean, games = pairwise_scores(records)
    nan = np.nan
    assert names == ["a", "b", "c", "d"]
    expected_mean = np.array([
        [nan, 0.5, 1.0, 0.5],
        [0.5, nan, 0.75, 0.5],
        [0.0, 0.25, nan, nan],
        [0.5, 0.5, nan, nan],
    ])
    expected_games = np.array([
        [0, 4, 3, 1],
        [4, 0, 2, 1],
        [3, 2, 0, 0],
        [1, 1, 0, 0],
    ])
    np.testing.assert_array_equal(games, expected_games)
    np.testing.assert_allclose(mean, expected_mean, equal_nan=True)
    assert games.dtype.kind == "i"


def test_pairwise_scores_feeds_bradley_terry():
    records = [{"x": 1, "y": 0}] * 3 + [{"x": 0, "y": 1}]
    names, mean, games = pairwise_scores(records)
    wins = np.nan_to_num(mean * games)
    ratings = bradley_terry(wins, names=names, prior=0)
    assert ratings[0].name == "x"
    assert ratings[0].rating - ratings[1].rating == pytest.approx(ELO_75)


@pytest.mark.parametrize(
    "records,message",
    [
        ([], "records is empty"),
        ([{"a": 1}], "at least two players"),
        ([{"a": 0.7, "b": 0.7}], "sum to 1"),
        ([{"a": 1.5, "b": -0.5}], "non-negative"),
        ([{"a": 1, "b": float("nan")}], "finite"),
        ([("a", 1)], "must be a dict"),
        ({"a": 1, "b": 0}, "not a single dict"),
        ([{1: 1, "b": 0}], "names must be strings"),
    ],
)
def test_pairwise_scores_bad_inputs(records, message):
    with pytest.raises(ValueError, match=message):
        pairwise_scores(records)


# ----------------------------------------------------------------------- SPRT

def test_sprt_bounds():
    sprt = SPRT()
    assert sprt.lower == pytest.approx(math.log(0.05 / 0.95))
    assert sprt.upper == pytest.approx(math.log(0.95 / 0.05))
    asym = SPRT(alpha=0.01, beta=0.2)
    assert asym.lower == pytest.approx(math.log(0.2 / 0.99))
    assert asym.upper == pytest.approx(math.log(0.8 / 0.01))
    assert sprt.llr == 0.0 and sprt.update(0, 0, 0) is None


def test_sprt_llr_without_draws_is_the_binomial_llr():
    s0, s1 = score_from_elo(0), score_from_elo(50)
    for w, losses in [(3, 0), (60, 40), (480, 520), (0, 7)]:
        binomial = w * math.log(s1 / s0) + losses * math.log((1 - s1) / (1 - s0))
        # the 0.001 pseudo-count for the missing draws moves it very slightly
        assert SPRT.llr_of(w, 0, losses, s0, s1) == pytest.approx(binomial, rel=2e-3, abs=2e-3)


def test_sprt_llr_agrees_with_normal_approximation_for_many_games():
    s0, s1 = score_from_elo(0), score_from_elo(10)
    for w, d, losses in [(2600, 2000, 2400), (5000, 2000, 4000), (3000, 3000, 3100)]:
        n = w + d + losses
        x = (w + d / 2) / n
        var = (w * (1 - x) ** 2 + d * (0.5 - x) ** 2 + losses * x**2) / n
        approx = n * (s1 - s0) * (2 * x - s0 - s1) / (2 * var)
        assert SPRT.llr_of(w, d, losses, s0, s1) == pytest.approx(approx, rel=0.02, abs=0.02)


def test_sprt_llr_sign_follows_the_observed_score():
    sprt = SPRT(elo0=0, elo1=50)
    sprt.update(25, 50, 25)  # exactly s0
    assert sprt.llr < 0
    s1 = score_from_elo(50)
    wins = round(100 * (s1 - 0.25))  # about 57% with 50 draws
    sprt2 = SPRT(elo0=0, elo1=50)
    sprt2.update(wins, 50, 100 - 50 - wins)
    assert sprt2.llr > 0


def test_sprt_update_decides_when_a_bound_is_crossed():
    sprt = SPRT(elo0=0, elo1=50)
    assert sprt.update(60, 0, 40) is None
    assert sprt.llr == pytest.approx(1.85, abs=0.01)
    assert sprt.update(120, 0, 80) == "H1"
    assert sprt.llr >= sprt.upper
    low = SPRT(elo0=0, elo1=50)
    assert low.update(100, 0, 100) is None  # LLR ~ -2.07, bound -2.94
    assert low.update(150, 0, 150) == "H0"  # LLR ~ -3.10
    assert low.llr <= low.lower


def _stream(win, draw, n, seed):
    rng = np.random.default_rng(seed)
    return rng.choice([1.0, 0.5, 0.0], size=n, p=[win, draw, 1 - win - draw]).tolist()


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_sprt_decide_accepts_h1_for_a_60_percent_scorer(seed):
    stream = _stream(0.5, 0.2, 3000, seed=seed)  # mean score 0.6
    decision, used = sprt_decide(stream, elo0=0, elo1=50)
    assert decision == "H1"
    assert 10 < used <= 1500
    assert sprt_decide(iter(stream), elo0=0, elo1=50) == (decision, used)  # deterministic
    assert sprt_decide(stream[:5], elo0=0, elo1=50) == (None, 5)


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_sprt_decide_accepts_h0_for_a_50_percent_scorer(seed):
    stream = _stream(0.4, 0.2, 3000, seed=seed)  # mean score 0.5
    decision, used = sprt_decide(stream, elo0=0, elo1=50)
    assert decision == "H0"
    assert 10 < used <= 1500
    assert sprt_decide(stream, elo0=0, elo1=50) == (decision, used)


def test_sprt_error_rates_are_near_alpha_and_beta():
    # 50 seeded runs at each hypothesis; nominal error rate 5% each.
    s1 = score_from_elo(50)
    false_h1 = sum(
        sprt_decide(_stream(0.35, 0.3, 4000, seed=k), elo0=0, elo1=50)[0] == "H1"
        for k in range(50)
    )
    false_h0 = sum(
        sprt_decide(_stream(s1 - 0.15, 0.3, 4000, seed=1000 + k), elo0=0, elo1=50)[0] == "H0"
        for k in range(50)
    )
    assert false_h1 <= 6 and false_h0 <= 6


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"elo0": 10, "elo1": 10}, "less than elo1"),
        ({"elo0": 20, "elo1": 10}, "less than elo1"),
        ({"alpha": 0.0}, "strictly between"),
        ({"beta": 1.0}, "strictly between"),
        ({"alpha": 0.6, "beta": 0.5}, "alpha \\+ beta"),
        ({"elo1": float("inf")}, "finite"),
        ({"elo0": -1e6}, "too extreme"),
    ],
)
def test_sprt_bad_parameters(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SPRT(**kwargs)


def test_sprt_bad_updates_and_streams():
    sprt = SPRT()
    sprt.update(5, 2, 3)
    with pytest.raises(ValueError, match="cannot decrease"):
        sprt.update(4, 2, 3)
    with pytest.raises(ValueError, match="losses must be non-negative"):
        SPRT().update(1, 1, -1)
    with pytest.raises(ValueError, match=r"results\[2\] must be 1, 0.5 or 0"):
        sprt_decide([1, 0, 0.3])


def test_elo_per_nat_constant():
    assert ELO_PER_NAT == pytest.approx(400 / math.log(10))
    assert score_from_elo(ELO_PER_NAT) == pytest.approx(1 / (1 + math.exp(-1)))
