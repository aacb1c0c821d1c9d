"""Validation: the best variants of the search replayed on fresh deals, paired against the
published rules on the same deals (docs/tuning.md, "Validation").

The search saw only the deals of the study's seed; validation plays ``[validation].deals``
deals of ``validation_seed`` under each of the ``top`` best variants (feasible ones first)
and under the study's base rules (the published rules unless the config fixes a variant).
Every statistic of the study is estimated on them with a deal bootstrap that draws the same
deals for every rule set, so a variant's difference from the published rules is paired deal
by deal. For each objective, the improvement is the published rules' loss minus the
variant's; its p-value the bootstrap share of draws where it is not positive (one-sided:
"the variant does better"), Holm-adjusted over the variants validated. A variant counts only
if every objective improves (Holm-adjusted p < 0.05) and every constraint holds.

``validation.csv`` holds one row per variant and statistic:
``variant, key, statistic, role, goal, value, low, high, baseline, baseline_low,
baseline_high, difference, diff_low, diff_high, p, p_holm, improves, held``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..analysis.stats import balance, holm
from ..arena.session import Session
from .config import TuneConfig
from .knobs import variant_key
from .objectives import evaluate
from .study import TrialResult
from .trials import load_games, play_rule_set

__all__ = ["PUBLISHED", "VALIDATION_DIR", "Candidate", "Validation", "candidates", "judge", "published_rules",
           "validate"]

VALIDATION_DIR = "validation"
VALIDATION_FILE = "validation.csv"
#: the folder name of the base rules' validation games
PUBLISHED = "published"
ALPHA = 0.05


@dataclass(frozen=True)
class Candidate:
    """A rule set validated: a variant of the search, or the published rules."""

    key: str
    label: str
    variant: dict[str, Any]
    trial: int | None

    @property
    def folder_name(self) -> str:
        return PUBLISHED if self.trial is None else self.key


def candidates(config: TuneConfig, trials: Sequence[TrialResult]) -> list[Candidate]:
    """The ``top`` variants to validate: complete trials, those holding every constraint
    first, by loss (a Pareto front by the first objective); each variant once, and never the
    base rules themselves."""
    published = variant_key(config.mode, config.base_variant)
    done = [t for t in trials if t.state == "complete" and t.values]
    if config.multi:
        done = _pareto(done)
    done.sort(key=lambda t: (not t.feasible, t.values[0], t.number))
    out: list[Candidate] = []
    for t in done:
        if t.key == published or any(c.key == t.key for c in out):
            continue
        out.append(Candidate(t.key, t.label, t.variant, t.number))
        if len(out) == config.top:
            break
    return out


def _pareto(trials: list[TrialResult]) -> list[TrialResult]:
    front = []
    for t in trials:
        dominated = any(
            all(o <= v for o, v in zip(other.values, t.values, strict=True))
            and any(o < v for o, v in zip(other.values, t.values, strict=True))
            for other in trials
        )
        if not dominated:
            front.append(t)
    return front


@dataclass
class Validation:
    """The validation of a study: the table, and each candidate's verdict."""

    table: pd.DataFrame
    candidates: list[Candidate]
    published: Candidate
    deals: int
    folders: dict[str, list[Path]]

    def counts(self, candidate: Candidate) -> bool:
        """The variant improves every objective significantly and holds every constraint."""
        rows = self.table[self.table["key"] == candidate.key]
        objectives = rows[rows["role"] == "objective"]
        constraints = rows[rows["role"] == "constraint"]
        return (
            bool(len(objectives)) and bool(objectives["improves"].all()) and bool(constraints["held"].all())
        )

    def chosen(self) -> Candidate | None:
        """The first candidate (best in the search) that counts, or None."""
        return next((c for c in self.candidates if self.counts(c)), None)


def _play_all(
    config: TuneConfig,
    folder: Path,
    rule_sets: Sequence[Candidate],
    session: Session,
    log_line: Callable[[str], object],
) -> dict[str, list[Path]]:
    folders = {}
    for candidate in rule_sets:
        log_line(f"validation: {candidate.label} on {config.validation_deals} fresh deals")
        folders[candidate.key] = play_rule_set(
            config,
            candidate.variant,
            folder / VALIDATION_DIR / candidate.folder_name,
            config.validation_deals,
            seed=config.validation_seed,
            planned=config.validation_deals,
            session=session,
        )
    return folders


def validate(
    config: TuneConfig,
    folder: Path,
    trials: Sequence[TrialResult],
    session: Session,
    *,
    log_line: Callable[[str], object] = print,
    draws: int = balance.DRAWS,
) -> Validation:
    """Play and judge the candidates (see the module docstring); writes validation.csv."""
    chosen = candidates(config, trials)
    published = published_rules(config)
    folders = _play_all(config, folder, [published, *chosen], session, log_line)
    table = judge(config, published, chosen, folders, draws=draws)
    table.to_csv(folder / VALIDATION_FILE, index=False, float_format="%.6g")
    return Validation(table, chosen, published, config.validation_deals, folders)


def published_rules(config: TuneConfig) -> Candidate:
    """The rule set every candidate is compared with: the published rules (or the study's base)."""
    return Candidate(
        variant_key(config.mode, config.base_variant),
        "the published rules" if not config.base_variant else "the study's base rules",
        dict(config.base_variant),
        None,
    )


def judge(
    config: TuneConfig,
    published: Candidate,
    chosen: Sequence[Candidate],
    folders: Mapping[str, Sequence[Path]],
    *,
    draws: int = balance.DRAWS,
) -> pd.DataFrame:
    """The validation table (validation.csv) of the candidates' played runs (``folders``: each
    rule set's key to its run folders): every statistic paired deal by deal with the published
    rules, its interval, the one-sided p of an improvement and Holm's adjustment."""
    statistics = config.statistics()
    needs_dealt = any(s.kind == "dealt_effect" for s in statistics)
    frames = [load_games(folders[c.key], config.validation_deals, needs_dealt) for c in (published, *chosen)]
    weights, units = balance.paired_draws(frames, draws, seed=config.validation_seed % (2**32))
    measured = [evaluate(statistics, f, weights, u) for f, u in zip(frames, units, strict=True)]
    return _table(config, published, chosen, measured)


def _p_value(improvement: np.ndarray) -> float:
    """One-sided bootstrap p of "no improvement": the share of draws at or below zero."""
    rest = improvement[1:][np.isfinite(improvement[1:])]
    if not len(rest):
        return float("nan")
    return float((1 + np.sum(rest <= 0)) / (len(rest) + 1))


def _table(
    config: TuneConfig,
    published: Candidate,
    chosen: Sequence[Candidate],
    measured: Sequence[Mapping[str, np.ndarray]],
) -> pd.DataFrame:
    base = measured[0]
    rows: list[dict[str, Any]] = []
    items: list[tuple[str, Any]] = [("objective", o) for o in config.objectives]
    items += [("constraint", c) for c in config.constraints]
    for candidate, draws in zip(chosen, measured[1:], strict=True):
        for role, item in items:
            name = item.statistic.name
            value, low, high = balance.summary_of_draws(draws[name])
            b, b_low, b_high = balance.summary_of_draws(base[name])
            _, d_low, d_high = balance.summary_of_draws(draws[name] - base[name])
            row = {
                "variant": candidate.label,
                "key": candidate.key,
                "statistic": name,
                "role": role,
                "goal": item.describe(),
                "value": value,
                "low": low,
                "high": high,
                "baseline": b,
                "baseline_low": b_low,
                "baseline_high": b_high,
                "difference": value - b,
                "diff_low": d_low,
                "diff_high": d_high,
                "p": np.nan,
                "p_holm": np.nan,
                "improves": False,
                "held": True,
            }
            if role == "objective":
                row["p"] = _p_value(item.loss(base[name]) - item.loss(draws[name]))
            else:
                row["held"] = bool(item.violation(draws[name])[0] <= 0)
            rows.append(row)
    table = pd.DataFrame(rows)
    if table.empty:
        return table
    for name in {o.statistic.name for o in config.objectives}:
        mask = (table["role"] == "objective") & (table["statistic"] == name)
        adjusted, _ = holm(table.loc[mask, "p"].to_numpy())
        table.loc[mask, "p_holm"] = adjusted
        table.loc[mask, "improves"] = adjusted < ALPHA
    return table
