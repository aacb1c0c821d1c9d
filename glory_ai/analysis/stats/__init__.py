"""The one statistics layer: every statistic of glory_ai, used alike by ``glory-ai compare``
(:func:`summarize`, :func:`format_table`) and by ``report.html`` (the tables).

=====================================  ========================================================
module                                 statistics
=====================================  ========================================================
:mod:`.intervals`                      :func:`wilson_interval` (and :func:`wilson`, many at
                                       once); the logistic Elo scale (:func:`elo_from_score`,
                                       :func:`score_from_elo`); :func:`elo_interval`, an Elo
                                       difference with its interval from win/draw/loss counts
:mod:`.ladder`                         :func:`bradley_terry` (with :data:`BOOTSTRAP`
                                       resamples for its intervals),
                                       :func:`plackett_luce_ratings` (openskill),
                                       :func:`pairwise_scores`
:mod:`.sprt`                           :class:`SPRT`, :func:`sprt_decide`, and
                                       :class:`DealSPRT`, the test over whole deals that
                                       stops a head-to-head run
:mod:`.models`                         :func:`fit_logistic`, :func:`profile_interval`,
                                       :func:`stratified_difference` (Mantel-Haenszel),
                                       :func:`holm`
:mod:`.tables`                         functions of the frame of
                                       :func:`glory_ai.analysis.load.load_runs`, each a
                                       DataFrame: :func:`win_rates`, :func:`win_matrix`,
                                       :func:`ratings`, :func:`elo_difference`,
                                       :func:`seat_advantage`, :func:`seat_tests`,
                                       :func:`building_strength`, :func:`vp_breakdown`,
                                       :func:`end_conditions`, :func:`game_length`,
                                       :func:`roles_led`, :func:`compare_variants`; and
                                       the report's tests of two specs,
                                       :func:`score_test` and :func:`rates_test`
:mod:`.summary`                        :func:`summarize` (one run's records: the table of
                                       ``glory-ai compare``, from the tables above),
                                       :func:`win_matrix_frame`, :func:`format_table`
=====================================  ========================================================

The first four work on plain data (counts, lists of results, rankings); every bad input is
a ValueError naming the argument. docs/analysis.md gives the formulas.
"""
from .intervals import ELO_PER_NAT, elo_from_score, elo_interval, score_from_elo, wilson, wilson_interval
from .ladder import BOOTSTRAP, Rating, SkillRating, bradley_terry, pairwise_scores, plackett_luce_ratings
from .models import LogisticFit, fit_logistic, holm, profile_interval, stratified_difference
from .sprt import SPRT, DealSPRT, sprt_decide
from .summary import COLUMNS, format_table, summarize, win_matrix_frame
from .tables import (
    PRIOR_SD,
    building_strength,
    compare_variants,
    elo_difference,
    end_conditions,
    game_length,
    rates_test,
    ratings,
    roles_led,
    score_test,
    seat_advantage,
    seat_tests,
    vp_breakdown,
    win_matrix,
    win_rates,
)

__all__ = [
    "BOOTSTRAP", "COLUMNS", "ELO_PER_NAT", "PRIOR_SD", "SPRT", "DealSPRT", "LogisticFit",
    "Rating", "SkillRating", "bradley_terry", "building_strength", "compare_variants",
    "elo_difference", "elo_from_score", "elo_interval", "end_conditions", "fit_logistic",
    "format_table", "game_length", "holm", "pairwise_scores", "plackett_luce_ratings",
    "profile_interval", "ratings", "rates_test", "roles_led", "score_from_elo", "score_test",
    "seat_advantage", "seat_tests", "sprt_decide", "stratified_difference", "summarize",
    "vp_breakdown", "wilson", "wilson_interval", "win_matrix", "win_matrix_frame", "win_rates",
]
