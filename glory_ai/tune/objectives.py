"""What a designer asks for: statistics of a rule set's games, goals on them, constraints.

A **statistic** is a number computed from the games of one rule set by the statistics layer
(:mod:`glory_ai.analysis.stats.balance`), for the games as played and for every bootstrap
draw of the deals at once:

=============================  ========================================================
``seat_parity``                largest distance of a seat's win share from 1/k
``building_effect:NAME``       completion effect of a building on the win share (points
                               as fractions, Mantel-Haenszel over spec x count x seat)
``max_building_effect``        the largest completion effect over the buildings completed
                               (and not) at least 30 times; ``:NAME,...`` leaves some out
``dealt_effect:NAME``          the effect of holding the building in the opening hand: the
                               deal assigns it at random, so this one is interventional
``turns`` / ``decisions``      mean game length
``end_share:REASON``           share of games ending by catacomb, deck, sites, forum, ...
``strategy_spread``            spread of the specs' win rates (relative to the fair share)
``skill_error``                mean distance of the graded bots' matchup matrix from the
                               target matrix ([skill] table)
``first_player_error``         distance of the first player's share from its target
``competition_score``          the balancing competition's score of the two terms above
                               (1000 at the targets; docs/tuning.md says how it is read)
``table:FUNCTION:COLUMN[:ROW]`` a column of any table of glory_ai.analysis.stats (by
                               resampling whole frames: slower, fewer draws)
=============================  ========================================================

An **objective** is a statistic and a goal: ``minimize``, ``maximize``, a ``target`` value
(minimize the distance to it) or a ``range`` (minimize the distance outside it); every
objective's *loss* is lower-is-better. A **constraint** bounds a statistic (``max``,
``min``): a variant outside is refused, not weighted.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..analysis import AnalysisError
from ..analysis.stats import balance
from ..cards import CARD_NAMES
from .errors import TooFewGames, TuneError

__all__ = ["Constraint", "Objective", "Skill", "Statistic", "parse_statistic"]

_BUILDINGS = {name.lower(): name for name in CARD_NAMES[1:]}
_END_REASONS = ("sites", "deck", "catacomb", "forum", "concession")
_GOALS = ("minimize", "maximize", "target", "range")


class _TooFew(AnalysisError):
    """Undefined for want of games (TooFewGames once it leaves the statistic)."""


@dataclass(frozen=True)
class Skill:
    """The graded bots of a skill-ordering study (strongest first), the target matchup
    matrix ([i][j]: the win share i should have against j) and the first player's target
    share (None: not scored)."""

    specs: tuple[str, ...]
    target: tuple[tuple[float, ...], ...]
    first_player: float | None = None


@dataclass(frozen=True)
class Statistic:
    """A named statistic of a rule set's games (see the module docstring)."""

    name: str
    kind: str
    argument: str | None = None
    extra: tuple[str, ...] = ()
    #: computes draws x 1 values from (frame, weights, unit)
    compute: Callable[[pd.DataFrame, np.ndarray, np.ndarray], np.ndarray] = field(
        repr=False, compare=False, default=None
    )  # type: ignore
    #: the statistic is in win-rate points (shown as +12.3 points)
    points: bool = False

    def __call__(self, frame: pd.DataFrame, weights: np.ndarray, unit: np.ndarray) -> np.ndarray:
        try:
            return np.asarray(self.compute(frame, weights, unit), dtype=float)
        except _TooFew as error:
            raise TooFewGames(f"statistic {self.name!r}: {error}") from None
        except AnalysisError as error:
            raise TuneError(f"statistic {self.name!r}: {error}") from None

    def show(self, value: float) -> str:
        """The value as the README prints it."""
        if not math.isfinite(value):
            return "n/a"
        if self.points:
            return f"{100 * value:+.1f} points"
        if self.kind in ("end_share",):
            return f"{100 * value:.1f}%"
        return f"{value:.3g}" if abs(value) < 10 else f"{value:.1f}"


def _building(name: str, where: str) -> str:
    found = _BUILDINGS.get(name.strip().lower())
    if found is None:
        raise TuneError(f"{where}: {name!r} is not a building (the names of cards.csv, e.g. Catacomb)")
    return found


def parse_statistic(text: str, where: str, skill: Skill | None = None) -> Statistic:
    """A statistic from its name in a config (``building_effect:Catacomb``)."""
    if not isinstance(text, str) or not text.strip():
        raise TuneError(f"{where}: expected the name of a statistic, got {text!r}")
    kind, _, argument = text.strip().partition(":")
    kind = kind.strip().lower()
    if kind == "seat_parity":
        return Statistic(text, kind, compute=balance.seat_parity, points=True)
    if kind in ("building_effect", "dealt_effect"):
        if not argument:
            raise TuneError(f"{where}: {kind} names a building ({kind}:Catacomb)")
        name = _building(argument, where)
        prefix = "completed:" if kind == "building_effect" else "dealt:"
        column = prefix + name

        def effect(frame: pd.DataFrame, weights: np.ndarray, unit: np.ndarray) -> np.ndarray:
            if column not in frame.columns:
                raise AnalysisError(f"{name} is not in the deck of these games")
            return balance.building_effects(frame, weights, unit, [column])[:, 0]

        return Statistic(f"{kind}:{name}", kind, name, compute=effect, points=True)
    if kind == "max_building_effect":
        left_out = tuple(_building(n, where) for n in argument.split(",") if n.strip()) if argument else ()

        def largest(frame: pd.DataFrame, weights: np.ndarray, unit: np.ndarray) -> np.ndarray:
            columns = [
                c
                for c in frame.columns
                if c.startswith("completed:") and c[len("completed:") :] not in left_out
            ]
            columns = balance.eligible(frame, columns)
            if not columns:
                raise _TooFew("no building was completed often enough to compare")
            return np.nanmax(balance.building_effects(frame, weights, unit, columns), axis=1)

        name = "max_building_effect" + (":" + ",".join(left_out) if left_out else "")
        return Statistic(name, kind, None, left_out, compute=largest, points=True)
    if kind in ("turns", "decisions"):
        return Statistic(kind, kind, compute=lambda f, w, u: balance.mean_per_game(f, w, u, kind))
    if kind == "end_share":
        reason = argument.strip().lower()
        if reason not in _END_REASONS:
            raise TuneError(f"{where}: end_share takes one of {', '.join(_END_REASONS)}, got {argument!r}")
        return Statistic(
            f"end_share:{reason}", kind, reason, compute=lambda f, w, u: balance.end_share(f, w, u, reason)
        )
    if kind == "strategy_spread":
        return Statistic(kind, kind, compute=lambda f, w, u: balance.spec_spread(f, w, u))
    if kind in ("skill_error", "first_player_error", "competition_score"):
        if skill is None:
            raise TuneError(f"{where}: {kind} needs a [skill] table (the graded specs and the target matrix)")
        if kind == "first_player_error" and skill.first_player is None:
            raise TuneError(f"{where}: first_player_error needs [skill].first_player (the target share)")
        return Statistic(kind, kind, compute=_skill_statistic(kind, skill))
    if kind == "table":
        return _table_statistic(text, argument, where)
    known = (
        "seat_parity, building_effect:NAME, max_building_effect, dealt_effect:NAME, turns, decisions, "
        "end_share:REASON, strategy_spread, skill_error, first_player_error, competition_score, "
        "table:FUNCTION:COLUMN[:ROW]"
    )
    raise TuneError(f"{where}: unknown statistic {text!r}; known: {known}")


def competition_score(matrix_error: np.ndarray, first_error: np.ndarray) -> np.ndarray:
    """1000 at the targets, down by the mean of the two distances (the matrix's mean absolute
    error and the first player's; the matrix alone where no first-player target is set)."""
    both = np.where(np.isfinite(first_error), (matrix_error + first_error) / 2.0, matrix_error)
    return 1000.0 * (1.0 - both)


def _skill_statistic(kind: str, skill: Skill) -> Callable[[pd.DataFrame, np.ndarray, np.ndarray], np.ndarray]:
    def compute(frame: pd.DataFrame, weights: np.ndarray, unit: np.ndarray) -> np.ndarray:
        matrix, first = balance.skill_error(
            frame, weights, unit, skill.specs, skill.target, skill.first_player
        )
        if kind == "skill_error":
            return matrix
        if kind == "first_player_error":
            return first
        return competition_score(matrix, first)

    return compute


#: the tables a ``table:`` statistic may read (functions of glory_ai.analysis.stats taking a frame)
TABLES = (
    "win_rates",
    "seat_advantage",
    "game_length",
    "end_conditions",
    "vp_breakdown",
    "roles_led",
    "building_strength",
)
#: draws of a ``table:`` statistic (each recomputes a whole table)
TABLE_DRAWS = 100


def _table_statistic(text: str, argument: str, where: str) -> Statistic:
    from ..analysis import stats

    function, _, rest = argument.partition(":")
    column, _, row = rest.partition(":")
    if function not in TABLES:
        raise TuneError(f"{where}: table:{function}: the tables are {', '.join(TABLES)}")
    if not column:
        raise TuneError(f"{where}: {text!r}: name a column (table:{function}:COLUMN[:ROW])")
    table_of = getattr(stats, function)

    def value_of(frame: pd.DataFrame) -> float:
        table = table_of(frame)
        if column not in table.columns:
            raise AnalysisError(
                f"table {function} has no column {column!r}; its columns: "
                f"{', '.join(map(str, table.columns))}"
            )
        series = table[column]
        if row:
            matches = [i for i in series.index if str(i if not isinstance(i, tuple) else i[-1]) == row]
            if not matches:
                raise AnalysisError(f"table {function} has no row {row!r}")
            return float(series.loc[matches[0]])
        if len(series) != 1:
            raise AnalysisError(f"table {function} has {len(series)} rows: name one (:ROW)")
        return float(series.iloc[0])

    def compute(frame: pd.DataFrame, weights: np.ndarray, unit: np.ndarray) -> np.ndarray:
        out = np.full(weights.shape[0], np.nan)
        out[0] = value_of(frame)
        for draw in range(1, min(weights.shape[0], TABLE_DRAWS + 1)):
            rows = np.repeat(np.arange(len(frame)), weights[draw, unit].astype(np.int64))
            resampled = frame.iloc[rows].copy()
            # each copy of a deal is a deal of its own (a new game number)
            copy = np.concatenate([np.arange(int(n)) for n in weights[draw, unit]])
            resampled["game"] = resampled["game"].to_numpy() * 1000 + copy
            resampled["deal"] = resampled["deal"].to_numpy() * 1000 + copy
            try:
                out[draw] = value_of(resampled)
            except (AnalysisError, ValueError, KeyError):
                out[draw] = np.nan
        return out

    return Statistic(text, "table", argument, compute=compute)


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise TuneError(f"{where}: expected a number, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class Objective:
    """A statistic and what to do with it: its loss is lower-is-better."""

    statistic: Statistic
    goal: str
    target: float | None = None
    low: float | None = None
    high: float | None = None
    weight: float = 1.0

    def loss(self, values: np.ndarray) -> np.ndarray:
        if self.goal == "minimize":
            return values
        if self.goal == "maximize":
            return -values
        if self.goal == "target":
            return np.abs(values - self.target)
        assert self.low is not None and self.high is not None
        return np.maximum(0.0, np.maximum(self.low - values, values - self.high))

    def describe(self) -> str:
        name = self.statistic.name
        if self.goal in ("minimize", "maximize"):
            return f"{self.goal} {name}"
        if self.goal == "target":
            return f"{name} near {self.target:g}"
        return f"{name} within [{self.low:g}, {self.high:g}]"

    @classmethod
    def parse(cls, table: Mapping[str, Any], where: str, skill: Skill | None) -> Objective:
        _known(table, {"statistic", "goal", "target", "range", "weight"}, where)
        statistic = parse_statistic(table.get("statistic", ""), f"{where}.statistic", skill)
        goal = table.get("goal", "minimize")
        if goal not in _GOALS:
            raise TuneError(f"{where}.goal: expected one of {', '.join(_GOALS)}, got {goal!r}")
        weight = _number(table.get("weight", 1.0), f"{where}.weight")
        if weight <= 0:
            raise TuneError(f"{where}.weight: expected a positive number, got {weight:g}")
        if goal == "target":
            if "target" not in table:
                raise TuneError(f'{where}: goal = "target" needs target = VALUE')
            return cls(statistic, goal, target=_number(table["target"], f"{where}.target"), weight=weight)
        if goal == "range":
            bounds = table.get("range")
            if not isinstance(bounds, list) or len(bounds) != 2:
                raise TuneError(f'{where}: goal = "range" needs range = [LOW, HIGH]')
            low, high = (_number(b, f"{where}.range") for b in bounds)
            if low > high:
                raise TuneError(f"{where}.range: LOW must not exceed HIGH, got [{low:g}, {high:g}]")
            return cls(statistic, goal, low=low, high=high, weight=weight)
        extra = sorted(set(table) & {"target", "range"})
        if extra:
            raise TuneError(f'{where}: {extra[0]} goes with goal = "{extra[0]}", not {goal!r}')
        return cls(statistic, goal, weight=weight)


@dataclass(frozen=True)
class Constraint:
    """A bound on a statistic: a variant whose value falls outside is refused."""

    statistic: Statistic
    low: float | None = None
    high: float | None = None

    def violation(self, values: np.ndarray) -> np.ndarray:
        """How far outside the bounds (<= 0: held), optuna's convention."""
        out = np.full(values.shape, -np.inf)
        if self.high is not None:
            out = np.maximum(out, values - self.high)
        if self.low is not None:
            out = np.maximum(out, self.low - values)
        return out

    def describe(self) -> str:
        name = self.statistic.name
        if self.low is not None and self.high is not None:
            return f"{name} between {self.low:g} and {self.high:g}"
        return f"{name} at most {self.high:g}" if self.high is not None else f"{name} at least {self.low:g}"

    @classmethod
    def parse(cls, table: Mapping[str, Any], where: str, skill: Skill | None) -> Constraint:
        _known(table, {"statistic", "min", "max"}, where)
        statistic = parse_statistic(table.get("statistic", ""), f"{where}.statistic", skill)
        low = _number(table["min"], f"{where}.min") if "min" in table else None
        high = _number(table["max"], f"{where}.max") if "max" in table else None
        if low is None and high is None:
            raise TuneError(f"{where}: a constraint needs min, max or both")
        if low is not None and high is not None and low > high:
            raise TuneError(f"{where}: min ({low:g}) exceeds max ({high:g})")
        return cls(statistic, low, high)


def _known(table: Any, keys: set[str], where: str) -> None:
    if not isinstance(table, Mapping):
        raise TuneError(f"{where}: expected a table")
    unknown = sorted(set(table) - keys)
    if unknown:
        raise TuneError(f"{where}: unknown key(s) {unknown}; known: {sorted(keys)}")


def evaluate(
    statistics: Sequence[Statistic], frame: pd.DataFrame, weights: np.ndarray, unit: np.ndarray
) -> dict[str, np.ndarray]:
    """Every statistic's draws, by name (each computed once)."""
    out: dict[str, np.ndarray] = {}
    for statistic in statistics:
        if statistic.name not in out:
            out[statistic.name] = statistic(frame, weights, unit)
    return out
