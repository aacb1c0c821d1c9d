"""The report from real and synthetic runs, its summary sentences, and `glory-ai report`."""
from __future__ import annotations

import csv
import re
import subprocess
import sys

import pytest

from glory_ai.analysis import AnalysisError
from glory_ai.analysis.commands import main_report
from glory_ai.analysis.load import load_runs
from glory_ai.analysis.report import findings, write_report

SECTIONS = ["summary", "win-rates", "ratings", "seats", "buildings", "scoring", "endings", "manifest"]


def test_report_from_real_runs(real_runs, tmp_path):
    two, three = real_runs
    html_path, csv_path = write_report([two, three], tmp_path / "out")
    assert html_path == tmp_path / "out" / "report.html" and csv_path.name == "summary.csv"
    page = html_path.read_text()
    for anchor in SECTIONS:
        assert f'id="{anchor}"' in page
    for title in ("Win rates", "Seat advantage", "Building strength", "How players score",
                  "Endings and game length", "Runs", "Ratings and head-to-head scores"):
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
    assert {r["spec"] for r in rows} == {"random", "greedy", "heuristic:style=builder"}
    assert {"win_rate", "win_low", "win_high", "rating", "rating_method"} <= set(rows[0])
    assert {r["rating_method"] for r in rows} == {"bradley_terry", "plackett_luce"}
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
    assert seat.startswith("P1 wins 60.0% ± 3.0% of 2-player games")
    assert "a significant seat advantage, for P1" in seat
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
    search = [synth(i, ["ismcts:iters=10", "ismcts:iters=10"], [i % 3 == 0]) for i in range(40)]
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
