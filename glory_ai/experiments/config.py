"""Experiment configs: a TOML file (read with tomllib) that names the games, the bots, the
rule variants, the root seed, the parallel backend and the analyses (docs/experiments.md).

An experiment expands into arena runs, one per matchup, grid point, rule variant and player
count; every key is checked, and an unknown key is an error that names it.
"""
from __future__ import annotations

import itertools
import re
import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._jsonio import ConfigReadError, read_json, read_toml
from ..arena.plan import FORMATS, RunConfig
from ..arena.runner import BACKENDS
from ..core.config import SEED_RANGE, VARIANT_KEYS, check_seed

__all__ = ["ExperimentError", "Experiment", "Matchup", "PlannedRun", "load_experiment", "parse_experiment"]


class ExperimentError(ValueError):
    """A config that cannot be run: names the file, the key and the problem."""


_TOP_KEYS = {"name", "description", "question", "seed", "matchup", "run", "analysis"}
_MATCHUP_KEYS = {"name", "format", "specs", "players", "deals", "rotate", "grid", "variants", "sprt"}
_RUN_KEYS = {"backend", "jobs", "batch_size", "scheduler", "move_time_limit", "forfeit"}
_ANALYSIS_KEYS = {"report", "figures"}
_VARIANT_KEYS = {"mode", *VARIANT_KEYS}
FIGURES = ("win_rates", "pairwise", "ratings", "seat_advantage", "building_strength",
           "vp_breakdown", "end_conditions", "game_length")
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*$")


@dataclass(frozen=True)
class Matchup:
    """One kind of match in an experiment (expanded over grid, variants and players)."""

    name: str
    format: str | None
    specs: tuple[str, ...]
    players: tuple[int, ...]
    deals: int
    rotate: bool
    grid: dict[str, tuple[Any, ...]]
    variants: dict[str, dict[str, Any]]
    sprt: tuple[float, float, float, float] | None


@dataclass(frozen=True)
class PlannedRun:
    """One arena run of an experiment: its folder name, its config, where it came from."""

    name: str
    matchup: str
    grid_point: dict[str, Any]
    variant: str
    config: RunConfig


@dataclass(frozen=True)
class Experiment:
    name: str
    description: str
    question: str
    seed: int
    matchups: tuple[Matchup, ...]
    run_options: dict[str, Any] = field(default_factory=dict)
    report: bool = True
    figures: tuple[str, ...] = FIGURES
    source: str = ""                         # the TOML text it was read from

    def runs(self) -> list[PlannedRun]:
        """The arena runs of the experiment, in a stable order."""
        planned = []
        for m in self.matchups:
            keys = sorted(m.grid)
            points = [dict(zip(keys, values, strict=True))
                      for values in itertools.product(*(m.grid[k] for k in keys))]
            for point in points or [{}]:
                specs = tuple(_fill(spec, point, self.name, m.name) for spec in m.specs)
                for variant_name, variant in m.variants.items():
                    options = dict(variant)
                    mode = options.pop("mode", "republic")
                    for players in m.players:
                        parts = [m.name] + [f"{k}{point[k]}" for k in keys]
                        if len(m.variants) > 1 or variant_name != "standard":
                            parts.append(variant_name)
                        if len(m.players) > 1 or players != 2:
                            parts.append(f"{players}p")
                        name = "-".join(str(p) for p in parts)
                        try:
                            config = RunConfig(specs=specs, players=players, deals=m.deals, mode=mode,
                                               variant=options, seed=self.seed, format=m.format,
                                               rotate=m.rotate, sprt=m.sprt)
                        except ValueError as exc:
                            raise ExperimentError(
                                f"{self.name}: matchup {m.name!r} ({name}): {exc}") from None
                        planned.append(PlannedRun(name, m.name, point, variant_name, config))
        names = [p.name for p in planned]
        if len(set(names)) != len(names):
            raise ExperimentError(f"{self.name}: two runs would share a folder name; give the matchups "
                                  "distinct names")
        return planned

    @property
    def reproducible(self) -> bool:
        """False if a bot searches by time (time_ms or cpu_ms): its records depend on the machine."""
        from ..bots import BotSpec

        for m in self.matchups:
            for spec in m.specs:
                filled = _fill(spec, {k: v[0] for k, v in m.grid.items()}, self.name, m.name)
                params = BotSpec.parse(filled).params
                if params.get("time_ms") or params.get("cpu_ms"):
                    return False
        return True


def _fill(spec: str, point: Mapping[str, Any], experiment: str, matchup: str) -> str:
    try:
        return spec.format(**point)
    except (KeyError, IndexError, ValueError) as exc:
        raise ExperimentError(f"{experiment}: matchup {matchup!r}: spec {spec!r} uses a grid key "
                              f"that is not in grid ({exc})") from None


def _check_keys(d: Mapping[str, Any], allowed: set[str], where: str) -> None:
    unknown = sorted(set(d) - allowed)
    if unknown:
        raise ExperimentError(f"{where}: unknown key(s) {unknown}; known: {sorted(allowed)}")


def _int(value: object, where: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ExperimentError(f"{where}: expected an integer from {low} to {high}, got {value!r}")
    return value


def _str(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise ExperimentError(f"{where}: expected a string, got {value!r}")
    return value


def _matchup(d: Any, index: int, where: str) -> Matchup:
    here = f"{where}: matchup[{index}]"
    if not isinstance(d, dict):
        raise ExperimentError(f"{here}: expected a table ([[matchup]])")
    _check_keys(d, _MATCHUP_KEYS, here)
    name = _str(d.get("name", f"m{index}"), f"{here}.name")
    if not _NAME.match(name):
        raise ExperimentError(f"{here}.name: use lower-case letters, digits, '-' and '_', got {name!r}")
    here = f"{where}: matchup {name!r}"
    fmt = d.get("format")
    if fmt is not None and fmt not in FORMATS:
        raise ExperimentError(f"{here}.format: expected one of {list(FORMATS)}, got {fmt!r}")
    specs = d.get("specs")
    if not isinstance(specs, list) or not specs or not all(isinstance(s, str) for s in specs):
        raise ExperimentError(f"{here}.specs: expected a non-empty list of bot specs")
    players = d.get("players", 2)
    players = players if isinstance(players, list) else [players]
    if not players:
        raise ExperimentError(f"{here}.players: expected a player count from 2 to 5 or a "
                              "non-empty list of them, got []")
    players = tuple(_int(p, f"{here}.players", 2, 5) for p in players)
    deals = _int(d.get("deals", 1), f"{here}.deals", 1, 10_000_000)
    rotate = d.get("rotate", True)
    if not isinstance(rotate, bool):
        raise ExperimentError(f"{here}.rotate: expected true or false")
    grid_in = d.get("grid", {})
    if not isinstance(grid_in, dict):
        raise ExperimentError(f"{here}.grid: expected a table of key = [values]")
    grid = {}
    for key, values in grid_in.items():
        if not isinstance(values, list) or not values:
            raise ExperimentError(f"{here}.grid.{key}: expected a non-empty list of values")
        grid[key] = tuple(values)
    used = {name for spec in specs for _, name, _, _ in string.Formatter().parse(spec) if name}
    unused = sorted(set(grid) - used)
    if unused:
        raise ExperimentError(f"{here}.grid: key(s) {unused} used by no spec template "
                              f"(write {{{unused[0]}}} in a spec, or remove the key)")
    variants_in = d.get("variants", {"standard": {}})
    if not isinstance(variants_in, dict) or not variants_in:
        raise ExperimentError(f"{here}.variants: expected a table of name = {{rule options}}")
    variants = {}
    for vname, options in variants_in.items():
        if not _NAME.match(vname) or not isinstance(options, dict):
            raise ExperimentError(
                f"{here}.variants.{vname}: expected name = {{mode = ..., refill_size = ...}}")
        _check_keys(options, _VARIANT_KEYS, f"{here}.variants.{vname}")
        variants[vname] = dict(options)
    sprt = d.get("sprt")
    if sprt is not None:
        if not isinstance(sprt, list) or len(sprt) != 4 or not all(isinstance(x, (int, float)) for x in sprt):
            raise ExperimentError(f"{here}.sprt: expected [elo0, elo1, alpha, beta]")
        sprt = tuple(float(x) for x in sprt)
    return Matchup(name, fmt, tuple(specs), players, deals, rotate, grid, variants, sprt)


def parse_experiment(data: dict[str, Any], name: str, source: str = "",
                     where: str | None = None) -> Experiment:
    """An Experiment from the parsed TOML table (every key checked)."""
    where = where or name
    _check_keys(data, _TOP_KEYS, where)
    name = _str(data.get("name", name), f"{where}: name")
    if not _NAME.match(name):
        raise ExperimentError(f"{where}: name: use lower-case letters, digits, '-' and '_', got {name!r}")
    try:
        seed = check_seed(data.get("seed", 0))
    except (TypeError, ValueError) as error:
        raise ExperimentError(f"{where}: {error}") from None
    matchups = data.get("matchup")
    if not isinstance(matchups, list) or not matchups:
        raise ExperimentError(f"{where}: expected at least one [[matchup]] table")
    parsed = tuple(_matchup(m, i, where) for i, m in enumerate(matchups))
    if len({m.name for m in parsed}) != len(parsed):
        raise ExperimentError(f"{where}: matchup names must differ")
    run = data.get("run", {})
    if not isinstance(run, dict):
        raise ExperimentError(f"{where}: [run]: expected a table")
    _check_keys(run, _RUN_KEYS, f"{where}: [run]")
    if run.get("backend") == "ray":
        raise ExperimentError(f"{where}: [run].backend: the ray backend is no longer supported; "
                              "use loky (one machine) or dask (a cluster)")
    if "backend" in run and run["backend"] not in BACKENDS:
        raise ExperimentError(f"{where}: [run].backend: expected {', '.join(BACKENDS)}")
    if "jobs" in run:
        jobs = _int(run["jobs"], f"{where}: [run].jobs", -1, 10_000)
        if jobs == 0:
            raise ExperimentError(f"{where}: [run].jobs: expected a positive number of workers "
                                  "or -1 (every core), got 0")
    if "scheduler" in run and (not isinstance(run["scheduler"], str) or not run["scheduler"].strip()):
        raise ExperimentError(f"{where}: [run].scheduler: expected an address such as "
                              f"\"tcp://HOST:8786\", got {run['scheduler']!r}")
    if "batch_size" in run:
        _int(run["batch_size"], f"{where}: [run].batch_size", 1, 100_000)
    limit = run.get("move_time_limit")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, (int, float))
                              or not 0 < limit < float("inf")):
        raise ExperimentError(f"{where}: [run].move_time_limit: expected a positive number of seconds")
    if not isinstance(run.get("forfeit", False), bool):
        raise ExperimentError(f"{where}: [run].forfeit: expected true or false")
    analysis = data.get("analysis", {})
    if not isinstance(analysis, dict):
        raise ExperimentError(f"{where}: [analysis]: expected a table")
    _check_keys(analysis, _ANALYSIS_KEYS, f"{where}: [analysis]")
    report = analysis.get("report", True)
    if not isinstance(report, bool):
        raise ExperimentError(f"{where}: [analysis].report: expected true or false")
    figures = analysis.get("figures", list(FIGURES))
    if not isinstance(figures, list) or any(f not in FIGURES for f in figures):
        raise ExperimentError(f"{where}: [analysis].figures: expected a list of {list(FIGURES)}")
    experiment = Experiment(
        name=name, description=str(data.get("description", "")), question=str(data.get("question", "")),
        seed=seed, matchups=parsed, run_options=dict(run), report=report, figures=tuple(figures),
        source=source)
    experiment.runs()                                  # every run's config is valid
    if "seed" not in data:
        raise ExperimentError(f"{where}: seed: required (the root seed of every run, {SEED_RANGE}): "
                              "the same seed gives the same games")
    return experiment


def load_experiment(path: str | Path) -> Experiment:
    """Read and check an experiment config file (experiments/NAME.toml)."""
    path = Path(path)
    if path.is_dir():
        raise ExperimentError(f"{path}: a folder, not an experiment config (experiments/NAME.toml)")
    try:
        text, data = read_toml(path, "an experiment config")
    except ConfigReadError as exc:
        raise ExperimentError(str(exc)) from None
    return parse_experiment(data, _stored_name(path) or path.stem, text, where=str(path))


def _stored_name(path: Path) -> str | None:
    """The name an experiment was run under, for the config a results folder stores (always
    called experiment.toml): its manifest's, so that a resume there (verify --repair,
    reproduce) writes the README under the same title."""
    if path.name != "experiment.toml":
        return None
    try:
        name = read_json(path.parent / "manifest.json").get("experiment")
    except (OSError, ValueError, AttributeError):
        return None
    return name if isinstance(name, str) and _NAME.match(name) else None
