"""The one statistics layer: every statistic of glory_ai, used alike by ``glory-ai compare``
(:func:`summarize`, :func:`format_table`) and by ``report.html`` (the tables). Every
interval and test takes the deal as the unit, since every deal is played in every seat
rotation (docs/statistics.md).

=====================================  ========================================================
module                                 statistics
=====================================  ========================================================
:mod:`.paired`                         the statistics of paired deals, gathered from the six
                                       modules below (import them from here or from ``paired``)
:mod:`.intervals`                      the confidence level, Elo scales and interval models;
                                       estimates, Wilson intervals, t and Welch tests of
                                       independent units, :func:`holm`
:mod:`.pentanomial`                    the pentanomial model of a head-to-head match
                                       (:func:`head_to_head`, its Elo and normalized Elo)
:mod:`.gsprt`                          fishtest's generalized SPRT (``llr``, ``sprt``,
                                       ``sequential_sprt``)
:mod:`.bootstrap`                      the deal bootstrap of win shares
:mod:`.ladder`                         the finishing-ahead matrix, :func:`pairwise` results,
                                       Bradley-Terry :func:`ratings` with a prior
:mod:`.reruns`                         the re-run test
:mod:`.sprt`                           :class:`DealSPRT`, the SPRT over whole deals that
                                       stops a head-to-head run
:mod:`.models`                         :func:`clustered_logit` (statsmodels, deal-clustered
                                       covariance), :func:`stratified_difference`
                                       (Mantel-Haenszel)
:mod:`.tables`                         functions of the frame of
                                       :func:`glory_ai.analysis.load.load_runs`, each a
                                       DataFrame: :func:`win_rates`, :func:`finishing_matrix`,
                                       :func:`pairwise`, :func:`ratings`,
                                       :func:`seat_advantage`, :func:`seat_tests`,
                                       :func:`building_strength`, :func:`vp_breakdown`,
                                       :func:`end_conditions`, :func:`game_length`,
                                       :func:`roles_led`, :func:`compare_variants`; and
                                       :func:`rates_test` for two specs that never met
:mod:`.summary`                        :func:`summarize` (one run's records: the table of
                                       ``glory-ai compare``, from the tables above),
                                       :func:`finishing_frame`, :func:`format_table`, and
                                       :func:`compare_reruns` (``glory-ai reproduce`` of
                                       time-budget runs)
:mod:`.calibration`                    the simulator that measures the coverage and error
                                       rates of :mod:`.paired` (imported on its own)
=====================================  ========================================================

docs/analysis.md and docs/statistics.md give the formulas.
"""
from .models import clustered_logit, stratified_difference
from .paired import (
    HOLM_LABEL,
    RERUN_ALPHA,
    HeadToHead,
    elo_from_score,
    elo_text,
    format_elo,
    head_to_head,
    holm,
    paired_estimate,
    wilson,
)
from .sprt import DealSPRT
from .summary import COLUMNS, compare_reruns, finishing_frame, format_table, summarize
from .tables import (
    BUILDING_MODEL,
    PSEUDO_GAMES,
    SeatSums,
    building_strength,
    compare_variants,
    conditions_test,
    end_conditions,
    end_conditions_of_counts,
    finishing_matrix,
    game_length,
    game_length_of_counts,
    grid_scores,
    pair_sums,
    pairwise,
    rates_test,
    ratings,
    roles_led,
    roles_led_of_sums,
    seat_advantage,
    seat_advantage_of_sums,
    seat_tests,
    seat_tests_of_sums,
    specs_met,
    vp_breakdown,
    vp_breakdown_of_sums,
    win_rates,
)

__all__ = [
    "BUILDING_MODEL", "COLUMNS", "HOLM_LABEL", "PSEUDO_GAMES", "RERUN_ALPHA", "DealSPRT", "HeadToHead",
    "building_strength", "clustered_logit", "compare_reruns", "compare_variants", "conditions_test",
    "elo_from_score", "elo_text", "end_conditions", "end_conditions_of_counts", "finishing_matrix",
    "format_elo", "format_table", "game_length", "game_length_of_counts", "grid_scores", "head_to_head",
    "holm", "paired_estimate", "pair_sums", "pairwise", "rates_test", "ratings", "roles_led",
    "roles_led_of_sums", "SeatSums", "seat_advantage", "seat_advantage_of_sums", "seat_tests",
    "seat_tests_of_sums", "specs_met", "stratified_difference", "summarize", "vp_breakdown",
    "vp_breakdown_of_sums", "wilson", "finishing_frame", "win_rates",
]
