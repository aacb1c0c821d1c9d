"""A run's life in one place: the folder a command writes into, held from its first write to
its last, and the arena runs played into it (docs/arena.md, "Sessions").

Every command that plays runs into a folder (``glory-ai compare`` and ``tournament``,
``run`` and ``reproduce``, ``selfplay`` and ``learn``) does so inside a :class:`Session`::

    from glory_ai.analysis.stats import DealSPRT

    with Session("results/duel", fresh=True, sprt=DealSPRT.for_config, n_jobs=2) as session:
        result = session.play(config)                           # a run in the folder itself
        other = session.play(config2, session.out / "runs" / "b")   # or in a folder under it

Entering a session, in this order:

1. a path that exists and is not a folder is refused (ArenaError);
2. with ``fresh``, the folder is moved aside to ``OUT.old-N`` (:func:`~.code.set_aside`,
   refused while another process writes into it); with ``renew=config``, so is a folder
   whose games of that config were played by other code (a command's default folder, where
   a user who edited a bot expects the new bot to play). ``on_aside(moved, fresh)`` is told;
3. the folder's lock is taken (:class:`~.lock.FolderLock`), the folder and its parents made
   when missing: one process writes into a folder at a time;
4. SIGTERM stops the session as Ctrl-C does (:func:`~.runner.sigterm_interrupts`: a
   :class:`~.runner.Terminated`, or a :class:`~.runner.RunInterrupted` during a run, both
   KeyboardInterrupts), unless the caller handles SIGTERM already.

:meth:`Session.play` plays one run (:func:`~.runner.run`) with the session's scheduling
options. Its folder is checked first: a folder holding a run of another config, or games
played by other code than this (:func:`~.code.code_problem`), is refused, naming what
differs; :meth:`Session.check` makes the same check beforehand and says what a resume will
find. The run stops by the rule given to :meth:`~Session.play`, else, for a config with an
SPRT, by ``sprt(config)``: the arena does not import the statistics, so a caller that plays
such configs gives ``glory_ai.analysis.stats.DealSPRT.for_config``.

Leaving a session gives the lock up and puts SIGTERM back; after an error or an interrupt, a
folder the session made is removed again when nothing but its lock was written into it.
"""
from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

from .code import code_problem, set_aside
from .files import GAMES_FILE
from .lock import FolderLock
from .plan import ArenaError, RunConfig
from .runner import RunResult, StoppingRule, run, sigterm_interrupts
from .storage import check_config, count_lines

__all__ = ["Session"]


class Session:
    """The folder ``out`` held for a command's runs (see the module's doc): ``with
    Session(out, ...) as session:`` then :meth:`play` for each run.

    ``fresh``: start over, the folder moved aside first. ``renew``: the config of the run
    the folder holds, when the session may start it over: a folder whose games of it were
    played by other code is then moved aside (where :meth:`play` would refuse it).
    ``on_aside(moved, fresh)``: told where a folder was moved, and whether ``fresh`` moved
    it (else ``renew``). ``sprt``: makes the stopping rule of a config with an SPRT. The
    other keywords are :func:`~glory_ai.arena.run`'s, for every run of the session (none
    changes a game record): ``n_jobs``, ``batch_size``, ``backend``, ``scheduler``,
    ``progress``, ``move_time_limit``, ``forfeit``, ``isolation``, ``bot_memory``.

    >>> import tempfile
    >>> from glory_ai.arena import RunConfig
    >>> out = Path(tempfile.mkdtemp()) / "duel"
    >>> config = RunConfig(specs=("greedy", "random"), deals=2, seed=1)
    >>> with Session(out, progress=False) as session:
    ...     print(session.check(config), session.play(config).played, session.check(config))
    None 4 4
    >>> with Session(out, fresh=True, on_aside=lambda moved, fresh: print(moved.name)) as session:
    ...     session.play(config).resumed
    duel.old-1
    0
    """

    def __init__(self, out: str | os.PathLike[str], *, fresh: bool = False,
                 renew: RunConfig | None = None,
                 on_aside: Callable[[Path, bool], object] | None = None,
                 sprt: Callable[[RunConfig], StoppingRule] | None = None,
                 n_jobs: int | None = None, batch_size: int | None = None, backend: str = "loky",
                 scheduler: Any = None, progress: bool | None = None,
                 move_time_limit: float | None = None, forfeit: bool = False,
                 isolation: str = "users", bot_memory: int | None = None) -> None:
        self.out = Path(out)
        self.fresh = fresh
        self.renew = renew
        self.on_aside = on_aside
        self.sprt = sprt
        self.options: dict[str, Any] = {
            "n_jobs": n_jobs, "batch_size": batch_size, "backend": backend, "scheduler": scheduler,
            "progress": progress, "move_time_limit": move_time_limit, "forfeit": forfeit,
            "isolation": isolation, "bot_memory": bot_memory}
        #: where entering moved the folder that was there (None: nothing moved)
        self.moved: Path | None = None
        self._lock: FolderLock | None = None
        self._signals: contextlib.ExitStack | None = None

    @property
    def held(self) -> bool:
        """Is the session entered (its folder locked)?"""
        return self._lock is not None

    def __enter__(self) -> Session:
        if self._lock is not None:
            raise RuntimeError(f"the session of {self.out} is entered already")
        signals = contextlib.ExitStack()
        # first: a SIGTERM while the folder is moved aside or locked is an interrupt too
        signals.enter_context(sigterm_interrupts())
        try:
            if self.out.exists() and not self.out.is_dir():
                raise ArenaError(f"{self.out} exists and is not a folder")
            self._set_aside()
            # after moving aside, which takes the lock of the folder it moves
            self._lock = FolderLock(self.out, create=True).acquire()
        except BaseException:
            signals.close()
            raise
        self._signals = signals
        return self

    def _set_aside(self) -> None:
        if not self.out.exists():
            return
        if not self.fresh and (self.renew is None or code_problem(self.out, self.renew) is None):
            return
        self.moved = set_aside(self.out)
        if self.moved is not None and self.on_aside is not None:
            self.on_aside(self.moved, self.fresh)

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        lock, self._lock = self._lock, None
        signals, self._signals = self._signals, None
        try:
            if lock is not None:
                # a run that could not start leaves no folder behind
                lock.release(cleanup=error is not None)
        finally:
            if signals is not None:
                signals.close()

    def _folder(self, folder: str | os.PathLike[str] | None) -> Path:
        if self._lock is None:
            raise RuntimeError(f"the session of {self.out} plays only inside its `with` block")
        return self.out if folder is None else Path(folder)

    def check(self, config: RunConfig, folder: str | os.PathLike[str] | None = None) -> int | None:
        """The check of a run folder before playing ``config`` into it (``folder``, by
        default the session's): ArenaError when it holds a run of another config or games
        played by other code, naming what differs; else the games a resume will find there
        (the lines of its records file), or None when the run starts afresh."""
        path = self._folder(folder)
        if check_config(path, config, warn=False) and (path / GAMES_FILE).exists():
            return count_lines(path / GAMES_FILE)
        return None

    def play(self, config: RunConfig, folder: str | os.PathLike[str] | None = None, *,
             stop: StoppingRule | None = None) -> RunResult:
        """Play (or resume) the run of ``config`` in ``folder`` (by default the session's own;
        usually a folder under it) with the session's options, stopped by ``stop``, else by
        ``sprt(config)`` when the config has an SPRT; returns :func:`~glory_ai.arena.run`'s
        result and raises what it raises (ArenaError, BotFailure, RunInterrupted)."""
        path = self._folder(folder)
        if stop is None and config.sprt is not None and self.sprt is not None:
            stop = self.sprt(config)
        return run(config, path, stop=stop, **self.options)
