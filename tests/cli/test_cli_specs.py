"""One rule for bot spec names: read in any case, recorded in one canonical form (lower-case
name and keys, no spaces) by compare, tournament, experiment configs, play and watch; and
self-play, asked for by one spec or by the same spec repeated, said to be self-play."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from glory_ai.analysis.commands import main_compare
from glory_ai.arena import load_records
from glory_ai.arena.plan import RunConfig, canonical_spec
from glory_ai.bots import Param, SpecError, register, unregister
from glory_ai.cli import main
from glory_ai.experiments import load_experiment

ROOT = Path(__file__).resolve().parents[2]


def _compare(capsys, *argv):
    code = main_compare(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("given, recorded", [
    ("greedy", "greedy"),
    ("Greedy", "greedy"),
    ("  RANDOM ", "random"),
    ("ISMCTS:Iters=200, C=0.5", "ismcts:iters=200,c=0.5"),
    ("ismcts:c=0.5,iters=200", "ismcts:c=0.5,iters=200"),      # the order written is kept
    ("ismcts:iters=200,reuse=TRUE", "ismcts:iters=200,reuse=true"),
    ("greedy:", "greedy"),
    ("Heuristic:Style=builder", "heuristic:style=builder"),     # a choice keeps its case
])
def test_canonical_spec(given, recorded):
    assert canonical_spec(given) == recorded
    assert canonical_spec(recorded) == recorded


def test_a_value_of_another_case_is_not_read_as_the_same():
    with pytest.raises(SpecError, match="expected one of"):
        canonical_spec("heuristic:style=Builder")


def test_a_bot_of_a_file_keeps_its_spec_and_a_registered_one_is_lowered(tmp_path, monkeypatch):
    bot = tmp_path / "My_Bot.py"
    bot.write_text("class Cautious:\n    def __init__(self, seed=0, risk=0.5):\n        pass\n"
                   "    def step(self, state):\n        return state.legal_actions()[0]\n")
    monkeypatch.chdir(tmp_path)
    assert canonical_spec("./My_Bot.py:Cautious:risk=0.3") == "./My_Bot.py:Cautious:risk=0.3"

    class Careful:
        def __init__(self, seed=0, risk=0.5):
            pass

        def step(self, state):
            return state.legal_actions()[0]

    register("careful", Careful, params=[Param("risk", float, 0.5, "how careful")])
    try:
        assert canonical_spec("Careful:Risk=0.3") == "careful:risk=0.3"
    finally:
        unregister("careful")


def test_every_shipped_spec_is_already_canonical():
    # so that the shipped configs and results are recorded byte for byte as before
    for path in sorted((ROOT / "experiments").glob("*.toml")):
        for planned in load_experiment(path).runs():
            for spec in planned.config.specs:
                assert canonical_spec(spec) == spec, (path.name, spec)
    manifests = sorted((ROOT / "results").glob("*/manifest.json"))
    for manifest in manifests:
        runs = json.loads(manifest.read_text()).get("runs")
        if runs is None:        # a balance study: its runs' configs are in their folders
            runs = [json.loads(p.read_text()) for p in sorted(manifest.parent.glob("*/*/*p/config.json"))]
            assert runs, manifest
        for run in runs:
            assert RunConfig.from_dict(run["config"]).to_dict() == run["config"], manifest


def test_run_configs_record_the_canonical_form():
    config = RunConfig(specs=("Greedy", "ISMCTS:Iters=200"), deals=1)
    assert config.specs == ("greedy", "ismcts:iters=200")
    assert config.short_hash() == RunConfig(specs=("greedy", "ismcts:iters=200"), deals=1).short_hash()
    assert {task.seats for task in config.tasks()} == {("greedy", "ismcts:iters=200"),
                                                       ("ismcts:iters=200", "greedy")}


def test_compare_records_one_bot_whatever_the_case(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = _compare(capsys, "Greedy", "RANDOM", "--games", "2", "--jobs", "1", "--no-progress")
    assert code == 0, err
    assert "greedy vs random" in out
    (folder,) = (tmp_path / "results").iterdir()
    assert json.loads((folder / "config.json").read_text())["config"]["specs"] == ["greedy", "random"]
    assert {spec for record in load_records(folder) for spec in record["seats"]} == {"greedy", "random"}
    assert "Greedy" not in (folder / "summary.csv").read_text()
    # the lower-case command is the same run: its folder, nothing left to play
    code, out, err = _compare(capsys, "greedy", "random", "--games", "2", "--jobs", "1", "--no-progress")
    assert code == 0 and "already complete (2 games): nothing to play" in out
    assert len(list((tmp_path / "results").iterdir())) == 1


def test_tournament_records_one_bot_whatever_the_case(tmp_path, capsys):
    code, out, err = _compare(capsys, "tournament", "Greedy", "random", "HEURISTIC:STYLE=patron",
                              "--games", "3", "--jobs", "1", "--no-progress", "--out", str(tmp_path / "t"))
    assert code == 0, err
    seats = {spec for record in load_records(tmp_path / "t") for spec in record["seats"]}
    assert seats == {"greedy", "random", "heuristic:style=patron"}
    # two spellings of one bot are one bot, repeated
    code, out, err = _compare(capsys, "tournament", "greedy", "Greedy", "random", "--games", "3",
                              "--jobs", "1", "--no-progress", "--out", str(tmp_path / "u"))
    assert code == 2 and "must differ; repeated: ['greedy']" in err


def test_an_experiment_config_records_the_canonical_form(tmp_path):
    config = tmp_path / "cased.toml"
    config.write_text('seed = 1\n[[matchup]]\nname = "duel"\nspecs = ["Greedy", "ISMCTS:Iters={n}"]\n'
                      'grid = { n = [20] }\ndeals = 1\n[run]\njobs = 1\n[analysis]\nreport = false\n')
    experiment = load_experiment(config)
    (planned,) = experiment.runs()
    assert planned.config.specs == ("greedy", "ismcts:iters=20")
    assert main(["run", str(config), "--out", str(tmp_path / "out"), "--no-progress"]) == 0
    records = load_records(tmp_path / "out" / "runs" / planned.name)
    assert {spec for record in records for spec in record["seats"]} == {"greedy", "ismcts:iters=20"}


def test_a_grid_curve_names_its_opponents_as_the_runs_record_them(tmp_path):
    from glory_ai.experiments.runner import report_grids

    config = tmp_path / "grid.toml"
    config.write_text('seed = 1\n[[matchup]]\nname = "curve"\nspecs = ["ismcts:iters={n}", "Greedy"]\n'
                      'grid = { n = [10, 20] }\ndeals = 1\n')
    (grid,) = report_grids(load_experiment(config))
    assert grid.opponents == ("greedy",)
    assert [spec for _, _, spec in grid.points] == ["ismcts:iters=10", "ismcts:iters=20"]


def test_play_and_watch_record_the_canonical_form(tmp_path, capsys):
    games = tmp_path / "games.jsonl"
    assert main(["play", "--players", "2", "--bots", "Greedy,RANDOM", "--seat", "none", "--seed", "3",
                 "--games", str(games)]) == 0
    assert main(["watch", "--bots", "Random,GREEDY", "--seed", "3", "--delay", "0",
                 "--games", str(games)]) == 0
    capsys.readouterr()
    seats = [json.loads(line)["seats"] for line in games.read_text().splitlines()]
    assert seats == [["greedy", "random"], ["random", "greedy"]]


# ---- self-play ----------------------------------------------------------------------------------

@pytest.mark.parametrize("specs", [["random"], ["random", "random"], ["Random", "random"]])
def test_self_play_is_played_and_said_whichever_way_it_is_asked(tmp_path, capsys, monkeypatch, specs):
    monkeypatch.chdir(tmp_path)
    code, out, err = _compare(capsys, *specs, "--games", "6", "--jobs", "1", "--no-progress")
    assert code == 0, err
    assert "self-play: random holds every seat, so its win rate is 1/2 by construction" in out
    assert "measure the seats only" in out
    seat_lines = [line for line in out.splitlines() if line.startswith(("  P1 ", "  P2 "))]
    assert len(seat_lines) == 2 and "win rate by seat" in out
    (folder,) = (tmp_path / "results").iterdir()
    assert json.loads((folder / "config.json").read_text())["config"]["specs"] == ["random"]
    shares = [float(line.split()[1].rstrip("%")) for line in seat_lines]
    assert sum(shares) == pytest.approx(100.0, abs=0.11)


def test_a_match_between_two_bots_is_not_self_play(tmp_path, capsys):
    code, out, err = _compare(capsys, "greedy", "random", "--games", "2", "--jobs", "1", "--no-progress",
                              "--out", str(tmp_path / "r"))
    assert code == 0 and "self-play" not in out and "win rate by seat" not in out


def test_self_play_in_a_field_of_more_players(tmp_path, capsys):
    code, out, err = _compare(capsys, "greedy", "greedy", "greedy", "--players", "3", "--games", "3",
                              "--jobs", "1", "--no-progress", "--out", str(tmp_path / "f"))
    assert code == 0, err
    assert "so its win rate is 1/3 by construction" in out
    assert sum(line.startswith(("  P1 ", "  P2 ", "  P3 ")) for line in out.splitlines()) == 3
