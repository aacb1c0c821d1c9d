"""Code runs only when asked (glory_ai.bots.trust, docs/extending.md#code-runs-only-when-asked):
a command naming a bot file or a module refuses without --trust, in one line listing the code,
before any of it runs; MODULE:OBJECT names a bot or nothing, so ``os:system:...`` runs nothing
even trusted; Python callers, registered and installed plugin bots need no trust; shipped
results name no code, so reproducing them needs none."""
from __future__ import annotations

import sys

import pytest

from glory_ai.bots import SpecError, make_bot, plugins
from glory_ai.bots.trust import UntrustedCode, check_bot_factory, code_named, code_trust
from glory_ai.cli import main as cli_main
from glory_ai.experiments import load_experiment, run_experiment
from support.userbots import ROOT, run_cli, write_bot

#: a bot file that leaves a mark when its code runs
MARKING_BOT = """
    import pathlib

    pathlib.Path("ran.txt").write_text("the bot file ran")


    class Marked:
        def __init__(self, seed=0):
            self.seed = seed

        def step(self, state):
            return state.legal_actions()[0]
"""


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(plugins, "_FILE_MODULES", {})      # a file run by an earlier test runs again
    write_bot(tmp_path / "marked.py", MARKING_BOT)
    return tmp_path


@pytest.fixture
def marked_module(here, monkeypatch):
    """The marking bot as an importable module ``marked_mod`` (forgotten afterwards)."""
    write_bot(here / "marked_mod.py", MARKING_BOT)
    monkeypatch.syspath_prepend(str(here))
    yield "marked_mod"
    sys.modules.pop("marked_mod", None)
    plugins._module_definition.cache_clear()


def _one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


# ---- os:system and friends run nothing, trusted or not --------------------------------------

@pytest.mark.parametrize("trust", [[], ["--trust"]])
@pytest.mark.parametrize("spec", ["os:system:command=touch pwned.txt", "os:popen:cmd=touch pwned.txt",
                                  "subprocess:run:args=touch pwned.txt",
                                  "subprocess:Popen:args=touch pwned.txt"])
def test_a_module_function_or_class_that_is_no_bot_runs_nothing(here, spec, trust):
    done = run_cli(["compare", spec, "random", "--games", "2", "--jobs", "1", "--no-progress", *trust],
                   here, timeout=120)
    assert done.returncode == 2
    line = _one_error_line(done.stderr)
    assert not (here / "pwned.txt").exists()
    if trust:
        assert "is not a bot" in line and "nothing was called" in line
    else:
        assert "give --trust" in line and f"the module {spec.split(':')[0]}" in line


def test_python_callers_are_trusted_but_get_no_command_run_either(here):
    with pytest.raises(SpecError, match=r"os\.system is not a bot"):
        make_bot("os:system:command=touch pwned.txt")
    assert not (here / "pwned.txt").exists()


class _Plain:
    """A bot of the documented interface: a class with step()."""

    def step(self, state):
        return 0


def _annotated(level: int = 1) -> _Plain:       # a postponed annotation: looked up by name, not run
    return _Plain()


def _bare(level: int = 1):
    return _Plain()


def test_what_a_module_object_may_be():
    from glory_ai.bots import Bot

    class Subclass(Bot):
        pass

    def evaluated(level: int = 1):
        return _Plain()

    evaluated.__annotations__["return"] = _Plain          # an annotation that is the class itself

    class NoStep:
        pass

    for good in (_Plain, Subclass, _annotated, evaluated):
        check_bot_factory(good, "bot spec 'm:x'", "m.x")
    for bad in (_bare, NoStep, print, len, _Plain(), "text", sys.exit, dict):
        with pytest.raises(SpecError, match="m.x is not a bot"):
            check_bot_factory(bad, "bot spec 'm:x'", "m.x")


# ---- files and modules need --trust on the command line -------------------------------------

def test_a_file_bot_is_refused_without_trust_naming_the_file_and_plays_with_it(here, capsys):
    args = ["compare", "./marked.py:Marked", "random", "--games", "2", "--jobs", "1", "--no-progress",
            "--out", "run"]
    assert cli_main(args) == 2
    line = _one_error_line(capsys.readouterr().err)
    assert line.startswith("glory-ai: error: the bot specs name code to run: the file "
                           f"{here / 'marked.py'} (./marked.py:Marked); none of it was run: give --trust")
    assert not (here / "ran.txt").exists() and not (here / "run").exists()
    assert cli_main([*args, "--trust"]) == 0
    assert (here / "ran.txt").exists()


def test_every_spec_naming_code_is_listed_at_once(here, marked_module, capsys):
    assert cli_main(["tournament", "./marked.py:Marked", "greedy", f"{marked_module}:Marked",
                     "--games", "2", "--no-progress"]) == 2
    line = _one_error_line(capsys.readouterr().err)
    assert f"the file {here / 'marked.py'} (./marked.py:Marked)" in line
    assert "the module marked_mod (marked_mod:Marked)" in line
    assert not (here / "ran.txt").exists() and "marked_mod" not in sys.modules


@pytest.mark.parametrize("command", [
    ["play", "--bots", "./marked.py:Marked,greedy", "--seat", "none", "--seed", "1"],
    ["play", "--hint-bot", "./marked.py:Marked", "--seat", "none", "--seed", "1"],
    ["watch", "--bots", "./marked.py:Marked,greedy", "--seed", "1"],
    ["selfplay", "./marked.py:Marked", "random", "--games", "2", "--out", "sp"],
    ["tournament", "greedy", "random", "--gauntlet", "./marked.py:Marked", "--games", "2"],
])
def test_each_command_that_takes_specs_refuses_code_without_trust(here, capsys, command):
    assert cli_main(command) == 2
    line = _one_error_line(capsys.readouterr().err)
    assert "(./marked.py:Marked)" in line and "give --trust" in line
    assert not (here / "ran.txt").exists()


def test_analyze_refuses_a_bot_file_without_trust(here, capsys):
    from glory_ai import Game

    (here / "position.json").write_text(__import__("json").dumps(Game(2).new_initial_state(3).to_dict()))
    assert cli_main(["analyze", "position.json", "--bot", "./marked.py:Marked"]) == 2
    assert "give --trust" in _one_error_line(capsys.readouterr().err)
    assert not (here / "ran.txt").exists()


def test_every_command_with_specs_has_the_one_flag():
    from glory_ai.cli import build_parser

    commands = build_parser()._subparsers._group_actions[0].choices
    for name in ("compare", "tournament", "run", "reproduce", "play", "watch", "analyze", "selfplay", "tune"):
        assert "--trust" in commands[name].format_help(), name


EXPERIMENT = """
name = "mine"
seed = 4

[[matchup]]
name = "duel"
specs = ["./marked.py:Marked", "random"]
deals = 1

[analysis]
report = false
"""


def test_a_config_naming_code_is_refused_without_trust(here, capsys):
    (here / "mine.toml").write_text(EXPERIMENT)
    assert cli_main(["run", "mine.toml", "--results", "results", "--no-progress"]) == 2
    line = _one_error_line(capsys.readouterr().err)
    assert "(./marked.py:Marked)" in line and "give --trust" in line
    assert not (here / "ran.txt").exists() and not (here / "results" / "mine" / "runs").exists()
    assert cli_main(["run", "mine.toml", "--results", "results", "--no-progress", "--trust"]) == 0
    (here / "ran.txt").unlink()
    # reproducing it runs the file again: --trust again
    assert cli_main(["reproduce", "results/mine", "--no-progress", "--jobs", "1"]) == 2
    assert "give --trust" in _one_error_line(capsys.readouterr().err)
    assert not (here / "ran.txt").exists()
    assert cli_main(["reproduce", "results/mine", "--no-progress", "--jobs", "1", "--trust"]) == 0


def test_a_result_of_builtin_bots_reproduces_without_trust(here, capsys):
    (here / "mine.toml").write_text(EXPERIMENT.replace("./marked.py:Marked", "greedy"))
    run_experiment(here / "mine.toml", here / "results", log=lambda *a: None, progress=False)
    assert cli_main(["reproduce", "results/mine", "--no-progress", "--jobs", "1"]) == 0
    assert "reproduced: every run's records match" in capsys.readouterr().out


@pytest.mark.parametrize("config", sorted([*(ROOT / "results").glob("*/experiment.toml"),
                                            *(ROOT / "results").glob("*/tune.toml")]),
                         ids=lambda p: p.parent.name)
def test_shipped_results_name_no_code_so_reproduce_needs_no_trust(config):
    from glory_ai.learn.iterate import load_learn_config
    from glory_ai.learn.prior import load_prior_config
    from glory_ai.tune import load_tune_config

    with code_trust(False):         # as the command line without --trust: code would be refused
        if config.name == "tune.toml":
            assert load_tune_config(config).name
            return
        text = config.read_text()
        if "[[matchup]]" not in text:         # an expert iteration's config: the evaluation's or the prior's
            assert (load_learn_config(config) if "[selfplay]" in text else load_prior_config(config)).name
            return
        experiment = load_experiment(config)
        runs = experiment.runs()
    assert runs and not code_named(spec for run in runs for spec in run.config.specs)


def test_the_python_api_is_trusted_and_the_switch_is_restored(here):
    assert make_bot("./marked.py:Marked").inner.seed == 0          # no --trust in Python
    with code_trust(False):
        with pytest.raises(UntrustedCode):
            make_bot("./marked.py:Marked")
    assert make_bot("./marked.py:Marked") is not None


def test_an_installed_plugin_needs_no_trust(here, plugin_paths):
    done = run_cli(["compare", "scorer:greed=1.5", "random", "--games", "2", "--jobs", "1", "--no-progress"],
                   here, plugin_paths, timeout=300)
    assert done.returncode == 0, done.stderr


def test_parsing_the_command_line_runs_no_code(here, capsys):
    # --bots and --hint-bot are read by argparse before the command runs: they must not load the file
    assert cli_main(["play", "--bots", "./marked.py:Marked", "--seat", "none", "--seed", "1",
                     "--players", "9"]) == 2
    assert not (here / "ran.txt").exists()
