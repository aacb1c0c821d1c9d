"""The page: one self-contained HTML file. The title and lead, the navigation, the answer
to the experiment's question, the summary, every section's part in the order of
:data:`~.sections.SECTIONS`, and the runs' manifest."""
from __future__ import annotations

import json
import platform
from importlib import metadata

from ... import __version__
from .base import Page, Report
from .formats import count, esc, html_table

__all__ = ["render"]

_CSS = """
:root { --ink: #1d2430; --muted: #5b6573; --line: #d9dee5; --soft: #f4f6f9; --accent: #2f5d9e; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
body { margin: 0; color: var(--ink); background: #fff;
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
main { max-width: 1360px; margin: 0 auto; padding: 24px 28px 60px; }
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
  margin: 14px 0; max-width: 1064px; }
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
/* many columns (the buildings' full table, a round robin's head to head): closer cells, to fit a laptop */
table:has(th:nth-child(11)) :is(th, td) { padding: 4px 5px; }
/* an estimate whose interval goes under it when the table is short of width */
td .wrap { white-space: normal; } td .wrap span { white-space: nowrap; }
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


def render(report: Report, figures_png: dict[str, tuple[bytes, bytes]], title: str) -> str:
    """The page; ``figures_png``: each figure's PNG, wide and narrow."""
    page = Page(report, figures_png)
    add = page.add
    if report.question:
        add(f'<p class="kicker">{esc(title)}</p>')
        add(f"<h1>{esc(report.question)}</h1>")
    else:
        add(f"<h1>{esc(title)}</h1>")
    descriptions = [r["config"].get("description") for r in report.runs
                    if r.get("config") and r["config"].get("description")]
    if report.description:
        add(f'<p class="lead">{esc(report.description)}</p>')
    elif len(descriptions) == 1:
        add(f'<p class="lead">{esc(descriptions[0])}</p>')
    elif descriptions:
        add('<ul class="lead">' + "".join(f"<li>{esc(d)}</li>" for d in descriptions) + "</ul>")
    nav = [("answer", "Answer")] if report.answer else []
    nav.append(("summary", "Summary"))
    for section, result in report.sections:
        nav += section.nav(report, result)
    nav.append(("manifest", "Runs"))
    add("<nav>" + "".join(f'<a href="#{a}">{esc(n)}</a>' for a, n in nav) + "</nav>")

    # the answer to the experiment's question, first
    if report.answer:
        add('<h2 id="answer">Answer</h2>')
        add('<div class="findings answer"><ul>' + "".join(f"<li>{esc(s)}</li>" for s in report.answer)
            + "</ul></div>")
        for section, result in report.sections:
            if section.answers:
                section.html(page, report, result)
    _summary(page, report)
    for section, result in report.sections:
        if not section.answers:
            section.html(page, report, result)
    _manifest(page, report)
    body = "\n".join(page.parts)
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{esc(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n<main>\n"
            f"{body}\n</main>\n</body>\n</html>\n")


def _summary(page: Page, report: Report) -> None:
    """The counts, the findings (those the answer did not give) and how to read the numbers."""
    add, facts = page.add, report.facts
    add('<h2 id="summary">Summary</h2>')
    games, seat_games, runs = facts["games"], facts["seat_games"], len(report.runs)
    specs, rules = facts["specs"], facts["rules"]
    shown = [(count(games), "games" if games != 1 else "game"),
             (count(seat_games), "seat-games" if seat_games != 1 else "seat-game"),
             (str(runs), "runs" if runs != 1 else "run"),
             (str(specs), "strategies" if specs != 1 else "strategy"),
             (", ".join(map(str, report.counts)), "players per game"),
             (str(rules), "rule variants" if rules != 1 else "rule variant")]
    add('<div class="facts">' + "".join(f'<div class="fact"><b>{esc(v)}</b><span>{esc(k)}</span></div>'
                                        for v, k in shown) + "</div>")
    others = report.sentences[len(report.answer):]
    if others:
        add(('<h3>Also found</h3>' if report.answer else "")
            + '<div class="findings"><ul>' + "".join(f"<li>{esc(s)}</li>" for s in others)
            + "</ul></div>")
    add('<p class="note">Intervals are 95% and take the deal as the unit: every deal is played '
        "in every seat rotation, so its games are not independent (docs/statistics.md); a "
        "head-to-head match uses the pentanomial model of the two seatings of a deal, the other "
        "tables resample whole deals. \"± x%\" is half the width of the interval (a rate at an "
        "end of its interval, such as 0%, has the interval written out). A win shared "
        "by k players counts 1/k. Significant means p &lt; 0.05; every p-value says whether it "
        "is Holm-adjusted for the family of tests it belongs to.</p>")


def _manifest(page: Page, report: Report) -> None:
    """The runs: their folders, versions, seeds and configs; the versions that analysed them."""
    add = page.add
    add('<h2 id="manifest">Runs</h2>')
    rows = []
    for r in report.runs:
        cfg = (r.get("config") or {}).get("config", {})
        rows.append([esc(r["label"]), esc(r["path"]), count(r["games"]),
                     esc(", ".join(map(str, r.get("versions") or ["?"]))),
                     esc(", ".join(map(str, r.get("record_versions") or []))),
                     esc(cfg.get("format", "–")), esc(cfg.get("seed", "–"))])
    add(html_table(rows, ["run", "path", "games", "glory_ai version", "record version",
                          "format", "seed"], left=2))
    for r in report.runs:
        text = json.dumps(r["config"], indent=2) if r.get("config") else "(no config.json)"
        add(f"<details><summary>config.json of {esc(r['label'])}</summary><pre>{esc(text)}</pre></details>")
    versions = _versions()
    add('<p class="note">Analysed with ' + esc(", ".join(f"{k} {v}" for k, v in versions.items()))
        + ".</p>")
    add("<footer>Generated by glory_ai.analysis (glory-ai report); docs/analysis.md explains "
        "every table and model.</footer>")


def _versions() -> dict[str, str]:
    out = {"glory_ai": __version__, "Python": platform.python_version()}
    for package in ("numpy", "pandas", "scipy", "statsmodels", "matplotlib"):
        try:
            out[package] = metadata.version(package)
        except metadata.PackageNotFoundError:   # pragma: no cover
            out[package] = "?"
    return out
