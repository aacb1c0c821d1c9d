"""`glory-ai verify DIR [--repair]`: check a run folder or an experiment's results folder,
and mend it without losing a good game.

For every run: its plan (config.json, code.json and the manifest carry checksums of each
other), the records against the schema and the plan, each game once, the checksums stored
when they were written, and every game (or a sample) replayed to its recorded result
(:func:`glory_ai.arena.verify.verify_run`). Then the files derived from the records must be
what the records give: a run folder's ``summary.csv``; an experiment's game counts and
checksums in ``manifest.json``, ``runs.csv``, the report's ``summary.csv`` and the README's
table and findings.

``repair`` sets the records at fault aside (``quarantine.jsonl``, nothing deleted), plays
their games again and writes the derived files again -- for an experiment by resuming it
(``glory-ai run``'s own path); a changed plan is refused, naming the file to put back. The
folder is then verified again (:attr:`Verification.after`).
"""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..arena.lock import describe_writer, writer
from ..arena.storage import CONFIG_FILE, SKIPPABLE, read_records
from ..arena.verify import RunCheck, verify_run
from .checks import check_derived, check_experiment, check_run_summary
from .config import Experiment, ExperimentError, PlannedRun, load_experiment

__all__ = ["Verification", "check_derived", "check_experiment", "check_run_summary", "verify"]


@dataclass
class Verification:
    """What :func:`verify` found: the checks of each run and the problems of the files
    derived from them (one line each)."""

    folder: Path
    runs: list[RunCheck] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    #: what a repair did, and what it would not do, one line each
    actions: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    #: the folder verified again after a repair
    after: Verification | None = None
    #: how many of the problems are derived files that differ from sound records
    stale: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems and all(r.ok for r in self.runs)

    @property
    def final(self) -> Verification:
        """The folder as it is now: after the repair, if one was made."""
        return self.after if self.after is not None else self

    @property
    def all_problems(self) -> list[str]:
        return [p for r in self.runs for p in r.problems] + self.problems


def _planned_config(planned: PlannedRun, run_folder: Path) -> str | None:
    """Why a run's config.json is not the experiment's plan for it (one line), or None."""
    from ..arena.storage import load_config

    try:
        config = load_config(run_folder)
    except ValueError:
        return None                     # unreadable: verify_run says so (and may write it back)
    diff = planned.config.differences(config)
    if not diff:
        return None
    parts = "; ".join(f"{k}: {json.dumps(theirs)} there, {json.dumps(mine)} in experiment.toml"
                      for k, (mine, theirs) in diff.items())
    return (f"{run_folder / CONFIG_FILE} is not the run experiment.toml plans ({parts}): it was "
            "changed; put it back as it was, or start over (`glory-ai run` with --fresh moves the "
            "results aside)")


def verify(folder: str | Path, *, sample: int | None = None, jobs: int = 1, repair: bool = False,
           derived: bool = True, log: Callable[[str], object] = print) -> Verification:
    """Check a run folder or an experiment's results folder (see the module's doc); with
    ``repair``, mend it and verify it again (:attr:`Verification.after`)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ExperimentError(f"{folder}: no such folder")
    found = Verification(folder)
    if (folder / "experiment.toml").exists():
        busy = writer(folder)
        if busy is not None:
            # `glory-ai run` holds the results folder while it plays: its runs are not all there
            message = (f"{folder} is being written by {describe_writer(busy)}: its runs may change "
                       "while they are read; verify it once that has finished")
            if repair:
                raise ExperimentError(message.replace("verify it", "repair it"))
            found.problems.append(message)
            return found
        experiment = load_experiment(folder / "experiment.toml")
        for planned in experiment.runs():
            run_folder = folder / "runs" / planned.name
            if not (run_folder / CONFIG_FILE).exists() and not (run_folder / "code.json").exists():
                raise ExperimentError(f"{run_folder}: missing (the experiment was not run to the end)")
            edited = _planned_config(planned, run_folder)
            if edited is not None:
                check = RunCheck(run_folder, None, problems=[edited], refused=edited)
            else:
                check = verify_run(run_folder, sample=sample, n_jobs=jobs, repair=repair,
                                   replay_games=False, progress=log)
            found.runs.append(check)
        if all(r.config is not None for r in found.runs):
            check_experiment(experiment, folder, found.runs, found.problems)
            if derived and all(r.ok for r in found.runs):
                before = len(found.problems)
                check_derived(experiment, folder, found.problems)
                found.stale = len(found.problems) - before
        if repair:
            _resume_experiment(found, experiment, jobs, log)
    elif (folder / CONFIG_FILE).exists() or (folder / "code.json").exists():
        check = verify_run(folder, sample=sample, n_jobs=jobs, repair=repair, progress=log)
        found.runs.append(check)
        if derived and check.ok:
            check_run_summary(folder, found.problems)
            found.stale = len(found.problems)
        # a table that differs from sound records is written again from them (no game changes)
        if repair and (check.played or found.stale) and (folder / "summary.csv").exists():
            _write_run_summary(folder)
            found.actions.append(f"{folder / 'summary.csv'}: written again from the records")
    else:
        raise ExperimentError(f"{folder}: neither a run folder (config.json) nor an experiment's "
                              "results (experiment.toml)")
    if repair:
        for run in found.runs:
            found.actions[:0] = run.actions
            if run.refused is not None:
                found.refused.append(run.refused)
        if found.actions:
            found.after = verify(folder, sample=sample, jobs=jobs, derived=derived, log=log)
    return found


def _resume_experiment(found: Verification, experiment: Experiment, jobs: int,
                       log: Callable[[str], object]) -> None:
    """After its runs were repaired, resume the experiment (``glory-ai run``'s own path): the
    games set aside are played again, each run compressed again, the manifest, runs.csv, the
    report and the README written again."""
    from .runner import run_experiment

    if any(r.refused is not None for r in found.runs):
        return
    # files derived from sound records that differ from them are written again by the same
    # resume; a manifest that disagrees with the records is not (it may be what shows an edit)
    stale_only = 0 < found.stale == len(found.problems) and all(r.ok for r in found.runs)
    if not any(r.repaired for r in found.runs) and not stale_only:
        return
    before = sum(r.games for r in found.runs)
    run_experiment(experiment, out=found.folder, jobs=jobs, log=lambda line: None, progress=False)
    played = (f"the games set aside played again ({before} kept)" if any(r.repaired for r in found.runs)
              else f"no game played ({before} sound)")
    found.actions.append(f"{found.folder}: the experiment resumed (`glory-ai run "
                         f"{found.folder / 'experiment.toml'} --out {found.folder}`): {played}, the "
                         "manifest and the files derived from the records written again")
    del log


def _write_run_summary(folder: Path) -> None:
    """A compare or tournament folder's summary.csv and plot, from its records (as the
    command that wrote the folder writes them)."""
    from ..analysis.figures import plot_summary
    from ..analysis.stats import summarize
    from ..arena.storage import load_config

    summary = summarize(read_records(folder, skip=SKIPPABLE), load_config(folder))
    summary.to_csv(folder / "summary.csv", float_format="%.6g")
    if (folder / "win_rates.png").exists():
        plot_summary(summary, folder / "win_rates.png")
