"""`glory-ai compare` and `glory-ai tournament` end to end through their command-line
function (glory_ai.analysis.commands): the files written, resume, and the exit-code-2 user
errors."""
import argparse
import csv
import json
import subprocess
import sys

import pandas as pd
import pytest

from glory_ai.analysis.commands import main, main_compare, parse_variant, register_compare
from glory_ai.arena import RunConfig, load_records, run


def _run(capsys, *argv):
    code = main_compare(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_compare_writes_the_run_folder_and_resumes(tmp_path, capsys):
    out_dir = tmp_path / "run"
    code, out, err = _run(capsys, "greedy", "random", "--games", "5", "--jobs", "1", "--seed", "3",
                          "--out", str(out_dir), "--no-progress")
    assert code == 0, err
    assert "rounded up to 6 games" in out and "3 deals x 2 games per deal" in out
    assert f"plot: {out_dir / 'win_rates.png'}" in out
    for name in ("games.jsonl", "config.json", "summary.csv", "win_rates.png"):
        assert (out_dir / name).exists(), name
    assert len(load_records(out_dir)) == 6
    config = json.loads((out_dir / "config.json").read_text())
    assert config["config"]["deals"] == 3 and config["config"]["specs"] == ["greedy", "random"]
    rows = list(csv.DictReader((out_dir / "summary.csv").open()))
    assert [r["spec"] for r in rows] and {r["spec"] for r in rows} == {"greedy", "random"}
    assert {"games", "win_rate", "win_low", "win_high", "rating", "mean_vp"} <= set(rows[0])
    header = next(line for line in out.splitlines() if line.startswith("spec"))
    assert "win rate" in header and "95% interval" in header and "mean VP" in header
    # again: resumed, nothing to play
    code, out, err = _run(capsys, "greedy", "random", "--games", "6", "--jobs", "1", "--seed", "3",
                          "--out", str(out_dir), "--no-progress")
    assert code == 0 and f"the run in {out_dir} is already complete (6 games): nothing to play" in out
    assert "resuming" not in out and "played 0 games" not in out
    assert f"no game played: the 6 games of {out_dir / 'games.jsonl'} were played before" in out


def test_a_report_of_a_compare_folder_leaves_compares_summary_alone(tmp_path, capsys):
    # summary.csv of a run folder is compare's table (glory-ai verify checks it against the
    # records); the report writes its own table beside it
    out_dir = tmp_path / "run"
    code, out, err = _run(capsys, "greedy", "random", "--games", "4", "--jobs", "1", "--out", str(out_dir),
                          "--no-progress")
    assert code == 0, err
    before = (out_dir / "summary.csv").read_bytes()
    code = main(["report", str(out_dir), "--no-figure-files"])
    out = capsys.readouterr().out
    assert code == 0
    assert (out_dir / "summary.csv").read_bytes() == before
    assert f"summary: {out_dir / 'report_summary.csv'}" in out
    rows = list(csv.DictReader((out_dir / "report_summary.csv").open()))
    assert {r["spec"] for r in rows} == {"greedy", "random"} and "num_players" in rows[0]


def test_round_robin_field_gauntlet_and_default_folder(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(capsys, "greedy", "random", "heuristic:style=builder", "--games", "6",
                          "--jobs", "1", "--no-progress")
    assert code == 0, err
    assert "round robin of 3 bots" in out and "BT Elo" in out and "finishing ahead" in out
    # one deal: resampling it cannot vary a rate, so every win rate has the Wilson interval
    assert "win rate interval: independent games: Wilson" in out and "BT Elo interval: Bradley-Terry" in out
    # ... and every rating the profile likelihood, not the bootstrap's point
    assert "(a perfect record or one deal: profile likelihood)" in out
    summary = pd.read_csv(next((tmp_path / "results").iterdir()) / "summary.csv")
    assert (summary["rating_high"] - summary["rating_low"] > 100).all()
    folders = list((tmp_path / "results").iterdir())
    assert len(folders) == 1 and folders[0].name.startswith("compare-")
    assert (folders[0] / "win_rates.png").exists()
    code, out, err = _run(capsys, "greedy", "random", "--players", "3", "--games", "3", "--jobs", "1",
                          "--out", str(tmp_path / "field"), "--no-progress", "--mode", "Imperium",
                          "--variant", "refill_size=6")
    assert code == 0, err
    assert "3-player field" in out and "imperium, refill_size=6" in out
    code, out, err = _run(capsys, "tournament", "random", "heuristic:style=patron", "--gauntlet",
                          "greedy", "--games", "4", "--jobs", "1", "--out", str(tmp_path / "g"),
                          "--no-progress")
    assert code == 0, err
    assert "gauntlet: greedy vs 2 bots" in out
    seats = {tuple(sorted(r["seats"])) for r in load_records(tmp_path / "g")}
    assert seats == {("greedy", "random"), ("greedy", "heuristic:style=patron")}


def test_compare_makes_the_columns_as_it_writes_and_reads_back_a_resumed_run(tmp_path, capsys, monkeypatch):
    from glory_ai.analysis import columns

    derived = []
    made = columns._derive
    monkeypatch.setattr(columns, "_derive", lambda folder, path: derived.append(folder) or made(folder, path))
    out_dir = tmp_path / "run"
    argv = ["random", "greedy", "--jobs", "1", "--seed", "4", "--out", str(out_dir), "--no-progress"]
    code, out, err = _run(capsys, *argv, "--games", "4")
    assert code == 0, err
    assert derived == [] and columns.stale_reason(out_dir) is None
    rows = [line for line in out.splitlines() if line.startswith(("greedy ", "random "))]
    (out_dir / "games.parquet").unlink()
    code, again, err = _run(capsys, *argv, "--games", "4")
    assert code == 0 and derived == [out_dir] and len(rows) == 4
    assert [line for line in again.splitlines() if line.startswith(("greedy ", "random "))] == rows
    # a resumed run: the games found in the folder read back
    config = RunConfig.from_dict(json.loads((out_dir / "config.json").read_text())["config"])
    run(config, tmp_path / "part", only=[0])
    argv[argv.index(str(out_dir))] = str(tmp_path / "part")
    code, out, err = _run(capsys, *argv, "--games", "4")
    assert code == 0 and "resuming" in out and derived == [out_dir, tmp_path / "part"]


def test_sprt_from_the_command_line(tmp_path, capsys):
    code, out, err = _run(capsys, "greedy", "random", "--games", "400", "--sprt", "--jobs", "1",
                          "--out", str(tmp_path / "s"), "--no-progress", "--seed", "3")
    assert code == 0, err
    assert "normalized Elo, alpha=0.05, beta=0.05" in out
    assert "H1 accepted (greedy is at least 50 normalized Elo stronger than random)" in out
    assert "win rate interval: pentanomial" in out


@pytest.mark.parametrize("argv, message", [
    (["greedy", "rando"], "unknown bot 'rando'"),
    (["greedy", "ismcts:iters=abc"], "expected int"),
    (["greedy", "random", "--games", "0"], "--games"),
    (["greedy", "random", "--games", "many"], "--games"),
    (["greedy", "random", "--players", "7"], "--players"),
    (["greedy", "random", "--variant", "refill=3"], "unknown variant key"),
    (["greedy", "random", "--variant", "refill_size=99"], "refill_size"),
    (["greedy", "random", "--variant", "removed=Nothing"], "removed"),
    (["greedy", "random", "heuristic", "--sprt"], "SPRT needs a head-to-head"),
    (["greedy", "random", "heuristic", "random", "--players", "3"], "at most 3 specs"),
    (["greedy", "random", "--sprt", "1,2,3"], "--sprt"),
    (["greedy", "random", "--backend", "mpi"], "--backend"),
    (["greedy", "random", "--backend", "threading", "--scheduler", "tcp://x:1"], "scheduler"),
])
def test_user_errors_are_one_line_and_exit_2(tmp_path, capsys, argv, message):
    extra = [] if "--games" in argv else ["--games", "2"]
    code, out, err = _run(capsys, *argv, *extra, "--out", str(tmp_path / "x"), "--jobs", "1",
                          "--no-progress")
    assert code == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_a_folder_of_another_config_exits_2(tmp_path, capsys):
    base = ["greedy", "random", "--jobs", "1", "--no-progress", "--out", str(tmp_path / "r")]
    assert _run(capsys, *base, "--games", "2")[0] == 0
    code, out, err = _run(capsys, *base, "--games", "4", "--seed", "1")
    assert code == 2 and "different config" in err and "deals: 1 there, 2 here" in err
    assert "seed: 0 there, 1 here" in err and len(err.strip().splitlines()) == 1


def test_variant_values():
    assert parse_variant([("removed", "Sewer, Bath"), ("copies", "Forum:2,Bath:1"),
                          ("refill_size", "6")]) == {
        "removed": ["Sewer", "Bath"], "copies": {"Forum": 2, "Bath": 1}, "refill_size": 6}
    assert parse_variant([("removed", '["Sewer"]')]) == {"removed": ["Sewer"]}


def test_register_adds_the_subcommands_to_a_parser():
    parser = argparse.ArgumentParser(prog="glory-ai")
    register_compare(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["compare", "greedy", "random", "--games", "10", "--players", "2",
                              "--jobs", "2", "--seed", "4", "--out", "d", "--mode", "imperium",
                              "--sprt", "--batch-size", "5", "--backend", "dask",
                              "--scheduler", "tcp://h:8786"])
    assert args.func is main_compare and args.specs == ["greedy", "random"]
    assert args.sprt == (0.0, 50.0, 0.05, 0.05) and args.batch_size == 5
    args = parser.parse_args(["tournament", "a", "b", "--gauntlet", "c"])
    assert args.func is main_compare and args.gauntlet == "c" and args.players == 2


def test_the_module_runs_as_a_program(tmp_path):
    done = subprocess.run([sys.executable, "-m", "glory_ai.analysis.commands", "compare", "greedy",
                           "nobot", "--out", str(tmp_path / "x")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "unknown bot 'nobot'" in done.stderr
    assert main(["compare", "--help"]) == 0


def test_ctrl_c_exits_130_and_says_how_to_resume(tmp_path, capsys, monkeypatch):
    from glory_ai.arena.storage import RunFolder

    append = RunFolder.append

    def interrupted(self, records, text=None):
        append(self, records, text)
        raise KeyboardInterrupt

    monkeypatch.setattr(RunFolder, "append", interrupted)
    argv = ["greedy", "random", "--games", "8", "--jobs", "1", "--batch-size", "2",
            "--no-progress", "--out", str(tmp_path / "r")]
    code, out, err = _run(capsys, *argv)
    assert code == 130
    assert "2 of 8 games are saved" in err and "run the same command again to resume" in err
    monkeypatch.setattr(RunFolder, "append", append)
    code, out, err = _run(capsys, *argv)
    assert code == 0 and "played 6 games" in out and "2 resumed" in out
