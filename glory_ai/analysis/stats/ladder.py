"""Ratings from game results: Bradley-Terry (head to head), Plackett-Luce through openskill
(multiplayer rankings) and the pairwise score matrix.

These work on plain Python data (lists of head-to-head results, rankings, per-game score
shares); :mod:`glory_ai.analysis.stats.tables` applies them to the frame of the analysis.
Ratings are on the Elo scale (:mod:`glory_ai.analysis.stats.intervals`).
"""
# Every bad input raises ValueError, wrong types included.
# ruff: noqa: TRY004
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
from openskill.models import PlackettLuce
from scipy import optimize, sparse, special

from ._checks import checked_count, checked_names, checked_real, z_quantile
from .intervals import ELO_PER_NAT

__all__ = ["BOOTSTRAP", "Rating", "SkillRating", "bradley_terry", "pairwise_scores",
           "plackett_luce_ratings"]

#: bootstrap resamples of the Bradley-Terry intervals (compare's table and the report)
BOOTSTRAP = 200


@dataclass(frozen=True)
class Rating:
    """A player's rating with a confidence interval.

    ``games`` is the number of (real) games the player took part in.
    """

    name: str
    rating: float
    low: float
    high: float
    games: int


@dataclass(frozen=True)
class SkillRating(Rating):
    """A :class:`Rating` from a Weng-Lin (openskill) model.

    ``rating`` is ``mu``; ``low``/``high`` are ``mu -+ z * sigma``; ``ordinal``
    is openskill's conservative estimate ``mu - 3 * sigma``.
    """

    mu: float
    sigma: float
    ordinal: float


_R = TypeVar("_R", bound=Rating)


def _sorted_ratings(ratings: list[_R]) -> list[_R]:
    return sorted(ratings, key=lambda r: (-r.rating, r.name))


# ---------------------------------------------------------------------------
# Bradley-Terry
# ---------------------------------------------------------------------------

def _games_from_results(
    results: Sequence[tuple[str, str, float]], names: Sequence[str] | None
) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """Validate a list of (a, b, score_a) and return names and game arrays."""
    triples = []
    for k, item in enumerate(results):
        if isinstance(item, str) or not isinstance(item, Sequence) or len(item) != 3:
            raise ValueError(
                f"results[{k}] must be an (a, b, score_a) triple, got {item!r} "
                "(pass a square numpy array for a wins matrix)"
            )
        a, b, s = item
        if not isinstance(a, str) or not isinstance(b, str):
            raise ValueError(
                f"results[{k}]: player names must be strings, got {a!r}, {b!r} "
                "(pass a square numpy array for a wins matrix)"
            )
        if a == b:
            raise ValueError(f"results[{k}]: a player cannot play itself ({a!r})")
        score = checked_real(s, f"results[{k}] score")
        if not 0.0 <= score <= 1.0:
            raise ValueError(f"results[{k}]: score must be in [0, 1], got {s!r}")
        triples.append((a, b, score))
    if not triples:
        raise ValueError("results is empty")
    if names is None:
        name_list = sorted({p for a, b, _ in triples for p in (a, b)})
    else:
        name_list = checked_names(names)
        known = set(name_list)
        unknown = sorted({p for a, b, _ in triples for p in (a, b)} - known)
        if unknown:
            raise ValueError(f"results mention names not in names: {unknown}")
    index = {n: i for i, n in enumerate(name_list)}
    gi = np.array([index[a] for a, _, _ in triples], dtype=np.intp)
    gj = np.array([index[b] for _, b, _ in triples], dtype=np.intp)
    gs = np.array([s for _, _, s in triples], dtype=float)
    return name_list, gi, gj, gs


def _games_from_matrix(
    matrix: np.ndarray, names: Sequence[str] | None
) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """Expand a pairwise score matrix into individual games.

    ``matrix[i, j]`` is i's total score against j.  The games between i and j
    number ``matrix[i, j] + matrix[j, i]``, which must be whole.  Each pair is
    expanded into ``floor(m_ij)`` wins for i, ``floor(m_ji)`` wins for j and, if
    the fractional parts add up to one, a single game worth ``frac(m_ij)`` to i.
    This reproduces the matrix exactly.
    """
    m = np.asarray(matrix, dtype=float)
    if m.ndim != 2 or m.shape[0] != m.shape[1]:
        raise ValueError(f"a wins matrix must be square, got shape {m.shape}")
    n = m.shape[0]
    if n < 2:
        raise ValueError("a wins matrix needs at least two players")
    if not np.all(np.isfinite(m)):
        raise ValueError("the wins matrix must be finite")
    if np.any(m < 0):
        raise ValueError("the wins matrix must not have negative entries")
    if np.any(np.diag(m) != 0):
        raise ValueError("the wins matrix must have a zero diagonal")
    totals = m + m.T
    if not np.allclose(totals, np.round(totals), rtol=0.0, atol=1e-9):
        raise ValueError(
            "matrix[i, j] + matrix[j, i] must be a whole number of games for every pair"
        )
    if totals.sum() == 0:
        raise ValueError("the wins matrix records no games")
    if names is None:
        name_list = [str(i) for i in range(n)]
    else:
        name_list = checked_names(names)
        if len(name_list) != n:
            raise ValueError(f"names has {len(name_list)} entries but the matrix is {n}x{n}")
    gi: list[np.ndarray] = []
    gj: list[np.ndarray] = []
    gs: list[np.ndarray] = []

    def add(i: int, j: int, count: int, score: float) -> None:
        if count > 0:
            gi.append(np.full(count, i, dtype=np.intp))
            gj.append(np.full(count, j, dtype=np.intp))
            gs.append(np.full(count, score))

    for i in range(n):
        for j in range(i + 1, n):
            total = round(float(totals[i, j]))
            wi = math.floor(float(m[i, j]) + 1e-9)
            wj = math.floor(float(m[j, i]) + 1e-9)
            add(i, j, wi, 1.0)
            add(i, j, wj, 0.0)
            rest = total - wi - wj
            if rest:  # 0 or 1: the fractional parts sum to a whole number below 2
                add(i, j, rest, min(1.0, max(0.0, (m[i, j] - wi) / rest)))
    return name_list, np.concatenate(gi), np.concatenate(gj), np.concatenate(gs)


def _pair_sums(
    n: int, gi: np.ndarray, gj: np.ndarray, gs: np.ndarray, weights: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Score matrix W (W[i, j] = i's score against j) and games matrix N."""
    w = np.ones_like(gs) if weights is None else weights
    idx_ij = gi * n + gj
    idx_ji = gj * n + gi
    size = n * n
    score = np.bincount(idx_ij, weights=w * gs, minlength=size)
    score += np.bincount(idx_ji, weights=w * (1.0 - gs), minlength=size)
    games = np.bincount(idx_ij, weights=w, minlength=size)
    games += np.bincount(idx_ji, weights=w, minlength=size)
    return score.reshape(n, n), games.reshape(n, n)


def _bt_hessian(r: np.ndarray, games: np.ndarray, prior: float) -> np.ndarray:
    """Hessian of the negative penalised log-likelihood (no gauge term)."""
    p = special.expit(r[:, None] - r[None, :])
    c = games * p * (1.0 - p)
    h = -c
    np.fill_diagonal(h, c.sum(axis=1) - np.diag(c))
    if prior > 0:
        q = special.expit(r)
        h[np.diag_indices_from(h)] += prior * q * (1.0 - q)
    return h


def _fit_bt(score: np.ndarray, games: np.ndarray, prior: float) -> tuple[np.ndarray, np.ndarray]:
    """Maximum (penalised) likelihood Bradley-Terry strengths, natural-log scale.

    Returns the mean-zero strengths and the Hessian at the optimum.
    """
    n = score.shape[0]
    diag = np.eye(n, dtype=bool)
    gauge = prior == 0  # without a prior the likelihood is shift-invariant

    def fun(r: np.ndarray) -> float:
        d = r[:, None] - r[None, :]
        val = -float(np.sum(np.where(diag, 0.0, score * special.log_expit(d))))
        if prior > 0:
            val -= 0.5 * prior * float(np.sum(special.log_expit(r) + special.log_expit(-r)))
        if gauge:
            val += 0.5 * float(r.sum()) ** 2
        return val

    def jac(r: np.ndarray) -> np.ndarray:
        p = special.expit(r[:, None] - r[None, :])
        g = -(score.sum(axis=1) - np.sum(np.where(diag, 0.0, games * p), axis=1))
        if prior > 0:
            g -= prior * (0.5 - special.expit(r))
        if gauge:
            g += r.sum()
        return g

    def hess(r: np.ndarray) -> np.ndarray:
        h = _bt_hessian(r, games, prior)
        if gauge:
            h = h + 1.0
        return h

    res = optimize.minimize(fun, np.zeros(n), jac=jac, hess=hess, method="trust-exact",
                            options={"gtol": 1e-10})
    tolerance = 1e-6 * max(1.0, float(games.sum()))
    if not np.all(np.isfinite(res.x)) or np.max(np.abs(jac(res.x))) > tolerance:
        raise RuntimeError(f"Bradley-Terry fit did not converge: {res.message}")
    r = res.x - res.x.mean()
    return r, _bt_hessian(res.x, games, prior)


def bradley_terry(
    results: Sequence[tuple[str, str, float]] | np.ndarray,
    names: Sequence[str] | None = None,
    bootstrap: int = 0,
    seed: int = 0,
    confidence: float = 0.95,
    *,
    prior: float = 1.0,
) -> list[Rating]:
    """Bradley-Terry ratings, on the Elo scale, from head-to-head results.

    ``results`` is either a list of ``(a, b, score_a)`` games with ``score_a``
    in [0, 1] (0.5 for a shared win), or a square numpy array whose ``[i, j]``
    entry is i's total score against j (wins plus half the shared games;
    ``[i, j] + [j, i]`` must be a whole number of games).  ``names`` lists the
    players: for a list of games it defaults to the sorted names that appear
    (players listed but absent get ``games == 0``); for a matrix it labels the
    rows and defaults to ``"0", "1", ...``.

    Model: P(i beats j) = 1 / (1 + exp(s_j - s_i)); ``rating`` is
    ``s * 400 / ln 10``, so rating differences are logistic Elo differences.
    Ratings are anchored so that their mean over ``names`` is 0.

    Prior: to keep ratings finite when a player won or lost everything, each
    player is credited with ``prior`` virtual games (default 1) scored 0.5
    against a virtual opponent rated 0 (the "virtual draws" idea of Bayeselo).
    This shrinks ratings slightly towards 0 -- by well under an Elo point once
    players have hundreds of games.  With ``prior=0`` the plain maximum
    likelihood estimate is used; it exists only if the players cannot be split
    into two groups one of which never scored against the other, otherwise a
    ValueError is raised.

    Intervals: with ``bootstrap > 0``, the games are resampled with
    replacement ``bootstrap`` times (``numpy.random.default_rng(seed)``), the
    model is refitted and re-anchored each time, and ``low``/``high`` are the
    percentile bounds at ``confidence`` (with few games these need not be
    centred on, or in rare cases even contain, the estimate).  Bootstrapping
    needs ``prior > 0``
    (a resample may contain a perfect record).  With ``bootstrap == 0`` the
    bounds are normal-approximation intervals from the observed Fisher
    information of the anchored ratings.

    Returns a list of :class:`Rating` sorted by rating, highest first.

    >>> games = [("a", "b", 1.0)] * 3 + [("a", "b", 0.0)]
    >>> [(r.name, round(r.rating, 2), r.games) for r in bradley_terry(games, prior=0)]
    [('a', 95.42, 4), ('b', -95.42, 4)]
    """
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, (int, np.integer)):
        raise ValueError(f"bootstrap must be an integer, got {bootstrap!r}")
    if bootstrap < 0:
        raise ValueError(f"bootstrap must be non-negative, got {bootstrap}")
    prior_ = checked_count(prior, "prior")
    z = z_quantile(confidence)
    if bootstrap > 0 and prior_ == 0:
        raise ValueError("bootstrap needs prior > 0 (a resample may contain a perfect record)")

    if isinstance(results, np.ndarray):
        name_list, gi, gj, gs = _games_from_matrix(results, names)
    else:
        name_list, gi, gj, gs = _games_from_results(results, names)
    n = len(name_list)
    score, games = _pair_sums(n, gi, gj, gs)

    if prior_ == 0:
        graph = sparse.csr_matrix(score > 0)
        n_comp, _ = sparse.csgraph.connected_components(graph, directed=True, connection="strong")
        if n_comp > 1:
            raise ValueError(
                "with prior=0 the ratings are infinite: some group of players never "
                "scored against the others (or a player has no games); use prior > 0"
            )

    r, hess = _fit_bt(score, games, prior_)
    ratings = r * ELO_PER_NAT

    if bootstrap > 0:
        rng = np.random.default_rng(seed)
        n_games = len(gs)
        samples = np.empty((bootstrap, n))
        for b in range(bootstrap):
            counts = np.bincount(rng.integers(0, n_games, size=n_games), minlength=n_games)
            s_b, g_b = _pair_sums(n, gi, gj, gs, counts.astype(float))
            samples[b] = _fit_bt(s_b, g_b, prior_)[0] * ELO_PER_NAT
        alpha = (1.0 - float(confidence)) / 2.0
        low, high = np.quantile(samples, [alpha, 1.0 - alpha], axis=0)
    else:
        centre = np.eye(n) - 1.0 / n
        cov = centre @ np.linalg.pinv(hess) @ centre
        se = np.sqrt(np.clip(np.diag(cov), 0.0, None)) * ELO_PER_NAT
        low, high = ratings - z * se, ratings + z * se

    played = np.rint(games.sum(axis=1)).astype(int)
    return _sorted_ratings([
        Rating(name_list[i], float(ratings[i]), float(low[i]), float(high[i]), int(played[i]))
        for i in range(n)
    ])


# ---------------------------------------------------------------------------
# Plackett-Luce (openskill)
# ---------------------------------------------------------------------------

def _parse_ranking(game: object, k: int, known: set[str]) -> list[list[str]]:
    """A ranking as a list of tied groups, first place first."""
    if isinstance(game, (str, bytes)) or not isinstance(game, Iterable):
        raise ValueError(f"games[{k}] must be a list of names or groups, got {game!r}")
    groups: list[list[str]] = []
    for entry in game:
        if isinstance(entry, str):
            group = [entry]
        elif isinstance(entry, Iterable) and not isinstance(entry, bytes):
            group = list(entry)
            if not group:
                raise ValueError(f"games[{k}] contains an empty group")
        else:
            raise ValueError(f"games[{k}]: expected a name or a group of names, got {entry!r}")
        for name in group:
            if not isinstance(name, str):
                raise ValueError(f"games[{k}]: names must be strings, got {name!r}")
            if name not in known:
                raise ValueError(f"games[{k}]: unknown name {name!r}")
        groups.append(sorted(group))
    flat = [p for g in groups for p in g]
    if len(set(flat)) != len(flat):
        raise ValueError(f"games[{k}]: a name appears more than once")
    if len(flat) < 2:
        raise ValueError(f"games[{k}] needs at least two players")
    return groups


def plackett_luce_ratings(
    games: Iterable[Sequence[str | Iterable[str]]],
    names: Sequence[str],
    confidence: float = 0.95,
) -> list[SkillRating]:
    """Weng-Lin Plackett-Luce ratings (openskill) from multiplayer rankings.

    Each game is a ranking from first to last place; an entry is a name or a
    list/set of names tied at that place.  Every player starts at openskill's
    default prior (mu 25, sigma 25/3) and games are processed in the given
    order (the Weng-Lin update is sequential, so order matters a little).

    Each :class:`SkillRating` has ``rating = mu``, ``low/high = mu -+ z * sigma``
    (z = 1.96 at 95% confidence) and ``ordinal = mu - 3 * sigma``.  Sorted by
    ``mu``, highest first.

    >>> games = [["a", "b", "c"], ["a", ["b", "c"]], ["b", "a", "c"], ["a", "b"]]
    >>> ratings = plackett_luce_ratings(games, ["a", "b", "c"])
    >>> [(r.name, r.games) for r in ratings]
    [('a', 4), ('b', 4), ('c', 3)]
    >>> r = ratings[0]
    >>> r.rating == r.mu and r.low < r.ordinal + 3 * r.sigma < r.high
    True
    """
    name_list = checked_names(names)
    z = z_quantile(confidence)
    known = set(name_list)
    model = PlackettLuce()
    current = {n: model.rating(name=n) for n in name_list}
    played = dict.fromkeys(name_list, 0)
    n_games = 0
    for k, game in enumerate(games):
        groups = _parse_ranking(game, k, known)
        order = [p for g in groups for p in g]
        ranks: list[float] = [place for place, g in enumerate(groups) for _ in g]
        updated = model.rate([[current[p]] for p in order], ranks=ranks)
        for p, team in zip(order, updated, strict=True):
            current[p] = team[0]
            played[p] += 1
        n_games += 1
    if n_games == 0:
        raise ValueError("games is empty")
    out: list[SkillRating] = []
    for n in name_list:
        mu, sigma = float(current[n].mu), float(current[n].sigma)
        out.append(SkillRating(n, mu, mu - z * sigma, mu + z * sigma, played[n],
                               mu, sigma, float(current[n].ordinal())))
    return _sorted_ratings(out)


# ---------------------------------------------------------------------------
# Pairwise matrix from multiplayer games
# ---------------------------------------------------------------------------

def pairwise_scores(
    records: Sequence[Mapping[str, float]],
) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Pairwise score matrix from per-game score shares.

    Each record maps the names in one game to their share of the win (summing
    to 1: winner 1, others 0; a win shared by k players is 1/k each).  Every
    pair in a game gets one pairwise result: 1 to whoever had the higher share,
    0.5 each if equal.

    Returns ``(names, mean, games)``: names sorted; ``mean[i, j]`` is i's mean
    pairwise score against j (NaN where they never met and on the diagonal);
    ``games[i, j]`` is how many games they shared.  ``mean * games`` (with NaN
    as 0) is a wins matrix for :func:`bradley_terry`.

    >>> names, mean, games = pairwise_scores([{"a": 1, "b": 0, "c": 0}, {"a": 0.5, "b": 0.5}])
    >>> names, float(mean[0, 1]), float(mean[1, 2]), games[0].tolist()
    (['a', 'b', 'c'], 0.75, 0.5, [0, 2, 1])
    """
    if isinstance(records, Mapping):
        raise ValueError("records must be a list of games (dicts), not a single dict")
    checked: list[dict[str, float]] = []
    for k, rec in enumerate(records):
        if not isinstance(rec, Mapping):
            raise ValueError(f"records[{k}] must be a dict {{name: score_share}}, got {rec!r}")
        if len(rec) < 2:
            raise ValueError(f"records[{k}] needs at least two players")
        shares: dict[str, float] = {}
        for name, share in rec.items():
            if not isinstance(name, str):
                raise ValueError(f"records[{k}]: names must be strings, got {name!r}")
            shares[name] = checked_count(share, f"records[{k}][{name!r}]")
        total = sum(shares.values())
        if not math.isclose(total, 1.0, abs_tol=1e-6):
            raise ValueError(f"records[{k}]: score shares must sum to 1, got {total}")
        checked.append(shares)
    if not checked:
        raise ValueError("records is empty")
    names = sorted({n for rec in checked for n in rec})
    index = {n: i for i, n in enumerate(names)}
    size = len(names)
    score = np.zeros((size, size))
    games = np.zeros((size, size), dtype=int)
    for rec in checked:
        items = list(rec.items())
        for x, (a, sa) in enumerate(items):
            for b, sb in items[x + 1:]:
                i, j = index[a], index[b]
                if math.isclose(sa, sb, rel_tol=1e-9, abs_tol=1e-12):
                    pa = 0.5
                else:
                    pa = 1.0 if sa > sb else 0.0
                score[i, j] += pa
                score[j, i] += 1.0 - pa
                games[i, j] += 1
                games[j, i] += 1
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(games > 0, score / np.maximum(games, 1), np.nan)
    return names, mean, games
