"""glory_ai.analysis.stats.paired: the statistics of paired deals (docs/statistics.md).

The pentanomial counts and their incomplete pairs, the generalized LLR against values
computed here by hand from fishtest's formulas (and against numbers a fishtest-style
server published), the intervals, ratings that stay finite at 100%, the finishing-order
matrix on a hand-made 3-player record set, the re-run test and Holm's correction; and a
fast calibration run (the slow one is tests/analysis/test_paired_calibration.py).
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

from glory_ai.analysis import AnalysisError
from glory_ai.analysis.load import load_runs
from glory_ai.analysis.stats import calibration, paired
from glory_ai.analysis.stats.bootstrap import deal_sums


def _l(elo: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


# ---- building frames from hand-made records -------------------------------------------------

def _match_records(synth, results, a="A", b="B"):
    """Records of a head-to-head match: ``results`` maps a deal to A's results in rotation 0
    (A in seat 0) and rotation 1 (A in seat 1), 'W', 'L' or 'D' (a shared win)."""
    records = []
    for deal, games in results.items():
        for rotation, outcome in enumerate(games):
            seats = [a, b] if rotation == 0 else [b, a]
            mine = seats.index(a)
            winners = {"W": [mine], "L": [1 - mine], "D": [0, 1]}[outcome]
            rec = synth(deal, seats, winners)
            rec["rotation"] = rotation
            rec["game_id"] = f"{deal}-0-{rotation}"
            records.append(rec)
    return records


@pytest.fixture
def match_frame(synth, run_folder):
    def make(results, **kw):
        return load_runs(run_folder(_match_records(synth, results, **kw)))
    return make


# ---- pentanomial counts ------------------------------------------------------------------------

def test_pentanomial_counts_each_cell_of_a_pair():
    pairs = [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6]
    scores = [0, 0, 0, 0.5, 0.5, 0.5, 1, 0, 1, 0.5, 1, 1, 0.5, 0]
    p = paired.pentanomial(pairs, scores)
    assert p.counts == (1, 2, 2, 1, 1)
    assert p.unpaired_games == 0 and p.pairs == 7
    assert p.score == pytest.approx(sum(scores) / 14)


def test_pentanomial_leaves_out_incomplete_pairs_and_counts_them():
    # deal 7 lost its second game (an interrupted run): its single win is not counted
    p = paired.pentanomial([3, 3, 7, 5, 5], [1, 1, 1, 0, 0])
    assert p.counts == (1, 0, 0, 0, 1)
    assert p.unpaired_games == 1
    assert p.score == 0.5


def test_pentanomial_refuses_a_pair_of_three_games_and_bad_scores():
    with pytest.raises(AnalysisError, match="more than two games"):
        paired.pentanomial([0, 0, 0], [1, 0, 1])
    with pytest.raises(AnalysisError, match="0, 0.5 or 1"):
        paired.pentanomial([0, 0], [1, 0.3])
    with pytest.raises(AnalysisError, match="pair ids"):
        paired.pentanomial([0], [1, 0])


def test_head_to_head_games_pairs_the_rotations_of_a_deal(match_frame):
    frame = match_frame({0: "WL", 1: "WW", 2: "DL", 3: "W"})         # deal 3 interrupted
    games = paired.head_to_head_games(frame, "A", "B")
    assert games["score"].tolist() == [1, 0, 1, 1, 0.5, 0, 1]
    assert games["seat"].tolist() == [0, 1, 0, 1, 0, 1, 0]
    p = paired.pentanomial(games["pair"], games["score"])
    assert p.counts == (0, 1, 1, 0, 1) and p.unpaired_games == 1
    assert paired.trinomial(games["score"]) == (2, 1, 4)
    other = paired.head_to_head_games(frame, "B", "A")
    assert (other["score"].to_numpy() == 1 - games["score"].to_numpy()).all()
    with pytest.raises(AnalysisError, match="no 2-player game"):
        paired.head_to_head_games(frame, "A", "C")


# ---- the generalized LLR against fishtest's formulas -----------------------------------------------

def _by_hand_logistic(counts, elo0, elo1):
    """fishtest's LLR_logistic from its formulas, written out: zero cells become 0.001,
    f the empirical distribution over a_i = i / (K - 1); for each hypothesis the MLE with
    mean s is p_i = f_i / (1 + x (a_i - s)) with x the root of sum f_i (a_i - s) /
    (1 + x (a_i - s)) = 0 (support_MLE_multinomial, Proposition 1.1)."""
    c = [x if x > 0 else 1e-3 for x in counts]
    n = sum(c)
    f = [x / n for x in c]
    a = [i / (len(c) - 1) for i in range(len(c))]

    def mle(s):
        u = [ai - s for ai in a]
        def g(x):
            return sum(fi * ui / (1 + x * ui) for fi, ui in zip(f, u, strict=True))
        x = optimize.brentq(g, -1 / max(u) + 1e-12, -1 / min(u) - 1e-12, xtol=1e-15)
        return [fi / (1 + x * ui) for fi, ui in zip(f, u, strict=True)]

    p0, p1 = mle(_l(elo0)), mle(_l(elo1))
    return n * sum(fi * math.log(q1 / q0) for fi, q0, q1 in zip(f, p0, p1, strict=True))


def _by_definition_normalized(counts, nelo0, nelo1):
    """The GLR of the normalized model from its definition: maximise the likelihood over
    distributions p with (mean - 1/2) / sd = t under each hypothesis (a generic constrained
    optimiser, not the fixed point of the module), t = nElo / (800 / ln 10), times sqrt(2)
    for pairs."""
    c = np.array([x if x > 0 else 1e-3 for x in counts], dtype=float)
    n = c.sum()
    a = np.linspace(0, 1, len(c))
    scale = math.sqrt(2) if len(c) == 5 else 1.0

    def best(t):
        cons = [{"type": "eq", "fun": lambda p: p.sum() - 1},
                {"type": "eq", "fun": lambda p: (p @ a - 0.5)
                 - t * math.sqrt(max(p @ (a - p @ a) ** 2, 1e-300))}]
        res = optimize.minimize(lambda p: -(c * np.log(p)).sum(), c / n, constraints=cons,
                                bounds=[(1e-12, 1)] * len(c), method="SLSQP",
                                options={"ftol": 1e-15, "maxiter": 1000})
        assert res.success
        return -res.fun

    t0, t1 = (e / (800 / math.log(10)) * scale for e in (nelo0, nelo1))
    return best(t1) - best(t0)


@pytest.mark.parametrize("counts", [[1, 2, 3, 2, 1], [0, 3, 5, 4, 2], [2, 1, 7, 3, 0],
                                    [4, 3, 5], [1, 0, 3]])
@pytest.mark.parametrize("bounds", [(0.0, 10.0), (-5.0, 20.0)])
def test_logistic_llr_matches_the_formula_by_hand(counts, bounds):
    assert paired.llr(counts, *bounds, model="logistic") == pytest.approx(
        _by_hand_logistic(counts, *bounds), abs=1e-9)


@pytest.mark.parametrize("counts", [[1, 2, 3, 2, 1], [0, 3, 5, 4, 2], [2, 1, 7, 3, 0], [4, 3, 5]])
@pytest.mark.parametrize("bounds", [(0.0, 10.0), (-5.0, 20.0)])
def test_normalized_llr_matches_the_constrained_maximum_likelihood(counts, bounds):
    assert paired.llr(counts, *bounds) == pytest.approx(
        _by_definition_normalized(counts, *bounds), abs=1e-6)


def test_llr_reproduces_a_published_test():
    # a raw-statistics page of a fishtest-style server: pentanomial [13, 37, 50, 25, 3],
    # bounds nElo [0, 4] = logistic [0, 2.716]: LLR "Normalized (exact)" -0.54912 and
    # "Logistic (exact)" -0.53772 (the logistic bound is printed rounded)
    counts = [13, 37, 50, 25, 3]
    assert paired.llr(counts, 0.0, 4.0) == pytest.approx(-0.54912, abs=5e-6)
    assert paired.llr(counts, 0.0, 2.716, model="logistic") == pytest.approx(-0.53772, abs=2e-4)
    e = paired.paired_estimate(counts)
    assert e.score == pytest.approx(0.4375)
    assert e.nelo == pytest.approx(-63.97, abs=0.005)              # "Normalized Elo -63.97"


def test_llr_symmetry_batch_and_empty_counts():
    counts = np.array([[3, 8, 20, 10, 4], [1, 2, 3, 2, 1], [0, 0, 5, 9, 1]])
    batch = paired.llr(counts, -3.0, 12.0)
    one_by_one = [paired.llr(c, -3.0, 12.0) for c in counts]
    assert np.allclose(batch, one_by_one)
    # A's results seen from B: the counts reversed and the hypotheses mirrored
    assert np.allclose(paired.llr(counts[:, ::-1], -12.0, 3.0), -batch)
    assert paired.llr([0, 0, 0, 0, 0], 0.0, 5.0) == 0.0
    with pytest.raises(AnalysisError, match="elo0 < elo1"):
        paired.llr([1, 2, 3, 2, 1], 5.0, 0.0)
    with pytest.raises(AnalysisError, match="3 .* or 5"):
        paired.llr([1, 2, 3, 2], 0.0, 5.0)


def test_sprt_decides_at_wald_bounds_and_sequentially_at_the_first_crossing():
    lower, upper = paired.sprt_bounds(0.05, 0.1)
    assert lower == pytest.approx(math.log(0.1 / 0.95)) and upper == pytest.approx(math.log(0.9 / 0.05))
    assert paired.sprt([0, 0, 5, 10, 40], 0.0, 20.0).decision == "H1"
    assert paired.sprt([40, 10, 5, 0, 0], 0.0, 20.0).decision == "H0"
    undecided = paired.sprt([1, 2, 3, 2, 1], 0.0, 20.0)
    assert undecided.decision is None and undecided.samples == 9
    assert "undecided" in undecided.describe() and "pentanomial" in undecided.describe()
    cells = np.random.default_rng(3).choice(5, size=400, p=[0.05, 0.1, 0.45, 0.2, 0.2])
    result = paired.sequential_sprt(cells, 0.0, 30.0)
    assert result.decision == "H1"
    n = result.samples
    counts = np.bincount(cells[:n], minlength=5)
    assert paired.sprt(counts, 0.0, 30.0).decision == "H1"
    assert paired.sprt(np.bincount(cells[:n - 1], minlength=5), 0.0, 30.0).decision is None
    assert result.llr == pytest.approx(paired.llr(counts, 0.0, 30.0))


# ---- intervals -----------------------------------------------------------------------------------

def test_paired_estimate_is_the_t_interval_of_the_pair_scores():
    counts = [2, 3, 10, 4, 1]
    values = np.repeat(paired.PAIR_SCORES, counts)
    e = paired.paired_estimate(counts)
    low, high = stats.t.interval(0.95, len(values) - 1, loc=values.mean(), scale=stats.sem(values))
    assert (e.score, e.low, e.high) == pytest.approx((values.mean(), low, high))
    assert e.elo == pytest.approx(400 * math.log10(e.score / (1 - e.score)))
    assert e.elo_low == pytest.approx(400 * math.log10(low / (1 - low)))
    sd_game = math.sqrt(2 * values.var())
    assert e.nelo == pytest.approx((e.score - 0.5) / sd_game * 800 / math.log(10))
    assert e.games == 40 and e.model == paired.MODEL_PENTANOMIAL


def test_a_perfect_score_gets_a_finite_bound_not_infinities():
    e = paired.paired_estimate([0, 0, 0, 0, 10])                     # 20-0
    assert e.score == 1.0 and e.high == 1.0
    assert e.low == pytest.approx(0.025 ** (1 / 10))                 # P(WW) >= 0.025^(1/n)
    assert math.isfinite(e.elo_low) and e.elo_low > 100
    assert paired.format_elo(e) == f"> {e.elo_low:+.0f}"
    zero = paired.paired_estimate([10, 0, 0, 0, 0])
    assert paired.format_elo(zero) == f"< {zero.elo_high:+.0f}" and zero.elo_high == -e.elo_low
    assert "inf" not in paired.format_elo(e) + paired.format_elo(zero)
    mid = paired.paired_estimate([0, 0, 8, 0, 0])                    # every pair split
    assert mid.low < 0.5 < mid.high
    assert paired.format_elo(paired.paired_estimate([1, 2, 10, 4, 3])).count("[") == 1


def test_independent_estimate_is_wilson_on_games():
    e = paired.independent_estimate(30, 10, 60)
    assert (e.low, e.high) == pytest.approx(proportion_confint(65, 100, method="wilson"))
    assert e.model == paired.MODEL_INDEPENDENT and e.games == 100
    with pytest.raises(AnalysisError):
        paired.independent_estimate(0, 0, 0)


# ---- fields: deal bootstrap, finishing order, ratings -----------------------------------------

def _field_records(synth, outcomes):
    """3-player records: ``outcomes`` lists per game (deal, seats, winners, scores)."""
    out = []
    for n, (deal, seats, winners, scores) in enumerate(outcomes):
        rec = synth(deal, seats, winners, scores=scores)
        rec["rotation"] = n % 3
        rec["game_id"] = f"{deal}-0-{n % 3}"
        out.append(rec)
    return out


HAND_MADE = [      # deal, seats, winners, VP: in every game greedy finishes ahead of random
    (0, ["greedy", "random", "builder"], [2], [25, 18, 30]),
    (0, ["builder", "greedy", "random"], [1], [20, 31, 12]),
    (0, ["random", "builder", "greedy"], [1, 2], [15, 28, 28]),     # a shared win
    (1, ["greedy", "random", "builder"], [2], [22, 22, 27]),        # greedy and random tie
]


def test_finishing_matrix_counts_places_not_win_shares(synth, run_folder):
    frame = load_runs(run_folder(_field_records(synth, HAND_MADE)))
    m = paired.finishing_matrix(frame)
    # greedy against random: ahead, ahead, ahead, level on VP -> (1 + 1 + 1 + 0.5) / 4
    assert m.loc["greedy", "random"] == pytest.approx(3.5 / 4)
    assert m.loc["random", "greedy"] == pytest.approx(0.5 / 4)
    # builder against greedy: ahead, behind, shared win, ahead -> 2.5 / 4
    assert m.loc["builder", "greedy"] == pytest.approx(2.5 / 4)
    assert m.loc["builder", "random"] == pytest.approx(4 / 4)
    assert np.isnan(m.loc["greedy", "greedy"])
    assert m.attrs["caption"] == paired.FINISHING_CAPTION
    assert m.attrs["games"][0][1] == 4
    # by win shares two losers tie: greedy-random would read (0.5 + 1 + 1 + 0.5) / 4
    assert m.loc["greedy", "random"] != pytest.approx((0.5 + 1 + 1 + 0.5) / 4)


def test_win_shares_deal_bootstrap_with_the_independent_interval_beside(synth, run_folder):
    rng = np.random.default_rng(0)
    outcomes = []
    for deal in range(40):
        for r in range(3):
            seats = [["a", "b", "c"][(i - r) % 3] for i in range(3)]
            winner = int(rng.choice(3, p=[0.5, 0.3, 0.2]))
            outcomes.append((deal, seats, [winner], [30 if s == winner else 20 for s in range(3)]))
    frame = load_runs(run_folder(_field_records(synth, outcomes)))
    table = paired.win_shares(frame, seed=5)
    assert table.index.tolist()[0] == table["win_share"].idxmax()
    assert (table["deals"] == 40).all() and (table["games"] == 120).all()
    assert table["win_share"].sum() == pytest.approx(1.0)
    wins, games, specs = deal_sums(frame, "win_share")
    low, high = paired.bootstrap_rates(wins, games, seed=5)
    assert np.allclose(table.loc[specs, "low"], low) and np.allclose(table.loc[specs, "high"], high)
    wl, wh = proportion_confint(table["wins"], table["games"], method="wilson")
    assert np.allclose(table["independent_low"], wl) and np.allclose(table["independent_high"], wh)
    assert (table["low"] < table["win_share"]).all() and (table["win_share"] < table["high"]).all()
    assert paired.win_shares(frame, seed=5).equals(table)                  # seeded
    assert not paired.win_shares(frame, seed=6)["low"].equals(table["low"])
    assert "deal bootstrap" in table.attrs["model"] and "Wilson" in table.attrs["independent_model"]


def test_ratings_are_finite_for_a_perfect_score(match_frame):
    frame = match_frame({d: "WW" for d in range(10)})                     # 20-0
    r = paired.ratings(frame)
    assert r.index.tolist() == ["A", "B"]
    assert np.isfinite(r[["rating", "low", "high"]].to_numpy()).all()
    a = r.loc["A"]
    assert a["low"] < a["rating"] < a["high"] and a["low"] > 0
    assert r.loc["B", "rating"] == pytest.approx(-a["rating"])
    assert (r["interval"] == paired.RATING_PROFILE).all()
    assert a["games"] == 20 and a["comparisons"] == 20
    # more games of the same perfect record: a larger, still finite rating
    more = paired.ratings(match_frame({d: "WW" for d in range(40)}))
    assert math.isfinite(more.loc["A", "rating"]) and more.loc["A", "rating"] > a["rating"]
    assert more.loc["A", "low"] > a["low"]


def test_ratings_of_a_field_where_one_spec_always_finishes_first(synth, run_folder):
    outcomes = []
    for deal in range(8):
        for r in range(3):
            seats = [["ace", "mid", "low"][(i - r) % 3] for i in range(3)]
            vp = {"ace": 40, "mid": 30 - (deal % 2) * 12, "low": 20}
            outcomes.append((deal, seats, [seats.index("ace")], [vp[s] for s in seats]))
    frame = load_runs(run_folder(_field_records(synth, outcomes)))
    r = paired.ratings(frame, resamples=200)
    assert r.index[0] == "ace" and np.isfinite(r[["rating", "low", "high"]].to_numpy()).all()
    assert r.loc["ace", "interval"] == paired.RATING_PROFILE
    assert r.loc["mid", "interval"] == paired.RATING_BOOTSTRAP
    assert r["rating"].sum() == pytest.approx(0.0, abs=1e-6)
    assert "prior" in r.attrs["model"] and r.attrs["resamples"] == 200


# ---- re-runs and multiple comparisons ----------------------------------------------------------

def test_rerun_test_is_welch_on_per_deal_scores(match_frame):
    rng = np.random.default_rng(1)
    old = rng.choice([0, 0.5, 1], size=80, p=[0.3, 0.3, 0.4])
    new = rng.choice([0, 0.5, 1], size=90, p=[0.3, 0.3, 0.4])
    t = paired.rerun_test(old, new)
    assert t.p_value == pytest.approx(stats.ttest_ind(new, old, equal_var=False).pvalue)
    assert t.alpha == paired.RERUN_ALPHA and t.differs == (t.p_value < 0.01)
    assert paired.rerun_test([1, 1, 1], [1, 1, 1]).p_value == 1.0
    assert paired.rerun_test([1, 1, 1], [0, 0, 0]).differs
    with pytest.raises(AnalysisError, match="two deals"):
        paired.rerun_test([1], [0, 1])
    frame = match_frame({0: "WL", 1: "WW", 2: "DL"})
    assert paired.deal_scores(frame, "A").tolist() == [0.5, 1.0, 0.25]
    counts = paired.pentanomial(*paired.head_to_head_games(frame, "A", "B")[["pair", "score"]].T.to_numpy())
    same = paired.rerun_test_pentanomial(counts, counts)
    assert same.p_value == pytest.approx(1.0) and not same.differs


def test_holm_through_statsmodels_with_its_label():
    p = [0.01, 0.04, 0.03, float("nan"), 0.2]
    adjusted, label = paired.holm(p)
    assert label == paired.HOLM_LABEL == "Holm-adjusted"
    assert np.isnan(adjusted[3])
    keep = [0, 1, 2, 4]
    assert np.allclose(adjusted[keep], multipletests(np.array(p)[keep], method="holm")[1])
    # Holm by hand: the k-th smallest of m times (m - k + 1), made monotone, at most 1
    assert adjusted[keep].tolist() == pytest.approx([0.04, 0.09, 0.09, 0.2])
    with pytest.raises(AnalysisError):
        paired.holm([0.5, 1.5])


# ---- calibration, fast (the slow version asserts the 93-97% band) ------------------------------

def test_match_truth_is_the_simulated_distribution():
    model = calibration.Match(seat_sd=1.5).with_score(0.64)
    assert model.score() == pytest.approx(0.64)
    scores = model.play(100_000, 1, np.random.default_rng(0))[0]
    seen = np.bincount(np.rint(2 * scores.sum(axis=1)).astype(int), minlength=5) / 100_000
    assert np.allclose(seen, model.pair_probabilities(), atol=0.005)
    assert calibration.Match(seat_sd=1.5).with_nelo(30.0).nelo() == pytest.approx(30.0)
    pentanomial = paired.pentanomial(np.repeat(np.arange(1000), 2), scores[:1000].ravel())
    assert pentanomial.counts == tuple(np.bincount(np.rint(2 * scores[:1000].sum(axis=1)).astype(int),
                                                   minlength=5))


def test_fast_coverage_paired_against_independent():
    seat = calibration.match_coverage(calibration.Match(seat_sd=1.5).with_score(0.64), 100, 600, seed=1)
    assert 0.92 <= seat["paired"] <= 0.98
    assert seat["independent"] >= 0.97                # a deal favouring a seat: too wide
    assert seat["paired_width"] < seat["independent_width"]
    suited = calibration.match_coverage(calibration.Match(spec_sd=1.5).with_score(0.64), 100, 600, seed=2)
    assert 0.92 <= suited["paired"] <= 0.98
    assert suited["independent"] <= 0.945             # a deal suiting a player: too narrow
    field = calibration.field_coverage(calibration.Field(seat_sd=1.5), 60, 150, seed=3, resamples=500)
    assert 0.91 <= field["bootstrap"] <= 0.98 and field["independent"] >= 0.965


def test_fast_sprt_error_rate_and_the_screen_changes_nothing():
    h0 = calibration.Match(seat_sd=1.5)
    screened = calibration.sprt_errors(h0, 0.0, 60.0, 200, seed=4)
    full = calibration.sprt_errors(h0, 0.0, 60.0, 200, seed=4, screen=False)
    assert screened == full
    assert screened["H1"] <= 0.10 and screened["undecided"] == 0.0


def test_fast_rerun_false_alarms():
    model = calibration.Match().with_score(0.6)
    rates = calibration.rerun_false_alarms(model, 100, 3000, seed=5)
    assert rates["test"] <= 0.02
    assert 0.12 <= rates["outside_interval"] <= 0.20
    rng = np.random.default_rng(6)
    old, new = (model.play(100, 1, rng)[0].mean(axis=1) for _ in range(2))
    assert paired.rerun_test(old, new).p_value == pytest.approx(
        stats.ttest_ind(new, old, equal_var=False).pvalue)


def test_frames_need_the_load_runs_columns():
    with pytest.raises(AnalysisError, match="no column"):
        paired.win_shares(pd.DataFrame({"spec": ["a"]}))
    with pytest.raises(AnalysisError, match="DataFrame"):
        paired.finishing_matrix([1, 2])
