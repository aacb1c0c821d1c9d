"""The N-tuple bandit evolutionary search (NTBEA; Lucas, Liu and Perez-Liebana 2018), the
optimizer the TAG framework tunes game parameters with, as an optuna sampler, so that it and
optuna's own samplers run the same study on the same budget (docs/tuning.md).

It keeps, for every knob value (the 1-tuples), every pair of knob values (2-tuples) and the
whole setting (the N-tuple), the mean fitness of the trials that had it and their count. A
new trial is the best of a few neighbours of the current point (each knob mutated with some
probability, at least one), scored by the mean over its tuples of the tuple's mean fitness
plus an exploration bonus ``k * sqrt(log(trials + 1) / (count + eps))``; the current point
then moves to the trial played. Fitness is minus the study's loss (the sampler minimizes,
as every sampler of a study here). A pruned trial counts with its last reported value.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import optuna
from optuna.distributions import BaseDistribution, CategoricalDistribution, IntDistribution
from optuna.trial import FrozenTrial, TrialState

__all__ = ["NTBEASampler"]


def _choices(distribution: BaseDistribution) -> list[Any]:
    if isinstance(distribution, CategoricalDistribution):
        return list(distribution.choices)
    if isinstance(distribution, IntDistribution):
        return list(range(distribution.low, distribution.high + 1, distribution.step))
    raise ValueError("NTBEA searches knobs of listed values or integer ranges")


def _fitness(trial: FrozenTrial) -> float | None:
    if trial.state == TrialState.COMPLETE and trial.values:
        return -float(trial.values[0])
    if trial.state == TrialState.PRUNED and trial.intermediate_values:
        return -float(trial.intermediate_values[max(trial.intermediate_values)])
    return None


class NTBEASampler(optuna.samplers.BaseSampler):
    """NTBEA over discrete knobs. ``exploration``: the bonus's k; ``neighbours``: candidates
    scored per trial; ``mutation``: the probability of mutating each knob; ``startup``:
    random trials before the bandit takes over."""

    def __init__(
        self,
        seed: int = 0,
        exploration: float = 1.0,
        neighbours: int = 50,
        mutation: float | None = None,
        startup: int = 2,
    ) -> None:
        self._rng = np.random.default_rng(seed)
        self.exploration = exploration
        self.neighbours = neighbours
        self.mutation = mutation
        self.startup = startup

    def infer_relative_search_space(
        self, study: optuna.Study, trial: FrozenTrial
    ) -> dict[str, BaseDistribution]:
        return optuna.search_space.intersection_search_space(study.get_trials(deepcopy=False))

    def sample_relative(
        self, study: optuna.Study, trial: FrozenTrial, search_space: dict[str, BaseDistribution]
    ) -> dict[str, Any]:
        if not search_space:
            return {}
        names = sorted(search_space)
        values = [_choices(search_space[n]) for n in names]
        history = [
            (t, f)
            for t in study.get_trials(deepcopy=False)
            if (f := _fitness(t)) is not None and all(n in t.params for n in names)
        ]
        if len(history) < self.startup:
            return {n: v[self._rng.integers(len(v))] for n, v in zip(names, values, strict=True)}
        points = [tuple(v.index(t.params[n]) for n, v in zip(names, values, strict=True)) for t, _ in history]
        stats = self._tuple_stats(points, [f for _, f in history], len(names))
        current = points[-1]
        best, best_score = current, -math.inf
        for candidate in self._neighbourhood(current, [len(v) for v in values]):
            score = self._score(candidate, stats, len(history))
            if score > best_score:
                best, best_score = candidate, score
        return {n: v[i] for n, v, i in zip(names, values, best, strict=True)}

    @staticmethod
    def _tuple_keys(point: Sequence[int]) -> list[tuple[Any, ...]]:
        n = len(point)
        keys: list[tuple[Any, ...]] = [((i,), (point[i],)) for i in range(n)]
        if n > 2:
            keys += [((i, j), (point[i], point[j])) for i, j in itertools.combinations(range(n), 2)]
        keys.append((tuple(range(n)), tuple(point)))
        return keys

    def _tuple_stats(
        self, points: list[tuple[int, ...]], fitness: list[float], n: int
    ) -> dict[Any, list[float]]:
        stats: dict[Any, list[float]] = {}
        for point, f in zip(points, fitness, strict=True):
            for key in self._tuple_keys(point):
                entry = stats.setdefault(key, [0.0, 0.0])
                entry[0] += f
                entry[1] += 1.0
        return stats

    def _score(self, point: tuple[int, ...], stats: dict[Any, list[float]], total: int) -> float:
        scores = []
        for key in self._tuple_keys(point):
            total_f, count = stats.get(key, (0.0, 0.0))
            mean = total_f / count if count else 0.0
            bonus = self.exploration * math.sqrt(math.log(total + 1.0) / (count + 1e-6))
            scores.append(mean + bonus)
        return float(np.mean(scores))

    def _neighbourhood(self, point: tuple[int, ...], sizes: list[int]) -> list[tuple[int, ...]]:
        n = len(point)
        rate = self.mutation if self.mutation is not None else 1.0 / n
        movable = [i for i in range(n) if sizes[i] > 1]
        if not movable:
            return [point]
        out = []
        for _ in range(self.neighbours):
            new = list(point)
            flips = [i for i in movable if self._rng.random() < rate] or [int(self._rng.choice(movable))]
            for i in flips:
                other = int(self._rng.integers(sizes[i] - 1))
                new[i] = other if other < point[i] else other + 1
            out.append(tuple(new))
        return out

    def sample_independent(
        self, study: optuna.Study, trial: FrozenTrial, param_name: str, param_distribution: BaseDistribution
    ) -> Any:
        choices = _choices(param_distribution)
        return choices[self._rng.integers(len(choices))]
