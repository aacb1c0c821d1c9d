"""The report of a shipped result, rebuilt from its records, is the one stored in results/:
the page's text (every table, caption and finding, the figures aside: their PNG depend on
the installed matplotlib; the versions that analysed it masked), the findings in the
README's order and the report's summary.csv. A change to the report that moves a number, a
word or a sentence fails here; one that means to regenerates results/ (glory-ai run)."""
import re
import warnings
from pathlib import Path

import pytest

from glory_ai.analysis.load import load_runs
from glory_ai.analysis.report import Runs, build_report
from glory_ai.analysis.report.page import render
from glory_ai.experiments import load_experiment
from glory_ai.experiments.runner import report_grids

ROOT = Path(__file__).resolve().parents[2]


def _without_figures(page: str) -> str:
    page = re.sub(r'\n<figure id="fig-[^"]*">.*?</figure>', "", page)
    return re.sub(r'<p class="note">Analysed with [^<]*</p>', '<p class="note">Analysed with …</p>', page)


SHIPPED = sorted(p.stem for p in (ROOT / "experiments").glob("*.toml"))


# every shipped experiment: a grid answering its question (ismcts_scaling); rule variants
# side by side, two player counts and strategies that met (republic_vs_imperium); fields,
# round robins, seats and buildings (the others). From the whole frame, and (``sections``)
# read a section's columns at a time from the runs' columns files, as glory-ai report does
@pytest.mark.parametrize("sections", [False, True], ids=["frame", "sections"])
@pytest.mark.parametrize("name", SHIPPED)
def test_a_shipped_report_rebuilds_as_stored(name, sections, monkeypatch):
    monkeypatch.chdir(ROOT)             # the page lists the run folders as glory-ai run gave them
    experiment = load_experiment(Path("experiments") / f"{name}.toml")
    folder = Path("results") / name
    description = " ".join(experiment.description.split()) if experiment.description else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # statsmodels on buildings only winners completed
        folders = [folder / "runs" / p.name for p in experiment.runs()]
        report = build_report(Runs(folders) if sections else load_runs(folders),
                              figures=False, question=experiment.question or None,
                              description=description, grids=report_grids(experiment))
    assert _without_figures(render(report, {}, experiment.name)) == \
        _without_figures((folder / "report.html").read_text())
    bullets = [line[2:] for line in (folder / "README.md").read_text().splitlines()
               if line.startswith("* ")]
    assert bullets == report.sentences
    assert report.answer == report.sentences[:len(report.answer)] and report.answer
    assert (folder / "summary.csv").read_text() == \
        report.tables["summary"].to_csv(index=False, float_format="%.6g")
