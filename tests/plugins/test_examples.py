"""The examples of docs/extending.md: the 20-line bot plays, and the plugin package really
installs (pip, offline, into a folder) with an entry point every glory-ai command finds."""
from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib

import glory_ai
from glory_ai.arena import RunConfig, run
from support.userbots import EXAMPLES, PLUGIN, run_cli


def test_the_example_bot_is_twenty_lines_and_plays(tmp_path, monkeypatch):
    source = (EXAMPLES / "cautious.py").read_text()
    code = [line for line in source.splitlines() if line.strip()]
    assert len(code) <= 22
    monkeypatch.chdir(tmp_path)
    spec = f"{EXAMPLES / 'cautious.py'}:Cautious:risk=0.1"
    records = run(RunConfig.for_games([spec, "random"], 200, seed=2), n_jobs=1).records
    wins = sum(r["returns"][r["seats"].index(spec)] for r in records)
    # building beats random play: about 59% over 300 games; 50% is 2.5 sigma below that
    assert wins > 100
    bot = glory_ai.make_bot(spec, seed=1)
    assert bot.inner.risk == 0.1


def test_the_plugin_declares_its_bot_in_the_glory_ai_group():
    project = tomllib.loads((PLUGIN / "pyproject.toml").read_text())["project"]
    [(name, target)] = project["entry-points"]["glory_ai.bots"].items()
    module, _, factory = target.partition(":")
    assert name == "scorer" and (PLUGIN / module / "__init__.py").exists()
    assert f"class {factory}:" in (PLUGIN / module / "__init__.py").read_text()


def test_the_plugin_installs_with_pip_and_its_bot_is_found(tmp_path):
    source = tmp_path / "plugin"
    shutil.copytree(PLUGIN, source)            # pip builds in the source folder: not in the tree
    target = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                           "--no-build-isolation", "--no-index", "--target", str(target), str(source)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    listed = run_cli(["bots"], tmp_path, [str(target)])
    assert listed.returncode == 0, listed.stderr
    assert "scorer [entry point of glory-ai-example-plugin 0.1.0]: One-ply lookahead on VP" in listed.stdout
    played = run_cli(["compare", "scorer", "random", "--games", "4", "--jobs", "2", "--no-progress",
                      "--out", "run"], tmp_path, [str(target)])
    assert played.returncode == 0, played.stderr
    assert "scorer " in played.stdout and "4 games in run/games.jsonl" in played.stdout
