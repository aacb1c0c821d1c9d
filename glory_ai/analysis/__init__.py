"""Analysis of arena runs: the one statistics layer, figures and a self-contained report.

>>> from glory_ai.analysis.load import load_runs                          # doctest: +SKIP
>>> from glory_ai.analysis.stats import win_rates, summarize              # doctest: +SKIP
>>> from glory_ai.analysis.report import write_report                     # doctest: +SKIP
>>> frame = load_runs(["results/ladder", "results/ladder3"])             # doctest: +SKIP
>>> win_rates(frame, by="num_players")                                    # doctest: +SKIP
>>> write_report(["results/ladder"])                                     # doctest: +SKIP

* :mod:`glory_ai.analysis.load`: run folders (read by the arena's reader) or records into
  one pandas DataFrame, one row per game per seat (:func:`~glory_ai.analysis.load.load_runs`).
* :mod:`glory_ai.analysis.stats`: every statistic, with the deal as the unit -- intervals,
  Elo, ratings (Bradley-Terry, finite for any record), head-to-head results, the
  finishing-ahead matrix, the SPRT, win rates, seat tests, building strength, ... -- and
  ``summarize``, the table of ``glory-ai compare``.
* :mod:`glory_ai.analysis.figures`: every figure (matplotlib; byte-identical files for
  identical input), the compare command's win-rate plot included.
* :mod:`glory_ai.analysis.report`: ``report.html`` and ``summary.csv``.
* :mod:`glory_ai.analysis.commands`: ``glory-ai compare``, ``tournament`` and ``report``.

This package itself imports nothing heavy (the command line registers its commands from
it); its modules import pandas, scipy and matplotlib. docs/analysis.md describes every
table, figure and model.
"""

__all__ = ["AnalysisError"]


class AnalysisError(ValueError):
    """Input the analysis cannot use (a missing folder, an empty run, a damaged line, runs
    that cannot be combined in one table): the message names the file or run and the
    problem, in one line meant for the user."""
