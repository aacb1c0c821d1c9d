"""Experiments: configs, running into results/NAME/, resuming, reproducing."""
import gzip
import json
import shutil
from pathlib import Path

import pytest

from glory_ai.arena import load_records, strip_timing
from glory_ai.arena.lock import LOCK_FILE
from glory_ai.arena.storage import write_config_records
from glory_ai.cli import main
from glory_ai.experiments import ExperimentError, load_experiment, parse_experiment, reproduce, run_experiment

ROOT = Path(__file__).resolve().parents[2]

SMALL = """
description = "greedy against random, both modes, and a 3-player field"
question = "Does greedy beat random?"
seed = 5

[[matchup]]
name = "duel"
specs = ["greedy", "random"]
deals = 3
variants = { republic = {}, imperium = { mode = "imperium" } }

[[matchup]]
name = "field"
specs = ["greedy", "heuristic:style=patron", "random"]
players = [3]
deals = 1

[run]
jobs = 1

[analysis]
report = false
"""


def _write(tmp_path, text=SMALL, name="small"):
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    return path


def test_an_experiment_expands_into_named_runs(tmp_path):
    exp = load_experiment(_write(tmp_path))
    runs = exp.runs()
    assert [r.name for r in runs] == ["duel-republic", "duel-imperium", "field-3p"]
    assert [r.config.total_games for r in runs] == [6, 6, 3]
    assert runs[1].config.mode == "imperium" and runs[0].config.seed == 5
    assert exp.reproducible and exp.question == "Does greedy beat random?"


@pytest.mark.parametrize("budget", ["time_ms", "cpu_ms"])
def test_an_experiment_whose_bot_searches_by_time_is_not_reproducible(budget):
    # a budget of wall or CPU time: how many iterations a move gets depends on the machine
    matchup = [{"name": "timed", "specs": [f"ismcts:{budget}=5", "greedy"]}]
    exp = parse_experiment({"seed": 1, "matchup": matchup}, "timed")
    assert not exp.reproducible


def test_a_grid_fills_the_spec_templates():
    exp = parse_experiment({"seed": 1,
                            "matchup": [{"name": "scale", "specs": ["ismcts:iters={iters}", "greedy"],
                                         "grid": {"iters": [10, 20]}}]}, "g")
    assert [(r.name, r.config.specs) for r in exp.runs()] == [
        ("scale-iters10", ("ismcts:iters=10", "greedy")), ("scale-iters20", ("ismcts:iters=20", "greedy"))]


@pytest.mark.parametrize("text, words", [
    ("seeds = 3\n[[matchup]]\nspecs=['greedy','random']", ["unknown key", "seeds"]),
    ("[[matchup]]\nspecs=['greedy','random']\ndeal = 3", ["matchup", "unknown key", "deal"]),
    ("[[matchup]]\nspecs=['greedy','random']\n[run]\nworkers = 2", ["[run]", "workers"]),
    ("[[matchup]]\nspecs=['greedy','random']\n[analysis]\nfigures=['pie']", ["figures"]),
    ("[[matchup]]\nspecs=['greedy','bogus']", ["bogus"]),
    ("[[matchup]]\nspecs=['ismcts:iters={n}','greedy']", ["grid key"]),
    ("[[matchup]]\nspecs=['greedy','random']\nplayers = 6", ["players"]),
    ("[[matchup]]\nspecs=['greedy','random']\nvariants = {x = {refill = 3}}", ["variants.x", "refill"]),
    ("name = 'Bad Name'\n[[matchup]]\nspecs=['greedy','random']", ["name"]),
    ("[[matchup]]\nspecs=['greedy','random'", ["not valid TOML"]),
    ("seed = 1", ["[[matchup]]"]),
])
def test_a_broken_config_is_an_error_naming_the_key(tmp_path, text, words):
    with pytest.raises(ExperimentError) as info:
        load_experiment(_write(tmp_path, text))
    for word in words:
        assert word in str(info.value)


def test_run_writes_the_results_folder_and_reproduce_finds_it_identical(tmp_path):
    folder = run_experiment(_write(tmp_path), tmp_path / "results", log=lambda *a: None, progress=False)
    assert folder == tmp_path / "results" / "small"
    for name in ("experiment.toml", "manifest.json", "runs.csv", "README.md"):
        assert (folder / name).exists(), name
    manifest = json.loads((folder / "manifest.json").read_text())
    for key in ("glory_ai", "git_commit", "git_dirty", "build", "python", "libraries", "seed",
                "backend", "started", "finished", "reproducible", "runs"):
        assert key in manifest, key
    assert manifest["libraries"]["numpy"] and manifest["seed"] == 5
    games = folder / "runs" / "duel-republic" / "games.jsonl.gz"
    assert games.exists() and not (folder / "runs" / "duel-republic" / "games.jsonl").exists()
    assert len(load_records(games.parent)) == 6
    with gzip.open(games, "rt") as fh:                      # sorted, one record per line
        ids = [json.loads(line)["game_id"] for line in fh]
    assert ids == sorted(ids, key=lambda g: tuple(map(int, g.split("-"))))
    assert "Does greedy beat random?" in (folder / "README.md").read_text()
    report = reproduce(folder, log=lambda *a: None, progress=False)
    assert report.identical and report.reproducible
    assert [r["games"] for r in report.runs] == [6, 6, 3]


def test_reproduce_prints_the_games_that_differ(tmp_path, capsys):
    folder = run_experiment(_write(tmp_path), tmp_path / "results", log=lambda *a: None, progress=False)
    games = folder / "runs" / "field-3p" / "games.jsonl.gz"
    with gzip.open(games, "rt") as fh:
        records = [json.loads(line) for line in fh]
    records[1]["scores"][0] += 1                            # a tampered result
    with gzip.open(games, "wt") as fh:
        fh.write("".join(json.dumps(r) + "\n" for r in records))
    assert main(["reproduce", str(folder), "--no-progress"]) == 1
    out = capsys.readouterr().out
    assert f"game {records[1]['game_id']}: scores" in out and "NOT reproduced" in out


def test_an_interrupted_experiment_resumes_and_a_finished_one_is_kept(tmp_path):
    path = _write(tmp_path)
    first = run_experiment(path, tmp_path / "results", log=lambda *a: None, progress=False)
    before = [strip_timing(r) for r in load_records(first / "runs" / "duel-imperium")]
    # a run left half done (as after a kill): its plain games.jsonl with some records
    run_dir = first / "runs" / "duel-imperium"
    records = load_records(run_dir)
    (run_dir / "games.jsonl.gz").unlink()
    (run_dir / "games.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records[:2]) + '{"cut')
    write_config_records(run_dir, None)     # a run killed before its end stored no checksum
    run_experiment(path, tmp_path / "results", log=lambda *a: None, progress=False)
    assert [strip_timing(r) for r in load_records(run_dir)] == before
    assert (run_dir / "games.jsonl.gz").exists() and not (run_dir / "games.jsonl").exists()


def test_another_version_of_the_experiment_is_refused(tmp_path):
    run_experiment(_write(tmp_path), tmp_path / "results", log=lambda *a: None, progress=False)
    with pytest.raises(ExperimentError, match="another version"):
        run_experiment(_write(tmp_path, SMALL.replace("deals = 3", "deals = 4")), tmp_path / "results",
                       log=lambda *a: None, progress=False)


def test_the_command_line_reports_user_errors_in_one_line(tmp_path, capsys):
    assert main(["run", str(tmp_path / "missing.toml")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no such file" in err
    assert main(["reproduce", str(tmp_path)]) == 2
    assert "experiment.toml" in capsys.readouterr().err


def test_the_shipped_experiment_configs_are_valid():
    configs = sorted((ROOT / "experiments").glob("*.toml"))
    names = {p.stem for p in configs}
    assert {"strategy_ladder", "ismcts_scaling", "ismcts_vs_pimc", "seat_advantage",
            "building_strength", "republic_vs_imperium"} <= names
    for path in configs:
        exp = load_experiment(path)
        assert exp.question and exp.description and exp.reproducible
        assert exp.runs()


def test_an_experiment_with_a_report_writes_it_and_its_findings(tmp_path):
    # the report reads the compressed records of the finished runs; its sentences become
    # the README's findings
    text = SMALL.replace("report = false", "report = true").replace(
        'variants = { republic = {}, imperium = { mode = "imperium" } }', "")
    folder = run_experiment(_write(tmp_path, text), tmp_path / "results", log=lambda *a: None,
                            progress=False)
    html = (folder / "report.html").read_text()
    assert "<img" in html or "<svg" in html
    assert "greedy" in html and "Does greedy beat random?" in html
    readme = (folder / "README.md").read_text()
    findings = [line for line in readme.splitlines() if line.startswith("* ")]
    assert findings and "(no analysis)" not in readme
    assert any("greedy" in line for line in findings), findings


def test_a_resumed_experiment_keeps_the_earlier_sessions_in_its_manifest(tmp_path):
    config = _write(tmp_path)
    folder = run_experiment(config, tmp_path / "results", log=lambda *a: None, progress=False)
    first = json.loads((folder / "manifest.json").read_text())
    assert [r["played"] for r in first["runs"]] == [6, 6, 3] and len(first["sessions"]) == 1
    shutil.rmtree(folder / "runs" / "field-3p")       # its games to be played again
    again = run_experiment(config, tmp_path / "results", log=lambda *a: None, progress=False)
    second = json.loads((again / "manifest.json").read_text())
    assert len(second["sessions"]) == 2
    assert second["sessions"][1]["played"] == {"duel-republic": 0, "duel-imperium": 0, "field-3p": 3}
    # the totals still say what it took to play the games
    assert [r["played"] for r in second["runs"]] == [6, 6, 6]
    assert second["started"] == first["started"]
    assert second["seconds"] >= first["seconds"]
    assert [r["seconds"] for r in second["runs"]] >= [r["seconds"] for r in first["runs"]]


def test_running_a_finished_experiment_again_changes_no_file(tmp_path):
    config = _write(tmp_path, SMALL.replace("report = false", "report = true"))
    folder = run_experiment(config, tmp_path / "results", log=lambda *a: None, progress=False)
    # every file but the folders' locks (who writes there now, not part of the results)
    def files():
        return {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in folder.rglob("*")
                if p.is_file() and p.name != LOCK_FILE}

    before = files()
    assert (folder / "manifest.json") in before and any(p.suffix == ".svg" for p in before)
    said: list[str] = []
    run_experiment(config, tmp_path / "results", log=said.append, progress=False)
    # one line says the experiment is complete: no "[1/3] ..." as if its runs were played
    assert not [line for line in said if line.startswith("[")], said
    assert "small is already complete: its 3 runs hold 15 games, nothing to play" in said, said
    after = files()
    assert after.keys() == before.keys()
    changed = sorted(str(p.relative_to(folder)) for p in before if after[p] != before[p])
    assert changed == [], f"rewritten by a run that played no game: {changed}"


def test_an_experiment_with_some_runs_finished_says_which_are_complete(tmp_path):
    import shutil

    config = _write(tmp_path)
    folder = run_experiment(config, tmp_path / "results", log=lambda *a: None, progress=False)
    runs = sorted(p.name for p in (folder / "runs").iterdir() if p.is_dir())
    shutil.rmtree(folder / "runs" / runs[0])
    said: list[str] = []
    run_experiment(config, tmp_path / "results", log=said.append, progress=False)
    steps = [line for line in said if line.startswith("[")]
    assert len(steps) == 3, said
    complete = [line for line in steps if "already complete (" in line and line.endswith("nothing to play")]
    assert len(complete) == 2 and not any(runs[0] + ":" in line for line in complete), said
    assert any(line.endswith("field-3p: already complete (3 games), nothing to play") for line in complete)
    assert not any("is already complete" in line for line in said)


def test_a_one_parameter_grid_gets_its_curve(tmp_path):
    text = """
question = "Does flat MC improve with iterations?"
seed = 3
[[matchup]]
name = "scale"
specs = ["flatmc:iters={iters}", "random"]
grid = { iters = [4, 16, 64] }
deals = 2
[run]
jobs = 1
[analysis]
report = true
"""
    folder = run_experiment(_write(tmp_path, text, "grid"), tmp_path / "results", log=lambda *a: None,
                            progress=False)
    curve = folder / "figures" / "grid-scale.png"
    assert curve.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and curve.stat().st_size > 5000
    readme = (folder / "README.md").read_text()
    assert "![scale: score against the grid](figures/grid-scale.png)" in readme
    # the question is answered first, and the report shows the curve
    assert readme.index("**Answer.**") < readme.index("| run | spec |")
    page = (folder / "report.html").read_text()
    assert page.index('id="answer"') < page.index('id="fig-grid-scale"') < page.index('id="summary"')
    # the same records draw the same bytes
    first = curve.read_bytes()
    run_experiment(_write(tmp_path, text, "grid"), tmp_path / "results", log=lambda *a: None, progress=False)
    assert curve.read_bytes() == first


def test_a_matchup_with_an_sprt_stops_once_decided_and_reproduces(tmp_path):
    # the experiment gives the arena the SPRT of glory_ai.analysis.stats as its stopping rule
    config = _write(tmp_path, """
seed = 3
[[matchup]]
name = "lopsided"
specs = ["greedy", "random"]
deals = 200
sprt = [0, 50, 0.05, 0.05]
[run]
jobs = 1
batch_size = 2
[analysis]
report = false
""", name="sprt")
    folder = run_experiment(config, tmp_path / "results", log=lambda line: None)
    records = load_records(folder / "runs" / "lopsided")
    assert 0 < len(records) < 100 and len(records) % 2 == 0
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["runs"][0]["games"] == len(records)
    again = reproduce(folder, log=lambda line: None)
    assert again.identical and again.runs[0]["games"] == len(records)
