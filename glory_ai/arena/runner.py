"""Running a config: games in batches on workers, records streamed into the run folder as
batches finish, a progress bar, early stopping (a rule the caller gives, such as the SPRT of
glory_ai.analysis.stats), resume, Ctrl-C and SIGTERM.

Backends: ``loky`` (processes, the default) and ``threading`` through joblib, ``dask`` (a
``dask.distributed`` scheduler address or Client, an optional extra) through its futures.
Workers receive lists of :class:`~glory_ai.arena.plan.GameTask` (specs and seeds) and
return plain records. Nothing here holds every record: the tasks are generated as batches
are sent, a resume reads the folder in a stream, so memory does not grow with the run.
"""
from __future__ import annotations

import contextlib
import dataclasses
import gc
import itertools
import logging
import math
import os
import signal
import socket
import sys
import threading
import time
import warnings
from collections.abc import Collection, Generator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any, Protocol

from joblib import Parallel, delayed, parallel_config

from ._worker import watch_parent
from .code import note_failure, note_isolation
from .hosted import close_hosts
from .plan import ArenaError, GameTask, RunConfig
from .play import BotFailure, PlayOptions, play_batch_encoded, play_options, record_key
from .storage import RunFolder, count_lines, load_records

__all__ = ["BACKENDS", "STOP_SIGNALS", "RunInterrupted", "RunResult", "StoppingRule", "Terminated",
           "dask_quiet", "default_batch_size", "probe_scheduler", "run", "sigterm_interrupts"]

log = logging.getLogger("glory_ai.arena")

BACKENDS = ("loky", "threading", "dask")

#: seconds to reach a dask scheduler before giving up
DASK_CONNECT_TIMEOUT = 10.0
#: seconds a dask cluster may have no worker before the run stops (the games done are kept)
DASK_NO_WORKERS_TIMEOUT = 60.0
#: seconds between two looks at a dask cluster while waiting for results
DASK_POLL = 1.0


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill PID``, a container stopping) while :func:`sigterm_interrupts` is on:
    handled as Ctrl-C is."""


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM) during a run: the finished games are on disk; rerun to resume."""

    def __init__(self, message: str, finished: int, total: int, out: Path | None,
                 terminated: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.finished = finished
        self.total = total
        self.out = out
        self.terminated = terminated

    def __str__(self) -> str:
        return self.message


#: the signals that stop a run as Ctrl-C does: SIGTERM (``kill PID``, a container stopping)
#: and SIGHUP (the terminal that started it closed)
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


@contextlib.contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """While the block runs, SIGTERM and SIGHUP raise :class:`Terminated` (a
    KeyboardInterrupt) in the main thread, so a run stops as on Ctrl-C: finished games kept,
    workers stopped. Does nothing outside the main thread; leaves alone a signal that
    already has a handler or is ignored (``nohup`` ignores SIGHUP)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def terminated(signum: int, frame: FrameType | None) -> None:
        raise Terminated("terminated" if signum == signal.SIGTERM else
                         f"terminated ({signal.Signals(signum).name})")

    installed = [sig for sig in STOP_SIGNALS if signal.getsignal(sig) is signal.SIG_DFL]
    for sig in installed:
        signal.signal(sig, terminated)
    try:
        yield
    finally:
        for sig in installed:
            signal.signal(sig, signal.SIG_DFL)


class _NoStop:
    """The stopping rule of a run that plays given games only (``run(only=...)``): none."""

    def add(self, records: Sequence[Mapping[str, Any]]) -> object:
        return False

    def to_dict(self) -> dict[str, Any]:
        return {}


class StoppingRule(Protocol):
    """What ``run(..., stop=...)`` takes to end a run early (the SPRT of a head-to-head run:
    ``glory_ai.analysis.stats.DealSPRT``). It is given the finished games, those found in
    the folder first (in chunks, without their actions), then each batch as it comes back,
    in any order; it returns something true once the run can stop."""

    def add(self, records: Sequence[Mapping[str, Any]]) -> object: ...

    def to_dict(self) -> dict[str, Any]: ...


_NO_STOP = _NoStop()


@dataclass
class RunResult:
    """What a run left: the config, the folder, how many games are finished and what this
    call did. ``records`` (every finished record, sorted) is read back from the folder when
    asked for (a run without a folder keeps them in memory)."""

    config: RunConfig
    out: Path | None = None
    games: int = 0                  # games finished (found in the folder and played)
    played: int = 0                 # games played by this call (the rest were resumed)
    resumed: int = 0                # games found in the folder
    seconds: float = 0.0
    stopped: bool = False           # the stopping rule ended the run
    stop: dict[str, Any] | None = None      # the stopping rule's state at the end (to_dict())
    backend: str = "loky"
    n_jobs: int = 1
    batch_size: int = 1
    kept: list[dict[str, Any]] | None = field(default=None, repr=False)

    @property
    def records(self) -> list[dict[str, Any]]:
        """Every finished record of the run, sorted by game (read from the folder)."""
        if self.kept is not None:
            return self.kept
        if self.out is None:
            return []
        return load_records(self.out)

    @property
    def complete(self) -> bool:
        """Every planned game played, or the stopping rule ended the run."""
        return self.stopped or self.games == self.config.total_games


def default_batch_size(games: int, workers: int) -> int:
    """About 16 batches per worker (to balance the load and stream results back), at most
    50 games per batch."""
    return max(1, min(50, math.ceil(games / (max(1, workers) * 16))))


# ---- workers -------------------------------------------------------------------------

def _positive_jobs(n_jobs: int | None, backend: str) -> int:
    if n_jobs is None:
        return -1 if backend == "dask" else 1
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs == 0 or n_jobs < -1:
        raise ArenaError(f"n_jobs must be a positive number of workers or -1 for all cores, "
                         f"got {n_jobs!r}")
    return n_jobs


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _workers(n_jobs: int, games: int, batch_size: int | None) -> int:
    """Workers worth starting on this machine: no more than its cores (processes beyond
    them only add memory and start-up time) nor the batches to play; says so when fewer
    than asked."""
    machine = cores()
    wanted = machine if n_jobs == -1 else n_jobs
    batches = math.ceil(games / batch_size) if batch_size else games
    workers = max(1, min(wanted, machine, batches))
    if n_jobs != -1 and workers < n_jobs:
        log.warning("%d workers asked for: using %d (%d cores, %d games to play%s)", n_jobs,
                    workers, machine, games, f" in batches of {batch_size}" if batch_size else "")
    return workers


def _batches(tasks: Iterable[GameTask], size: int) -> Iterator[list[GameTask]]:
    """The tasks cut into batches of ``size`` games, in plan order (the order they are
    submitted in; the records do not depend on it), made as they are sent."""
    it = iter(tasks)
    while batch := list(itertools.islice(it, size)):
        yield batch


def _todo(config: RunConfig, done: bytearray, options: PlayOptions | None = None) -> Iterator[GameTask]:
    """The planned games not done yet, generated lazily (a deal done is skipped unseeded),
    each with the run's play options."""
    per_deal = config.games_per_deal
    whole = b"\x01" * per_deal
    for deal in range(config.deals):
        marks = done[deal * per_deal:(deal + 1) * per_deal]
        if marks == whole:
            continue
        for task, mark in zip(config.deal_tasks(deal), marks, strict=True):
            if not mark:
                yield task if options is None else dataclasses.replace(task, options=options)


# ---- backends ------------------------------------------------------------------------

Results = Generator[tuple[list[dict], str], None, None]


def _joblib_results(backend: str, workers: int, batches: Iterable[list[GameTask]]) -> Results:
    """(records, JSON lines) of each batch as it finishes, in any order, through joblib."""
    options: dict[str, Any] = ({"initializer": watch_parent, "initargs": (os.getpid(),)}
                               if backend == "loky" and workers > 1 else {})
    with parallel_config(backend=backend, n_jobs=workers, **options):
        par = Parallel(return_as="generator_unordered", batch_size=1, pre_dispatch="2*n_jobs")
        gen = par(delayed(play_batch_encoded)(b) for b in batches)
        try:
            yield from gen
        finally:
            gen.close()


def _dask_client(scheduler: Any) -> tuple[Any, bool]:
    """(client, owned): a Client of the scheduler given (an address, a Client, or None for
    the default client)."""
    try:
        import distributed
    except ImportError:
        raise ArenaError("the dask backend needs dask.distributed, an optional extra: "
                         "pip install 'glory_ai[dask]'") from None
    if isinstance(scheduler, distributed.Client):
        return scheduler, False
    if isinstance(scheduler, str):
        if not scheduler.strip():
            raise ArenaError("the dask scheduler address is empty (give tcp://HOST:8786)")
        probe_scheduler(scheduler)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                client = distributed.Client(scheduler, set_as_default=False,
                                            timeout=DASK_CONNECT_TIMEOUT)
        except (OSError, TimeoutError, ValueError, TypeError) as exc:
            detail = " ".join(str(exc).split()) or type(exc).__name__
            raise ArenaError(f"cannot reach the dask scheduler at {scheduler} within "
                             f"{DASK_CONNECT_TIMEOUT:g} s ({detail[:200]})") from None
        return client, True
    if scheduler is None:
        try:
            return distributed.default_client(), False
        except ValueError:
            raise ArenaError("the dask backend needs a scheduler: give its address "
                             "(--scheduler tcp://HOST:8786) or start a distributed.Client "
                             "first") from None
    raise ArenaError(f"scheduler must be an address or a distributed.Client, got {scheduler!r}")


def probe_scheduler(address: str) -> None:
    """Refuse an address that is not one, or a TCP scheduler that does not answer, before
    making a Client: a Client that fails to connect lingers at exit (20 s, and a traceback
    from its ``__del__``). ArenaError in one line (``glory-ai report --dask`` uses it too)."""
    from distributed.comm.addressing import get_address_host_port, parse_address
    from distributed.comm.registry import backends

    try:
        scheme, _ = parse_address(address)
        if scheme not in backends:
            raise ValueError(f"unknown scheme {scheme!r} (known: {', '.join(sorted(backends))})")
        if scheme not in ("tcp", "tls"):
            return
        host, port = get_address_host_port(address)
    except (ValueError, TypeError) as exc:
        raise ArenaError(f"{address!r} is not a dask scheduler address (give tcp://HOST:8786): "
                         f"{' '.join(str(exc).split())[:160]}") from None
    try:
        socket.create_connection((host, port), timeout=DASK_CONNECT_TIMEOUT).close()
    except OSError as exc:
        detail = exc.strerror or str(exc) or type(exc).__name__
        raise ArenaError(f"cannot reach the dask scheduler at {address} ({detail})") from None


def _dask_threads(client: Any) -> int:
    try:
        return sum(client.nthreads().values())
    except Exception as exc:                # the scheduler gone: OSError, CommClosedError, ...
        raise _lost_scheduler(client, exc) from None


def _lost_scheduler(client: Any, exc: BaseException) -> ArenaError:
    detail = " ".join(str(exc).split()) or type(exc).__name__
    address = getattr(getattr(client, "scheduler", None), "address", "")
    return ArenaError(f"lost the dask scheduler {address} ({detail[:160]})")


def _dask_results(client: Any, batches: Iterable[list[GameTask]], window: int,
                  no_workers: float) -> Results:
    """(records, JSON lines) of each batch as it finishes, on a dask cluster: at most
    ``window`` batches submitted at a time; ArenaError when the scheduler is lost, a task
    fails on every worker it is tried on, or the cluster has had no worker for
    ``no_workers`` seconds."""
    import distributed

    it = iter(batches)
    pending = distributed.as_completed(loop=client.loop)
    submitted: dict[Any, tuple[list[GameTask], int]] = {}       # future -> (batch, tries)

    def send(batch: list[GameTask], tries: int) -> None:
        try:
            future = client.submit(play_batch_encoded, batch, pure=False)
        except Exception as exc:
            raise _lost_scheduler(client, exc) from None
        submitted[future] = (batch, tries)
        pending.add(future)

    def submit(count: int) -> None:
        for batch in itertools.islice(it, count):
            send(batch, 1)

    submit(window)
    idle_since: float | None = None
    looked = time.monotonic()

    def look() -> None:
        """Raise once the cluster has had no worker for ``no_workers`` seconds."""
        nonlocal idle_since, looked
        looked = time.monotonic()
        if _dask_threads(client):
            idle_since = None
        elif idle_since is None:
            idle_since = time.monotonic()
        elif time.monotonic() - idle_since >= no_workers:
            raise ArenaError(f"the dask cluster at {client.scheduler.address} has had no "
                             f"worker for {no_workers:g} s")

    try:
        while submitted:
            done = pending.next_batch(block=False)
            if not done:
                time.sleep(0.02)
                if time.monotonic() - looked >= DASK_POLL:
                    look()
                continue
            for future in done:
                batch, tries = submitted.pop(future)
                if future.status in ("lost", "cancelled") and tries < 3:
                    send(batch, tries + 1)           # its worker died with the result: again
                    continue
                if future.status == "error":
                    exc = future.exception()
                    if type(exc).__name__ == "KilledWorker":
                        raise ArenaError(f"dask workers died playing a batch of games "
                                         f"({' '.join(str(exc).split())[:160]})")
                    raise exc
                if future.status != "finished":
                    raise _lost_scheduler(client, RuntimeError(f"a task was {future.status}"))
                try:
                    result = future.result(timeout=DASK_POLL)
                except TimeoutError:
                    # finished, but its worker died before the result came back: the scheduler
                    # computes it again once a worker is there
                    submitted[future] = (batch, tries)
                    pending.add(future)
                    look()
                    continue
                except Exception as exc:
                    raise _lost_scheduler(client, exc) from None
                yield result
                submit(1)
    finally:
        if submitted:
            with contextlib.suppress(Exception):
                client.cancel(list(submitted))


@contextlib.contextmanager
def _results(backend: str, n_jobs: int, scheduler: Any, todo: int, batch_size: int | None,
             tasks: Iterable[GameTask]) -> Iterator[tuple[Results, int, int]]:
    """(results, workers, batch size) on the backend asked for."""
    if backend in ("loky", "threading"):
        if scheduler is not None:
            raise ArenaError(f"a scheduler address is for the dask backend, not {backend}")
        workers = _workers(n_jobs, todo, batch_size)
        size = batch_size or default_batch_size(todo, workers)
        results = _joblib_results(backend, workers, _batches(tasks, size))
        try:
            yield results, workers, size
        finally:
            results.close()
        return
    with dask_quiet():
        client, owned = _dask_client(scheduler)
        try:
            workers = _dask_threads(client)
            if n_jobs != -1 and n_jobs < workers:
                workers = n_jobs
            size = batch_size or default_batch_size(todo, max(1, workers))
            results = _dask_results(client, _batches(tasks, size), 2 * max(1, workers),
                                    DASK_NO_WORKERS_TIMEOUT)
            try:
                yield results, max(1, workers), size
            finally:
                results.close()
        finally:
            if owned:
                with contextlib.suppress(Exception):
                    client.close(timeout=5)


@contextlib.contextmanager
def dask_quiet() -> Iterator[None]:
    """distributed's own logging silenced while a run (or a report) uses its cluster: a lost
    scheduler or worker is reported once, by the run's ArenaError, where distributed would
    log each reconnection attempt and gather retry with its tracebacks (and asyncio the tasks
    these leave behind)."""
    with contextlib.suppress(ImportError):
        import distributed  # noqa: F401  (its loggers exist once it is imported)
    names = ["asyncio", "tornado", *(name for name in logging.root.manager.loggerDict
                                     if name.split(".")[0] == "distributed")]
    saved = [(logger, logger.level) for logger in map(logging.getLogger, names)]
    for logger, _ in saved:
        logger.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        gc.collect()            # the tasks left behind go now, while their logging is off
        for logger, level in saved:
            logger.setLevel(level)


# ---- progress ------------------------------------------------------------------------

class _Progress:
    """tqdm bar on stderr: games done / total, games/s, the leader and its win rate."""

    def __init__(self, enabled: bool, total: int, description: str) -> None:
        self.bar = None
        self.wins: dict[str, float] = {}
        self.games: dict[str, int] = {}
        self.enabled = enabled
        self.total = total
        self.description = description

    def start(self, done: int) -> None:
        if self.enabled:
            from tqdm import tqdm

            self.bar = tqdm(total=self.total, initial=done, unit="game", file=sys.stderr,
                            desc=self.description, dynamic_ncols=True, smoothing=0.1, leave=True)

    def add(self, records: Sequence[Mapping[str, Any]], shown: bool = True) -> None:
        if not self.enabled:
            return
        for r in records:
            winners = r["winners"]
            for s, spec in enumerate(r["seats"]):
                self.games[spec] = self.games.get(spec, 0) + 1
                if s in winners:
                    self.wins[spec] = self.wins.get(spec, 0.0) + 1.0 / len(winners)
        if shown and self.bar is not None:
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

def _check_options(config: RunConfig, backend: str, n_jobs: int | None, batch_size: int | None,
                   stop: StoppingRule | None) -> int:
    if not isinstance(config, RunConfig):
        raise TypeError(f"run() takes a RunConfig, got {type(config).__name__}")
    if backend == "ray":
        raise ArenaError("the ray backend is no longer supported: use loky (one machine) or "
                         "dask (a cluster: --backend dask --scheduler tcp://HOST:8786)")
    if backend not in BACKENDS:
        raise ArenaError(f"unknown backend {backend!r}; known: {', '.join(BACKENDS)}")
    jobs = _positive_jobs(n_jobs, backend)
    if batch_size is not None and (isinstance(batch_size, bool) or not isinstance(batch_size, int)
                                   or batch_size < 1):
        raise ArenaError(f"batch_size must be a positive integer, got {batch_size!r}")
    if config.sprt is not None and stop is None:
        raise ArenaError("this run stops by an SPRT (config.sprt): give run() the test, "
                         "stop=glory_ai.analysis.stats.DealSPRT.for_config(config)")
    return jobs


def run(config: RunConfig, out: str | os.PathLike | None = None, *, n_jobs: int | None = None,
        batch_size: int | None = None, backend: str = "loky", scheduler: Any = None,
        progress: bool | None = None, stop: StoppingRule | None = None,
        move_time_limit: float | None = None, forfeit: bool = False,
        only: Collection[int] | None = None, isolation: str = "users",
        bot_memory: int | None = None) -> RunResult:
    """Play the games of ``config`` and return a :class:`RunResult`.

    ``out``: a run folder (``config.json`` and ``games.jsonl``), written by this process
    alone (its lock, :mod:`glory_ai.arena.lock`); a folder of the same config is resumed
    (only the missing games are played), one of another config refused (ArenaError).
    Without ``out`` nothing is written and the records are kept in memory. ``n_jobs``:
    workers (-1: every core; default 1, or every thread of a dask cluster; never more than
    the cores or the batches). ``batch_size``: games per task (default: about 16 tasks per
    worker, at most 50 games). ``backend``: loky, threading or dask; ``scheduler``: a dask
    scheduler address or ``distributed.Client``. ``progress``: the tqdm bar (default: when
    stderr is a terminal). ``stop``: a :class:`StoppingRule` that ends the run early; a
    config with an SPRT needs one (``glory_ai.analysis.stats.DealSPRT.for_config(config)``,
    which decides over whole deals in deal order, whatever the scheduling).
    ``move_time_limit``: seconds a bot may take over one decision; ``forfeit``: a failing
    bot concedes its game instead of stopping the run (docs/extending.md). ``isolation``:
    which seats play in a bot host process of their own (``users``, the default: bots given
    as a file, a module or an entry point; ``all``; ``none``), ``bot_memory``: the
    megabytes a host may use (glory_ai.arena.hosted). ``only``: play
    only these games of the plan (indices in (deal, pairing, rotation) order) that the
    folder lacks, no stopping rule needed (a repair replaying the games it set aside).

    The records do not depend on n_jobs, batch size, backend or completion order. Memory
    does not grow with the number of games when ``out`` is given. Ctrl-C (and SIGTERM, in
    the main thread) raises :class:`RunInterrupted` (a KeyboardInterrupt) once the finished
    games are safely on disk; a write that fails (a full disk) or a worker that fails is an
    ArenaError (a failing bot a :class:`~glory_ai.arena.play.BotFailure`), the finished
    games kept.
    """
    jobs = _check_options(config, backend, n_jobs, batch_size, stop if only is None else _NO_STOP)
    options = play_options(config, move_time_limit=move_time_limit, forfeit=forfeit,
                           isolation=isolation, bot_memory=bot_memory)
    try:
        with sigterm_interrupts():
            return _run(config, out, jobs, batch_size, backend, scheduler, progress, stop, options, only)
    finally:
        close_hosts()          # the hosts of games played in this process (one job)


def _run(config: RunConfig, out: str | os.PathLike | None, n_jobs: int, batch_size: int | None,
         backend: str, scheduler: Any, progress: bool | None, stop: StoppingRule | None,
         options: PlayOptions | None, only: Collection[int] | None = None) -> RunResult:
    started = time.perf_counter()
    bar = _Progress(_progress_enabled(progress), config.total_games,
                    config.specs[0] if len(config.specs) == 1 else "games")
    stopped = False

    def listen(records: Sequence[Mapping[str, Any]]) -> None:
        nonlocal stopped
        bar.add(records, shown=False)
        if stop is not None:
            stopped = bool(stop.add(records))

    folder = RunFolder(out, config) if out is not None else None
    kept: list[dict[str, Any]] | None = [] if folder is None else None
    if folder is not None:
        scan = folder.open(listen if bar.enabled or stop is not None else None)
        done, resumed = scan.done, scan.games
        config = folder.config          # a resume's bots as they were played (RunConfig.played)
    else:
        done, resumed = bytearray(config.total_games), 0
    if stop is not None and not resumed:
        stopped = bool(stop.add([]))
    todo = 0 if stopped else config.total_games - resumed
    if only is not None:
        # every game outside ``only`` counts as done; those of it the folder lacks are played
        wanted = bytearray(b"\x01") * config.total_games
        for index in only:
            wanted[index] = done[index]
        done, todo = wanted, wanted.count(0)
    if folder is not None and todo:
        note_isolation(folder.path, config, options.isolation if options else "users",
                       options.bots if options else {})
    bar.start(resumed)
    played = 0
    workers, size = 1, batch_size or 1
    try:
        if todo:
            # stopping early (SPRT) cancels the tasks in flight: expected, not a problem (joblib
            # warns as the results are closed, so the filter is entered first, left last)
            tasks = _todo(config, done, options)
            with warnings.catch_warnings(), \
                    _results(backend, n_jobs, scheduler, todo, batch_size, tasks) as (results, workers, size):
                warnings.filterwarnings("ignore", message=r".*adjusting the input task iterator")
                for records, text in results:
                    if folder is not None:
                        folder.append(records, text)
                    else:
                        assert kept is not None
                        kept.extend(records)
                    played += len(records)
                    bar.add(records)
                    if stop is not None and stop.add(records):
                        stopped = True
                        break
    except KeyboardInterrupt as exc:
        finished = resumed + played
        bar.close()
        if folder is not None:
            folder.close()
            finished = count_lines(folder.games_path)
        where = f" in {folder.path}" if folder is not None else ""
        hint = ("; run the same command (or run() with the same config and folder) again to "
                "resume") if folder is not None else ""
        raise RunInterrupted(f"interrupted: {finished} of {config.total_games} games finished"
                             f"{where}{hint}", finished, config.total_games,
                             folder.path if folder is not None else None,
                             terminated=isinstance(exc, Terminated)) from None
    except BotFailure as failure:
        # the folder is kept, with the failure noted (code.json): a fixed bot resumes it
        bar.close()
        if folder is not None:
            note_failure(folder.path, failure)
            with contextlib.suppress(ArenaError):
                folder.close()
        raise
    except Exception as exc:
        bar.close()
        if folder is not None:
            with contextlib.suppress(ArenaError):
                folder.close(cleanup=not played and not resumed)
        raise _failed(exc, resumed + played, folder) from (None if isinstance(exc, ArenaError) else exc)
    finally:
        bar.close()
    if folder is not None:
        folder.close()
    return RunResult(
        config=config, out=folder.path if folder is not None else None, games=resumed + played,
        played=played, resumed=resumed, seconds=time.perf_counter() - started, stopped=stopped,
        stop=stop.to_dict() if stop is not None else None, backend=backend, n_jobs=workers,
        batch_size=size, kept=sorted(kept, key=record_key) if kept is not None else None)


def _failed(exc: Exception, finished: int, folder: RunFolder | None) -> ArenaError:
    """A run that cannot go on, as one line: what failed, and the games kept."""
    if isinstance(exc, ArenaError):
        message = str(exc)
    else:
        detail = " ".join(str(exc).split())
        message = f"a game failed in a worker: {type(exc).__name__}" + (f": {detail}" if detail else "")
    if folder is not None and finished:
        message += (f"; the {finished} finished games are kept in {folder.path}: run the same "
                    "command again to resume")
    return ArenaError(message)
