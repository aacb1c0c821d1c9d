"""A balance study from start to answer: ``glory-ai tune CONFIG`` writes ``results/NAME/``
(docs/tuning.md)::

    results/NAME/
      tune.toml            the config, as given (a different config is refused here)
      study.db             the optuna study (SQLite): every trial, its values and rungs
      trials/v-<hash>/Kp/  the arena runs of each variant tried (resumable)
      validation/...       the fresh-deal runs of the best variants and of the published rules,
                           each with its balance report
      validation.csv       one row per variant and statistic (value, interval, p, p_holm)
      README.md            the answer in words, then how it was found
      report.html          progress, trade-off, validation, links to the balance reports
      figures/             progress.png, tradeoff.png
      manifest.json        versions, build, seeds, scheduling, time

The folder is locked while the study runs (a second process on it is refused, naming the
first). kill -9 loses at most the games in flight: the same command resumes the study where
it stopped, and ``reproduce`` replays the validation games (and with ``trials`` the search's)
to check that they are what this code plays.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..arena import ArenaError, load_records, strip_timing
from ..arena.lock import FolderLock
from ..arena.storage import load_config
from ..provenance import provenance
from .config import TuneConfig, load_tune_config
from .errors import TuneError
from .output import write_outputs
from .study import TRIALS_DIR, run_search, trial_results
from .validation import VALIDATION_DIR, Validation, validate

__all__ = ["CONFIG_FILE", "StudyOutcome", "is_study", "reproduce_study", "run_tune"]

CONFIG_FILE = "tune.toml"


def is_study(folder: str | os.PathLike[str]) -> bool:
    """A results folder written by ``glory-ai tune`` (it holds tune.toml)."""
    return (Path(folder) / CONFIG_FILE).is_file()


@dataclass
class StudyOutcome:
    folder: Path
    readme: Path
    validation: Validation
    seconds: float


def _prepare(config: TuneConfig, folder: Path, fresh: bool, log_line: Callable[[str], object]) -> None:
    """Check that the folder holds this study (or nothing), moving it aside with ``fresh``."""
    stored = folder / CONFIG_FILE
    if stored.exists() and fresh:
        from ..arena.code import set_aside

        moved = set_aside(folder)
        log_line(f"moved the earlier study aside to {moved}")
        return
    if folder.exists() and any(folder.iterdir()) and not stored.exists():
        raise TuneError(
            f"{folder}: exists and is not a study's folder (no {CONFIG_FILE}); choose another "
            "--out, or remove it"
        )
    if stored.exists() and stored.read_text() != config.source:
        raise TuneError(
            f"{folder}: holds a study of another config ({stored} differs from the config "
            "given): run with --fresh to start over (the folder is moved aside, nothing is "
            "deleted), or --out another folder"
        )


def run_tune(
    config: TuneConfig,
    folder: str | os.PathLike[str],
    *,
    options: Mapping[str, Any] | None = None,
    fresh: bool = False,
    trials: int | None = None,
    log_line: Callable[[str], object] = print,
    progress: Callable[[int, int], object] = lambda trial, deals: None,
) -> StudyOutcome:
    """Run (or resume) the study into ``folder``: search, validation, README and report."""
    started = time.time()
    folder = Path(folder)
    options = dict(config.run_options, **(options or {}))
    _prepare(config, folder, fresh, log_line)
    lock = FolderLock(folder, create=True).acquire()
    try:
        (folder / CONFIG_FILE).write_text(config.source)
        study = run_search(config, folder, options, log_line=log_line, progress=progress, trials=trials)
        results = trial_results(study)
        validation = validate(config, folder, results, options, log_line=log_line)
        manifest = {
            "study": config.name,
            **provenance(),
            "seed": config.seed,
            "validation_seed": config.validation_seed,
            "sampler": config.sampler,
            "trials": len(results),
            "backend": options.get("backend", "loky"),
            "jobs": options.get("jobs"),
            "seconds": round(time.time() - started, 1),
        }
        readme = write_outputs(config, folder, results, validation, manifest)
    finally:
        lock.release()
    return StudyOutcome(folder, readme, validation, time.time() - started)


def _run_folders(folder: Path, trials: bool) -> list[Path]:
    parts = [VALIDATION_DIR] + ([TRIALS_DIR] if trials else [])
    return sorted(p.parent for part in parts for p in (folder / part).glob("*/*p/config.json"))


def reproduce_study(
    folder: str | os.PathLike[str],
    *,
    trials: bool = False,
    jobs: int | None = None,
    log_line: Callable[[str], object] = print,
) -> list[dict[str, Any]]:
    """Replay every game of the study's validation runs (and of its trials with ``trials``)
    and compare each record with the stored one, timing aside: one entry per run folder with
    its games and the ids of those that differ."""
    from joblib import Parallel, delayed

    from ..arena.play import play_game

    folder = Path(folder)
    if not is_study(folder):
        raise TuneError(f"{folder}: not a study's folder (no {CONFIG_FILE})")
    load_tune_config(folder / CONFIG_FILE)  # the config still reads on this code
    out = []
    for run_folder in _run_folders(folder, trials):
        try:
            config = load_config(run_folder)
            stored = load_records(run_folder)
        except ArenaError as error:
            raise TuneError(f"{run_folder}: {error}") from None
        tasks = []
        for record in stored:
            deal, pairing, rotation = (int(x) for x in record["game_id"].split("-"))
            tasks.append(config.task(deal, pairing, rotation))
        fresh = Parallel(n_jobs=jobs or 1)(delayed(play_game)(task) for task in tasks)
        differ = [
            a["game_id"] for a, b in zip(stored, fresh, strict=True) if strip_timing(a) != strip_timing(b)
        ]
        log_line(
            f"{run_folder.relative_to(folder)}: {len(stored)} games, "
            + ("identical" if not differ else f"{len(differ)} differ")
        )
        out.append({"run": str(run_folder.relative_to(folder)), "games": len(stored), "differ": differ})
    return out
