"""Arena runs into one tidy pandas DataFrame: one row per game per seat.

:func:`load_runs` reads run folders (``config.json`` and ``games.jsonl`` or
``games.jsonl.gz``, docs/arena.md) or bare records files through the arena's reader
(:mod:`glory_ai.arena.storage`), which leaves out the action lists, the bulk of every line
(the analysis does not replay games); :func:`frame_of_records` takes records in memory. The
frame is built column by column from the parsed records (no Python loop over DataFrame
rows): 100,000 games (~290,000 rows) load in a few seconds (``benchmarks/analysis.py``).

Columns (docs/analysis.md):

===================================  ==========================================================
``run``                              the run's label (its folder name; made unique)
``game``                             a game number unique over the loaded runs (0, 1, ...)
``game_id`` ``deal`` ``pairing``     the game's place in its run's plan
``rotation`` ``seed``
``num_players`` ``mode``             the rules; ``variant`` is a stable text key
``variant`` ``variant_dict``         (``petition_size=2 refill_size=5``), ``variant_dict`` the
``rules``                            dict; ``rules`` is ``mode`` and ``variant`` together
``seat`` ``spec``                    the seat (0 = P1, who leads the first turn) and its bot
``win_share``                        1/k if the seat is one of k winners, else 0 (``returns``)
``won``                              the seat is among the winners
``score`` ``rank``                   final VP; place (1 = winners, then by VP, ties share)
``vp_influence`` ``vp_vault``        the VP breakdown (they add up to ``score``)
``vp_merchant_bonus`` ``vp_statue``
``vp_wall`` (``vp_buildings``)        (a variant's building points, in frames holding them)
``completed`` ``n_completed``        completed buildings (a list, in the order built), their
``n_incomplete``                     number, and the number of unfinished ones
``completed:NAME``                   one bool column per building (the 44 of BUILDINGS)
``end_reason`` ``turns``             how and when the game ended (per game, on every seat row)
``decisions``
``seat_decisions`` ``seconds``       decisions and think time of the seat (NaN if absent)
``seconds_per_decision``
``led:ROLE``                         turns the seat led ROLE (only when records carry
                                     ``roles_led``; NaN for records without it)
===================================  ==========================================================

``frame.attrs["runs"]`` lists the runs read (label, path, config.json contents, games,
record and package versions, and ``as_played``: the specs spelled out because a bot
default changed since the run was played, from the parameters its ``code.json`` records).
"""
from __future__ import annotations

import gc
import logging
import operator
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..arena import ArenaError, storage
from ..arena.code import recorded_parameters, spec_as_played
from . import AnalysisError
from .frame import (
    BUILDINGS,
    COMPLETED,
    END_REASONS,
    LED,
    RECORD_VERSIONS,
    VP_BUILDINGS,
    VP_COLUMNS,
    VP_COMPONENTS,
    _build,
    _check_record,
    _get,
    completed_columns,
    frame_of_records,
    games,
    led_columns,
    variant_key,
)

__all__ = ["BUILDINGS", "COMPLETED", "LED", "VP_BUILDINGS", "VP_COLUMNS", "VP_COMPONENTS", "END_REASONS",
           "reads_columns", "run_folders",
           "completed_columns", "frame_of_records", "games", "led_columns", "load_runs",
           "variant_key"]

log = logging.getLogger("glory_ai.analysis")

class RunManifests(list[Any]):
    """``frame.attrs["runs"]``: the runs' manifests, read-only. pandas copies a frame's
    attrs deeply on every operation (thousands in a report); these are shared instead."""

    def __deepcopy__(self, memo: dict[int, Any]) -> RunManifests:
        return self


class _Run:
    """One input: where its records are, its label and its config."""

    def __init__(self, given: str | os.PathLike) -> None:
        path = Path(given)
        self.given = str(given)
        if not path.exists():
            raise AnalysisError(f"{given}: no such run folder or file")
        if path.is_dir():
            self.folder = path
            if not any((path / name).exists() for name in storage.GAMES_FILES):
                raise AnalysisError(f"{given}: no {storage.GAMES_FILE} in this folder (not a run folder?)")
            self.games_path = storage.games_file(path)
        else:
            self.folder = path.parent
            self.games_path = path
        self.config: dict[str, Any] | None = None
        in_folder = path.is_dir() or path.name in storage.GAMES_FILES
        self.in_folder = in_folder
        self.as_played: dict[str, str] = {}
        self.parameters: dict[str, dict[str, Any]] = {}
        #: specs spelled out with the parameters added since they were played (Param.before),
        #: set by _meanings when the same spec meant different bots in two runs of a report
        self.spell_before: frozenset[str] = frozenset()
        if in_folder and (self.folder / storage.CONFIG_FILE).exists():
            try:
                self.config = storage.read_config(self.folder)
            except ArenaError as exc:
                raise AnalysisError(str(exc)) from None
        name = self.folder.name if in_folder else path.stem
        self.name = name or str(self.folder.resolve().name) or "run"
        self.label = self.name
        self.records: list[dict[str, Any]] = []
        self.versions: list[str] = []
        self.record_versions: list[Any] = []
        self.dropped = 0

    # ---- reading -------------------------------------------------------------------------

    def read(self) -> None:
        """Read the records (through the arena's reader, without the lists the analysis
        skips), drop repeated games, sort by (deal, pairing, rotation). Damaged input:
        :meth:`diagnose`."""
        try:
            records = storage.read_records(self.games_path, skip=storage.SKIPPABLE)
        except ArenaError as exc:
            raise AnalysisError(str(exc)) from None
        if not records:
            raise AnalysisError(f"{self.games_path}: the run has no games")
        try:
            ids = list(map(_get("game_id"), records))
            if len(set(ids)) < len(ids):
                seen: set[Any] = set()
                kept = []
                for gid, rec in zip(ids, records, strict=True):
                    if gid not in seen:
                        seen.add(gid)
                        kept.append(rec)
                self.dropped = len(records) - len(kept)
                log.warning("%s: %d games recorded twice; keeping the first of each",
                            self.games_path, self.dropped)
                records = kept
            keys = list(map(_get("deal", "pairing", "rotation"), records))
            if not all(map(operator.le, keys, keys[1:])):
                order = sorted(range(len(keys)), key=keys.__getitem__)
                records = list(map(records.__getitem__, order))
        except (KeyError, TypeError):
            self.diagnose()
            raise
        if self.in_folder:
            self._spell_out(records)
        self.records = records
        self.record_versions = sorted(set(map(operator.methodcaller("get", "record_version", 1),
                                              records)), key=str)
        self.versions = sorted({str(v) for v in map(operator.methodcaller("get", "version"), records)
                                if v is not None})
        bad = [v for v in self.record_versions if v not in RECORD_VERSIONS]
        if bad:
            self.diagnose()

    def _played(self) -> None:
        # a spec whose meaning changed since the run was played (a default changed): its
        # games are shown under the spec spelled out as played, not under today's meaning
        played = recorded_parameters(self.folder)
        # the parameters as played, by the spec the frame shows (labels read them)
        self.parameters = dict(played)
        renamed = {spec: spec_as_played(spec, params, before=spec in self.spell_before)
                   for spec, params in played.items()}
        self.as_played = {spec: new for spec, new in renamed.items() if new != spec}
        self.parameters.update({new: played[old] for old, new in self.as_played.items()})
        if self.as_played:
            log.warning("%s: played with other bot defaults than today's; shown as played: %s",
                        self.folder, "; ".join(f"{old} as {new}" for old, new in self.as_played.items()))

    def _spell_out(self, records: list[dict[str, Any]]) -> None:
        self._played()
        if not self.as_played:
            return
        for rec in records:
            seats = rec.get("seats")
            if type(seats) is list:
                rec["seats"] = [self.as_played.get(seat, seat) for seat in seats]

    @property
    def columnar(self) -> bool:
        """Is the run read from its columns file (a run in a folder)?"""
        return self.in_folder and _COLUMNS_ON

    def read_columns(self, names: Sequence[str] | None,
                     read: tuple[pd.DataFrame, dict[str, Any]] | None = None,
                     orders: dict[str, Any] | None = None) -> pd.DataFrame:
        """The run's stored columns (glory_ai.analysis.columns), specs spelled out as played;
        ``read``: what :func:`~glory_ai.analysis.columns.read_run` gave elsewhere (a dask
        worker), else it is read here (``orders``: see read_run)."""
        from .columns import read_run

        frame, meta = read if read is not None else read_run(self.folder, names, orders)
        self._metadata(meta)
        if self.as_played and "spec" in frame.columns:
            frame["spec"] = frame["spec"].map(lambda s: self.as_played.get(s, s))
        bad = [v for v in self.record_versions if v not in RECORD_VERSIONS]
        if bad:
            self.diagnose()
        return frame

    def _metadata(self, meta: dict[str, Any]) -> None:
        """The run's facts from its columns file's metadata, and its specs as played."""
        if meta.get("dropped"):
            # a game written twice: the record reader checks that the copies agree
            raise _ReadRecords(f"{self.games_path}: a game recorded twice")
        self.games = int(meta.get("games", 0))
        self.versions = list(meta.get("versions", []))
        self.record_versions = list(meta.get("record_versions", []))
        self.dropped = int(meta.get("dropped", 0))
        self.variants = dict(meta.get("variants", {}))
        self._played()

    def read_metadata(self, path: Path) -> None:
        """:meth:`read_columns` without the columns: the run's facts from the metadata of
        its columns file ``path`` (glory_ai.analysis.stream reads the rows itself)."""
        from .columns import _metadata

        self._metadata(_metadata(path) or {})

    def diagnose(self) -> None:
        """Read the file again, checking every record, and raise AnalysisError naming the
        first line that is not a well-formed game record (the slow path, only for damaged
        input)."""
        try:
            storage.read_records(self.games_path, check=_check_record)
        except ArenaError as exc:
            raise AnalysisError(str(exc)) from None

    def manifest(self) -> dict[str, Any]:
        return {
            "label": self.label, "path": self.given, "games_file": str(self.games_path),
            "config": self.config, "games": len(self.records) or getattr(self, "games", 0),
            "record_versions": self.record_versions, "versions": self.versions,
            "duplicates_dropped": self.dropped, "as_played": dict(self.as_played),
            "parameters": dict(self.parameters),
        }


def _meanings(runs: Sequence[_Run]) -> None:
    """A spec shown alike in two runs that played different bots under it (a run made before
    a parameter existed, e.g. ``turnwin``, beside one made after) is spelled out, in the runs
    of that spec, with the parameters added since at their values from before them, so that
    the report keeps the two bots apart. A run alone, or runs that agree, keep their specs
    as written (the shipped reports unchanged)."""
    if len(runs) < 2:
        return
    # shown spec -> spec with the before-values -> (run, spec as recorded)
    meanings: dict[str, dict[str, list[tuple[_Run, str]]]] = {}
    for run in runs:
        if not run.in_folder:
            continue
        for spec, params in recorded_parameters(run.folder).items():
            shown = spec_as_played(spec, params, before=False)
            full = spec_as_played(spec, params, before=True)
            meanings.setdefault(shown, {}).setdefault(full, []).append((run, spec))
    for bots in meanings.values():
        if len(bots) > 1:
            for holding in bots.values():
                for run, spec in holding:
                    run.spell_before = run.spell_before | {spec}


def _labels(runs: Sequence[_Run]) -> None:
    """Unique labels: the folder name, with parent folders added while names collide; and
    the specs that two runs played as different bots spelled out (:func:`_meanings`)."""
    _meanings(runs)
    depth = 1
    while True:
        labels = []
        for run in runs:
            parts = Path(os.path.abspath(run.games_path if run.games_path.name not in storage.GAMES_FILES
                                         else run.folder)).parts
            if run.games_path.name not in storage.GAMES_FILES:
                parts = (*parts[:-1], run.name)
            labels.append("/".join(parts[-depth:]))
        if len(set(labels)) == len(labels) or depth > 50:
            break
        depth += 1
    for run, label in zip(runs, labels, strict=True):
        run.label = label


def load_runs(paths: str | os.PathLike | Iterable[str | os.PathLike],
              columns: Sequence[str] | None = None, *, client: Any = None,
              orders: dict[str, Any] | None = None) -> pd.DataFrame:
    """Read one or more runs (folders holding ``games.jsonl``, or ``games.jsonl`` files)
    into one DataFrame, one row per game per seat; see the module docstring for the
    columns. Games are in input order, each run's sorted by (deal, pairing, rotation), and
    the seats of a game in order.

    Finished runs (compressed records) are read from their columns file
    (:mod:`glory_ai.analysis.columns`, made from the records the first time and whenever
    they change): ``columns`` then reads only those named (and ``run``/``game`` when named),
    which bounds the memory by what a statistic needs. The frame is the same either way.

    Raises :class:`AnalysisError` naming the file for a missing folder or file, a run
    without games, a line that is not a game record (with its line number) or the same run
    given twice. A truncated last line (a run killed mid-write) is skipped with a warning,
    as the arena does; a game recorded twice keeps its first record.

    ``client``: a ``distributed.Client``: the finished runs' columns files are made (when
    stale) and read by its workers, a task per run (the workers must see the run folders,
    as this process does: a shared file system); the frame is the same. ``orders``: a dict
    that keeps the runs' row orders between calls over the same runs (see
    :func:`~glory_ai.analysis.columns.read_run`)."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    runs = [_Run(p) for p in paths]
    if not runs:
        raise AnalysisError("no runs given")
    seen: dict[Path, str] = {}
    for run in runs:
        key = run.games_path.resolve()
        if key in seen:
            raise AnalysisError(f"{run.given}: the same run is given twice (as {seen[key]} too)")
        seen[key] = run.given
    _labels(runs)
    if all(run.columnar for run in runs):
        try:
            return _load_columns(runs, columns, client, orders)
        except (AnalysisError, _ReadRecords) as error:
            # the records say what is wrong with them, line by line: read them as records
            log.debug("reading the records instead of the columns: %s", error)
    enabled = gc.isenabled()
    gc.disable()          # millions of small objects: a collection mid-way costs seconds
    try:
        for run in runs:
            run.read()
        try:
            frame = _build([(run.label, run.records) for run in runs])
        except (KeyError, TypeError, ValueError, AttributeError, OverflowError, IndexError) as exc:
            if isinstance(exc, AnalysisError):
                raise
            for run in runs:
                run.diagnose()
            raise AnalysisError(f"{', '.join(str(r.games_path) for r in runs)}: cannot read "
                                f"the records ({type(exc).__name__}: {exc})") from None
        manifests = [run.manifest() for run in runs]
        for run in runs:
            run.records = []          # freed while the collector is off: no scan
    finally:
        if enabled:
            gc.enable()
    frame.attrs["runs"] = RunManifests(manifests)
    return frame


def run_folders(given: str | os.PathLike) -> list[Path]:
    """The runs a path names for an analysis across runs: a run folder or a records file
    itself; a folder holding runs (an experiment's results folder, ``runs/*``; a balance
    study's, ``validation/*/*``; any folder with run folders up to three levels below) its
    runs, sorted; a glob pattern (``results/*/runs/*``) every run it matches. AnalysisError
    when it names none."""
    import glob

    text = str(given)
    if any(ch in text for ch in "*?["):
        matches = sorted(glob.glob(text))
        found = [run for match in matches for run in _runs_under(Path(match))]
        if not found:
            raise AnalysisError(f"{text}: matches no run folder")
        return list(dict.fromkeys(found))
    path = Path(given)
    if not path.exists():
        raise AnalysisError(f"{given}: no such run folder or file")
    found = _runs_under(path)
    if not found:
        raise AnalysisError(f"{given}: no {storage.GAMES_FILE} in this folder or below (not a run folder?)")
    return found


def _runs_under(path: Path, depth: int = 3) -> list[Path]:
    if path.is_file():
        return [path] if path.name in storage.GAMES_FILES or path.suffix == ".jsonl" else []
    if any((path / name).exists() for name in storage.GAMES_FILES):
        return [path]
    if depth == 0 or not path.is_dir():
        return []
    return [run for child in sorted(p for p in path.iterdir() if p.is_dir() and not p.name.startswith("."))
            for run in _runs_under(child, depth - 1)]


class _ReadRecords(Exception):
    """The columns cannot stand for the records here: read the records themselves."""


def reads_columns(paths: str | os.PathLike | Iterable[str | os.PathLike]) -> bool:
    """Does :func:`load_runs` read these runs from their columns files (every one a finished
    run in a folder), so that naming ``columns`` bounds what it loads?"""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    try:
        return all(_Run(p).columnar for p in paths)
    except AnalysisError:
        return False


#: read finished runs from their columns files (GLORY_AI_COLUMNS=0: from the records always)
_COLUMNS_ON = os.environ.get("GLORY_AI_COLUMNS", "1") != "0"


def _load_columns(runs: Sequence[_Run], columns: Sequence[str] | None, client: Any = None,
                  orders: dict[str, Any] | None = None) -> pd.DataFrame:
    """load_runs from the runs' columns files (see there): the same frame, or its columns
    named in ``columns``, in the frame's order; read by the workers of ``client`` if given."""
    from .columns import NOT_STORED, combine, read_run, release_memory

    wanted = None if columns is None else set(columns)
    names = None if columns is None else [c for c in columns if c not in NOT_STORED]
    if names is not None and wanted is not None and "variant_dict" in wanted and "variant" not in names:
        names.append("variant")
    read: list[Any] = [None] * len(runs)
    if client is not None:
        futures = client.map(read_run, [str(run.folder) for run in runs], [names] * len(runs), pure=False)
        read = client.gather(futures)
    parts = [(run.label, run.read_columns(names, got, orders)) for run, got in zip(runs, read, strict=True)]
    sizes = [int(f["_game"].max()) + 1 if len(f) else 0 for _, f in parts]
    offsets = np.cumsum([0, *sizes])
    games = np.concatenate([f.pop("_game").to_numpy() + offsets[i] for i, (_, f) in enumerate(parts)])
    joined = combine(parts)
    del parts
    out: dict[str, Any] = {"run": joined.pop("run"), "game": games}
    for name, values in joined.items():
        out[name] = values
        if name == "variant" and (wanted is None or "variant_dict" in wanted):
            variants: dict[str, Any] = {}
            for run in runs:
                for key, options in run.variants.items():
                    variants.setdefault(key, options)
            lookup = np.empty(len(values.categories), dtype=object)
            for i, key in enumerate(values.categories):
                lookup[i] = variants[key]
            out["variant_dict"] = lookup[values.codes]
    if wanted is not None:
        prefixes = tuple(c for c in wanted if c.endswith(":"))
        out = {c: v for c, v in out.items() if c in wanted or (prefixes and c.startswith(prefixes))}
    # the columns as they are (each new here): no second copy of them gathered into blocks
    frame = pd.DataFrame(out, copy=False)
    frame.attrs["runs"] = RunManifests(run.manifest() for run in runs)
    del out, joined
    release_memory()           # what reading and joining the runs' columns freed
    return frame


