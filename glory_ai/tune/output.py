"""What a study leaves for the designer: README.md (the answer in words first),
report.html (the search's progress, the trade-off, the validation and the chosen variant's
balance report beside the published rules'), the figures and the manifest (docs/tuning.md,
"Reading a study")."""

from __future__ import annotations

import html
import json
import math
import textwrap
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..analysis import figures as F
from ..analysis.report import write_report
from ..analysis.report.formats import NARROW_BELOW
from .config import TuneConfig
from .objectives import Statistic
from .study import TrialResult
from .validation import ALPHA, VALIDATION_DIR, Candidate, Validation

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# matplotlib is imported where a figure is drawn (as in glory_ai.analysis.figures)

__all__ = ["plot_progress", "plot_tradeoff", "readme_text", "write_outputs"]

FIGURES_DIR = "figures"
_STATE_COLORS = {"complete": "#3465a4", "pruned": "#a0a0a0", "refused": "#cc0000", "interrupted": "#e0a000"}


def _statistic(config: TuneConfig, name: str) -> Statistic:
    return next(s for s in config.statistics() if s.name == name)


def _show(config: TuneConfig, name: str, value: float) -> str:
    return _statistic(config, name).show(value)


def _interval(config: TuneConfig, name: str, low: float, high: float) -> str:
    stat = _statistic(config, name)
    if not (math.isfinite(low) and math.isfinite(high)):
        return ""
    if stat.points:
        return f"[{100 * low:+.1f}, {100 * high:+.1f}]"
    return f"[{stat.show(low)}, {stat.show(high)}]"


def _fit(text: str, narrow: bool) -> str:
    """A title or label wrapped to a phone's column in the narrow layout."""
    return textwrap.fill(text, 38) if narrow else text


def plot_progress(config: TuneConfig, trials: Sequence[TrialResult], narrow: bool = False) -> Figure:
    """The first objective's statistic per trial (estimate and interval at the trial's last
    rung), coloured by what became of the trial, with the best loss so far."""
    objective = config.objectives[0]
    name = objective.statistic.name
    from matplotlib.figure import Figure

    fig = Figure(figsize=(F.NARROW if narrow else F.WIDTH, 3.6), layout="constrained")
    ax = fig.subplots()
    shown = [t for t in trials if name in t.estimates and t.estimates[name][0] is not None]
    for state, color in _STATE_COLORS.items():
        group = [t for t in shown if t.state == state]
        if not group:
            continue
        x = np.array([t.number for t in group])
        est = np.array([t.estimates[name][0] for t in group], dtype=float)
        low = np.array([t.estimates[name][1] if t.estimates[name][1] is not None else np.nan for t in group])
        high = np.array([t.estimates[name][2] if t.estimates[name][2] is not None else np.nan for t in group])
        scale = 100.0 if objective.statistic.points else 1.0
        ax.errorbar(
            x,
            est * scale,
            yerr=np.abs(np.vstack([est - low, high - est])) * scale,
            fmt="o",
            color=color,
            ms=4,
            lw=1,
            capsize=2,
            label=f"{state} ({len(group)})",
        )
    ax.set_xlabel("trial")
    unit = " (win-rate points)" if objective.statistic.points else ""
    ax.set_ylabel(_fit(name + unit, narrow))
    ax.set_title(_fit(f"Search: {objective.describe()} per trial, 95% deal-bootstrap interval", narrow),
                 fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    if shown:
        ax.legend(fontsize=8, loc="best")
    return fig


def plot_tradeoff(config: TuneConfig, trials: Sequence[TrialResult], narrow: bool = False) -> Figure | None:
    """The first objective's statistic against the second statistic of the study (another
    objective or the first constraint), every finished trial a point: the trade-off a
    designer chooses on. None when the study has one statistic."""
    names = [s.name for s in config.statistics()]
    if len(names) < 2:
        return None
    x_name, y_name = names[0], names[1]
    from matplotlib.figure import Figure

    fig = Figure(figsize=(F.NARROW if narrow else F.WIDTH, 3.8), layout="constrained")
    ax = fig.subplots()
    for state, color in _STATE_COLORS.items():
        group = [
            t
            for t in trials
            if t.state == state
            and x_name in t.estimates
            and y_name in t.estimates
            and t.estimates[x_name][0] is not None
            and t.estimates[y_name][0] is not None
        ]
        if group:
            xs = [t.estimates[x_name][0] * (100 if _statistic(config, x_name).points else 1) for t in group]
            ys = [t.estimates[y_name][0] * (100 if _statistic(config, y_name).points else 1) for t in group]
            ax.scatter(xs, ys, s=18, color=color, label=state)
    for c in config.constraints:
        if c.statistic.name == y_name:
            for bound in (c.low, c.high):
                if bound is not None:
                    ax.axhline(bound * (100 if c.statistic.points else 1), color="#cc0000", lw=1, ls="--")
    ax.set_xlabel(_fit(x_name, narrow))
    ax.set_ylabel(_fit(y_name, narrow))
    ax.set_title(_fit("Trade-off: every trial at its last rung (dashed: a constraint's bound)", narrow),
                 fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    return fig


def _objective_sentence(config: TuneConfig, row: pd.Series) -> str:
    name = row["statistic"]
    return (
        f"{name} goes from {_show(config, name, row['baseline'])} under the published rules to "
        f"{_show(config, name, row['value'])} {_interval(config, name, row['low'], row['high'])} "
        f"(p = {row['p']:.3g}, {row['p_holm']:.3g} Holm-adjusted over the variants validated)"
    )


def _answer(config: TuneConfig, validation: Validation) -> list[str]:
    chosen = validation.chosen()
    rows = validation.table
    deals = f"{validation.deals} fresh deals (seed {config.validation_seed}) the search never saw"
    if chosen is None:
        lines = [
            f"**Answer.** None of the {len(validation.candidates)} best variants of the search beats the "
            f"published rules on {deals} (every objective improved with Holm-adjusted p < {ALPHA}, "
            "every constraint held)."
        ]
        for c in validation.candidates:
            mine = rows[rows["key"] == c.key]
            parts = [_objective_sentence(config, r) for _, r in mine[mine["role"] == "objective"].iterrows()]
            broken = [r["goal"] for _, r in mine[(mine["role"] == "constraint") & ~mine["held"]].iterrows()]
            tail = f"; breaks: {', '.join(broken)}" if broken else ""
            lines.append(f"* {c.label}: {'; '.join(parts)}{tail}.")
        return lines
    mine = rows[rows["key"] == chosen.key]
    parts = [_objective_sentence(config, r) for _, r in mine[mine["role"] == "objective"].iterrows()]
    held = [_held(config, r) for _, r in mine[mine["role"] == "constraint"].iterrows()]
    text = f"**Answer.** {chosen.label[0].upper() + chosen.label[1:]}: {'; '.join(parts)}, on {deals}"
    if held:
        text += f"; its estimates hold {', '.join(held)}"
    return [text + "."]


def _held(config: TuneConfig, row: pd.Series) -> str:
    """A constraint the chosen variant holds (its estimate within the bounds), with its
    interval, and a word when the interval reaches past a bound."""
    name = row["statistic"]
    text = (f"{row['goal']} ({_show(config, name, row['value'])} "
            f"{_interval(config, name, row['low'], row['high'])}")
    bound = next((c for c in config.constraints if c.describe() == row["goal"]), None)
    if bound is not None and bound.violation(np.array([row["low"], row["high"]], dtype=float)).max() > 0:
        text += ", an interval that reaches past the bound"
    return text + ")"


def readme_text(
    config: TuneConfig, trials: Sequence[TrialResult], validation: Validation, manifest: dict[str, Any]
) -> str:
    """The README of a study: the question, the answer in words, then how it was found."""
    counts = {
        s: sum(1 for t in trials if t.state == s) for s in ("complete", "pruned", "refused", "interrupted")
    }
    lines = [f"# {config.name}", ""]
    if config.question:
        lines += [f"**Question.** {config.question}", ""]
    if config.description:
        lines += [config.description.strip(), ""]
    lines += _answer(config, validation)
    effect_kinds = {s.kind for s in config.statistics()}
    lines += [
        "",
        "**How it was found.**",
        "",
        f"* Bots: {', '.join(f'`{s}`' for s in config.specs)} at "
        f"{', '.join(f'{k} players' for k in config.players)} ({config.mode}).",
        f"* Knobs: {', '.join(f'`{k.name}` in {_values(k.values)}' for k in config.knobs)} "
        f"({config.space.size()} variants).",
        f"* Objectives: {'; '.join(o.describe() for o in config.objectives)}"
        + (
            " (kept apart: a Pareto front)"
            if config.multi
            else (
                " (weighted: " + ", ".join(f"{o.weight:g}" for o in config.objectives) + ")"
                if len(config.objectives) > 1
                else ""
            )
        )
        + ".",
        "* Constraints: " + ("; ".join(c.describe() for c in config.constraints) or "none") + ".",
        f"* Search: {config.sampler} over {len(trials)} trials ({counts['complete']} complete, "
        f"{counts['pruned']} stopped early, {counts['refused']} refused, {counts['interrupted']} "
        f"interrupted and played again), rungs of {list(config.rungs)} deals (seed {config.seed}), every "
        "trial on the same deals.",
        f"* Validation: the {len(validation.candidates)} best variants and the published rules on "
        f"{validation.deals} deals of seed {config.validation_seed}, paired deal by deal "
        f"(deal bootstrap, {len(validation.table) and 'one-sided p'}, Holm over the variants).",
    ]
    if "building_effect" in effect_kinds or "max_building_effect" in effect_kinds:
        lines.append(
            "* Building effects here are completion effects (the win share of seat-games that "
            "completed the building against those that did not, within spec x player count x "
            "seat): associations, partly selection, since a building that ends the game is "
            "completed mostly by whoever is winning."
        )
    if "dealt_effect" in effect_kinds:
        lines.append(
            "* Dealt effects compare seats that held the building in their opening hand with "
            "those that did not: the shuffle assigns it at random, so they are causal."
        )
    lines += [
        "",
        "| variant | statistic | value | 95% interval | published | p (Holm) |",
        "|---|---|---:|---|---:|---:|",
    ]
    for _, r in validation.table.iterrows():
        p = "" if r["role"] != "objective" else f"{r['p_holm']:.3g}"
        lines.append(
            f"| {r['variant']} | {r['statistic']} | {_show(config, r['statistic'], r['value'])} | "
            f"{_interval(config, r['statistic'], r['low'], r['high'])} | "
            f"{_show(config, r['statistic'], r['baseline'])} | {p} |"
        )
    lines += [
        "",
        f"{_made(manifest)}. "
        "Reproduce: "
        f"`glory-ai reproduce results/{config.name}` (the validation games; `--trials` for the search's "
        f"too). Files: `tune.toml`, `study.db` (optuna), `validation.csv`, `report.html`, `figures/`, "
        "`trials/`, `validation/`, `manifest.json`.",
        "",
    ]
    return "\n".join(lines)


def _values(values: Sequence[Any]) -> str:
    """A knob's values as a config writes them: 0..6 for a range, [true, false], [Stone, Marble]."""
    if len(values) > 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in values) \
            and list(values) == list(range(values[0], values[-1] + 1)):
        return f"{values[0]}..{values[-1]}"
    return "[" + ", ".join(str(v).lower() if isinstance(v, bool) else str(v) for v in values) + "]"


def _workers(manifest: dict[str, Any]) -> str:
    jobs = manifest.get("jobs")
    if jobs in (None, 1):
        return "1 worker"
    return "every core" if jobs == -1 else f"{jobs} workers"


def _made(manifest: dict[str, Any]) -> str:
    """How the study was made: its time, workers, build, games and CPU time; when a call was
    killed before its end (its time unknown), the times of the others and no rate per game."""
    build = f"build {str((manifest.get('build') or {}).get('source_hash'))[:12]}"
    minutes = manifest.get("seconds", 0) / 60
    games, cpu = manifest.get("games"), manifest.get("cpu_seconds")
    calls = manifest.get("calls") or []
    played = [c.get("games_played") for c in calls]
    if not calls or (all(isinstance(n, int) for n in played) and sum(played) == games):
        text = f"Made in {minutes:.1f} minutes with {_workers(manifest)} ({build})"
        if games and cpu:
            text += f": {games:,} games in {cpu:,.0f} CPU-seconds ({games / cpu:.2f} games per CPU-second)"
        return text
    return (f"Made with {_workers(manifest)} ({build}): {games:,} games; the study was resumed after "
            f"a kill, and the calls whose end was recorded took {minutes:.1f} minutes and {cpu:,.0f} "
            "CPU-seconds (no rate per game)")


def _table_html(frame: pd.DataFrame) -> str:
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(_cell(v))}</td>" for v in row) + "</tr>"
        for row in frame.itertuples(index=False)
    )
    return f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return "" if not math.isfinite(value) else f"{value:.4g}"
    return str(value)


_STYLE = """body{font-family:system-ui,sans-serif;max-width:1100px;margin:auto;padding:0 12px;
line-height:1.45}
.scroll{overflow-x:auto}table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;
padding:3px 6px;text-align:right}td:first-child,th:first-child{text-align:left}img{max-width:100%;height:auto}
.pair{display:flex;flex-wrap:wrap;gap:16px}.pair>div{flex:1 1 420px}"""


def _report_html(
    config: TuneConfig,
    readme: str,
    trials: Sequence[TrialResult],
    validation: Validation,
    figures: Sequence[str],
    reports: dict[str, str],
) -> str:
    answer = next((line for line in readme.splitlines() if line.startswith("**Answer.**")), "")
    trial_rows = pd.DataFrame(
        [
            {
                "trial": t.number,
                "state": t.state,
                "variant": t.label,
                "deals": t.deals,
                "loss": t.values[0] if t.values else float("nan"),
                **{name: est[0] for name, est in t.estimates.items()},
            }
            for t in trials
        ]
    )
    parts = [
        f"<!doctype html><html lang=en><head><meta charset=utf-8><meta name=viewport "
        f"content='width=device-width,initial-scale=1'><title>{html.escape(config.name)}</title>"
        f"<style>{_STYLE}</style></head><body><h1>{html.escape(config.name)}</h1>"
    ]
    if config.question:
        parts.append(f"<p><b>Question.</b> {html.escape(config.question)}</p>")
    parts.append(f"<p>{html.escape(answer.replace('**', ''))}</p>")
    for name in figures:
        parts.append(f'<p><picture><source media="(max-width: {NARROW_BELOW - 0.02:g}px)" '
                     f'srcset="{FIGURES_DIR}/{name}-narrow.png">'
                     f'<img src="{FIGURES_DIR}/{name}.png" alt="{html.escape(name)}"></picture></p>')
    parts.append("<h2>Validation on fresh deals</h2>" + _table_html(validation.table.drop(columns=["key"])))
    if reports:
        links = "".join(
            f'<div><h3>{html.escape(label)}</h3><p><a href="{html.escape(path)}">full balance report'
            "</a></p></div>"
            for label, path in reports.items()
        )
        parts.append(f"<h2>Balance reports on the validation deals</h2><div class=pair>{links}</div>")
    parts.append("<h2>Every trial</h2>" + _table_html(trial_rows))
    parts.append("</body></html>")
    return "".join(parts)


def write_outputs(
    config: TuneConfig,
    folder: Path,
    trials: Sequence[TrialResult],
    validation: Validation,
    manifest: dict[str, Any],
) -> Path:
    """Write README.md, report.html, figures/, the balance reports of the chosen variant and of
    the published rules on the validation deals, and manifest.json; returns the README."""
    (folder / FIGURES_DIR).mkdir(exist_ok=True)
    figures = []
    for name, plot in (("progress", plot_progress), ("tradeoff", plot_tradeoff)):
        fig = plot(config, trials)
        if fig is None:
            continue
        (folder / FIGURES_DIR / f"{name}.png").write_bytes(F.figure_bytes(fig, "png"))
        # the layout of a phone's column, which the page shows below NARROW_BELOW px
        narrow = plot(config, trials, narrow=True)
        assert narrow is not None
        (folder / FIGURES_DIR / f"{name}-narrow.png").write_bytes(F.figure_bytes(narrow, "png"))
        figures.append(name)
    reports = {}
    shown: list[Candidate] = [validation.published]
    chosen = validation.chosen() or (validation.candidates[0] if validation.candidates else None)
    if chosen is not None:
        shown.append(chosen)
    for candidate in shown if config.reports else ():
        target = folder / VALIDATION_DIR / candidate.folder_name
        with warnings.catch_warnings():
            # the logistic fits of buildings that only win (or only lose) in a small study
            warnings.simplefilter("ignore")
            write_report(
                [str(p) for p in validation.folders[candidate.key]],
                target,
                title=f"{config.name}: {candidate.label} (validation deals)",
                figure_files=False,
            )
        reports[candidate.label] = f"{VALIDATION_DIR}/{candidate.folder_name}/report.html"
    readme = readme_text(config, trials, validation, manifest)
    (folder / "README.md").write_text(readme)
    (folder / "report.html").write_text(_report_html(config, readme, trials, validation, figures, reports))
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=False) + "\n")
    return folder / "README.md"
