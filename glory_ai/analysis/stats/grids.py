"""An experiment's grid (a spec's score as one of its numbers varies against the same
opponents) from what is gathered per grid point: its win-rate row and the spec's win shares
summed per deal. :func:`.tables.grid_scores` gathers them from a frame, the report's grid
section from sums read a row group at a time (glory_ai.analysis.report.sections.grids)."""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from . import models, paired

__all__ = ["GRID_STEP", "GRID_TREND", "grid_row", "grid_table"]

GRID_TREND = ("logistic regression of the game score on log2 of the value (statsmodels GLM), "
              "deal-clustered standard error")
GRID_STEP = "paired by deal: t interval of the per-deal differences"


def grid_row(rate: Any, spec: str, run: str, deals: int, two: bool) -> dict[str, Any]:
    """A grid point's row: the spec's row of :func:`.tables.win_rates` of its run (``rate``),
    its deals, and (``two``: 2-player games) the Elo of its score and bounds."""
    row = {"spec": spec, "run": run, "games": int(rate["games"]), "deals": deals,
           "score": rate["win_rate"], "low": rate["win_low"], "high": rate["win_high"],
           "interval": rate["interval"], "expected": rate["expected"]}
    if two:
        row.update({"elo": float(paired.elo_from_score(row["score"])),
                    "elo_low": float(paired.elo_from_score(row["low"])),
                    "elo_high": float(paired.elo_from_score(row["high"]))})
    return row


def grid_table(rows: dict[float, dict[str, Any]], per_deal: dict[float, pd.DataFrame]) -> pd.DataFrame:
    """:func:`.tables.grid_scores` from each value's row (:func:`grid_row`) and the spec's
    win shares per deal number there (``per_deal``: indexed by deal, sorted; ``sum``,
    ``size`` and ``mean``)."""
    table = pd.DataFrame.from_dict(rows, orient="index").sort_index()
    table.index.name = "value"
    values = table.index.to_numpy(float)
    attrs: dict[str, Any] = {"trend": None, "step": None}
    if ("elo" in table.columns and len(values) >= 3 and values.min() > 0
            and values.max() / values.min() >= 4):
        # the games of one deal and value pooled into one binomial row (the same fit)
        pooled = pd.concat([part[["sum", "size"]].assign(value=value) for value, part in per_deal.items()])
        pooled = pooled.rename_axis("deal").reset_index().sort_values(["deal", "value"], kind="stable")
        pooled = pooled[["deal", "value", "sum", "size"]].reset_index(drop=True)
        x = np.column_stack([np.ones(len(pooled)), np.log2(pooled["value"].to_numpy(float))])
        fit, separated = _separating_fit(x, pooled)
        if separated:
            # every game at some values won and at the others lost: the slope's estimate runs
            # off to infinity and its interval and p-value mean nothing, so none is given
            attrs["separated"] = True
        else:
            slope = float(np.asarray(fit.params)[1])
            low, high = (float(v) for v in np.asarray(fit.conf_int())[1])
            attrs["trend"] = {"elo_per_doubling": slope * paired.ELO_PER_NAT,
                              "low": low * paired.ELO_PER_NAT, "high": high * paired.ELO_PER_NAT,
                              "p_value": float(np.asarray(fit.pvalues)[1]),
                              "deals": int(pooled["deal"].nunique()), "model": GRID_TREND}
    top, below = values[-1], values[-2]
    upper, lower = per_deal[top]["mean"], per_deal[below]["mean"]
    both = upper.index.intersection(lower.index)
    if len(both) >= 2:
        change = (upper.loc[both] - lower.loc[both]).to_numpy(float)
        shifted = (change + 1.0) / 2.0          # the differences in [-1, 1], moved to [0, 1]
        mean, low, high = paired.mean_interval(shifted)
        attrs["step"] = {"from": float(below), "to": float(top), "change": 2 * mean - 1,
                         "low": 2 * low - 1, "high": 2 * high - 1,
                         "p_value": paired.mean_test(shifted, 0.5), "deals": len(both),
                         "model": GRID_STEP}
    table.attrs.update(attrs)
    return table


def _separating_fit(x: np.ndarray, pooled: pd.DataFrame) -> tuple[Any, bool]:
    """The grid's deal-clustered logistic fit, and whether the value separates the scores:
    every game below some value lost and every game above it won (or the reverse), at most
    the one value between them mixed; the slope's estimate is then infinite. statsmodels'
    own warning also fires when three values' shares lie exactly on a logistic curve
    (perfect prediction, a fine fit of grouped data), so the check is made here
    (:func:`.models.fit_cells` leaves that warning unsaid)."""
    by_value = pooled.groupby("value", sort=True)[["sum", "size"]].sum()
    share = (by_value["sum"] / by_value["size"]).to_numpy(float)
    separated = False
    for won in (share, 1.0 - share):
        some = np.flatnonzero(won > 0)
        short = np.flatnonzero(won < 1)
        if not len(some) or not len(short) or short[-1] <= some[0]:
            separated = True
    fit = models.clustered_logit(x, pooled["sum"].to_numpy(float), pooled["size"].to_numpy(float),
                                 pooled["deal"].to_numpy(), cells=pooled["value"].to_numpy())
    return fit, separated
