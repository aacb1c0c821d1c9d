"""Bounded reads (glory_ai._reading): every file a user names, given as a device (/dev/zero) or
a FIFO, is refused in one line without being read (a FIFO without waiting for a writer), and a
file over its kind's cap is refused before it is read. The commands run in a subprocess with a
timeout, so that a reader that blocks or reads without end fails the test instead of hanging it."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from glory_ai import Game
from glory_ai._jsonio import MAX_BYTES
from glory_ai._reading import CONFIG_BYTES, MODEL_BYTES, SOURCE_BYTES, ReadLimitError, read_lines
from glory_ai.cli import main as cli_main

ROOT = Path(__file__).resolve().parents[2]

#: each command run on the special file PATH (a records file's name must end .jsonl)
COMMANDS = {
    "bot file": ["compare", "{path}:Bot", "random", "--games", "2", "--jobs", "1", "--no-progress",
                 "--trust"],
    "model": ["compare", "ismcts:iters=5,eval={path}", "random", "--games", "2", "--jobs", "1",
              "--no-progress", "--out", "model-run"],
    "experiment config": ["run", "{path}", "--no-progress"],
    "study config": ["tune", "{path}", "--no-progress"],
    "training config": ["train", "{path}"],
    "expert-iteration config": ["learn", "{path}", "--no-progress"],
    "position": ["analyze", "{path}"],
    "saved game": ["play", "--resume", "{path}"],
    "game file": ["replay", "{path}"],
    "records file": ["replay", "{jsonl}"],
    "compressed records": ["replay", "{gz}"],
}

#: runs every command in one interpreter, one JSON line per command (flushed: a hang shows where)
DRIVER = """
import contextlib, io, json, sys
from glory_ai.cli import main
for name, argv in json.loads(sys.argv[1]).items():
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(argv)
    print(json.dumps({"name": name, "code": code, "err": err.getvalue()}), flush=True)
"""


def _special_files(tmp_path: Path, kind: str) -> dict[str, str]:
    if kind == "fifo":
        paths = {"path": tmp_path / "pipe", "jsonl": tmp_path / "pipe.jsonl",
                 "gz": tmp_path / "pipe.jsonl.gz"}
        for path in paths.values():
            os.mkfifo(path)
    else:
        paths = {"path": Path("/dev/zero"), "jsonl": tmp_path / "zero.jsonl",
                 "gz": tmp_path / "zero.jsonl.gz"}
        for key in ("jsonl", "gz"):
            paths[key].symlink_to("/dev/zero")
    return {key: str(value) for key, value in paths.items()}


@pytest.mark.skipif(not Path("/dev/zero").exists() or not hasattr(os, "mkfifo"), reason="POSIX files")
@pytest.mark.parametrize("kind", ["device", "fifo"])
def test_a_device_or_a_fifo_is_one_line_and_nothing_is_read(tmp_path, kind):
    names = _special_files(tmp_path, kind)
    commands = {name: [part.format(**names) for part in argv] for name, argv in COMMANDS.items()}
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    try:
        done = subprocess.run([sys.executable, "-c", DRIVER, json.dumps(commands)], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=180)
    except subprocess.TimeoutExpired as exc:
        finished = (exc.stdout or b"").decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        pytest.fail(f"a read of a {kind} did not end; finished before: {finished}")
    assert done.returncode == 0, done.stderr
    results = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["name"] for r in results] == list(COMMANDS)
    expected = "a FIFO" if kind == "fifo" else "a character device"
    for result in results:
        lines = result["err"].strip().splitlines()
        assert result["code"] == 2 and len(lines) == 1, result
        assert f"{expected}, not a regular file" in lines[0] and "Traceback" not in result["err"], result


def _sparse(path: Path, size: int) -> Path:
    with open(path, "wb") as fh:
        fh.truncate(size)           # no data written: the cap refuses it by its size
    return path


@pytest.mark.parametrize("name, size, argv", [
    ("big.py", SOURCE_BYTES + 1, ["compare", "./big.py:Bot", "random", "--games", "2", "--trust"]),
    ("big.npz", MODEL_BYTES + 1, ["compare", "ismcts:iters=5,eval=big.npz", "random", "--games", "2",
                                  "--jobs", "1", "--no-progress", "--out", "run"]),
    ("big.toml", CONFIG_BYTES + 1, ["run", "big.toml"]),
    ("big.json", MAX_BYTES + 1, ["analyze", "big.json"]),
])
def test_an_oversized_file_is_refused_by_its_size(tmp_path, monkeypatch, capsys, name, size, argv):
    monkeypatch.chdir(tmp_path)
    _sparse(tmp_path / name, size)
    assert cli_main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"{size:,} bytes, more than the {size - 1:,}" in err, err


def test_a_records_line_over_the_cap_is_refused_naming_it(tmp_path):
    path = tmp_path / "games.jsonl"
    path.write_bytes(b'{"a": 1}\n' + b"x" * 100 + b"\n")
    with open(path, "rb") as fh:
        lines = read_lines(fh, str(path), max_line=99)
        assert next(lines) == b'{"a": 1}\n'
        with pytest.raises(ReadLimitError, match=r"games.jsonl: line 2 is longer than the 99 bytes"):
            next(lines)
    with open(path, "rb") as fh:         # a line of exactly the cap, its newline aside, is read
        assert len(list(read_lines(fh, str(path), max_line=100))) == 2


def test_a_regular_file_still_reads(tmp_path, monkeypatch, capsys):
    # the caps change nothing for the files glory_ai writes: a position, read back
    monkeypatch.chdir(tmp_path)
    state = Game(2).new_initial_state(5)
    (tmp_path / "position.json").write_text(json.dumps(state.to_dict()))
    assert cli_main(["analyze", "position.json", "--bot", "ismcts:iters=20", "--top", "2"]) == 0
    assert capsys.readouterr().out
