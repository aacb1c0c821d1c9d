"""Figures that hold: every figure README.md and docs/*.md quote from a folder of results/
either comes from game records that a test replays on this build, or from a measurement
that names the build it measured, and a page quoting a measurement made on another build
than this one names that build beside it.

* Outcome folders (win rates, intervals, findings: functions of the records) hold on any
  build whose games replay to the stored records: the shipped experiments
  (tests/experiments/test_shipped_results.py replays them) and results/learned_evaluation
  (tests/learn/test_shipped_learning.py).
* Measurements (results/bench: speeds, ratios) are not replayed: each file names its build
  (``build <12 hex digits>``, the compiled sources' hash of ``glory_ai.build_info()``). When
  that is not this build's, every page that links it must say which build its figures hold
  for (the same 12 digits), or the measurement must be made again on this build
  (``glory-ai bench --compare --out results/bench``, ``python benchmarks/threads.py``).
"""
from __future__ import annotations

import re
from pathlib import Path

import glory_ai

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
MEASURED = "bench"
BUILD = re.compile(r"\bbuild `?([0-9a-f]{12})\b")
LINK = re.compile(r"\]\(((?:\.\./)?results/[^)#\s]+)")


def _linked() -> list[tuple[Path, Path]]:
    """(page, file or folder under results/) for every link of a page into results/."""
    found = []
    for page in PAGES:
        for target in LINK.findall(page.read_text()):
            path = (page.parent / target).resolve()
            if ROOT / "results" in path.parents:
                found.append((page, path))
    return found


def _folder(path: Path) -> str:
    return path.relative_to(ROOT / "results").parts[0]


def _replayed(folder: str) -> bool:
    here = ROOT / "results" / folder
    if folder == "learned_evaluation":
        return (here / "summary.json").exists() and (here / "experiment.toml").exists()
    return (here / "experiment.toml").exists() and (here / "manifest.json").exists()


def _build_of(path: Path) -> str | None:
    match = BUILD.search(path.read_text())
    return match.group(1) if match else None


def test_pages_quote_results():
    assert {_folder(p) for _, p in _linked()} >= {MEASURED, "strategy_ladder", "learned_evaluation"}


def test_every_quoted_results_folder_is_replayed_or_a_measurement_naming_its_build():
    problems = []
    for page, path in _linked():
        folder = _folder(path)
        where = f"{page.relative_to(ROOT)} links {path.relative_to(ROOT)}"
        if not path.exists():
            problems.append(f"{where}: no such file")
        elif folder == MEASURED:
            if path.is_dir() or _build_of(path) is None:
                problems.append(f"{where}: a measurement that does not name its build")
        elif not _replayed(folder):
            problems.append(f"{where}: neither game records a test replays nor a measurement")
    assert not problems, "\n".join(problems)


def test_a_measurement_of_another_build_is_quoted_with_that_build():
    current = str(glory_ai.build_info()["source_hash"])[:12]
    problems = []
    for page, path in _linked():
        if _folder(path) != MEASURED or not path.is_file():
            continue
        build = _build_of(path)
        if build is not None and build != current and build not in page.read_text():
            problems.append(f"{page.relative_to(ROOT)} quotes {path.relative_to(ROOT)}, measured on build "
                            f"{build}, not this build {current}: measure it again on this build, or say "
                            f"beside the figures which build they hold for ({build})")
    assert not problems, "\n".join(problems)


def test_the_check_reads_a_build_and_tells_measurements_from_records(tmp_path):
    note = tmp_path / "x.md"
    note.write_text("Written by `glory-ai bench --compare` (glory_ai 0.1.0, build 0238545f86b0; ...)")
    assert _build_of(note) == "0238545f86b0"
    note.write_text("no build here")
    assert _build_of(note) is None
    assert _replayed("strategy_ladder") and _replayed("learned_evaluation") and not _replayed(MEASURED)
