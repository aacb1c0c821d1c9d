"""The summary of one run: the table ``glory-ai compare`` prints, built from the same
statistics as the report (:mod:`.tables`, :mod:`.paired`).

:func:`summarize` gives one row per spec: games (seat-games: a spec holding two seats of a
game counts two), wins (a win shared by k players is 1/k), the win rate with its 95%
interval (:func:`.tables.win_rates`: the pentanomial model for a head-to-head match, the
deal bootstrap otherwise) and the Wilson interval of the games taken as independent, a
rating with its interval (head to head: the Elo difference of the pentanomial model,
:func:`.paired.head_to_head`; other formats: Bradley-Terry on pairwise finishing order with a
prior, :func:`.tables.ratings`), the mean final VP and the think time per decision. The
summary's ``attrs`` hold the description, the rating kind, the models of the intervals, the
finishing-ahead matrix (:func:`.tables.finishing_matrix`) and the SPRT outcome
(:class:`.sprt.DealSPRT`). :func:`format_table` is the printed table;
``glory_ai.analysis.figures.plot_summary`` the plot. :func:`compare_reruns` is the test of
``glory-ai reproduce`` for runs with time budgets.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ...arena.plan import RunConfig
from ...arena.play import record_key
from .. import AnalysisError
from ..load import frame_of_records
from . import ladder, paired
from .frames import texts
from .intervals import bootstrap_model
from .sprt import DealSPRT
from .tables import finishing_matrix, ratings, specs_met, win_rates

__all__ = ["COLUMNS", "RUN_COLUMNS", "compare_reruns", "format_table", "summarize", "summarize_run",
           "finishing_frame"]

COLUMNS = ["games", "wins", "win_rate", "win_low", "win_high", "wilson_low", "wilson_high",
           "rating", "rating_low", "rating_high", "mean_vp", "sec_per_decision"]


def _infer_format(records: Sequence[Mapping[str, Any]], specs: Sequence[str]) -> str:
    if any(r["num_players"] > 2 for r in records):
        return "field"
    if any(len(set(r["seats"])) < 2 for r in records):
        return "field"
    return "head_to_head" if len(specs) == 2 else "round_robin"


#: the columns of a run that :func:`summarize_run` reads
RUN_COLUMNS = ("run", "game", "game_id", "deal", "pairing", "rotation", "num_players", "seat", "spec",
               "win_share", "won", "score", "rank", "seconds", "seat_decisions")


def summarize_run(folder: str | Any, config: RunConfig | None = None, *,
                  sprt: Sequence[float] | None = None,
                  resamples: int = paired.BOOTSTRAP_RESAMPLES, seed: int = 0) -> pd.DataFrame:
    """:func:`summarize` of the run in ``folder``, read from its columns (only those the
    summary needs: :data:`RUN_COLUMNS`), so that its memory stays small whatever the number
    of games; the same table as ``summarize`` of its records."""
    from ..load import load_runs

    if config is not None and sprt is None and config.sprt is None \
            and resamples == paired.BOOTSTRAP_RESAMPLES and seed == 0:
        summary = _summary_of_sums(folder, config)
        if summary is not None:
            return summary
    frame = load_runs([folder], columns=RUN_COLUMNS)
    return _summary(frame, config, sprt=sprt, resamples=resamples, seed=seed)


def _games_of(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The games of a frame as the SPRT reads them: deal, seats and winners."""
    ordered = frame.sort_values(["game", "seat"], kind="stable")
    games = ordered["game"].to_numpy()
    starts = np.flatnonzero(np.r_[True, games[1:] != games[:-1]])
    bounds = np.r_[starts, len(ordered)]
    specs = ordered["spec"].astype(str).to_numpy()
    won = ordered["won"].to_numpy()
    deals = ordered["deal"].to_numpy()
    out = []
    for a, b in zip(bounds[:-1], bounds[1:], strict=True):
        out.append({"deal": int(deals[a]), "seats": list(specs[a:b]),
                    "winners": [int(i) for i in np.flatnonzero(won[a:b])]})
    return out


def summarize(records: Iterable[Mapping[str, Any]], config: RunConfig | None = None, *,
              sprt: Sequence[float] | None = None,
              resamples: int = paired.BOOTSTRAP_RESAMPLES, seed: int = 0) -> pd.DataFrame:
    """One row per spec (index ``spec``), sorted by win rate; see the module docstring.
    The records are those of one run (one player count); :func:`summarize_run` reads a run
    folder's columns instead.

    ``config`` gives the spec order, the format and the games per deal; without it they are
    inferred from the records. ``sprt`` (default: ``config.sprt``; elo0, elo1 in normalized
    Elo, alpha, beta) runs the SPRT over whole deals in deal order; once decided, only the
    games up to the deciding deal are counted. ``resamples`` and ``seed``: the deal
    bootstrap of the win-rate and rating intervals.
    """
    recs = sorted(records, key=record_key)
    if not recs:
        raise AnalysisError("no games to summarize")
    return _summary(frame_of_records(recs), config, sprt=sprt, resamples=resamples, seed=seed)


def _summary(frame: pd.DataFrame, config: RunConfig | None, *, sprt: Sequence[float] | None,
             resamples: int, seed: int) -> pd.DataFrame:
    """The summary of one run's frame (its games in (deal, pairing, rotation) order)."""
    if frame.empty:
        raise AnalysisError("no games to summarize")
    # the games one by one (a dict each) only where they are read: the SPRT, or the format
    # and spec order inferred without a config
    sprt = config.sprt if config is not None and sprt is None else sprt
    recs = _games_of(frame) if config is None or sprt is not None else None
    if config is not None:
        specs = list(dict.fromkeys(config.specs))         # a field may repeat a spec
        fmt = config.format
        per_deal = config.games_per_deal
        description = config.describe()
    else:
        assert recs is not None
        specs = list(dict.fromkeys(s for r in recs for s in r["seats"]))
        fmt = _infer_format([{**r, "num_players": len(r["seats"])} for r in recs], specs)
        counts: dict[int, int] = {}
        for r in recs:
            counts[r["deal"]] = counts.get(r["deal"], 0) + 1
        per_deal = max(counts.values())
        description = f"{len(recs)} games of {', '.join(specs)}"

    sprt_info = None
    if sprt is not None:
        if fmt != "head_to_head" or len(specs) != 2:
            raise AnalysisError("SPRT needs a head-to-head match (2 specs, 2 players)")
        assert recs is not None
        test = DealSPRT(specs, per_deal, sprt)
        test.add(recs)
        sprt_info = test.to_dict()
        sprt_info["text"] = test.describe()
        if test.decision is not None:
            recs = [r for r in recs if r["deal"] < test.deals()]
            frame = frame.loc[frame["deal"] < test.deals()].reset_index(drop=True)

    players = int(frame["num_players"].max())
    rates = win_rates(frame, resamples=resamples, seed=seed)
    # think time per decision: seconds and decisions added up in record order
    column = frame["spec"]
    if isinstance(column.dtype, pd.CategoricalDtype):
        # each category's place among the specs (-1: none), then every row's from its code
        place = {spec: i for i, spec in enumerate(specs)}
        lookup = np.array([place.get(str(c), -1) for c in column.cat.categories] + [-1])
        spec_codes = lookup[column.cat.codes.to_numpy()]           # a missing spec: code -1
    else:
        spec_codes = pd.Categorical(texts(column), categories=specs).codes
    seconds = np.bincount(spec_codes, weights=np.nan_to_num(frame["seconds"].to_numpy(float)),
                          minlength=len(specs))
    moves = np.bincount(spec_codes, weights=np.nan_to_num(frame["seat_decisions"].to_numpy(float)),
                        minlength=len(specs))
    met = specs_met(frame)
    return _table(_Run(specs, fmt, description, players,
                       len(recs) if recs is not None else int(frame["game"].nunique()), sprt_info),
                  rates, seconds, moves, met,
                  head_to_head=lambda a, b: paired.head_to_head(frame, a, b),
                  rated=lambda: ratings(frame, players, resamples=resamples, seed=seed),
                  finishing=lambda: _finishing(frame, players), resamples=resamples)


@dataclass(frozen=True)
class _Run:
    """What the summary says of its run: the specs in order, the format, the description,
    the player count, the games and the SPRT's outcome (None: no SPRT)."""

    specs: list[str]
    fmt: str | None
    description: str
    players: int
    games: int
    sprt: dict[str, Any] | None


def _table(run: _Run, win_rate_table: pd.DataFrame, seconds: np.ndarray, moves: np.ndarray, met: bool,
           *, head_to_head: Callable[[str, str], Any], rated: Callable[[], pd.DataFrame],
           finishing: Callable[[], dict[str, Any]], resamples: int) -> pd.DataFrame:
    """The summary from the run's win rates (:func:`.tables.win_rates`), each spec's seconds
    and decisions (in ``run.specs`` order), whether two specs met, and the head-to-head
    result, ratings and finishing matrix when asked for."""
    specs = run.specs
    rates = win_rate_table.reset_index()
    rates.index = pd.Index(rates.pop("spec").astype(str))
    out = pd.DataFrame(index=pd.Index(specs, name="spec"), columns=COLUMNS, dtype=float)
    out["games"] = rates["games"].reindex(specs).fillna(0).astype(int)
    out["wins"] = rates["wins"].reindex(specs).fillna(0.0)
    out["win_rate"] = rates["win_rate"].reindex(specs)
    for column in ("win_low", "wilson_low"):
        out[column] = rates[column].reindex(specs).fillna(0.0)
    for column in ("win_high", "wilson_high"):
        out[column] = rates[column].reindex(specs).fillna(1.0)
    out["mean_vp"] = rates["mean_score"].reindex(specs)
    with np.errstate(invalid="ignore", divide="ignore"):
        out["sec_per_decision"] = np.where(moves > 0, seconds / np.maximum(moves, 1), math.nan)

    models = {"win rate": "; ".join(win_rate_table.attrs["models"].values())}
    rating_kind = None
    head = None
    if run.fmt == "head_to_head" and len(specs) == 2 and met:
        a, b = specs
        h = head_to_head(a, b)
        for spec, view in ((a, h), (b, h.flipped())):
            e = view.estimate
            out.loc[spec, ["rating", "rating_low", "rating_high"]] = [e.elo, e.elo_low, e.elo_high]
        rating_kind = "elo"
        models["Elo diff"] = "the same interval as logistic Elo"
        head = {"a": a, "b": b, "counts": list(h.pentanomial.counts),
                "unpaired_games": h.pentanomial.unpaired_games, "deals": h.deals,
                "score": h.estimate.score, "low": h.estimate.low, "high": h.estimate.high,
                "elo": h.estimate.elo, "elo_low": h.estimate.elo_low,
                "elo_high": h.estimate.elo_high, "nelo": h.estimate.nelo,
                "nelo_low": h.estimate.nelo_low, "nelo_high": h.estimate.nelo_high,
                "p_value": h.p_value, "interval": h.interval}
    elif len(specs) >= 2 and met:
        table = rated()
        for spec, row in table.iterrows():
            out.loc[str(spec), ["rating", "rating_low", "rating_high"]] = \
                [row["rating"], row["low"], row["high"]]
        rating_kind = "bradley_terry"
        which = ("a perfect record or one deal" if (table["interval"] == ladder.RATING_FIXED).any()
                 else "a perfect record")
        models["BT Elo"] = (f"{table.attrs['model']}; {bootstrap_model(resamples)} ({which}: profile "
                            "likelihood)")

    out = out.sort_values(["win_rate", "rating"], ascending=False, kind="stable",
                          na_position="last")
    out.attrs.update({
        "description": run.description, "format": run.fmt, "rating": rating_kind,
        "games": run.games, "sprt": run.sprt, "players": run.players, "models": models,
        "head_to_head": head, "finishing": finishing() if met else None,
    })
    return out


def _summary_of_sums(folder: str | Any, config: RunConfig) -> pd.DataFrame | None:
    """:func:`summarize_run` from the run's columns file read a row group at a time
    (:mod:`.streamed`: sums, no frame of every seat-game), or None where it is not
    (records without a columns file, a game recorded twice, a run of two player counts)."""
    from ..stream import open_runs
    from .streamed import count_sums, played_specs, rate_intervals, rate_totals
    from .tables import win_rate_table

    stream = open_runs([folder])
    if stream is None or len(stream.counts[0]) != 1:
        return None
    played_specs(stream)
    (k,) = stream.counts[0]
    sums = count_sums(stream, k, seats=False)
    n = len(sums.specs)
    used = sums.totals[:, 0] > 0
    two = [s for s, u in zip(sums.specs, used, strict=True) if u]
    h2h = sums.head_to_head(two[0], two[1]) \
        if k == 2 and len(two) == 2 and sums.mixed * 2 == int(sums.rows.sum()) else None
    totals = rate_totals(sums.totals, sums.specs, np.full(n, 1.0 / k))[used]
    totals.index = pd.Index(totals.index, name="spec")
    rates = win_rate_table(totals, rate_intervals(sums.specs, sums.wins, sums.games, (), h2h), [])
    specs = list(dict.fromkeys(config.specs))
    times = stream.grouped(["spec"], ["seconds", "seat_decisions"])
    seconds, moves = np.zeros(len(specs)), np.zeros(len(specs))
    for key, row in times.iterrows():
        name = key[0] if isinstance(key, tuple) else key
        if name in specs:
            seconds[specs.index(name)] += row["sum:seconds"]
            moves[specs.index(name)] += row["sum:seat_decisions"]
    games, met = int(sums.rows.sum()) // k, sums.mixed > 0
    run = _Run(specs, config.format, config.describe(), k, games, None)
    if met and not (config.format == "head_to_head" and len(specs) == 2):
        del sums
        sums = count_sums(stream, k, pairs=True)
    pair = sums.pair_sums() if met and sums.pairs else None

    def rated() -> pd.DataFrame:
        assert pair is not None
        return ladder.ratings(pd.DataFrame(), sums=pair)

    def finishing() -> dict[str, Any]:
        matrix = ladder.finishing_matrix(pd.DataFrame(), pair if pair is not None else _pairs(stream, k))
        return _finishing_lists(matrix)

    return _table(run, rates, seconds, moves, met, head_to_head=sums.head_to_head, rated=rated,
                  finishing=finishing, resamples=paired.BOOTSTRAP_RESAMPLES)


def _pairs(stream: Any, k: int) -> Any:
    from .streamed import count_sums

    return count_sums(stream, k, pairs=True).pair_sums()


def _finishing(frame: pd.DataFrame, players: int) -> dict[str, Any]:
    """The finishing-ahead matrix of :func:`.tables.finishing_matrix` as plain lists."""
    return _finishing_lists(finishing_matrix(frame, players))


def _finishing_lists(matrix: pd.DataFrame) -> dict[str, Any]:
    return {"names": [str(n) for n in matrix.index],
            "mean": [[None if math.isnan(x) else float(x) for x in row]
                     for row in matrix.to_numpy(float)],
            "games": matrix.attrs["games"], "caption": matrix.attrs["caption"]}


def finishing_frame(summary_or_records: pd.DataFrame | Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """The finishing-ahead matrix as a DataFrame: how often the row spec finished ahead of
    the column spec (NaN where they never met); empty when no two specs met."""
    if isinstance(summary_or_records, pd.DataFrame):
        matrix = summary_or_records.attrs.get("finishing")
    else:
        frame = frame_of_records(list(summary_or_records))
        matrix = _finishing(frame, int(frame["num_players"].max())) if specs_met(frame) else None
    if matrix is None:
        return pd.DataFrame()
    return pd.DataFrame(matrix["mean"], index=matrix["names"], columns=matrix["names"],
                        dtype=float)


# ---- re-runs of time-budget experiments -------------------------------------------------

def compare_reruns(old_records: Iterable[Mapping[str, Any]],
                   new_records: Iterable[Mapping[str, Any]], config: RunConfig | None = None,
                   alpha: float = paired.RERUN_ALPHA) -> pd.DataFrame:
    """The test ``glory-ai reproduce`` makes of a run whose games depend on the machine (time
    budgets): does each spec have the same win probability in the re-run as in the stored
    run? :func:`.paired.rerun_tests`: Welch's t-test on per-deal win shares, Holm-adjusted
    across the specs, a difference flagged at an adjusted p below ``alpha`` (a correct
    re-run is flagged with probability at most ``alpha``). The specs are ``config``'s (else
    those in the records); a run of two specs tests the first only, the second's per-deal
    score being determined by it. ``attrs["texts"]``: one line per spec flagged, naming the
    test and alpha."""
    old = frame_of_records(list(old_records), "stored")
    new = frame_of_records(list(new_records), "re-run")
    specs = list(dict.fromkeys(config.specs)) if config is not None else \
        sorted(set(old["spec"].astype(str)) | set(new["spec"].astype(str)))
    tested = specs[:1] if len(specs) == 2 else specs
    table = paired.rerun_tests({s: paired.deal_scores(old, s) for s in tested},
                               {s: paired.deal_scores(new, s) for s in tested}, alpha)
    m = len(table)
    adjusted = f"{table.attrs['holm']} over {m} specs" if m > 1 else "one test"
    table.attrs["texts"] = [
        f"{spec} win rate {row['old_mean']:.3f} stored, {row['new_mean']:.3f} re-run: differs "
        f"(Welch t-test on per-deal win shares, p = {row['p_holm']:.2g} ({adjusted}) < "
        f"alpha = {alpha:g})" for spec, row in table.iterrows() if row["differs"]]
    table.attrs["rule"] = (f"Welch t-test on per-deal win shares, Holm-adjusted across specs, "
                           f"alpha = {alpha:g}")
    return table


# ---- display --------------------------------------------------------------------------

_RATING_NAMES = {"elo": "Elo diff", "bradley_terry": "BT Elo"}


def _num(x: float, fmt: str) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return format(x, fmt)


def _rating_cells(rating: float, low: float, high: float) -> tuple[str, str]:
    """The rating and its interval; an unbounded rating (a head-to-head score of 0% or 100%)
    as the bound its interval gives, with no interval."""
    if math.isnan(rating):
        return "-", ""
    if math.isinf(rating):
        return paired.elo_text(rating, low, high, 1), ""
    return _num(rating, "+.1f"), f"[{_num(low, '+.1f')}, {_num(high, '+.1f')}]"


def _model_lines(summary: pd.DataFrame) -> list[str]:
    """One line per column with an interval, saying which model it comes from."""
    lines = [f"{column} interval: {text}"
             for column, text in summary.attrs.get("models", {}).items()]
    lines.append("independent-games (Wilson) intervals of the win rates: summary.csv, "
                 "columns wilson_low, wilson_high")
    return lines


def format_table(summary: pd.DataFrame) -> str:
    """The summary as a plain-text table (spec, games, win rate and 95% interval, rating
    and interval, mean VP, ms per decision), a line per model of its intervals, and the
    SPRT's outcome."""
    kind = summary.attrs.get("rating")
    rating_head = _RATING_NAMES.get(kind or "", "rating")
    rows = [["spec", "games", "win rate", "95% interval", rating_head, "95% interval",
             "mean VP", "ms/move"]]
    for spec, r in summary.iterrows():
        rating, interval = _rating_cells(r["rating"], r["rating_low"], r["rating_high"])
        rows.append([
            str(spec), str(int(r["games"])), _num(100 * r["win_rate"], ".1f") + "%",
            f"[{_num(100 * r['win_low'], '.1f')}, {_num(100 * r['win_high'], '.1f')}]",
            rating, interval, _num(r["mean_vp"], ".1f"), _num(1000 * r["sec_per_decision"], ".3f"),
        ])
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
    lines = []
    for k, row in enumerate(rows):
        cells = [row[0].ljust(widths[0])]
        cells += [cell.rjust(w) for cell, w in zip(row[1:], widths[1:], strict=True)]
        lines.append("  ".join(cells).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    head = summary.attrs.get("head_to_head")
    if head:
        nelo = (paired.elo_text(head["nelo"], head["nelo_low"], head["nelo_high"])
                if math.isfinite(head["nelo_low"]) else "-")
        lines.append(f"{head['a']} against {head['b']}: {100 * head['score']:.1f}% "
                     f"[{100 * head['low']:.1f}, {100 * head['high']:.1f}] over {head['deals']} "
                     f"deals, normalized Elo {nelo}, p = {_num(head['p_value'], '.2g')} "
                     "(t-test of evenly matched; a single test, unadjusted)")
    lines += _model_lines(summary)
    sprt = summary.attrs.get("sprt")
    if sprt:
        lines.append(sprt["text"])
    return "\n".join(lines)
