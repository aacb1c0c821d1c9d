"""The report is a list of sections (glory_ai.analysis.report.sections.SECTIONS): each reads
only the columns it declares, shows its result without going back to the frame, and a new
statistic is one more section in the list."""
from __future__ import annotations

import dataclasses
import re
from typing import Any

import pandas as pd
import pytest

from glory_ai.analysis.load import load_runs
from glory_ai.analysis.report import SECTIONS, Page, Report, Section, build, build_report
from glory_ai.analysis.report.page import render


@pytest.fixture
def two_rules(synth, run_folder):
    """Two rule variants, roles led in most games, buildings completed: every section has
    something to show."""
    def games(a_wins, **options):
        out = []
        for i in range(60):
            seats = ["a", "b"] if i % 2 else ["b", "a"]
            winner = seats.index("a") if a_wins(i) else seats.index("b")
            out.append(synth(i, seats, [winner], completed=[["Bar"], []] if i % 3 else [[], ["Road"]],
                             roles_led=[{"Laborer": i % 3}, {"Laborer": 1}] if i % 5 else None,
                             **options))
        return out
    return load_runs([run_folder(games(lambda i: i % 4 < 2), "rep"),
                      run_folder(games(lambda i: i % 4 < 3, mode="imperium", end_reason="sites"), "imp")])


def test_every_section_declares_columns_the_frame_has_and_names_its_figures(two_rules):
    assert len({s.name for s in SECTIONS}) == len(SECTIONS)
    for section in SECTIONS:
        for column in section.columns:
            found = (any(str(c).startswith(column) for c in two_rules.columns) if column.endswith(":")
                     else column in two_rules.columns)
            assert found, (section.name, column)
    report = build_report(two_rules, figures=False)
    shown = {section.name for section, _ in report.sections}
    assert shown == {s.name for s in SECTIONS} - {"grids"}
    for section, result in report.sections:
        for name in section.figures(report, result):
            assert re.fullmatch(section.figure_files, name), (section.name, name)


def test_a_section_gets_only_its_columns(two_rules):
    seen = {}
    for section in SECTIONS:
        seen[section.name] = list(build.section_frame(two_rules, section).columns)
    assert seen["scoring"] == ["num_players", "spec", "score", "vp_influence", "vp_vault",
                               "vp_merchant_bonus", "vp_statue", "vp_wall"]
    assert all(c.startswith("led:") or c in ("num_players", "spec") for c in seen["roles"])
    assert sum(c.startswith("completed:") for c in seen["buildings"]) == 44


def test_sections_show_their_result_without_the_frame(two_rules):
    report = build_report(two_rules, figures=False, question="Do the rules change who wins?")
    bare = dataclasses.replace(report, frame=pd.DataFrame())
    assert render(bare, {}, "t") == render(report, {}, "t")
    for section, result in report.sections:
        assert section.findings(bare, result) == section.findings(report, result)
        assert list(section.figures(bare, result)) == list(section.figures(report, result))


class MeanScore(Section[pd.DataFrame]):
    """A statistic added to the report: the mean VP of each spec."""

    name = "mean-score"
    title = "Mean score"
    topic = "scoring"
    columns = ("spec", "score")

    def compute(self, frame: pd.DataFrame, report: Report) -> pd.DataFrame:
        assert list(frame.columns) == ["spec", "score"]
        return frame.groupby("spec", observed=True)[["score"]].mean()

    def tables(self, result: pd.DataFrame) -> dict[str, Any]:
        return {"mean_score": result}

    def findings(self, report: Report, result: pd.DataFrame) -> list[str]:
        return [f"{result['score'].idxmax()} scores {result['score'].max():.1f} VP on average."]

    def html(self, page: Page, report: Report, result: pd.DataFrame) -> None:
        page.add('<h2 id="mean-score">Mean score</h2>')


def test_a_new_statistic_is_one_section_in_the_list(two_rules, monkeypatch):
    monkeypatch.setattr(build, "SECTIONS", (*SECTIONS, MeanScore()))
    report = build_report(two_rules, figures=False, question="Which spec scores most?")
    assert "mean_score" in report.tables
    # its topic is asked about: its sentence answers, after the other scoring one
    mean = two_rules.loc[two_rules["spec"] == "a", "score"].mean()
    assert report.answer[-1] == f"a scores {mean:.1f} VP on average."
    assert report.answer[0].startswith("a scores the most VP")
    page = render(report, {}, "t")
    assert '<a href="#mean-score">Mean score</a><a href="#manifest">' in page
    assert page.index('<h2 id="variants">') < page.index('<h2 id="mean-score">') < page.index('id="manifest"')
