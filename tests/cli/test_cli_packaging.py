"""What the sdist and the wheel carry for the command line: the shipped experiment configs
found by name (`glory-ai run seat_advantage`) from the source tree and from a build folder
laid out as a wheel installs it, and an sdist whose file list is the tracked sources,
made without a warning."""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from glory_ai.cli import main
from glory_ai.experiments.commands import find_config, shipped_folder, shipped_names
from glory_ai.experiments.config import ExperimentError

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted(p.name for p in (ROOT / "experiments").glob("*.toml"))


def test_the_source_tree_finds_the_shipped_experiments_by_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)                 # no experiments/ folder here
    assert shipped_folder() == ROOT / "experiments"
    assert shipped_names() == [Path(name).stem for name in SHIPPED]
    for given in ("seat_advantage", "seat_advantage.toml", "experiments/seat_advantage.toml"):
        assert find_config(given) == ROOT / "experiments" / "seat_advantage.toml"
    with pytest.raises(ExperimentError, match=r"nosuch: no such file; the shipped experiments: .*seat_adv"):
        find_config("nosuch")
    # a path elsewhere is never taken for a shipped experiment
    with pytest.raises(ExperimentError, match="no such file"):
        find_config("configs/seat_advantage.toml")


def test_a_file_here_comes_before_a_shipped_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "experiments").mkdir()
    (tmp_path / "experiments" / "seat_advantage.toml").write_text("edited here")
    assert find_config("seat_advantage") == Path("experiments/seat_advantage.toml")
    (tmp_path / "seat_advantage").write_text("named exactly")
    assert find_config("seat_advantage") == Path("seat_advantage")
    # the shipped ones stay reachable by their name when no such file is here
    assert find_config("strategy_ladder") == ROOT / "experiments" / "strategy_ladder.toml"


def test_run_names_a_shipped_experiment_and_the_help_lists_them(tmp_path, monkeypatch, capsys):
    import glory_ai.experiments.runner as runner

    monkeypatch.chdir(tmp_path)
    ran = {}

    def fake_run(experiment, results, **options):
        ran.update(name=experiment.name, options=dict(experiment.run_options), results=results)
        return tmp_path / "results" / experiment.name

    monkeypatch.setattr(runner, "run_experiment", fake_run)
    assert main(["run", "seat_advantage", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert f"the experiment seat_advantage: {ROOT / 'experiments' / 'seat_advantage.toml'}" in out
    assert ran["name"] == "seat_advantage" and ran["options"]["jobs"] == 1
    assert main(["run", "--help"]) == 0
    help_text = " ".join(capsys.readouterr().out.split())
    assert "glory-ai run seat_advantage" in help_text
    assert all(Path(name).stem in help_text for name in SHIPPED)


def _build_py(target: Path) -> None:
    """setup.py's build_py into `target`: the pure-Python part of a wheel, as pip lays it out."""
    done = subprocess.run([sys.executable, "setup.py", "-q", "build_py", "--build-lib", str(target)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


def test_a_wheel_carries_the_experiment_configs_and_finds_them_by_name(tmp_path):
    if not (ROOT / "setup.py").is_file():
        pytest.skip("needs the source tree (setup.py)")
    lib = tmp_path / "lib"
    _build_py(lib)
    packaged = lib / "glory_ai" / "experiments" / "shipped"
    assert sorted(p.name for p in packaged.glob("*.toml")) == SHIPPED
    for name in SHIPPED:
        assert (packaged / name).read_bytes() == (ROOT / "experiments" / name).read_bytes()
    # the compiled modules beside their packages, as a wheel has them
    for built in ROOT.glob("glory_ai/**/*.so"):
        shutil.copy(built, lib / built.relative_to(ROOT))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**os.environ, "PYTHONPATH": str(lib)}
    probe = ("import glory_ai, sys; from glory_ai.experiments.commands import find_config, shipped_folder\n"
             "print(glory_ai.__file__); print(shipped_folder()); print(find_config(sys.argv[1]))")
    done = subprocess.run([sys.executable, "-c", probe, "experiments/seat_advantage.toml"], cwd=elsewhere,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    module, folder, found = done.stdout.split("\n")[:3]
    assert Path(module).is_relative_to(lib)
    assert Path(folder) == packaged and Path(found) == packaged / "seat_advantage.toml"
    # the learned evaluation ISMCTS plays by default travels with the package
    shipped_model = ROOT / "glory_ai" / "data" / "models" / "learned.npz"
    assert (lib / shipped_model.relative_to(ROOT)).read_bytes() == shipped_model.read_bytes()
    probe = "from glory_ai.bots import make_bot; print(make_bot('ismcts:iters=10').model_hash)"
    done = subprocess.run([sys.executable, "-c", probe], cwd=elsewhere, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == hashlib.sha256(shipped_model.read_bytes()).hexdigest()
    # the help's own example from outside the tree: found, checked, and the run starts
    # (a bad --out ends it before any game, leaving no folder)
    done = subprocess.run([sys.executable, "-m", "glory_ai", "run", "seat_advantage", "--out", ""],
                          cwd=elsewhere, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "--out" in done.stderr and "no such file" not in done.stderr
    assert list(elsewhere.iterdir()) == []


def test_the_sdist_lists_the_tracked_sources_without_a_warning(tmp_path):
    if not (ROOT / "setup.py").is_file() or shutil.which("git") is None:
        pytest.skip("needs the source tree and git")
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    if tracked.returncode != 0:
        pytest.skip("not a git checkout")
    # egg_info is the step of the sdist that reads MANIFEST.in; its folder goes to tmp_path
    done = subprocess.run([sys.executable, "setup.py", "egg_info", "--egg-base", str(tmp_path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    output = done.stdout + done.stderr
    assert "warning" not in output.lower() and "no files found" not in output, output
    listed = set((tmp_path / "glory_ai.egg-info" / "SOURCES.txt").read_text().split())
    listed = {name for name in listed if not name.startswith(str(tmp_path))}
    # results/ (22 MB of shipped runs) and the CI script are not part of the source release
    wanted = {name for name in tracked.stdout.split()
              if not name.startswith(("results/", ".ci/")) and name != ".gitignore"}
    assert wanted - listed == set(), "tracked files missing from the sdist"
    # beyond them, at most new files not yet committed (never one git ignores: a build product)
    new = subprocess.run(["git", "ls-files", "--others", "--exclude-standard"], cwd=ROOT,
                         capture_output=True, text=True).stdout.split()
    assert listed - wanted - set(new) == set(), "generated files in the sdist"
    assert {f"experiments/{name}" for name in SHIPPED} <= listed
