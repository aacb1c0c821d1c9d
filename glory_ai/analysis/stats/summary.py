"""The summary of one run: the table ``glory-ai compare`` prints, built from the same
statistics as the report (:mod:`.tables`).

:func:`summarize` gives one row per spec: games (seat-games: a spec holding two seats of a
game counts two), wins (a win shared by k players is 1/k), the win rate with its Wilson 95%
interval (:func:`.tables.win_rates`), a rating with its interval (head to head: the Elo
difference from W/D/L, :func:`.tables.elo_difference`; round robin and gauntlet:
Bradley-Terry with a seeded bootstrap; 3-5-player fields: Plackett-Luce through openskill,
both :func:`.tables.ratings`), the mean final VP and the think time per decision. The
summary's ``attrs`` hold the description, the rating kind, the pairwise win matrix
(:func:`.tables.win_matrix`) and the SPRT outcome (:class:`.sprt.DealSPRT`).
:func:`format_table` is the printed table; ``glory_ai.analysis.figures.plot_summary`` the plot.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...arena.plan import RunConfig
from ...arena.play import record_key
from .. import AnalysisError
from ..load import frame_of_records
from .ladder import BOOTSTRAP
from .sprt import DealSPRT
from .tables import elo_difference, ratings, win_matrix, win_rates

__all__ = ["COLUMNS", "format_table", "summarize", "win_matrix_frame"]

COLUMNS = ["games", "wins", "win_rate", "win_low", "win_high", "rating", "rating_low",
           "rating_high", "mean_vp", "sec_per_decision"]


def _infer_format(records: Sequence[Mapping[str, Any]], specs: Sequence[str]) -> str:
    if any(r["num_players"] > 2 for r in records):
        return "field"
    if any(len(set(r["seats"])) < 2 for r in records):
        return "field"
    return "head_to_head" if len(specs) == 2 else "round_robin"


def summarize(records: Iterable[Mapping[str, Any]], config: RunConfig | None = None, *,
              sprt: Sequence[float] | None = None, bootstrap: int = BOOTSTRAP,
              seed: int = 0) -> pd.DataFrame:
    """One row per spec (index ``spec``), sorted by win rate; see the module docstring.
    The records are those of one run (one player count).

    ``config`` gives the spec order, the format and the games per deal; without it they are
    inferred from the records. ``sprt`` (default: ``config.sprt``) runs the SPRT over whole
    deals in deal order; once decided, only the games up to the deciding deal are counted.
    """
    recs = sorted(records, key=record_key)
    if not recs:
        raise AnalysisError("no games to summarize")
    if config is not None:
        specs = list(dict.fromkeys(config.specs))         # a field may repeat a spec
        fmt = config.format
        per_deal = config.games_per_deal
        sprt = config.sprt if sprt is None else sprt
        description = config.describe()
    else:
        specs = list(dict.fromkeys(s for r in recs for s in r["seats"]))
        fmt = _infer_format(recs, specs)
        counts: dict[int, int] = {}
        for r in recs:
            counts[r["deal"]] = counts.get(r["deal"], 0) + 1
        per_deal = max(counts.values())
        description = f"{len(recs)} games of {', '.join(specs)}"

    sprt_info = None
    if sprt is not None:
        if fmt != "head_to_head" or len(specs) != 2:
            raise AnalysisError("SPRT needs a head-to-head match (2 specs, 2 players)")
        test = DealSPRT(specs, per_deal, sprt)
        test.add(recs)
        sprt_info = test.to_dict()
        sprt_info["text"] = test.describe()
        if test.decision is not None:
            recs = [r for r in recs if r["deal"] < test.deals()]

    frame = frame_of_records(recs)
    players = int(frame["num_players"].max())
    rates = win_rates(frame).reset_index()
    rates.index = pd.Index(rates.pop("spec").astype(str))
    out = pd.DataFrame(index=pd.Index(specs, name="spec"), columns=COLUMNS, dtype=float)
    out["games"] = rates["games"].reindex(specs).fillna(0).astype(int)
    out["wins"] = rates["wins"].reindex(specs).fillna(0.0)
    out["win_rate"] = rates["win_rate"].reindex(specs)
    out["win_low"] = rates["win_low"].reindex(specs).fillna(0.0)
    out["win_high"] = rates["win_high"].reindex(specs).fillna(1.0)
    out["mean_vp"] = rates["mean_score"].reindex(specs)
    # think time per decision: seconds and decisions added up in record order
    spec_codes = pd.Categorical(frame["spec"].astype(str), categories=specs).codes
    seconds = np.bincount(spec_codes, weights=np.nan_to_num(frame["seconds"].to_numpy(float)),
                          minlength=len(specs))
    moves = np.bincount(spec_codes, weights=np.nan_to_num(frame["seat_decisions"].to_numpy(float)),
                        minlength=len(specs))
    with np.errstate(invalid="ignore", divide="ignore"):
        out["sec_per_decision"] = np.where(moves > 0, seconds / np.maximum(moves, 1), math.nan)

    rating_kind = None
    if fmt == "head_to_head" and len(specs) == 2:
        a, b = specs
        elo = elo_difference(frame, a, b)
        out.loc[a, ["rating", "rating_low", "rating_high"]] = [elo["elo"], elo["low"], elo["high"]]
        out.loc[b, ["rating", "rating_low", "rating_high"]] = [-elo["elo"], -elo["high"], -elo["low"]]
        rating_kind = "elo"
    elif fmt in ("round_robin", "gauntlet") or (
            len(specs) >= 2 and all(len(set(r["seats"])) == len(r["seats"]) for r in recs)):
        method = "bradley_terry" if fmt in ("round_robin", "gauntlet") else "plackett_luce"
        rated = ratings(frame, players, bootstrap=bootstrap, seed=seed, names=specs, method=method)
        for spec, row in rated.iterrows():
            out.loc[str(spec), ["rating", "rating_low", "rating_high"]] = \
                [row["rating"], row["low"], row["high"]]
        rating_kind = method

    out = out.sort_values(["win_rate", "rating"], ascending=False, kind="stable",
                          na_position="last")
    out.attrs.update({
        "description": description, "format": fmt, "rating": rating_kind,
        "games": len(recs), "sprt": sprt_info, "win_matrix": _win_matrix(frame, players),
        "players": players,
    })
    return out


def _win_matrix(frame: pd.DataFrame, players: int) -> dict[str, Any] | None:
    """The pairwise win matrix of :func:`.tables.win_matrix` as plain lists (None where
    no two specs met)."""
    matrix = win_matrix(frame, players)
    games = matrix.attrs["games"]
    if not any(any(row) for row in games):
        return None
    mean = matrix.to_numpy(float)
    return {"names": [str(n) for n in matrix.index],
            "mean": [[None if math.isnan(x) else float(x) for x in row] for row in mean],
            "games": games}


def win_matrix_frame(summary_or_records: pd.DataFrame | Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """The pairwise win matrix as a DataFrame: row spec's mean pairwise score against the
    column spec (NaN where they never met)."""
    if isinstance(summary_or_records, pd.DataFrame):
        matrix = summary_or_records.attrs.get("win_matrix")
    else:
        frame = frame_of_records(list(summary_or_records))
        matrix = _win_matrix(frame, int(frame["num_players"].max()))
    if matrix is None:
        return pd.DataFrame()
    return pd.DataFrame(matrix["mean"], index=matrix["names"], columns=matrix["names"],
                        dtype=float)


# ---- display --------------------------------------------------------------------------

_RATING_NAMES = {"elo": "Elo diff", "bradley_terry": "BT Elo", "plackett_luce": "PL mu"}


def _num(x: float, fmt: str) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return format(x, fmt)


def format_table(summary: pd.DataFrame) -> str:
    """The summary as a plain-text table (spec, games, win rate and 95% interval, rating
    and interval, mean VP, ms per decision)."""
    kind = summary.attrs.get("rating")
    rating_head = _RATING_NAMES.get(kind, "rating")
    rows = [["spec", "games", "win rate", "95% interval", rating_head, "95% interval",
             "mean VP", "ms/move"]]
    sign = "+" if kind in ("elo", "bradley_terry") else ""
    for spec, r in summary.iterrows():
        rows.append([
            str(spec), str(int(r["games"])), _num(100 * r["win_rate"], ".1f") + "%",
            f"[{_num(100 * r['win_low'], '.1f')}, {_num(100 * r['win_high'], '.1f')}]",
            _num(r["rating"], sign + ".1f"),
            "" if math.isnan(r["rating"]) else
            f"[{_num(r['rating_low'], sign + '.1f')}, {_num(r['rating_high'], sign + '.1f')}]",
            _num(r["mean_vp"], ".1f"), _num(1000 * r["sec_per_decision"], ".3f"),
        ])
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
    lines = []
    for k, row in enumerate(rows):
        cells = [row[0].ljust(widths[0])]
        cells += [cell.rjust(w) for cell, w in zip(row[1:], widths[1:], strict=True)]
        lines.append("  ".join(cells).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    sprt = summary.attrs.get("sprt")
    if sprt:
        lines.append(sprt["text"])
    return "\n".join(lines)
