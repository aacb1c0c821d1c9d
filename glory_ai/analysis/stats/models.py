"""Small statistical models for the analysis (numpy and scipy only).

* :func:`fit_logistic`: a logistic regression on grouped (binomial) data by Newton's
  method (iteratively reweighted least squares) with an optional ridge penalty, and
  :func:`profile_interval`, the profile-likelihood interval of one of its coefficients;
* :func:`stratified_difference`: a Mantel-Haenszel-weighted difference of two rates over
  strata, with a Wald interval.

docs/analysis.md gives the formulas.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special, stats

__all__ = ["LogisticFit", "Z95", "fit_logistic", "profile_interval", "stratified_difference"]

#: the two-sided 95% normal quantile
Z95 = float(stats.norm.ppf(0.975))


@dataclass(frozen=True)
class LogisticFit:
    """A fitted logistic regression: coefficients, their covariance (the inverse of the
    penalised observed information) and the penalised log-likelihood."""

    coef: np.ndarray
    cov: np.ndarray
    loglik: float
    iterations: int
    converged: bool

    @property
    def se(self) -> np.ndarray:
        return np.sqrt(np.clip(np.diag(self.cov), 0.0, None))


def _loglik(x: np.ndarray, successes: np.ndarray, trials: np.ndarray, beta: np.ndarray,
            penalty: np.ndarray, offset: np.ndarray | float = 0.0) -> float:
    eta = offset + x @ beta
    # y * log p + (n - y) * log(1 - p), with log p = log_expit(eta), log(1 - p) = log_expit(-eta)
    ll = float(np.sum(successes * special.log_expit(eta)
                      + (trials - successes) * special.log_expit(-eta)))
    return ll - 0.5 * float(np.sum(penalty * beta * beta))


def fit_logistic(x: np.ndarray, successes: np.ndarray, trials: np.ndarray, *,
                 penalty: float | np.ndarray = 0.0, max_iter: int = 100,
                 tol: float = 1e-10, offset: np.ndarray | float = 0.0,
                 start: np.ndarray | None = None) -> LogisticFit:
    """Maximise the penalised binomial log-likelihood

        sum_i [y_i log p_i + (n_i - y_i) log(1 - p_i)] - 1/2 sum_j lambda_j beta_j^2,
        p_i = 1 / (1 + exp(-x_i . beta)),

    for rows ``x`` (cells of identical covariates) with ``successes`` y_i out of ``trials``
    n_i (y_i may be fractional: a shared win), by Newton's method with step halving.
    ``penalty`` is lambda (a number for every coefficient, or one per coefficient: 0 leaves
    one unpenalised), a Gaussian prior N(0, 1/lambda) that keeps the estimates finite when
    a covariate separates wins from losses. The covariance is the inverse of the penalised
    information X' W X + diag(lambda), W = diag(n p (1 - p)). ``offset`` is a fixed term
    added to x_i . beta (a coefficient held at a value, as the profile likelihood does);
    ``start`` the first estimate (zeros by default)."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    k = x.shape[1]
    lam = np.broadcast_to(np.asarray(penalty, dtype=float), (k,)).copy()
    beta = np.zeros(k) if start is None else np.array(start, dtype=float)
    ll = _loglik(x, y, n, beta, lam, offset)
    converged = False
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007 - used after the loop: the iterations done
        p = special.expit(offset + x @ beta)
        grad = x.T @ (y - n * p) - lam * beta
        w = n * p * (1.0 - p)
        info = (x * w[:, None]).T @ x + np.diag(lam)
        try:
            step = np.linalg.solve(info, grad)
        except np.linalg.LinAlgError:
            step = np.linalg.lstsq(info, grad, rcond=None)[0]
        t = 1.0
        while True:
            trial = beta + t * step
            new = _loglik(x, y, n, trial, lam, offset)
            if new >= ll - 1e-12 * abs(ll) or t < 1e-8:
                break
            t *= 0.5
        beta, gain, ll = trial, new - ll, new
        if np.max(np.abs(t * step)) < tol or abs(gain) < tol * (1.0 + abs(ll)):
            converged = True
            break
    p = special.expit(offset + x @ beta)
    w = n * p * (1.0 - p)
    info = (x * w[:, None]).T @ x + np.diag(lam)
    cov = np.linalg.pinv(info)
    return LogisticFit(beta, cov, ll, it, converged)


def profile_interval(x: np.ndarray, successes: np.ndarray, trials: np.ndarray, fit: LogisticFit,
                     j: int, *, penalty: float | np.ndarray = 0.0, level: float = 0.95
                     ) -> tuple[float, float]:
    """The profile-likelihood interval of coefficient ``j`` of a :func:`fit_logistic` fit:
    the values b where 2 (l(beta_hat) - max l(beta | beta_j = b)) equals the chi-square(1)
    quantile. Unlike the Wald interval it agrees with the likelihood-ratio test (it excludes
    0 exactly when that test rejects at 1 - ``level``) and stays sensible when a covariate
    nearly separates wins from losses, where the Wald standard error blows up."""
    x = np.asarray(x, dtype=float)
    k = x.shape[1]
    lam = np.broadcast_to(np.asarray(penalty, dtype=float), (k,))
    others = [i for i in range(k) if i != j]
    x_rest, column, lam_rest = x[:, others], x[:, j], lam[others]
    limit = stats.chi2.ppf(level, 1) / 2.0
    start = fit.coef[others]

    def drop(b: float) -> float:           # log-likelihood lost by holding beta_j at b, less the limit
        held = fit_logistic(x_rest, successes, trials, penalty=lam_rest, offset=b * column,
                            start=start)
        return fit.loglik - (held.loglik - 0.5 * lam[j] * b * b) - limit

    beta = float(fit.coef[j])
    ends = []
    for direction in (-1.0, 1.0):
        step = max(float(np.sqrt(max(fit.cov[j, j], 0.0))), 0.1)
        near, far = beta, beta + direction * step
        lost = drop(far)
        while lost < 0.0 and abs(far - beta) <= 1e4:    # walk out until the drop passes the limit
            near, far = far, far + (far - beta)          # twice as far from beta_hat
            lost = drop(far)
        ends.append(optimize.brentq(drop, near, far, xtol=1e-6) if lost >= 0.0 else far)
    return ends[0], ends[1]


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
