"""Compare's summary (glory_ai.analysis.stats.summarize) on small synthetic record sets with
known answers, the results table and the win-rate plot; and that it is made of the same
statistics as the report's tables."""
import math

import numpy as np
import pytest
from statsmodels.stats.proportion import proportion_confint

from glory_ai.analysis import AnalysisError
from glory_ai.analysis.figures import plot_summary
from glory_ai.analysis.load import frame_of_records
from glory_ai.analysis.stats import finishing_frame, format_table, paired, summarize
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


def _pentanomial(records, a="A"):
    """A's pentanomial counts from head-to-head records, by hand."""
    per_deal = {}
    for r in records:
        share = 0.5 if len(r["winners"]) == 2 else float(r["seats"][r["winners"][0]] == a)
        per_deal.setdefault(r["deal"], []).append(share)
    return [sum(1 for v in per_deal.values() if len(v) == 2 and round(2 * sum(v)) == c)
            for c in range(5)]


def test_a_75_25_head_to_head_is_a_190_8_elo_gap_with_the_pentanomial_interval(rec):
    records = _h2h(rec, 75, 25)
    summary = summarize(records)
    assert summary.attrs["format"] == "head_to_head" and summary.attrs["rating"] == "elo"
    a, b = summary.loc["A"], summary.loc["B"]
    assert a["games"] == b["games"] == 100
    assert a["wins"] == 75 and a["win_rate"] == 0.75
    counts = _pentanomial(records)
    assert counts == [12, 0, 1, 0, 37]
    pair = paired.paired_estimate(counts)
    # the win-rate interval and the Elo interval are the same pentanomial interval
    assert (a["win_low"], a["win_high"]) == pytest.approx((pair.low, pair.high))
    assert (b["win_low"], b["win_high"]) == pytest.approx((1 - pair.high, 1 - pair.low))
    assert round(a["rating"], 1) == 190.8 and b["rating"] == -a["rating"]
    assert (a["rating_low"], a["rating_high"]) == pytest.approx((pair.elo_low, pair.elo_high))
    assert (b["rating_low"], b["rating_high"]) == pytest.approx((-pair.elo_high, -pair.elo_low))
    # the games taken as independent: the Wilson interval, beside it
    assert (a["wilson_low"], a["wilson_high"]) == pytest.approx(
        proportion_confint(75, 100, method="wilson"))
    assert a["mean_vp"] == pytest.approx(0.75 * 10 + 0.25 * 5)
    assert a["sec_per_decision"] == pytest.approx(0.001)
    assert list(summary.index) == ["A", "B"]
    assert summary.attrs["head_to_head"]["counts"] == counts


def test_shared_wins_are_split_and_count_as_draws(rec):
    records = _h2h(rec, 10, 6, draws=4)
    summary = summarize(records)
    assert summary.loc["A", "wins"] == 12 and summary.loc["B", "wins"] == 8
    assert summary.loc["A", "rating"] == pytest.approx(paired.paired_estimate(_pentanomial(records)).elo)
    matrix = finishing_frame(summary)
    assert matrix.loc["A", "B"] == pytest.approx(0.6) and math.isnan(matrix.loc["A", "A"])


def test_a_20_0_head_to_head_prints_a_bound_not_infinities(rec):
    summary = summarize(_h2h(rec, 20, 0))
    a = summary.loc["A"]
    # 10 pairs, all WW: the exact bound, at least 0.025 ** (1 / 10) = 0.692
    assert a["win_rate"] == 1.0 and a["win_low"] == pytest.approx(0.025 ** 0.1)
    assert a["win_high"] == 1.0
    table = format_table(summary)
    assert "inf" not in table
    row_a = next(line for line in table.splitlines() if line.startswith("A "))
    row_b = next(line for line in table.splitlines() if line.startswith("B "))
    assert "> +140.2" in row_a and "< -140.2" in row_b
    assert "100.0%  [69.2, 100.0]" in row_a


def test_round_robin_ratings_are_the_one_finite_model(rec):
    results = [("A", "B", 1)] * 7 + [("B", "A", 1)] * 3 + [("B", "C", 1)] * 6 + \
        [("C", "B", 1)] * 4 + [("A", "C", 1)] * 8 + [("C", "A", 1)] * 2
    records = [rec([x, y], [0], deal=k // 2, rotation=k % 2, pairing=0)
               for k, (x, y, _) in enumerate(results)]
    for k, r in enumerate(records):
        r["game_id"] = f"g{k}"
        r["deal"] = k
    summary = summarize(records)
    assert summary.attrs["format"] == "round_robin" and summary.attrs["rating"] == "bradley_terry"
    expected = paired.ratings(frame_of_records(records))
    for spec, row in expected.iterrows():
        assert (summary.loc[spec, "rating"], summary.loc[spec, "rating_low"],
                summary.loc[spec, "rating_high"]) == pytest.approx((row["rating"], row["low"], row["high"]))
    shares = paired.win_shares(frame_of_records(records))
    assert (summary.loc["A", "win_low"], summary.loc["A", "win_high"]) == pytest.approx(
        (shares.loc["A", "low"], shares.loc["A", "high"]))
    assert summary.loc["A", "wins"] == 15 and summary.loc["A", "games"] == 20
    assert list(summary.index) == ["A", "B", "C"]
    again = summarize(records)
    assert again.equals(summary)
    lines = format_table(summary).splitlines()
    assert any(line.startswith("win rate interval: deal bootstrap: 2000 resamples") for line in lines)
    assert any(line.startswith("BT Elo interval: Bradley-Terry on pairwise finishing order")
               for line in lines)


def test_a_round_robin_with_a_perfect_record_keeps_finite_ratings(rec):
    records = []
    for deal in range(10):
        for pairing, (x, y) in enumerate([("A", "B"), ("A", "C"), ("B", "C")]):
            for rotation in range(2):
                seats = [x, y] if rotation == 0 else [y, x]
                winner = seats.index(x if x == "A" else [x, y][deal % 2])
                records.append(rec(seats, [winner], deal=deal, rotation=rotation, pairing=pairing))
    summary = summarize(records)
    assert summary.loc["A", "win_rate"] == 1.0
    assert np.isfinite(summary[["rating", "rating_low", "rating_high"]].to_numpy()).all()
    assert summary.loc["A", "rating_low"] > 0
    assert "inf" not in format_table(summary)


def test_fields_get_the_same_ratings_and_a_finishing_matrix(rec):
    games = [(["A", "B", "C"], [0], [12, 8, 5]), (["B", "C", "A"], [2], [7, 3, 11]),
             (["C", "A", "B"], [0], [9, 6, 6]), (["A", "B", "C"], [0, 1], [10, 10, 2])]
    records = [rec(seats, winners, scores, deal=k) for k, (seats, winners, scores) in enumerate(games)]
    summary = summarize(records)
    assert summary.attrs["format"] == "field" and summary.attrs["rating"] == "bradley_terry"
    frame = frame_of_records(records)
    expected = paired.ratings(frame)
    for spec, row in expected.iterrows():
        assert summary.loc[spec, "rating"] == pytest.approx(row["rating"])
    assert summary.loc["A", "wins"] == 2.5 and summary.loc["C", "wins"] == 1
    matrix = summary.attrs["finishing"]
    expected_matrix = paired.finishing_matrix(frame)
    assert matrix["names"] == list(expected_matrix.index)
    assert np.allclose(np.array(matrix["mean"], dtype=float), expected_matrix.to_numpy(),
                       equal_nan=True)
    assert matrix["caption"] == paired.FINISHING_CAPTION
    # B and A tie on 6 VP behind the winner C in game 3: an equal place, not two "losers"
    assert finishing_frame(summary).loc["A", "B"] == pytest.approx((1 + 1 + 0.5 + 0.5) / 4)


def test_a_repeated_spec_in_a_field_counts_each_seat(rec):
    records = [rec(["A", "B", "A"], [2], deal=0), rec(["B", "A", "A"], [0], deal=1)]
    summary = summarize(records)
    assert summary.loc["A", "games"] == 4 and summary.loc["A", "wins"] == 1
    assert summary.attrs["rating"] == "bradley_terry"
    # B against each A seat: level on VP with the A that lost, behind the A that won (game 1);
    # ahead of both (game 2)
    assert finishing_frame(summary).loc["B", "A"] == pytest.approx(2.5 / 4)


def test_self_play_has_no_rating_and_no_matrix(rec):
    summary = summarize([rec(["A", "A"], [d % 2], deal=d) for d in range(6)])
    assert summary.attrs["rating"] is None and math.isnan(summary.loc["A", "rating"])
    assert summary.attrs["finishing"] is None and finishing_frame(summary).empty


def test_sprt_in_summarize_is_the_pentanomial_test_over_whole_deals(rec):
    records = _h2h(rec, 40, 2)
    summary = summarize(records, sprt=(0, 50, 0.05, 0.05))
    sprt = summary.attrs["sprt"]
    assert sprt["decision"] == "H1" and sprt["games"] % 2 == 0
    assert sprt["model"] == "pentanomial GSPRT, normalized Elo"
    # the same test run over the deals' pair cells in deal order stops at the same deal
    # (no shared wins here: a deal's cell is twice A's wins in it)
    cells = [int(sum(float(r["seats"][r["winners"][0]] == "A") for r in records if r["deal"] == d) * 2)
             for d in sorted({r["deal"] for r in records})]
    expected = paired.sequential_sprt(cells, 0, 50, 0.05, 0.05)
    assert expected.decision == "H1" and sprt["deals"] == expected.samples
    assert sprt["llr"] == pytest.approx(expected.llr)
    assert summary.attrs["games"] == sprt["games"] == summary.loc["A", "games"] == 2 * sprt["deals"]
    assert "normalized Elo" in format_table(summary)
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


def test_the_plot_names_its_dashed_line_and_marks_a_rate_of_zero(rec, tmp_path, monkeypatch):
    import glory_ai.analysis.figures as figures

    drawn = []
    monkeypatch.setattr(figures, "save", lambda fig, path: drawn.append(fig) or path)
    summary = summarize(_h2h(rec, 40, 0))        # one spec never wins
    plot_summary(summary, tmp_path / "a.png")
    ax = drawn[0].axes[0]
    assert "dashed: equal share (50%)" in ax.get_xlabel()
    # every rate has its mark, the one at 0 included
    marks = [line for line in ax.lines if line.get_gid() == "rates"]
    assert marks and sorted(marks[0].get_xdata()) == [0.0, 1.0]


@pytest.mark.parametrize("which", [0, 1], ids=["round_robin", "field"])
def test_the_summary_and_the_report_compute_alike(real_runs, which):
    # compare's table comes from the report's tables: the same win rates, intervals, mean VP,
    # ratings and finishing-ahead matrix
    from glory_ai.analysis.load import load_runs
    from glory_ai.analysis.report import build_report, spec_labels
    from glory_ai.arena import load_run

    config, records = load_run(real_runs[which])
    summary = summarize(records, config)
    # the report shows specs by their labels (heuristic:style=builder is heuristic)
    labels = spec_labels(summary.index.astype(str))
    finishing = finishing_frame(summary).rename(index=labels, columns=labels)
    summary.index = summary.index.map(labels)
    report = build_report(load_runs(real_runs[which]), figures=False)
    k = config.players
    rates = report.tables["win_rates"].xs(k, level="num_players")
    rates.index = rates.index.astype(str)
    for column, theirs in [("games", "games"), ("wins", "wins"), ("win_rate", "win_rate"),
                           ("win_low", "win_low"), ("win_high", "win_high"),
                           ("wilson_low", "wilson_low"), ("wilson_high", "wilson_high"),
                           ("mean_vp", "mean_score")]:
        assert summary[column].to_dict() == pytest.approx(rates[theirs].to_dict()), column
    rated = report.tables[f"ratings_{k}"]
    assert summary.attrs["rating"] == "bradley_terry"
    for spec, row in rated.iterrows():
        assert (summary.loc[spec, "rating"], summary.loc[spec, "rating_low"],
                summary.loc[spec, "rating_high"]) == (row["rating"], row["low"], row["high"])
    matrix = report.tables[f"matrix_{k}"]
    assert finishing.equals(
        matrix.rename_axis(index=None, columns=None).set_axis(list(matrix.index), axis=0))


def test_a_head_to_head_run_shows_the_same_figures_in_compare_and_the_report(rec, run_folder):
    from glory_ai.analysis.load import load_runs
    from glory_ai.analysis.report import build_report

    records = _h2h(rec, 27, 13, draws=4)
    summary = summarize(records)
    report = build_report(load_runs(run_folder(records)), figures=False)
    row = report.tables["pairwise_2"].iloc[0]
    head = summary.attrs["head_to_head"]
    assert (row["spec"], row["opponent"]) == ("A", "B") == (head["a"], head["b"])
    for key in ("score", "low", "high", "elo", "elo_low", "elo_high", "nelo", "p_value"):
        assert row[key] == pytest.approx(head[key]), key
    a = summary.loc["A"]
    assert (a["rating"], a["rating_low"], a["rating_high"]) == pytest.approx(
        (row["elo"], row["elo_low"], row["elo_high"]))
    rates = report.tables["win_rates"].xs(2, level="num_players")
    assert (rates.loc["A", "win_low"], rates.loc["A", "win_high"]) == pytest.approx(
        (a["win_low"], a["win_high"]))
    assert (a["win_low"], a["win_high"]) == pytest.approx((row["low"], row["high"]))
    assert rates.loc["A", "interval"] == row["interval"] == "pentanomial"


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
