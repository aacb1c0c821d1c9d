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
import resource
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._jsonio import read_json
from .._reading import CONFIG_BYTES, read_text
from ..arena import ArenaError, load_records, strip_timing
from ..arena.session import Session
from ..arena.storage import load_config
from ..provenance import provenance
from .config import TuneConfig, load_tune_config
from .errors import TuneError
from .output import write_outputs
from .study import TRIALS_DIR, run_search, trial_results
from .trials import compress_finished
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


def _not_a_study(folder: Path) -> None:
    """A folder holding something else than a study is never moved aside or written into."""
    if folder.is_dir() and any(folder.iterdir()) and not (folder / CONFIG_FILE).exists():
        raise TuneError(
            f"{folder}: exists and is not a study's folder (no {CONFIG_FILE}); choose another "
            "--out, or remove it"
        )


def _same_study(config: TuneConfig, folder: Path) -> None:
    stored = folder / CONFIG_FILE
    if stored.exists() and read_text(stored, "a stored config", CONFIG_BYTES) != config.source:
        raise TuneError(
            f"{folder}: holds a study of another config ({stored} differs from the config "
            "given): run with --fresh to start over (the folder is moved aside, nothing is "
            "deleted), or --out another folder"
        )


def cpu_seconds() -> float:
    """CPU time of this process and of its children that have ended: the arena's loky
    workers count once :func:`_end_workers` has stopped them."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


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
    """Run (or resume) the study into ``folder`` within one arena session (the folder held
    from first write to last): search, validation, README and report. ``options``: the
    scheduling (``jobs``, ``backend``, ``scheduler``, ``batch_size``) over the config's [run]."""
    started, cpu_started = time.time(), cpu_seconds()
    folder = Path(folder)
    options = dict(config.run_options, **(options or {}))
    _not_a_study(folder)
    session = Session(
        folder, fresh=fresh, on_aside=lambda moved, _: log_line(f"moved the earlier study aside to {moved}"),
        n_jobs=options.get("jobs"), batch_size=options.get("batch_size"),
        backend=options.get("backend", "loky"), scheduler=options.get("scheduler"), progress=False)
    with session:
        _same_study(config, folder)
        (folder / CONFIG_FILE).write_text(config.source)
        games_before = sum(_games(p) for p in _run_folders(folder, trials=True))
        study = run_search(config, folder, session, log_line=log_line, progress=progress, trials=trials)
        results = trial_results(study)
        validation = validate(config, folder, results, session, log_line=log_line)
        compress_finished(_run_folders(folder, trials=True))
        games = sum(_games(p) for p in _run_folders(folder, trials=True))
        _end_workers()
        cpu = cpu_seconds() - cpu_started
        call = {"seconds": round(time.time() - started, 1), "cpu_seconds": round(cpu, 1),
                "games_played": games - games_before}
        earlier = _earlier_calls(folder)
        # a call that only re-reads a finished study (nothing played) is not a call that made it
        calls = [*earlier, call] if call["games_played"] or not earlier else earlier
        manifest = {
            "study": config.name,
            **provenance(),
            "seed": config.seed,
            "validation_seed": config.validation_seed,
            "sampler": config.sampler,
            "trials": len(results),
            "backend": options.get("backend", "loky"),
            "jobs": options.get("jobs"),
            # the calls that made the study (a resumed study has several; one killed before
            # its end is missing, and its games are counted in none)
            "calls": calls,
            "seconds": round(sum(c["seconds"] for c in calls), 1),
            "cpu_seconds": round(sum(c["cpu_seconds"] for c in calls), 1),
            "games": games,
        }
        readme = write_outputs(config, folder, results, validation, manifest)
    return StudyOutcome(folder, readme, validation, time.time() - started)


def _earlier_calls(folder: Path) -> list[dict[str, Any]]:
    """The calls of the study's manifest so far (one of unknown games for a manifest written
    before calls were kept)."""
    try:
        earlier = read_json(folder / "manifest.json")
    except (OSError, ValueError):
        return []
    if not isinstance(earlier, dict):
        return []
    if isinstance(earlier.get("calls"), list):
        return [c for c in earlier["calls"] if isinstance(c, dict)]
    if "seconds" in earlier:
        return [{"seconds": earlier.get("seconds", 0.0), "cpu_seconds": earlier.get("cpu_seconds", 0.0),
                 "games_played": None}]
    return []


def _end_workers() -> None:
    """Stop the arena's reusable loky workers (the next run starts them again), so that the
    CPU time they spent is the process's children's."""
    try:
        from joblib.externals.loky import get_reusable_executor

        get_reusable_executor().shutdown(wait=True)
    except (ImportError, OSError, RuntimeError):
        pass


def _games(run_folder: Path) -> int:
    from ..arena.storage import read_records

    try:
        return len(read_records(run_folder, skip=("actions",)))
    except (ArenaError, OSError):
        return 0


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
