"""The files derived from an experiment's records, checked against them (``glory-ai verify``,
:mod:`glory_ai.experiments.verify`; ``glory-ai reproduce``, :mod:`glory_ai.experiments.runner`):
a run folder's ``summary.csv``; an experiment's game counts and checksums in
``manifest.json`` (and its checksums of each run's ``config.json`` and ``code.json``),
``runs.csv``, the report's ``summary.csv`` and the README's table and findings. Each problem
is one line naming the file.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from .._jsonio import MAX_BYTES, read_json
from .._reading import read_text
from ..arena.storage import CONFIG_FILE, SKIPPABLE, read_config, read_records
from ..arena.verify import RunCheck
from .config import Experiment
from .tables import readme_table, report_grids, runs_table

__all__ = ["check_derived", "check_experiment", "check_run_summary"]


def _text(path: Path) -> str | None:
    try:
        return read_text(path, "a results file", MAX_BYTES)
    except (OSError, ValueError):
        return None


def _same_file(path: Path, expected: str, what: str, problems: list[str]) -> None:
    found = _text(path)
    if found is None:
        problems.append(f"{path}: missing or unreadable ({what})")
    elif found != expected:
        lines = found.splitlines()
        want = expected.splitlines()
        line = next((i + 1 for i, (a, b) in enumerate(zip(lines, want, strict=False)) if a != b),
                    min(len(lines), len(want)) + 1)
        problems.append(f"{path}: differs from what the records give ({what}; first at line {line})")


def check_run_summary(folder: Path, problems: list[str]) -> None:
    """A compare or tournament folder's ``summary.csv`` must be the table of its records."""
    path = folder / "summary.csv"
    if not path.exists():
        return
    from ..analysis.stats import summarize
    from ..arena.storage import load_config

    summary = summarize(read_records(folder, skip=SKIPPABLE), load_config(folder))
    _same_file(path, summary.to_csv(float_format="%.6g"), "the win-rate table", problems)


def check_derived(experiment: Experiment, folder: Path, problems: list[str]) -> None:
    """``runs.csv``, the report's ``summary.csv`` and the README against the records."""
    table = runs_table(experiment, folder)
    _same_file(folder / "runs.csv", table.to_csv(index=False, float_format="%.6g"),
               "every run's win-rate table", problems)
    readme = _text(folder / "README.md")
    if readme is None:
        problems.append(f"{folder / 'README.md'}: missing or unreadable")
    else:
        present = set(readme.splitlines())
        wrong = [line for line in readme_table(table) if line not in present]
        if wrong:
            problems.append(f"{folder / 'README.md'}: its table differs from the records "
                            f"(`{wrong[0][:80]}` expected)")
    if experiment.report and (folder / "summary.csv").exists():
        from ..analysis.report import Runs, build_report
        # the report as `glory-ai run` builds it (the runs read a section at a time): its
        # question answered first, its grids' curves
        description = " ".join(experiment.description.split()) if experiment.description else None
        report = build_report(Runs([folder / "runs" / p.name for p in experiment.runs()]),
                              figures=False, question=experiment.question or None,
                              description=description, grids=report_grids(experiment))
        _same_file(folder / "summary.csv",
                   report.tables["summary"].to_csv(index=False, float_format="%.6g"),
                   "the report's win rates", problems)
        if readme is not None:
            missing = [s for s in report.sentences if f"* {s}" not in readme.splitlines()]
            if missing:
                problems.append(f"{folder / 'README.md'}: a finding differs from the records "
                                f"(`{missing[0][:80]}` expected)")


def check_experiment(experiment: Experiment, folder: Path, checks: list[RunCheck],
                     problems: list[str]) -> None:
    """Every planned run complete, and ``manifest.json``'s counts and checksums those of the
    records."""
    try:
        manifest = read_json(folder / "manifest.json")
        listed = {r.get("run"): r for r in manifest.get("runs", []) if isinstance(r, dict)}
    except (OSError, ValueError, AttributeError):
        problems.append(f"{folder / 'manifest.json'}: missing or not a manifest")
        listed = {}
    for planned, check in zip(experiment.runs(), checks, strict=True):
        total = planned.config.total_games
        if check.games != total and not (planned.config.sprt is not None and check.games < total):
            problems.append(f"{check.folder}: {check.games} of its {total} games recorded")
        entry = listed.get(planned.name)
        if listed and entry is None:
            problems.append(f"{folder / 'manifest.json'}: run {planned.name} is not listed")
        elif entry is not None and entry.get("games") != check.games:
            problems.append(f"{folder / 'manifest.json'}: run {planned.name} lists {entry.get('games')} "
                            f"games, the records hold {check.games}")
        if entry is not None and entry.get("records") is not None and check.config is not None:
            stored = read_config(check.folder).get("records")
            if entry["records"] != stored or not check.digest.matches(entry["records"]):
                problems.append(f"{folder / 'manifest.json'}: the checksum of run {planned.name} "
                                "differs from its records")
        if entry is not None and check.config is not None:
            _same_plan(folder, planned.name, entry, check.folder, problems)


def _same_plan(folder: Path, name: str, entry: dict[str, Any], run_folder: Path,
               problems: list[str]) -> None:
    """The manifest's checksums of a run's config.json and code.json, against the files."""
    from ..arena.integrity import CODE_KEY, PLAN_KEY

    stored = read_config(run_folder)
    for key, what in ((PLAN_KEY, CONFIG_FILE), (CODE_KEY, "code.json")):
        if entry.get(key) is not None and stored.get(key) is not None and entry[key] != stored[key]:
            problems.append(f"{folder / 'manifest.json'}: run {name}'s checksum of {what} differs "
                            f"from the one {run_folder / CONFIG_FILE} holds: one of the two was changed")
