"""The options of the commands as a user reads them: one vocabulary for scheduling games
across compare, tournament, run and reproduce; only the options a command can use; the
defaults shown (a seed of 0 too); help pointing to commands, not to the Python API; and the
results table's columns explained under it."""
from __future__ import annotations

import argparse

import pytest

from glory_ai import cli
from glory_ai._argparse import HelpFormatter
from glory_ai.analysis.commands import main_compare


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = cli.build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


@pytest.mark.parametrize("command", ["compare", "tournament", "run", "reproduce"])
def test_one_vocabulary_for_scheduling_the_games(command):
    options = {}
    for action in _subcommands()[command]._actions:
        for name in action.option_strings:
            options[name] = action
    reference = {name: options.get(name) for name in ("--jobs", "-j", "--backend", "--scheduler",
                                                      "--batch-size", "--no-progress")}
    assert all(reference.values()), f"{command} lacks {[n for n, a in reference.items() if a is None]}"
    compare = {}
    for action in _subcommands()["compare"]._actions:
        for name in action.option_strings:
            compare[name] = action
    for name, action in reference.items():
        theirs = compare[name]
        assert sorted(action.option_strings) == sorted(theirs.option_strings), name
        assert (action.dest, action.metavar, action.choices) == \
            (theirs.dest, theirs.metavar, theirs.choices), name


def test_verify_takes_jobs_as_the_others_do():
    options = {name: action for action in _subcommands()["verify"]._actions for name in action.option_strings}
    assert options["-j"] is options["--jobs"] and options["--jobs"].metavar == "J"


def test_run_passes_every_scheduling_option_over_the_config(tmp_path, monkeypatch, capsys):
    import glory_ai.experiments.runner as runner

    config = tmp_path / "small.toml"
    config.write_text('seed = 1\n[[matchup]]\nname = "duel"\nspecs = ["greedy", "random"]\ndeals = 1\n'
                      '[run]\njobs = 2\nbackend = "dask"\nscheduler = "tcp://nowhere:8786"\n')
    seen = {}

    def fake_run(experiment, results, **options):
        seen.update(run_options=dict(experiment.run_options), **options)
        return tmp_path

    monkeypatch.setattr(runner, "run_experiment", fake_run)
    assert cli.main(["run", str(config), "-j", "1", "--backend", "loky", "--batch-size", "3",
                     "--no-progress"]) == 0
    # the config's cluster is not used by loky
    assert seen["run_options"] == {"jobs": 1, "backend": "loky", "batch_size": 3}
    assert seen["progress"] is False
    assert cli.main(["run", str(config), "--scheduler", "tcp://other:8786"]) == 0
    assert seen["run_options"] == {"jobs": 2, "backend": "dask", "scheduler": "tcp://other:8786"}
    assert seen["progress"] is None
    capsys.readouterr()


def test_tournament_does_not_offer_sprt_and_refuses_it_by_name(tmp_path, capsys):
    text = _subcommands()["tournament"].format_help()
    assert "--sprt" not in text and "SPRT" not in text
    assert "--sprt" in _subcommands()["compare"].format_help()
    code = main_compare(["tournament", "greedy", "random", "--sprt", "--out", str(tmp_path / "t")])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and not (tmp_path / "t").exists()
    assert len(err.strip().splitlines()) == 1 and "glory-ai compare A B --sprt" in err


def test_help_points_a_user_to_commands_not_to_the_python_api():
    for name, parser in _subcommands().items():
        text = parser.format_help()
        assert "registry()" not in text, name
    assert "glory-ai bots" in " ".join(_subcommands()["compare"].format_help().split())


def test_a_zero_default_is_shown():
    parser = argparse.ArgumentParser(formatter_class=HelpFormatter)
    parser.add_argument("--seed", type=int, default=0, help="the seed")
    parser.add_argument("--flag", action="store_true", help="a flag")
    parser.add_argument("--auto", default=None, help="automatic")
    text = parser.format_help()
    assert "the seed (default: 0)" in " ".join(text.split())
    assert "(default: False)" not in text and "(default: None)" not in text


@pytest.mark.parametrize("command", ["compare", "tournament", "analyze"])
def test_the_seed_default_is_shown(command):
    text = " ".join(_subcommands()[command].format_help().split())
    seed_help = text.rsplit("--seed S ", 1)[1].split(" --", 1)[0]
    assert "(default: 0)" in seed_help, seed_help


def test_the_results_table_explains_its_columns_under_it(tmp_path, capsys):
    code = main_compare(["greedy", "random", "--games", "2", "--jobs", "1", "--no-progress",
                         "--out", str(tmp_path / "r")])
    out = capsys.readouterr().out
    assert code == 0
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("spec "))
    below = lines[header + 1:header + 10]
    columns = [line for line in below if line.startswith("columns: ")]
    assert len(columns) == 1
    for column in ("games", "win rate", "Elo diff", "BT Elo", "mean VP", "ms/move"):
        assert column in columns[0], column
    assert any(line.startswith("win rate interval: ") for line in below)
    assert any(line.startswith("Elo diff interval: ") for line in below)
