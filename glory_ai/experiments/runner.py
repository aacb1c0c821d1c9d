"""Running an experiment into results/NAME/, and reproducing one from its folder.

    results/NAME/
      experiment.toml        the config as run (the resolved runs are in manifest.json)
      manifest.json          versions, git commit and dirty flag, build, seeds, backend, times
      runs/RUN/config.json   one arena run per matchup, grid point, variant and player count
      runs/RUN/games.jsonl.gz  its game records (compressed once the run is complete)
      runs.csv               win rates of every run (one row per run and spec)
      summary.csv, report.html  the balance report of all runs together (glory_ai.analysis)
      README.md              a plain-language summary: the question and its answer (with the
                             grid curves), the other findings, runs.csv
      figures/               the report's figures (PNG and SVG)

Running a finished experiment again plays no game and changes no file: the manifest gets a
session only when games were played, and the reports and figures are byte-identical.

An interrupted experiment resumes: finished runs are kept, the run under way resumes from
its games.jsonl (docs/arena.md).
"""
from __future__ import annotations

import importlib.metadata
import json
import platform
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import __version__
from .._jsonio import MAX_BYTES, read_json
from .._reading import CONFIG_BYTES, read_text
from .._words import plural
from ..arena import RunConfig, Session, strip_timing
from ..arena.storage import (
    COMPRESSED_GAMES_FILE,
    CONFIG_FILE,
    Plan,
    check_config,
    compress_run,
    is_compressed,
    os_error,
    read_config,
    read_records,
    scan_folder,
)
from .config import Experiment, ExperimentError, PlannedRun, load_experiment
from .tables import readme_table, report_grids, runs_table

if TYPE_CHECKING:
    import pandas as pd

    from ..arena import StoppingRule

__all__ = ["ReproduceReport", "run_experiment", "reproduce", "manifest", "report_grids"]

_LIBRARIES = ("numpy", "scipy", "pandas", "matplotlib", "joblib", "statsmodels", "orjson", "Cython", "tqdm")


def _git(args: list[str]) -> str | None:
    try:
        out = subprocess.run(["git", *args], capture_output=True, text=True, timeout=10,
                             cwd=Path(__file__).resolve().parent)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def manifest(experiment: Experiment, options: dict[str, Any]) -> dict[str, Any]:
    """What produced a result: versions, commit, build, platform, seeds and scheduling."""
    libraries: dict[str, str | None] = {}
    for name in _LIBRARIES:
        try:
            libraries[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            libraries[name] = None
    commit = _git(["rev-parse", "HEAD"])
    status = _git(["status", "--porcelain", "--untracked-files=no"])
    from .. import build_info

    return {
        "experiment": experiment.name,
        "glory_ai": __version__,
        "git_commit": commit,
        "git_dirty": bool(status) if status is not None else None,
        "build": build_info(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "libraries": libraries,
        "seed": experiment.seed,
        "reproducible": experiment.reproducible,
        "backend": options.get("backend", "loky"),
        "jobs": options.get("jobs"),
        "batch_size": options.get("batch_size"),
        "code": _code(experiment),
    }


def _code(experiment: Experiment) -> dict[str, Any]:
    """The code identity of the experiment's runs (glory_ai and every user bot of them;
    each run folder's code.json holds its own)."""
    from ..arena.code import code_identity

    identity: dict[str, Any] = {"bots": {}}
    for planned in experiment.runs():
        current = code_identity(planned.config)
        identity["glory_ai"] = current["glory_ai"]
        identity["bots"].update(current["bots"])
    return identity


def _build_changed(folder: Path, log: Callable[[str], object]) -> None:
    """Warn when the results in ``folder`` were made by another build than this one (the
    run folders' code.json refuses to mix code; older results record only the build)."""
    from .. import build_info

    try:
        previous = read_json(folder / "manifest.json")
    except (OSError, ValueError):
        return
    before = (previous.get("build") or {}).get("source_hash") if isinstance(previous, dict) else None
    now = build_info().get("source_hash")
    if before and now and before != now:
        log(f"warning: {folder} was made by the build {before[:12]}; this is {now[:12]} "
            "(glory_ai.build_info()): its records need not be what this build plays")


def _finished_games(folder: Path, config: RunConfig) -> int | None:
    """The number of games of a finished (compressed) run in ``folder``, else None. The
    records are read in a stream and checked against the plan and their checksum."""
    if not is_compressed(folder):
        return None
    check_config(folder, config, warn=False)
    games = scan_folder(folder / COMPRESSED_GAMES_FILE, Plan(config)).games
    return games if games == config.total_games or config.sprt is not None else None


def _sprt(config: RunConfig) -> StoppingRule:
    # the statistics are imported only for a config with an SPRT
    from ..analysis.stats import DealSPRT

    return DealSPRT.for_config(config)


def _session(folder: Path, options: Mapping[str, Any], progress: bool | None, fresh: bool = False,
             log: Callable[[str], object] = print) -> Session:
    """The session that plays an experiment's runs into ``folder`` with its scheduling
    options (the [run] table and the command line), each run stopped by its SPRT, if any;
    ``fresh``: the folder moved aside first (and ``log`` told)."""
    def aside(moved: Path, fresh: bool) -> None:
        log(f"--fresh: the earlier results of {folder} are kept in {moved}")

    return Session(folder, fresh=fresh, on_aside=aside, sprt=_sprt, n_jobs=options.get("jobs"),
                   batch_size=options.get("batch_size"), backend=options.get("backend", "loky"),
                   scheduler=options.get("scheduler"), progress=progress,
                   move_time_limit=options.get("move_time_limit"),
                   forfeit=options.get("forfeit", False), isolation=options.get("isolation", "users"),
                   bot_memory=options.get("bot_memory"))


def _play(planned: PlannedRun, folder: Path, session: Session, finished: int | None) -> dict[str, Any]:
    """Plays a run into ``folder`` unless it is ``finished`` (its games, from
    :func:`_finished_games`)."""
    started = time.time()
    if finished is not None:
        played = {"run": planned.name, "games": finished, "played": 0, "seconds": 0.0}
    else:
        result = session.play(planned.config, folder)
        compress_run(folder)
        played = {"run": planned.name, "games": result.games, "played": result.played,
                  "seconds": round(time.time() - started, 1)}
    stored = read_config(folder)
    played["records"] = stored.get("records")
    # the checksums of the run's config.json and code.json (glory_ai.arena.integrity)
    for key in ("plan_sha256", "code_sha256"):
        if stored.get(key) is not None:
            played[key] = stored[key]
    return played


def _summary(experiment: Experiment, out: Path) -> pd.DataFrame:
    summary = runs_table(experiment, out)
    _write_text(out / "runs.csv", summary.to_csv(index=False, float_format="%.6g"))
    return summary


def _write_readme(experiment: Experiment, out: Path, answer: Sequence[str], findings: Sequence[str],
                  summary: pd.DataFrame, curves: Sequence[str] = ()) -> None:
    """README.md: the question, what was played, the answer (with the grids' curves), the
    other findings, every run's table, how to reproduce."""
    lines = [f"# {experiment.name}", ""]
    if experiment.question:
        lines += [f"**Question.** {experiment.question}", ""]
    if experiment.description:
        lines += [experiment.description, ""]
    if answer:
        lines += ["**Answer.**", ""] + [f"* {sentence}" for sentence in answer]
        for name in curves:
            lines += ["", f"![{name}: score against the grid](figures/grid-{name}.png)"]
        lines += [""]
        if findings:
            lines += ["**Also found.**", ""] + [f"* {sentence}" for sentence in findings]
    else:
        lines += ["**Found.**", ""]
        lines += [f"* {sentence}" for sentence in findings] or ["* (no analysis)"]
    lines += ["", *readme_table(summary)]
    lines += ["", f"Reproduce: `glory-ai reproduce results/{experiment.name}`; re-run: "
              f"`glory-ai run experiments/{experiment.name}.toml`. Files: `manifest.json`, "
              "`runs.csv`, `summary.csv`, `report.html`, `figures/`, `runs/*/games.jsonl.gz`.", ""]
    _write_text(out / "README.md", "\n".join(lines))


def _write_text(path: Path, text: str) -> None:
    """Write ``text`` unless the file holds it already: re-running a finished experiment
    leaves its files as they are."""
    try:
        if read_text(path, "a results file", MAX_BYTES) == text:
            return
    except (OSError, ValueError):
        pass
    path.write_text(text)


def _session_of(manifest: Mapping[str, Any]) -> dict[str, Any]:
    """One entry of a manifest's ``sessions``: when, which commit and build, games played per run
    (a manifest read back may be damaged: missing fields are None)."""
    session = {key: manifest.get(key) for key in ("started", "finished", "seconds", "git_commit",
                                                  "git_dirty")}
    session["source_hash"] = (manifest.get("build") or {}).get("source_hash")
    session["played"] = {r.get("run"): r.get("played") for r in manifest.get("runs", [])
                         if isinstance(r, dict)}
    return session


def _merge_sessions(meta: dict[str, Any], path: Path) -> None:
    """A resumed experiment keeps what earlier sessions did: ``sessions`` lists every
    invocation that finished (times, commit, build, games played per run); ``started``,
    ``seconds`` and each run's ``played``/``seconds`` add up over them. A session killed
    before its end left no manifest: its games are in the records (with their seconds)."""
    previous: dict[str, Any] = {}
    if path.exists():
        try:
            previous = read_json(path)
        except ValueError:
            previous = {}
    sessions = [s for s in previous.get("sessions", []) if isinstance(s, dict)]
    if previous and not sessions and "started" in previous:      # a manifest of before sessions
        sessions = [_session_of(previous)]
    earlier = {r.get("run"): r for r in previous.get("runs", []) if isinstance(r, dict)}
    meta["sessions"] = sessions + [_session_of(meta)]
    if sessions:
        meta["started"] = sessions[0].get("started", meta["started"])
        meta["seconds"] = round(sum(float(s.get("seconds", 0)) for s in meta["sessions"]), 1)
        for entry in meta["runs"]:
            old = earlier.get(entry["run"], {})
            entry["played"] += int(old.get("played", 0))
            entry["seconds"] = round(entry["seconds"] + float(old.get("seconds", 0.0)), 1)


def run_experiment(experiment: Experiment | str | Path, results: str | Path = "results", *,
                   jobs: int | None = None, backend: str | None = None, progress: bool | None = None,
                   out: str | Path | None = None, log: Callable[[str], object] = print,
                   fresh: bool = False) -> Path:
    """Run every arena run of an experiment into ``results/NAME/`` (or ``out``), then the
    summary, the report and the README; returns the folder. Finished runs are kept, so an
    interrupted experiment resumes; a folder whose games were made by other code is refused
    (naming what changed), or with ``fresh`` moved aside to ``NAME.old-N`` first."""
    if not isinstance(experiment, Experiment):
        experiment = load_experiment(experiment)
    options = dict(experiment.run_options)
    if jobs is not None:
        options["jobs"] = jobs
    if backend is not None:
        options["backend"] = backend
    if out is not None and not str(out).strip():
        raise ExperimentError("--out: expected a folder name, got an empty one")
    folder = Path(out) if out is not None else Path(results) / experiment.name
    if folder.exists() and not folder.is_dir():
        raise ExperimentError(f"{folder} exists and is not a folder")
    if not fresh:
        _build_changed(folder, log)
    with _session(folder, options, progress, fresh=fresh, log=log) as session:
        try:
            stored = folder / "experiment.toml"
            if stored.exists() and read_text(stored, "a stored config", CONFIG_BYTES) != experiment.source:
                raise ExperimentError(f"{folder} holds the results of another version of {experiment.name} "
                                      "(its experiment.toml differs); use another folder or remove it")
            _write_text(stored, experiment.source)
            _run_all(experiment, folder, options, session, log)
        except OSError as error:
            raise os_error(error.filename or folder, error) from None
    return folder


def _run_all(experiment: Experiment, folder: Path, options: dict[str, Any], session: Session,
             log: Callable[[str], object]) -> None:
    started = time.time()
    meta = manifest(experiment, options)
    meta["started"] = time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(started))
    if meta["build"].get("stale"):
        log("warning: the compiled core is older than its sources (a .pyx/.pxi/.h edited and not "
            "rebuilt); these results come from the old build. Rebuild with: pip install -e .")
    done = []
    planned_runs = experiment.runs()
    finished_games = [_finished_games(folder / "runs" / p.name, p.config) for p in planned_runs]
    complete = all(n is not None for n in finished_games)
    if complete:
        # no counter of runs "played" one after the other: there is nothing to play
        log(f"{experiment.name} is already complete: its {plural(len(planned_runs), 'run')} "
            f"hold {plural(sum(n or 0 for n in finished_games), 'game')}, nothing to play")
    for i, (planned, finished) in enumerate(zip(planned_runs, finished_games, strict=True), 1):
        if not complete:
            doing = (planned.config.describe() if finished is None
                     else f"already complete ({plural(finished, 'game')}), nothing to play")
            log(f"[{i}/{len(planned_runs)}] {planned.name}: {doing}")
        done.append(_play(planned, folder / "runs" / planned.name, session, finished))
    meta["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    meta["seconds"] = round(time.time() - started, 1)
    meta["runs"] = [{**d, "config": p.config.to_dict(), "matchup": p.matchup, "grid": p.grid_point,
                     "variant": p.variant} for d, p in zip(done, planned_runs, strict=True)]
    # a session that played no game (a finished experiment run again) adds nothing to the
    # record of what made the results: the manifest stays as it is
    if any(d["played"] for d in done) or not _readable_manifest(folder / "manifest.json"):
        _merge_sessions(meta, folder / "manifest.json")
        (folder / "manifest.json").write_text(json.dumps(meta, indent=2) + "\n")
    summary = _summary(experiment, folder)
    answer: list[str] = []
    findings: list[str] = []
    curves: list[str] = []
    if experiment.report:
        answer, findings, curves = _report(experiment, folder, planned_runs)
    _write_readme(experiment, folder, answer, findings, summary, curves)


def _readable_manifest(path: Path) -> bool:
    try:
        previous = read_json(path)
    except (OSError, ValueError):
        return False
    return isinstance(previous, dict) and isinstance(previous.get("runs"), list)


def _report(experiment: Experiment, folder: Path, planned_runs: list[PlannedRun]
            ) -> tuple[list[str], list[str], list[str]]:
    """The report of all runs, answering the experiment's question; returns (the answer,
    the other findings, the names of the grids whose curves it drew)."""
    from ..analysis.report import write_report_full

    grids = report_grids(experiment)
    description = " ".join(experiment.description.split()) if experiment.description else None
    _, _, report = write_report_full([folder / "runs" / p.name for p in planned_runs], out_dir=folder,
                                     title=experiment.name, question=experiment.question or None,
                                     description=description, grids=grids)
    answer = list(report.answer)
    return answer, list(report.sentences[len(answer):]), [grid.name for grid in grids]


@dataclass
class ReproduceReport:
    """What `reproduce` found: the problems of the stored results themselves (duplicates,
    counts, checksums, derived files), and per run the games compared and those that differ."""

    folder: Path
    reproducible: bool
    runs: list[dict[str, Any]]
    problems: list[str] = field(default_factory=list)

    @property
    def identical(self) -> bool:
        return not self.problems and all(not r["differences"] for r in self.runs)


def _check_code(folder: Path, experiment: Experiment, allow: bool,
                log: Callable[[str], object]) -> None:
    """Refuse (or, allowed, report) runs recorded with other code than this."""
    from ..arena.code import code_changes

    legacy = False
    for planned in experiment.runs():
        changes = code_changes(folder / "runs" / planned.name, planned.config)
        if changes is None:
            legacy = True
        elif changes:
            what = "; ".join(changes)
            if not allow:
                raise ExperimentError(f"{folder}/runs/{planned.name} was played by other code ({what}): "
                                      "its records would not reproduce; run with the code that made "
                                      "them, or pass --allow-code-change to compare anyway")
            log(f"note: {planned.name} was played by other code ({what})")
    if legacy:
        _build_changed(folder, log)


def _first_difference(a: Mapping[str, Any], b: Mapping[str, Any]) -> str:
    for key in sorted(set(a) | set(b)):
        if a.get(key) != b.get(key):
            return key
    return ""


def scheduling(experiment: Experiment, jobs: int | None = None, backend: str | None = None,
               scheduler: str | None = None, batch_size: int | None = None,
               isolation: str | None = None, bot_memory: int | None = None) -> dict[str, Any]:
    """The experiment's [run] options, with those given on the command line instead."""
    options = dict(experiment.run_options)
    for key, value in (("jobs", jobs), ("backend", backend), ("scheduler", scheduler),
                       ("batch_size", batch_size), ("isolation", isolation), ("bot_memory", bot_memory)):
        if value is not None:
            options[key] = value
    if options.get("backend", "loky") != "dask":
        options.pop("scheduler", None)          # the config's cluster is not used by loky
    return options


def reproduce(folder: str | Path, *, jobs: int | None = None, backend: str | None = None,
              scheduler: str | None = None, batch_size: int | None = None,
              progress: bool | None = None, log: Callable[[str], object] = print,
              allow_code_change: bool = False, isolation: str | None = None,
              bot_memory: int | None = None) -> ReproduceReport:
    """Check a result folder, then re-run its experiment from its stored config and compare.

    The stored results must hold together first: every run's records each game once, as many
    as planned, matching the checksums of ``config.json`` and ``manifest.json``, and
    ``runs.csv``, the report's ``summary.csv`` and the README as the records give them. A run
    whose recorded code (code.json) differs from the code here is refused, naming what
    changed, unless ``allow_code_change``. Then the game records of the re-run must be
    identical (timing fields aside). An experiment with time budgets is not reproducible
    game by game: its win rates are compared instead, by Welch's t-test on per-deal win
    shares, Holm-adjusted across each run's specs, a difference flagged at alpha = 0.01
    (``glory_ai.analysis.stats.compare_reruns``). The scheduling options default to the
    config's ``[run]``."""
    from .checks import check_derived, check_experiment

    folder = Path(folder)
    source = folder / "experiment.toml"
    if not source.exists():
        raise ExperimentError(f"{folder}: no experiment.toml (not a results folder of `glory-ai run`)")
    experiment = load_experiment(source)
    options = scheduling(experiment, jobs, backend, scheduler, batch_size, isolation, bot_memory)
    planned_runs = experiment.runs()
    for planned in planned_runs:
        if not (folder / "runs" / planned.name / CONFIG_FILE).exists():
            raise ExperimentError(f"{folder / 'runs' / planned.name}: missing (the experiment was "
                                  "not run to the end)")
    _check_code(folder, experiment, allow_code_change, log)
    from ..arena.code import played_config
    from ..arena.verify import verify_run

    checks = [verify_run(folder / "runs" / p.name, sample=0) for p in planned_runs]
    problems = [p for c in checks for p in c.problems]
    check_experiment(experiment, folder, checks, problems)
    if not problems:
        check_derived(experiment, folder, problems)
    reports = []
    with tempfile.TemporaryDirectory(prefix="glory-reproduce-") as scratch, \
            _session(Path(scratch), options, progress) as session:
        for planned in planned_runs:
            # the records as stored, even when the checks above found them damaged (the first
            # record of a game repeated)
            stored: dict[str, dict[str, Any]] = {}
            for r in read_records(folder / "runs" / planned.name, repeats=True, checksum=False):
                stored.setdefault(r["game_id"], r)
            log(f"re-running {planned.name} ({plural(len(stored), 'game')})")
            # the bots as the stored run played them (its code.json), whatever defaults changed since
            played = played_config(planned.config, folder / "runs" / planned.name)
            again = session.play(played, Path(scratch) / planned.name)
            fresh = {r["game_id"]: r for r in again.records}
            differences = []
            if experiment.reproducible:
                for gid in sorted(set(stored) | set(fresh)):
                    a, b = stored.get(gid), fresh.get(gid)
                    if a is None or b is None:
                        differences.append({"game_id": gid,
                                            "field": "missing here" if b is None else "missing there"})
                    elif strip_timing(a) != strip_timing(b):
                        differences.append({"game_id": gid,
                                            "field": _first_difference(strip_timing(a), strip_timing(b))})
            else:
                from ..analysis.stats import compare_reruns

                check = compare_reruns(list(stored.values()), list(fresh.values()), planned.config)
                differences += [{"game_id": "*", "field": text} for text in check.attrs["texts"]]
            reports.append({"run": planned.name, "games": len(stored), "differences": differences})
    return ReproduceReport(folder, experiment.reproducible, reports, problems)
