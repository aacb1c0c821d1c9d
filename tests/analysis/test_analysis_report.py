"""The report from real and synthetic runs, its summary sentences, and `glory-ai report`."""
from __future__ import annotations

import csv
import math
import re
import subprocess
import sys

import pytest

from glory_ai.analysis import AnalysisError
from glory_ai.analysis.commands import main_report
from glory_ai.analysis.load import load_runs
from glory_ai.analysis.report import Grid, findings, spec_labels, write_report, write_report_full

SECTIONS = ["summary", "win-rates", "ratings", "seats", "buildings", "scoring", "endings", "manifest"]


def test_report_from_real_runs(real_runs, tmp_path):
    two, three = real_runs
    html_path, csv_path = write_report([two, three], tmp_path / "out")
    assert html_path == tmp_path / "out" / "report.html" and csv_path.name == "summary.csv"
    page = html_path.read_text()
    for anchor in SECTIONS:
        assert f'id="{anchor}"' in page
    for title in ("Win rates", "Seat advantage", "Building strength", "How players score",
                  "Endings and game length", "Runs", "Ratings and head-to-head results"):
        assert title in page
    # self-contained: figures inline, no external resources
    assert page.count('src="data:image/png;base64,') >= 9
    assert not re.search(r'<(script|link)\b|src="http|href="http', page)
    # the manifest: each run's config.json and the versions
    assert page.count("config.json of ") == 2 and "glory_ai 0.1.0" in page
    assert "&quot;format&quot;: &quot;round_robin&quot;" in page
    # summary sentences from the numbers
    assert "has the highest win rate in 2-player games" in page
    assert "P1 wins" in page and "of 2-player games" in page
    assert "is the strongest building" in page
    rows = list(csv.DictReader(csv_path.open()))
    assert {r["num_players"] for r in rows} == {"2", "3"}
    assert {r["spec"] for r in rows} == {"random", "greedy", "heuristic"}  # style=builder: the default
    assert {"win_rate", "win_low", "win_high", "interval", "wilson_low", "wilson_high", "rating",
            "rating_interval"} <= set(rows[0])
    # a round robin and a field: deal-bootstrap intervals and finite ratings; in the field the
    # builder won one of the three rotations of each of the 4 deals, a rate no resampling of
    # deals varies: the Wilson interval, not the point
    fixed = [r for r in rows if r["interval"] != "deal bootstrap"]
    assert [(r["num_players"], r["spec"], r["interval"]) for r in fixed] == \
        [("3", "heuristic", "Wilson (games as independent)")]
    assert float(fixed[0]["win_low"]) < 0.25 and float(fixed[0]["win_high"]) > 0.5
    assert all(math.isfinite(float(r["rating"])) for r in rows)
    figures = sorted(p.name for p in (tmp_path / "out" / "figures").iterdir())
    assert "buildings.svg" in figures and "seat.png" in figures and "win_rates.png" in figures


def test_default_out_and_same_bytes(synth, run_folder, tmp_path):
    folder = run_folder([synth(i, ["a", "b"] if i % 2 else ["b", "a"], [i % 2],
                               completed=[["Bar"], []] if i % 3 else [[], ["Road"]])
                         for i in range(20)])
    html_path, csv_path = write_report(folder, figure_files=False)
    assert html_path.parent == folder and csv_path.parent == folder
    assert not (folder / "figures").exists()
    # the same runs give the same page, byte for byte
    again, _ = write_report(folder, tmp_path / "again", figure_files=False)
    assert again.read_bytes() == html_path.read_bytes()


def _seat_records(synth, n, winner):
    return [synth(i, ["a", "b"] if i % 2 else ["b", "a"], [winner(i)]) for i in range(n)]


def test_findings_say_what_is_significant(synth, run_folder):
    strong = findings(load_runs(run_folder(_seat_records(synth, 1000, lambda i: int(i % 10 >= 6)),
                                           "strong")))
    seat = [s for s in strong if s.startswith("P1 wins")][0]
    assert seat.startswith("P1 wins 60.0% ± 3.1% of 2-player games")
    assert "a significant seat advantage, for P1" in seat
    assert "t-test of P1's per-deal share, p < 0.001, a single test, unadjusted" in seat
    # P1 wins half the games, and so does each strategy
    equal = findings(load_runs(run_folder(_seat_records(synth, 1000, lambda i: int(i % 4 >= 2)),
                                          "equal")))
    seat = [s for s in equal if s.startswith("P1 wins")][0]
    assert "no significant seat advantage" in seat and "p = 1.0" in seat
    # two strategies that win equally: the edge is not significant
    spec = [s for s in equal if "has the highest win rate" in s][0]
    assert "not a significant difference" in spec


def test_variants_in_the_report(synth, run_folder, tmp_path):
    def games(a_wins, **options):
        out = []
        for i in range(100):
            seats = ["a", "b"] if i % 2 else ["b", "a"]
            winner = seats.index("a") if a_wins(i) else seats.index("b")
            out.append(synth(i, seats, [winner], **options))
        return out
    rep = games(lambda i: i % 4 < 2)                                    # a wins 50%
    imp = games(lambda i: i % 4 < 3, mode="imperium", end_reason="sites")   # a wins 75%
    html_path, _ = write_report([run_folder(rep, "rep"), run_folder(imp, "imp")], tmp_path / "v",
                                figure_files=False)
    page = html_path.read_text()
    assert 'id="variants"' in page and "Rule variants side by side" in page
    assert "a wins 75.0% under imperium refill_size=5 and 50.0% under republic" in page
    assert "The way games end differs significantly between the rule variants" in page
    # and how: each variant's usual ending and length (synthetic games: 50 turns, 150 decisions)
    assert ("Under imperium refill_size=5 games end mostly when the sites run out (100.0%) and "
            "last 50 turns (150 decisions); under republic") in page


def test_report_errors(tmp_path, synth, run_folder):
    with pytest.raises(AnalysisError, match="no such run folder"):
        write_report(tmp_path / "missing")
    folder = run_folder([synth(0, ["a", "b"], [0])])
    (tmp_path / "file").write_text("x")
    with pytest.raises(AnalysisError, match="exists and is not a folder"):
        write_report(folder, tmp_path / "file")


def test_command_line(real_runs, tmp_path, capsys):
    two, _ = real_runs
    assert main_report(["report", str(two), "--out", str(tmp_path / "cli"), "--no-figure-files"]) == 0
    out = capsys.readouterr().out
    assert f"report: {tmp_path / 'cli' / 'report.html'}" in out
    assert f"summary: {tmp_path / 'cli' / 'summary.csv'}" in out
    assert "- " in out and "highest win rate" in out
    assert (tmp_path / "cli" / "report.html").exists()

    assert main_report([str(tmp_path / "missing")]) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"glory-ai: error: {tmp_path / 'missing'}: no such run folder or file"
    assert len(err.strip().splitlines()) == 1

    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "games.jsonl").write_text("{}\n")
    assert main_report([str(bad)]) == 2
    assert "line 1 is not a game record: no game_id" in capsys.readouterr().err


def test_module_entry_point(tmp_path):
    result = subprocess.run([sys.executable, "-m", "glory_ai.analysis.commands", "report",
                             str(tmp_path / "nowhere")], capture_output=True, text=True)
    assert result.returncode == 2
    assert result.stderr.strip().endswith("nowhere: no such run folder or file")
    assert "Traceback" not in result.stderr
    helped = subprocess.run([sys.executable, "-m", "glory_ai.analysis.commands", "report", "--help"],
                            capture_output=True, text=True)
    assert helped.returncode == 0 and "RUN_DIR" in helped.stdout and "examples:" in helped.stdout


def test_self_play_findings_do_not_compare_strategies(synth, run_folder):
    # two self-play runs (each table seats one spec): the 50% win rates are equal shares by
    # construction, so the summary says so instead of ranking the specs
    greedy = [synth(i, ["greedy", "greedy"], [i % 2]) for i in range(40)]
    search = [synth(i, ["ismcts:iters=10", "ismcts:iters=10"], [int(i % 3 == 0)]) for i in range(40)]
    text = findings(load_runs([run_folder(greedy), run_folder(search)]))
    assert text[0].startswith("Every game is self-play")
    assert not any("highest win rate" in line or "weakest:" in line for line in text)
    assert any(line.startswith("P1 wins") for line in text)
    # a table with two specs brings the comparison back
    mixed = [synth(i, ["greedy", "random"], [0]) for i in range(40)]
    text = findings(load_runs([run_folder(greedy), run_folder(mixed)]))
    assert any("greedy has the highest win rate" in line for line in text)
    assert not any("self-play" in line for line in text)


def test_buildings_outside_the_deck_are_not_called_never_completed(synth, run_folder):
    # Republic games: the four Imperium-only buildings cannot be completed; the others that
    # nobody completed are named as such
    recs = [synth(i, ["greedy", "random"], [0], completed=[["Bar", "Road"], []]) for i in range(30)]
    text = findings(load_runs(run_folder(recs)))
    never = [line for line in text if "never completed" in line][0]
    assert never.startswith("38 of the 40 buildings in the deck were never completed")
    assert "Circus" not in never and "Senate" not in never
    absent = [line for line in text if "not in the deck" in line][0]
    assert absent.startswith("Circus, Colosseum, Forum, Senate were not in the deck")
    # one building never completed: "was"
    from glory_ai.cards import CARD_NAMES

    every_other = [name for name in CARD_NAMES if name not in
                   ("Jack", "Circus", "Colosseum", "Forum", "Senate", "Bar")]
    assert len(every_other) == 39
    recs = [synth(i, ["greedy", "random"], [0], completed=[every_other, []]) for i in range(30)]
    text = findings(load_runs(run_folder(recs, "all-but-bar")))
    never = [line for line in text if "never completed" in line][0]
    assert never.startswith("1 of the 40 buildings in the deck was never completed (Bar)"), never


# a hand-made 3-player run: in game 1 builder wins and greedy (25 VP) finishes ahead of random
# (18 VP), two players who both lost; in game 4 the two losers have the same VP
THREE_PLAYER = [      # deal, rotation, seats, winners, VP
    (0, 0, ["greedy", "random", "builder"], [2], [25, 18, 30]),
    (0, 1, ["builder", "greedy", "random"], [1], [20, 31, 12]),
    (0, 2, ["random", "builder", "greedy"], [1, 2], [15, 28, 28]),
    (1, 0, ["greedy", "random", "builder"], [2], [22, 22, 27]),
    (1, 1, ["builder", "greedy", "random"], [0], [30, 20, 25]),
    (1, 2, ["random", "builder", "greedy"], [1], [10, 33, 21]),
]


def _three_player_run(synth, run_folder):
    records = []
    for deal, rotation, seats, winners, scores in THREE_PLAYER:
        rec = synth(deal, seats, winners, scores=scores)
        rec.update({"rotation": rotation, "game_id": f"{deal}-0-{rotation}"})
        records.append(rec)
    return run_folder(records, "three")


def test_the_heatmap_is_finishing_order_as_its_caption_says(synth, run_folder, tmp_path):
    from glory_ai.analysis.report import write_report_full
    from glory_ai.analysis.stats import paired

    html_path, _, report = write_report_full(_three_player_run(synth, run_folder), tmp_path / "r",
                                             figure_files=False)
    matrix = report.tables["matrix_3"]
    # greedy against random, game by game: ahead (25 > 18), ahead (31 > 12), ahead (a winner),
    # level (22 = 22), behind (20 < 25), ahead (21 > 10) -> (4 + 0.5) / 6
    assert matrix.loc["greedy", "random"] == pytest.approx(4.5 / 6)
    assert matrix.loc["random", "greedy"] == pytest.approx(1.5 / 6)
    # what the win shares would say: two losers tie, so 0.5 in four of the six games
    assert matrix.loc["greedy", "random"] != pytest.approx((0.5 + 1 + 1 + 0.5 + 0 + 0.5) / 6)
    frame = load_runs(_three_player_run(synth, run_folder))
    assert matrix.equals(paired.finishing_matrix(frame).rename_axis(index="spec"))
    assert "matrix_3" in report.figures
    page = html_path.read_text()
    assert paired.FINISHING_CAPTION in page and "row&#x27;s pairwise score" not in page
    # the head-to-head rows: per-deal finishing order, deals as the unit, Holm over the pairs
    pairs = report.tables["pairwise_3"]
    row = pairs[(pairs["spec"] == "greedy") & (pairs["opponent"] == "random")].iloc[0]
    assert row["score"] == pytest.approx(4.5 / 6) and row["deals"] == 2
    assert row["interval"] == paired.INTERVAL_DEAL_T
    assert f"p (Holm-adjusted over {len(pairs)} pairs)" in page


def test_a_self_play_report_leaves_out_what_is_equal_by_construction(synth, run_folder, tmp_path):
    from glory_ai.analysis.report import write_report_full

    greedy = [synth(i, ["greedy", "greedy"], [i % 2]) for i in range(40)]
    search = [synth(i, ["ismcts:iters=10"] * 3, [i % 3]) for i in range(30)]
    html_path, csv_path, report = write_report_full([run_folder(greedy), run_folder(search)],
                                                    tmp_path / "r", figure_files=False)
    page = html_path.read_text()
    assert report.compared == []
    for gone in ('id="win-rates"', 'id="ratings"', 'href="#win-rates"', "Finishing ahead",
                 "Head to head"):
        assert gone not in page, gone
    assert not any(name.startswith(("win_rates", "matrix_", "ratings_")) for name in report.figures)
    assert 'id="seats"' in page and "seat" in report.figures
    # summary.csv still lists the specs' win rates, without ratings
    rows = list(csv.DictReader(csv_path.open()))
    assert {r["spec"] for r in rows} == {"greedy", "ismcts:iters=10"}
    assert all(r["rating"] == "" for r in rows)


def test_every_p_value_says_whether_it_is_adjusted(real_runs, tmp_path):
    html_path, _ = write_report(real_runs, tmp_path / "out", figure_files=False)
    page = html_path.read_text()
    assert "p (Holm-adjusted over 3 pairs)" in page                    # each player count: 3 pairs
    assert "p (Holm-adjusted over 2 player counts)" in page           # the seat tests
    assert re.search(r"p \(Holm-adjusted over \d+ buildings\)", page)
    assert "p (unadjusted)" in page                                   # the full building table
    sentences = findings(load_runs(real_runs))
    edge = [s for s in sentences if "has the highest win rate in 2-player games" in s][0]
    assert "unadjusted" in edge and "Holm-adjusted over 3 pairs" in edge
    seat = [s for s in sentences if s.startswith("P1 wins")][0]
    assert "Holm-adjusted over 2 player counts" in seat


def test_figures_an_earlier_report_drew_are_removed_with_their_section(synth, run_folder, tmp_path):
    out = tmp_path / "out"
    mixed = run_folder([synth(i, ["greedy", "random"] if i % 2 else ["random", "greedy"], [0])
                        for i in range(20)], "mixed")
    write_report(mixed, out)
    assert (out / "figures" / "win_rates.png").exists() and (out / "figures" / "matrix_2.svg").exists()
    (out / "figures" / "grid-scaling.png").write_bytes(b"a grid curve of an earlier report")
    (out / "figures" / "sketch.png").write_bytes(b"not the report's")
    write_report(run_folder([synth(i, ["greedy", "greedy"], [i % 2]) for i in range(20)], "self"), out)
    left = sorted(p.name for p in (out / "figures").iterdir())
    assert "win_rates.png" not in left and "matrix_2.svg" not in left and "ratings_2.png" not in left
    assert "grid-scaling.png" not in left
    assert "sketch.png" in left and "seat.png" in left


def _grid_runs(synth, run_folder, values=(4, 16, 64), deals=30):
    """A grid: flatmc at each number of iterations against flatmc at 8 iterations with its
    default exploration written out, each run on the same deals; the more iterations, the
    more it wins."""
    from glory_ai.bots import registry

    reference = f"flatmc:iters=8,c={registry()['flatmc'].defaults()['c']}"
    folders, points = [], []
    for k, value in enumerate(values):
        spec = f"flatmc:iters={value}"
        records = []
        for i in range(deals):
            seats = [spec, reference] if i % 2 else [reference, spec]
            wins = (i * 7 + k * 11) % 10 < 3 + 2 * k          # 30%, 50%, 70% of the deals
            records.append(synth(i, seats, [seats.index(spec if wins else reference)]))
        name = f"scale-iters{value}"
        folders.append(run_folder(records, name))
        points.append((float(value), name, spec))
    return folders, Grid("scale", "iters", "flatmc:iters={iters}", (reference,), tuple(points))


def test_a_report_answers_its_question_first_with_the_grid_curve(synth, run_folder, tmp_path):
    folders, grid = _grid_runs(synth, run_folder)
    html_path, csv_path, report = write_report_full(
        folders, tmp_path / "out", title="scaling", question="Does flatmc get stronger with iterations?",
        description="flatmc at 4, 16 and 64 iterations against flatmc at 8.", grids=[grid])
    page = html_path.read_text()
    # the question, then the answer with the curve and its table, then the rest
    assert page.index("<h1>Does flatmc get stronger with iterations?</h1>") < page.index('id="answer"') \
        < page.index('id="fig-grid-scale"') < page.index('id="summary"') < page.index('id="win-rates"')
    assert (tmp_path / "out" / "figures" / "grid-scale.png").exists()
    assert report.answer == report.sentences[:len(report.answer)] and len(report.answer) >= 2
    curve = report.answer[0]
    assert curve.startswith("Against flatmc:iters=8, flatmc's score rises as its iters grows: 30.0%")
    assert "30 games over 30 deals each" in curve
    step = [s for s in report.answer if s.startswith("The last step, from 16 to 64 iters")]
    assert step and "never played each other" in step[0] and "30 deals" in step[0]
    # specs by their labels: no parameter at its default, no raw template anywhere
    assert ",c=" not in " ".join(report.sentences) and "{iters}" not in page
    assert {row["spec"] for row in csv.DictReader(csv_path.open())} == {
        "flatmc:iters=4", "flatmc:iters=16", "flatmc:iters=64", "flatmc:iters=8"}
    # runs that never met are not ranked against each other in the summary
    assert not any("has the highest win rate" in s or "did not play each other" in s
                   for s in report.sentences)


def test_spec_labels_leave_out_defaults_and_keep_what_sets_specs_apart():
    from glory_ai.bots import registry

    c = f"c={registry()['ismcts'].defaults()['c']}"          # ismcts's default exploration
    labels = spec_labels([f"ismcts:iters=2000,{c}", "ismcts:iters=500", "heuristic:style=builder",
                          "greedy", "./my_bot.py:Cautious", f"ismcts:iters=2000,{c},reuse=false"])
    assert labels["ismcts:iters=500"] == "ismcts:iters=500"
    # iters=2000 is ismcts's default but another spec sets iters: it stays
    assert labels["heuristic:style=builder"] == "heuristic"
    assert labels["greedy"] == "greedy" and labels["./my_bot.py:Cautious"] == "./my_bot.py:Cautious"
    # two specs that would get one label keep their text
    assert labels[f"ismcts:iters=2000,{c}"] == f"ismcts:iters=2000,{c}"
    assert labels[f"ismcts:iters=2000,{c},reuse=false"] == f"ismcts:iters=2000,{c},reuse=false"
    assert spec_labels([f"ismcts:iters=2000,{c}", "ismcts:iters=500"]) == {
        f"ismcts:iters=2000,{c}": "ismcts:iters=2000", "ismcts:iters=500": "ismcts:iters=500"}


def test_the_page_has_a_narrow_layout_and_counts_in_the_singular(synth, run_folder, tmp_path):
    one_deal = [synth(0, ["greedy", "random"], [0]), synth(0, ["random", "greedy"], [1])]
    for i, record in enumerate(one_deal):
        record["game_id"] = f"0-0-{i}"
        record["rotation"] = i
    html_path, _, report = write_report_full(run_folder(one_deal, "one"), tmp_path / "out")
    page = html_path.read_text()
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in page
    # every figure twice: its narrow layout for a phone's width, its wide one otherwise
    figures = page.count("<figure ")
    assert figures >= 5 and page.count('<source media="(max-width: 639.98px)"') == figures
    assert "flex-wrap: wrap" in page and ".scroll { overflow-x: auto" in page
    text = re.sub(r"<[^>]+>", " ", page) + " ".join(report.sentences)
    assert not re.search(r"\b1 (deals|games|times|comparisons|buildings|pseudo seat-games)\b", text)


def test_the_best_spec_is_set_only_against_specs_it_met(synth, run_folder):
    # a gauntlet: strong met only weak; mid and weak played each other
    records = []
    for i in range(40):
        pair = ["strong", "weak"] if i % 2 else ["mid", "weak"]
        seats = pair if i % 4 < 2 else pair[::-1]
        winner = seats.index(pair[0]) if i % 10 else seats.index(pair[1])
        records.append(synth(i, seats, [winner]))
    sentences = findings(load_runs(run_folder(records, "gauntlet")))
    best = [s for s in sentences if "has the highest win rate" in s][0]
    assert best.startswith("strong has the highest win rate")
    assert "against weak only (it did not play mid)" in best and "against each other" in best
    assert "Welch" not in best and not any("ahead of mid" in s for s in sentences)


def test_a_spec_that_never_wins_has_its_interval_written_out(synth, run_folder):
    # "random is the weakest: 0.0% ± 3.0%" read as an interval reaching below 0; a rate at an
    # end of its interval (here the Wilson interval of 0 wins) writes the interval out
    import doctest

    from glory_ai.analysis.report import formats

    assert doctest.testmod(formats).failed == 0
    specs = ["greedy", "heuristic:style=builder", "random"]
    records = []
    for deal in range(20):
        for rotation in range(3):
            seats = specs[rotation:] + specs[:rotation]
            winner = seats.index(specs[deal % 2])           # greedy and the builder share the wins
            records.append(synth(len(records), seats, [winner])
                           | {"deal": deal, "rotation": rotation, "game_id": f"{deal}-0-{rotation}"})
    text = findings(load_runs(run_folder(records, "never")))
    weakest = [line for line in text if "is the weakest" in line]
    assert len(weakest) == 1, text
    found = re.search(r"random is the weakest: 0\.0% \[0\.0, (\d+\.\d)\]\.$", weakest[0])
    assert found, weakest[0]
    assert 4.0 < float(found[1]) < 8.0                  # Wilson's upper end for 0 of 60
    assert "±" not in weakest[0]
    best = [line for line in text if "has the highest win rate" in line][0]
    assert re.search(r": 50\.0% ± \d+\.\d% of 60 games", best), best


def _grid_frame(synth, outcomes):
    """Runs ``v1``, ``v4``, ``v16``: ``ismcts:iters=V`` against greedy over 12 deals, the
    grid spec winning the deals ``outcomes[V]`` says (a set of deal numbers)."""
    import pandas as pd

    from glory_ai.analysis.load import frame_of_records

    frames = []
    for value, wins in outcomes.items():
        spec = f"ismcts:iters={value}"
        records = [synth(i, [spec, "greedy"], [0] if i in wins else [1]) for i in range(12)]
        frame = frame_of_records(records)
        frame["run"] = f"v{value}"
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def test_a_grid_whose_scores_the_value_separates_gets_no_trend_only_the_reason(synth):
    # value 1 loses every game, 4 and 16 win every game: a logistic slope runs off to
    # infinity (statsmodels: perfect separation), so no Elo per doubling, not a huge one
    from glory_ai.analysis.stats import grid_scores

    points = [(v, f"v{v}", f"ismcts:iters={v}") for v in (1, 4, 16)]
    separated = grid_scores(_grid_frame(synth, {1: set(), 4: set(range(12)), 16: set(range(12))}), points)
    assert separated.attrs["trend"] is None and separated.attrs["separated"]
    mixed = grid_scores(_grid_frame(synth, {1: {0, 1, 2}, 4: set(range(6)), 16: set(range(9))}), points)
    assert mixed.attrs["trend"] is not None and not mixed.attrs.get("separated"), mixed.attrs
    assert 0 < mixed.attrs["trend"]["elo_per_doubling"] < 1000
    # the report's sentence gives the reason instead of a number
    from glory_ai.analysis.report.base import Grid
    from glory_ai.analysis.report.sections.grids import _sentences

    grid = Grid("iters", "iters", "ismcts:iters={iters}", ("greedy",), tuple(points))
    said = " ".join(_sentences(grid, separated))
    assert "perfectly separated by the iters" in said and "per doubling" in said
    assert "adds" not in said and "perfectly separated" not in " ".join(_sentences(grid, mixed))
