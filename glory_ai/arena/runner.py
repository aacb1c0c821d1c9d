"""Running a config: games in batches on joblib workers, records streamed into the run
folder as batches finish, a progress bar, early stopping (a rule the caller gives, such as
the SPRT of glory_ai.analysis.stats), resume and Ctrl-C.

Backends: ``loky`` (processes, the default), ``threading``, ``dask`` (a ``dask.distributed``
scheduler address or Client) and ``ray`` (optional extras). Workers receive lists of
:class:`~glory_ai.arena.plan.GameTask` (specs and seeds) and return plain records.
"""
from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import sys
import time
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from joblib import Parallel, delayed, effective_n_jobs, parallel_config

from .code import note_failure
from .plan import ArenaError, GameTask, RunConfig
from .play import BotFailure, play_batch_encoded, play_options, record_key
from .storage import RunFolder, count_lines

__all__ = ["BACKENDS", "RunInterrupted", "RunResult", "StoppingRule", "run", "default_batch_size"]

BACKENDS = ("loky", "threading", "dask", "ray")


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C during a run: the finished games are on disk; rerun to resume."""

    def __init__(self, message: str, finished: int, total: int, out: Path | None) -> None:
        super().__init__(message)
        self.message = message
        self.finished = finished
        self.total = total
        self.out = out

    def __str__(self) -> str:
        return self.message


class StoppingRule(Protocol):
    """What ``run(..., stop=...)`` takes to end a run early (the SPRT of a head-to-head run:
    ``glory_ai.analysis.stats.DealSPRT``). It is given the finished games, those found in
    the folder first, then each batch as it comes back, in any order; it returns something
    true once the run can stop."""

    def add(self, records: Sequence[Mapping[str, Any]]) -> object: ...

    def to_dict(self) -> dict[str, Any]: ...


@dataclass
class RunResult:
    """What a run left: the config, every finished record of it (sorted), the folder."""

    config: RunConfig
    records: list[dict[str, Any]]
    out: Path | None = None
    played: int = 0                 # games played by this call (the rest were resumed)
    resumed: int = 0                # games found in the folder
    seconds: float = 0.0
    stopped: bool = False           # the stopping rule ended the run
    stop: dict[str, Any] | None = None      # the stopping rule's state at the end (to_dict())
    backend: str = "loky"
    n_jobs: int = 1
    batch_size: int = 1

    @property
    def complete(self) -> bool:
        """Every planned game played, or the stopping rule ended the run."""
        return self.stopped or len(self.records) == self.config.total_games


def default_batch_size(games: int, workers: int) -> int:
    """About 16 batches per worker (to balance the load and stream results back), at most
    50 games per batch."""
    return max(1, min(50, math.ceil(games / (max(1, workers) * 16))))


# ---- backends ------------------------------------------------------------------------

def _positive_jobs(n_jobs: int | None, backend: str) -> int:
    if n_jobs is None:
        return -1 if backend in ("dask", "ray") else 1
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs == 0:
        raise ArenaError(f"n_jobs must be a positive number of workers or -1 for all cores, "
                         f"got {n_jobs!r}")
    return n_jobs


@contextlib.contextmanager
def _backend(backend: str, n_jobs: int, scheduler: Any) -> Iterator[None]:
    """Activate a joblib backend for the duration of the run."""
    if backend in ("loky", "threading"):
        if scheduler is not None:
            raise ArenaError(f"a scheduler address is for the dask or ray backends, not {backend}")
        with parallel_config(backend=backend, n_jobs=n_jobs):
            yield
    elif backend == "dask":
        try:
            import distributed
        except ImportError:
            raise ArenaError("the dask backend needs dask.distributed, an optional extra: "
                             "pip install 'glory_ai[dask]'") from None
        own = None
        if isinstance(scheduler, distributed.Client):
            client = scheduler
        elif isinstance(scheduler, str):
            try:
                client = own = distributed.Client(scheduler, set_as_default=False, timeout=30)
            except (OSError, TimeoutError, ValueError) as exc:
                raise ArenaError(f"cannot reach the dask scheduler at {scheduler}: {exc}") from None
        elif scheduler is None:
            try:
                client = distributed.default_client()
            except ValueError:
                raise ArenaError("the dask backend needs a scheduler: give its address "
                                 "(--scheduler tcp://HOST:8786) or start a distributed.Client "
                                 "first") from None
        else:
            raise ArenaError(f"scheduler must be an address or a distributed.Client, got {scheduler!r}")
        try:
            with parallel_config(backend="dask", n_jobs=n_jobs, client=client):
                yield
        finally:
            if own is not None:
                own.close()
    elif backend == "ray":
        try:
            import ray
            from ray.util.joblib import register_ray
        except ImportError:
            raise ArenaError("the ray backend needs Ray, an optional extra: "
                             "pip install 'glory_ai[ray]'") from None
        if not ray.is_initialized():
            ray.init(address=scheduler, ignore_reinit_error=True, log_to_driver=False)
        register_ray()
        with parallel_config(backend="ray", n_jobs=n_jobs):
            yield
    else:
        raise ArenaError(f"unknown backend {backend!r}; known: {', '.join(BACKENDS)}")


def _batches(tasks: Sequence[GameTask], size: int) -> list[list[GameTask]]:
    """The tasks cut into batches of ``size`` games, in plan order (the order they are
    submitted in; the records do not depend on it)."""
    return [list(tasks[i:i + size]) for i in range(0, len(tasks), size)]


def _results(batches: Sequence[Sequence[GameTask]],
             stream: bool = True) -> Iterator[tuple[list[dict], str]]:
    """(records, JSON lines) of each batch as it finishes (in any order), on the active backend.

    Backends that cannot stream (joblib's Ray backend returns lists) run in chunks of a few
    batches per worker with ``return_as="list"``.
    """
    par = None
    if stream:
        try:
            par = Parallel(return_as="generator_unordered", batch_size=1,
                           pre_dispatch="2*n_jobs")
        except ValueError as exc:
            if "return_as" not in str(exc):
                raise
    if par is not None:
        gen = par(delayed(play_batch_encoded)(list(b)) for b in batches)
        try:
            yield from gen
        finally:
            gen.close()
        return
    chunk = max(1, 2 * effective_n_jobs())
    for start in range(0, len(batches), chunk):
        with Parallel(return_as="list", batch_size=1) as par_list:
            yield from par_list(delayed(play_batch_encoded)(list(b)) for b in batches[start:start + chunk])


# ---- progress ------------------------------------------------------------------------

class _Progress:
    """tqdm bar on stderr: games done / total, games/s, the leader and its win rate."""

    def __init__(self, enabled: bool, total: int, done: int, description: str) -> None:
        self.bar = None
        self.wins: dict[str, float] = {}
        self.games: dict[str, int] = {}
        if enabled:
            from tqdm import tqdm

            self.bar = tqdm(total=total, initial=done, unit="game", file=sys.stderr,
                            desc=description, dynamic_ncols=True, smoothing=0.1, leave=True)

    def add(self, records: Sequence[dict], shown: bool = True) -> None:
        if self.bar is None:
            return
        for r in records:
            winners = r["winners"]
            for s, spec in enumerate(r["seats"]):
                self.games[spec] = self.games.get(spec, 0) + 1
                if s in winners:
                    self.wins[spec] = self.wins.get(spec, 0.0) + 1.0 / len(winners)
        if shown:
            if self.games:
                leader = max(self.games, key=lambda s: (self.wins.get(s, 0.0) / self.games[s], s))
                rate = self.wins.get(leader, 0.0) / self.games[leader]
                self.bar.set_postfix_str(f"leader {leader} {rate:.1%}", refresh=False)
            self.bar.update(len(records))

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _progress_enabled(progress: bool | None) -> bool:
    if progress is None:
        try:
            return sys.stderr.isatty()
        except (AttributeError, ValueError):
            return False
    return bool(progress)


# ---- run -----------------------------------------------------------------------------

def run(config: RunConfig, out: str | os.PathLike | None = None, *, n_jobs: int | None = None,
        batch_size: int | None = None, backend: str = "loky", scheduler: Any = None,
        progress: bool | None = None, stop: StoppingRule | None = None,
        move_time_limit: float | None = None, forfeit: bool = False) -> RunResult:
    """Play the games of ``config`` and return a :class:`RunResult`.

    ``out``: a run folder (``config.json`` and ``games.jsonl``); a folder of the same config
    is resumed (only the missing games are played), one of another config refused
    (ArenaError). Without ``out`` nothing is written. ``n_jobs``: workers (-1: every core;
    default 1, or every worker of a dask/ray cluster). ``batch_size``: games per task
    (default: about 16 tasks per worker, at most 50 games). ``backend``: loky, threading,
    dask or ray; ``scheduler``: a dask scheduler address or ``distributed.Client`` (or the
    ray address). ``progress``: the tqdm bar (default: when stderr is a terminal).
    ``stop``: a :class:`StoppingRule` that ends the run early; a config with an SPRT needs
    one (``glory_ai.analysis.stats.DealSPRT.for_config(config)``, which decides over whole
    deals in deal order, whatever the scheduling). ``move_time_limit``: seconds a bot may
    take over one decision; ``forfeit``: a failing bot concedes its game instead of stopping
    the run (docs/extending.md).

    The records do not depend on n_jobs, batch size, backend or completion order.
    Ctrl-C raises :class:`RunInterrupted` (a KeyboardInterrupt) once the finished games are
    safely on disk.
    """
    if not isinstance(config, RunConfig):
        raise TypeError(f"run() takes a RunConfig, got {type(config).__name__}")
    if backend not in BACKENDS:
        raise ArenaError(f"unknown backend {backend!r}; known: {', '.join(BACKENDS)}")
    n_jobs = _positive_jobs(n_jobs, backend)
    if batch_size is not None and (isinstance(batch_size, bool) or not isinstance(batch_size, int)
                                   or batch_size < 1):
        raise ArenaError(f"batch_size must be a positive integer, got {batch_size!r}")
    if config.sprt is not None and stop is None:
        raise ArenaError("this run stops by an SPRT (config.sprt): give run() the test, "
                         "stop=glory_ai.analysis.stats.DealSPRT.for_config(config)")

    started = time.perf_counter()
    options = play_options(config, move_time_limit=move_time_limit, forfeit=forfeit)
    folder = RunFolder(out, config) if out is not None else None
    done: dict[str, dict[str, Any]] = {}
    if folder is not None:
        for rec in folder.open():
            done[rec["game_id"]] = rec
    resumed = len(done)

    stopped = bool(stop.add(sorted(done.values(), key=record_key))) if stop is not None else False
    todo = [] if stopped else [t for t in config.tasks() if t.game_id not in done]
    if options is not None:
        todo = [dataclasses.replace(t, options=options) for t in todo]
    bar = _Progress(_progress_enabled(progress), config.total_games, len(done),
                    config.specs[0] if len(config.specs) == 1 else "games")
    bar.add(list(done.values()), shown=False)
    played = 0
    workers = n_jobs
    size = batch_size or 1
    try:
        if todo:
            with _backend(backend, n_jobs, scheduler), warnings.catch_warnings():
                # stopping early (SPRT) cancels the tasks in flight: expected, not a problem
                warnings.filterwarnings("ignore", message=r".*adjusting the input task iterator")
                workers = effective_n_jobs()
                size = batch_size or default_batch_size(len(todo), workers)
                for records, text in _results(_batches(todo, size)):
                    if folder is not None:
                        folder.append(records, text)
                    for rec in records:
                        done[rec["game_id"]] = rec
                    played += len(records)
                    bar.add(records)
                    if stop is not None and stop.add(records):
                        stopped = True
                        break
    except BotFailure as failure:
        if folder is not None:
            note_failure(folder.path, failure)
        raise
    except KeyboardInterrupt:
        finished = len(done)
        if folder is not None:
            folder.close()
            finished = count_lines(folder.games_path)
        bar.close()
        where = f" in {folder.path}" if folder is not None else ""
        hint = ("; run the same command (or run() with the same config and folder) again to "
                "resume") if folder is not None else ""
        raise RunInterrupted(f"interrupted: {finished} of {config.total_games} games finished"
                             f"{where}{hint}", finished, config.total_games,
                             folder.path if folder is not None else None) from None
    finally:
        if folder is not None:
            folder.close()
        bar.close()

    return RunResult(
        config=config, records=sorted(done.values(), key=record_key),
        out=folder.path if folder is not None else None, played=played, resumed=resumed,
        seconds=time.perf_counter() - started, stopped=stopped,
        stop=stop.to_dict() if stop is not None else None, backend=backend,
        n_jobs=workers, batch_size=size)
