"""Statistics that respect the design of a run: every deal is played in every seat rotation,
so the games of one deal belong together (docs/statistics.md).

Pure functions over numpy arrays and the frame of :func:`glory_ai.analysis.load_runs` (one
row per game per seat); no I/O. This module gathers them from the modules that hold them:
:mod:`.intervals` (the confidence level, Elo scales, model names, estimates and tests of
independent units, Holm), :mod:`.pentanomial` (a head-to-head match in pairs of games),
:mod:`.gsprt` (fishtest's generalized SPRT), :mod:`.bootstrap` (resampling deals),
:mod:`.ladder` (finishing order, pairwise results, ratings) and :mod:`.reruns` (the re-run
test); :mod:`.frames` holds their frame helpers.

=====================================  ==========================================================
:func:`head_to_head_games`             A's score in each game of A against B, with its pair id
:func:`pentanomial`                    counts of the five pair scores of A (LL ... WW)
:func:`trinomial`                      counts of losses, draws, wins (the independent-games view)
:func:`paired_estimate`                A's score, logistic and normalized Elo, 95% intervals from
                                       the pentanomial variance
:func:`independent_estimate`           the same from games taken as independent (Wilson)
:func:`head_to_head`                   both estimates and the test of "evenly matched" for two
                                       specs' 2-player games (compare's head-to-head row)
:func:`format_elo`, :func:`elo_text`   an Elo with its interval as text, a bound at 0% or 100%
:func:`wilson`                         Wilson intervals of many rates (games as independent)
:func:`mean_interval`,                 the t interval and t-test of independent units' values
:func:`mean_test`, :func:`welch_test`  (deals), and Welch's two-sample test
:func:`llr`                            the generalized log-likelihood ratio of fishtest's
                                       pentanomial (or trinomial) SPRT, normalized or logistic Elo
:func:`sprt`, :func:`sequential_sprt`  the SPRT decision from counts / from pairs in deal order
:func:`win_shares`                     win share per spec (or seat) with a deal-bootstrap
                                       interval and the independent-games (Wilson) interval beside
:func:`finishing_matrix`               fraction of games in which the row spec finished ahead of
                                       the column spec (:data:`FINISHING_CAPTION`)
:func:`pairwise`                       every two specs that met: score, interval, Elo and the
                                       Holm-adjusted test of "evenly matched", deals as the unit
:func:`ratings`                        Bradley-Terry on pairwise finishing order with a Gaussian
                                       prior: finite for any record; deal-bootstrap intervals
:func:`deal_means`, :func:`deal_scores` per-deal means of a column / of a spec's win share
:func:`rerun_test`, :func:`rerun_tests` the two-sample test of "same win probability" for a
                                       re-run, one spec / every spec with Holm's correction
:func:`holm`                           Holm-adjusted p-values (statsmodels) and their label
=====================================  ==========================================================

Every interval says which model it comes from (the ``MODEL_*`` strings, kept in the
``model`` fields and the tables' ``attrs``).
"""
from __future__ import annotations

from .bootstrap import bootstrap_rates, deal_resamples, expanded_percentile, win_shares
from .gsprt import EloModel, SPRTResult, llr, sequential_sprt, sprt, sprt_bounds
from .intervals import (
    BOOTSTRAP_RESAMPLES,
    CONFIDENCE,
    ELO_PER_NAT,
    HOLM_LABEL,
    INTERVAL_BOOTSTRAP,
    INTERVAL_DEAL_T,
    INTERVAL_PENTANOMIAL,
    INTERVAL_WILSON,
    MODEL_DEAL_BOOTSTRAP,
    MODEL_DEAL_T,
    MODEL_INDEPENDENT,
    MODEL_PENTANOMIAL,
    MODEL_TEXT,
    NELO_PER_T,
    Estimate,
    elo_from_score,
    elo_text,
    format_elo,
    holm,
    independent_estimate,
    mean_interval,
    mean_test,
    welch_test,
    wilson,
)
from .ladder import (
    FINISHING_CAPTION,
    RATING_BOOTSTRAP,
    RATING_FIXED,
    RATING_PRIOR_SD,
    RATING_PROFILE,
    finishing_matrix,
    pairwise,
    ratings,
)
from .pentanomial import (
    PAIR_SCORES,
    PENTANOMIAL_CELLS,
    HeadToHead,
    Pentanomial,
    head_to_head,
    head_to_head_games,
    paired_estimate,
    pentanomial,
    trinomial,
)
from .reruns import (
    MODEL_RERUN,
    RERUN_ALPHA,
    RerunTest,
    deal_means,
    deal_scores,
    rerun_test,
    rerun_test_pentanomial,
    rerun_tests,
)

__all__ = [
    "BOOTSTRAP_RESAMPLES", "CONFIDENCE", "ELO_PER_NAT", "FINISHING_CAPTION", "HOLM_LABEL",
    "INTERVAL_BOOTSTRAP", "INTERVAL_DEAL_T", "INTERVAL_PENTANOMIAL", "INTERVAL_WILSON",
    "MODEL_DEAL_BOOTSTRAP", "MODEL_DEAL_T", "MODEL_INDEPENDENT", "MODEL_PENTANOMIAL",
    "MODEL_RERUN", "MODEL_TEXT", "NELO_PER_T", "PAIR_SCORES", "PENTANOMIAL_CELLS",
    "RATING_BOOTSTRAP", "RATING_FIXED", "RATING_PRIOR_SD", "RATING_PROFILE", "RERUN_ALPHA", "EloModel",
    "Estimate", "HeadToHead", "Pentanomial", "RerunTest", "SPRTResult", "bootstrap_rates",
    "deal_means", "deal_resamples", "deal_scores", "elo_from_score", "elo_text",
    "expanded_percentile", "finishing_matrix", "format_elo", "head_to_head",
    "head_to_head_games", "holm", "independent_estimate", "llr", "mean_interval", "mean_test",
    "paired_estimate", "pairwise", "pentanomial", "ratings", "rerun_test",
    "rerun_test_pentanomial", "rerun_tests", "sequential_sprt", "sprt", "sprt_bounds",
    "trinomial", "welch_test", "wilson", "win_shares",
]
