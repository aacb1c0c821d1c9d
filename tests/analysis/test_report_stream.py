"""The report of finished runs, and compare's table of one, read their columns files a row
group at a time (glory_ai.analysis.stream): no frame of every seat-game, no whole file, and
the same tables and sentences as from the frame. Structural (what is read, and how much at once),
not timed: the memory figures are benchmarks/analysis_scale.py's."""
from __future__ import annotations

import copy
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import glory_ai.analysis.load as load_module
from glory_ai.analysis.columns import COLUMNS_FILE, ensure_columns
from glory_ai.analysis.load import load_runs
from glory_ai.analysis.report import Runs, build_report
from glory_ai.analysis.report.sections import SECTIONS
from glory_ai.analysis.stats.summary import summarize, summarize_run
from glory_ai.analysis.stream import RunStream
from glory_ai.arena import RunConfig, load_records, run
from support.runs import copy_runs_without_columns

ROOT = Path(__file__).resolve().parents[2]
# a round robin and fields of 3 and 4 players: every streamed section has its tables
LADDER = ROOT / "results" / "strategy_ladder" / "runs"


@pytest.fixture
def runs(tmp_path):
    return copy_runs_without_columns(LADDER, tmp_path)


def _report(source):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # statsmodels on buildings only winners completed
        return build_report(source, figures=False)


def _same_tables(here, there):
    assert here.sentences == there.sentences
    assert set(here.tables) == set(there.tables)
    for name, table in there.tables.items():
        mine = here.tables[name]
        assert list(mine.index) == list(table.index), name
        assert list(mine.columns) == list(table.columns), name
        numbers = table.select_dtypes("number").columns
        # the same sums added in another order: equal to the last bits of a float
        np.testing.assert_allclose(mine[numbers].to_numpy(float), table[numbers].to_numpy(float),
                                   rtol=1e-12, atol=1e-12, err_msg=name)
        for column in table.columns.difference(numbers):
            assert (mine[column].astype(str) == table[column].astype(str)).all(), (name, column)


def test_every_section_of_the_report_streams():
    # a section added without compute_stream would read a frame of every seat-game again
    streamed = {type(s).__name__ for s in SECTIONS if s.streams}
    assert streamed == {type(s).__name__ for s in SECTIONS}


@pytest.mark.parametrize(("name", "leave_out"), [("ismcts_scaling", None), ("republic_vs_imperium", None),
                                               ("republic_vs_imperium", "styles-republic")])
def test_grids_and_rule_variants_stream_and_equal_the_frames(name, leave_out, tmp_path, monkeypatch):
    # a grid answering the question (ismcts_scaling); rule variants side by side, and (a run
    # left out) compared on the line-ups played under both only: from sums, no frame read
    from glory_ai.experiments import load_experiment
    from glory_ai.experiments.runner import report_grids

    experiment = load_experiment(ROOT / "experiments" / f"{name}.toml")
    folders = [f for f in copy_runs_without_columns(ROOT / "results" / name / "runs", tmp_path)
               if f.name != leave_out]
    grids = report_grids(experiment)

    def built(source):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return build_report(source, figures=False, grids=grids, question=experiment.question)

    def no_frame(*args, **kwargs):
        raise AssertionError("a frame was read")

    runs = Runs(folders)
    assert runs.stream is not None
    monkeypatch.setattr(Runs, "frame", no_frame)
    monkeypatch.setattr(load_module, "load_runs", no_frame)
    streamed = built(runs)
    monkeypatch.undo()
    framed = built(load_runs(folders))
    wanted = {"ismcts_scaling": "grid-scaling", "republic_vs_imperium": "variants"}[name]
    assert wanted in streamed.tables
    assert streamed.notes == framed.notes
    assert bool(streamed.notes.get("variants_scope")) == bool(leave_out)
    _same_tables(streamed, framed)
    assert streamed.tables[wanted].attrs.keys() == framed.tables[wanted].attrs.keys()
    if name == "ismcts_scaling":
        here, there = streamed.tables["grid-scaling"].attrs, framed.tables["grid-scaling"].attrs
        for key in ("trend", "step"):
            assert here[key].keys() == there[key].keys()
            for field, value in there[key].items():
                expected = pytest.approx(value, rel=1e-9) if isinstance(value, float) else value
                assert here[key][field] == expected


def test_the_report_of_finished_runs_reads_no_frame_and_no_whole_file(runs, monkeypatch):
    for folder in runs:
        ensure_columns(folder)
    sizes = [max(pq.ParquetFile(f / COLUMNS_FILE).metadata.row_group(g).num_rows
                 for g in range(pq.ParquetFile(f / COLUMNS_FILE).num_row_groups)) for f in runs]
    seen: list[int] = []
    batches = RunStream.batches

    def counted(self, columns, runs=None):
        for batch in batches(self, columns, runs):
            seen.append(len(batch))
            yield batch

    def no_frame(*args, **kwargs):
        raise AssertionError("a frame of every seat-game was read")

    monkeypatch.setattr(RunStream, "batches", counted)
    monkeypatch.setattr(Runs, "frame", no_frame)
    monkeypatch.setattr(pq.ParquetFile, "read", no_frame)
    monkeypatch.setattr(pq, "read_table", no_frame)
    streamed = _report(Runs(runs))
    monkeypatch.undo()
    # a row group at a time: no batch larger than the largest row group of a file
    assert seen and max(seen) <= max(sizes)
    _same_tables(streamed, _report(load_runs(runs)))


def test_batches_smaller_than_a_row_group_hold_whole_games_and_give_the_same_report(runs, monkeypatch):
    import glory_ai.analysis.stream as stream_module

    monkeypatch.setattr(stream_module, "BATCH_ROWS", 5)     # a game of 2-4 seats cut in most
    seen: list[tuple[int, np.ndarray]] = []
    batches = RunStream.batches

    def kept(self, columns, runs=None):
        for batch in batches(self, columns, runs):
            seen.append((batch.run, batch.columns["record"]))
            yield batch

    monkeypatch.setattr(RunStream, "batches", kept)
    small = _report(Runs(runs))
    monkeypatch.undo()
    assert max(len(records) for _, records in seen) <= 5 + 3
    # each game's rows in one batch: no record in two batches of a pass over a run
    firsts = [(run, records[0]) for run, records in seen if len(records)]
    lasts = [(run, records[-1]) for run, records in seen if len(records)]
    assert not any(a == b for a, b in zip(lasts, firsts[1:], strict=False))
    _same_tables(small, _report(load_runs(runs)))


def test_a_run_whose_deals_are_out_of_order_gives_the_same_report(runs):
    # the columns file rewritten with its row groups in reverse (a run whose games were not
    # written in deal order): the building model reads the frame, the rest still streams
    for folder in runs:
        path = ensure_columns(folder)
        source = pq.ParquetFile(path)
        groups = [source.read_row_group(g) for g in reversed(range(source.num_row_groups))]
        rows = pd.concat([g.to_pandas() for g in groups], ignore_index=True)
        table = pq.read_table(path).schema
        flipped = rows.iloc[::-1].reset_index(drop=True)
        out = pa.Table.from_pandas(flipped, schema=table, preserve_index=False)
        with pq.ParquetWriter(path, table, compression="zstd") as writer:
            writer.write_table(out, row_group_size=max(1, len(out) // 3))
    _same_tables(_report(Runs(runs)), _report(load_runs(runs)))


@pytest.mark.parametrize("config", [
    RunConfig(specs=("greedy", "random"), deals=8, seed=5),
    RunConfig(specs=("greedy", "random", "heuristic:style=patron"), players=3, deals=4, seed=6)],
    ids=["head-to-head", "field"])
def test_compares_table_of_a_finished_run_reads_no_frame(config, tmp_path, monkeypatch):
    out = tmp_path / "run"
    run(config, out)
    expected = summarize(load_records(out), config)

    def no_frame(*args, **kwargs):
        raise AssertionError("a frame of every seat-game was read")

    monkeypatch.setattr(load_module, "load_runs", no_frame)
    summary = summarize_run(out, config)
    pd.testing.assert_frame_equal(summary, expected)
    assert summary.attrs == expected.attrs


def test_a_workers_spans_added_up_give_the_sums_of_every_span_in_order():
    from glory_ai.analysis.stream import _Ops

    rng = np.random.default_rng(3)
    target, coalesced = np.zeros(400), np.zeros(400)
    ops = _Ops()
    # spans moving forward with overlaps (a deal across two row groups), two far apart
    # blocks (seats), one span bridging two stretches; thirds, whose sums depend on order
    spans = [(low, 20) for low in (*range(0, 150, 7), *range(250, 380, 11), 140, 100)]
    for i, (low, size) in enumerate([*spans, (160, 100), (20, 5)]):
        value = rng.integers(0, 4, size) / 3.0
        target[low:low + size] += value
        ops("wins", (2, slice(low, low + size)), value)
        ops("totals", None, float(i))
        if i == len(spans) - 1:
            assert len(copy.deepcopy(ops).said()) == i + 1 + 2      # two stretches so far
    said = ops.said()
    assert [op[2] for op in said[:len(spans) + 2]] == list(range(len(spans) + 2))
    added = said[len(spans) + 2:]
    assert len(added) == 1 and added[0][:2] == ("wins", (2, slice(0, 391)))
    coalesced[added[0][1][1]] += added[0][2]
    assert np.array_equal(coalesced, target)


def test_a_workers_sparse_integer_counts_are_sent_by_place_in_four_bytes():
    from glory_ai.analysis.stream import _Ops

    rng = np.random.default_rng(4)
    target, sent = np.zeros(5000), np.zeros(5000)
    ops = _Ops()
    for low in range(0, 4800, 150):             # a pair cell of a few per deal: mostly zeros
        value = np.bincount(rng.integers(0, 200, 8), minlength=200)
        target[low:low + 200] += value
        ops("count", slice(low, low + 200), value)
    ops("rows", slice(0, 3), np.arange(3))      # dense: a slice, in int32
    (field, where, value), (_, dense, rows) = ops.said()
    assert field == "count" and where.dtype == np.int32 and value.dtype == np.int32
    assert len(value) == np.count_nonzero(target) and (value != 0).all()
    sent[where] += value
    assert np.array_equal(sent, target)
    assert dense == slice(0, 3) and rows.dtype == np.int32 and list(rows) == [0, 1, 2]
