"""The report read on a Dask cluster (``glory-ai report --dask``): a local cluster started by
the test makes and reads the runs' columns files, and the tables, page text, summary and
findings are those of the report read in this process."""
from __future__ import annotations

import re
import threading
import warnings
from pathlib import Path

import pytest

from glory_ai.analysis.columns import COLUMNS_FILE
from glory_ai.analysis.commands import main_report
from glory_ai.analysis.report import Runs, build_report
from glory_ai.analysis.report.page import render
from glory_ai.analysis.stream import RunStream
from support.runs import copy_runs_without_columns

distributed = pytest.importorskip("distributed")

ROOT = Path(__file__).resolve().parents[2]
# two rule variants, two player counts, strategies that met: every section has its tables
SHIPPED = ROOT / "results" / "republic_vs_imperium" / "runs"


@pytest.fixture
def runs(tmp_path):
    return copy_runs_without_columns(SHIPPED, tmp_path)


def _text(report):
    return re.sub(r'\n<figure id="fig-[^"]*">.*?</figure>', "", render(report, {}, "report"))


def test_the_report_read_on_a_cluster_is_the_report_read_here(runs, monkeypatch):
    readers = []
    batches = RunStream._batches

    def counted(self, *args):
        readers.append(threading.current_thread() is threading.main_thread())
        return batches(self, *args)

    monkeypatch.setattr(RunStream, "_batches", counted)
    import glory_ai.analysis.stream as stream_module

    checks = []
    ensure = stream_module.ensure_columns
    monkeypatch.setattr(stream_module, "ensure_columns", lambda f: checks.append(f) or ensure(f))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # statsmodels on buildings only winners completed
        here = build_report(Runs(runs), figures=False)
        for folder in runs:                       # the workers make the columns files again
            (folder / COLUMNS_FILE).unlink()
        with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                      dashboard_address=None) as cluster, \
                distributed.Client(cluster, set_as_default=False) as client, \
                distributed.get_task_stream(client) as tasks:
            readers.clear()
            checks.clear()
            there = build_report(Runs(runs, client=client), figures=False)
    made = [t for t in tasks.data if t["key"].startswith("checked_columns")]
    read = [t for t in tasks.data if t["key"].startswith("read_run")]
    folded = [t for t in tasks.data if t["key"].startswith("_fold_run")]
    # the workers make the columns files, a task per run; every section's sums (rule
    # variants' too: no frame is read) are made there, a task per run and pass, and only
    # added here
    assert len(made) == len(runs)
    assert not read
    assert not checks                   # what the workers checked is trusted here
    assert len(folded) >= 6 * len(runs) and len(folded) % len(runs) == 0
    assert readers and not any(readers)
    assert all((folder / COLUMNS_FILE).is_file() for folder in runs)
    assert _text(there) == _text(here)
    assert there.sentences == here.sentences
    assert set(there.tables) == set(here.tables)
    for name, table in here.tables.items():
        assert there.tables[name].equals(table), name
    assert there.tables["summary"].to_csv() == here.tables["summary"].to_csv()


def test_an_unreachable_scheduler_is_one_line(runs, tmp_path, capsys):
    status = main_report([str(runs[0]), "--out", str(tmp_path / "out"), "--dask", "tcp://127.0.0.1:1"])
    err = capsys.readouterr().err
    assert status == 2
    assert err.startswith("glory-ai: error: cannot reach the dask scheduler at tcp://127.0.0.1:1")
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out" / "report.html").exists()
