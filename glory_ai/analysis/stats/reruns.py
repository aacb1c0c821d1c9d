"""The test of a re-run: does a re-played run have the same win probability as the stored
one? Welch's test on per-deal scores, Holm across the specs (docs/statistics.md).

=====================================  ==========================================================
:func:`deal_means`, :func:`deal_scores` per-deal means of a column / of a spec's win share
:func:`rerun_test`, :func:`rerun_tests` the two-sample test of "same win probability" for a
                                       re-run, one spec / every spec with Holm's correction
:func:`rerun_test_pentanomial`         the same from two head-to-head runs' pentanomial counts
=====================================  ==========================================================
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .. import AnalysisError
from .frames import need_columns, unit_keys
from .intervals import holm, welch_test
from .pentanomial import PAIR_SCORES, Pentanomial

__all__ = [
    "MODEL_RERUN", "RERUN_ALPHA", "RerunTest", "deal_means", "deal_scores", "rerun_test",
    "rerun_test_pentanomial", "rerun_tests",
]

#: false-alarm rate of :func:`rerun_test` (a correct re-run is flagged this often)
RERUN_ALPHA = 0.01
MODEL_RERUN = "Welch t-test on per-deal scores"


def deal_means(frame: pd.DataFrame, value: str) -> np.ndarray:
    """The mean of the column ``value`` over the rows of each deal (run and deal) in the
    frame, in deal order: the independent units that the tests between conditions compare."""
    need_columns(frame, ["deal", value], "deal_means")
    unit = unit_keys(frame, ["run", "deal"])
    return np.bincount(unit, weights=frame[value].to_numpy(float)) / np.bincount(unit)


def deal_scores(frame: pd.DataFrame, spec: str) -> np.ndarray:
    """``spec``'s mean win share in each deal (run and deal) it played: the per-deal values
    :func:`rerun_test` compares (in a 2-player match, A's pair score / 2)."""
    need_columns(frame, ["spec", "deal", "win_share"], "deal_scores")
    mine = frame[frame["spec"].astype(str) == spec]
    if mine.empty:
        raise AnalysisError(f"deal_scores: no games of {spec!r}")
    return deal_means(mine, "win_share")


@dataclass(frozen=True)
class RerunTest:
    """The test of "the re-run has the same win probability as the stored run": the
    p-value, whether it is below ``alpha`` (the rate at which a correct re-run is flagged),
    both means and the deals behind them."""

    p_value: float
    statistic: float
    differs: bool
    alpha: float
    old_mean: float
    new_mean: float
    old_deals: int
    new_deals: int
    model: str = MODEL_RERUN


def rerun_test(old: Any, new: Any, alpha: float = RERUN_ALPHA) -> RerunTest:
    """Welch's two-sample t-test (:func:`welch_test`) on per-deal scores
    (:func:`deal_scores`), deals being independent where games are not. Flags a difference
    at p < ``alpha``.

    >>> t = rerun_test([1, 0.5, 0.5, 1, 0] * 20, [0.5, 1, 0, 0.5, 1] * 20)
    >>> round(t.p_value, 3), t.differs
    (1.0, False)
    """
    if not 0.0 < alpha < 1.0:
        raise AnalysisError(f"alpha must be in (0, 1), got {alpha!r}")
    x = np.asarray(old, dtype=float).ravel()
    y = np.asarray(new, dtype=float).ravel()
    if len(x) < 2 or len(y) < 2:
        raise AnalysisError(f"rerun_test needs at least two deals on each side, got {len(x)} "
                            f"and {len(y)}")
    statistic, p = welch_test(x, y)
    return RerunTest(p, statistic, p < alpha, alpha, float(x.mean()), float(y.mean()),
                     len(x), len(y))


def rerun_test_pentanomial(old: Pentanomial | Sequence[int], new: Pentanomial | Sequence[int],
                           alpha: float = RERUN_ALPHA) -> RerunTest:
    """:func:`rerun_test` of two head-to-head runs given by their pentanomial counts.

    >>> rerun_test_pentanomial([5, 20, 50, 20, 5], [1, 10, 40, 30, 19]).differs
    True
    """
    def values(c: Pentanomial | Sequence[int]) -> np.ndarray:
        counts = np.asarray(c.counts if isinstance(c, Pentanomial) else c, dtype=np.int64)
        if counts.shape != (5,) or (counts < 0).any():
            raise AnalysisError(f"rerun_test_pentanomial needs five non-negative counts, got {c!r}")
        return np.repeat(PAIR_SCORES, counts)
    return rerun_test(values(old), values(new), alpha)


def rerun_tests(old: Mapping[str, Any], new: Mapping[str, Any], alpha: float = RERUN_ALPHA
                ) -> pd.DataFrame:
    """:func:`rerun_test` of every spec given (``old`` and ``new`` map a spec to its
    per-deal scores in the stored run and in the re-run), Holm-adjusted across the specs
    (:func:`holm`): a spec ``differs`` when its adjusted p-value is below ``alpha``, so a
    correct re-run is flagged with probability at most ``alpha`` whatever the number of
    specs. One row per spec (index ``spec``): ``old_mean``, ``new_mean``, ``old_deals``,
    ``new_deals``, ``statistic``, ``p_value``, ``p_holm``, ``differs``; ``attrs``: ``alpha``,
    ``model``, ``holm``.

    >>> t = rerun_tests({"a": [1, 0, 1, 1], "b": [0, 1, 0, 0]}, {"a": [1, 1, 0, 1], "b": [0, 0, 1, 0]})
    >>> t["p_holm"].round(3).tolist(), bool(t["differs"].any())
    ([1.0, 1.0], False)
    """
    missing = sorted(set(old) ^ set(new))
    if missing:
        raise AnalysisError(f"rerun_tests: {', '.join(map(repr, missing))} is not in both runs")
    if not old:
        raise AnalysisError("rerun_tests needs at least one spec")
    tests = {spec: rerun_test(old[spec], new[spec], alpha) for spec in old}
    out = pd.DataFrame({"old_mean": [t.old_mean for t in tests.values()],
                        "new_mean": [t.new_mean for t in tests.values()],
                        "old_deals": [t.old_deals for t in tests.values()],
                        "new_deals": [t.new_deals for t in tests.values()],
                        "statistic": [t.statistic for t in tests.values()],
                        "p_value": [t.p_value for t in tests.values()]},
                       index=pd.Index(list(tests), name="spec"))
    out["p_holm"], label = holm(out["p_value"].to_numpy())
    out["differs"] = out["p_holm"] < alpha
    out.attrs.update({"alpha": alpha, "model": MODEL_RERUN, "holm": label})
    return out
