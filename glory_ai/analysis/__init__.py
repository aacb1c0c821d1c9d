"""Analysis of arena runs: tidy tables, statistics, figures and a self-contained report.

>>> from glory_ai.analysis import load_runs, win_rates, write_report   # doctest: +SKIP
>>> frame = load_runs(["results/ladder", "results/ladder3"])             # doctest: +SKIP
>>> win_rates(frame, by="num_players")                                    # doctest: +SKIP
>>> write_report(["results/ladder"])                                     # doctest: +SKIP

* :func:`load_runs`: run folders (or ``games.jsonl`` files) into one pandas DataFrame, one
  row per game per seat (:mod:`glory_ai.analysis.load`).
* Tables (:mod:`glory_ai.analysis.tables`), each a DataFrame: :func:`win_rates`,
  :func:`win_matrix`, :func:`ratings`, :func:`seat_advantage`, :func:`seat_tests`,
  :func:`building_strength`, :func:`vp_breakdown`, :func:`end_conditions`,
  :func:`game_length`, :func:`roles_led`, :func:`compare_variants`.
* Figures (:mod:`glory_ai.analysis.figures`): matplotlib figures, PNG and SVG files that
  are byte-identical for identical input.
* :func:`write_report`: ``report.html`` (tables, figures inline, a plain-language summary
  and the run manifest) and ``summary.csv``; ``glory-ai report RUN_DIR ...`` on the
  command line (:mod:`glory_ai.analysis.commands`).

pandas and matplotlib are imported on first use: ``import glory_ai.analysis`` is light.
docs/analysis.md describes every table, figure and model.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__all__ = [
    "AnalysisError", "BUILDINGS", "building_strength", "compare_variants", "end_conditions",
    "findings", "game_length", "games", "load_runs", "ratings", "roles_led", "seat_advantage",
    "seat_tests", "vp_breakdown", "win_matrix", "win_rates", "write_report",
]

if TYPE_CHECKING:      # the names __getattr__ imports on first use, for the type checker
    from .load import BUILDINGS, games, load_runs
    from .report import findings, write_report
    from .tables import (
        building_strength,
        compare_variants,
        end_conditions,
        game_length,
        ratings,
        roles_led,
        seat_advantage,
        seat_tests,
        vp_breakdown,
        win_matrix,
        win_rates,
    )


class AnalysisError(ValueError):
    """Input the analysis cannot use (a missing folder, an empty run, a damaged line, runs
    that cannot be combined in one table): the message names the file or run and the
    problem, in one line meant for the user."""


_LAZY = {
    "BUILDINGS": "load", "load_runs": "load", "games": "load",
    "building_strength": "tables", "compare_variants": "tables", "end_conditions": "tables",
    "game_length": "tables", "ratings": "tables", "roles_led": "tables",
    "seat_advantage": "tables", "seat_tests": "tables", "vp_breakdown": "tables",
    "win_matrix": "tables", "win_rates": "tables",
    "findings": "report", "write_report": "report",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
