"""What an experiment's results derive from its records, computed in one place for the
command that writes them (``glory-ai run``, :mod:`glory_ai.experiments.runner`) and the one
that checks them (``glory-ai verify``, :mod:`glory_ai.experiments.verify`): every run's
win-rate table (``runs.csv``), the README's table of it, and the grids whose curves the report
draws to answer the question.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from .config import Experiment

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["readme_table", "report_grids", "runs_table"]


def runs_table(experiment: Experiment, out: Path) -> pd.DataFrame:
    """Every run's win-rate table (one row per run and spec), from the records in ``out``:
    compare's table of each run (from its columns file a row group at a time, made from the
    records where missing or stale; the records' own table where it cannot be)."""
    import pandas as pd

    from ..analysis.stats.summary import summarize_run

    frames = []
    for planned in experiment.runs():
        table = summarize_run(out / "runs" / planned.name, planned.config).reset_index()
        table.insert(0, "run", planned.name)
        frames.append(table)
    return pd.concat(frames, ignore_index=True)


def report_grids(experiment: Experiment) -> list[Any]:
    """The matchups whose grid varies one number of one spec against the same opponents
    (e.g. ``ismcts:iters={iters}`` against ``ismcts:iters=500``), as the report's
    :class:`~glory_ai.analysis.report.Grid`: their curve answers the question."""
    from ..analysis.report import Grid

    grids = []
    runs = experiment.runs()
    for matchup in experiment.matchups:
        templated = [i for i, spec in enumerate(matchup.specs) if "{" in spec]
        if len(matchup.grid) != 1 or len(templated) != 1 or len(matchup.variants) > 1 \
                or len(matchup.players) > 1:
            continue
        (key, values), = matchup.grid.items()
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            continue
        points = tuple((float(p.grid_point[key]), p.name, p.config.specs[templated[0]])
                       for p in runs if p.matchup == matchup.name)
        if len(points) < 2:
            continue
        # as the runs record them (canonical: `Greedy` is `greedy`), not as the config writes them
        first = next(p for p in runs if p.matchup == matchup.name)
        opponents = tuple(s for i, s in enumerate(first.config.specs) if i != templated[0])
        grids.append(Grid(matchup.name, key, matchup.specs[templated[0]], opponents, points))
    return grids


def readme_table(summary: pd.DataFrame) -> list[str]:
    """The README's table of the runs' win rates (lines of Markdown), specs by their labels
    (the parameters that differ from the bot's defaults)."""
    from ..analysis.report import spec_labels

    labels = spec_labels(summary["spec"].astype(str))
    lines = ["| run | spec | games | win rate | 95% interval | mean VP |", "|---|---|---:|---:|---|---:|"]
    for row in summary.itertuples(index=False):
        row = row._asdict()
        lines.append(f"| {row['run']} | `{labels[str(row['spec'])]}` | {row['games']} | "
                     f"{100 * row['win_rate']:.1f}% | [{100 * row['win_low']:.1f}, "
                     f"{100 * row['win_high']:.1f}] | {row['mean_vp']:.1f} |")
    return lines
