"""Helpers of the fault-injection tests (tests/faults): the command line as a process, the
one-line error it must give, a small run to damage."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from glory_ai.arena import RunConfig

ROOT = Path(__file__).resolve().parents[2]
SMALL = RunConfig(specs=("greedy", "random"), deals=6, seed=11)
#: a small experiment (greedy against random, 5 deals, no report)
EXPERIMENT = """
question = "Does greedy beat random?"
seed = 4
[[matchup]]
name = "duel"
specs = ["greedy", "random"]
deals = 5
[run]
jobs = 1
[analysis]
report = false
"""


def cli(*args: str, timeout: float = 120, **kwargs) -> subprocess.CompletedProcess:
    """`glory-ai ARGS` in a fresh process (this tree's code)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="200")
    return subprocess.run([sys.executable, "-m", "glory_ai.cli", *args], capture_output=True,
                          text=True, timeout=timeout, env=env, **kwargs)


def one_line_error(process: subprocess.CompletedProcess, *words: str) -> str:
    """The process failed with status 2 and one line on stderr holding every word."""
    err = process.stderr
    assert process.returncode == 2, (process.returncode, err)
    assert err.count("\n") == 1 and err.startswith("glory-ai: error: "), err
    assert "Traceback" not in err
    for word in words:
        assert word in err, (word, err)
    return err
