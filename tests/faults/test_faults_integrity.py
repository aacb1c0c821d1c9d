"""Fault injection, integrity: concurrent writers, repeated and edited records, changed
derived files. Each fault is refused or repaired, never baked into results."""
from __future__ import annotations

import gzip
import json
import logging
import subprocess
import sys
import time

import orjson
import pytest

from glory_ai.analysis import AnalysisError
from glory_ai.analysis.load import load_runs
from glory_ai.arena import ArenaError, RunConfig, load_records, run, strip_timing
from glory_ai.arena.lock import holder
from glory_ai.arena.storage import compress_run, read_config
from glory_ai.cli import main
from glory_ai.experiments import reproduce, run_experiment
from support.faults import EXPERIMENT, ROOT, SMALL, cli, one_line_error


def _lines(path):
    return [line for line in path.read_bytes().splitlines() if line.strip()]


def _ids(path):
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as fh:
        return [orjson.loads(line)["game_id"] for line in fh if line.strip()]


@pytest.mark.slow
def test_two_compares_into_one_folder_one_refused_naming_the_other(tmp_path):
    out = tmp_path / "x"
    # enough games that the first is still playing when the second starts (400 took about as
    # long as a second interpreter's start on an idle machine)
    args = ["compare", "greedy", "random", "--games", "1600", "--jobs", "1", "--out", str(out),
            "--no-progress"]
    import os
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    first = subprocess.Popen([sys.executable, "-m", "glory_ai.cli", *args], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while (holder(out) or {}).get("pid") != first.pid:
            assert first.poll() is None and time.monotonic() < deadline, first.communicate()
            time.sleep(0.05)
        second = cli(*args)
        one_line_error(second, f"process {first.pid}", "is being written by", "compare greedy random")
        assert first.wait(timeout=300) == 0, first.communicate()
    finally:
        first.kill()
        first.communicate()
    ids = _ids(out / "games.jsonl")
    assert len(ids) == len(set(ids)) == 1600


def test_a_run_refuses_a_folder_another_process_writes(tmp_path, finished):
    holding = subprocess.Popen(
        [sys.executable, "-c", "import sys,time; from glory_ai.arena.lock import FolderLock; "
         "FolderLock(sys.argv[1], command='glory-ai run x.toml').acquire(); print('held', flush=True); "
         "time.sleep(60)", str(finished)], stdout=subprocess.PIPE, text=True,
        env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})
    try:
        assert holding.stdout.readline().strip() == "held"
        with pytest.raises(ArenaError, match=f"being written by process {holding.pid}"):
            run(SMALL, finished)
        # an experiment's results folder too, with the one-line refusal of the command line
        (tmp_path / "e.toml").write_text(EXPERIMENT)
        results = tmp_path / "results"
        results.mkdir()
        lock = subprocess.Popen(
            [sys.executable, "-c", "import sys,time; from glory_ai.arena.lock import FolderLock; "
             "FolderLock(sys.argv[1]).acquire(); print('held', flush=True); time.sleep(60)",
             str(results)], stdout=subprocess.PIPE, text=True,
            env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})
        assert lock.stdout.readline().strip() == "held"
        one_line_error(cli("run", str(tmp_path / "e.toml"), "--out", str(results)),
                       f"process {lock.pid}")
        lock.kill()
        lock.wait()
    finally:
        holding.kill()
        holding.wait()


def test_a_repeated_line_is_repaired_once_on_resume(tmp_path, caplog):
    folder = tmp_path / "run"

    class StopAfter:
        def __init__(self):
            self.seen = 0

        def add(self, records):
            self.seen += len(records)
            return self.seen >= 4

        def to_dict(self):
            return {}

    run(SMALL, folder, n_jobs=1, batch_size=2, stop=StopAfter())      # as if Ctrl-C after 4 games
    games = folder / "games.jsonl"
    lines = _lines(games)
    with open(games, "ab") as fh:
        fh.write(lines[1] + b"\n")                                   # a copied record
    with caplog.at_level(logging.WARNING, logger="glory_ai.arena"):
        result = run(SMALL, folder, n_jobs=1, batch_size=2)
    assert "removed 1 repeated record" in caplog.text
    assert result.resumed == 4 and result.played == SMALL.total_games - 4
    ids = _ids(games)
    assert sorted(ids) == sorted(set(ids)) and len(ids) == SMALL.total_games
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="glory_ai.arena"):
        again = run(SMALL, folder)
    assert again.played == 0 and "repeated" not in caplog.text       # repaired once, not every time
    reference = run(SMALL, n_jobs=1).records
    assert [strip_timing(r) for r in load_records(folder)] == [strip_timing(r) for r in reference]


def test_compressing_and_summarizing_count_each_game_once(finished, caplog):
    from glory_ai.analysis.stats import summarize

    games = finished / "games.jsonl"
    lines = _lines(games)
    games.write_bytes(b"".join(line + b"\n" for line in lines + lines))     # every line twice
    with caplog.at_level(logging.WARNING, logger="glory_ai.arena"):
        records = load_records(finished)
    assert len(records) == SMALL.total_games and "recorded twice" in caplog.text
    assert summarize(records, SMALL)["games"].tolist() == [SMALL.total_games] * 2
    assert load_runs(finished)["game"].nunique() == SMALL.total_games
    compress_run(finished)
    assert len(_ids(finished / "games.jsonl.gz")) == SMALL.total_games
    assert read_config(finished)["records"]["lines"] == SMALL.total_games


def test_a_repeat_that_differs_is_refused_by_compress_and_readers(finished):
    games = finished / "games.jsonl"
    record = orjson.loads(_lines(games)[3])
    record["turns"] += 1                # a copy that passes the schema (replay finds it)
    with open(games, "ab") as fh:
        fh.write(orjson.dumps(record) + b"\n")
    for read in (load_records, compress_run):
        with pytest.raises(ArenaError, match=f"{record['game_id']} is recorded twice with different results"):
            read(finished)


def test_an_edited_winner_is_refused_by_resume_and_report_and_found_by_verify(finished, capsys):
    games = finished / "games.jsonl"
    lines = _lines(games)
    record = orjson.loads(lines[5])
    record["winners"] = [1 - record["winners"][0]]      # and its returns, as the schema wants
    record["returns"] = [1.0 if s in record["winners"] else 0.0 for s in range(2)]
    lines[5] = orjson.dumps(record)
    games.write_bytes(b"".join(line + b"\n" for line in lines))
    with pytest.raises(ArenaError, match="does not match the checksum.*glory-ai verify"):
        run(SMALL, finished)
    with pytest.raises(AnalysisError, match="checksum"):
        load_runs(finished)
    assert main(["report", str(finished)]) == 2
    assert "checksum" in capsys.readouterr().err
    assert main(["verify", str(finished)]) == 1
    out = capsys.readouterr().out
    assert f"line 6: game {record['game_id']}: winners differs" in out and "checksum" in out
    # --repair sets the edited record aside (quarantine.jsonl) and plays its game again; the
    # folder verifies
    assert main(["verify", str(finished), "--repair"]) == 0
    out = capsys.readouterr().out
    assert "1 line set aside" in out and "1 game set aside played again" in out
    assert out.rstrip().endswith("records and derived files as written")
    assert len(_lines(games)) == SMALL.total_games
    assert orjson.loads((finished / "quarantine.jsonl").read_text().splitlines()[0])["line"] == 6
    again = run(SMALL, finished)
    assert again.played == 0
    assert main(["verify", str(finished)]) == 0
    assert [strip_timing(r) for r in load_records(finished)] == \
        [strip_timing(r) for r in run(SMALL).records]


@pytest.mark.parametrize("jobs", [1, 2])
def test_verify_replays_in_chunks_as_it_reads(finished, monkeypatch, jobs):
    # chunks of 4 games (2 workers: 8): every game replayed, the edited and the repeated
    # record found wherever they fall
    from glory_ai.arena import verify as verify_module

    monkeypatch.setattr(verify_module, "REPLAY_BATCH", 1)
    games = finished / "games.jsonl"
    lines = _lines(games)
    record = orjson.loads(lines[9])
    record["turns"] += 1
    lines[9] = orjson.dumps(record)
    games.write_bytes(b"".join(line + b"\n" for line in [*lines, lines[2]]))
    check = verify_module.verify_run(finished, n_jobs=jobs)
    assert check.replayed == check.games == SMALL.total_games
    assert check.drop == {10, SMALL.total_games + 1}
    assert any(f"line 10: game {record['game_id']}: turns differs" in p for p in check.problems)
    assert any(f"line {SMALL.total_games + 1}: game" in p and "recorded twice" in p for p in check.problems)


def test_a_changed_summary_is_found_by_verify(tmp_path, capsys):
    out = tmp_path / "cmp"
    assert main(["compare", "greedy", "random", "--games", "8", "--jobs", "1", "--out", str(out),
                 "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["verify", str(out)]) == 0
    summary = out / "summary.csv"
    summary.write_text(summary.read_text().replace("greedy,8,", "greedy,9,"))
    assert main(["verify", str(out)]) == 1
    printed = capsys.readouterr().out
    assert "summary.csv: differs from what the records give" in printed
    assert "every record is sound" in printed and "writes the files derived from them again" in printed
    # the repair writes the table again from the records and changes no game
    records = (out / "games.jsonl").read_bytes()
    assert main(["verify", str(out), "--repair"]) == 0
    printed = capsys.readouterr().out
    assert "summary.csv: written again from the records" in printed
    assert "greedy,8," in summary.read_text() and (out / "games.jsonl").read_bytes() == records
    assert not (out / "quarantine.jsonl").exists()


def test_repair_writes_an_experiments_derived_files_again_but_not_its_manifest(experiment, capsys):
    runs_csv, readme = experiment / "runs.csv", experiment / "README.md"
    originals = runs_csv.read_text(), readme.read_text()
    packed = (experiment / "runs" / "duel" / "games.jsonl.gz").read_bytes()
    runs_csv.write_text(originals[0].replace("duel,greedy,10,", "duel,greedy,11,"))
    readme.write_text(originals[1].replace("| duel | `greedy` | 10 |", "| duel | `greedy` | 20 |"))
    assert main(["verify", str(experiment)]) == 1
    assert "every record is sound" in capsys.readouterr().out
    assert main(["verify", str(experiment), "--repair"]) == 0
    assert "no game played (10 sound)" in capsys.readouterr().out
    assert (runs_csv.read_text(), readme.read_text()) == originals
    assert (experiment / "runs" / "duel" / "games.jsonl.gz").read_bytes() == packed
    # a manifest that disagrees with the records may be what shows an edit: not written over
    manifest = json.loads((experiment / "manifest.json").read_text())
    manifest["runs"][0]["games"] = 20
    (experiment / "manifest.json").write_text(json.dumps(manifest))
    runs_csv.write_text(originals[0].replace("duel,greedy,10,", "duel,greedy,11,"))
    assert main(["verify", str(experiment), "--repair"]) == 1
    printed = capsys.readouterr().out
    assert "lists 20 games, the records hold 10" in printed and "every record is sound" not in printed
    assert json.loads((experiment / "manifest.json").read_text())["runs"][0]["games"] == 20


@pytest.fixture
def experiment(tmp_path):
    path = tmp_path / "duel.toml"
    path.write_text(EXPERIMENT)
    return run_experiment(path, tmp_path / "results", log=lambda *a: None, progress=False)


def test_reproduce_refuses_results_with_repeated_records(experiment, capsys):
    # a finished run whose compressed records hold every game twice (two writers before the
    # lock): reproduce must not call it identical
    packed = experiment / "runs" / "duel" / "games.jsonl.gz"
    with gzip.open(packed, "rb") as fh:
        data = fh.read()
    with gzip.open(packed, "wb") as fh:
        fh.write(data + data)
    report = reproduce(experiment, log=lambda *a: None, progress=False)
    assert not report.identical
    assert any("recorded twice" in p for p in report.problems)
    assert main(["reproduce", str(experiment), "--no-progress"]) == 1
    out = capsys.readouterr().out
    assert "NOT reproduced: the stored results do not hold together" in out


def test_reproduce_and_verify_check_the_derived_files(experiment, capsys):
    assert main(["verify", str(experiment)]) == 0
    runs_csv = experiment / "runs.csv"
    original = runs_csv.read_text()
    runs_csv.write_text(original.replace("duel,greedy,10,", "duel,greedy,11,"))
    assert main(["verify", str(experiment)]) == 1
    assert "runs.csv: differs" in capsys.readouterr().out
    runs_csv.write_text(original)
    readme = experiment / "README.md"
    readme.write_text(readme.read_text().replace("| duel | `greedy` | 10 |", "| duel | `greedy` | 20 |"))
    report = reproduce(experiment, log=lambda *a: None, progress=False)
    assert not report.identical and any("README.md" in p for p in report.problems)
    # the manifest's count of a run
    readme.write_text(readme.read_text().replace("| duel | `greedy` | 20 |", "| duel | `greedy` | 10 |"))
    manifest = json.loads((experiment / "manifest.json").read_text())
    manifest["runs"][0]["games"] = 20
    (experiment / "manifest.json").write_text(json.dumps(manifest))
    assert main(["verify", str(experiment)]) == 1
    assert "lists 20 games, the records hold 10" in capsys.readouterr().out


def test_a_repeated_line_in_an_experiment_run_is_dropped_on_resume(tmp_path):
    path = tmp_path / "duel.toml"
    path.write_text(EXPERIMENT)
    folder = run_experiment(path, tmp_path / "results", log=lambda *a: None, progress=False)
    run_dir = folder / "runs" / "duel"
    # as after Ctrl-C: the plain file of the run under way, a line copied into it
    with gzip.open(run_dir / "games.jsonl.gz", "rb") as fh:
        lines = [line for line in fh.read().splitlines() if line]
    (run_dir / "games.jsonl.gz").unlink()
    (run_dir / "games.jsonl").write_bytes(b"".join(x + b"\n" for x in lines[:4] + [lines[2]]))
    from glory_ai.arena.storage import write_config_records
    write_config_records(run_dir, None)
    run_experiment(path, tmp_path / "results", log=lambda *a: None, progress=False)
    assert len(_ids(run_dir / "games.jsonl.gz")) == 10
    assert "duel,greedy,10," in (folder / "runs.csv").read_text()
    assert reproduce(folder, log=lambda *a: None, progress=False).identical


def test_a_config_hash_folder_of_the_same_games_is_found_again():
    # unchanged: the default folder of a command is a function of the config
    assert RunConfig(specs=("greedy", "random"), deals=3).short_hash() == \
        RunConfig(specs=("greedy", "random"), deals=3).short_hash()


def test_an_experiment_run_whose_compressed_records_grew_is_refused_on_resume(experiment, tmp_path):
    packed = experiment / "runs" / "duel" / "games.jsonl.gz"
    with gzip.open(packed, "rb") as fh:
        data = fh.read()
    with gzip.open(packed, "wb") as fh:
        fh.write(data + data.splitlines(keepends=True)[0])
    with pytest.raises(ArenaError, match="holds 11 records where 10 were written: records were added"):
        run_experiment(tmp_path / "duel.toml", tmp_path / "results", log=lambda *a: None, progress=False)
