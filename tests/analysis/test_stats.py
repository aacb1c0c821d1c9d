"""The small pieces of the statistics layer (glory_ai.analysis.stats): Wilson intervals of
games taken as independent, the logistic Elo scale and its text, the tests on per-deal
values, and DealSPRT, the pentanomial SPRT that stops a head-to-head run."""
import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from glory_ai.analysis import AnalysisError
from glory_ai.analysis.stats import DealSPRT, elo_text, paired, wilson
from glory_ai.arena import RunConfig

ELO_75 = 400 * math.log10(3)  # 190.848...


# ---- Wilson, Elo -------------------------------------------------------------------------

def test_wilson_known_values_fractional_wins_and_no_games():
    low, high = wilson([50, 0, 10, 2.5], [100, 0, 10, 5])
    assert (low[0], high[0]) == pytest.approx((0.40383, 0.59617), abs=1e-5)
    assert (low[1], high[1]) == (0.0, 1.0)                     # no games: no information
    assert high[2] == pytest.approx(1.0) and low[2] == pytest.approx(0.72246, abs=1e-5)
    # a shared win counts 1/k: 2.5 of 5 is the interval of a rate of one half
    assert (low[3], high[3]) == pytest.approx(tuple(x[1] for x in wilson([1, 2.5], [2, 5])))


def test_wilson_matches_the_textbook_formula():
    z = scipy_stats.norm.ppf(0.975)
    for wins, games in [(3, 17), (40, 41), (0, 12)]:
        p = wins / games
        centre = (p + z * z / (2 * games)) / (1 + z * z / games)
        half = z / (1 + z * z / games) * math.sqrt(p * (1 - p) / games + z * z / (4 * games**2))
        low, high = wilson(wins, games)
        assert (low[0], high[0]) == pytest.approx((max(0, centre - half), min(1, centre + half)))


def test_the_logistic_elo_scale_and_its_text():
    assert paired.elo_from_score(0.75) == pytest.approx(ELO_75)
    assert paired.elo_from_score(1.0) == math.inf and paired.elo_from_score(0.0) == -math.inf
    assert paired.ELO_PER_NAT == pytest.approx(400 / math.log(10))
    assert elo_text(ELO_75, 120.4, 281.5) == "+191 [+120, +282]"
    assert elo_text(math.inf, 140.26, math.inf, 1) == "> +140.3"
    assert elo_text(-math.inf, -math.inf, -140.26) == "< -140"


def test_mean_interval_and_mean_test_agree():
    rng = np.random.default_rng(3)
    for _ in range(40):
        values = rng.choice([0.0, 0.25, 0.5, 0.75, 1.0], size=int(rng.integers(5, 30)),
                            p=[0.15, 0.2, 0.3, 0.2, 0.15])
        mean, low, high = paired.mean_interval(values)
        assert mean == pytest.approx(values.mean())
        if np.ptp(values) > 0 and 0 < low and high < 1:
            # t-test and t interval: p < 0.05 exactly when the interval excludes 1/2
            assert (paired.mean_test(values) < 0.05) == (not low <= 0.5 <= high)
    assert paired.mean_test([1.0] * 6) == pytest.approx(2 * 0.5**6)   # the exact sign test
    assert paired.mean_test([0.5] * 6) == 1.0 and math.isnan(paired.mean_test([1.0]))


# ---- DealSPRT -------------------------------------------------------------------------------

def _games(outcomes, deals_of_two=True):
    """Head-to-head records of a against b: per deal A's results in its games, 'W', 'L' or
    'D' (a shared win), A in seat 0 first."""
    out = []
    for deal, results in enumerate(outcomes):
        for rotation, result in enumerate(results if deals_of_two else results[:1]):
            seats = ["a", "b"] if rotation == 0 else ["b", "a"]
            mine = seats.index("a")
            winners = {"W": [mine], "L": [1 - mine], "D": [0, 1]}[result]
            out.append({"deal": deal, "seats": seats, "winners": winners})
    return out


def test_deal_sprt_is_the_pentanomial_sprt_over_whole_deals_in_order():
    rng = np.random.default_rng(8)
    outcomes = ["".join(rng.choice(list("WWWLD"), 2)) for _ in range(300)]
    records = _games(outcomes)
    test = DealSPRT(["a", "b"], 2, (0, 40, 0.05, 0.05))
    order = rng.permutation(len(records))
    for start in range(0, len(records), 7):              # fed in any order, a batch at a time
        test.add([records[i] for i in order[start:start + 7]])
    cells = [sum({"W": 2, "D": 1, "L": 0}[r] for r in pair) for pair in outcomes]
    expected = paired.sequential_sprt(cells, 0, 40, 0.05, 0.05)
    assert test.decision == expected.decision == "H1"
    assert test.deals() == expected.samples and test.games == 2 * expected.samples
    state = test.to_dict()
    assert state["llr"] == pytest.approx(expected.llr) and sum(state["counts"]) == expected.samples
    assert state["model"] == "pentanomial GSPRT, normalized Elo"
    assert state["wins"] + state["draws"] + state["losses"] == test.games
    assert "H1 accepted (a is at least 40 normalized Elo stronger than b)" in test.describe()


def test_deal_sprt_without_rotation_is_the_trinomial_sprt_over_games():
    outcomes = ["W", "L", "W", "D", "W", "W", "L", "W"] * 30
    test = DealSPRT(["a", "b"], 1, (0, 40, 0.05, 0.05))
    test.add(_games(outcomes, deals_of_two=False))
    scores = np.array([{"W": 1.0, "D": 0.5, "L": 0.0}[r] for r in outcomes])
    for n in range(1, len(scores) + 1):
        state = paired.sprt(paired.trinomial(scores[:n]), 0, 40, 0.05, 0.05)
        if state.decision is not None:
            break
    assert test.decision == state.decision and test.deals() == n
    assert test.to_dict()["model"] == "trinomial GSPRT, normalized Elo"


def test_deal_sprt_waits_for_whole_deals_and_refuses_bad_parameters():
    test = DealSPRT(["a", "b"], 2, (0, 50, 0.05, 0.05))
    assert test.add(_games(["WW"] * 40)[1:]) is None and test.deals() == 0   # deal 0 lacks a game
    assert test.add(_games(["WW"])[:1]) == "H1"
    with pytest.raises(AnalysisError, match="deals of one game or of two"):
        DealSPRT(["a", "b"], 3, (0, 50, 0.05, 0.05))
    with pytest.raises(AnalysisError, match="elo0 < elo1"):
        DealSPRT(["a", "b"], 2, (50, 0, 0.05, 0.05))
    with pytest.raises(AnalysisError, match="alpha and beta"):
        DealSPRT(["a", "b"], 2, (0, 50, 0.5, 0.6))


def test_a_config_stored_before_reads_the_same_bounds_as_normalized_elo():
    # RunConfig.sprt keeps its four numbers; they are now read as normalized Elo
    stored = RunConfig(specs=("greedy", "random"), deals=10, sprt=(0, 50, 0.05, 0.05)).to_dict()
    config = RunConfig.from_dict(stored)
    test = DealSPRT.for_config(config)
    assert test.params == (0.0, 50.0, 0.05, 0.05) and test.games_per_deal == 2
    assert "[0, 50] normalized Elo" in test.describe()
