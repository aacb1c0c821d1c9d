"""Fault injection, files and inputs: damaged compressed records (bit flips, zlib errors),
outputs that cannot be written (under a file, /proc, /sys, a read-only or immutable folder,
a full disk), hostile configs and arguments. Each is one line on stderr with status 2,
never a traceback; a full disk keeps every complete record and the run resumes."""
from __future__ import annotations

import contextlib
import errno
import gzip
import logging
import os
import random
import subprocess
import zlib
from pathlib import Path

import pytest

from glory_ai.arena import ArenaError, RunConfig, load_records, run, strip_timing
from glory_ai.arena import runner as runner_module
from glory_ai.arena.plan import MAX_DEALS
from glory_ai.arena.storage import RunFolder, compress_run
from glory_ai.cli import main
from glory_ai.experiments import ExperimentError, load_experiment, run_experiment
from support.faults import SMALL, cli, one_line_error


def _main(capsys, *args):
    """`glory-ai ARGS` in this process: (status, stderr); stderr must be one line."""
    try:
        code = main(list(args))
    except SystemExit as exc:              # argparse's refusals
        code = exc.code
    err = capsys.readouterr().err
    if code == 2:
        assert err.count("\n") == 1 and "Traceback" not in err, err
    return code, err


# ---- bit flips in compressed records ----------------------------------------------------------

@pytest.fixture
def packed(finished):
    compress_run(finished)
    return finished


def _zlib_flip(data: bytes) -> tuple[int, int]:
    """A single-bit flip of a gzip file that makes zlib itself fail (not the CRC check)."""
    for position in range(10, len(data) - 8):
        for bit in range(8):
            damaged = bytearray(data)
            damaged[position] ^= 1 << bit
            try:
                gzip.decompress(bytes(damaged))
            except zlib.error:
                return position, bit
            except (OSError, EOFError, ValueError):
                pass
    raise AssertionError("no flip makes zlib fail")


def test_single_bit_flips_in_a_gz_are_named_or_harmless(packed):
    path = packed / "games.jsonl.gz"
    data = path.read_bytes()
    expected = load_records(packed)
    generator = random.Random(5)
    flips = [(generator.randrange(len(data)), generator.randrange(8)) for _ in range(150)]
    flips.append(_zlib_flip(data))
    named = 0
    for position, bit in flips:
        damaged = bytearray(data)
        damaged[position] ^= 1 << bit
        path.write_bytes(bytes(damaged))
        try:
            records = load_records(packed)
        except ArenaError as exc:
            assert str(path) in str(exc) and "\n" not in str(exc)
            named += 1
        else:
            assert records == expected            # a flip in the header's free fields
    assert named > 100


def test_a_zlib_error_is_one_line_in_report_run_and_reproduce(tmp_path, capsys):
    config = tmp_path / "duel.toml"
    config.write_text('seed = 2\n[[matchup]]\nname = "duel"\nspecs = ["greedy", "random"]\n'
                      'deals = 3\n[run]\njobs = 1\n[analysis]\nreport = false\n')
    folder = run_experiment(config, tmp_path / "results", log=lambda *a: None, progress=False)
    path = folder / "runs" / "duel" / "games.jsonl.gz"
    data = path.read_bytes()
    position, bit = _zlib_flip(data)
    damaged = bytearray(data)
    damaged[position] ^= 1 << bit
    path.write_bytes(bytes(damaged))
    for args in (["report", str(path.parent), "--out", str(tmp_path / "rep")],
                 ["run", str(config), "--results", str(tmp_path / "results")],
                 ["reproduce", str(folder), "--no-progress"]):
        code, err = _main(capsys, *args)
        assert code == 2 and "not a readable gzip file" in err, (args, err)
        # the one line names the recovery: the readable part kept, the games it lost replayed
        assert f"glory-ai verify {path.parent} --repair" in err, (args, err)


# ---- outputs that cannot be written ---------------------------------------------------------

def test_out_under_a_file_proc_sys_and_run_out_naming_a_file(tmp_path, capsys):
    plain = tmp_path / "file"
    plain.write_text("x")
    compare = ["compare", "greedy", "random", "--games", "2", "--jobs", "1", "--no-progress"]
    code, err = _main(capsys, *compare, "--out", str(plain / "sub"))
    assert code == 2 and "cannot create the folder" in err
    code, err = _main(capsys, *compare, "--out", str(plain))
    assert code == 2 and "exists and is not a folder" in err
    for system in ("/proc/glory-ai-test", "/sys/glory-ai-test"):
        code, err = _main(capsys, *compare, "--out", system)
        assert code == 2 and system in err
    config = tmp_path / "duel.toml"
    config.write_text('seed = 2\n[[matchup]]\nspecs = ["greedy", "random"]\n')
    code, err = _main(capsys, "run", str(config), "--out", str(plain))
    assert code == 2 and "exists and is not a folder" in err
    code, err = _main(capsys, "report", str(tmp_path), "--out", str(plain / "sub"))
    assert code == 2


@contextlib.contextmanager
def _tmpfs(where: Path, options: str):
    where.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def test_a_read_only_file_system(tmp_path, capsys):
    with _tmpfs(tmp_path / "ro", "ro,size=64k") as ro:
        code, err = _main(capsys, "compare", "greedy", "random", "--games", "2", "--jobs", "1",
                          "--out", str(ro / "x"), "--no-progress")
        assert code == 2 and "read-only file system" in err.lower()


def test_an_immutable_folder(tmp_path, capsys):
    frozen = tmp_path / "frozen"
    frozen.mkdir()
    if subprocess.run(["chattr", "+i", str(frozen)], capture_output=True).returncode != 0:
        pytest.skip("chattr +i is not available here")
    try:
        with pytest.raises(ArenaError, match=r"\.lock: cannot create the run folder's lock file "
                                             r"\(Operation not permitted\)"):
            run(SMALL, frozen)
        code, err = _main(capsys, "compare", "greedy", "random", "--games", "2", "--jobs", "1",
                          "--out", str(frozen / "sub"), "--no-progress")
        assert code == 2 and "Operation not permitted" in err
    finally:
        subprocess.run(["chattr", "-i", str(frozen)], capture_output=True)


def test_a_full_disk_keeps_every_complete_record_and_resumes(tmp_path, monkeypatch):
    appended = {"n": 0}
    append = RunFolder.append

    def full_after_two(self, records, text=None):
        appended["n"] += 1
        if appended["n"] == 3:
            # half the batch reached the file, then the disk was full
            with open(self.games_path, "ab") as fh:
                fh.write(text.encode()[: len(text) // 2])
            raise ArenaError(f"{self.games_path}: cannot write (No space left on device)")
        append(self, records, text)

    monkeypatch.setattr(RunFolder, "append", full_after_two)
    with pytest.raises(ArenaError, match=r"No space left on device\); the 8 finished games are kept"):
        run(SMALL, tmp_path / "run", n_jobs=1, batch_size=4)
    complete = len(load_records(tmp_path / "run"))          # 8, and the whole lines of the third batch
    assert complete > 8
    monkeypatch.setattr(RunFolder, "append", append)
    resumed = run(SMALL, tmp_path / "run", n_jobs=1, batch_size=4)
    assert resumed.resumed == complete and resumed.played == SMALL.total_games - complete
    assert [strip_timing(r) for r in resumed.records] == [strip_timing(r) for r in run(SMALL).records]


@pytest.mark.slow
def test_a_full_tmpfs_is_one_line_and_the_run_resumes_once_there_is_room(tmp_path):
    with _tmpfs(tmp_path / "small", "size=48k") as small:
        out = small / "run"
        first = cli("compare", "greedy", "random", "--games", "60", "--jobs", "1", "--batch-size", "2",
                    "--seed", "3", "--out", str(out), "--no-progress")
        one_line_error(first, "No space left on device", "finished games are kept")
        kept = load_records(out)
        assert 0 < len(kept) < 60
        subprocess.run(["mount", "-o", "remount,size=4m", str(small)], check=True)
        second = cli("compare", "greedy", "random", "--games", "60", "--jobs", "1", "--seed", "3",
                     "--out", str(out), "--no-progress")
        assert second.returncode == 0, second.stderr
        config = RunConfig.for_games(["greedy", "random"], 60, seed=3)
        assert [strip_timing(r) for r in load_records(out)] == [strip_timing(r) for r in run(config).records]


def test_an_os_error_while_writing_is_named(tmp_path, monkeypatch):
    def no_space(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    folder = RunFolder(tmp_path / "run", SMALL)
    folder.open()
    monkeypatch.setattr(os, "fsync", no_space)
    with pytest.raises(ArenaError, match=r"games.jsonl: cannot write \(No space left on device\)"):
        folder.append([], '{"a":1}\n')
        folder.close()
    folder.close(store=False)


# ---- hostile configs and arguments --------------------------------------------------------------

@pytest.mark.parametrize("text, words", [
    ('seed = 1\n[[matchup]]\nspecs = ["greedy", "random"]\nplayers = []', ["players", "[]"]),
    ('seed = 1\n[[matchup]]\nspecs = ["greedy", "random"]\n[run]\njobs = 0', ["[run].jobs", "got 0"]),
    ('seed = 1\n[[matchup]]\nspecs = ["greedy", "random"]\n[run]\nbackend = "ray"', ["ray", "dask"]),
    ('seed = 1\n[[matchup]]\nspecs = ["greedy", "random"]\n[run]\nscheduler = 5', ["scheduler"]),
    ('[[matchup]]\nspecs = ["greedy", "random"]', ["seed: required"]),
    ('seed = 1\n[[matchup]]\nspecs = ["ismcts:iters={iters}", "greedy"]\n'
     'grid = { iters = [2], depth = [1, 2] }',
     ["grid", "depth", "used by no spec"]),
])
def test_a_hostile_config_is_refused_when_read(tmp_path, text, words):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ExperimentError) as info:
        load_experiment(path)
    assert str(path) in str(info.value) and "\n" not in str(info.value)
    for word in words:
        assert word in str(info.value)


@pytest.mark.parametrize("command, what", [
    ("run", "an experiment config"), ("tune", "a study config"), ("train", "a training config"),
    ("learn", "an expert-iteration config"), ("learn-prior", "a learn-prior config"),
])
def test_every_config_command_refuses_a_damaged_config_in_one_line(tmp_path, capsys, command, what):
    # one reader (read_toml) for every config: nested too deep for tomllib's recursion, not
    # UTF-8, a folder, missing; each is the command's one-line error, exit status 2
    deep, binary = tmp_path / "deep.toml", tmp_path / "binary.toml"
    deep.write_text("x = " + "[" * 100_000)
    binary.write_bytes(b"\x00\xff\xfe\x80 seed = 1")
    cases = ((deep, "not valid TOML (nested too deeply"),
             (binary, f"not a text file (not UTF-8 at byte 1): {what}"),
             (tmp_path / "missing.toml", "no such file"))
    for path, words in cases:
        code, err = _main(capsys, command, str(path))
        assert code == 2 and f"{path}: {words}" in err and err.count("\n") == 1, (command, path, err)
    if command not in ("run", "tune"):          # these name a folder their own way
        code, err = _main(capsys, command, str(tmp_path))
        assert code == 2 and f"{tmp_path}: a folder, not {what}" in err, err


def test_hostile_files_and_arguments(tmp_path, capsys):
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"\x00\xff\xfe\x80 seed = 1")
    code, err = _main(capsys, "run", str(binary))
    assert code == 2 and str(binary) in err and "not a text file" in err
    code, err = _main(capsys, "run", str(tmp_path))
    assert code == 2 and "a folder, not an experiment config" in err
    for args in (["compare", "greedy", "random", "--out", ""], ["run", str(binary), "--out", ""],
                 ["report", str(tmp_path), "--out", ""]):
        code, err = _main(capsys, *args)
        assert code == 2 and "empty" in err, (args, err)
    code, err = _main(capsys, "compare", "greedy", "random", "--games", "1000000000")
    assert code == 2 and "at most 20,000,000 games" in err
    with pytest.raises(ArenaError, match="deals must be an integer from 1 to 10,000,000"):
        RunConfig(specs=("greedy", "random"), deals=MAX_DEALS + 1)


def test_an_empty_object_line_names_its_line(finished):
    with open(finished / "games.jsonl", "a") as fh:
        fh.write("{}\n")
    with pytest.raises(ArenaError, match=r"games.jsonl: line 13 is not a game record: no game_id"):
        run(SMALL, finished)


def test_a_backend_that_fails_to_start_leaves_no_folder(tmp_path, capsys, monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setattr(runner_module, "DASK_CONNECT_TIMEOUT", 1.0)
    out = tmp_path / "new" / "run"
    code, err = _main(capsys, "compare", "greedy", "random", "--games", "2", "--backend", "dask",
                      "--scheduler", "tcp://127.0.0.1:1", "--out", str(out), "--no-progress")
    assert code == 2 and "cannot reach the dask scheduler at tcp://127.0.0.1:1" in err
    assert not out.exists() and not out.parent.exists()
    with pytest.raises(ArenaError, match="cannot reach"):
        run(SMALL, tmp_path / "direct", backend="dask", scheduler="tcp://127.0.0.1:1")
    with pytest.raises(ArenaError, match="not a dask scheduler address.*unknown scheme 'nonsense'"):
        run(SMALL, tmp_path / "direct", backend="dask", scheduler="nonsense://host")
    assert not (tmp_path / "direct").exists()


def test_a_huge_run_builds_its_tasks_as_it_goes(caplog):
    # 10^7 deals: were the tasks built before the first game, this would take minutes and GBs
    class FirstBatch:
        def add(self, records):
            return len(records) > 0

        def to_dict(self):
            return {}

    config = RunConfig(specs=("random",), deals=MAX_DEALS, seed=1)
    result = run(config, n_jobs=1, batch_size=3, stop=FirstBatch())
    assert result.stopped and result.played == 3


@pytest.mark.parametrize("backend", ["loky", "threading"])
def test_too_many_workers_are_capped_and_said(caplog, backend):
    import psutil

    with caplog.at_level(logging.WARNING, logger="glory_ai.arena"):
        result = run(RunConfig(specs=("random",), deals=40), n_jobs=1000, backend=backend)
    assert result.n_jobs <= runner_module.cores() and result.games == 40
    assert f"1000 workers asked for: using {result.n_jobs} ({runner_module.cores()} cores" in caplog.text
    # the processes started: loky's workers (kept for the next run) and two resource trackers
    assert len(psutil.Process().children(recursive=True)) <= runner_module.cores() + 2
