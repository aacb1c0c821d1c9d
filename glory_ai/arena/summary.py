"""Statistics over game records (through :mod:`glory_ai.arena.stats`) and the win-rate plot.

:func:`summarize` gives one row per spec: games (seat-games: a spec holding two seats of a
game counts two), wins (a win shared by k players is 1/k), the win rate with its Wilson 95%
interval, a rating with its interval (head to head: the Elo difference from W/D/L; round
robin and gauntlet: Bradley-Terry with a seeded bootstrap; 3-5-player fields: Plackett-Luce
through openskill), the mean final VP and the think time per decision. The summary's
``attrs`` hold the description, the rating kind, the pairwise win matrix and the SPRT outcome.
"""
from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import stats
from .plan import ArenaError, RunConfig
from .play import record_key

__all__ = ["DealSPRT", "format_table", "plot_win_rates", "summarize", "win_matrix_frame",
           "BOOTSTRAP", "COLUMNS"]

#: bootstrap resamples for Bradley-Terry intervals
BOOTSTRAP = 200

COLUMNS = ["games", "wins", "win_rate", "win_low", "win_high", "rating", "rating_low",
           "rating_high", "mean_vp", "sec_per_decision"]


def _shares(record: Mapping[str, Any]) -> list[float]:
    """Each seat's share of the win."""
    winners = record["winners"]
    n = record["num_players"]
    if not winners:
        return [0.0] * n
    share = 1.0 / len(winners)
    return [share if s in winners else 0.0 for s in range(n)]


def _spec_shares(record: Mapping[str, Any]) -> dict[str, float]:
    """Each spec's share of the win in one game (seats of the same spec added up)."""
    out: dict[str, float] = {}
    for spec, share in zip(record["seats"], _shares(record), strict=True):
        out[spec] = out.get(spec, 0.0) + share
    return out


class DealSPRT:
    """SPRT over whole deals of a head-to-head run, in deal order.

    Games are fed in any order; the test advances deal by deal (0, 1, 2, ...) as each deal
    has all its games, so the decision and the games it used do not depend on scheduling.
    """

    def __init__(self, specs: Sequence[str], games_per_deal: int,
                 params: Sequence[float]) -> None:
        self.a, self.b = specs
        self.games_per_deal = games_per_deal
        self.params = tuple(float(x) for x in params)
        self.test = stats.SPRT(*self.params)
        self.pending: dict[int, list[Mapping[str, Any]]] = {}
        self.next_deal = 0
        self.counts = [0.0, 0.0, 0.0]      # wins, draws, losses of a against b
        self.decision: str | None = None
        self.games = 0

    def add(self, records: Iterable[Mapping[str, Any]]) -> str | None:
        for rec in records:
            self.pending.setdefault(rec["deal"], []).append(rec)
        while self.decision is None and len(self.pending.get(self.next_deal, ())) >= self.games_per_deal:
            for rec in self.pending.pop(self.next_deal):
                share = _spec_shares(rec).get(self.a, 0.0)
                self.counts[0 if share == 1.0 else 1 if share == 0.5 else 2] += 1
                self.games += 1
            self.next_deal += 1
            self.decision = self.test.update(*self.counts)
        return self.decision

    def deals(self) -> int:
        """Whole deals counted so far."""
        return self.next_deal

    def to_dict(self) -> dict[str, Any]:
        elo0, elo1, alpha, beta = self.params
        return {
            "elo0": elo0, "elo1": elo1, "alpha": alpha, "beta": beta,
            "decision": self.decision, "games": self.games, "deals": self.next_deal,
            "llr": self.test.llr, "lower": self.test.lower, "upper": self.test.upper,
            "wins": self.counts[0], "draws": self.counts[1], "losses": self.counts[2],
            "a": self.a, "b": self.b,
        }

    def describe(self) -> str:
        d = self.to_dict()
        head = (f"SPRT elo0={d['elo0']:g} elo1={d['elo1']:g} alpha={d['alpha']:g} "
                f"beta={d['beta']:g}: ")
        if self.decision == "H1":
            verdict = f"H1 accepted ({self.a} is at least {d['elo1']:g} Elo stronger than {self.b})"
        elif self.decision == "H0":
            verdict = f"H0 accepted ({self.a} is at most {d['elo0']:g} Elo stronger than {self.b})"
        else:
            verdict = "undecided"
        return (f"{head}{verdict} after {self.games} games ({self.next_deal} deals), "
                f"LLR {d['llr']:.2f} in [{d['lower']:.2f}, {d['upper']:.2f}]")


def _infer_format(records: Sequence[Mapping[str, Any]], specs: Sequence[str]) -> str:
    if any(r["num_players"] > 2 for r in records):
        return "field"
    if any(len(set(r["seats"])) < 2 for r in records):
        return "field"
    return "head_to_head" if len(specs) == 2 else "round_robin"


def _ranking(record: Mapping[str, Any]) -> list[list[str]]:
    """Places from first to last: winners first, then by score (ties grouped)."""
    winners = set(record["winners"])
    scores = record["scores"]
    places: list[list[str]] = []
    if winners:
        places.append([record["seats"][s] for s in sorted(winners)])
    rest = sorted((s for s in range(record["num_players"]) if s not in winners),
                  key=lambda s: -scores[s])
    last = None
    for s in rest:
        if last is not None and scores[s] == last:
            places[-1].append(record["seats"][s])
        else:
            places.append([record["seats"][s]])
        last = scores[s]
    return places


def summarize(records: Iterable[Mapping[str, Any]], config: RunConfig | None = None, *,
              sprt: Sequence[float] | None = None, bootstrap: int = BOOTSTRAP,
              seed: int = 0) -> pd.DataFrame:
    """One row per spec (index ``spec``), sorted by win rate; see the module docstring.

    ``config`` gives the spec order, the format and the games per deal; without it they are
    inferred from the records. ``sprt`` (default: ``config.sprt``) runs the SPRT over whole
    deals in deal order; once decided, only the games up to the deciding deal are counted.
    """
    recs = sorted(records, key=record_key)
    if not recs:
        raise ArenaError("no games to summarize")
    if config is not None:
        specs = list(config.specs)
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
            raise ArenaError("SPRT needs a head-to-head match (2 specs, 2 players)")
        test = DealSPRT(specs, per_deal, sprt)
        test.add(recs)
        sprt_info = test.to_dict()
        sprt_info["text"] = test.describe()
        if test.decision is not None:
            recs = [r for r in recs if r["deal"] < test.deals()]

    index = {s: i for i, s in enumerate(specs)}
    n = len(specs)
    games = np.zeros(n, dtype=int)
    wins = np.zeros(n)
    vp = np.zeros(n)
    secs = np.zeros(n)
    moves = np.zeros(n)
    for r in recs:
        for s, (spec, share) in enumerate(zip(r["seats"], _shares(r), strict=True)):
            i = index[spec]
            games[i] += 1
            wins[i] += share
            vp[i] += r["scores"][s]
            secs[i] += r["seconds"][s] if "seconds" in r else 0.0
            moves[i] += r["seat_decisions"][s] if "seat_decisions" in r else 0
    rows: dict[str, dict[str, float]] = {}
    for spec, i in index.items():
        low, high = stats.wilson_interval(wins[i], int(games[i]))
        rows[spec] = {
            "games": int(games[i]), "wins": float(wins[i]),
            "win_rate": wins[i] / games[i] if games[i] else math.nan,
            "win_low": low, "win_high": high,
            "rating": math.nan, "rating_low": math.nan, "rating_high": math.nan,
            "mean_vp": vp[i] / games[i] if games[i] else math.nan,
            "sec_per_decision": secs[i] / moves[i] if moves[i] else math.nan,
        }

    rating_kind = None
    if fmt == "head_to_head" and n == 2 and recs:
        a, b = specs
        w = d = l_ = 0
        for r in recs:
            share = _spec_shares(r).get(a, 0.0)
            w, d, l_ = w + (share == 1.0), d + (share == 0.5), l_ + (share == 0.0)
        elo, low, high = stats.elo_interval(w, d, l_)
        rows[a].update(rating=elo, rating_low=low, rating_high=high)
        rows[b].update(rating=-elo, rating_low=-high, rating_high=-low)
        rating_kind = "elo"
    elif fmt in ("round_robin", "gauntlet") and recs:
        results = []
        for r in recs:
            x, y = r["seats"]
            results.append((x, y, _shares(r)[0]))
        for rating in stats.bradley_terry(results, names=specs, bootstrap=bootstrap, seed=seed):
            rows[rating.name].update(rating=rating.rating, rating_low=rating.low,
                                     rating_high=rating.high)
        rating_kind = "bradley_terry"
    elif n >= 2 and recs and all(len(set(r["seats"])) == len(r["seats"]) for r in recs):
        rankings = [_ranking(r) for r in recs]
        for rating in stats.plackett_luce_ratings(rankings, specs):
            rows[rating.name].update(rating=rating.rating, rating_low=rating.low,
                                     rating_high=rating.high)
        rating_kind = "plackett_luce"

    frame = pd.DataFrame.from_dict(rows, orient="index", columns=COLUMNS)
    frame.index.name = "spec"
    frame["games"] = frame["games"].astype(int)
    frame = frame.sort_values(["win_rate", "rating"], ascending=False, kind="stable",
                              na_position="last")
    matrix = _win_matrix(recs)
    frame.attrs.update({
        "description": description, "format": fmt, "rating": rating_kind,
        "games": len(recs), "sprt": sprt_info, "win_matrix": matrix,
        "players": max(r["num_players"] for r in recs) if recs else None,
    })
    return frame


def _win_matrix(records: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    games = [_spec_shares(r) for r in records]
    games = [g for g in games if len(g) >= 2]
    if not games:
        return None
    names, mean, count = stats.win_matrix(games)
    return {"names": names,
            "mean": [[None if math.isnan(x) else float(x) for x in row] for row in mean],
            "games": count.tolist()}


def win_matrix_frame(summary_or_records: pd.DataFrame | Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """The pairwise win matrix as a DataFrame: row spec's mean pairwise score against the
    column spec (NaN where they never met)."""
    if isinstance(summary_or_records, pd.DataFrame):
        matrix = summary_or_records.attrs.get("win_matrix")
    else:
        matrix = _win_matrix(list(summary_or_records))
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


def plot_win_rates(summary: pd.DataFrame, path: str | os.PathLike,
                   title: str | None = None) -> Path:
    """Horizontal bars of the win rates with their Wilson 95% intervals, sorted; a PNG, or
    an SVG when ``path`` ends in ``.svg``. The same summary gives the same bytes."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    path = Path(path)
    data = summary.sort_values("win_rate", kind="stable")
    names = [str(s) for s in data.index]
    rates = data["win_rate"].to_numpy(dtype=float)
    low = np.clip(rates - data["win_low"].to_numpy(dtype=float), 0, None)
    high = np.clip(data["win_high"].to_numpy(dtype=float) - rates, 0, None)
    title = title or summary.attrs.get("description") or "win rates"
    svg = path.suffix.lower() == ".svg"
    with matplotlib.rc_context({"svg.hashsalt": "glory_ai", "svg.fonttype": "path",
                                "font.family": "DejaVu Sans"}):
        fig = Figure(figsize=(7.5, 1.2 + 0.45 * len(names)), dpi=100)
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        y = np.arange(len(names))
        ax.barh(y, rates, color="#4c72b0", height=0.6)
        ax.errorbar(rates, y, xerr=[low, high], fmt="none", ecolor="black", capsize=4, lw=1)
        for yi, rate, hi in zip(y.tolist(), rates, high, strict=True):
            if not math.isnan(rate):
                ax.text(min(rate + hi + 0.01, 0.99), yi, f"{rate:.1%}", va="center", fontsize=8)
        ax.set_yticks(y, names)
        ax.set_xlim(0, 1)
        ax.xaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
        ax.set_xlabel("win rate (shared wins split), 95% Wilson interval")
        players = summary.attrs.get("players")
        if players:
            ax.axvline(1.0 / players, color="grey", lw=0.8, ls="--")
        ax.set_title(title, fontsize=9, wrap=True)
        fig.tight_layout()
        if svg:
            fig.savefig(path, format="svg", metadata={"Date": None, "Creator": None})
        else:
            fig.savefig(path, format="png", metadata={"Software": None})
    return path
