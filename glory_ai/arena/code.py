"""The code that made a run's games: ``code.json`` in the run folder (docs/arena.md).

A run records, when it starts, the identity of the code that plays it
(:func:`code_identity`: glory_ai's version, build hash and play-deciding Python sources, and
for every user bot where it comes from, its distribution's version and its source hash). A
run folder holding games made by other code is not resumed (:func:`code_problem` names
what changed), with one exception: a run stopped by a failing user bot resumes once that
bot is fixed (its source changed, nothing else), and ``code.json`` keeps the code of the
earlier games under ``earlier``. :func:`set_aside` moves a folder out of the way for a
fresh start (``--fresh``).

::

    {"format": "glory_ai/run-code", "format_version": 1,
     "code": {"glory_ai": {"version": ..., "build": ..., "sources": ...},
              "bots": {"./my_bot.py:Cautious": {"kind": "file", "target": ..., "path": ...,
                                                "sha256": ..., "fair_play": true}}},
     "parameters": {"ismcts:iters=500": {"iters": 500, "c": 0.7, "cutoff": 80, ...}},
     "isolation": {"mode": "users", "specs": {"./my_bot.py:Cautious": "isolated", "greedy": "in-process"}},
     "failure": {"bot": ..., "game_id": ..., "decision": ..., "reason": ..., "message": ...},
     "earlier": [{"code": {...}, "games": 56, "failure": {...}}]}

``parameters`` holds every built-in spec's parameters as resolved when the run was
played, defaults included: a default that changes later changes what ``ismcts:iters=500``
means, and the analysis then spells such a spec out (:func:`spec_as_played`) instead of
showing the old games under today's meaning. Every replay of a run's games (a resume,
``glory-ai reproduce`` and ``verify --repair``, a study's or a learning run's replays) builds
each bot from the spec as played (:func:`played_specs`, kept in ``RunConfig.played``): the
recorded parameters, and a parameter added since at its value from before it existed
(``Param.before``), so that a new default never changes an old run's games.
"""
from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._jsonio import read_json
from .files import CODE_FILE, COMPRESSED_GAMES_FILE, GAMES_FILE
from .plan import ArenaError, RunConfig

if TYPE_CHECKING:
    from .play import BotFailure

__all__ = ["CODE_FILE", "CODE_FORMAT", "code_identity", "code_changes", "code_problem",
           "note_failure", "note_isolation", "played_config", "played_specs", "read_code", "record_code",
           "recorded_parameters", "set_aside", "spec_as_played", "spec_parameters"]

log = logging.getLogger("glory_ai.arena")

CODE_FORMAT = "glory_ai/run-code"
CODE_VERSION = 1


def code_identity(config: RunConfig) -> dict[str, Any]:
    """The identity of the code that plays ``config`` here: ``{"glory_ai": ..., "bots":
    {bot: ...}}`` (glory_ai.bots.identity), the users' bots read as a run would read them,
    and the evaluation model files of ``eval=PATH`` specs."""
    from ..bots import builtin_name, model_identities
    from ..bots.identity import package_identity

    bots: dict[str, Any] = {}
    try:
        if any(builtin_name(spec) is None for spec in config.specs):
            from ..bots.plugins import identities

            bots = identities(config.specs)
        bots.update(model_identities(config.specs))      # the evaluation model files
    except ValueError as exc:
        raise ArenaError(str(exc)) from None
    return {"glory_ai": dict(package_identity()), "bots": bots}


def spec_parameters(specs: Iterable[str],
                    built: Mapping[str, str] | None = None) -> dict[str, dict[str, Any]]:
    """Each built-in bot spec's parameters as this code resolves them, defaults included
    (a user's bot, or a spec this code cannot read, is left out); ``built``: the spec a bot
    is built from instead, by spec (``RunConfig.played``), whose parameters are recorded."""
    from ..bots import BotSpec, SpecError, builtin_name

    built = built or {}
    resolved: dict[str, dict[str, Any]] = {}
    for spec in specs:
        if builtin_name(spec) is None:
            continue
        try:
            resolved[spec] = BotSpec.parse(built.get(spec, spec)).params
        except SpecError:
            continue
    return resolved


def spec_as_played(spec: str, played: Mapping[str, Any], *, before: bool = True) -> str:
    """``spec`` written so that it means today what it meant when it was played with the
    resolved parameters ``played``: every parameter whose value then differs from the value
    the spec resolves to now is added to it (in the bot's parameter order), and with
    ``before`` a parameter added since, absent from ``played``, at its value from before it
    existed. The spec itself when nothing differs, or when this code cannot read it
    (:meth:`glory_ai.bots.BotSpec.as_played`).

    >>> spec_as_played("ismcts:iters=500", {"iters": 500, "cutoff": 40, "solver": False})
    'ismcts:iters=500,cutoff=40,solver=false,turnwin=0'
    >>> spec_as_played("ismcts:iters=500", {"iters": 500, "cutoff": 40}, before=False)
    'ismcts:iters=500,cutoff=40'
    >>> spec_as_played("pimc:iters=500", {"iters": 500, "eval": ""})     # "" is today's "style"
    'pimc:iters=500'
    >>> spec_as_played("greedy", {})
    'greedy'
    """
    from ..bots import spec_as_played as as_played

    return as_played(spec, played, before=before)


def played_specs(folder: str | os.PathLike[str], specs: Iterable[str]) -> dict[str, str]:
    """The spec each bot of a run folder's ``specs`` was played as, where it differs from the
    spec (:func:`spec_as_played` of the parameters its ``code.json`` records, parameters
    added since at their value from before them); empty for a run that records none."""
    recorded = recorded_parameters(folder)
    out = {}
    for spec in specs:
        if spec in recorded:
            built = spec_as_played(spec, recorded[spec])
            if built != spec:
                out[spec] = built
    return out


def played_config(config: RunConfig, folder: str | os.PathLike[str]) -> RunConfig:
    """``config`` whose bots are built as the run in ``folder`` played them
    (:func:`played_specs`, ``RunConfig.played``): how a replay or a resume plays its games."""
    import dataclasses

    played = played_specs(folder, config.specs)
    return dataclasses.replace(config, played=played) if played != dict(config.played) else config


def recorded_parameters(folder: str | os.PathLike[str]) -> dict[str, dict[str, Any]]:
    """The resolved parameters a run folder's ``code.json`` records for its specs (empty
    when it records none: a run made before they were recorded); never raises for a
    damaged file (the analysis then shows the specs as written)."""
    try:
        data = read_code(folder)
    except ArenaError:
        return {}
    parameters = data.get("parameters") if data else None
    if not isinstance(parameters, dict):
        return {}
    return {str(spec): dict(params) for spec, params in parameters.items() if isinstance(params, dict)}


def read_code(folder: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The contents of a run folder's ``code.json``, or None when there is none (a new run,
    or a folder made before glory_ai recorded code); ArenaError if it cannot be read."""
    path = Path(folder) / CODE_FILE
    if not path.exists():
        return None
    try:
        data = read_json(path)
    except (OSError, ValueError) as exc:
        raise ArenaError(f"{path}: not a readable code record ({' '.join(str(exc).split())})") from None
    if (not isinstance(data, dict) or data.get("format") != CODE_FORMAT
            or not isinstance(data.get("code"), dict)):
        raise ArenaError(f"{path}: not a code record (format {CODE_FORMAT!r})")
    return data


def _write(folder: Path, data: Mapping[str, Any]) -> None:
    """Write code.json: ``data``, and ``run`` (the plan's checksum and the config as the run
    started, kept from the file as it was, glory_ai.arena.integrity); then store its own
    checksum in config.json."""
    from .integrity import run_record, stamp_code

    path = folder / CODE_FILE
    run: Any = None
    try:
        before = read_code(folder)
        run = before.get("run") if before is not None else None
    except ArenaError:
        pass
    if not isinstance(run, dict) or not run:
        run = run_record(folder)
    content = {"format": CODE_FORMAT, "format_version": CODE_VERSION,
               **{k: v for k, v in data.items() if k != "run"}, **({"run": run} if run else {})}
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(content, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    stamp_code(folder, content)


def _has_games(folder: Path) -> bool:
    plain = folder / GAMES_FILE
    return (plain.exists() and plain.stat().st_size > 0) or (folder / COMPRESSED_GAMES_FILE).exists()


def _changed_bots(there: Mapping[str, Any], here: Mapping[str, Any]) -> set[str] | None:
    """The user bots whose identity differs, or None when glory_ai's does."""
    from ..bots.identity import identity_changes

    if identity_changes({"glory_ai": there.get("glory_ai")}, {"glory_ai": here.get("glory_ai")}):
        return None
    old, new = dict(there.get("bots") or {}), dict(here.get("bots") or {})
    return {key for key in set(old) | set(new)
            if identity_changes({"bots": {key: old.get(key)}}, {"bots": {key: new.get(key)}})}


def code_changes(folder: str | os.PathLike[str], config: RunConfig) -> list[str] | None:
    """What differs between the code recorded in ``folder`` and the code that would play
    ``config`` here (one phrase each; empty: the same code), or None when the folder records
    no code."""
    from ..bots.identity import identity_changes

    data = read_code(folder)
    if data is None:
        return None
    return identity_changes(data["code"], code_identity(config))


def _accepted_fix(data: Mapping[str, Any], current: Mapping[str, Any]) -> bool:
    # the run stopped because a user bot failed, and only that bot's code changed since
    failure = data.get("failure")
    if not isinstance(failure, Mapping):
        return False
    changed = _changed_bots(data["code"], current)
    return bool(changed) and changed == {failure.get("bot")}


def code_problem(folder: str | os.PathLike[str], config: RunConfig) -> str | None:
    """Why ``folder`` cannot be resumed with the code here (one line naming what changed),
    or None: same code, no code recorded, no games yet, or a failed bot fixed."""
    from ..bots.identity import identity_changes

    folder = Path(folder)
    data = read_code(folder)
    if data is None or not _has_games(folder):
        return None
    current = code_identity(config)
    changes = identity_changes(data["code"], current)
    if not changes or _accepted_fix(data, current):
        return None
    return (f"{folder} holds games played by other code ({'; '.join(changes)}): resuming would "
            f"mix the two; run again with --fresh to start over (the old games are moved to "
            f"{_aside_name(folder).name}), or use another output folder")


def record_code(folder: str | os.PathLike[str], config: RunConfig, games: int) -> None:
    """Record the code that plays ``config`` now, as a run (re)opens ``folder`` holding
    ``games`` finished games (after :func:`code_problem` let it through)."""
    folder = Path(folder)
    current = code_identity(config)
    data = read_code(folder)
    parameters = spec_parameters(config.specs, config.played)
    if data is None:
        earlier = [{"code": None, "games": games}] if games else []
        _write(folder, {"code": current, "parameters": parameters,
                        **({"earlier": earlier} if earlier else {})})
        return
    earlier = list(data.get("earlier") or [])
    # how the bots ran is kept until games are played again (note_isolation): a run reopened
    # with nothing left to play leaves code.json as it was
    kept = {"isolation": data["isolation"]} if "isolation" in data else {}
    if games and _accepted_fix(data, current):
        failure = data["failure"]
        log.warning("%s: resuming with %s changed since it failed in game %s; the %d games "
                    "played before are kept (%s records their code under 'earlier')",
                    folder, failure.get("bot"), failure.get("game_id"), games, CODE_FILE)
        earlier.append({"code": data["code"], "games": games, "failure": failure})
    _write(folder, {"code": current, "parameters": parameters,
                    **({"earlier": earlier} if earlier else {}), **kept})


def note_failure(folder: str | os.PathLike[str], failure: BotFailure) -> None:
    """Record in ``code.json`` that the run stopped because a bot failed (so the run may
    resume once that bot's code is fixed)."""
    from ..bots.grammar import split_spec

    folder = Path(folder)
    data = read_code(folder)
    if data is None:
        return
    try:
        bot = split_spec(failure.spec).bot
    except ValueError:
        bot = failure.spec
    data = {k: v for k, v in data.items() if k not in ("format", "format_version")}
    data["failure"] = {"bot": bot, "game_id": failure.game_id, "decision": failure.decision,
                       "reason": failure.reason, "message": str(failure)}
    _write(folder, data)


def note_isolation(folder: str | os.PathLike[str], config: RunConfig, isolation: str,
                   shipped: Mapping[str, Any]) -> None:
    """Record in ``code.json`` how each spec's bot runs in this run: ``"isolation": {"mode":
    "users", "specs": {spec: "isolated" | "in-process"}}`` (a bot host process of its own, or
    the worker that holds the game: glory_ai.arena.hosted)."""
    from .hosted import hosted_seat

    folder = Path(folder)
    data = read_code(folder)
    if data is None:
        return
    data = {k: v for k, v in data.items() if k not in ("format", "format_version")}
    data["isolation"] = {"mode": isolation, "specs": {
        spec: "isolated" if hosted_seat(spec, isolation, shipped) else "in-process"
        for spec in dict.fromkeys(config.specs)}}
    _write(folder, data)


def _aside_name(folder: Path) -> Path:
    n = 1
    while True:
        candidate = folder.with_name(f"{folder.name}.old-{n}")
        if not candidate.exists():
            return candidate
        n += 1


def set_aside(folder: str | os.PathLike[str]) -> Path | None:
    """Move ``folder`` to ``FOLDER.old-N`` (the first free N) so that a run can start afresh
    in ``folder``; returns where it went, or None when there was nothing to move. A folder
    another process is writing into (its lock, glory_ai.arena.lock) is refused."""
    from .lock import FolderLock

    folder = Path(folder)
    if not folder.exists():
        return None
    target = _aside_name(folder)
    # not while another process writes into it (FolderLocked names that process)
    with FolderLock(folder):
        try:
            os.rename(folder, target)
        except OSError as exc:
            raise ArenaError(f"cannot move {folder} aside to {target} ({exc.strerror or exc})") from None
    return target
