"""Results know the code that made them: a run records glory_ai's identity and every user
bot's (code.json), and a resume, `glory-ai run` and `glory-ai reproduce` with other code
are refused, naming what changed (or, asked, start afresh)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from glory_ai.analysis.commands import main_compare
from glory_ai.arena import ArenaError, RunConfig, load_records, run, strip_timing
from glory_ai.arena.code import CODE_FILE, code_changes, read_code
from glory_ai.arena.storage import write_config_records
from glory_ai.bots import identity
from glory_ai.cli import main as cli_main
from glory_ai.experiments import ExperimentError, reproduce, run_experiment
from support.userbots import write_bot

BOT = """
    import random


    class Picky:
        def __init__(self, seed=0):
            self.rng = random.Random(seed)

        def step(self, state):
            legal = state.legal_actions()
            return CHOICE
"""


def _bot(folder: Path, choice: str = "self.rng.choice(legal)") -> str:
    write_bot(folder / "picky.py", BOT.replace("CHOICE", choice))
    return "./picky.py:Picky"


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _compare(*args: str) -> int:
    return main_compare(["./picky.py:Picky", "random", "--games", "6", "--jobs", "1", "--no-progress",
                         "--trust", *args])


def test_a_run_records_the_code_that_plays_it(here):
    _bot(here)
    run(RunConfig.for_games(["./picky.py:Picky", "greedy"], 4), "run", n_jobs=1)
    code = read_code(here / "run")
    assert code["code"]["glory_ai"] == identity.package_identity()
    assert set(code["code"]["glory_ai"]) == {"version", "build", "sources"}
    bot = code["code"]["bots"]["./picky.py:Picky"]
    assert bot["kind"] == "file" and bot["fair_play"] is True
    assert bot["path"] == str(here / "picky.py")
    import hashlib
    assert bot["sha256"] == hashlib.sha256((here / "picky.py").read_bytes()).hexdigest()
    assert "earlier" not in code and "failure" not in code
    # only users' bots are listed: a run of built-ins records glory_ai alone
    run(RunConfig.for_games(["random", "greedy"], 2), "plain", n_jobs=1)
    assert read_code(here / "plain")["code"]["bots"] == {}


def test_the_play_sources_include_what_decides_a_game():
    files = identity.play_source_files()
    names = {path.as_posix().split("glory_ai/", 1)[1] for path in files}
    # the greedy bot's weights, the bots, the engine's Python face, the seeds, the loop's caller
    assert {"bots/styles.py", "bots/__init__.py", "game.py", "arena/plan.py", "arena/play.py",
            "data/cards.csv"} <= names
    assert not names & {"cli.py", "arena/storage.py", "analysis/report.py", "bots/bench.py"}


def test_resuming_with_a_changed_bot_is_refused_naming_it_and_fresh_starts_over(here, capsys):
    _bot(here)
    assert _compare("--out", "run") == 0
    before = load_records(here / "run")
    old_sha = read_code(here / "run")["code"]["bots"]["./picky.py:Picky"]["sha256"]
    _bot(here, "legal[0]")
    capsys.readouterr()
    assert _compare("--out", "run") == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("glory-ai: error: run holds games played by other code (./picky.py:Picky: "
                          f"source sha256 {old_sha[:12]} there, ")
    assert "run again with --fresh to start over (the old games are moved to run.old-1)" in err
    assert load_records(here / "run") == before                     # nothing touched
    assert _compare("--out", "run", "--fresh") == 0
    assert "--fresh: the earlier games of run are kept in run.old-1; starting over" in capsys.readouterr().out
    assert load_records(here / "run.old-1") == before
    assert read_code(here / "run")["code"]["bots"]["./picky.py:Picky"]["sha256"] != old_sha


def test_compare_in_its_default_folder_plays_the_new_code(here, capsys):
    """A user who edits a bot and runs the same command gets the new bot's games."""
    _bot(here)
    assert _compare() == 0
    [folder] = (here / "results").iterdir()
    first = [strip_timing(r) for r in load_records(folder)]
    _bot(here, "legal[0]")
    assert _compare() == 0
    out = capsys.readouterr().out
    moved = f"the code changed since it was played: the earlier games of {folder.relative_to(here)} are kept"
    assert moved in out
    assert "resumed" not in out
    again = [strip_timing(r) for r in load_records(folder)]
    assert again != first
    assert [strip_timing(r) for r in load_records(folder.with_name(folder.name + ".old-1"))] == first
    # the same code again: the finished folder is kept, nothing replayed
    assert _compare() == 0
    assert "no game played: the 6 games of" in capsys.readouterr().out
    assert [strip_timing(r) for r in load_records(folder)] == again


def _other_build(monkeypatch):
    real = identity.package_identity()
    changed = dict(real, build="0" * 64)
    monkeypatch.setattr(identity, "package_identity", lambda: changed)


def test_resuming_with_another_build_is_refused(here, monkeypatch):
    config = RunConfig.for_games(["random", "greedy"], 6)
    run(config, "run", n_jobs=1)
    _other_build(monkeypatch)
    with pytest.raises(ArenaError, match=r"run holds games played by other code \(glory_ai build "
                                         r"\(compiled sources\): [0-9a-f]{12} there, 000000000000 here\)"):
        run(config, "run", n_jobs=1)
    recorded = identity.short(read_code(here / "run")["code"]["glory_ai"]["build"])
    assert code_changes(here / "run", config) == [
        f"glory_ai build (compiled sources): {recorded} there, 000000000000 here"]


def test_a_fixed_bot_is_accepted_but_not_another_change(here, monkeypatch):
    from glory_ai.arena.code import note_failure
    from glory_ai.arena.play import BotFailure

    _bot(here)
    config = RunConfig.for_games(["./picky.py:Picky", "random"], 6)
    run(config, "run", n_jobs=1)
    note_failure(here / "run", BotFailure("x", spec="./picky.py:Picky", game_id="1-0-0", reason="raised"))
    _other_build(monkeypatch)
    _bot(here, "legal[-1]")
    with pytest.raises(ArenaError, match="glory_ai build"):
        run(config, "run", n_jobs=1)


def test_a_folder_from_before_code_records_resumes(here):
    config = RunConfig.for_games(["random", "greedy"], 6)
    run(config, "run", n_jobs=1)
    code_file = here / "run" / CODE_FILE
    code_file.unlink()
    lines = (here / "run" / "games.jsonl").read_text().splitlines(keepends=True)
    (here / "run" / "games.jsonl").write_text("".join(lines[:2]))
    write_config_records(here / "run", None)        # nor checksums, then
    assert code_changes(here / "run", config) is None
    result = run(config, "run", n_jobs=1)
    assert result.resumed == 2 and result.played == 4
    assert read_code(here / "run")["earlier"] == [{"code": None, "games": 2}]


EXPERIMENT = """
name = "mine"
seed = 4

[[matchup]]
name = "duel"
specs = ["./picky.py:Picky", "random"]
deals = 2

[analysis]
report = false
"""


def test_run_and_reproduce_refuse_other_code(here, monkeypatch, capsys):
    _bot(here)
    (here / "mine.toml").write_text(EXPERIMENT)
    folder = run_experiment(here / "mine.toml", here / "results", log=lambda *a: None, progress=False)
    manifest = json.loads((folder / "manifest.json").read_text())
    assert list(manifest["code"]["bots"]) == ["./picky.py:Picky"]
    assert reproduce(folder, log=lambda *a: None, progress=False).identical
    _bot(here, "legal[0]")
    with pytest.raises(ExperimentError, match=r"results/mine/runs/duel was played by other code "
                                              r"\(\./picky\.py:Picky: source sha256"):
        reproduce(folder, log=lambda *a: None, progress=False)
    lines: list[str] = []
    report = reproduce(folder, log=lines.append, progress=False, allow_code_change=True)
    assert any(line.startswith("note: duel was played by other code") for line in lines)
    assert not report.identical                         # the new bot plays other games
    # glory-ai run refuses too, and --fresh starts over
    assert cli_main(["run", "mine.toml", "--results", "results", "--no-progress", "--trust"]) == 2
    assert "holds games played by other code" in capsys.readouterr().err
    assert cli_main(["run", "mine.toml", "--results", "results", "--no-progress", "--fresh", "--trust"]) == 0
    assert (here / "results" / "mine.old-1" / "runs" / "duel").is_dir()
    assert reproduce(folder, log=lambda *a: None, progress=False).identical
    # and a build change is refused by reproduce as well
    _other_build(monkeypatch)
    with pytest.raises(ExperimentError, match="glory_ai build"):
        reproduce(folder, log=lambda *a: None, progress=False)


def test_identity_changes_name_each_part():
    there = {"glory_ai": {"version": "0.1.0", "build": "a" * 64, "sources": "b" * 64},
             "bots": {"scorer": {"kind": "entry_point", "target": "p:S", "distribution": "p",
                                 "version": "0.1.0", "sha256": "c" * 64, "fair_play": True}}}
    here = json.loads(json.dumps(there))
    assert identity.identity_changes(there, here) == []
    here["glory_ai"]["sources"] = "d" * 64
    here["bots"]["scorer"]["version"] = "0.2.0"
    here["bots"]["scorer"]["path"] = "/elsewhere"          # recorded, not compared
    assert identity.identity_changes(there, here) == [
        "glory_ai Python sources: bbbbbbbbbbbb there, dddddddddddd here",
        "scorer: version 0.1.0 there, 0.2.0 here"]


def test_results_from_before_code_records_warn_of_another_build(here):
    (here / "mine.toml").write_text(EXPERIMENT.replace("./picky.py:Picky", "greedy"))
    folder = run_experiment(here / "mine.toml", here / "results", log=lambda *a: None, progress=False)
    (folder / "runs" / "duel" / CODE_FILE).unlink()               # as results made before
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["build"]["source_hash"] = "f" * 64
    (folder / "manifest.json").write_text(json.dumps(manifest))
    lines: list[str] = []
    assert reproduce(folder, log=lines.append, progress=False).identical
    warning = f"warning: {folder} was made by the build ffffffffffff; this is "
    assert any(line.startswith(warning) for line in lines)
    lines.clear()
    run_experiment(here / "mine.toml", here / "results", log=lines.append, progress=False)
    assert any(line.startswith(warning) for line in lines)


def test_a_folder_being_written_is_not_set_aside(here):
    from glory_ai.arena.code import set_aside
    from glory_ai.arena.lock import FolderLock, FolderLocked

    run(RunConfig.for_games(["random", "greedy"], 2), "run", n_jobs=1)
    with FolderLock(here / "run"), pytest.raises(FolderLocked, match="is being written by process"):
        set_aside(here / "run")
    assert set_aside(here / "run") == here / "run.old-1" and not (here / "run").exists()
    assert set_aside(here / "run") is None
