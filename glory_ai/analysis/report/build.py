"""Building the report: the frame's specs by their labels, then every section of
:data:`~.sections.SECTIONS` in turn (its result from the columns it declares), the summary
sentences in the order the experiment's question asks for, and the figures."""
from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

import pandas as pd
from threadpoolctl import threadpool_limits

from .. import AnalysisError
from .. import figures as F
from ..columns import release_memory
from ..load import RunManifests, load_runs, reads_columns
from ..stream import NotStreamed, RunStream, open_runs
from .base import Grid, Report, Section, question_topics
from .labels import spec_labels
from .overview import overview
from .sections import SECTIONS
from .sections.strategies import summary_table

__all__ = ["COLUMNS", "Runs", "build_report", "findings", "section_frame"]

#: the frame's columns the report reads besides its sections' (labels, player counts, the
#: summary's counts)
COLUMNS = ("run", "game", "num_players", "seat", "spec", "rules")


class Runs:
    """Run folders read a section at a time. Finished runs are read from their columns
    files a row group at a time (:attr:`stream`): the sections that work from sums
    (:attr:`Section.streams`, every section) never hold a frame of every seat-game; one that
    cannot work from these runs' sums (:class:`NotStreamed`) gets only the columns it declares
    (:func:`~glory_ai.analysis.load.load_runs` with ``columns``). Runs that have no columns
    file yet (still being written, or bare records files) are read whole, once. ``client``: a
    ``distributed.Client`` whose workers make the columns files and the sums (or read the
    frames' columns), a task per run."""

    def __init__(self, run_dirs: Iterable[str | os.PathLike], *, client: Any = None) -> None:
        self.run_dirs = [str(p) for p in run_dirs]
        self.client = client
        self._whole = None if reads_columns(self.run_dirs) else load_runs(self.run_dirs)
        self._orders: dict[str, Any] = {}        # each run's row order, sorted once
        self._stream: RunStream | None | bool = self._whole is not None and None

    @property
    def stream(self) -> RunStream | None:
        """The runs read a row group at a time (:mod:`glory_ai.analysis.stream`), for the
        sections that work from sums; None where frames are read instead."""
        if self._stream is False:
            checked = None
            if self.client is not None:
                # the workers make the runs' columns files (where stale), a task per run; this
                # process trusts what they checked (unless changed since)
                from ..columns import checked_columns

                checked = self.client.gather(self.client.map(checked_columns, self.run_dirs, pure=False))
            self._stream = open_runs(self.run_dirs, self.client, checked)
        assert self._stream is None or isinstance(self._stream, RunStream)
        return self._stream

    def frame(self, columns: Sequence[str]) -> pd.DataFrame:
        """The runs' frame with the columns named (a name ending in ``:``: every column of
        that prefix; a name the runs do not have is left out)."""
        if self._whole is not None:
            return _select(self._whole, columns)
        return load_runs(self.run_dirs, columns=columns, client=self.client, orders=self._orders)


def _select(frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    names = {c for c in columns if not c.endswith(":")}
    prefixes = tuple(c for c in columns if c.endswith(":"))
    return frame[[c for c in frame.columns
                  if c in names or (prefixes and isinstance(c, str) and c.startswith(prefixes))]]


def build_report(frame: pd.DataFrame | Runs, figures: bool = True, *, question: str | None = None,
                 description: str | None = None, grids: Sequence[Grid] = ()) -> Report:
    """Compute every table, figure (unless ``figures`` is false) and summary sentence of the
    report for a frame of :func:`~glory_ai.analysis.load.load_runs`, or for :class:`Runs`
    read a section at a time. With an experiment's ``question`` the sentences that answer
    it come first (``Report.answer``); ``grids`` adds each grid's curve, its table and
    sentences; ``description`` is the page's lead (default: the runs' descriptions)."""
    runs = frame if isinstance(frame, Runs) else None
    stream = runs.stream if runs is not None else None
    if stream is not None:
        report, labels = _streamed_report(stream, grids)
    else:
        if runs is not None:
            frame = runs.frame(COLUMNS)
        assert isinstance(frame, pd.DataFrame)
        if frame.empty:
            raise AnalysisError("no games to report on")
        frame, grids, labels = _labelled(frame, grids)
        counts = sorted(int(k) for k in frame["num_players"].unique())
        report = Report(frame=frame, runs=list(frame.attrs.get("runs", [])), counts=counts,
                        colors=F.spec_colors([str(s) for s in frame["spec"].unique()]),
                        compared=_compared_counts(frame), facts=_facts(frame), grids=tuple(grids))
    report.question, report.description = question, description
    # the statistics' products are small (bootstrap weights by per-deal sums, a few
    # parameters): BLAS threads would cost more CPU in starting and waiting than they save
    with threadpool_limits(limits=1, user_api="blas"):
        _compute_sections(report, report.frame, runs, labels)
    report.tables["summary"] = summary_table(report.frame, report.tables)
    _sentences(report)
    if figures:
        _figures(report)
    return report


def _compute_sections(report: Report, frame: pd.DataFrame, runs: Runs | None,
                      labels: dict[str, str]) -> None:
    stream = runs.stream if runs is not None else None
    for section in SECTIONS:
        if not section.applies(report):
            continue
        result = None
        if stream is not None and section.streams:
            try:
                result = section.compute_stream(stream, report)
            except NotStreamed:
                result = _from_frame(section, report, frame, runs, labels)
        else:
            result = _from_frame(section, report, frame, runs, labels)
        release_memory()            # the section's columns, freed: given back before the next
        if result is not None:
            report.sections.append((section, result))
            report.tables.update(section.tables(result))
            report.notes.update(section.notes(result))


def _from_frame(section: Section[Any], report: Report, frame: pd.DataFrame, runs: Runs | None,
                labels: dict[str, str]) -> Any:
    """A section's result from the frame's columns it declares (read for it alone)."""
    if runs is None:
        part = section_frame(frame, section)
    else:
        # no other name for the section's columns: freed with ``part``, before the next
        part = section_frame(_relabel(runs.frame([*section.columns, *section.optional_columns]),
                                      labels), section)
    return section.compute(part, report)


def findings(runs_or_frame: pd.DataFrame | Iterable[str | os.PathLike] | str | os.PathLike) -> list[str]:
    """The plain-language summary of the report: a list of sentences, each backed by the
    numbers of a table and saying when a difference is not significant (at 5%)."""
    frame = runs_or_frame if isinstance(runs_or_frame, pd.DataFrame) else load_runs(runs_or_frame)
    return build_report(frame, figures=False).sentences


def section_frame(frame: pd.DataFrame, section: Section[Any]) -> pd.DataFrame:
    """The columns of the frame a section declares (a name ending in ``:`` takes every
    column of that prefix), and its optional ones the frame has, in the frame's order."""
    names = {c for c in (*section.columns, *section.optional_columns) if not c.endswith(":")}
    prefixes = tuple(c for c in section.columns if c.endswith(":"))
    return frame[[c for c in frame.columns
                  if c in names or (prefixes and isinstance(c, str) and c.startswith(prefixes))]]


def _streamed_report(stream: RunStream, grids: Sequence[Grid]) -> tuple[Report, dict[str, str]]:
    """The report's frame-free start from the runs read a row group at a time: the counts,
    colours and facts :func:`build_report` takes from the frame, the same. Its ``frame``
    has no rows (the sections read what they need)."""
    manifests = RunManifests(run.manifest() for run in stream.runs)
    seen = overview(stream)
    if not seen.seat_games:
        raise AnalysisError("no games to report on")
    grids, labels = _labelled_specs(list(seen.first), manifests, grids)
    stream.set_labels(labels, seen.first)
    stream.run_specs = [{labels.get(s, s) for s in specs} for specs in seen.run_specs]
    frame = pd.DataFrame({c: [] for c in COLUMNS})
    frame.attrs["runs"] = manifests
    specs = {labels.get(s, s) for s in seen.first}
    report = Report(frame=frame, runs=list(manifests), counts=sorted(seen.counts),
                    colors=F.spec_colors(list(dict.fromkeys(labels.get(s, s) for s in seen.first))),
                    compared=sorted(seen.compared), grids=tuple(grids),
                    facts={"games": seen.games, "seat_games": seen.seat_games, "specs": len(specs),
                           "rules": len(seen.rules)})
    return report, labels


def _labelled(frame: pd.DataFrame, grids: Sequence[Grid]) -> tuple[pd.DataFrame, list[Grid], dict[str, str]]:
    """The frame and the grids with every spec by its label (no parameter left at its
    default): in tables, figures, text."""
    grids, labels = _labelled_specs([str(s) for s in frame["spec"].unique()],
                                    frame.attrs.get("runs", []), grids)
    if any(spec != label for spec, label in labels.items()):
        frame = _relabel(frame, labels)
    return frame, grids, labels


def _labelled_specs(specs: list[str], manifests: Sequence[dict[str, Any]], grids: Sequence[Grid]
                    ) -> tuple[list[Grid], dict[str, str]]:
    """The grids with every spec by its label, and the labels of ``specs``."""
    grids = list(grids)
    # a grid names its runs' specs as their configs write them: follow the runs whose
    # specs the loader spelled out as played (a default changed since)
    played = {str(m.get("label")): dict(m.get("as_played") or {}) for m in manifests}
    if any(played.values()):
        anywhere = {old: new for names in played.values() for old, new in names.items()}
        grids = [replace(grid, opponents=tuple(anywhere.get(o, o) for o in grid.opponents),
                         points=tuple((value, run, played.get(run, {}).get(spec, spec))
                                      for value, run, spec in grid.points))
                 for grid in grids]
    recorded = {spec: params for m in manifests for spec, params in (m.get("parameters") or {}).items()}
    labels = spec_labels(specs, recorded)
    if any(spec != label for spec, label in labels.items()):
        grids = [replace(grid, opponents=tuple(labels.get(o, o) for o in grid.opponents),
                         points=tuple((value, run, labels.get(spec, spec))
                                      for value, run, spec in grid.points))
                 for grid in grids]
    return grids, labels


def _relabel(frame: pd.DataFrame, labels: dict[str, str]) -> pd.DataFrame:
    """The frame with its specs by their labels."""
    if "spec" not in frame.columns or all(spec == label for spec, label in labels.items()):
        return frame
    frame = frame.copy()
    if isinstance(frame["spec"].dtype, pd.CategoricalDtype):
        frame["spec"] = frame["spec"].cat.rename_categories(
            [labels[str(c)] for c in frame["spec"].cat.categories])
    else:
        frame["spec"] = frame["spec"].astype(str).map(labels)
    return frame


def _compared_counts(frame: pd.DataFrame) -> list[int]:
    """The player counts at which some game seats two different specs."""
    per_game = frame.groupby(["run", "game"], observed=True, sort=False).agg(
        specs=("spec", "nunique"), players=("num_players", "first"))
    return sorted(int(k) for k in per_game.loc[per_game["specs"] > 1, "players"].unique())


def _facts(frame: pd.DataFrame) -> dict[str, int]:
    """The counts the summary opens with."""
    return {"games": int((frame["seat"] == 0).sum()), "seat_games": len(frame),
            "specs": int(frame["spec"].nunique()), "rules": int(frame["rules"].nunique())}


def _sentences(report: Report) -> None:
    """The summary sentences: those of the sections that answer any question (a grid's
    curve) first; with a question, then those of the topics it names, in its order (together
    ``Report.answer``), then the rest in the order of the sections."""
    leading: list[str] = []
    tagged: list[tuple[str | None, str]] = []
    for section, result in report.sections:
        said = section.findings(report, result)
        if section.answers:
            leading += said
        else:
            tagged += [(section.topic, sentence) for sentence in said]
    if report.question:
        report.topics = question_topics(report.question)
        asked = [sentence for topic in report.topics for tag, sentence in tagged if tag == topic]
        report.answer = leading + asked
        report.sentences = report.answer + [s for tag, s in tagged if tag not in report.topics]
    else:
        report.sentences = leading + [s for _, s in tagged]


def _figures(report: Report) -> None:
    """Every figure of the page, in its wide and its narrow layout."""
    for section, result in report.sections:
        for name, make in section.figures(report, result).items():
            report.figures[name] = make(False)
            report.narrow[name] = make(True)
