"""Users' bots wherever a spec goes: compare with one or two workers (the workers import
them), Dask workers (the file's source travels with the task), registered bots, hooks."""
from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

import glory_ai
from glory_ai.arena import RunConfig, load_records, run, strip_timing
from glory_ai.arena.play import play_batch, play_options
from glory_ai.bots import SpecError, make_bot
from glory_ai.bots.plugins import Shipment, definition
from support.userbots import EXAMPLES, ROOT, run_cli

CAUTIOUS = EXAMPLES / "cautious.py"


def _records(folder: Path) -> list[dict]:
    return [strip_timing(r) for r in load_records(folder)]


def test_file_and_entry_point_bots_give_the_same_records_on_one_or_two_workers(tmp_path, plugin_paths):
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "cautious.py").write_text(CAUTIOUS.read_text())
    specs = ["bots/cautious.py:Cautious:risk=0.2", "scorer:greed=1.5", "random"]
    for jobs in ("1", "2"):
        done = run_cli(["compare", *specs, "--players", "3", "--games", "12", "--jobs", jobs,
                        "--batch-size", "2", "--no-progress", "--out", f"jobs{jobs}", "--trust"], tmp_path,
                       plugin_paths)
        assert done.returncode == 0, done.stderr
        assert "scorer:greed=1.5" in done.stdout and "bots/cautious.py:Cautious:risk=0.2" in done.stdout
    one, two = _records(tmp_path / "jobs1"), _records(tmp_path / "jobs2")
    assert len(one) == 12 and one == two
    assert {tuple(r["seats"]) for r in one} >= {tuple(specs)}
    code = json.loads((tmp_path / "jobs2" / "code.json").read_text())["code"]["bots"]
    assert (code["scorer"]["distribution"], code["scorer"]["version"]) == ("glory-ai-example-plugin", "0.1.0")
    assert code["bots/cautious.py:Cautious"]["path"] == str(tmp_path / "bots" / "cautious.py")


REGISTERING = """
    import random
    import sys

    from glory_ai.arena import RunConfig, run, strip_timing
    from glory_ai.bots import register


    class Mine:
        def __init__(self, seed=0, bias=0.5):
            self.rng = random.Random(seed)
            self.bias = bias

        def step(self, state):
            legal = state.legal_actions()
            return legal[0] if self.rng.random() < self.bias else self.rng.choice(legal)


    if __name__ == "__main__":
        register("mine", Mine)
        config = RunConfig.for_games(["mine:bias=0.3", "greedy"], 8)
        one = [strip_timing(r) for r in run(config, n_jobs=1).records]
        two = [strip_timing(r) for r in run(config, n_jobs=2, batch_size=1).records]
        print(one == two, len(two), sorted({s for r in two for s in r["seats"]}))
"""


def test_a_bot_registered_in_a_script_plays_on_the_workers_too(tmp_path):
    import os
    import subprocess

    (tmp_path / "script.py").write_text(textwrap.dedent(REGISTERING))
    done = subprocess.run([sys.executable, "script.py"], cwd=tmp_path, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True 8 ['greedy', 'mine:bias=0.3']"


def test_the_workers_play_the_source_the_run_read(tmp_path, monkeypatch):
    """The file's source travels with the tasks: a worker never reads the file, so the code
    that plays is the code the run recorded (and a file on one machine is enough)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.py").write_text(CAUTIOUS.read_text())
    config = RunConfig.for_games(["./mine.py:Cautious", "random"], 4)
    expected = [strip_timing(r) for r in run(config, n_jobs=1).records]
    options = play_options(config)
    shipped = options.bots["./mine.py:Cautious"]
    assert shipped.kind == "file" and shipped.source == CAUTIOUS.read_text()
    (tmp_path / "mine.py").unlink()
    tasks = [__import__("dataclasses").replace(t, options=options) for t in config.tasks()]
    assert [strip_timing(r) for r in play_batch(tasks)] == expected
    with pytest.raises(SpecError, match="no such file"):
        make_bot("./mine.py:Cautious")


def test_a_dask_cluster_plays_a_file_bot_it_has_no_file_of(tmp_path, monkeypatch):
    distributed = pytest.importorskip("distributed")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.py").write_text(CAUTIOUS.read_text())
    config = RunConfig.for_games(["./mine.py:Cautious:risk=0.1", "greedy"], 6)
    expected = [strip_timing(r) for r in run(config, n_jobs=1).records]
    options = play_options(config)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        by_dask = run(config, tmp_path / "run", backend="dask", scheduler=cluster.scheduler_address,
                      batch_size=2)
        assert [strip_timing(r) for r in by_dask.records] == expected
        # the workers' folder is elsewhere and the file is gone: the tasks carry the source
        (tmp_path / "mine.py").unlink()
        tasks = [__import__("dataclasses").replace(t, options=options) for t in config.tasks()]
        with distributed.Client(cluster) as client:
            played = client.submit(play_batch, tasks).result()
    assert [strip_timing(r) for r in played] == expected


def test_a_worker_with_other_code_for_a_module_bot_refuses(tmp_path, monkeypatch):
    (tmp_path / "modbot.py").write_text(CAUTIOUS.read_text())
    monkeypatch.syspath_prepend(str(tmp_path))
    found, _ = definition("modbot:Cautious")
    assert found.identity["sha256"] is not None
    recorded = Shipment("module", dict(found.identity, sha256="0" * 64))
    with pytest.raises(SpecError, match="this worker imports other code than the run records"):
        definition("modbot:Cautious", {"modbot:Cautious": recorded})
    sys.modules.pop("modbot", None)


HOOKED = """
    class Watcher:
        log = []

        def __init__(self, seed=0):
            self.seen = Watcher.log

        def new_game(self, state, player):
            self.seen.append(("new_game", player, state.current_player(), len(state.history())))

        def observe(self, state, player, action):
            self.seen.append(("observe", player, action))

        def step(self, state):
            return state.legal_actions()[0]
"""


def test_the_hooks_are_told_of_a_new_game_and_of_every_move(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "watcher.py").write_text(textwrap.dedent(HOOKED))
    config = RunConfig(specs=("random", "./watcher.py:Watcher"), deals=1, rotate=False)
    # in this process, to read the bot's log (tests/arena/test_bot_host.py: the hooks hosted)
    [record] = run(config, n_jobs=1, isolation="none").records
    log = definition("./watcher.py:Watcher")[0].info.factory.target.log
    assert log[0] == ("new_game", 1, glory_ai.Game(2).new_initial_state(record["seed"]).current_player(), 0)
    moves = [entry for entry in log[1:]]
    assert len(moves) == len(record["actions"])
    assert all(entry[0] == "observe" for entry in moves)
    assert [entry[2] for entry in moves] == record["actions"]      # nothing hidden in these games


def test_observe_hides_an_opponents_vault_from_hand(tmp_path, monkeypatch):
    from glory_ai.actions import encode

    monkeypatch.chdir(tmp_path)
    (tmp_path / "watcher.py").write_text(textwrap.dedent(HOOKED))
    bot = make_bot("./watcher.py:Watcher")
    bot.inner.seen.clear()
    state = glory_ai.Game(2).new_initial_state(3)
    bot.new_game(state, 0)
    vault = encode("vault_hand", "Temple")
    bot.observe(state, 1, vault)            # another player's card, unseen
    bot.observe(state, 0, vault)            # its own
    bot.observe(state, 1, encode("vault_stockpile", "Temple"))
    assert bot.inner.seen[1:] == [("observe", 1, None), ("observe", 0, vault),
                                  ("observe", 1, encode("vault_stockpile", "Temple"))]


def test_a_bot_registered_without_a_source_file_plays(tmp_path):
    # `python3 -c`, a REPL or a notebook: the class has no file to hash; it still plays, and
    # its identity says no source was read (sha256 None)
    import os
    import subprocess

    program = textwrap.dedent("""
        from glory_ai.arena import RunConfig, run
        from glory_ai.bots import register
        from glory_ai.bots.plugins import definition

        class First:
            def __init__(self, seed=0):
                pass

            def step(self, state):
                return state.legal_actions()[0]

        register("first", First)
        records = run(RunConfig.for_games(["first", "random"], 4), n_jobs=1).records
        print(len(records), definition("first")[0].identity["sha256"])
    """)
    done = subprocess.run([sys.executable, "-c", program], cwd=tmp_path, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "4 None"
