"""The report: one self-contained HTML page (tables, figures inline as PNG, a plain-language
summary generated from the numbers, the run manifest) and ``summary.csv``.

:func:`write_report` writes ``report.html``, ``summary.csv`` (the win-rate table: one row
per player count and spec, with the rating of the spec when it has one) and the figures as
PNG and SVG under ``figures/``; :func:`findings` gives the summary sentences alone. The same
runs give the same files, byte for byte (no dates in them).

Given the ``question`` of an experiment, the report states it and answers it first: the
findings on what the question asks about (strategies, seats, buildings, scoring, endings,
rule variants: the topics it names, in its order), and for each :class:`Grid` (a spec's
number varied against the same opponents) the curve of its score, the Elo per doubling
and the last step. The page reads from phone width up: tables scroll inside their box,
every figure has a narrow layout shown below 640 px, the navigation wraps.
"""
from __future__ import annotations

import base64
import html
import json
import os
import platform
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .. import __version__
from ..cards import CARD_NAMES
from ..core.enums import EndReason
from . import AnalysisError
from . import figures as F
from . import stats as T
from .load import load_runs
from .stats import paired as P

__all__ = ["REPORT_FILE", "SUMMARY_FILE", "FIGURES_DIR", "NARROW_BELOW", "Grid", "Report",
           "build_report", "findings", "question_topics", "spec_labels", "write_report",
           "write_report_full", "summary_table"]

REPORT_FILE = "report.html"
SUMMARY_FILE = "summary.csv"
FIGURES_DIR = "figures"
#: the names of the figure files the report writes (other files in figures/ are left alone)
_FIGURE_NAME = re.compile(r"win_rates|seat|buildings|vp|end|length|(matrix|ratings)_\d|grid-.+")
#: below this page width (CSS px) the report shows every figure's narrow layout
NARROW_BELOW = 640
#: significance level of the statements in the summary
ALPHA = 0.05
#: the summary names the strongest and weakest buildings among those completed (and not
#: completed) at least this many times, when there are two or more such buildings
MIN_COMPLETED = 30


# ---- number formats --------------------------------------------------------------------------

def _pct(x: float, digits: int = 1) -> str:
    return "–" if x is None or not np.isfinite(x) else f"{100 * x:.{digits}f}%"


def _pm(rate: float, low: float, high: float) -> str:
    """``54.2% ± 2.9%``: the rate and half the width of its interval."""
    return f"{_pct(rate)} ± {100 * (high - low) / 2:.1f}%"


def _ci(low: float, high: float, scale: float = 100, digits: int = 1, sign: bool = False) -> str:
    if not (np.isfinite(low) and np.isfinite(high)):
        return "–"
    f = f"{{:{'+' if sign else ''}.{digits}f}}"
    return f"[{f.format(scale * low)}, {f.format(scale * high)}]"


def _num(x: float, digits: int = 1, sign: bool = False) -> str:
    if x is None or not np.isfinite(x):
        return "–"
    return f"{x:{'+' if sign else ''},.{digits}f}"


def _p(p: float) -> str:
    if p is None or not np.isfinite(p):
        return "–"
    if p < 0.001:
        return "< 0.001"
    return f"{p:.3f}" if p < 0.1 else f"{p:.2f}"


def _p_text(p: float) -> str:
    s = _p(p)
    return f"p {s}" if s.startswith("<") else f"p = {s}"


def _count(n: float) -> str:
    return f"{int(n):,}"


def _n(n: float, word: str, plural: str | None = None) -> str:
    """A count and its noun, singular for one.

    >>> _n(1, "deal"), _n(2, "deal"), _n(1200, "game"), _n(1, "pseudo seat-game")
    ('1 deal', '2 deals', '1,200 games', '1 pseudo seat-game')
    """
    return f"{_count(n)} {word if int(n) == 1 else plural or word + 's'}"


def _seat(s: int) -> str:
    return f"P{int(s) + 1}"


# ---- the report's content -------------------------------------------------------------------

@dataclass(frozen=True)
class Grid:
    """A matchup of an experiment that varies one number of one spec against the same
    opponents: ``parameter`` (``iters``), the spec ``template`` (``ismcts:iters={iters}``),
    the ``opponents`` and the ``points``: (value, run label, spec at that value) per grid
    point. Its curve is the answer to the experiment's question."""

    name: str
    parameter: str
    template: str
    opponents: tuple[str, ...]
    points: tuple[tuple[float, str, str], ...]


@dataclass
class Report:
    """Everything the page shows: the frame, its tables, figures (wide, and the narrow
    layout of each) and summary sentences. ``compared``: the player counts with a game
    seating two different specs (the others are self-play, where every spec wins its equal
    share by construction: no strategy section). With a ``question``, ``answer`` holds the
    sentences that answer it (also first in ``sentences``)."""

    frame: pd.DataFrame
    runs: list[dict[str, Any]]
    counts: list[int]
    colors: dict[str, str]
    compared: list[int] = field(default_factory=list)
    tables: dict[str, Any] = field(default_factory=dict)
    figures: dict[str, Any] = field(default_factory=dict)      # name -> matplotlib Figure
    narrow: dict[str, Any] = field(default_factory=dict)       # name -> its narrow layout
    notes: dict[str, str] = field(default_factory=dict)
    sentences: list[str] = field(default_factory=list)
    question: str | None = None
    description: str | None = None
    grids: tuple[Grid, ...] = ()
    answer: list[str] = field(default_factory=list)
    topics: list[str] = field(default_factory=list)


def _compared_counts(frame: pd.DataFrame) -> list[int]:
    """The player counts at which some game seats two different specs."""
    per_game = frame.groupby(["run", "game"], observed=True, sort=False).agg(
        specs=("spec", "nunique"), players=("num_players", "first"))
    return sorted(int(k) for k in per_game.loc[per_game["specs"] > 1, "players"].unique())


def spec_labels(specs: Iterable[str]) -> dict[str, str]:
    """The label each spec is shown by: the spec without the parameters that are at the
    bot's default in every spec of that bot here (a parameter that sets one spec apart is
    kept in all of them). A spec this build cannot read keeps its text, and so do specs
    that would share a label.

    >>> from glory_ai.bots import registry
    >>> at_default = f"ismcts:iters=500,c={registry()['ismcts'].defaults()['c']}"
    >>> spec_labels(["ismcts:iters=250", at_default, "greedy"])[at_default]
    'ismcts:iters=500'
    >>> list(spec_labels(["ismcts:iters=250", "ismcts:iters=500,c=9.5", "pimc:iters=500"]).values())
    ['ismcts:iters=250', 'ismcts:iters=500,c=9.5', 'pimc:iters=500']
    """
    from ..bots import SpecError, parse_spec, registry

    specs = list(dict.fromkeys(str(s) for s in specs))
    parsed: dict[str, tuple[str, dict[str, Any], list[tuple[str, str]]]] = {}
    for spec in specs:
        head, colon, rest = spec.partition(":")
        try:
            bot, params = parse_spec(spec)
            defaults = registry()[bot].defaults()
        except (SpecError, KeyError):
            continue
        if not colon or ":" in rest or head.strip().lower() != bot:
            continue                    # a user's bot (a path or module), or no parameters
        written = [(part.partition("=")[0].strip().lower(), part.strip())
                   for part in rest.split(",") if part.strip()]
        parsed[spec] = (bot, {k: params[k] != defaults.get(k) for k in params}, written)
    # the parameters that set some spec of a bot apart from the bot's defaults
    shown: dict[str, set[str]] = {}
    for bot, differs, _ in parsed.values():
        shown.setdefault(bot, set()).update(k for k, d in differs.items() if d)
    labels = {}
    for spec in specs:
        if spec not in parsed:
            labels[spec] = spec
            continue
        bot, _, written = parsed[spec]
        kept = [text for key, text in written if key in shown[bot]]
        labels[spec] = spec.partition(":")[0].strip() + (":" + ",".join(kept) if kept else "")
    taken: dict[str, int] = {}
    for label in labels.values():
        taken[label] = taken.get(label, 0) + 1
    return {spec: label if taken[label] == 1 else spec for spec, label in labels.items()}


#: the topics of the findings, and the words by which a question asks about each
TOPICS = {
    "variants": r"\bmodes?\b|\bvariants?\b|\brules?\b|\brepublic\b|\bimperium\b",
    "seats": r"\bseats?\b",
    "buildings": r"\bbuildings?\b",
    "endings": r"\bend(s|ings?)?\b|\blength\b|\blong\b|\bturns\b",
    "scoring": r"\bscor(e|es|ing)\b|\bvp\b|\bpoints\b",
    "strategies": r"\brank|\bbeats?\b|\bstrong|\bstrength|\bwins?\b|\bstrateg|\bbots?\b|\bbetter\b",
}


def question_topics(question: str) -> list[str]:
    """The topics of :data:`TOPICS` a question asks about, in the order it names them.

    >>> question_topics("How do the two modes differ: game length, and which strategies win?")
    ['variants', 'endings', 'strategies']
    >>> question_topics("Is any seat favoured, at 2, 3, 4 and 5 players?")
    ['seats']
    """
    found = []
    for topic, pattern in TOPICS.items():
        hit = re.search(pattern, question, flags=re.IGNORECASE)
        if hit:
            found.append((hit.start(), topic))
    return [topic for _, topic in sorted(found)]


def build_report(frame: pd.DataFrame, figures: bool = True, *, question: str | None = None,
                 description: str | None = None, grids: Sequence[Grid] = ()) -> Report:
    """Compute every table, figure (unless ``figures`` is false) and summary sentence of the
    report for a frame of :func:`~glory_ai.analysis.load.load_runs`. With an experiment's
    ``question`` the sentences that answer it come first (``Report.answer``); ``grids``
    adds each grid's curve, its table and sentences; ``description`` is the page's lead
    (default: the runs' descriptions)."""
    if frame.empty:
        raise AnalysisError("no games to report on")
    # a grid names its runs' specs as their configs write them: follow the runs whose
    # specs the loader spelled out as played (a default changed since)
    played = {str(m.get("label")): dict(m.get("as_played") or {}) for m in frame.attrs.get("runs", [])}
    if any(played.values()):
        anywhere = {old: new for names in played.values() for old, new in names.items()}
        grids = [replace(grid, opponents=tuple(anywhere.get(o, o) for o in grid.opponents),
                         points=tuple((value, run, played.get(run, {}).get(spec, spec))
                                      for value, run, spec in grid.points))
                 for grid in grids]
    # every spec by its label (no parameter left at its default): in tables, figures, text
    labels = spec_labels(str(s) for s in frame["spec"].unique())
    if any(spec != label for spec, label in labels.items()):
        frame = frame.copy()
        if isinstance(frame["spec"].dtype, pd.CategoricalDtype):
            frame["spec"] = frame["spec"].cat.rename_categories(
                [labels[str(c)] for c in frame["spec"].cat.categories])
        else:
            frame["spec"] = frame["spec"].astype(str).map(labels)
        grids = [replace(grid, opponents=tuple(labels.get(o, o) for o in grid.opponents),
                         points=tuple((value, run, labels.get(spec, spec))
                                      for value, run, spec in grid.points))
                 for grid in grids]
    counts = sorted(int(k) for k in frame["num_players"].unique())
    report = Report(frame=frame, runs=list(frame.attrs.get("runs", [])), counts=counts,
                    colors=F.spec_colors([str(s) for s in frame["spec"].unique()]),
                    compared=_compared_counts(frame), question=question,
                    description=description, grids=tuple(grids))
    t = report.tables
    t["win_rates"] = T.win_rates(frame, by="num_players")
    if report.compared:
        played = frame[frame["num_players"].isin(report.compared)]
        if len(report.compared) > 1:
            t["win_rates_all"] = T.win_rates(played)
        t["win_rates_seat"] = T.win_rates(played, by=["num_players", "seat"])
    for k in report.compared:
        rated = T.ratings(frame, num_players=k)
        if rated.attrs.get("model"):
            t[f"ratings_{k}"] = rated
        t[f"matrix_{k}"] = T.finishing_matrix(frame, num_players=k)
        t[f"pairwise_{k}"] = T.pairwise(frame, num_players=k)
    for grid in report.grids:
        t[f"grid-{grid.name}"] = T.grid_scores(frame, grid.points)
    t["seat"] = T.seat_advantage(frame)
    t["seat_tests"] = T.seat_tests(frame)
    t["buildings"] = T.building_strength(frame)
    vp_by = "num_players" if len(counts) > 1 else None
    t["vp"] = T.vp_breakdown(frame, by=vp_by)
    end_by = ["num_players"] + (["rules"] if frame["rules"].nunique() > 1 else [])
    t["end"] = T.end_conditions(frame, by=end_by)
    t["length"] = T.game_length(frame, by=end_by)
    if any(c.startswith("led:") for c in frame.columns):
        try:
            t["roles"] = T.roles_led(frame, by=vp_by)
        except AnalysisError as exc:
            report.notes["roles"] = str(exc)
    if frame["rules"].nunique() > 1:
        sub, scope = _comparable(frame)
        if sub is None:
            report.notes["variants"] = scope
        else:
            t["variants"] = T.compare_variants(sub, by="rules")
            if scope:
                report.notes["variants_scope"] = scope
    t["summary"] = summary_table(frame, t)
    tagged = _findings(report)
    curves = [sentence for grid in report.grids for sentence in _grid_sentences(report, grid)]
    if question:
        report.topics = question_topics(question)
        asked = [sentence for topic in report.topics for tag, sentence in tagged if tag == topic]
        report.answer = curves + asked
        report.sentences = report.answer + [s for tag, s in tagged if tag not in report.topics]
    else:
        report.sentences = curves + [s for _, s in tagged]
    if figures:
        _figures(report)
    return report


def _compared_rates(report: Report) -> pd.DataFrame:
    """The win-rate table of the player counts where strategies met."""
    wr = report.tables["win_rates"]
    keep = wr.index.get_level_values("num_players").isin(report.compared)
    out = wr[keep]
    out.attrs = dict(wr.attrs)
    return out


def _figures(report: Report) -> None:
    """Every figure of the page, in its wide and its narrow layout."""
    t, frame = report.tables, report.frame
    makers: dict[str, Any] = {}
    for grid in report.grids:
        makers[f"grid-{grid.name}"] = lambda narrow, grid=grid: _grid_figure(report, grid, narrow)
    if report.compared:
        rates = _compared_rates(report)
        shown = rates if len(report.compared) > 1 else rates.droplevel("num_players")
        makers["win_rates"] = lambda narrow: F.plot_win_rates(shown, report.colors, narrow=narrow)
    for k in report.compared:
        rated = t.get(f"ratings_{k}")
        order = None
        if rated is not None:
            makers[f"ratings_{k}"] = lambda narrow, rated=rated: F.plot_ratings(
                rated, report.colors, narrow=narrow)
            order = [str(s) for s in rated.sort_values("rating", ascending=False, kind="stable").index]
        makers[f"matrix_{k}"] = lambda narrow, k=k, order=order: F.plot_finishing_matrix(
            t[f"matrix_{k}"], order=order, narrow=narrow)
    makers["seat"] = lambda narrow: F.plot_seat_advantage(t["seat"], narrow=narrow)
    if t["buildings"]["effect"].notna().any():
        makers["buildings"] = lambda narrow: F.plot_building_strength(t["buildings"], narrow=narrow)
    makers["vp"] = lambda narrow: F.plot_vp_breakdown(t["vp"], narrow=narrow)
    makers["end"] = lambda narrow: F.plot_end_conditions(t["end"], narrow=narrow)
    makers["length"] = lambda narrow: F.plot_game_length(frame, narrow=narrow)
    for name, make in makers.items():
        report.figures[name] = make(False)
        report.narrow[name] = make(True)


def _grid_figure(report: Report, grid: Grid, narrow: bool) -> Any:
    table = report.tables[f"grid-{grid.name}"]
    opponents = ", ".join(grid.opponents)
    return F.plot_grid_curve(table.index.to_numpy(float), table["score"], table["low"], table["high"],
                             xlabel=grid.parameter, expected=float(table["expected"].mean()),
                             title=f"{_bot_name(grid.template)} against {opponents}: score by "
                                   f"{grid.parameter}",
                             ylabel=f"score, 95% interval ({_interval_text(table)})", narrow=narrow)


def _bot_name(template: str) -> str:
    """The bot of a spec template, ``ismcts`` for ``ismcts:iters={iters}``."""
    return template.split(":", 1)[0]


def _interval_text(table: pd.DataFrame) -> str:
    return " / ".join(dict.fromkeys(str(x) for x in table["interval"]))


def _comparable(frame: pd.DataFrame) -> tuple[pd.DataFrame | None, str]:
    """The games on which the rule variants can be compared: those whose line-up (player
    count and specs) is played under every variant, so that a difference between variants is
    not one between opponents or player counts. Returns (games or None, a note on the scope
    or why there is nothing to compare)."""
    per_game = frame[frame["seat"] == 0]
    codes = frame["spec"].cat.codes.to_numpy().astype(np.int64)
    base = int(codes.max()) + 2
    lineup = np.zeros(len(per_game), dtype=np.int64)
    for k in sorted(int(x) for x in per_game["num_players"].unique()):
        rows = (frame["num_players"] == k).to_numpy()
        spec = np.sort(codes[rows].reshape(-1, k), axis=1)
        key = np.full(len(spec), k, dtype=np.int64)
        for i in range(k):
            key = key * base + spec[:, i] + 1
        lineup[(per_game["num_players"] == k).to_numpy()] = key
    games = pd.DataFrame({"game": per_game["game"].to_numpy(), "lineup": lineup,
                          "rules": per_game["rules"].astype(str).to_numpy()})
    n_rules = games["rules"].nunique()
    shared = games.groupby("lineup")["rules"].nunique()
    common = set(shared.index[shared == n_rules])
    keep = games.loc[games["lineup"].isin(common), "game"]
    if keep.empty:
        return None, ("no line-up of strategies and player count is played under every rule "
                      "variant, so the variants are not compared")
    if len(keep) == len(games):
        return frame, ""
    return (frame[frame["game"].isin(keep)],
            f"compared on the {len(keep):,} games whose line-up (strategies and player count) "
            f"is played under every variant, out of {len(games):,}")


def summary_table(frame: pd.DataFrame, tables: dict[str, Any] | None = None) -> pd.DataFrame:
    """The win-rate table of ``summary.csv``: one row per player count and spec (columns
    ``num_players``, ``spec``, ``games``, ``wins``, ``win_rate``, ``win_low``, ``win_high``,
    ``interval`` (the model of that interval), ``wilson_low``, ``wilson_high``, ``expected``,
    ``mean_score``, ``mean_rank``, ``rating``, ``rating_low``, ``rating_high`` and
    ``rating_interval``; no rating in self-play)."""
    tables = tables or {}
    wr = tables.get("win_rates")
    if wr is None:
        wr = T.win_rates(frame, by="num_players")
    out = wr.reset_index()
    out["rating"] = np.nan
    out["rating_low"] = np.nan
    out["rating_high"] = np.nan
    out["rating_interval"] = ""
    for k in sorted(int(x) for x in out["num_players"].unique()):
        rated = tables.get(f"ratings_{k}")
        if rated is None and not tables:
            rated = T.ratings(frame, num_players=k)
        if rated is None or not rated.attrs.get("model"):
            continue
        for spec, row in rated.iterrows():
            mask = (out["num_players"] == k) & (out["spec"].astype(str) == str(spec))
            out.loc[mask, ["rating", "rating_low", "rating_high"]] = \
                [row["rating"], row["low"], row["high"]]
            out.loc[mask, "rating_interval"] = row["interval"]
    out["spec"] = out["spec"].astype(str)
    return out


# ---- summary sentences -------------------------------------------------------------------------

def findings(runs_or_frame: pd.DataFrame | Iterable[str | os.PathLike] | str | os.PathLike) -> list[str]:
    """The plain-language summary of the report: a list of sentences, each backed by the
    numbers of a table and saying when a difference is not significant (at 5%)."""
    frame = runs_or_frame if isinstance(runs_or_frame, pd.DataFrame) else load_runs(runs_or_frame)
    return build_report(frame, figures=False).sentences


def _buildings_in_play(frame: pd.DataFrame) -> set[str]:
    """The buildings with at least one card in the deck of some game of the frame (the
    mode's deck and the variant's copies and removals)."""
    from ..config import GameConfig

    names: set[str] = set()
    seen = frame.drop_duplicates(["mode", "variant"])
    for mode, variant in zip(seen["mode"], seen["variant_dict"], strict=True):
        try:
            copies = GameConfig.from_options(2, str(mode), **dict(variant)).deck_copies()
        except (TypeError, ValueError):          # a rules version this build cannot read
            return set(CARD_NAMES[1:])
        names.update(CARD_NAMES[card] for card in range(1, len(CARD_NAMES)) if copies[card])
    return names


def _adjusted(p: float, holm: float, family: int, what: str) -> str:
    """A p-value as the summary states it: for one of a family of tests, the plain value and
    the Holm-adjusted one (which the verdict uses), each labelled; for a single test, the
    plain one."""
    if family > 1:              # ``what``: the family's plural noun
        return f"{_p_text(p)} unadjusted, {_p(holm)} Holm-adjusted over {family} {what}"
    return f"{_p_text(p)}, a single test, unadjusted"


def _pair_row(table: pd.DataFrame, a: str, b: str) -> tuple[pd.Series, bool] | None:
    """The row of a pairwise table for specs a and b, and whether it reads from b's side."""
    for x, y, flipped in ((a, b, False), (b, a, True)):
        hit = table[(table["spec"] == x) & (table["opponent"] == y)]
        if len(hit):
            return hit.iloc[0], flipped
    return None


def _findings(report: Report) -> list[tuple[str, str]]:
    """The summary sentences, each with its topic (a key of :data:`TOPICS`)."""
    t = report.tables
    frame = report.frame
    out: list[tuple[str, str]] = []

    def say(topic: str, text: str) -> None:
        out.append((topic, text))

    many = len(report.counts) > 1
    # strategies: compared only where they met, at a table with two specs or more (in
    # self-play every spec wins its equal share by construction)
    if not report.compared:
        say("strategies", "Every game is self-play (one spec at each table): win rates compare "
            "seats, not strategies.")
    # a grid's runs pool into win rates of specs that each met only the grid's opponents:
    # its curve (the grid sentences) speaks for those player counts instead
    in_grids = {str(run) for grid in report.grids for _, run, _ in grid.points}
    for k in report.compared:
        runs_k = set(frame.loc[frame["num_players"] == k, "run"].astype(str))
        if in_grids and runs_k <= in_grids:
            continue
        wr = t["win_rates"].xs(k, level="num_players")
        where = f"in {k}-player games" if many else ""
        if len(wr) < 2:
            if len(wr) == 1:
                say("strategies", f"Only {wr.index[0]} plays{' ' + where if where else ''}: "
                    "there is no strategy to compare it with.")
            continue
        best = wr.index[0]
        b = wr.loc[best]
        pairs = t[f"pairwise_{k}"]
        # win rates against different opponents do not compare: the best is set against
        # the strongest spec it met, by their games against each other
        met = [str(o) for o in wr.index[1:] if _pair_row(pairs, str(best), str(o)) is not None]
        text = (f"{str(best)} has the highest win rate{' ' + where if where else ''}: "
                f"{_pm(b['win_rate'], b['win_low'], b['win_high'])} of {_n(b['games'], 'game')} "
                f"(equal share {_pct(b['expected'], 0)})")
        if not met:
            say("strategies", text + ".")
            continue
        second = met[0]
        s = wr.loc[second]
        if len(met) < len(wr) - 1:
            text += (f", against {', '.join(met)} only (it did not play "
                     f"{', '.join(str(o) for o in wr.index[1:] if str(o) not in met)})")
            if len(met) > 1:
                text += (f"; the strongest of them is {second} "
                         f"({_pm(s['win_rate'], s['win_low'], s['win_high'])})")
        else:
            text += f", ahead of {second} ({_pm(s['win_rate'], s['win_low'], s['win_high'])})"
        found = _pair_row(pairs, str(best), second)
        assert found is not None
        row, flipped = found
        score = 1.0 - row["score"] if flipped else row["score"]
        low, high = (1.0 - row["high"], 1.0 - row["low"]) if flipped else (row["low"], row["high"])
        test = ("t-test on the two games of each deal" if row["interval"] == "pentanomial"
                else "t-test on per-deal scores")
        significant = row["p_holm"] < ALPHA and score > 0.5
        verdict = (f"; against each other it finishes ahead in {_pct(score)} "
                   f"{_ci(low, high)} of {_n(row['games'], 'game')} over "
                   f"{_n(row['deals'], 'deal')}, "
                   + ("a significant edge" if significant else "not a significant difference")
                   + f" ({test}, {_adjusted(row['p_value'], row['p_holm'], len(pairs), 'pairs')})")
        say("strategies", text + verdict + ".")
        worst = wr.index[-1]
        w = wr.loc[worst]
        if len(wr) > 2:
            say("strategies", f"{worst} is the weakest{' ' + where if where else ''}: "
                       f"{_pm(w['win_rate'], w['win_low'], w['win_high'])}.")
    # seats
    seat, tests = t["seat"], t["seat_tests"]
    n_counts = len(tests)
    for k in report.counts:
        rows = seat.xs(k, level="num_players")
        test = tests.loc[k]
        if k == 2:
            r = rows.loc[0]
            text = (f"P1 wins {_pm(r['win_rate'], r['win_low'], r['win_high'])} of 2-player games "
                    f"(equal share 50%)")
        else:
            rates = ", ".join(_pct(x, 0) for x in rows["win_rate"])
            text = (f"In {k}-player games the seats win {rates} (P1 to P{k}; equal share "
                    f"{_pct(1 / k, 0)})")
        p = test["p_holm"]
        name = "t-test of P1's per-deal share" if k == 2 else "Hotelling's T² of per-deal seat shares"
        stated = _adjusted(test["p_value"], p, n_counts, "player counts")
        if np.isfinite(p) and p < ALPHA:
            best = int(test["best_seat"])
            text += (f": a significant seat advantage, for {_seat(best)} "
                     f"({name}, {stated})")
        else:
            text += f": no significant seat advantage ({name}, {stated})"
        if not test["balanced"]:
            text += ("; the specs did not sit equally often in every seat, so seat and strategy "
                     "effects are mixed")
        say("seats", text + ".")
    # buildings
    b = t["buildings"]
    tested = b[b["effect"].notna()]
    m = int(b.attrs.get("tested", len(tested)))
    # the strongest and weakest among the buildings with enough completions (a building
    # completed twice, both times by a winner, tops the ranking by chance)
    total_rows = len(frame)
    enough = tested[(tested["n_completed"] >= MIN_COMPLETED)
                    & (total_rows - tested["n_completed"] >= MIN_COMPLETED)]
    among = ""
    if len(enough) >= 2 and len(enough) < len(tested):
        among = f" among the {len(enough)} completed at least {_n(MIN_COMPLETED, 'time')}"
        tested = enough
    held = ("holding strategy, seat, player count and rules fixed"
            if "rules" in b.attrs.get("controls", []) else
            "holding strategy, seat and player count fixed")
    if len(tested) >= 1:
        top = tested.index[0]
        r = tested.loc[top]
        sig = bool(r["significant"])
        text = (f"{top} is the strongest building{among}: {_num(100 * r['effect'], 1, True)} points of "
                f"win rate for the players who complete it "
                f"(95% interval {_ci(r['effect_low'], r['effect_high'], sign=True)}, {held})")
        stated = _adjusted(r["p_value"], r["p_holm"], m, "buildings")
        text += (f", significant after correcting for {_n(m, 'comparison')} ({stated})" if sig
                 else f", but not significant after correcting for {_n(m, 'comparison')} ({stated})")
        say("buildings", text + ".")
        if len(tested) >= 2:
            low = tested.index[-1]
            r = tested.loc[low]
            say("buildings", f"{low} is the weakest building: {_num(100 * r['effect'], 1, True)} points "
                       f"(95% interval {_ci(r['effect_low'], r['effect_high'], sign=True)}, "
                       + ("significant" if r["significant"] else "not significant")
                       + f" after the correction: {_adjusted(r['p_value'], r['p_holm'], m, 'buildings')}).")
            positive = (tested["effect"] > 0).mean()
            if positive > 0.75:
                say("buildings", f"{positive:.0%} of the building effects are positive: completing any "
                           "building scores influence and comes with a strong position, so "
                           "compare buildings with each other rather than with zero.")
        # a building outside every deck played (the other mode's cards, a removed one) cannot
        # be completed: it is named apart from those that were in the deck and never built
        in_deck = _buildings_in_play(frame)
        never = [name for name in b.index[b["n_completed"] == 0] if name in in_deck]
        absent = [name for name in b.index if name not in in_deck]
        if never:
            say("buildings", f"{len(never)} of the {len(in_deck)} buildings in the deck were never completed "
                       f"({', '.join(map(str, never[:6]))}{', ...' if len(never) > 6 else ''}).")
        if absent:
            say("buildings", f"{', '.join(map(str, absent[:6]))}{', ...' if len(absent) > 6 else ''} "
                       f"{'was' if len(absent) == 1 else 'were'} not in the deck of these games "
                       "(the other mode's cards or removed by the variant).")
    # scoring
    vp = t["vp"]
    flat = vp.reset_index()
    top = flat.loc[flat["total"].idxmax()]
    comps = ["influence", "vault", "merchant_bonus", "statue", "wall"]
    main = max(comps, key=lambda c: top[c])
    label = {"influence": "influence", "vault": "the vault", "merchant_bonus": "Merchant bonuses",
             "statue": "the Statue", "wall": "the Wall"}[main]
    where = f" in {int(top['num_players'])}-player games" if "num_players" in flat.columns else ""
    say("scoring", f"{top['spec']} scores the most VP{where}: {_num(top['total'])} a game, "
               f"{top[main] / top['total']:.0%} of it from {label}.")
    # endings and length
    end = t["end"]
    per_count = []
    for k in report.counts:
        part = end.xs(k, level="num_players")
        part = part.groupby(level="end_reason", sort=False)["games"].sum()
        share = part / part.sum()
        reason = share.idxmax()
        per_count.append(f"{k}-player games end mostly "
                         f"{_REASON_TEXT.get(str(reason), 'by ' + str(reason))} ({_pct(share.max())})")
    say("endings", ("; ".join(per_count) if many else per_count[0].replace(
        f"{report.counts[0]}-player games", "Games", 1)) + ".")
    per_game = frame[frame["seat"] == 0]
    lens = []
    for k in report.counts:
        g = per_game[per_game["num_players"] == k]
        lens.append(f"a {k}-player game lasts {g['turns'].mean():.0f} turns on average "
                    f"(median {g['turns'].median():.0f}) and {g['decisions'].mean():.0f} decisions")
    sentence = "; ".join(lens) + "."
    say("endings", sentence[0].upper() + sentence[1:])
    # variants
    v = t.get("variants")
    first_variant = len(out)
    if v is not None:
        conds = v.attrs["conditions"]
        family = int(v.attrs["tested"])
        method = "Welch t-test" if len(conds) == 2 else "Alexander-Govern test"
        tested_rates: list[tuple[str, pd.Series]] = [
            (str(item), row) for (measure, item), row in v.iterrows()
            if measure == "win rate" and np.isfinite(row["p_value"])]
        unchanged: list[tuple[str, pd.Series]] = []
        for name, rrow in tested_rates:
            shares = " and ".join(f"{_pct(rrow[c])} under {c}" for c in conds if np.isfinite(rrow[c]))
            if rrow["p_holm"] < ALPHA:
                say("variants", f"{name} wins {shares}: a significant difference ({method} on "
                    f"per-deal win shares, {_adjusted(rrow['p_value'], rrow['p_holm'], family, 'tests')}).")
            else:
                unchanged.append((name, rrow))
        if len(unchanged) == 1:
            name, rrow = unchanged[0]
            shares = " and ".join(f"{_pct(rrow[c])} under {c}" for c in conds if np.isfinite(rrow[c]))
            say("variants", f"{name} wins {shares}: no significant difference ({method} on per-deal "
                f"win shares, {_adjusted(rrow['p_value'], rrow['p_holm'], family, 'tests')}).")
        elif unchanged:
            listed = "; ".join(f"{name} " + " and ".join(_pct(rrow[c]) for c in conds)
                               for name, rrow in unchanged)
            closest, rrow = min(unchanged, key=lambda pair: float(pair[1]["p_value"]))
            whom = ("strategy's win rate differs" if len(unchanged) == len(tested_rates)
                    else "other strategy's win rate differs")
            say("variants", f"No {whom} significantly between {' and '.join(conds)} ({method}s on "
                f"per-deal win shares, Holm-adjusted over the {family} tests of the variant table): "
                f"{listed}. The closest to a difference, {closest}, has "
                f"{_adjusted(rrow['p_value'], rrow['p_holm'], family, 'tests')}.")
        ends = v.xs("end", level="measure")
        ends = ends[np.isfinite(ends["p_value"])]
        if len(ends):
            reason = str(ends["p_holm"].idxmin())
            row = ends.loc[reason]
            shares = " and ".join(f"{_pct(row[c])} under {c}" for c in conds if np.isfinite(row[c]))
            stated = _adjusted(row["p_value"], row["p_holm"], family, "tests")
            if row["p_holm"] < ALPHA:
                say("variants", f"The way games end differs significantly between the rule variants: "
                           f"games ending {_REASON_TEXT.get(reason, 'by ' + reason)}, {shares} "
                           f"(Welch t-test on per-deal shares, {stated}).")
            else:
                say("variants", "The way games end does not differ significantly between the rule "
                           f"variants (the clearest difference: games ending "
                           f"{_REASON_TEXT.get(reason, 'by ' + reason)}, {shares}; {stated}).")
        if "rules" in per_game.columns and per_game["rules"].nunique() > 1:
            parts = []
            for rules, g in per_game.groupby("rules", observed=True, sort=True):
                share = g["end_reason"].astype(str).value_counts(normalize=True)
                reason = str(share.index[0])
                parts.append(f"under {rules} games end mostly "
                             f"{_REASON_TEXT.get(reason, 'by ' + reason)} ({_pct(share.iloc[0])}) and "
                             f"last {g['turns'].mean():.0f} turns ({g['decisions'].mean():.0f} decisions)")
            text = "; ".join(parts) + "."
            say("variants", text[0].upper() + text[1:])
        if "variants_scope" in report.notes:
            out.insert(first_variant, ("variants", "Rule variants are " + report.notes["variants_scope"]
                                       + "."))
    elif "variants" in report.notes:
        say("variants", report.notes["variants"][0].upper() + report.notes["variants"][1:] + ".")
    return out


def _grid_sentences(report: Report, grid: Grid) -> list[str]:
    """The answer a grid gives: the score at every value, the Elo per doubling, the last
    step (paired by deal)."""
    table = report.tables[f"grid-{grid.name}"]
    bot = _bot_name(grid.template)
    opponents = ", ".join(grid.opponents)
    values = [f"{_pct(r['score'])} {_ci(r['low'], r['high'])} at {v:,g}" for v, r in table.iterrows()]
    games = table["games"].unique()
    deals = table["deals"].unique()
    each = (f"{_n(games[0], 'game')} over {_n(deals[0], 'deal')} each" if len(games) == 1 and len(deals) == 1
            else f"{_n(table['games'].sum(), 'game')} in all")
    first, last = table.iloc[0], table.iloc[-1]
    direction = ("rises" if last["score"] > first["score"] else "falls"
                 if last["score"] < first["score"] else "ends where it starts")
    out = [f"Against {opponents}, {bot}'s score {direction} as its {grid.parameter} grows: "
           + ", ".join(values[:-1]) + f" and {values[-1]} ({each}; 95% intervals: "
           + _interval_text(table) + ")."]
    if "elo" in table.columns:
        elos = ", ".join(f"{_num(r['elo'], 0, True)} at {v:,g}" for v, r in table.iterrows())
        text = f"In Elo against {opponents}: {elos}"
        trend = table.attrs.get("trend")
        if trend:
            text += (f"; each doubling of {grid.parameter} adds {_num(trend['elo_per_doubling'], 0, True)} "
                     f"Elo on average (95% interval {_ci(trend['low'], trend['high'], 1, 0, True)}; "
                     f"a logistic regression of every game's score on log2 {grid.parameter}, "
                     f"deal-clustered over the {_n(trend['deals'], 'deal')}, {_p_text(trend['p_value'])})")
        out.append(text + ".")
    step = table.attrs.get("step")
    if step:
        significant = step["p_value"] < ALPHA
        out.append(f"The last step, from {step['from']:,g} to {step['to']:,g} {grid.parameter}, "
                   f"changes the score by {_num(100 * step['change'], 1, True)} points "
                   f"(95% interval {_ci(step['low'], step['high'], sign=True)}; the two never played "
                   f"each other: each played the same {_n(step['deals'], 'deal')} against "
                   f"{opponents}, compared deal by deal): "
                   + ("a significant change" if significant else "not a significant change")
                   + f" ({_p_text(step['p_value'])}, a single test, unadjusted).")
    return out


_REASON_TEXT: dict[str, str] = {
    EndReason.DECK: "when the deck runs out", EndReason.SITES: "when the sites run out",
    EndReason.CATACOMB: "with a Catacomb", EndReason.FORUM: "with a Forum victory",
    EndReason.CONCESSION: "by concession"}


# ---- HTML -----------------------------------------------------------------------------------

_CSS = """
:root { --ink: #1d2430; --muted: #5b6573; --line: #d9dee5; --soft: #f4f6f9; --accent: #2f5d9e; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
body { margin: 0; color: var(--ink); background: #fff;
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
main { max-width: 1120px; margin: 0 auto; padding: 24px 28px 60px; }
h1 { font-size: 26px; line-height: 1.25; margin: 0 0 6px; }
h2 { font-size: 20px; margin: 36px 0 8px; padding-top: 12px; border-top: 1px solid var(--line); }
h3 { font-size: 16px; margin: 22px 0 6px; }
p, li, summary, h1, h2, h3 { overflow-wrap: anywhere; }
.kicker { color: var(--muted); font-size: 13px; letter-spacing: .04em; margin: 0 0 2px; }
.lead { color: var(--muted); margin: 0 0 12px; max-width: 900px; }
ul.lead { padding-left: 20px; }
p.note, p.caption { color: var(--muted); font-size: 13.5px; margin: 4px 0 10px; max-width: 900px; }
nav { display: flex; flex-wrap: wrap; gap: 4px 14px; margin: 14px 0 8px; font-size: 14px; }
nav a { color: var(--accent); text-decoration: none; white-space: nowrap; }
nav a:hover { text-decoration: underline; }
.findings { background: var(--soft); border-left: 4px solid var(--accent); padding: 10px 18px 10px 8px;
  margin: 14px 0; }
.findings.answer { background: #eaf1fb; }
.findings ul { margin: 4px 0; padding-left: 26px; }
.findings li { margin: 5px 0; }
.facts { display: flex; flex-wrap: wrap; gap: 10px; margin: 14px 0; }
.fact { background: var(--soft); border-radius: 6px; padding: 8px 14px; min-width: 120px; }
.fact b { display: block; font-size: 20px; }
.fact span { color: var(--muted); font-size: 13px; }
/* a wide table scrolls inside its box; the shadows at its edges say there is more */
.scroll { overflow-x: auto; margin: 8px 0 12px; max-width: 100%;
  background: linear-gradient(to right, #fff 30%, rgba(255,255,255,0)),
    linear-gradient(to left, #fff 30%, rgba(255,255,255,0)) 100% 0,
    radial-gradient(farthest-side at 0 50%, rgba(0,0,0,.18), rgba(0,0,0,0)),
    radial-gradient(farthest-side at 100% 50%, rgba(0,0,0,.18), rgba(0,0,0,0)) 100% 0;
  background-repeat: no-repeat; background-size: 40px 100%, 40px 100%, 14px 100%, 14px 100%;
  background-attachment: local, local, scroll, scroll; }
table { border-collapse: collapse; font-size: 13.5px; font-variant-numeric: tabular-nums; }
th, td { padding: 4px 9px; border-bottom: 1px solid var(--line); text-align: right; }
td { white-space: nowrap; }
th { background: var(--soft); font-weight: 600; border-bottom: 2px solid var(--line);
  vertical-align: bottom; line-height: 1.25; }
td.l, th.l { text-align: left; }
tr.sig td { background: #eef5ec; }
figure { margin: 10px 0 18px; }
figure img { display: block; max-width: 100%; height: auto; }
details { margin: 6px 0 12px; }
summary { cursor: pointer; color: var(--accent); font-size: 14px; }
pre { background: var(--soft); padding: 10px 12px; font-size: 12.5px; overflow-x: auto; border-radius: 4px; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 6px; }
footer { margin-top: 40px; color: var(--muted); font-size: 12.5px; }
@media (max-width: 639.98px) {
  body { font-size: 15px; }
  main { padding: 14px 14px 40px; }
  h1 { font-size: 21px; }
  h2 { font-size: 18px; margin-top: 28px; }
  .findings { padding: 8px 10px 8px 4px; }
  .findings ul { padding-left: 20px; }
  .fact { min-width: 0; flex: 1 1 40%; padding: 6px 10px; }
  .fact b { font-size: 17px; }
  table { font-size: 12.5px; }
  th, td { padding: 3px 6px; }
}
"""


def _e(x: Any) -> str:
    return html.escape(str(x), quote=True)


def _html_table(rows: Sequence[Sequence[Any]], header: Sequence[str], left: int = 1,
                classes: Sequence[str] | None = None) -> str:
    """A table of already formatted cells; the first ``left`` columns are left-aligned."""
    out = ['<div class="scroll"><table><thead><tr>']
    out += [f'<th class="l">{_e(h)}</th>' if i < left else f"<th>{_e(h)}</th>"
            for i, h in enumerate(header)]
    out.append("</tr></thead><tbody>")
    for r, row in enumerate(rows):
        cls = f' class="{classes[r]}"' if classes and classes[r] else ""
        out.append(f"<tr{cls}>")
        out += [f'<td class="l">{cell}</td>' if i < left else f"<td>{cell}</td>"
                for i, cell in enumerate(row)]
        out.append("</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


def _spec_cell(spec: Any, colors: dict[str, str]) -> str:
    color = colors.get(str(spec), "#8c8c8c")
    return f'<span class="swatch" style="background:{color}"></span>{_e(spec)}'


def _img(name: str, png: bytes, fig: Any, narrow_png: bytes, narrow_fig: Any, alt: str) -> str:
    """A figure inline (``id`` fig-NAME), with its narrow layout for pages under
    :data:`NARROW_BELOW` px."""
    width = int(round(fig.get_size_inches()[0] * 100))
    height = int(round(fig.get_size_inches()[1] * 100))
    n_width = int(round(narrow_fig.get_size_inches()[0] * 100))
    n_height = int(round(narrow_fig.get_size_inches()[1] * 100))
    data = base64.b64encode(png).decode("ascii")
    narrow = base64.b64encode(narrow_png).decode("ascii")
    return (f'<figure id="fig-{_e(name)}"><picture><source media="(max-width: {NARROW_BELOW - 0.02:g}px)" '
            f'width="{n_width}" height="{n_height}" srcset="data:image/png;base64,{narrow}">'
            f'<img alt="{_e(alt)}" width="{width}" height="{height}" '
            f'src="data:image/png;base64,{data}"></picture></figure>')


def _grid_table(report: Report, grid: Grid) -> str:
    table = report.tables[f"grid-{grid.name}"]
    two = "elo" in table.columns
    rows = []
    for value, r in table.iterrows():
        rows.append([f"{value:,g}", _spec_cell(r["spec"], report.colors), _e(r["run"]),
                     _count(r["games"]), _count(r["deals"]), _pct(r["score"]),
                     _ci(r["low"], r["high"]), _e(r["interval"])]
                    + ([_e(T.elo_text(r["elo"], r["elo_low"], r["elo_high"]))] if two else []))
    header = [grid.parameter, "spec", "run", "games", "deals", "score", "95% interval", "model"]
    return _html_table(rows, header + (["Elo"] if two else []), left=3)


def _models_text(models: dict[str, str]) -> str:
    """The descriptions of the interval models used by a table, for its caption."""
    return "; ".join(_e(text) for text in models.values())


def _win_rate_rows(table: pd.DataFrame, colors: dict[str, str], keys: Sequence[str]
                   ) -> tuple[list[list[str]], list[str]]:
    rows = []
    for idx, r in table.iterrows():
        idx = idx if isinstance(idx, tuple) else (idx,)
        cells = []
        for name, value in zip(keys, idx, strict=True):
            cells.append(_spec_cell(value, colors) if name == "spec" else
                         _e(_seat(value) if name == "seat" else value))
        cells += [_count(r["games"]), _num(r["wins"], 1), _pct(r["win_rate"]),
                  _ci(r["win_low"], r["win_high"]), _e(r["interval"]),
                  _ci(r["wilson_low"], r["wilson_high"]), _pct(r["expected"]),
                  _num(r["mean_score"]), _num(r["mean_rank"], 2)]
        rows.append(cells)
    header = [{"num_players": "players", "seat": "seat", "spec": "spec"}.get(k, k) for k in keys]
    return rows, header + ["games", "wins", "win rate", "95% interval", "model",
                           "Wilson (games independent)", "equal share", "mean VP", "mean place"]


def _pairwise_rows(table: pd.DataFrame, colors: dict[str, str]) -> tuple[list[list[str]], list[str]]:
    two = table.attrs.get("num_players") == 2
    rows = []
    for _, r in table.iterrows():
        cells = [_spec_cell(r["spec"], colors), _spec_cell(r["opponent"], colors),
                 _count(r["games"]), _count(r["deals"]), _pct(r["score"]),
                 _ci(r["low"], r["high"]), _e(r["interval"]),
                 _e(T.elo_text(r["elo"], r["elo_low"], r["elo_high"]))]
        if two:
            cells.append(_e(T.elo_text(r["nelo"], r["nelo_low"], r["nelo_high"]))
                         if np.isfinite(r["nelo_low"]) else "–")
        cells += [_ci(r["wilson_low"], r["wilson_high"]), _p(r["p_value"])]
        if len(table) > 1:
            cells.append(_p(r["p_holm"]))
        rows.append(cells)
    header = ["spec", "opponent", "games", "deals", "finishes ahead", "95% interval", "model",
              "Elo"] + (["normalized Elo"] if two else []) + [
        "Wilson (games independent)"]
    if len(table) > 1:
        header += ["p (unadjusted)", f"p ({table.attrs['holm']} over {len(table)} pairs)"]
    else:
        header += ["p (one test)"]
    return rows, header


def _render(report: Report, figures_png: dict[str, tuple[bytes, bytes]], title: str) -> str:
    """The page; ``figures_png``: each figure's PNG, wide and narrow."""
    t, fr = report.tables, report.frame
    colors = report.colors
    per_game = fr[fr["seat"] == 0]
    parts: list[str] = []
    add = parts.append
    specs = sorted(str(s) for s in fr["spec"].unique())

    def figure(name: str, alt: str) -> None:
        if name in figures_png:
            wide, narrow = figures_png[name]
            add(_img(name, wide, report.figures[name], narrow, report.narrow[name], alt))

    if report.question:
        add(f'<p class="kicker">{_e(title)}</p>')
        add(f"<h1>{_e(report.question)}</h1>")
    else:
        add(f"<h1>{_e(title)}</h1>")
    descriptions = [r["config"].get("description") for r in report.runs
                    if r.get("config") and r["config"].get("description")]
    if report.description:
        add(f'<p class="lead">{_e(report.description)}</p>')
    elif len(descriptions) == 1:
        add(f'<p class="lead">{_e(descriptions[0])}</p>')
    elif descriptions:
        add('<ul class="lead">' + "".join(f"<li>{_e(d)}</li>" for d in descriptions) + "</ul>")
    sections = [("answer", "Answer")] if report.answer else []
    sections.append(("summary", "Summary"))
    if report.compared:
        sections += [("win-rates", "Win rates"), ("ratings", "Ratings")]
    sections += [("seats", "Seat advantage"), ("buildings", "Buildings"), ("scoring", "Scoring"),
                 ("endings", "Endings and length")]
    if "roles" in t:
        sections.append(("roles", "Roles led"))
    if "variants" in t or "variants" in report.notes:
        sections.append(("variants", "Rule variants"))
    sections.append(("manifest", "Runs"))
    add("<nav>" + "".join(f'<a href="#{a}">{_e(n)}</a>' for a, n in sections) + "</nav>")

    # the answer to the experiment's question, first
    if report.answer:
        add('<h2 id="answer">Answer</h2>')
        add('<div class="findings answer"><ul>' + "".join(f"<li>{_e(s)}</li>" for s in report.answer)
            + "</ul></div>")
        for grid in report.grids:
            figure(f"grid-{grid.name}", f"{_bot_name(grid.template)}: score by {grid.parameter}")
            add(_grid_table(report, grid))

    # summary
    add('<h2 id="summary">Summary</h2>')
    rules = fr["rules"].nunique()
    facts = [(_count(len(per_game)), "games" if len(per_game) != 1 else "game"),
             (_count(len(fr)), "seat-games" if len(fr) != 1 else "seat-game"),
             (str(len(report.runs)), "runs" if len(report.runs) != 1 else "run"),
             (str(len(specs)), "strategies" if len(specs) != 1 else "strategy"),
             (", ".join(map(str, report.counts)), "players per game"),
             (str(rules), "rule variants" if rules != 1 else "rule variant")]
    add('<div class="facts">' + "".join(f'<div class="fact"><b>{_e(v)}</b><span>{_e(k)}</span></div>'
                                        for v, k in facts) + "</div>")
    others = report.sentences[len(report.answer):]
    if others:
        add(('<h3>Also found</h3>' if report.answer else "")
            + '<div class="findings"><ul>' + "".join(f"<li>{_e(s)}</li>" for s in others)
            + "</ul></div>")
    add('<p class="note">Intervals are 95% and take the deal as the unit: every deal is played '
        "in every seat rotation, so its games are not independent (docs/statistics.md); a "
        "head-to-head match uses the pentanomial model of the two seatings of a deal, the other "
        "tables resample whole deals. \"± x%\" is half the width of the interval. A win shared "
        "by k players counts 1/k. Significant means p &lt; 0.05; every p-value says whether it "
        "is Holm-adjusted for the family of tests it belongs to.</p>")

    if report.compared:
        # win rates: only where strategies met (in self-play they are equal shares)
        rates = _compared_rates(report)
        add('<h2 id="win-rates">Win rates</h2>')
        add('<p class="caption">Win rate of each strategy (its share of the wins over its '
            "seat-games); the equal share is 1/players. 95% interval: "
            + _models_text(rates.attrs["models"]) + ". Beside it, the Wilson interval of the "
            "seat-games taken as independent, for comparison.</p>")
        rows, header = _win_rate_rows(rates, colors, ["num_players", "spec"])
        add(_html_table(rows, header, left=2))
        figure("win_rates", "win rates per strategy")
        if "win_rates_all" in t:
            rows, header = _win_rate_rows(t["win_rates_all"], colors, ["spec"])
            add("<details><summary>All player counts pooled</summary>" + _html_table(rows, header)
                + "</details>")
        rows, header = _win_rate_rows(t["win_rates_seat"], colors, ["num_players", "seat", "spec"])
        add("<details><summary>By seat</summary>" + _html_table(rows, header, left=3) + "</details>")

        # ratings
        add('<h2 id="ratings">Ratings and head-to-head results</h2>')
        add('<p class="caption">Ratings: Bradley-Terry on pairwise finishing order (in every '
            "game, every two seats holding different strategies are one comparison), on the "
            "logistic Elo scale (mean 0; a 100-point gap predicts finishing ahead 64% of the "
            f"time), with a Gaussian prior N(0, {P.RATING_PRIOR_SD:g}²) on every rating "
            "that keeps them finite for any record; 95% interval: "
            + _e(P.MODEL_DEAL_BOOTSTRAP)
            + ", or for a perfect record (the same in every resample) the profile likelihood. "
            "Head to head: every two strategies that met, how often the first finished ahead of "
            "the second, its interval and the test of evenly matched — 2 players: "
            + _e(P.MODEL_PENTANOMIAL) + "; 3-5 players: "
            + _e(P.MODEL_DEAL_T) + " of finishing ahead. The heatmap: "
            + _e(P.FINISHING_CAPTION) + "</p>")
        for k in report.compared:
            rated = t.get(f"ratings_{k}")
            add(f"<h3>{k} players</h3>")
            if rated is not None:
                rows = [[_spec_cell(s, colors), _num(r["rating"], 0, True),
                         _ci(r["low"], r["high"], 1, 0, True), _e(r["interval"]),
                         _count(r["games"])]
                        for s, r in rated.iterrows()]
                add(_html_table(rows, ["spec", "Elo (BT)", "95% interval", "interval", "games"]))
                figure(f"ratings_{k}", f"rating ladder, {k} players")
            pairs = t[f"pairwise_{k}"]
            rows, header = _pairwise_rows(pairs, colors)
            table = _html_table(rows, header, left=2)
            add(table if len(rows) <= 10 else
                f"<details><summary>Head to head: the {len(rows)} pairs</summary>{table}</details>")
            figure(f"matrix_{k}", f"finishing ahead, {k} players")

    # seats
    add('<h2 id="seats">Seat advantage</h2>')
    tests = t["seat_tests"]
    add('<p class="caption">Win rate by seat (P1 leads the first turn), 95% interval: '
        + _e(t["seat"].attrs["model"]) + "; beside it the Wilson interval of the games taken "
        "as independent. The test of \"no seat advantage\" takes each deal's games together "
        "(each seat's mean win share in the deal): for 2 players, "
        + _e(T.tables.SEAT_TEST_2) + "; for 3-5, " + _e(T.tables.SEAT_TEST_K)
        + (f"; p-values {tests.attrs['holm']} over the {len(tests)} player counts"
           if len(tests) > 1 else "") + ".</p>")
    rows = []
    for (k, s), r in t["seat"].iterrows():
        rows.append([_e(k), _e(_seat(s)), _count(r["games"]), _pct(r["win_rate"]),
                     _ci(r["win_low"], r["win_high"]), _ci(r["wilson_low"], r["wilson_high"]),
                     _pct(r["expected"]), _num(100 * r["diff"], 1, True)])
    add(_html_table(rows, ["players", "seat", "games", "win rate", "95% interval (deal bootstrap)",
                           "Wilson (games independent)", "equal share", "difference (points)"],
                    left=2))
    rows = []
    for k, r in tests.iterrows():
        cells = [_e(k), _count(r["games"]), _count(r["deals"]),
                 "t" if int(k) == 2 else "Hotelling's T²", _num(r["statistic"], 2),
                 _p(r["p_value"])]
        if len(tests) > 1:
            cells.append(_p(r["p_holm"]))
        rows.append(cells + [_e(_seat(r["best_seat"])), "yes" if r["balanced"] else "no"])
    add(_html_table(rows, ["players", "games", "deals", "test", "statistic",
                           "p (unadjusted)" if len(tests) > 1 else "p (one test)"]
                    + ([f"p ({tests.attrs['holm']} over {len(tests)} player counts)"]
                       if len(tests) > 1 else [])
                    + ["best seat", "specs balanced over seats"]))
    figure("seat", "win rate by seat")

    # buildings
    b = t["buildings"]
    add('<h2 id="buildings">Building strength</h2>')
    tested_count = int(b.attrs.get("tested", 0))
    add('<p class="caption">For each building, the win rate of the seat-games that completed it '
        "against those that did not. <b>Effect</b>: from a logistic regression (statsmodels) win ~ "
        "completed + strategy + players:seat" + (" + rules" if "rules" in b.attrs.get("controls", []) else "")
        + ", the average change in win rate (points) from completing the building, all else as "
        f"it was. Its 95% interval and p take the deal as the unit: the standard error is the "
        f"larger of the deal-clustered one (over {_n(b.attrs.get('deals', 0), 'deal')}) and the "
        "model-based one (which stays honest for a building few players completed), t on "
        f"deals − 1 degrees of freedom; {_n(b.attrs.get('pseudo_games', 0), 'pseudo seat-game')} "
        "at the overall win rate on each side (completed, not completed) keep the estimate "
        "finite when only winners completed a building. p is "
        f"{_e(b.attrs.get('holm', 'Holm-adjusted'))} over the {_n(tested_count, 'building')} "
        "tested (green rows: significant). <b>Stratified</b>: the Mantel-Haenszel-weighted "
        "difference within strategy × player-count strata, a check on the model that takes the "
        "seat-games as independent. These are associations: completing buildings scores "
        "influence, and strong positions complete more of them.</p>")
    rows, full, classes = [], [], []
    for name, r in b.iterrows():
        tested = np.isfinite(r["effect"])
        rank = str(int(r["rank"])) if tested else "–"
        completed = f"{_count(r['n_completed'])} ({_pct(r['completion_rate'])})"
        rates = [_pct(r["win_rate_completed"]), _pct(r["win_rate_not"])]
        effect = [_num(100 * r["effect"], 1, True), _ci(r["effect_low"], r["effect_high"], sign=True)]
        strat = [_num(100 * r["mh_diff"], 1, True), _ci(r["mh_low"], r["mh_high"], sign=True)]
        rows.append([_e(name), rank, completed, *rates, *effect, _p(r["p_holm"]), *strat])
        full.append([_e(name), rank, completed, *rates, *effect, _num(r["odds_ratio"], 2),
                     _ci(r["log_odds_low"], r["log_odds_high"], 1, 2, True), _p(r["p_value"]),
                     _p(r["p_holm"]), *strat, _num(100 * r["raw_diff"], 1, True)])
        classes.append("sig" if tested and r["significant"] else "")
    holm_head = f"p ({b.attrs['holm']} over {int(b.attrs.get('tested', 0))} buildings)"
    header = ["building", "rank", "completed (share)", "win rate: completed", "not",
              "effect (points)", "95% interval", holm_head, "stratified", "95% interval"]
    full_header = ["building", "rank", "completed (share)", "win rate: completed", "not",
                   "effect (points)", "95% interval", "odds ratio", "log-odds 95% interval",
                   "p (unadjusted)", holm_head, "stratified", "95% interval",
                   "raw difference"]
    figure("buildings", "building strength forest plot")
    tested_n = int(b["effect"].notna().sum())
    if tested_n > 17:
        pick = list(range(12)) + list(range(tested_n - 5, tested_n))
        add("<h3>The 12 strongest and the 5 weakest</h3>")
        gap = ["…"] + [""] * (len(header) - 1)
        shown = [rows[i] for i in pick[:12]] + [gap] + [rows[i] for i in pick[12:]]
        add(_html_table(shown, header, classes=[classes[i] for i in pick[:12]] + [""]
                        + [classes[i] for i in pick[12:]]))
    else:
        add(_html_table(rows, header, classes=classes))
    add("<details><summary>Every building, with odds ratios and raw differences</summary>"
        + _html_table(full, full_header, classes=classes) + "</details>")

    # scoring
    add('<h2 id="scoring">How players score</h2>')
    add('<p class="caption">Mean VP per seat-game by component: influence (from buildings and '
        "the start), vault, Merchant bonuses, Statue and Wall.</p>")
    vp = t["vp"]
    keys = list(vp.index.names)
    rows = []
    for idx, r in vp.iterrows():
        idx = idx if isinstance(idx, tuple) else (idx,)
        cells = [_spec_cell(v, colors) if name == "spec" else _e(v)
                 for name, v in zip(keys, idx, strict=True)]
        cells += [_count(r["games"])] + [_num(r[c]) for c in
                                          ("influence", "vault", "merchant_bonus", "statue", "wall", "total")]
        rows.append(cells)
    add(_html_table(rows, [{"num_players": "players"}.get(k, k) for k in keys]
                    + ["games", "influence", "vault", "Merchant", "Statue", "Wall", "total"],
                    left=len(keys)))
    figure("vp", "VP breakdown")

    # endings
    add('<h2 id="endings">Endings and game length</h2>')
    end = t["end"]
    keys = list(end.index.names)[:-1]
    reasons = list(dict.fromkeys(str(r) for r in end.index.get_level_values("end_reason")))
    rows = []
    for idx, part in end.groupby(level=keys, sort=True):
        idx = idx if isinstance(idx, tuple) else (idx,)
        part = part.droplevel(keys)
        rows.append([_e(v) for v in idx] + [_count(part["games"].sum())]
                    + [_pct(part.loc[r, "share"]) if r in part.index else "–" for r in reasons])
    add(_html_table(rows, [{"num_players": "players"}.get(k, k) for k in keys] + ["games"]
                    + [F.END_LABELS.get(r, r) for r in reasons], left=len(keys)))
    rows = [[_e(v) for v in (idx if isinstance(idx, tuple) else (idx,))]
            + [_count(r["games"]), _pct(r["share"]), _ci(r["low"], r["high"]),
               _ci(r["wilson_low"], r["wilson_high"])]
            for idx, r in end.iterrows()]
    add("<details><summary>With counts and intervals</summary>"
        + f'<p class="caption">95% interval: {_e(end.attrs["model"])}; beside it the Wilson '
        "interval of the games taken as independent.</p>"
        + _html_table(rows, [{"num_players": "players", "end_reason": "end"}.get(k, k)
                             for k in end.index.names]
                      + ["games", "share", "95% interval", "Wilson (games independent)"],
                      left=len(keys) + 1) + "</details>")
    figure("end", "end conditions")
    length = t["length"]
    keys = list(length.index.names)
    rows = []
    for idx, r in length.iterrows():
        idx = idx if isinstance(idx, tuple) else (idx,)
        cells = [_e(v) for v in idx] + [_count(r["games"])]
        for col in ("turns", "decisions"):
            cells += [f"{_num(r[f'{col}_mean'])} ± {_num(r[f'{col}_sd'])}",
                      _num(r[f"{col}_median"], 0),
                      f"{_num(r[f'{col}_min'], 0)}–{_num(r[f'{col}_max'], 0)}"]
        rows.append(cells)
    add(_html_table(rows, [{"num_players": "players"}.get(k, k) for k in keys]
                    + ["games", "turns: mean ± sd", "median", "range",
                       "decisions: mean ± sd", "median", "range"], left=len(keys)))
    figure("length", "game length histograms")

    # roles
    if "roles" in t:
        add('<h2 id="roles">Roles led</h2>')
        add('<p class="caption">Mean turns per seat-game leading each role.</p>')
        roles = t["roles"]
        keys = list(roles.index.names)
        rows = []
        for idx, r in roles.iterrows():
            idx = idx if isinstance(idx, tuple) else (idx,)
            rows.append([_spec_cell(v, colors) if n == "spec" else _e(v)
                         for n, v in zip(keys, idx, strict=True)]
                        + [_count(r["games"])] + [_num(r[c], 2) for c in roles.columns[1:]])
        add(_html_table(rows, [{"num_players": "players"}.get(k, k) for k in keys] + ["games"]
                        + list(roles.columns[1:]), left=len(keys)))

    # variants
    if "variants" in t or "variants" in report.notes:
        add('<h2 id="variants">Rule variants side by side</h2>')
        if "variants" in t:
            v = t["variants"]
            conds = v.attrs["conditions"]
            family = int(v.attrs["tested"])
            add('<p class="caption">The core measures under each rule variant. p: '
                + _e(v.attrs["test"]) + " (each deal's games taken together), and the same "
                f"{_e(v.attrs['holm'])} over the {family} tests of the table."
                + (f" {_e(report.notes['variants_scope'][0].upper() + report.notes['variants_scope'][1:])}."
                   if "variants_scope" in report.notes else "") + "</p>")
            rows = []
            for (measure, item), r in v.iterrows():
                pct = measure in ("win rate", "P1 win rate", "end")
                cells = [_e(measure), _e(item)]
                for c in conds:
                    cells.append(_pct(r[c]) if pct else _count(r[c]) if measure == "games"
                                 else _num(r[c]))
                cells += [_p(r["p_value"]), _p(r["p_holm"])]
                rows.append(cells)
            add(_html_table(rows, ["measure", "", *conds, "p (unadjusted)",
                                   f"p ({v.attrs['holm']} over {family} tests)"], left=2))
        else:
            add(f'<p class="note">{_e(report.notes["variants"])}</p>')

    # manifest
    add('<h2 id="manifest">Runs</h2>')
    rows = []
    for r in report.runs:
        cfg = (r.get("config") or {}).get("config", {})
        rows.append([_e(r["label"]), _e(r["path"]), _count(r["games"]),
                     _e(", ".join(map(str, r.get("versions") or ["?"]))),
                     _e(", ".join(map(str, r.get("record_versions") or []))),
                     _e(cfg.get("format", "–")), _e(cfg.get("seed", "–"))])
    add(_html_table(rows, ["run", "path", "games", "glory_ai version", "record version",
                           "format", "seed"], left=2))
    for r in report.runs:
        text = json.dumps(r["config"], indent=2) if r.get("config") else "(no config.json)"
        add(f"<details><summary>config.json of {_e(r['label'])}</summary><pre>{_e(text)}</pre></details>")
    versions = _versions()
    add('<p class="note">Analysed with ' + _e(", ".join(f"{k} {v}" for k, v in versions.items()))
        + ".</p>")
    add("<footer>Generated by glory_ai.analysis (glory-ai report); docs/analysis.md explains "
        "every table and model.</footer>")
    body = "\n".join(parts)
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{_e(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n<main>\n"
            f"{body}\n</main>\n</body>\n</html>\n")


def _versions() -> dict[str, str]:
    out = {"glory_ai": __version__, "Python": platform.python_version()}
    for package in ("numpy", "pandas", "scipy", "statsmodels", "matplotlib"):
        try:
            out[package] = metadata.version(package)
        except metadata.PackageNotFoundError:   # pragma: no cover
            out[package] = "?"
    return out


# ---- writing ------------------------------------------------------------------------------------

def write_report(run_dirs: str | os.PathLike | Iterable[str | os.PathLike],
                 out_dir: str | os.PathLike | None = None, *, title: str | None = None,
                 figure_files: bool = True, question: str | None = None,
                 description: str | None = None, grids: Sequence[Grid] = ()) -> tuple[Path, Path]:
    """Analyse the runs and write ``report.html`` and ``summary.csv`` into ``out_dir``
    (default: the first run folder), and the figures as PNG and SVG under
    ``out_dir/figures/`` (unless ``figure_files`` is false). Returns (html path, csv path).
    ``question``, ``description`` and ``grids``: an experiment's (:func:`build_report`).
    AnalysisError for unusable input (see :func:`~glory_ai.analysis.load.load_runs`)."""
    html_path, csv_path, _ = write_report_full(run_dirs, out_dir, title=title,
                                               figure_files=figure_files, question=question,
                                               description=description, grids=grids)
    return html_path, csv_path


def _write(path: Path, data: bytes) -> None:
    """Write ``data`` unless the file holds it already (an unchanged report leaves its
    files untouched)."""
    try:
        if path.read_bytes() == data:
            return
    except OSError:
        pass
    path.write_bytes(data)


def write_report_full(run_dirs: str | os.PathLike | Iterable[str | os.PathLike],
                      out_dir: str | os.PathLike | None = None, *, title: str | None = None,
                      figure_files: bool = True, question: str | None = None,
                      description: str | None = None,
                      grids: Sequence[Grid] = ()) -> tuple[Path, Path, Report]:
    """:func:`write_report`, also returning the :class:`Report` (its tables, figures and
    summary sentences)."""
    if isinstance(run_dirs, (str, os.PathLike)):
        run_dirs = [run_dirs]
    run_dirs = list(run_dirs)
    frame = load_runs(run_dirs)
    if out_dir is None:
        first = Path(run_dirs[0])
        out_dir = first if first.is_dir() else first.parent
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise AnalysisError(f"{out}: exists and is not a folder")
    report = build_report(frame, question=question, description=description, grids=grids)
    pngs = {name: (F.figure_bytes(fig, "png"), F.figure_bytes(report.narrow[name], "png"))
            for name, fig in report.figures.items()}
    title = title or "Glory to Rome arena report"
    page = _render(report, pngs, title)
    try:
        out.mkdir(parents=True, exist_ok=True)
        html_path = out / REPORT_FILE
        csv_path = out / SUMMARY_FILE
        _write(html_path, page.encode("utf-8"))
        _write(csv_path, report.tables["summary"].to_csv(index=False, float_format="%.6g").encode())
        if figure_files:
            fig_dir = out / FIGURES_DIR
            fig_dir.mkdir(exist_ok=True)
            # a figure an earlier report of this folder drew and this one leaves out (a
            # section left out in self-play) would otherwise stay beside the new ones
            for old in fig_dir.iterdir():
                if old.suffix in (".png", ".svg") and _FIGURE_NAME.fullmatch(old.stem) \
                        and old.stem not in report.figures:
                    old.unlink()
            for name, fig in report.figures.items():
                _write(fig_dir / f"{name}.png", pngs[name][0])
                _write(fig_dir / f"{name}.svg", F.figure_bytes(fig, "svg"))
    except OSError as exc:
        raise AnalysisError(f"{out}: cannot write the report ({exc.strerror})") from None
    return html_path, csv_path, report
