"""Writing the report: ``report.html``, ``summary.csv`` and the figures as PNG and SVG."""
from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from .. import AnalysisError
from .. import figures as F
from .base import Grid, Report
from .build import Runs, build_report
from .page import render
from .sections import SECTIONS

__all__ = ["FIGURES_DIR", "REPORT_FILE", "SUMMARY_FILE", "write_report", "write_report_full"]

REPORT_FILE = "report.html"
SUMMARY_FILE = "summary.csv"
#: the report's table in an arena run folder, whose summary.csv is compare's (one row per
#: spec, the table glory-ai verify checks against the records): never overwritten
RUN_FOLDER_SUMMARY_FILE = "report_summary.csv"
FIGURES_DIR = "figures"
#: the names of the figure files the report writes (other files in figures/ are left alone)
_FIGURE_NAME = re.compile("|".join(s.figure_files for s in SECTIONS if s.figure_files))


def write_report(run_dirs: str | os.PathLike | Iterable[str | os.PathLike],
                 out_dir: str | os.PathLike | None = None, *, title: str | None = None,
                 figure_files: bool = True, question: str | None = None,
                 description: str | None = None, grids: Sequence[Grid] = ()) -> tuple[Path, Path]:
    """Analyse the runs and write ``report.html`` and ``summary.csv`` into ``out_dir``
    (default: the first run folder; in an arena run folder, which holds compare's
    ``summary.csv``, the table is ``report_summary.csv``), and the figures as PNG and SVG under
    ``out_dir/figures/`` (unless ``figure_files`` is false). Returns (html path, csv path).
    ``question``, ``description`` and ``grids``: an experiment's (:func:`build_report`).
    AnalysisError for unusable input (see :func:`~glory_ai.analysis.load.load_runs`)."""
    html_path, csv_path, _ = write_report_full(run_dirs, out_dir, title=title,
                                               figure_files=figure_files, question=question,
                                               description=description, grids=grids)
    return html_path, csv_path


def _write(path: Path, data: bytes) -> None:
    """Write ``data`` unless the file holds it already (an unchanged report leaves its
    files untouched)."""
    try:
        if path.read_bytes() == data:
            return
    except OSError:
        pass
    path.write_bytes(data)


def write_report_full(run_dirs: str | os.PathLike | Iterable[str | os.PathLike],
                      out_dir: str | os.PathLike | None = None, *, title: str | None = None,
                      figure_files: bool = True, question: str | None = None,
                      description: str | None = None, grids: Sequence[Grid] = (),
                      client: Any = None) -> tuple[Path, Path, Report]:
    """:func:`write_report`, also returning the :class:`Report` (its tables, figures and
    summary sentences); ``client``: a ``distributed.Client`` whose workers read the runs
    (:class:`~glory_ai.analysis.report.build.Runs`)."""
    if isinstance(run_dirs, (str, os.PathLike)):
        run_dirs = [run_dirs]
    run_dirs = list(run_dirs)
    # a section at a time, from the runs' columns (bounded by the largest section's columns)
    source = Runs(run_dirs, client=client)
    if out_dir is None:
        first = Path(run_dirs[0])
        out_dir = first if first.is_dir() else first.parent
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise AnalysisError(f"{out}: exists and is not a folder")
    report = build_report(source, question=question, description=description, grids=grids)
    pngs = {name: (F.figure_bytes(fig, "png"), F.figure_bytes(report.narrow[name], "png"))
            for name, fig in report.figures.items()}
    page = render(report, pngs, title or "Glory to Rome arena report")
    try:
        out.mkdir(parents=True, exist_ok=True)
        html_path = out / REPORT_FILE
        is_run = (out / "config.json").is_file() and any(
            (out / name).is_file() for name in ("games.jsonl", "games.jsonl.gz"))
        csv_path = out / (RUN_FOLDER_SUMMARY_FILE if is_run else SUMMARY_FILE)
        _write(html_path, page.encode("utf-8"))
        _write(csv_path, report.tables["summary"].to_csv(index=False, float_format="%.6g").encode())
        if figure_files:
            _write_figures(out / FIGURES_DIR, report, pngs)
    except OSError as exc:
        raise AnalysisError(f"{out}: cannot write the report ({exc.strerror})") from None
    return html_path, csv_path, report


def _write_figures(fig_dir: Path, report: Report, pngs: dict[str, tuple[bytes, bytes]]) -> None:
    fig_dir.mkdir(exist_ok=True)
    # a figure an earlier report of this folder drew and this one leaves out (a
    # section left out in self-play) would otherwise stay beside the new ones
    for old in fig_dir.iterdir():
        if old.suffix in (".png", ".svg") and _FIGURE_NAME.fullmatch(old.stem) \
                and old.stem not in report.figures:
            old.unlink()
    for name, fig in report.figures.items():
        _write(fig_dir / f"{name}.png", pngs[name][0])
        _write(fig_dir / f"{name}.svg", F.figure_bytes(fig, "svg"))
