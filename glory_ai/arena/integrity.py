"""The plan of a run folder, not taken on faith: ``config.json`` and ``code.json`` carry
checksums of each other (docs/arena.md, "Verify").

``config.json`` holds ``plan_sha256``, the SHA-256 of its own plan (every key but the
records' checksum and these two), written when the run starts, and ``code_sha256``, that of
``code.json`` as last written. ``code.json`` holds ``run``: the plan's checksum and a copy of
the plan as the run started (from which ``verify --repair`` writes back a config.json that
can no longer be read). An experiment's ``manifest.json`` lists both checksums
of every run (glory_ai.experiments).

:func:`check_plan` compares them: a config whose plan was edited after its games were played
(``deals`` 100 changed to 50, say) is named as edited, with the keys that changed as
``code.json`` recorded them, and no reader or repair acts on it. A folder written before
these checksums existed is read as it is (``confirmed`` False); the next resume of it, which
checks the folder against the command's own config, writes them.
"""
from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._jsonio import JSONLimitError, read_json
from .files import CODE_FILE, CONFIG_FILE

__all__ = ["CODE_KEY", "PLAN_KEY", "PlanCheck", "check_plan", "code_sha256", "plan_sha256",
           "recorded_plan", "restore_config", "run_record", "stamp_code", "stamp_plan"]

#: the keys of config.json that hold its plan's checksum and code.json's
PLAN_KEY = "plan_sha256"
CODE_KEY = "code_sha256"
#: the keys of config.json outside its plan: they change as the run goes on
_NOT_PLAN = ("records", PLAN_KEY, CODE_KEY)


def _canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def plan_sha256(config_json: Mapping[str, Any]) -> str:
    """The SHA-256 (hex) of the plan part of a config.json's contents."""
    return hashlib.sha256(_canonical({k: v for k, v in config_json.items()
                                      if k not in _NOT_PLAN})).hexdigest()


def code_sha256(code_json: Mapping[str, Any]) -> str:
    """The SHA-256 (hex) of a code.json's contents."""
    return hashlib.sha256(_canonical(dict(code_json))).hexdigest()


def _read(path: Path) -> dict[str, Any] | None:
    try:
        data = read_json(path)
    except (OSError, JSONLimitError):
        return None
    return data if isinstance(data, dict) else None


def _write_json(path: Path, data: Mapping[str, Any]) -> None:
    """Rewrite a small JSON file atomically (through a synced temporary file)."""
    partial = path.with_name(path.name + ".tmp")
    text = (json.dumps(data, indent=2) + "\n").encode()
    try:
        with open(partial, "wb") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(partial, path)
    except OSError:
        try:
            partial.unlink()
        except OSError:
            pass
        raise


@dataclass(frozen=True)
class PlanCheck:
    """What :func:`check_plan` found: ``confirmed``, the plan's checksums are there and
    agree; ``problem``, one line naming the file that was changed and what to do (None when
    nothing disagrees); ``plan``, the problem concerns the plan (a reader refuses to read
    records against it), not only code.json's own checksum (which verify reports)."""

    confirmed: bool
    problem: str | None = None
    plan: bool = True


def _show(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _edits(now: Mapping[str, Any], then: Mapping[str, Any]) -> str:
    keys = sorted(k for k in set(now) | set(then) if now.get(k) != then.get(k))
    return "; ".join(f"{k}: {_show(now.get(k))} now, {_show(then.get(k))} when the run started"
                     for k in keys)


def check_plan(folder: str | os.PathLike[str]) -> PlanCheck:
    """Compare the checksums that ``config.json`` and ``code.json`` keep of each other (see
    the module's doc). Never raises for a damaged file: an unreadable config.json is the
    config reader's to report."""
    folder = Path(folder)
    data = _read(folder / CONFIG_FILE)
    if data is None or PLAN_KEY not in data:
        return PlanCheck(False)
    code = _read(folder / CODE_FILE)
    run: dict[str, Any] = {}
    if code is not None and isinstance(code.get("run"), dict):
        run = code["run"]
    stored, now = data.get(PLAN_KEY), plan_sha256(data)
    recorded = run.get(PLAN_KEY)
    plan: dict[str, Any] = run["plan"] if isinstance(run.get("plan"), dict) else {}
    start: dict[str, Any] | None = plan["config"] if isinstance(plan.get("config"), dict) else None
    config_now: dict[str, Any] = data["config"] if isinstance(data.get("config"), dict) else {}
    config_file, code_file = folder / CONFIG_FILE, folder / CODE_FILE
    start_over = ("or start over in another folder (the run's command with --fresh moves this "
                  "one aside); nothing is read or repaired against a changed plan")
    if now != stored or (recorded is not None and recorded != now):
        code_intact = code is not None and data.get(CODE_KEY) == code_sha256(code)
        if now == stored and recorded != now and not code_intact:
            return PlanCheck(False, f"{code_file} was changed after it was written (its checksum in "
                             f"{CONFIG_FILE} and the plan it records differ from {CONFIG_FILE}'s): "
                             f"put it back as it was, {start_over}")
        if start is not None and start != config_now:
            what = f" ({_edits(config_now, start)}, as {CODE_FILE} records it)"
            fix = "put it back as it was (the values it had when the run started)"
        else:
            what = ""
            fix = "put it back as it was"
        return PlanCheck(False, f"{config_file} was changed after its games were played: its plan "
                         f"no longer matches the checksum written with it{what}; {fix}, {start_over}")
    if code is not None and CODE_KEY in data and data[CODE_KEY] != code_sha256(code):
        return PlanCheck(True, f"{code_file} does not match the checksum {CONFIG_FILE} holds of it: "
                         "it was changed after it was written (or a run was killed while writing "
                         "it); put it back as it was, or run the command that wrote the folder "
                         "again, which rewrites it", plan=False)
    return PlanCheck(True)


def stamp_plan(folder: str | os.PathLike[str]) -> None:
    """Write the plan's checksum into ``config.json`` (a run that starts, or a resume that
    found the folder's config to be its own) when it holds none."""
    path = Path(folder) / CONFIG_FILE
    data = _read(path)
    if data is None or PLAN_KEY in data:
        return
    data[PLAN_KEY] = plan_sha256(data)
    _write_json(path, data)


def stamp_code(folder: str | os.PathLike[str], code_json: Mapping[str, Any]) -> None:
    """Write the checksum of ``code.json``'s new contents into ``config.json``."""
    path = Path(folder) / CONFIG_FILE
    data = _read(path)
    if data is None:
        return
    digest = code_sha256(code_json)
    if data.get(CODE_KEY) != digest:
        data[CODE_KEY] = digest
        _write_json(path, data)


def _plan_part(data: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k not in _NOT_PLAN}


def run_record(folder: str | os.PathLike[str]) -> dict[str, Any]:
    """What code.json records of the run's plan (``run``): the plan's checksum and the plan
    as config.json held it when the run started (empty when it holds no checksum yet)."""
    data = _read(Path(folder) / CONFIG_FILE)
    if data is None or PLAN_KEY not in data:
        return {}
    return {PLAN_KEY: data[PLAN_KEY], "plan": _plan_part(data)}


def recorded_plan(folder: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The plan part of config.json as code.json recorded it when the run started, when it
    still has the checksum recorded with it; else None."""
    code = _read(Path(folder) / CODE_FILE)
    run = code.get("run") if code is not None else None
    if not isinstance(run, dict) or not isinstance(run.get("plan"), dict):
        return None
    plan = run["plan"]
    return plan if plan_sha256(plan) == run.get(PLAN_KEY) else None


def restore_config(folder: str | os.PathLike[str], records: Mapping[str, Any] | None) -> bool:
    """Write config.json back from the plan code.json recorded (:func:`recorded_plan`), with
    the records' checksum ``records`` (None: none) and code.json's checksum; False when
    code.json holds no such plan. The config.json it replaces is the caller's to keep."""
    folder = Path(folder)
    plan = recorded_plan(folder)
    if plan is None:
        return False
    data: dict[str, Any] = dict(plan)
    data[PLAN_KEY] = plan_sha256(plan)
    code = _read(folder / CODE_FILE)
    if code is not None:
        data[CODE_KEY] = code_sha256(code)
    if records is not None:
        data["records"] = dict(records)
    _write_json(folder / CONFIG_FILE, data)
    return True
