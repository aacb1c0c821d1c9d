"""Fault injection, processes: SIGTERM to the main process stops a run as Ctrl-C does, and
after the main process dies (even by kill -9) no worker outlives it."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import psutil
import pytest

from glory_ai.arena import load_records
from glory_ai.cli import main
from support.faults import ROOT

pytestmark = pytest.mark.slow


def _start_compare(out, games=1000):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "glory_ai.cli", "compare", "greedy", "random",
                             "--games", str(games), "--jobs", "2", "--batch-size", "5",
                             "--out", str(out), "--no-progress"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _running_with_workers(process, out, deadline=90.0):
    """Wait until the run has written games and started its workers; the workers' pids."""
    games = out / "games.jsonl"
    end = time.monotonic() + deadline
    while True:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < end, "the run did not start"
        children = psutil.Process(process.pid).children(recursive=True)
        if games.exists() and games.stat().st_size > 20_000 and len(children) >= 2:
            return [c.pid for c in children]
        time.sleep(0.1)


def _gone(pids, deadline=20.0):
    """The processes that are still alive after waiting for them up to ``deadline`` s."""
    end = time.monotonic() + deadline
    alive = list(pids)
    while alive and time.monotonic() < end:
        alive = [pid for pid in alive if psutil.pid_exists(pid)
                 and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE]
        time.sleep(0.1)
    return alive


def test_sigterm_stops_the_run_as_ctrl_c_and_it_resumes(tmp_path):
    out = tmp_path / "run"
    process = _start_compare(out)
    workers = _running_with_workers(process, out)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 143, err
    assert "terminated:" in err and "games are saved" in err and "resume" in err
    assert "Traceback" not in err
    assert _gone(workers) == []
    kept = len(load_records(out))
    assert 0 < kept < 1000
    # the same command resumes; the folder verifies
    assert main(["compare", "greedy", "random", "--games", "1000", "--jobs", "2", "--out", str(out),
                 "--no-progress"]) == 0
    assert main(["verify", str(out), "--sample", "50"]) == 0


def test_no_worker_survives_a_killed_main_process(tmp_path):
    out = tmp_path / "run"
    process = _start_compare(out)
    workers = _running_with_workers(process, out)
    process.kill()
    process.communicate(timeout=30)
    assert _gone(workers) == [], [psutil.Process(p).cmdline()[:3] for p in workers if psutil.pid_exists(p)]
    # and the folder resumes
    assert main(["compare", "greedy", "random", "--games", "1000", "--jobs", "2", "--out", str(out),
                 "--no-progress"]) == 0


def test_a_worker_orphaned_before_its_watch_starts_exits():
    # the parent's pid is handed to the worker: one that starts its watch after its parent
    # died (adopted, so getppid() is no longer the parent) still sees it gone
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    worker = subprocess.run(
        [sys.executable, "-c", "import os, time; from glory_ai.arena._worker import watch_parent; "
         "watch_parent(os.getppid() + 1); time.sleep(120)"],
        env=env, capture_output=True, text=True, timeout=100)
    assert worker.returncode == 1, worker.stderr
