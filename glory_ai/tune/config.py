"""Study configs: a TOML file naming the bots, the knobs, the objectives, the search and the
validation of a balance study (docs/tuning.md). Every key is checked before any game is
played, and a mistake is one :class:`TuneError` naming the file and the key.

::

    name = "catacomb"
    question = "What brings Catacomb in line without making another building dominant?"
    seed = 20261203                 # the deals of the search
    validation_seed = 20261204      # fresh deals, never seen by the search

    [play]                          # who plays, under which fixed rules
    specs = ["ismcts:iters=100"]
    players = [2]
    mode = "republic"
    variant = {}                    # options every trial shares (the baseline's rules)

    [knobs]                         # what varies (glory_ai.tune.knobs)
    "powers_off.Catacomb" = [false, true]
    "points.Catacomb" = {low = 0, high = 6}

    [[objective]]                   # glory_ai.tune.objectives
    statistic = "building_effect:Catacomb"
    goal = "minimize"

    [[constraint]]
    statistic = "max_building_effect:Catacomb"
    max = 0.25

    [search]
    sampler = "tpe"                 # tpe, cmaes, random, ntbea
    trials = 24
    deals = [25, 50, 100]           # rungs: a trial stops after a rung if it is not promising
    reduction = 2

    [validation]
    top = 3                         # the best variants, replayed on fresh deals
    deals = 200
    reports = true                  # a balance report of the chosen variant and of the published rules

    [run]                           # scheduling, as in experiment configs
    jobs = -1
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._jsonio import ConfigReadError, read_toml
from ..arena.plan import MAX_DEALS, ArenaError, RunConfig, canonical_spec
from ..arena.runner import BACKENDS
from ..core.config import MODES, SEED_RANGE, check_seed
from .errors import TuneError
from .knobs import Knob, SearchSpace, parse_knob
from .objectives import Constraint, Objective, Skill, Statistic

__all__ = ["SAMPLERS", "TuneConfig", "load_tune_config", "parse_tune_config"]

SAMPLERS = ("tpe", "cmaes", "random", "ntbea")
_TOP = {
    "name",
    "description",
    "question",
    "seed",
    "validation_seed",
    "play",
    "knobs",
    "objective",
    "constraint",
    "skill",
    "search",
    "validation",
    "run",
}
_PLAY = {"specs", "players", "mode", "variant", "format"}
_SEARCH = {"sampler", "trials", "deals", "reduction", "combine"}
_VALIDATION = {"top", "deals", "reports"}
_RUN = {"backend", "jobs", "batch_size", "scheduler"}
_SKILL = {"specs", "target", "first_player"}
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*$")


@dataclass(frozen=True)
class TuneConfig:
    """A parsed, checked study config."""

    name: str
    description: str
    question: str
    seed: int
    validation_seed: int
    specs: tuple[str, ...]
    players: tuple[int, ...]
    mode: str
    base_variant: dict[str, Any]
    format: str | None
    space: SearchSpace
    objectives: tuple[Objective, ...]
    constraints: tuple[Constraint, ...]
    skill: Skill | None
    sampler: str
    trials: int
    rungs: tuple[int, ...]
    reduction: int
    combine: str
    top: int
    validation_deals: int
    reports: bool = True
    run_options: dict[str, Any] = field(default_factory=dict)
    source: str = ""

    @property
    def knobs(self) -> tuple[Knob, ...]:
        return self.space.knobs

    @property
    def multi(self) -> bool:
        """Several objectives kept apart (a Pareto front) rather than weighted into one."""
        return self.combine == "pareto" and len(self.objectives) > 1

    def statistics(self) -> list[Statistic]:
        """Every statistic the study computes: the objectives' and the constraints'."""
        seen: dict[str, Statistic] = {}
        items: list[Objective | Constraint] = [*self.objectives, *self.constraints]
        for item in items:
            seen.setdefault(item.statistic.name, item.statistic)
        return list(seen.values())

    def run_config(self, variant: Mapping[str, Any], players: int, deals: int, seed: int) -> RunConfig:
        """The arena run of one rule set at one player count."""
        return RunConfig(
            specs=self.specs,
            players=players,
            deals=deals,
            mode=self.mode,
            variant=dict(variant),
            seed=seed,
            format=self.format,
        )


def _where(where: str, key: str) -> str:
    return f"{where}: {key}"


def _table(data: Mapping[str, Any], key: str, keys: set[str], where: str) -> dict[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise TuneError(f"{where}: [{key}]: expected a table")
    unknown = sorted(set(value) - keys)
    if unknown:
        raise TuneError(f"{where}: [{key}]: unknown key(s) {unknown}; known: {sorted(keys)}")
    return value


def _int(value: Any, where: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise TuneError(f"{where}: expected an integer from {low:,} to {high:,}, got {value!r}")
    return value


def _seed(data: Mapping[str, Any], key: str, where: str) -> int:
    if key not in data:
        raise TuneError(
            f"{where}: {key}: required (the root seed of the {'validation ' if 'valid' in key else ''}"
            f"deals, {SEED_RANGE}): the same seed gives the same games"
        )
    try:
        return check_seed(data[key])
    except (TypeError, ValueError) as error:
        raise TuneError(f"{where}: {key}: {error}") from None


def _play(
    data: Mapping[str, Any], where: str
) -> tuple[tuple[str, ...], tuple[int, ...], str, dict[str, Any], str | None]:
    play = _table(data, "play", _PLAY, where)
    specs = play.get("specs")
    if not isinstance(specs, list) or not specs or not all(isinstance(s, str) for s in specs):
        raise TuneError(f"{where}: [play].specs: expected a non-empty list of bot specs")
    players = play.get("players", [2])
    players = players if isinstance(players, list) else [players]
    if not players:
        raise TuneError(f"{where}: [play].players: expected a player count from 2 to 5 or a list of them")
    counts = tuple(_int(p, f"{where}: [play].players", 2, 5) for p in players)
    if len(set(counts)) != len(counts):
        raise TuneError(f"{where}: [play].players: a player count is listed twice")
    mode = play.get("mode", "republic")
    if mode not in MODES:
        raise TuneError(f"{where}: [play].mode: expected one of {', '.join(MODES)}, got {mode!r}")
    variant = play.get("variant", {})
    if not isinstance(variant, dict):
        raise TuneError(f"{where}: [play].variant: expected a table of rule options")
    fmt = play.get("format")
    if fmt is not None and not isinstance(fmt, str):
        raise TuneError(f"{where}: [play].format: expected a format name")
    return tuple(specs), counts, mode, dict(variant), fmt


def _rungs(search: Mapping[str, Any], where: str) -> tuple[int, ...]:
    deals = search.get("deals", [100])
    deals = deals if isinstance(deals, list) else [deals]
    if not deals:
        raise TuneError(f"{where}: [search].deals: expected deals per trial, or a rising list of rungs")
    rungs = tuple(_int(d, f"{where}: [search].deals", 1, MAX_DEALS) for d in deals)
    if any(b <= a for a, b in zip(rungs, rungs[1:], strict=False)):
        raise TuneError(f"{where}: [search].deals: the rungs must rise, got {list(rungs)}")
    return rungs


def _skill(data: Mapping[str, Any], where: str) -> Skill | None:
    if "skill" not in data:
        return None
    table = _table(data, "skill", _SKILL, where)
    specs = table.get("specs")
    if not isinstance(specs, list) or len(specs) < 2 or not all(isinstance(s, str) for s in specs):
        raise TuneError(f"{where}: [skill].specs: expected the graded bots, strongest first (at least 2)")
    target = table.get("target")
    k = len(specs)
    if (
        not isinstance(target, list)
        or len(target) != k
        or not all(isinstance(row, list) and len(row) == k for row in target)
    ):
        raise TuneError(f"{where}: [skill].target: expected a {k} x {k} matrix (a list of {k} rows)")
    rows = []
    for i, row in enumerate(target):
        values = []
        for j, value in enumerate(row):
            if i == j:
                values.append(float("nan"))
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
                raise TuneError(
                    f"{where}: [skill].target[{i}][{j}]: expected a win share from 0 to 1, got {value!r}"
                )
            values.append(float(value))
        rows.append(tuple(values))
    for i in range(k):
        for j in range(i + 1, k):
            if abs(rows[i][j] + rows[j][i] - 1.0) > 1e-9:
                raise TuneError(
                    f"{where}: [skill].target: [{i}][{j}] and [{j}][{i}] must add up to 1 "
                    f"(got {rows[i][j]:g} and {rows[j][i]:g})"
                )
    try:
        specs = [canonical_spec(s) for s in specs]  # as the games record them
    except ValueError as error:
        raise TuneError(f"{where}: [skill].specs: {error}") from None
    first = table.get("first_player")
    if first is not None and (
        isinstance(first, bool) or not isinstance(first, (int, float)) or not 0 <= first <= 1
    ):
        raise TuneError(f"{where}: [skill].first_player: expected a win share from 0 to 1, got {first!r}")
    return Skill(tuple(specs), tuple(rows), None if first is None else float(first))


def _run(data: Mapping[str, Any], where: str) -> dict[str, Any]:
    run = _table(data, "run", _RUN, where)
    if "backend" in run and run["backend"] not in BACKENDS:
        raise TuneError(f"{where}: [run].backend: expected {', '.join(BACKENDS)}")
    if "jobs" in run:
        jobs = _int(run["jobs"], f"{where}: [run].jobs", -1, 10_000)
        if jobs == 0:
            raise TuneError(f"{where}: [run].jobs: expected a positive number of workers or -1 (every core)")
    if "batch_size" in run:
        _int(run["batch_size"], f"{where}: [run].batch_size", 1, 100_000)
    if "scheduler" in run and (not isinstance(run["scheduler"], str) or not run["scheduler"].strip()):
        raise TuneError(f'{where}: [run].scheduler: expected an address such as "tcp://HOST:8786"')
    return dict(run)


def _check_in_deck(
    objectives: tuple[Objective, ...], constraints: tuple[Constraint, ...], space: SearchSpace, where: str
) -> None:
    """A statistic of a building the games would never hold is refused before any game."""
    from ..cards import CARD_NAMES
    from ..core.config import GameConfig

    copies = dict(
        zip(
            CARD_NAMES,
            GameConfig.from_options(space.players[0], space.mode, **space.base_variant).deck_copies(),
            strict=True,
        )
    )
    varied = {k.building for k in space.knobs if k.option in ("copies", "removed")}
    items: list[Objective | Constraint] = [*objectives, *constraints]
    for item in items:
        building = (
            item.statistic.argument if item.statistic.kind in ("building_effect", "dealt_effect") else None
        )
        if building is not None and not copies[building] and building not in varied:
            raise TuneError(
                f"{where}: statistic {item.statistic.name!r}: {building} is not in the deck of "
                f"{space.mode} games under these rules, so no game measures it"
            )


def parse_tune_config(
    data: Mapping[str, Any], name: str, source: str = "", where: str | None = None
) -> TuneConfig:
    """A TuneConfig from the parsed TOML table (every key checked, every knob value tried on
    the engine, every bot spec read)."""
    where = where or name
    unknown = sorted(set(data) - _TOP)
    if unknown:
        raise TuneError(f"{where}: unknown key(s) {unknown}; known: {sorted(_TOP)}")
    name = data.get("name", name)
    if not isinstance(name, str) or not _NAME.match(name):
        raise TuneError(f"{where}: name: use lower-case letters, digits, '-' and '_', got {name!r}")
    seed = _seed(data, "seed", where)
    validation_seed = _seed(data, "validation_seed", where)
    if validation_seed == seed:
        raise TuneError(
            f"{where}: validation_seed: must differ from seed (validation plays deals the search never saw)"
        )
    specs, players, mode, variant, fmt = _play(data, where)
    knobs_in = data.get("knobs")
    if not isinstance(knobs_in, dict) or not knobs_in:
        raise TuneError(
            f'{where}: [knobs]: expected at least one knob (e.g. "points.Catacomb" = {{low = 0, high = 5}})'
        )
    knobs = [parse_knob(k, v) for k, v in knobs_in.items()]
    space = SearchSpace(knobs, mode, players, variant)
    skill = _skill(data, where)
    objectives_in = data.get("objective")
    if not isinstance(objectives_in, list) or not objectives_in:
        raise TuneError(f"{where}: expected at least one [[objective]] table")
    objectives = tuple(
        Objective.parse(t, f"{where}: objective[{i}]", skill) for i, t in enumerate(objectives_in)
    )
    constraints_in = data.get("constraint", [])
    if not isinstance(constraints_in, list):
        raise TuneError(f"{where}: constraint: expected [[constraint]] tables")
    constraints = tuple(
        Constraint.parse(t, f"{where}: constraint[{i}]", skill) for i, t in enumerate(constraints_in)
    )
    _check_in_deck(objectives, constraints, space, where)
    search = _table(data, "search", _SEARCH, where)
    sampler = search.get("sampler", "tpe")
    if sampler not in SAMPLERS:
        raise TuneError(f"{where}: [search].sampler: expected one of {', '.join(SAMPLERS)}, got {sampler!r}")
    trials = _int(search.get("trials", 20), f"{where}: [search].trials", 1, 100_000)
    rungs = _rungs(search, where)
    reduction = _int(search.get("reduction", 2), f"{where}: [search].reduction", 2, 16)
    combine = search.get("combine", "weighted")
    if combine not in ("weighted", "pareto"):
        raise TuneError(f"{where}: [search].combine: expected weighted or pareto, got {combine!r}")
    if combine == "pareto" and sampler == "cmaes":
        raise TuneError(
            f"{where}: [search].sampler: cmaes optimizes one objective; use tpe, random "
            "or ntbea for a Pareto front"
        )
    validation = _table(data, "validation", _VALIDATION, where)
    top = _int(validation.get("top", 3), f"{where}: [validation].top", 1, 50)
    validation_deals = _int(validation.get("deals", 200), f"{where}: [validation].deals", 2, MAX_DEALS)
    reports = validation.get("reports", True)
    if not isinstance(reports, bool):
        raise TuneError(f"{where}: [validation].reports: expected true or false")
    config = TuneConfig(
        name=name,
        description=str(data.get("description", "")),
        question=str(data.get("question", "")),
        seed=seed,
        validation_seed=validation_seed,
        specs=specs,
        players=players,
        mode=mode,
        base_variant=variant,
        format=fmt,
        space=space,
        objectives=objectives,
        constraints=constraints,
        skill=skill,
        sampler=sampler,
        trials=trials,
        rungs=rungs,
        reduction=reduction,
        combine=combine,
        top=top,
        validation_deals=validation_deals,
        reports=reports,
        run_options=_run(data, where),
        source=source,
    )
    for count in players:  # the specs and the format, as the arena reads them
        try:
            config.run_config(variant, count, rungs[-1], seed)
        except ArenaError as error:
            raise TuneError(f"{where}: [play]: {error}") from None
    if skill is not None:
        missing = sorted(set(skill.specs) - set(config.run_config(variant, players[0], 1, seed).specs))
        if missing:
            raise TuneError(f"{where}: [skill].specs: {missing} not among [play].specs")
    return config


def load_tune_config(path: str | Path) -> TuneConfig:
    """Read and check a study config file (experiments/NAME.toml)."""
    path = Path(path)
    if path.is_dir():
        raise TuneError(f"{path}: not a file")
    try:
        text, data = read_toml(path, "a study config", 1 << 20)
    except ConfigReadError as exc:
        raise TuneError(str(exc)) from None
    return parse_tune_config(data, path.stem, text, where=str(path))
