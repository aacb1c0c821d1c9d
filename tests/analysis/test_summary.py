"""Compare's summary (glory_ai.analysis.stats.summarize) on small synthetic record sets with
known answers, the results table and the win-rate plot; and that it is made of the same
statistics as the report's tables."""
import math

import numpy as np
import pytest

from glory_ai.analysis import AnalysisError, stats
from glory_ai.analysis.figures import plot_summary
from glory_ai.analysis.load import frame_of_records
from glory_ai.analysis.stats import format_table, summarize, win_matrix_frame
from glory_ai.arena import RunConfig


@pytest.fixture
def rec(synth):
    """A game record: these seats, winners and scores (winners 10, others 5), 10 decisions
    and 0.01 s per seat."""
    def make(seats, winners, scores=None, deal=0, rotation=0, pairing=0):
        n = len(seats)
        scores = scores if scores is not None else [10 if s in winners else 5 for s in range(n)]
        record = synth(deal, seats, winners, scores=scores)
        record.update({"game_id": f"{deal}-{pairing}-{rotation}", "pairing": pairing,
                       "rotation": rotation, "seconds": [0.01] * n, "seat_decisions": [10] * n})
        return record
    return make


def _h2h(rec, a_wins, b_wins, draws=0):
    """Head-to-head records of A against B, two games (seats swapped) per deal."""
    outcomes = ["a"] * a_wins + ["b"] * b_wins + ["d"] * draws
    out = []
    for k, o in enumerate(outcomes):
        deal, rotation = divmod(k, 2)
        seats = ["A", "B"] if rotation == 0 else ["B", "A"]
        a_seat = seats.index("A")
        winners = [a_seat] if o == "a" else [1 - a_seat] if o == "b" else [0, 1]
        out.append(rec(seats, winners, deal=deal, rotation=rotation))
    return out


def test_a_75_25_head_to_head_is_a_190_8_elo_gap(rec):
    summary = summarize(_h2h(rec, 75, 25))
    assert summary.attrs["format"] == "head_to_head" and summary.attrs["rating"] == "elo"
    a, b = summary.loc["A"], summary.loc["B"]
    assert a["games"] == b["games"] == 100
    assert a["wins"] == 75 and a["win_rate"] == 0.75
    assert (a["win_low"], a["win_high"]) == pytest.approx(stats.wilson_interval(75, 100))
    assert round(a["rating"], 1) == 190.8 and b["rating"] == -a["rating"]
    elo, low, high = stats.elo_interval(75, 0, 25)
    assert (a["rating_low"], a["rating_high"]) == pytest.approx((low, high))
    assert (b["rating_low"], b["rating_high"]) == pytest.approx((-high, -low))
    assert a["mean_vp"] == pytest.approx(0.75 * 10 + 0.25 * 5)
    assert a["sec_per_decision"] == pytest.approx(0.001)
    assert list(summary.index) == ["A", "B"]


def test_shared_wins_are_split_and_count_as_draws(rec):
    summary = summarize(_h2h(rec, 10, 6, draws=4))
    assert summary.loc["A", "wins"] == 12 and summary.loc["B", "wins"] == 8
    elo, _, _ = stats.elo_interval(10, 4, 6)
    assert summary.loc["A", "rating"] == pytest.approx(elo)
    matrix = win_matrix_frame(summary)
    assert matrix.loc["A", "B"] == pytest.approx(0.6) and math.isnan(matrix.loc["A", "A"])


def test_round_robin_ratings_are_bradley_terry_with_a_seeded_bootstrap(rec):
    results = [("A", "B", 1)] * 7 + [("B", "A", 1)] * 3 + [("B", "C", 1)] * 6 + \
        [("C", "B", 1)] * 4 + [("A", "C", 1)] * 8 + [("C", "A", 1)] * 2
    records = [rec([x, y], [0], deal=k // 2, rotation=k % 2, pairing=0)
               for k, (x, y, _) in enumerate(results)]
    for k, r in enumerate(records):
        r["game_id"] = f"g{k}"
        r["deal"] = k
    summary = summarize(records)
    assert summary.attrs["format"] == "round_robin" and summary.attrs["rating"] == "bradley_terry"
    expected = stats.bradley_terry([(x, y, 1.0) for x, y, _ in results], names=["A", "B", "C"],
                                   bootstrap=200, seed=0)
    for rating in expected:
        row = summary.loc[rating.name]
        assert (row["rating"], row["rating_low"], row["rating_high"]) == pytest.approx(
            (rating.rating, rating.low, rating.high))
    assert summary.loc["A", "wins"] == 15 and summary.loc["A", "games"] == 20
    assert list(summary.index) == ["A", "B", "C"]
    again = summarize(records)
    assert again.equals(summary)


def test_fields_get_plackett_luce_ratings_and_a_win_matrix(rec):
    games = [(["A", "B", "C"], [0], [12, 8, 5]), (["B", "C", "A"], [2], [7, 3, 11]),
             (["C", "A", "B"], [0], [9, 6, 6]), (["A", "B", "C"], [0, 1], [10, 10, 2])]
    records = [rec(seats, winners, scores, deal=k) for k, (seats, winners, scores) in enumerate(games)]
    summary = summarize(records)
    assert summary.attrs["format"] == "field" and summary.attrs["rating"] == "plackett_luce"
    rankings = [[["A"], ["B"], ["C"]], [["A"], ["B"], ["C"]], [["C"], ["A", "B"]],
                [["A", "B"], ["C"]]]
    expected = stats.plackett_luce_ratings(rankings, ["A", "B", "C"])
    for rating in expected:
        assert summary.loc[rating.name, "rating"] == pytest.approx(rating.rating)
    assert summary.loc["A", "wins"] == 2.5 and summary.loc["C", "wins"] == 1
    names, mean, count = stats.pairwise_scores([{"A": 1, "B": 0, "C": 0}, {"A": 1, "B": 0, "C": 0},
                                           {"C": 1, "A": 0, "B": 0}, {"A": .5, "B": .5, "C": 0}])
    matrix = summary.attrs["win_matrix"]
    assert matrix["names"] == names and matrix["games"] == count.tolist()
    assert np.allclose(np.array(matrix["mean"], dtype=float), mean, equal_nan=True)


def test_a_repeated_spec_in_a_field_counts_each_seat(rec):
    records = [rec(["A", "B", "A"], [2], deal=0), rec(["B", "A", "A"], [0], deal=1)]
    summary = summarize(records)
    assert summary.loc["A", "games"] == 4 and summary.loc["A", "wins"] == 1
    assert summary.attrs["rating"] is None and math.isnan(summary.loc["A", "rating"])
    assert win_matrix_frame(summary).loc["A", "B"] == 0.5


def test_sprt_in_summarize_counts_whole_deals_only(rec):
    records = _h2h(rec, 30, 2)
    summary = summarize(records, sprt=(0, 50, 0.05, 0.05))
    sprt = summary.attrs["sprt"]
    assert sprt["decision"] == "H1" and sprt["games"] % 2 == 0
    # the same test fed game by game stops at or before the deal boundary
    stream = [1.0 if r["winners"] == [r["seats"].index("A")] else 0.0 for r in records]
    decision, used = stats.sprt_decide(stream, 0, 50, 0.05, 0.05)
    assert decision == "H1" and sprt["games"] == used + used % 2
    assert summary.attrs["games"] == sprt["games"] == summary.loc["A", "games"]
    undecided = summarize(_h2h(rec, 2, 2), sprt=(0, 50, 0.05, 0.05))
    assert undecided.attrs["sprt"]["decision"] is None and undecided.attrs["games"] == 4
    assert "undecided" in format_table(undecided)
    with pytest.raises(AnalysisError, match="head-to-head"):
        summarize(records + [rec(["A", "C"], [0], deal=99)], sprt=(0, 50, 0.05, 0.05))


def test_summarize_with_a_config_uses_its_order_and_description(rec):
    config = RunConfig(specs=("greedy", "random"), deals=1, seed=4)
    records = [rec(["greedy", "random"], [1], deal=0), rec(["random", "greedy"], [1], deal=0, rotation=1)]
    summary = summarize(records, config)
    assert summary.attrs["description"] == config.describe()
    assert summary.loc["greedy", "win_rate"] == 0.5
    with pytest.raises(AnalysisError, match="no games"):
        summarize([])


def test_the_table_and_the_plot(rec, tmp_path):
    summary = summarize(_h2h(rec, 75, 25))
    table = format_table(summary)
    lines = table.splitlines()
    assert lines[0].split()[:4] == ["spec", "games", "win", "rate"]
    assert "75.0%" in lines[2] and "+190.8" in lines[2]
    png1 = plot_summary(summary, tmp_path / "a.png")
    png2 = plot_summary(summarize(_h2h(rec, 75, 25)), tmp_path / "b.png")
    data = png1.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000
    assert data == png2.read_bytes()
    assert b"Software" not in data
    svg1 = plot_summary(summary, tmp_path / "a.svg")
    svg2 = plot_summary(summary, tmp_path / "b.svg")
    text = svg1.read_text()
    assert text.lstrip().startswith("<?xml") and "<svg" in text and "<dc:date>" not in text
    assert svg1.read_bytes() == svg2.read_bytes()


@pytest.mark.parametrize("which", [0, 1], ids=["round_robin", "field"])
def test_the_summary_and_the_report_compute_alike(real_runs, which):
    # compare's table comes from the report's tables: the same win rates, intervals, mean VP,
    # ratings and pairwise scores
    from glory_ai.analysis.load import load_runs
    from glory_ai.analysis.stats import ratings, win_matrix, win_rates
    from glory_ai.arena import load_run

    config, records = load_run(real_runs[which])
    summary = summarize(records, config)
    frame = load_runs(real_runs[which])
    rates = win_rates(frame)
    rates.index = rates.index.astype(str)
    for column, theirs in [("games", "games"), ("wins", "wins"), ("win_rate", "win_rate"),
                           ("win_low", "win_low"), ("win_high", "win_high"), ("mean_vp", "mean_score")]:
        assert summary[column].to_dict() == pytest.approx(rates[theirs].to_dict()), column
    rated = ratings(frame, config.players, names=list(config.specs))
    assert summary.attrs["rating"] == rated.attrs["method"] == (
        "bradley_terry" if config.players == 2 else "plackett_luce")
    for spec, row in rated.iterrows():
        assert (summary.loc[spec, "rating"], summary.loc[spec, "rating_low"],
                summary.loc[spec, "rating_high"]) == (row["rating"], row["low"], row["high"])
    matrix = win_matrix(frame, config.players)
    assert win_matrix_frame(summary).equals(
        matrix.rename_axis(index=None, columns=None).set_axis(list(matrix.index), axis=0))


def test_records_that_are_not_game_records_are_named(rec):
    good = rec(["A", "B"], [0])
    bad = dict(good, scores=[1])
    with pytest.raises(AnalysisError, match=r"record 2 \(game 0-0-0\): scores must list one entry per seat"):
        frame_of_records([good, bad])
    with pytest.raises(AnalysisError, match="no games"):
        frame_of_records([])


def test_the_sprt_stops_a_lopsided_run_on_a_whole_deal(tmp_path):
    # DealSPRT is the stopping rule of the arena's run: the same decision and games whatever
    # the scheduling, and summarize() counts the games up to the deciding deal
    from glory_ai.analysis.stats import DealSPRT
    from glory_ai.arena import run

    config = RunConfig(specs=("greedy", "random"), deals=200, seed=3, sprt=(0, 50, 0.05, 0.05))
    one = run(config, tmp_path / "one", n_jobs=1, batch_size=2, stop=DealSPRT.for_config(config))
    two = run(config, tmp_path / "two", n_jobs=2, batch_size=3, stop=DealSPRT.for_config(config))
    for result in (one, two):
        assert result.stop["decision"] == "H1" and result.stopped and result.complete
    assert one.stop == two.stop
    used = one.stop["games"]
    assert used % config.games_per_deal == 0 and used == 2 * one.stop["deals"]
    assert used < 100 and len(one.records) < config.total_games
    summary = summarize(two.records, config)
    assert summary.attrs["sprt"]["decision"] == "H1"
    assert summary.attrs["games"] == used == summary["games"].sum() / 2
    assert summary.loc["greedy", "win_rate"] > 0.8
    # resuming a decided run plays nothing
    again = run(config, tmp_path / "one", stop=DealSPRT.for_config(config))
    assert again.played == 0 and again.stop == one.stop
    with pytest.raises(ValueError, match="no SPRT"):
        DealSPRT.for_config(RunConfig(specs=("greedy", "random")))
