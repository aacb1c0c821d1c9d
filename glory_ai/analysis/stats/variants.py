"""Rule variants side by side from what is gathered per measure and condition: the measure's
mean and its per-deal means. :func:`.tables.compare_variants` gathers them from a frame, the
report's variant section from sums read a row group at a time
(glory_ai.analysis.report.sections.variant_sums)."""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sps

from . import paired

__all__ = ["VARIANT_TEST", "conditions_test", "variant_table"]

VARIANT_TEST = ("Welch's t-test (two conditions) or the Alexander-Govern test (more) on "
                "per-deal means")


def conditions_test(groups: Sequence[Any]) -> float:
    """The p-value of "the same mean in every condition" for per-deal values (one array per
    condition, the deals being the independent units): Welch's t-test for two conditions
    (:func:`.paired.welch_test`), the Alexander-Govern test (scipy; one-way, unequal
    variances) for more. Conditions with fewer than two deals are left out; NaN when fewer
    than two conditions remain or every value is the same."""
    kept = [np.asarray(g, dtype=float) for g in groups if len(g) >= 2]
    if len(kept) < 2 or np.ptp(np.concatenate(kept)) == 0:
        return math.nan
    if len(kept) == 2:
        return paired.welch_test(kept[0], kept[1])[1]
    if any(np.ptp(g) == 0 for g in kept):            # a constant condition: no variance to weigh
        return math.nan
    return float(sps.alexandergovern(*kept).pvalue)


def variant_table(by: str, conditions: list[str], games: dict[str, int],
                  measures: dict[tuple[str, str], dict[str, tuple[float, np.ndarray]]]) -> pd.DataFrame:
    """:func:`.tables.compare_variants` from each condition's games and, per (measure, item)
    in the table's order, each condition that has rows: (the measure's mean, its per-deal
    means in deal order)."""
    rows: dict[tuple[str, str], dict[str, float]] = {
        ("games", "all"): {**{c: float(games[c]) for c in conditions}, "p_value": math.nan}}
    for key, found in measures.items():
        rows[key] = {**{c: found[c][0] if c in found else math.nan for c in conditions},
                     "p_value": conditions_test([found[c][1] for c in conditions if c in found])}
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index = pd.MultiIndex.from_tuples(out.index, names=["measure", "item"])
    out.columns.name = by
    out["p_holm"], label = paired.holm(out["p_value"].to_numpy(float))
    out.attrs.update({"by": by, "conditions": conditions, "holm": label, "test": VARIANT_TEST,
                      "tested": int(out["p_value"].notna().sum())})
    return out
