"""Fault injection, a Dask cluster of real processes (a scheduler and workers started by the
test): the scheduler killed, every worker killed, a cluster of one thread, an unreachable
scheduler, and an experiment whose config names its cluster reproduced."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from glory_ai.arena import ArenaError, RunConfig, load_records, run, strip_timing
from glory_ai.arena import runner as runner_module
from glory_ai.experiments import reproduce, run_experiment
from support.faults import ROOT, cli, one_line_error

distributed = pytest.importorskip("distributed")
pytestmark = pytest.mark.slow

CONFIG = RunConfig(specs=("greedy", "random"), deals=40, seed=6)


def _port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """A scheduler and workers, each its own process group (so that a kill takes its children)."""

    def __init__(self, workers=2, threads=1):
        self.address = f"tcp://127.0.0.1:{_port()}"
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, start_new_session=True)
        self.scheduler = subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
             "--port", self.address.rsplit(":", 1)[1], "--no-dashboard"], **quiet)
        self.workers = [subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_worker", self.address, "--nthreads",
             str(threads), "--nworkers", "1", "--no-dashboard", "--no-nanny"], **quiet)
            for _ in range(workers)]
        with distributed.Client(self.address, timeout=60) as client:
            client.wait_for_workers(workers, timeout=60)

    @staticmethod
    def kill(process):
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()

    def close(self):
        for process in [*self.workers, self.scheduler]:
            self.kill(process)


@pytest.fixture
def cluster():
    made = Cluster()
    yield made
    made.close()


class KillAfter:
    """A stopping rule that never stops, and kills something once some games are back."""

    def __init__(self, games, kill):
        self.games, self.kill, self.seen = games, kill, 0

    def add(self, records):
        self.seen += len(records)
        if self.seen >= self.games and self.kill is not None:
            self.kill()
            self.kill = None
        return False

    def to_dict(self):
        return {}


def test_the_scheduler_killed_is_one_error_and_the_folder_resumes(cluster, tmp_path):
    out = tmp_path / "run"
    with pytest.raises(ArenaError, match="lost the dask scheduler") as info:
        run(CONFIG, out, backend="dask", scheduler=cluster.address, batch_size=2,
            stop=KillAfter(4, lambda: cluster.kill(cluster.scheduler)))
    assert "\n" not in str(info.value) and "finished games are kept" in str(info.value)
    resumed = run(CONFIG, out, n_jobs=1)
    assert resumed.resumed >= 4
    assert [strip_timing(r) for r in resumed.records] == [strip_timing(r) for r in run(CONFIG).records]


def test_the_scheduler_killed_under_the_command_is_one_line(cluster, tmp_path):
    # distributed logs its reconnection attempts with tracebacks: the command shows none
    out = tmp_path / "run"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    process = subprocess.Popen([sys.executable, "-m", "glory_ai.cli", "compare", "greedy", "random",
                                "--games", "2000", "--backend", "dask", "--scheduler", cluster.address,
                                "--batch-size", "2", "--out", str(out), "--no-progress"],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        games, deadline = out / "games.jsonl", time.monotonic() + 120
        while not (games.exists() and games.read_bytes().count(b"\n") >= 10):
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the run did not start"
            time.sleep(0.1)
        cluster.kill(cluster.scheduler)
        _, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
    one_line_error(subprocess.CompletedProcess(process.args, process.returncode, "", err),
                   "lost the dask scheduler", "finished games are kept")


def test_every_worker_killed_says_so_after_the_timeout(cluster, tmp_path, monkeypatch):
    monkeypatch.setattr(runner_module, "DASK_NO_WORKERS_TIMEOUT", 3.0)

    def kill_workers():
        for worker in cluster.workers:
            cluster.kill(worker)

    with pytest.raises(ArenaError, match=r"has had no worker for 3 s"):
        run(CONFIG, tmp_path / "run", backend="dask", scheduler=cluster.address, batch_size=2,
            stop=KillAfter(4, kill_workers))
    assert len(load_records(tmp_path / "run")) >= 4


def test_a_cluster_of_one_thread_plays_on_its_worker(tmp_path):
    one = Cluster(workers=1, threads=1)
    try:
        result = run(CONFIG, tmp_path / "run", backend="dask", scheduler=one.address, batch_size=8)
        assert result.n_jobs == 1 and result.games == CONFIG.total_games
        with distributed.Client(one.address, timeout=30) as client:
            done = client.run(lambda dask_worker: len(dask_worker.data) + dask_worker.state.executed_count)
        assert sum(done.values()) >= CONFIG.total_games // 8
    finally:
        one.close()


def test_an_unreachable_scheduler_is_one_line_and_leaves_no_folder(tmp_path):
    # one line and nothing after it (a Client that failed to connect used to linger at exit
    # and print an ignored exception's traceback)
    out = tmp_path / "x"
    one_line_error(cli("compare", "greedy", "random", "--games", "2", "--backend", "dask",
                       "--scheduler", f"tcp://127.0.0.1:{_port()}", "--out", str(out), "--no-progress"),
                   "cannot reach the dask scheduler")
    assert not out.exists()


def test_an_experiment_with_its_cluster_in_the_config_reproduces(cluster, tmp_path):
    config = tmp_path / "duel.toml"
    config.write_text(f'seed = 3\n[[matchup]]\nname = "duel"\nspecs = ["greedy", "random"]\ndeals = 4\n'
                      f'[run]\nbackend = "dask"\nscheduler = "{cluster.address}"\n'
                      '[analysis]\nreport = false\n')
    folder = run_experiment(config, tmp_path / "results", log=lambda *a: None, progress=False)
    assert reproduce(folder, log=lambda *a: None, progress=False).identical
    assert reproduce(folder, backend="loky", jobs=1, log=lambda *a: None, progress=False).identical
