"""The generalized SPRT of fishtest (its LLRcalc, from M. Van den Bergh's notes): the
log-likelihood ratio of two Elo hypotheses for pentanomial (pairs) or trinomial (games)
counts, in normalized or logistic Elo, Wald's bounds and the decision; :class:`~.sprt.DealSPRT`
runs it over a match deal by deal (docs/statistics.md).

=====================================  ==========================================================
:func:`llr`                            the generalized log-likelihood ratio
:func:`sprt_bounds`                    Wald's bounds
:func:`sprt`, :func:`sequential_sprt`  the SPRT decision from counts / from pairs in deal order
=====================================  ==========================================================
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from .. import AnalysisError
from .intervals import NELO_PER_T
from .pentanomial import Pentanomial

__all__ = [
    "EloModel", "SPRTResult", "llr", "model_name", "sequential_sprt", "sprt", "sprt_bounds",
]

_EMPTY_CELL = 1e-3     # fishtest's pseudo-count for a cell not yet seen


def _secular(f: np.ndarray, u: np.ndarray) -> np.ndarray:
    """theta solving sum_i f_i u_i / (1 + theta u_i) = 0 over the last axis, in the interval
    where every 1 + theta u_i > 0; there the sum decreases from +inf to -inf. Bisection
    narrows the bracket a millionfold (the root may sit next to a pole, where Newton's
    method alone is slow), then Newton's method, kept inside the bracket, finishes.
    NaN where the u_i do not take both signs (no solution)."""
    u = np.ascontiguousarray(np.broadcast_to(u, f.shape))
    valid = (u.min(axis=-1) < 0) & (u.max(axis=-1) > 0)
    with np.errstate(divide="ignore"):
        lo = np.where(valid, -1.0 / u.max(axis=-1), 0.0)
        hi = np.where(valid, -1.0 / u.min(axis=-1), 0.0)
    fu = f * u
    for _ in range(20):
        mid = 0.5 * (lo + hi)
        positive = (fu / (1.0 + mid[..., None] * u)).sum(axis=-1) > 0
        lo = np.where(positive, mid, lo)
        hi = np.where(positive, hi, mid)
    theta = 0.5 * (lo + hi)
    for _ in range(6):          # quadratic convergence: the bracket's 1e-6 becomes 1e-24
        d = 1.0 + theta[..., None] * u
        g = (fu / d).sum(axis=-1)
        slope = (fu * u / (d * d)).sum(axis=-1)              # minus the derivative
        lo = np.where(g > 0, theta, lo)
        hi = np.where(g > 0, hi, theta)
        with np.errstate(invalid="ignore", divide="ignore"):
            newton = theta + g / slope
        theta = np.where((newton >= lo) & (newton <= hi), newton, 0.5 * (lo + hi))
    return np.where(valid, theta, np.nan)


def _mle_mean(f: np.ndarray, a: np.ndarray, s: float) -> np.ndarray:
    """The distribution on the outcomes ``a`` with mean ``s`` closest to the empirical ``f``
    in likelihood: p_i = f_i / (1 + theta (a_i - s)) (Van den Bergh, "support_MLE_multinomial",
    Proposition 1.1)."""
    u = np.broadcast_to(a - s, f.shape)
    theta = _secular(f, u)
    if np.isnan(theta).any():
        raise AnalysisError(f"the hypothesised score {s} is outside the range of the outcomes")
    return f / (1.0 + theta[..., None] * u)


def _t_step(f: np.ndarray, a: np.ndarray, ref: float, t: float, x: np.ndarray) -> np.ndarray:
    """One step of the fixed point of :func:`_mle_t`: the candidate distribution for a
    current mean and sd ``x`` (..., 2)."""
    mean, sd = x[..., :1], x[..., 1:]
    u = a - ref - t * sd * (1.0 + ((a - mean) / sd) ** 2) / 2.0
    return f / (1.0 + _secular(f, u)[..., None] * u)


def _moments(p: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Mean and sd of distributions (..., K) over the outcomes ``a``: (..., 2)."""
    mean = (p * a).sum(axis=-1, keepdims=True)
    return np.concatenate([mean, np.sqrt((p * (a - mean) ** 2).sum(axis=-1, keepdims=True))],
                          axis=-1)


def _mle_t(f: np.ndarray, a: np.ndarray, ref: float, t: float) -> np.ndarray:
    """The maximum-likelihood distribution with t-value (mean - ref) / sd = t: the
    stationarity condition gives p_i = f_i / (1 + theta u_i) with
    u_i = a_i - ref - t sd (1 + ((a_i - mean) / sd)^2) / 2, mean and sd those of p itself
    (Van den Bergh, "normalized_elo_practical", section 4.1). That fixed point in (mean, sd)
    is solved from the uniform distribution by Newton's method (a finite-difference
    Jacobian), falling back to the plain iteration where a Newton step does not help."""
    shape = f.shape
    f = f.reshape(-1, shape[-1])
    x = _moments(np.full(f.shape, 1.0 / f.shape[-1]), a)
    active = np.arange(len(f))
    h = 1e-7
    for _ in range(60):
        fa, xa = f[active], x[active]
        g = _moments(_t_step(fa, a, ref, t, xa), a) - xa
        size = np.abs(g).max(axis=-1)
        done = ~(size >= 1e-11)              # NaN (no solution) is done too: reported below
        if done.all():
            break
        active, fa, xa, g, size = active[~done], fa[~done], xa[~done], g[~done], size[~done]
        jac = np.empty(xa.shape + (2,))
        for k in range(2):
            shifted = xa.copy()
            shifted[:, k] += h
            jac[..., k] = (_moments(_t_step(fa, a, ref, t, shifted), a) - shifted - g) / h
        with np.errstate(invalid="ignore"):
            step = np.linalg.solve(np.nan_to_num(jac) + 1e-300, g[..., None])[..., 0]
        trial = xa - step
        plain = xa + np.nan_to_num(g)
        ok = np.isfinite(trial).all(axis=-1) & (trial[:, 1] > 0)
        trial = np.where(ok[:, None], trial, plain)
        better = np.abs(_moments(_t_step(fa, a, ref, t, trial), a) - trial).max(axis=-1) < size
        x[active] = np.where(better[:, None], trial, plain)
    f = f.reshape(shape)
    x = x.reshape(shape[:-1] + (2,))
    p = _t_step(f, a, ref, t, x)
    mean, sd = _moments(p, a)[..., 0], _moments(p, a)[..., 1]
    if not (np.abs((mean - ref) / sd - t).max() < 1e-6):
        raise AnalysisError(f"the constrained fit of a normalized Elo of t-value {t:.4g} did "
                            "not converge (bounds too far from the data?)")
    return p


EloModel = Literal["normalized", "logistic"]


def llr(counts: Any, elo0: float, elo1: float, model: EloModel = "normalized") -> Any:
    """The generalized log-likelihood ratio of H1 (Elo = ``elo1``) against H0 (``elo0``),
    as fishtest's SPRT computes it.

    ``counts`` has 5 entries (the pentanomial: pairs, :data:`PENTANOMIAL_CELLS`) or 3
    (losses, draws, wins: games taken as independent), or a leading batch shape (..., 5).
    An empty cell counts as 0.001 (fishtest's regularization), so the ratio is defined from
    the first pair. With the empirical distribution f over the per-game scores a_i and N
    samples, LLR = N · sum_i f_i log(p1_i / p0_i), p_h the maximum-likelihood distribution
    under hypothesis h:

    * ``model="normalized"``: bounds in normalized Elo; p_h has t-value
      (mean - ½) / sd = nElo_h / (800 / ln 10), times sqrt(2) for pairs (the sd of a pair's
      mean is that of a game over sqrt(2));
    * ``model="logistic"``: bounds in logistic Elo; p_h has mean 1 / (1 + 10^(-Elo_h / 400)).

    >>> round(float(llr([13, 37, 50, 25, 3], 0.0, 4.0)), 4)      # a published fishtest-style test
    -0.5491
    """
    c = np.asarray(counts, dtype=float)
    if c.shape[-1] not in (3, 5) or (c < 0).any():
        raise AnalysisError(f"llr needs counts of 3 (L, D, W) or 5 (pentanomial) non-negative "
                            f"cells, got shape {c.shape}")
    if not elo0 < elo1:
        raise AnalysisError(f"the SPRT needs elo0 < elo1, got {elo0} and {elo1}")
    k = c.shape[-1]
    a = np.linspace(0.0, 1.0, k)
    reg = np.where(c > 0, c, _EMPTY_CELL)
    n = reg.sum(axis=-1)
    f = reg / n[..., None]
    if model == "normalized":
        scale = math.sqrt(2.0) if k == 5 else 1.0
        p0, p1 = (_mle_t(f, a, 0.5, e / NELO_PER_T * scale) for e in (elo0, elo1))
    elif model == "logistic":
        s0, s1 = (1.0 / (1.0 + 10.0 ** (-e / 400.0)) for e in (elo0, elo1))
        p0, p1 = _mle_mean(f, a, s0), _mle_mean(f, a, s1)
    else:
        raise AnalysisError(f"model must be 'normalized' or 'logistic', got {model!r}")
    out = n * (f * (np.log(p1) - np.log(p0))).sum(axis=-1)
    out = np.where(c.sum(axis=-1) > 0, out, 0.0)
    return float(out) if out.ndim == 0 else out


def sprt_bounds(alpha: float = 0.05, beta: float = 0.05) -> tuple[float, float]:
    """Wald's bounds (log(beta / (1 - alpha)), log((1 - beta) / alpha)) on the LLR.

    >>> [round(x, 4) for x in sprt_bounds(0.05, 0.05)]
    [-2.9444, 2.9444]
    """
    if not (0.0 < alpha < 1.0 and 0.0 < beta < 1.0 and alpha + beta < 1.0):
        raise AnalysisError(f"alpha and beta must be in (0, 1) with alpha + beta < 1, got "
                            f"{alpha}, {beta}")
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


@dataclass(frozen=True)
class SPRTResult:
    """An SPRT's state: the LLR, Wald's bounds, the decision (``"H1"``: A is at least
    ``elo1`` stronger; ``"H0"``: at most ``elo0``; None: keep playing) and the samples
    used (pairs for the pentanomial model, games for the trinomial)."""

    llr: float
    lower: float
    upper: float
    decision: Literal["H0", "H1"] | None
    samples: int
    elo0: float
    elo1: float
    alpha: float
    beta: float
    model: str

    def describe(self) -> str:
        unit = "Elo" if "logistic" in self.model else "normalized Elo"
        verdict = {"H1": f"H1 accepted (at least {self.elo1:g} {unit})",
                   "H0": f"H0 accepted (at most {self.elo0:g} {unit})"}.get(
                       self.decision or "", "undecided")
        return (f"SPRT [{self.elo0:g}, {self.elo1:g}] {unit}, alpha={self.alpha:g} "
                f"beta={self.beta:g} ({self.model}): {verdict}; LLR {self.llr:.2f} in "
                f"[{self.lower:.2f}, {self.upper:.2f}] after {self.samples} "
                f"{'pairs' if 'pentanomial' in self.model else 'games'}")


def model_name(k: int, model: EloModel) -> str:
    return f"{'pentanomial' if k == 5 else 'trinomial'} GSPRT, {model} Elo"


def sprt(counts: Pentanomial | Sequence[float], elo0: float, elo1: float, alpha: float = 0.05,
         beta: float = 0.05, model: EloModel = "normalized") -> SPRTResult:
    """The SPRT's state for cumulative counts (see :func:`llr`).

    >>> r = sprt([13, 37, 50, 25, 3], 0.0, 4.0)
    >>> r.decision, round(r.llr, 2), r.samples
    (None, -0.55, 128)
    """
    c = counts.counts if isinstance(counts, Pentanomial) else counts
    lower, upper = sprt_bounds(alpha, beta)
    value = float(llr(c, elo0, elo1, model))
    decision: Literal["H0", "H1"] | None = "H1" if value >= upper else "H0" if value <= lower else None
    return SPRTResult(value, lower, upper, decision, int(round(sum(c))), float(elo0), float(elo1),
                      float(alpha), float(beta), model_name(len(c), model))


def sequential_sprt(cells: Any, elo0: float, elo1: float, alpha: float = 0.05,
                    beta: float = 0.05, model: EloModel = "normalized") -> SPRTResult:
    """Run the pentanomial SPRT over pairs in deal order: ``cells`` holds each pair's
    cell (0 = LL ... 4 = WW); the test stops at the first pair where the LLR leaves
    Wald's bounds. The result counts the pairs up to and including that one.

    >>> sequential_sprt([4, 3, 4, 4, 2, 4, 3, 4, 4, 4] * 3, 0.0, 100.0).decision
    'H1'
    """
    x = np.asarray(cells).ravel()
    if x.size and (not np.isin(x, np.arange(5)).all()):
        raise AnalysisError("sequential_sprt: a pair's cell must be 0, 1, 2, 3 or 4")
    lower, upper = sprt_bounds(alpha, beta)
    if x.size == 0:
        return SPRTResult(0.0, lower, upper, None, 0, elo0, elo1, alpha, beta,
                          model_name(5, model))
    cumulative = np.cumsum(np.eye(5, dtype=np.int64)[x], axis=0)
    values = np.asarray(llr(cumulative, elo0, elo1, model))
    crossed = np.flatnonzero((values >= upper) | (values <= lower))
    stop = int(crossed[0]) if crossed.size else len(x) - 1
    value = float(values[stop])
    decision: Literal["H0", "H1"] | None = "H1" if value >= upper else "H0" if value <= lower else None
    return SPRTResult(value, lower, upper, decision, stop + 1, float(elo0), float(elo1),
                      float(alpha), float(beta), model_name(5, model))
