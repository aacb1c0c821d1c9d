"""Every figure of glory_ai (matplotlib, Agg, no pyplot state): each ``plot_*`` function takes
a table of :mod:`glory_ai.analysis.stats` (or the frame, for the game-length histograms)
and returns a :class:`matplotlib.figure.Figure`; :func:`save` writes it as PNG or SVG and
:func:`figure_bytes` returns the bytes. :func:`plot_summary` is the plot of ``glory-ai
compare`` (a :func:`~glory_ai.analysis.stats.summarize` summary, written to a file).

Every ``plot_*`` of the report takes ``narrow=True`` for the layout of a phone's column
(:data:`NARROW` inches instead of :data:`WIDTH`): names above the bars instead of beside
them, numbered heatmap axes with a key, stacked panels, wrapped titles; the report shows
it below 640 px.

Identical input gives byte-identical files, whatever was drawn before and in whichever
process: the settings of :data:`RC` (one font, DejaVu Sans, shipped with matplotlib; text
as paths; a fixed ``svg.hashsalt`` for the SVG ids) and the metadata of :data:`PNG_METADATA`
and :data:`SVG_METADATA` (no dates, no software versions) are applied to every figure in
:func:`figure_bytes`, and a figure's constrained layout is computed once, on its first
save, then kept (so a PNG and an SVG of one figure share one layout). A spec keeps its
colour in every figure (:func:`spec_colors`).
"""
from __future__ import annotations

import contextlib
import io
import math
import os
import textwrap
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..core.enums import EndReason

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from matplotlib.typing import RcKeyType

# matplotlib is imported where a figure is drawn: the report's tables alone (and compare's)
# never load it (27 MB resident)

__all__ = [
    "END_COLORS", "NARROW", "PNG_METADATA", "RC", "SEAT_COLORS", "SVG_METADATA", "VP_COLORS", "WIDTH",
    "figure_bytes", "plot_building_strength", "plot_end_conditions", "plot_finishing_matrix",
    "length_counts", "plot_game_length", "plot_game_length_counts", "plot_grid_curve", "plot_ratings",
    "plot_seat_advantage", "plot_summary", "plot_vp_breakdown", "plot_win_rates", "save", "spec_colors",
]

#: matplotlib settings of every figure (and of saving it)
RC: dict[RcKeyType, Any] = {
    "svg.hashsalt": "glory_ai.analysis",
    "svg.fonttype": "path",
    "font.family": "DejaVu Sans",
    "mathtext.fontset": "dejavusans",
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": False,
    "xtick.labelsize": 9.5,
    "ytick.labelsize": 9.5,
    "legend.fontsize": 9.5,
    "legend.frameon": False,
    "figure.dpi": 100,
    "savefig.dpi": 150,
    "path.simplify": True,
}
#: the metadata written into every PNG and SVG (None: left out)
PNG_METADATA = {"Date": None, "Software": None}
SVG_METADATA = {"Date": None, "Creator": None}

#: colours of the strategies, in order of their sorted names (tab10, then tab20's light ones)
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896",
           "#c5b0d5", "#c49c94", "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5")
SEAT_COLORS = ("#3b6fb6", "#e5862d", "#4aa35a", "#c9483f", "#8a6fbf")
VP_COLORS = {"influence": "#3b6fb6", "vault": "#e5862d", "merchant_bonus": "#4aa35a",
             "statue": "#c9483f", "wall": "#8a6fbf", "buildings": "#7a7a7a"}
VP_LABELS = {"influence": "influence", "vault": "vault", "merchant_bonus": "Merchant bonuses",
             "statue": "Statue", "wall": "Wall", "buildings": "building points"}
#: by end reason (an EndReason is its string, so the record's "deck" finds EndReason.DECK)
END_COLORS: dict[str, str] = {
    EndReason.DECK: "#3b6fb6", EndReason.SITES: "#4aa35a", EndReason.CATACOMB: "#8a6fbf",
    EndReason.FORUM: "#e5862d", EndReason.CONCESSION: "#8c8c8c"}
END_LABELS: dict[str, str] = {
    EndReason.DECK: "deck ran out", EndReason.SITES: "out of sites", EndReason.CATACOMB: "Catacomb",
    EndReason.FORUM: "Forum", EndReason.CONCESSION: "concession"}
COUNT_COLORS = {2: "#3b6fb6", 3: "#e5862d", 4: "#4aa35a", 5: "#c9483f"}
#: width of most figures, inches (1000 px at 100 dpi: the report's column)
WIDTH = 10.0
#: width of the narrow layout, inches (a phone's column, 360 px at 100 dpi)
NARROW = 3.6
#: characters per line of a wrapped title and axis label in the narrow layout
_TITLE_CHARS = 40
_LABEL_CHARS = 40
#: characters per line of an axis label that would run past the edge of a wide figure
_WIDE_LABEL_CHARS = 90


@contextlib.contextmanager
def _style() -> Iterator[None]:
    import matplotlib

    with matplotlib.rc_context(RC):
        yield


def _figure(height: float, width: float = WIDTH) -> Figure:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def spec_colors(specs: Sequence[str]) -> dict[str, str]:
    """A colour per spec, from the sorted names: the same specs get the same colours in
    every figure and report."""
    names = sorted({str(s) for s in specs})
    return {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(names)}


def _colors_for(names: Sequence[str], colors: Mapping[str, str] | None) -> list[str]:
    mapping = spec_colors(names) if colors is None else colors
    return [mapping.get(n, "#8c8c8c") for n in names]


def save(fig: Figure, path: str | os.PathLike) -> Path:
    """Write a figure as PNG, or SVG for a ``.svg`` path; the same figure gives the same
    bytes."""
    path = Path(path)
    path.write_bytes(figure_bytes(fig, "svg" if path.suffix.lower() == ".svg" else "png"))
    return path


def figure_bytes(fig: Figure, fmt: str = "png") -> bytes:
    """The figure as PNG or SVG bytes, without dates or software versions: the same figure
    gives the same bytes in any process, however often and in whatever order it is saved."""
    if fmt not in ("png", "svg"):
        raise ValueError(f"figures are written as png or svg, not {fmt!r}")
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    buffer = io.BytesIO()
    with _style():
        if isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine):
            # constrained layout moves the axes a little on every draw (and differently for
            # each renderer's resolution): lay it out once, at the PNG's resolution, then
            # keep it
            dpi = fig.get_dpi()
            fig.set_dpi(RC["savefig.dpi"])
            fig.draw_without_rendering()
            fig.set_dpi(dpi)
            fig.set_layout_engine("none")
        fig.savefig(buffer, format=fmt, metadata=PNG_METADATA if fmt == "png" else SVG_METADATA)
    return buffer.getvalue()


def _pct(ax: Any, axis: str = "x") -> None:
    from matplotlib.ticker import PercentFormatter

    getattr(ax, f"{axis}axis").set_major_formatter(PercentFormatter(1.0, decimals=0))


def _errors(rate: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    return np.vstack([np.clip(rate - low, 0, None), np.clip(high - rate, 0, None)])


def _wrap(text: str, narrow: bool, chars: int) -> str:
    return textwrap.fill(text, chars) if narrow else text


def _title(fig: Figure, text: str, narrow: bool) -> None:
    fig.suptitle(_wrap(text, narrow, _TITLE_CHARS), x=0.01, ha="left", fontsize=11)


def _names(ax: Any, y: np.ndarray, names: Sequence[str], narrow: bool, x: float = 0.0,
           fontsize: float = 9.0) -> None:
    """The names of horizontal bars or points: tick labels beside them, or in the narrow
    layout written above each one (the full width stays for the bars)."""
    if not narrow:
        ax.set_yticks(y, names)
        return
    ax.set_yticks([])
    ax.spines["left"].set_visible(False)
    for yi, name in zip(y, names, strict=True):
        ax.text(x, yi + 0.3, name, va="bottom", ha="left", fontsize=fontsize, color="#222222",
                bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.4, "alpha": 0.85})


def _rows(n: int, narrow: bool) -> float:
    """Height of n bar rows, inches (room for a name above each in the narrow layout)."""
    return (0.62 if narrow else 0.42) * n


# ---- win rates ----------------------------------------------------------------------------------

def _value_labels(ax: Any, y: np.ndarray, rate: np.ndarray, high: np.ndarray, fontsize: float) -> None:
    """Each rate written right of the end of its interval (never over the error bar)."""
    for yi, r, hi in zip(y, rate, high, strict=True):
        if math.isfinite(r):
            end = hi if math.isfinite(hi) else r
            ax.annotate(f"{r:.1%}", (end, yi), xytext=(5, 0), textcoords="offset points",
                        va="center", fontsize=fontsize)


def plot_win_rates(table: pd.DataFrame, colors: Mapping[str, str] | None = None,
                   title: str | None = None, *, narrow: bool = False) -> Figure:
    """Horizontal bars of the win rates of :func:`~glory_ai.analysis.stats.win_rates` with
    their 95% intervals (the table's: pentanomial for a head-to-head match, deal bootstrap
    otherwise, named under the axis), best on top, each rate written past the end of its
    interval, a mark at each rate in the spec's colour (so that a rate of 0 shows); a dashed line
    at the equal share. A table split by player count (or another column) gets one panel per
    group."""
    from matplotlib.ticker import FixedLocator

    flat = table.reset_index()
    group_cols = [c for c in table.index.names if c != "spec"]
    groups = list(flat.groupby(group_cols, sort=True)) if group_cols else [((), flat)]
    heights = [_rows(len(g), narrow) + 0.75 for _, g in groups]
    # room on the right for the value written past the highest interval
    top = float(np.nanmax(flat["win_high"].to_numpy(float), initial=0.0))
    right = 1.0 if top < 0.86 else top + (0.2 if narrow else 0.1)
    with _style():
        fig = _figure(sum(heights) + (1.1 if narrow else 0.6), NARROW if narrow else WIDTH)
        axes = fig.subplots(len(groups), 1, squeeze=False, height_ratios=heights)[:, 0]
        for ax, (key, data) in zip(axes, groups, strict=True):
            data = data.iloc[::-1]
            names = data["spec"].astype(str).tolist()
            rate = data["win_rate"].to_numpy(float)
            high = data["win_high"].to_numpy(float)
            y = np.arange(len(names))
            ax.barh(y, rate, color=_colors_for(names, colors), height=0.5 if narrow else 0.62,
                    alpha=0.9)
            ax.errorbar(rate, y, xerr=_errors(rate, data["win_low"].to_numpy(float), high),
                        fmt="none", ecolor="#222222", capsize=3, lw=1)
            # the rate itself in the spec's colour, seen even where the bar has no length
            ax.scatter(rate, y, marker="|", c=_colors_for(names, colors), s=160 if narrow else 220,
                       linewidths=2.5, clip_on=False, zorder=3, gid="rates")
            _value_labels(ax, y, rate, high, 8 if narrow else 8.5)
            for e in np.unique(data["expected"].round(6)):
                ax.axvline(e, color="#555555", lw=0.9, ls="--", zorder=0)
            _names(ax, y, names, narrow)
            ax.set_ylim(-0.6, len(names) - (0.1 if narrow else 0.4))
            ax.set_xlim(0, right)
            ax.xaxis.set_major_locator(FixedLocator(np.linspace(0, 1, 3 if narrow else 6).tolist()))
            _pct(ax)
            if group_cols:
                key = key if isinstance(key, tuple) else (key,)
                label = ", ".join(_group_label(c, v) for c, v in zip(group_cols, key, strict=True))
                ax.set_title(label, loc="left", fontsize=9.5)
        axes[-1].set_xlabel(_wrap(f"win rate (a shared win split), 95% interval: "
                                  f"{_interval_names(table)}; dashed: equal share", narrow,
                                  _LABEL_CHARS))
        _title(fig, title or "Win rate per strategy", narrow)
    return fig


def _interval_names(table: pd.DataFrame) -> str:
    """The short names of the interval models of a win-rate table, for an axis label."""
    return " / ".join(dict.fromkeys(str(x) for x in table["interval"]))


def plot_summary(summary: pd.DataFrame, path: str | os.PathLike,
                 title: str | None = None) -> Path:
    """The win-rate plot of ``glory-ai compare``, written to ``path``: horizontal bars of the
    win rates of a :func:`~glory_ai.analysis.stats.summarize` summary with their 95%
    intervals (the summary's model, named under the axis), sorted, each rate written past
    the end of its interval, a mark at each rate (so that a rate of 0 shows), the run's
    description as title and a dashed line at the equal share, which the axis label names;
    a PNG, or an SVG when ``path`` ends in ``.svg``. The same summary gives the same
    bytes. (Narrower than the report's figures: one run at a glance.)"""
    from matplotlib.ticker import FixedLocator, PercentFormatter

    data = summary.sort_values("win_rate", kind="stable")
    names = [str(s) for s in data.index]
    rates = data["win_rate"].to_numpy(dtype=float)
    high = data["win_high"].to_numpy(dtype=float)
    title = title or summary.attrs.get("description") or "win rates"
    top = float(np.nanmax(high, initial=0.0))
    with _style():
        fig = _figure(1.3 + 0.45 * len(names), 7.5)
        ax = fig.add_subplot()
        y = np.arange(len(names))
        ax.barh(y, rates, color="#4c72b0", height=0.6)
        ax.errorbar(rates, y, xerr=_errors(rates, data["win_low"].to_numpy(dtype=float), high),
                    fmt="none", ecolor="black", capsize=4, lw=1)
        # the rate itself, seen even where the bar has no length (a spec that never wins)
        ax.plot(rates, y, "|", color="#1f3b63", ms=14, mew=2.5, clip_on=False, zorder=3, gid="rates")
        _value_labels(ax, y, rates, high, 8)
        ax.set_yticks(y, names)
        ax.set_xlim(0, 1.0 if top < 0.86 else top + 0.12)
        ax.xaxis.set_major_locator(FixedLocator(np.linspace(0, 1, 6).tolist()))
        ax.xaxis.set_major_formatter(PercentFormatter(1.0))
        model = summary.attrs.get("models", {}).get("win rate", "")
        label = "win rate (shared wins split), 95% interval" + (f": {model.split(':')[0]}" if model else "")
        if "deal bootstrap" in model and "Wilson" in model:
            label += " (Wilson for 0% and 100%)"
        players = summary.attrs.get("players")
        if players:
            ax.axvline(1.0 / players, color="grey", lw=0.8, ls="--")
            label += f"; dashed: equal share ({1.0 / players:.0%})"
        ax.set_xlabel(textwrap.fill(label, 85))
        ax.set_title(textwrap.fill(str(title), 90), fontsize=9)
    return save(fig, path)


def plot_grid_curve(x: Sequence[float], rate: Sequence[float], low: Sequence[float],
                    high: Sequence[float], *, xlabel: str, expected: float = 0.5,
                    title: str | None = None, ylabel: str | None = None,
                    narrow: bool = False) -> Figure:
    """A score against one parameter of a grid (e.g. ISMCTS iterations against a fixed
    opponent), with its 95% intervals as a band and error bars, each value written beside
    its point; a logarithmic axis when the values span more than a factor of 10; a dashed
    line at the equal share."""
    xs, r, lo, hi = (np.asarray(v, dtype=float) for v in (x, rate, low, high))
    order = np.argsort(xs)
    xs, r, lo, hi = xs[order], r[order], lo[order], hi[order]
    with _style():
        fig = _figure(3.2 if narrow else 3.4, NARROW if narrow else WIDTH)
        ax = fig.subplots()
        ax.fill_between(xs, lo, hi, color="#4c72b0", alpha=0.15, lw=0)
        ax.errorbar(xs, r, yerr=_errors(r, lo, hi), fmt="o-", color="#4c72b0", ecolor="#222222",
                    capsize=3, lw=1.5, ms=5)
        for xi, ri in zip(xs, r, strict=True):
            ax.annotate(f"{ri:.0%}", (xi, ri), textcoords="offset points", xytext=(6, 0),
                        ha="left", va="center", fontsize=8 if narrow else 8.5)
        ax.axhline(expected, color="#555555", lw=0.9, ls="--", zorder=0)
        if xs.min() > 0 and xs.max() / xs.min() > 10:
            ax.set_xscale("log")
        ax.set_xticks(xs, [f"{v:,g}" for v in xs], fontsize=8 if narrow else None)
        ax.minorticks_off()
        span = np.log(xs.max() / xs.min()) if ax.get_xscale() == "log" else xs.max() - xs.min()
        pad = 0.12 * span if span > 0 else 1.0
        if ax.get_xscale() == "log":
            ax.set_xlim(xs.min() / math.exp(0.04 * span), xs.max() * math.exp(pad))
        else:
            ax.set_xlim(xs.min() - 0.04 * span, xs.max() + pad)
        ax.set_ylim(0, 1)
        _pct(ax, "y")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(_wrap(ylabel or "score, 95% interval", narrow, 28))
        _title(fig, title or "Score against the grid", narrow)
    return fig


def _group_label(column: str, value: Any) -> str:
    if column == "num_players":
        return f"{value} players"
    if column == "seat":
        return f"P{int(value) + 1}"
    if column in ("rules", "spec", "run"):
        return str(value)
    return f"{column} {value}"


# ---- pairwise matrix and ratings ----------------------------------------------------------------

def plot_finishing_matrix(matrix: pd.DataFrame, title: str | None = None, *,
                          order: Sequence[str] | None = None, narrow: bool = False) -> Figure:
    """Heatmap of :func:`~glory_ai.analysis.stats.finishing_matrix`: the fraction of games in
    which the row spec finished ahead of the column spec (½ for an equal place; blue: the row
    is ahead more often, red: less often). Rows and columns in ``order`` (e.g. the ratings',
    strongest first), by default by how often each row finished ahead over the opponents it
    met. The narrow layout numbers the rows and columns and lists the names under the map."""
    import matplotlib
    from matplotlib.ticker import PercentFormatter

    if order is None:
        strength = matrix.mean(axis=1, skipna=True).fillna(0.5)
        order = list(strength.sort_values(ascending=False, kind="stable").index)
    order = [o for o in order if o in matrix.index] + [o for o in matrix.index if o not in order]
    matrix = matrix.loc[order, order]
    names = [str(n) for n in matrix.index]
    values = matrix.to_numpy(float)
    size = len(names)
    k = matrix.attrs.get("num_players")
    heading = title or (f"How often the row finished ahead of the column"
                        f"{f' ({k} players)' if k else ''}")
    with _style():
        if narrow:
            cell = min(0.5, 3.0 / size)
            fig = _figure(cell * size + 1.6 + 0.17 * size, NARROW)
        else:
            fig = _figure(min(9.0, 2.4 + 0.7 * size), min(WIDTH, 4.6 + 0.95 * size))
        ax = fig.add_subplot()
        masked = np.ma.masked_invalid(values)
        cmap = matplotlib.colormaps["RdBu"].with_extremes(bad="#eeeeee")
        image = ax.imshow(masked, cmap=cmap, vmin=0.0, vmax=1.0, aspect="auto")
        font = 9.5 if not narrow else (8 if size <= 6 else 6.5)
        for i in range(size):
            for j in range(size):
                v = values[i, j]
                text = "–" if math.isnan(v) else f"{v:.0%}"
                dark = not math.isnan(v) and abs(v - 0.5) > 0.3
                ax.text(j, i, text, ha="center", va="center", fontsize=font,
                        color="white" if dark else "#222222")
        if narrow:
            numbers = [str(i + 1) for i in range(size)]
            ax.set_xticks(range(size), numbers)
            ax.set_yticks(range(size), numbers)
            ax.xaxis.tick_top()
            key = "\n".join(f"{i + 1}  {name}" for i, name in enumerate(names))
            ax.set_xlabel(key, loc="left", fontsize=8.5, linespacing=1.5, labelpad=8)
        else:
            ax.set_xticks(range(size), names, rotation=35, ha="right", rotation_mode="anchor")
            ax.set_yticks(range(size), names)
        ax.tick_params(length=0)
        for spine in ax.spines.values():
            spine.set_visible(False)
        bar = fig.colorbar(image, ax=ax, shrink=0.7, pad=0.03, aspect=18 if narrow else 20)
        bar.ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
        bar.ax.tick_params(labelsize=8 if narrow else 9)
        if not narrow:
            bar.set_label("row ahead (share of games)")
        _title(fig, heading, narrow)
    return fig


def _hollow(data: pd.DataFrame, profile: np.ndarray) -> str:
    """What the ratings figure's hollow markers are, for its axis label."""
    if not profile.any():
        return ""
    if (data["interval"] == "profile likelihood (perfect record)")[profile].all():
        return "; hollow: a perfect record, profile likelihood"
    return "; hollow: the same in every resample (a perfect record, or one deal), profile likelihood"


def plot_ratings(ratings: pd.DataFrame, colors: Mapping[str, str] | None = None,
                 title: str | None = None, *, narrow: bool = False) -> Figure:
    """The rating ladder of :func:`~glory_ai.analysis.stats.ratings`: each spec's
    Bradley-Terry rating (pairwise finishing order, Gaussian prior) and 95% interval, best
    on top; a hollow marker for a perfect record, whose interval is the profile likelihood."""
    data = ratings.sort_values("rating", kind="stable")
    names = [str(n) for n in data.index]
    rating = data["rating"].to_numpy(float)
    profile = (data["interval"] != "deal bootstrap").to_numpy() if "interval" in data \
        else np.zeros(len(data), dtype=bool)
    y = np.arange(len(names))
    k = ratings.attrs.get("num_players")
    low, high = data["low"].to_numpy(float), data["high"].to_numpy(float)
    with _style():
        fig = _figure(_rows(len(names), narrow) + (1.9 if narrow else 1.5), NARROW if narrow else WIDTH)
        ax = fig.add_subplot()
        cols = _colors_for(names, colors)
        err = _errors(rating, low, high)
        for yi, r, e0, e1, c, hollow in zip(y, rating, err[0], err[1], cols, profile, strict=True):
            ax.errorbar([r], [yi], xerr=[[e0], [e1]], fmt="o", color=c, ecolor=c, capsize=4,
                        lw=1.6, ms=7, mfc="white" if hollow else c)
            ax.annotate(f"{r:+.0f}", (r + e1, yi), xytext=(5, 0), textcoords="offset points",
                        va="center", fontsize=8)
        lo = float(np.nanmin(np.r_[low, rating]))
        hi = float(np.nanmax(np.r_[high, rating]))
        span = max(hi - lo, 50.0)
        ax.set_xlim(lo - 0.05 * span, hi + (0.25 if narrow else 0.1) * span)
        _names(ax, y, names, narrow, x=lo - 0.05 * span)
        ax.set_ylim(-0.6, len(names) - (0.1 if narrow else 0.4))
        ax.axvline(0, color="#555555", lw=0.8, ls="--", zorder=0)
        # in two lines on the wide layout when it names the hollow markers (else past the edge)
        ax.set_xlabel(textwrap.fill("Bradley-Terry rating on pairwise finishing order (Elo scale, mean 0, "
                                    "Gaussian prior), 95% deal-bootstrap interval"
                                    + _hollow(data, profile), _LABEL_CHARS if narrow else _WIDE_LABEL_CHARS))
        ax.grid(axis="x", color="#e6e6e6", lw=0.8)
        ax.set_axisbelow(True)
        _title(fig, title or f"Rating ladder{f' ({k} players)' if k else ''}", narrow)
    return fig


# ---- seats ---------------------------------------------------------------------------------------

def plot_seat_advantage(table: pd.DataFrame, title: str | None = None, *,
                        narrow: bool = False) -> Figure:
    """Win rate by seat for each player count (:func:`~glory_ai.analysis.stats.seat_advantage`)
    with 95% intervals; the dashed segments mark the equal share."""
    from matplotlib.patches import Patch

    flat = table.reset_index()
    counts = sorted(int(k) for k in flat["num_players"].unique())
    seats = max(counts)
    with _style():
        width = NARROW if narrow else min(WIDTH, 3.2 + 0.55 * sum(k + 1.6 for k in counts))
        fig = _figure(3.4 if narrow else 3.6, width)
        ax = fig.add_subplot()
        bar = 0.16
        x0 = 0.0
        centres = []
        for k in counts:
            part = flat[flat["num_players"] == k].sort_values("seat")
            xs = x0 + bar * (np.arange(len(part)) - (len(part) - 1) / 2)
            rate = part["win_rate"].to_numpy(float)
            seat = part["seat"].to_numpy(int)
            ax.bar(xs, rate, width=bar * 0.92, color=[SEAT_COLORS[s % 5] for s in seat])
            ax.errorbar(xs, rate, yerr=_errors(rate, part["win_low"].to_numpy(float),
                                               part["win_high"].to_numpy(float)),
                        fmt="none", ecolor="#222222", capsize=2 if narrow else 3, lw=1)
            ax.hlines(1.0 / k, xs[0] - bar / 2, xs[-1] + bar / 2, colors="#333333", lw=1.1,
                      linestyles="--")
            centres.append(x0)
            x0 += bar * (k + 1.6)
        ax.set_xticks(centres, [f"{k} players" if not narrow else f"{k}p" for k in counts])
        ax.set_xlim(-bar * (counts[0] / 2 + 0.6), x0 - bar * (counts[-1] / 2 + 1.0))
        top = min(1.0, max(0.6, float(flat["win_high"].max()) + 0.05))
        ax.set_ylim(0, top + (0.12 if narrow else 0.0))
        _pct(ax, "y")
        ax.set_ylabel(_wrap("win rate, 95% deal-bootstrap interval", narrow, 28))
        handles = [Patch(color=SEAT_COLORS[s], label=f"P{s + 1}") for s in range(seats)]
        ax.legend(handles=handles, ncols=len(handles), loc="upper right",
                  fontsize=8 if narrow else None, handlelength=1.0 if narrow else 2.0,
                  columnspacing=0.8 if narrow else 2.0)
        _title(fig, title or "Win rate by seat (P1 leads the first turn); dashed: equal share",
               narrow)
    return fig


# ---- buildings --------------------------------------------------------------------------------

def plot_building_strength(table: pd.DataFrame, title: str | None = None, *,
                           narrow: bool = False) -> Figure:
    """Forest plot of :func:`~glory_ai.analysis.stats.building_strength`: each building's
    adjusted effect of completing it on the win rate, in points, with its 95% interval;
    strongest on top; filled: significant after Holm's correction."""
    data = table[table["effect"].notna()].iloc[::-1]
    names = [str(n) for n in data.index]
    effect = data["effect"].to_numpy(float) * 100
    low = data["effect_low"].to_numpy(float) * 100
    high = data["effect_high"].to_numpy(float) * 100
    sig = data["significant"].to_numpy(bool)
    y = np.arange(len(names))
    with _style():
        fig = _figure(0.21 * len(names) + (2.2 if narrow else 1.5), NARROW if narrow else 8.5)
        ax = fig.add_subplot()
        ax.hlines(y, low, high, color="#3b6fb6", lw=1.4)
        ax.scatter(effect[sig], y[sig], s=26, color="#3b6fb6", zorder=3, label="significant (Holm)")
        ax.scatter(effect[~sig], y[~sig], s=26, facecolor="white", edgecolor="#3b6fb6", zorder=3,
                   label="not significant")
        ax.axvline(0, color="#555555", lw=0.9, ls="--")
        ax.set_yticks(y, names)
        ax.set_ylim(-0.7, len(names) - 0.3)
        ax.tick_params(axis="y", labelsize=8)
        ax.grid(axis="x", color="#e6e6e6", lw=0.8)
        ax.set_axisbelow(True)
        # (narrow: wrapped shorter, the building names take a third of the width)
        ax.set_xlabel(_wrap("effect of completing the building on the win rate (points), 95% "
                            "interval", narrow, 30))
        if narrow:
            ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=2, fontsize=8,
                      handletextpad=0.2, columnspacing=1.0)
        else:
            ax.legend(loc="lower right")
        _title(fig, title or "Building strength (logistic model: strategy, seat and player count "
               "held fixed)", narrow)
    return fig


# ---- scoring, endings, length -----------------------------------------------------------------

def plot_vp_breakdown(table: pd.DataFrame, title: str | None = None, *,
                      narrow: bool = False) -> Figure:
    """Stacked bars of the mean VP per component for each spec
    (:func:`~glory_ai.analysis.stats.vp_breakdown`)."""
    flat = table.reset_index()
    group_cols = [c for c in table.index.names if c != "spec"]
    labels = [" · ".join([*(_group_label(c, row[c]) for c in group_cols), str(row["spec"])])
              for _, row in flat.iterrows()]
    components = [c for c in VP_COLORS if c in flat.columns]
    with _style():
        fig = _figure(_rows(len(flat), narrow) + (2.0 if narrow else 1.5), NARROW if narrow else WIDTH)
        ax = fig.add_subplot()
        y = np.arange(len(flat))[::-1]
        left = np.zeros(len(flat))
        for comp in components:
            values = flat[comp].to_numpy(float)
            ax.barh(y, values, left=left, color=VP_COLORS[comp], height=0.5 if narrow else 0.64,
                    label=VP_LABELS[comp])
            left += values
        for yi, total in zip(y, flat["total"].to_numpy(float), strict=True):
            ax.annotate(f"{total:.1f}", (total, yi), xytext=(4, 0), textcoords="offset points",
                        va="center", fontsize=8 if narrow else 8.5)
        _names(ax, y, labels, narrow)
        ax.set_ylim(-0.6, len(flat) - (0.1 if narrow else 0.4))
        ax.set_xlim(0, float(left.max()) * (1.2 if narrow else 1.12) + 1)
        ax.set_xlabel("mean VP per game")
        ax.legend(ncols=3 if narrow else len(components), loc="lower center",
                  bbox_to_anchor=(0.5, 1.0), fontsize=8 if narrow else None)
        _title(fig, title or "How players score: mean VP by component", narrow)
    return fig


def plot_end_conditions(table: pd.DataFrame, title: str | None = None, *,
                        narrow: bool = False) -> Figure:
    """100% stacked bars of how games end (:func:`~glory_ai.analysis.stats.end_conditions`),
    one bar per group (all games, or per player count / rule variant)."""
    flat = table.reset_index()
    group_cols = [c for c in table.index.names if c != "end_reason"]
    if group_cols:
        groups = list(flat.groupby(group_cols, sort=True))
        labels = [", ".join(_group_label(c, v) for c, v in
                            zip(group_cols, k if isinstance(k, tuple) else (k,), strict=True))
                  for k, _ in groups]
    else:
        groups = [("all", flat)]
        labels = ["all games"]
    reasons = list(dict.fromkeys(flat["end_reason"].astype(str)))
    with _style():
        fig = _figure((0.7 if narrow else 0.5) * len(groups) + (1.8 if narrow else 1.6),
                      NARROW if narrow else WIDTH)
        ax = fig.add_subplot()
        y = np.arange(len(groups))[::-1]
        left = np.zeros(len(groups))
        for reason in reasons:
            share = np.array([float(g.loc[g["end_reason"].astype(str) == reason, "share"].sum())
                              for _, g in groups])
            ax.barh(y, share, left=left, height=0.5 if narrow else 0.6,
                    color=END_COLORS.get(reason, "#bbbbbb"), label=END_LABELS.get(reason, reason))
            for yi, lo, s in zip(y, left, share, strict=True):
                if s >= (0.12 if narrow else 0.07):
                    ax.text(lo + s / 2, yi, f"{s:.0%}", ha="center", va="center",
                            fontsize=8 if narrow else 8.5, color="white")
            left += share
        _names(ax, y, labels, narrow)
        ax.set_ylim(-0.6, len(groups) - (0.1 if narrow else 0.4))
        ax.set_xlim(0, 1)
        _pct(ax)
        ax.set_xlabel("share of games")
        ax.legend(ncols=min(3, len(reasons)) if narrow else len(reasons), loc="lower center",
                  bbox_to_anchor=(0.5, 1.0), fontsize=8 if narrow else None)
        _title(fig, title or "How games end", narrow)
    return fig


def plot_game_length(frame: pd.DataFrame, title: str | None = None, *,
                     narrow: bool = False) -> Figure:
    """Histograms of turns and decisions per game, one outline per player count (the two
    panels side by side, or one above the other in the narrow layout)."""
    return plot_game_length_counts(length_counts(frame), title, narrow=narrow)


def length_counts(frame: pd.DataFrame) -> dict[int, dict[str, np.ndarray]]:
    """Each player count's games per number of turns and of decisions (``c[v]``: the games
    that lasted ``v``), from a frame's first-seat rows."""
    per_game = frame.loc[frame["seat"] == 0, ["num_players", "turns", "decisions"]]
    return {int(k): {col: np.bincount(part[col].to_numpy(np.int64)) for col in ("turns", "decisions")}
            for k, part in per_game.groupby("num_players", sort=True)}


def plot_game_length_counts(lengths: dict[int, dict[str, np.ndarray]], title: str | None = None, *,
                            narrow: bool = False) -> Figure:
    """:func:`plot_game_length` from each player count's :func:`length_counts`."""
    counts = sorted(lengths)
    with _style():
        fig = _figure(5.4 if narrow else 3.3, NARROW if narrow else WIDTH)
        axes = fig.subplots(2, 1) if narrow else fig.subplots(1, 2)
        for ax, col, label in zip(axes, ("turns", "decisions"),
                                  ("turns per game", "decisions per game"), strict=True):
            every = [np.flatnonzero(lengths[k][col]) for k in counts]
            n = sum(int(lengths[k][col].sum()) for k in counts)
            ends = np.array([min(v.min() for v in every), max(v.max() for v in every)], dtype=float)
            # the edges of the games' values: only their range and number count
            bins = np.histogram_bin_edges(ends, bins=min(40, max(10, int(np.sqrt(n)))))
            for k, values in zip(counts, every, strict=True):
                weights = lengths[k][col][values]
                ax.hist(values.astype(float), bins=bins, weights=weights, histtype="stepfilled",
                        alpha=0.25, color=COUNT_COLORS.get(k, "#777777"))
                ax.hist(values.astype(float), bins=bins, weights=weights, histtype="step", lw=1.4,
                        color=COUNT_COLORS.get(k, "#777777"),
                        label=f"{k} players" if col == "turns" else None)
            ax.set_xlabel(label)
            ax.set_ylabel("games")
        fig.legend(ncols=len(counts), loc="outside upper right", fontsize=8 if narrow else None)
        _title(fig, title or "Game length", narrow)
    return fig
