"""The per-game columns of a run (glory_ai.analysis.columns): made from the records once, the
same frame as the records give, never trusted over them, read a few columns at a time."""
from __future__ import annotations

import json
import os
import shutil
import stat

import pandas as pd
import pytest

import glory_ai.analysis.load as load_module
from glory_ai.analysis import columns as C
from glory_ai.analysis.load import load_runs, reads_columns
from glory_ai.analysis.stats import DealSPRT
from glory_ai.analysis.stats.summary import summarize, summarize_run
from glory_ai.arena import RunConfig, load_records, run


def _from_records(folders):
    """The frame as the record reader builds it (no columns file)."""
    saved = load_module._COLUMNS_ON
    load_module._COLUMNS_ON = False
    try:
        return load_runs(folders)
    finally:
        load_module._COLUMNS_ON = saved


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("columns")
    made = []
    for i, config in enumerate([RunConfig(specs=("greedy", "random"), deals=12, seed=1),
                                RunConfig(specs=("greedy", "heuristic:style=builder", "random"), players=3,
                                          deals=5, seed=2, variant={"points": {"Temple": 3}})]):
        run(config, base / f"r{i}")
        made.append(base / f"r{i}")
    return made


def test_the_columns_give_the_frame_the_records_give(runs, tmp_path):
    copies = [shutil.copytree(r, tmp_path / r.name) for r in runs]
    assert reads_columns(copies)
    frame = load_runs(copies)
    assert all((c / C.COLUMNS_FILE).is_file() for c in copies)
    expected = _from_records(copies)
    pd.testing.assert_frame_equal(frame, expected)
    assert frame.attrs["runs"] == expected.attrs["runs"]
    # a few columns: the same values, in the frame's order; a prefix takes every such column
    part = load_runs(copies, columns=["spec", "completed:", "game", "vp_buildings"])
    names = ["game", "spec", "vp_buildings", *[c for c in expected.columns if c.startswith("completed:")]]
    assert sorted(part.columns) == sorted(names)
    pd.testing.assert_frame_equal(part, expected[list(part.columns)])


class _StopAfter:
    """A stopping rule: the run stops once ``games`` games are finished."""

    def __init__(self, games: int) -> None:
        self.games, self.seen = games, 0

    def add(self, records) -> bool:
        self.seen += len(records)
        return self.seen >= self.games

    def to_dict(self) -> dict:
        return {"games": self.seen}


def test_columns_that_no_longer_match_their_records_are_made_again(tmp_path):
    # a run stopped part way, read, then resumed: the records changed, the columns follow them
    folder = tmp_path / "r"
    config = RunConfig(specs=("greedy", "random"), deals=12, seed=1)
    run(config, folder, stop=_StopAfter(10), n_jobs=1, batch_size=2)
    first = len(load_runs([folder]))
    assert C.stale_reason(folder) is None and 20 <= first < 48
    run(config, folder)
    assert C.stale_reason(folder) == "the records changed since the columns were made"
    assert len(load_runs([folder])) == 48 and C.stale_reason(folder) is None
    # a damaged columns file is not read: it is made again from the records
    (folder / C.COLUMNS_FILE).write_bytes(b"PAR1 not really")
    assert C.stale_reason(folder) == "the columns file cannot be read"
    pd.testing.assert_frame_equal(load_runs([folder]), _from_records([folder]))


def test_columns_of_another_run_are_never_trusted(runs, tmp_path):
    a = shutil.copytree(runs[0], tmp_path / "a")
    b = shutil.copytree(runs[1], tmp_path / "b")
    load_runs([a])
    shutil.copy(a / C.COLUMNS_FILE, b / C.COLUMNS_FILE)
    assert C.stale_reason(b) == "the records changed since the columns were made"
    pd.testing.assert_frame_equal(load_runs([b]), _from_records([b]))


def test_a_read_only_run_keeps_its_columns_in_the_cache(runs, tmp_path, monkeypatch):
    if os.geteuid() == 0:
        monkeypatch.setattr(os, "access", lambda path, mode: not str(path).startswith(str(tmp_path / "ro")))
    folder = shutil.copytree(runs[0], tmp_path / "ro")
    os.chmod(folder, stat.S_IRUSR | stat.S_IXUSR)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    try:
        frame = load_runs([folder])
    finally:
        os.chmod(folder, stat.S_IRWXU)
    assert not (folder / C.COLUMNS_FILE).exists()
    assert list((tmp_path / "cache" / "glory_ai" / "columns").glob("*.parquet"))
    pd.testing.assert_frame_equal(frame, _from_records([folder]))


def test_a_game_written_twice_is_read_as_the_records_read_it(runs, tmp_path, caplog):
    folder = shutil.copytree(runs[0], tmp_path / "twice")
    lines = (folder / "games.jsonl").read_text().splitlines()
    (folder / "games.jsonl").write_text("\n".join(lines + lines[:2]) + "\n")
    frame = load_runs([folder])
    assert len(frame) == 48
    expected = _from_records([folder])
    pd.testing.assert_frame_equal(frame, expected)
    assert frame.attrs["runs"] == expected.attrs["runs"]
    # the streamed report leaves such a run to the frame's reader (stream._run_facts)
    from glory_ai.analysis.stream import open_runs

    assert open_runs([folder]) is None and open_runs([runs[0]]) is not None
    # copies that differ beyond their timing: the records' error, naming the game
    changed = json.loads(lines[0])
    changed["scores"] = [s + 1 for s in changed["scores"]]
    (folder / "games.jsonl").write_text("\n".join([*lines, json.dumps(changed)]) + "\n")
    with pytest.raises(Exception, match="0-0-0"):
        load_runs([folder])


def test_compares_table_from_the_columns_is_the_table_of_the_records(tmp_path):
    cases = [RunConfig(specs=("greedy", "random"), deals=10, seed=1),
             RunConfig(specs=("greedy", "heuristic:style=builder"), deals=60, seed=2,
                       sprt=(0, 200, 0.05, 0.05)),
             RunConfig(specs=("greedy", "random", "heuristic:style=patron"), players=3, deals=6, seed=3),
             RunConfig(specs=("greedy", "random", "heuristic:style=merchant"), deals=4, seed=4,
                       format="round_robin")]
    for i, config in enumerate(cases):
        out = tmp_path / f"r{i}"
        run(config, out, stop=DealSPRT.for_config(config) if config.sprt else None)
        a, b = summarize(load_records(out), config), summarize_run(out, config)
        pd.testing.assert_frame_equal(a, b)
        assert a.attrs == b.attrs


def test_a_report_across_folders_names_its_runs(runs, tmp_path, capsys):
    from glory_ai.analysis import AnalysisError
    from glory_ai.analysis.commands import main_report
    from glory_ai.analysis.load import run_folders

    study = tmp_path / "study"
    for i, run_folder in enumerate(runs):
        shutil.copytree(run_folder, study / "runs" / f"part{i}")
    (study / "notes").mkdir()
    assert run_folders(study) == [study / "runs" / "part0", study / "runs" / "part1"]
    assert run_folders(str(study / "runs" / "part*")) == run_folders(study)
    assert run_folders(study / "runs" / "part1" / "games.jsonl") == [study / "runs" / "part1" / "games.jsonl"]
    with pytest.raises(AnalysisError, match="matches no run folder"):
        run_folders(str(tmp_path / "nothing*"))
    with pytest.raises(AnalysisError, match="not a run folder"):
        run_folders(study / "notes")
    assert main_report([str(study), "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("report across 2 runs; 2 rule sets") and "2 line-ups of bots" in out
    assert (tmp_path / "out" / "report.html").is_file()
    assert main_report([str(study), str(study / "runs" / "part0"), "--out", str(tmp_path / "o2")]) == 2
    assert "named twice" in capsys.readouterr().err


WRITTEN = [RunConfig(specs=("greedy", "random"), deals=9, seed=3),
           RunConfig(specs=("random", "heuristic:style=patron,epsilon=0.2", "greedy"), players=4, deals=3,
                     seed=4, mode="imperium", variant={"removed": ["Sewer"], "copies": {"Bath": 1},
                                                       "materials": {"Catacomb": "Marble"},
                                                       "powers_off": ["Forum"]})]


@pytest.mark.parametrize("config", WRITTEN)
def test_columns_written_as_the_run_writes_are_those_made_from_its_records(config, tmp_path, monkeypatch):
    import pyarrow.parquet as pq

    monkeypatch.setattr(C, "CHUNK", 7)            # several row groups, the last one short
    writer = C.ColumnsWriter()
    result = run(config, tmp_path / "run", stop=writer, batch_size=5)
    written = writer.finish(result)
    assert written == C.columns_path(tmp_path / "run") and C.stale_reason(tmp_path / "run") is None
    made = tmp_path / "made.parquet"
    C._derive(tmp_path / "run", made)
    assert written.read_bytes() == made.read_bytes()
    assert pq.ParquetFile(written).num_row_groups == -(-config.total_games // 7) > 1


def test_a_written_columns_file_asks_the_runs_own_rule_and_leaves_resumed_runs(tmp_path):
    config = RunConfig(specs=("greedy", "random"), deals=60, seed=5, sprt=(0, 200, 0.05, 0.05))
    writer = C.ColumnsWriter(DealSPRT.for_config(config))
    result = run(config, tmp_path / "sprt", stop=writer)
    assert result.stopped and result.games < config.total_games and writer.to_dict()["decision"]
    assert writer.finish(result) is not None and C.stale_reason(tmp_path / "sprt") is None
    small = RunConfig(specs=("random",), deals=4, seed=6)
    run(small, tmp_path / "resumed", only=[0, 1])
    writer = C.ColumnsWriter()
    resumed = run(small, tmp_path / "resumed", stop=writer)
    assert resumed.resumed == 2 and writer.finish(resumed) is None
    assert C.stale_reason(tmp_path / "resumed") == "no columns file"
    assert load_runs([tmp_path / "resumed"])["game"].nunique() == small.total_games


def test_columns_a_worker_checked_are_trusted_until_they_or_their_records_change(runs, tmp_path, monkeypatch):
    # what a Dask worker checked (checked_columns) is not checked again by the client while
    # the columns file, the records and config.json are as the worker saw them
    from glory_ai.analysis.stream import open_runs

    folder = shutil.copytree(runs[0], tmp_path / "r")
    checked = C.checked_columns(folder)
    assert checked.path == folder / C.COLUMNS_FILE and C.stale_reason(folder) is None
    calls = []
    real = C.ensure_columns
    monkeypatch.setattr(C, "ensure_columns", lambda f: calls.append(f) or real(f))
    import glory_ai.analysis.stream as stream_module

    monkeypatch.setattr(stream_module, "ensure_columns", lambda f: calls.append(f) or real(f))
    stream = open_runs([folder], checked=[checked])
    assert stream is not None and stream.paths == [checked.path] and not calls
    # the records rewritten since (their modification time moves): checked here again
    games = folder / "games.jsonl"
    if not games.exists():
        games = next(folder.glob("games.jsonl*"))
    os.utime(games, ns=(games.stat().st_atime_ns, games.stat().st_mtime_ns + 1_000_000_000))
    assert C.trusted_columns(checked) == checked.path and calls == [folder]
    # a columns file replaced since: checked, found stale against its records, made again
    checked = C.checked_columns(folder)
    calls.clear()
    (folder / C.COLUMNS_FILE).write_bytes(b"PAR1 not really")
    assert C.trusted_columns(checked) == checked.path and calls == [folder]
    assert C.stale_reason(folder) is None
