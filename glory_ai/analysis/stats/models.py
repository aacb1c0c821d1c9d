"""The models of the building table.

* :func:`clustered_logit`: a logistic regression on grouped (binomial) rows, fitted by
  statsmodels, with a cluster-robust covariance (the deal as the cluster);
* :func:`stratified_difference`: a Mantel-Haenszel-weighted difference of two rates over
  strata, with a Wald interval.

docs/analysis.md gives the formulas.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import sparse, stats

__all__ = ["LogitFit", "Z95", "clustered_logit", "clustered_logit_of_cells", "clustered_logit_statsmodels",
           "codes", "fit_cells", "stratified_difference"]

#: the two-sided 95% normal quantile
Z95 = float(stats.norm.ppf(0.975))


@dataclass(frozen=True)
class LogitFit:
    """A fitted logistic model: ``params``, their cluster-robust standard errors ``bse``, the
    model-based covariance ``normalized_cov_params`` (the inverse information) and the degrees
    of freedom of its t inference, ``df_resid_inference`` (clusters - 1)."""

    params: np.ndarray
    bse: np.ndarray
    normalized_cov_params: np.ndarray
    df_resid_inference: float

    def conf_int(self, alpha: float = 0.05) -> np.ndarray:
        """(parameters x 2) t intervals on the cluster-robust standard errors."""
        half = stats.t.ppf(1.0 - alpha / 2.0, self.df_resid_inference) * self.bse
        return np.column_stack([self.params - half, self.params + half])

    @property
    def pvalues(self) -> np.ndarray:
        """The two-sided t-tests of each parameter being 0."""
        return 2.0 * stats.t.sf(np.abs(self.params / self.bse), self.df_resid_inference)


def codes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``numpy.unique(values, return_index=True, return_inverse=True)`` of non-negative
    integers (the distinct values, sorted; the first place of each; each value's code), by
    counting instead of sorting when the values are small (at most a few times as many as
    there are values): linear in the values, for the millions of rows of a large study."""
    values = np.asarray(values).ravel()
    n = len(values)
    if n == 0 or values.dtype.kind not in "iu" or values.min() < 0 or values.max() > 4 * n + 1024:
        return np.unique(values, return_index=True, return_inverse=True)
    if n > 1 and (values[1:] >= values[:-1]).all():
        # sorted already (clusters in deal order): the runs of equal values
        starts = np.ones(n, dtype=bool)
        starts[1:] = values[1:] != values[:-1]
        first = np.flatnonzero(starts)
        return values[first], first, np.cumsum(starts) - 1
    present = np.bincount(values) > 0
    distinct = np.flatnonzero(present)
    inverse = (np.cumsum(present) - 1)[values]
    first = np.full(len(distinct), n, dtype=np.int64)
    np.minimum.at(first, inverse, np.arange(n))
    return distinct.astype(values.dtype), first, inverse


def clustered_logit(x: np.ndarray, successes: np.ndarray, trials: np.ndarray,
                    clusters: np.ndarray, cells: np.ndarray | None = None) -> LogitFit:
    """:func:`clustered_logit_statsmodels`'s model and covariance, computed from its cells:
    rows with the same covariates share their probability, so the estimate is that of the
    rows pooled by cell (a few dozen: statsmodels fits them), the information is a sum over
    cells, and each cluster's score is its rows' residuals summed by cell. Exact, and linear in
    the rows rather than in rows x parameters squared: it stays fast for millions of rows.
    Arguments as :func:`clustered_logit_statsmodels`; ``x`` must have full column rank on
    its cells."""
    x = np.asarray(x, dtype=float)
    if cells is None:
        cells = np.unique(x, axis=0, return_inverse=True)[1]
    first, inverse = codes(np.asarray(cells))[1:]
    return clustered_logit_of_cells(x[first], inverse, successes, trials, clusters)


def fit_cells(xc: np.ndarray, successes: np.ndarray, trials: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The logistic model of binomial cells (``xc`` their covariates, one row per cell, with
    their ``successes`` and ``trials`` summed), fitted by statsmodels: the parameters, each
    cell's probability and the inverse information (the model-based covariance)."""
    import warnings

    from statsmodels.genmod import families
    from statsmodels.genmod.generalized_linear_model import GLM
    from statsmodels.tools.sm_exceptions import PerfectSeparationWarning

    with warnings.catch_warnings():
        # statsmodels warns of "perfect separation or prediction" whenever the cells' shares
        # are fitted exactly (a saturated model of grouped data: a fine fit); the callers rule
        # true separation out (the building model's pseudo-games, the grid's own check)
        warnings.simplefilter("ignore", PerfectSeparationWarning)
        params = np.asarray(GLM(np.column_stack([successes, trials - successes]), xc,
                                family=families.Binomial(), hasconst=True).fit(tol=1e-12).params)
    p = 1.0 / (1.0 + np.exp(-(xc @ params)))
    information = (xc * (trials * p * (1.0 - p))[:, None]).T @ xc
    return params, p, np.linalg.inv(information)


def clustered_logit_of_cells(xc: np.ndarray, cell_of_row: np.ndarray, successes: np.ndarray,
                             trials: np.ndarray, clusters: np.ndarray) -> LogitFit:
    """:func:`clustered_logit` given the covariates of each cell (``xc``, one row per cell) and
    each row's cell (``cell_of_row``, codes 0..cells-1) instead of every row's covariates: the
    memory is that of a few vectors of the rows, however many the parameters."""
    xc = np.asarray(xc, dtype=float)
    inverse = np.asarray(cell_of_row).ravel()
    successes = np.asarray(successes, dtype=float)
    trials = np.asarray(trials, dtype=float)
    pooled_s = np.bincount(inverse, weights=successes, minlength=len(xc))
    pooled_n = np.bincount(inverse, weights=trials, minlength=len(xc))
    params, p, bread = fit_cells(xc, pooled_s, pooled_n)
    residual = successes - trials * p[inverse]
    groups, _, group_of_row = codes(np.asarray(clusters))
    g = len(groups)
    # each cluster's score: its residuals summed by cell, times the cells' covariates
    by_cell = sparse.csr_matrix((residual, (group_of_row, inverse)), shape=(g, len(xc)))
    scores = np.asarray(by_cell @ xc)
    cov = bread @ (scores.T @ scores) @ bread * (g / (g - 1) if g > 1 else 1.0)
    return LogitFit(params, np.sqrt(np.diag(cov)), bread, float(g - 1))


def clustered_logit_statsmodels(x: np.ndarray, successes: np.ndarray, trials: np.ndarray,
                                clusters: np.ndarray, cells: np.ndarray | None = None) -> Any:
    """A logistic regression on grouped (binomial) rows, fitted by statsmodels (``GLM``,
    binomial family), with the cluster-robust covariance of ``clusters`` (one id per row:
    rows of one cluster, e.g. the games of one deal, may be correlated; the clusters are
    independent): the sandwich sum over clusters of the score products, times G / (G - 1)
    for G clusters, and t inference on G - 1 degrees of freedom. The model-based
    covariance (the inverse information) stays in ``normalized_cov_params``.

    Row i has covariates ``x[i]`` and ``successes[i]`` out of ``trials[i]`` (fractional
    successes are fine: a shared win). Rows holding several observations of one cluster
    with the same covariates give the same fit and covariance as the observations one by
    one, so callers pool them. ``x`` has an intercept column. ``cells``: an id per row,
    the same for rows with the same covariates (found from ``x`` when not given). Returns
    statsmodels' ``GLMResults`` (``params``, ``bse``, ``conf_int()``, ``pvalues``)."""
    from statsmodels.genmod import families
    from statsmodels.genmod.generalized_linear_model import GLM

    x = np.asarray(x, dtype=float)
    successes = np.asarray(successes, dtype=float)
    trials = np.asarray(trials, dtype=float)
    clusters = np.asarray(clusters)
    # the estimate first on the rows pooled over clusters (the same likelihood, a few
    # dozen rows), then one Newton step or two on every row for the covariance
    if cells is None:
        cells = np.unique(x, axis=0, return_inverse=True)[1]
    first, inverse = np.unique(np.asarray(cells).ravel(), return_index=True, return_inverse=True)[1:]
    pooled_s = np.bincount(inverse, weights=successes)
    pooled_n = np.bincount(inverse, weights=trials)
    start = GLM(np.column_stack([pooled_s, pooled_n - pooled_s]), x[first],
                family=families.Binomial(), hasconst=True).fit().params
    g = len(np.unique(clusters))
    model = GLM(np.column_stack([successes, trials - successes]), x, family=families.Binomial(),
                hasconst=True)
    # statsmodels' own correction also scales by (rows - 1) / (rows - parameters), which
    # would depend on how the rows were pooled: G / (G - 1) alone does not
    return model.fit(start_params=start, method="newton", cov_type="cluster", use_t=True,
                     cov_kwds={"groups": clusters, "use_correction": False,
                               "scaling_factor": g / (g - 1) if g > 1 else 1.0})


def stratified_difference(n1: np.ndarray, s1: np.ndarray, q1: np.ndarray,
                          n0: np.ndarray, s0: np.ndarray, q0: np.ndarray,
                          z: float = Z95) -> tuple[float, float, float]:
    """The difference of the mean outcome between two groups (1: exposed, 0: not) pooled
    over strata with Mantel-Haenszel weights w_s = n1_s n0_s / (n1_s + n0_s):

        D = sum_s w_s (m1_s - m0_s) / sum_s w_s,
        Var D = sum_s w_s^2 (v1_s / (n1_s + 2) + v0_s / (n0_s + 2)) / (sum_s w_s)^2,

    with m = s / n the mean outcome of each group and stratum (s: sum of the outcomes, q: sum
    of their squares) and v its variance with one pseudo-win and one pseudo-loss added,
    v = (q + 1) / (n + 2) - ((s + 1) / (n + 2))^2 (as Agresti and Caffo do for a difference of
    proportions: a group that always won does not get a zero variance; for large groups it
    is the plain m (1 - m)). Strata missing either group carry no weight. Returns
    (D, low, high), NaN if no stratum has both groups."""
    n1, s1, q1, n0, s0, q0 = (np.asarray(a, dtype=float) for a in (n1, s1, q1, n0, s0, q0))
    both = (n1 > 0) & (n0 > 0)
    if not both.any():
        return (math.nan, math.nan, math.nan)
    n1, s1, q1, n0, s0, q0 = (a[both] for a in (n1, s1, q1, n0, s0, q0))
    m1, m0 = s1 / n1, s0 / n0
    v1 = np.clip((q1 + 1) / (n1 + 2) - ((s1 + 1) / (n1 + 2)) ** 2, 0.0, None)
    v0 = np.clip((q0 + 1) / (n0 + 2) - ((s0 + 1) / (n0 + 2)) ** 2, 0.0, None)
    w = n1 * n0 / (n1 + n0)
    total = w.sum()
    d = float(np.sum(w * (m1 - m0)) / total)
    se = math.sqrt(float(np.sum(w * w * (v1 / (n1 + 2) + v0 / (n0 + 2)))) / (total * total))
    return (d, d - z * se, d + z * se)
