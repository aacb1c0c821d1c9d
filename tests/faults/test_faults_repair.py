"""Fault injection, the tools that mend a folder (issue "repair that never destroys"): a folder
being written, SIGHUP, JSON and TOML inputs nested 100,000 deep, a repair that fails half-way
(a full disk, a new file that reads back wrong, a quarantine file that cannot be written), and
the columns the analysis derives from the records (``games.parquet``). Each fault is one line
naming the file; no good game is lost, and what a repair removes is kept in quarantine.jsonl.
"""
from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from glory_ai.analysis import AnalysisError
from glory_ai.analysis.columns import COLUMNS_FILE, stale_reason
from glory_ai.analysis.load import load_runs
from glory_ai.arena import ArenaError, load_records, strip_timing
from glory_ai.arena import verify as verify_module
from glory_ai.arena.quarantine import read_quarantine
from glory_ai.arena.storage import os_error
from glory_ai.cli import main
from support.faults import ROOT

DEEP_ARRAY = "[" * 100_000 + "]" * 100_000
DEEP_OBJECT = '{"a":' * 100_000 + "1" + "}" * 100_000


def _main(capsys, *args):
    """`glory-ai ARGS` in this process: (status, stdout, stderr); an error is one line."""
    try:
        code = main(list(args))
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    if code == 2:
        assert err.count("\n") == 1 and "Traceback" not in err, err
    return code, out, err


def _problems(out: str) -> list[str]:
    return [line[len("problem: "):] for line in out.splitlines() if line.startswith("problem: ")]


def _hold(folder, command="glory-ai compare greedy random"):
    """Another process holding the folder's lock (as a run writing into it does)."""
    holding = subprocess.Popen(
        [sys.executable, "-c", "import sys,time; from glory_ai.arena.lock import FolderLock; "
         "FolderLock(sys.argv[1], command=sys.argv[2]).acquire(); print('held', flush=True); "
         "time.sleep(120)", str(folder), command], stdout=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert holding.stdout.readline().strip() == "held"
    return holding


# ---- a folder being written -----------------------------------------------------------------

def test_verify_of_a_run_folder_being_written_says_so_and_repair_waits(finished, capsys):
    holding = _hold(finished)
    try:
        code, out, _ = _main(capsys, "verify", str(finished))
        assert code == 1
        busy = [p for p in _problems(out) if "is being written by" in p]
        assert busy and f"process {holding.pid}" in busy[0] and str(finished) in busy[0]
        assert "verify it once that has finished" in busy[0]
        # the repair takes the folder's lock first: refused in one line, nothing changed
        before = (finished / "games.jsonl").read_bytes()
        code, _, err = _main(capsys, "verify", str(finished), "--repair")
        assert code == 2 and f"process {holding.pid}" in err and "being written" in err
        assert (finished / "games.jsonl").read_bytes() == before
        assert not (finished / "quarantine.jsonl").exists()
    finally:
        holding.kill()
        holding.wait()
    code, out, _ = _main(capsys, "verify", str(finished))
    assert code == 0, out


def test_verify_of_an_experiment_being_written_says_so(tmp_path, capsys):
    results = tmp_path / "results"
    results.mkdir()
    (results / "experiment.toml").write_text('seed = 1\n[[matchup]]\nspecs = ["greedy", "random"]\n'
                                             'deals = 2\n')
    holding = _hold(results, "glory-ai run e.toml")
    try:
        code, out, _ = _main(capsys, "verify", str(results))
        assert code == 1
        problems = _problems(out)
        assert len(problems) == 1 and f"process {holding.pid}" in problems[0]
        assert "`glory-ai run e.toml`" in problems[0] and str(results) in problems[0]
        code, _, err = _main(capsys, "verify", str(results), "--repair")
        assert code == 2 and "repair it once that has finished" in err
    finally:
        holding.kill()
        holding.wait()


# ---- SIGHUP ------------------------------------------------------------------------------------

def _sighup_by_default() -> None:
    # a test run started under nohup ignores SIGHUP, and a child inherits that (the run then
    # rightly leaves it ignored): the run here gets the default, as from a terminal
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


@pytest.mark.slow
def test_sighup_stops_a_run_as_sigterm_does_and_it_resumes(tmp_path):
    out = tmp_path / "run"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    args = [sys.executable, "-m", "glory_ai.cli", "compare", "greedy", "random", "--games", "2000",
            "--jobs", "1", "--batch-size", "5", "--out", str(out), "--no-progress"]
    process = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=_sighup_by_default)
    games = out / "games.jsonl"
    end = time.monotonic() + 90
    while not (games.exists() and games.stat().st_size > 5_000):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < end, "the run did not start"
        time.sleep(0.05)
    process.send_signal(signal.SIGHUP)         # the terminal that started it closed
    _, err = process.communicate(timeout=60)
    assert process.returncode == 143, err
    assert "terminated:" in err and "games are saved" in err and "Traceback" not in err
    kept = len(load_records(out))
    assert 0 < kept < 2000
    assert main(["verify", str(out), "--sample", "20"]) == 0


# ---- JSON and TOML inputs nested 100,000 deep --------------------------------------------------

@pytest.mark.parametrize("deep", [DEEP_ARRAY, DEEP_OBJECT], ids=["array", "object"])
def test_json_files_nested_100000_deep_are_one_line(deep, tmp_path, capsys):
    path = tmp_path / "deep.json"
    path.write_text(deep)
    for args in (["analyze", str(path)], ["play", "--resume", str(path)], ["replay", str(path)]):
        code, _, err = _main(capsys, *args)
        assert code == 2 and str(path) in err, (args, err)
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.json").write_text(deep)
    (run / "games.jsonl").write_text("")
    code, _, err = _main(capsys, "report", str(run), "--out", str(tmp_path / "report"))
    assert code == 2 and "config.json" in err and "nested deeper than 64 levels" in err, err
    with pytest.raises(ArenaError, match="nested deeper than 64 levels"):
        load_records(run)


@pytest.mark.parametrize("deep", [DEEP_ARRAY, DEEP_OBJECT], ids=["array", "object"])
def test_a_record_line_nested_100000_deep_is_named_and_set_aside(deep, finished, capsys):
    reference = [strip_timing(r) for r in load_records(finished)]
    with open(finished / "games.jsonl", "a") as fh:
        fh.write(deep + "\n")
    with pytest.raises(ArenaError, match=r"games.jsonl: line 13 is not valid JSON") as info:
        load_records(finished)
    assert "\n" not in str(info.value)
    code, out, _ = _main(capsys, "verify", str(finished))
    assert code == 1 and any("line 13 is not valid JSON" in p for p in _problems(out)), out
    code, out, _ = _main(capsys, "verify", str(finished), "--repair")
    assert code == 0, out
    assert [strip_timing(r) for r in load_records(finished)] == reference
    assert [e["data"] for e in read_quarantine(finished)] == [deep.encode()]


def test_an_option_and_a_tag_nested_100000_deep_are_one_line(tmp_path, capsys):
    code, _, err = _main(capsys, "compare", "greedy", "random", "--games", "2", "--out",
                         str(tmp_path / "x"), "--variant", "refill_size=" + "[" * 100_000)
    assert code == 2 and "--variant refill_size: nested deeper than 64 levels" in err, err
    assert not (tmp_path / "x").exists()
    from glory_ai.interactive.notation import NotationError, parse_variant_tag

    with pytest.raises(NotationError, match="the Variant tag: extra: nested deeper than 64 levels"):
        parse_variant_tag("extra=" + "[" * 100_000)
    assert parse_variant_tag("extra=[1, 2]") == {"extra": [1, 2]}


def test_openspiel_variant_nested_100000_deep_is_a_value_error():
    pytest.importorskip("pyspiel")
    from glory_ai.integrations.openspiel import glory_game_of

    with pytest.raises(ValueError, match="nested deeper than 64 levels"):
        glory_game_of({"variant": DEEP_ARRAY})


@pytest.mark.parametrize("command", ["run", "tune", "train", "learn"])
@pytest.mark.parametrize("deep", ["x = " + "[" * 100_000, "x = " + "{a = " * 100_000],
                         ids=["array", "inline-table"])
def test_toml_configs_nested_100000_deep_are_one_line(command, deep, tmp_path, capsys):
    path = tmp_path / "deep.toml"
    path.write_text('seed = 1\n' + deep + "\n")
    code, _, err = _main(capsys, command, str(path), "--out", str(tmp_path / "out"))
    assert code == 2 and str(path) in err and "not valid TOML" in err, err
    assert "nested too deeply" in err or "Invalid" in err, err


# ---- a repair that fails half-way leaves the folder as it was --------------------------------

def _damage_one_record(folder) -> bytes:
    lines = (folder / "games.jsonl").read_bytes().split(b"\n")[:-1]
    lines[4] = lines[4].replace(b'"roles_led":', b'"roles_lex":', 1)
    (folder / "games.jsonl").write_bytes(b"".join(line + b"\n" for line in lines))
    return lines[4]


def test_a_full_disk_during_repair_leaves_the_records_as_they_were(finished, capsys, monkeypatch):
    reference = [strip_timing(r) for r in load_records(finished)]
    damaged = _damage_one_record(finished)
    before = (finished / "games.jsonl").read_bytes()
    config_before = (finished / "config.json").read_bytes()
    real = verify_module._write_atomically

    def full_disk(target, write):
        with open(target.with_name(target.name + ".tmp"), "wb") as fh:
            fh.write(b"{\"record_version\":1,")             # half a line, then the disk is full
        (target.with_name(target.name + ".tmp")).unlink()
        raise os_error(target, OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)))

    monkeypatch.setattr(verify_module, "_write_atomically", full_disk)
    code, _, err = _main(capsys, "verify", str(finished), "--repair")
    assert code == 2 and "No space left on device" in err and "games.jsonl.repaired" in err, err
    assert (finished / "games.jsonl").read_bytes() == before      # the original, whole
    assert (finished / "config.json").read_bytes() == config_before
    assert not (finished / "games.jsonl.repaired").exists()
    # the damaged record was set aside first: it is in the quarantine file (and still in place)
    assert [e["data"] for e in read_quarantine(finished)] == [damaged]
    # room again: the same command mends the folder, every game kept
    monkeypatch.setattr(verify_module, "_write_atomically", real)
    code, out, _ = _main(capsys, "verify", str(finished), "--repair")
    assert code == 0, out
    assert [strip_timing(r) for r in load_records(finished)] == reference


def test_a_repaired_file_that_reads_back_wrong_replaces_nothing(finished, capsys, monkeypatch):
    _damage_one_record(finished)
    before = (finished / "games.jsonl").read_bytes()
    real = verify_module._write_atomically

    def bad_disk(target, write):
        real(target, write)
        data = bytearray(target.read_bytes())
        data[len(data) // 2] ^= 0x04                        # the new file reads back changed
        target.write_bytes(bytes(data))

    monkeypatch.setattr(verify_module, "_write_atomically", bad_disk)
    code, _, err = _main(capsys, "verify", str(finished), "--repair")
    assert code == 2 and "is left as it was" in err and str(finished) in err, err
    assert (finished / "games.jsonl").read_bytes() == before
    assert not (finished / "games.jsonl.repaired").exists()


def test_a_quarantine_file_that_cannot_be_written_removes_nothing(finished, capsys):
    _damage_one_record(finished)
    before = (finished / "games.jsonl").read_bytes()
    (finished / "quarantine.jsonl").mkdir()                 # not a file: it cannot be appended to
    code, _, err = _main(capsys, "verify", str(finished), "--repair")
    assert code == 2 and "quarantine.jsonl: cannot write" in err
    assert "nothing was removed from the records" in err
    assert (finished / "games.jsonl").read_bytes() == before


# ---- the columns derived from the records (games.parquet) ------------------------------------

def test_repair_removes_the_columns_of_the_records_it_changes(finished, capsys):
    before = load_runs([finished])
    assert (finished / COLUMNS_FILE).exists() and stale_reason(finished) is None
    code, out, _ = _main(capsys, "verify", str(finished))
    assert code == 0, out                       # the columns are no damage
    _damage_one_record(finished)
    assert stale_reason(finished) is not None   # the records changed: the columns are not read
    with pytest.raises(AnalysisError, match=r"games.jsonl: line 5 .*roles_lex"):
        load_runs([finished])
    code, out, _ = _main(capsys, "verify", str(finished))
    assert code == 1 and not any(COLUMNS_FILE in p for p in _problems(out)), out
    code, out, _ = _main(capsys, "verify", str(finished), "--repair")
    assert code == 0, out
    assert f"repaired: {finished / COLUMNS_FILE}: removed" in out
    # made again from the repaired records when next read: the same frame as before the damage
    after = load_runs([finished])
    assert (finished / COLUMNS_FILE).exists() and stale_reason(finished) is None
    timing = [c for c in before.columns if "second" in c]
    assert before.drop(columns=timing).equals(after.drop(columns=timing))
    code, out, _ = _main(capsys, "verify", str(finished))
    assert code == 0, out


def test_columns_are_not_read_against_an_edited_plan(finished):
    load_runs([finished])
    assert stale_reason(finished) is None       # the columns match the records
    path = finished / "config.json"
    original = path.read_text()
    data = json.loads(original)
    data["config"]["deals"] = 3
    path.write_text(json.dumps(data, indent=2) + "\n")
    with pytest.raises(AnalysisError, match=r"config.json was changed after its games were played") as info:
        load_runs([finished])
    assert "deals: 3 now, 6 when the run started" in str(info.value) and "\n" not in str(info.value)
    path.write_text(original)
    assert len(load_runs([finished])) == 24
