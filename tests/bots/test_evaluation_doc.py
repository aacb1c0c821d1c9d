"""docs/evaluation.md says what the code does: its complete example (a linear model written
by hand with numpy) runs, its compare commands play the model (the first prints the table
the page shows), and docs/extending.md links to it."""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import numpy as np

from glory_ai.analysis.commands import main_compare
from glory_ai.arena import load_records
from glory_ai.bots.models import load_model

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "evaluation.md"


def _example() -> tuple[str, list[list[str]], list[str]]:
    """The example's Python block, its glory-ai commands and the table rows it shows."""
    section = DOC.read_text().split("## A complete example", 1)[1].split("\n## ", 1)[0]
    fenced = re.findall(r"^```(\w*)\n(.*?)^```$", section, re.S | re.M)
    # the code, a transcript of the first compare (its command after "$ ", then what it
    # prints), and the commands that follow it
    assert [language for language, _ in fenced] == ["python", "console", "bash"]
    (_, python), (_, transcript), (_, lines) = fenced
    commands = [shlex.split(line.removeprefix("$ "))[1:] for line in (transcript + lines).splitlines()
                if line.removeprefix("$ ").startswith("glory-ai ")]
    rows = [line for line in transcript.splitlines()
            if not line.startswith("$ ") and (".npz" in line or line.startswith("greedy"))]
    return python, commands, rows


def _columns(row: str) -> list[str]:
    # a table row without its last column (the time per move differs from run to run)
    return row.split()[:-1]


def test_the_complete_example_runs_and_prints_what_the_page_shows(tmp_path, monkeypatch, capsys):
    code, commands, rows = _example()
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "docs/evaluation.md example", "exec"), {})
    model = load_model("mine.npz")
    assert model.kind == "linear" and model.output == "value"
    assert model.layers[0][0][0, 0] == 1.0 and np.count_nonzero(model.layers[0][0]) == 26

    compare_greedy, compare_search, report = commands
    assert compare_greedy[0] == "compare" and report[0] == "report"
    assert main_compare([*compare_greedy[1:], "--jobs", "1", "--no-progress"]) == 0
    printed = capsys.readouterr().out.splitlines()
    for row in rows:
        assert any(_columns(line) == _columns(row) for line in printed), row
    # the search with the model (two games here: the page's twenty take a minute)
    args = compare_search[1:]
    args[args.index("--games") + 1] = "2"
    assert main_compare([*args, "--jobs", "1", "--no-progress"]) == 0
    records = load_records(tmp_path / args[args.index("--out") + 1])
    assert len(records) == 2
    assert sorted(records[0]["seats"]) == ["ismcts:iters=200", "ismcts:iters=200,eval=mine.npz"]


def test_extending_links_to_the_evaluation_page():
    text = (ROOT / "docs" / "extending.md").read_text()
    assert "(evaluation.md)" in text and "[the search's evaluation](#the-searchs-evaluation)" in text
