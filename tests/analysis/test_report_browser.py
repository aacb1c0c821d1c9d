"""Every shipped report and a freshly written one, rendered by headless Chromium at a laptop's
width (1366 px) and a phone's (390 px): the page never scrolls sideways, every image loads,
the console stays free of errors, and the figures keep legible text. Skipped, saying why, when
no Chromium is installed (Debian: `apt-get install chromium`; or set GLORY_AI_CHROMIUM).

``GLORY_AI_SCREENSHOTS=DIR`` also writes a full-page screenshot of each page at each width
into DIR, to look at."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from glory_ai.analysis.report import write_report
from support.browser import Chromium, find_browser

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted((ROOT / "results").glob("*/report.html"))
WIDTHS = (1366, 390)
#: the smallest scale at which a figure may be shown (its pixels per CSS pixel): its text,
#: 6.5 pt and more at 150 dpi, stays at 7 px or more
MIN_FIGURE_SCALE = 0.52


@pytest.fixture(scope="module")
def browser():
    binary = find_browser()
    if binary is None:
        pytest.skip("no Chromium to render the reports with: install the Debian package "
                    "(apt-get install chromium) or set GLORY_AI_CHROMIUM to a Chromium binary")
    with Chromium(binary) as chromium:
        yield chromium


@pytest.fixture(scope="module")
def fresh_report(real_runs, tmp_path_factory):
    html_path, _ = write_report(list(real_runs), tmp_path_factory.mktemp("fresh") / "report")
    return html_path


def _check(browser, page: Path, name: str) -> None:
    shots = os.environ.get("GLORY_AI_SCREENSHOTS")
    problems = []
    for width in WIDTHS:
        seen = browser.open(page, width)
        if shots:
            Path(shots).mkdir(parents=True, exist_ok=True)
            browser.screenshot(Path(shots) / f"{name}-{width}.png")
        where = f"at {width} px:"
        if seen.overflow:
            problems.append(f"{where} the page is {seen.overflow} px wider than the window "
                            f"({', '.join(seen.wide) or 'the page itself'})")
        problems += [f"{where} image {alt!r} did not load" for alt in seen.broken_images]
        problems += [f"{where} console error: {error}" for error in seen.console_errors]
        assert seen.images, f"{name}: no figure on the page"
        problems += [f"{where} figure {image['alt']!r} shown at {image['shown']:.0f} of its "
                     f"{image['natural']} px: its text is too small to read"
                     for image in seen.shown if image["shown"] / image["natural"] < MIN_FIGURE_SCALE]
    assert not problems, f"{name}:\n  " + "\n  ".join(problems)


def test_reports_are_shipped():
    assert len(SHIPPED) >= 6


@pytest.mark.parametrize("page", SHIPPED, ids=lambda p: p.parent.name)
def test_a_shipped_report_reads_well_at_both_widths(browser, page):
    _check(browser, page, page.parent.name)


def test_a_fresh_report_reads_well_at_both_widths(browser, fresh_report):
    _check(browser, fresh_report, "fresh")


def test_the_check_sees_a_page_that_scrolls_sideways_and_a_broken_image(browser, tmp_path):
    page = tmp_path / "bad.html"
    page.write_text('<!DOCTYPE html><html><head><meta name="viewport" content="width=device-width, '
                    'initial-scale=1"></head><body><div style="width: 800px">wide</div>'
                    '<img alt="missing" src="nowhere.png"><script>console.error("oops")</script>'
                    "</body></html>")
    seen = browser.open(page, 390)
    assert seen.overflow >= 800 - 390 and any(w.startswith("div to ") for w in seen.wide)
    assert seen.broken_images == ["missing"]
    assert "oops" in seen.console_errors
    assert any("nowhere.png" in error for error in seen.console_errors)     # the failed load


def test_the_head_to_head_table_of_a_round_robin_fits_a_laptops_width(browser, synth, run_folder, tmp_path):
    # three specs with long names, two players: the head-to-head table has every column
    # (normalized Elo, both p-values); at 1366 px it fits its box, nothing to scroll
    specs = ["examples/cautious.py:Cautious", "ismcts:iters=100", "ismcts:iters=10"]
    records = []
    for deal in range(20):
        for pair, (a, b) in enumerate(((0, 1), (0, 2), (1, 2))):
            for seat in (0, 1):
                seats = [specs[a], specs[b]] if seat == 0 else [specs[b], specs[a]]
                winner = seats.index(specs[max(a, b)]) if (deal + pair) % 7 else seats.index(specs[min(a, b)])
                records.append(synth(len(records), seats, [winner])
                               | {"deal": deal, "pairing": pair, "rotation": seat,
                                  "game_id": f"{deal}-{pair}-{seat}"})
    html_path, _ = write_report([run_folder(records)], tmp_path / "report", figure_files=False)
    assert "normalized Elo" in html_path.read_text()
    browser.open(html_path, 1366)
    cut = browser.evaluate(
        "[...document.querySelectorAll('.scroll')].filter(b => b.scrollWidth > b.clientWidth + 1)"
        ".map(b => [...b.querySelectorAll('th')].map(t => t.textContent).join('|') || '?')")
    assert not cut, f"tables cut at 1366 px (they scroll in their box): {cut}"


#: the tables of a page whose box scrolls sideways (their first header cells), every <details> open
_CUT_TABLES = ("(() => { document.querySelectorAll('details').forEach(d => d.open = true); "
               "return [...document.querySelectorAll('.scroll')]"
               ".filter(b => b.scrollWidth > b.clientWidth + 1)"
               ".map(b => [...b.querySelectorAll('th')].slice(0, 3).map(t => t.textContent).join('|')"
               " + ` (${b.scrollWidth - b.clientWidth} px)`); })()")


def test_every_table_of_a_fresh_report_fits_a_laptops_width(browser, fresh_report):
    # the buildings' full table (14 columns, behind "Every building") was cut by 20 to 43 px
    # at 1366 px: its last column, the raw difference, hidden until scrolled to
    browser.open(fresh_report, 1366)
    cut = browser.evaluate(_CUT_TABLES)
    assert not cut, f"tables cut at 1366 px (they scroll in their box): {cut}"
    assert "raw difference" in fresh_report.read_text()


def test_the_report_of_a_compare_run_shows_its_head_to_head_table_whole(browser, synth, run_folder, tmp_path):
    # the report of a plain `glory-ai compare A B` folder: two specs with long names, one of
    # which never wins (a perfect record, its interval the profile likelihood)
    specs = ["ismcts:iters=30,c=0.7,rollout_temperature=0.5", "pimc:iters=30,worlds=4,cutoff=20"]
    records = []
    for deal in range(10):
        for seat in (0, 1):
            seats = specs if seat == 0 else specs[::-1]
            records.append(synth(len(records), seats, [seats.index(specs[0])])
                           | {"deal": deal, "rotation": seat, "game_id": f"{deal}-0-{seat}"})
    folder = run_folder(records)
    html_path, _ = write_report([folder], folder, figure_files=False)
    browser.open(html_path, 1366)
    cut = browser.evaluate(_CUT_TABLES)
    assert not cut, f"tables cut at 1366 px (they scroll in their box): {cut}"
    # the head-to-head table's last column lies inside the window
    right = browser.evaluate("Math.max(...[...document.querySelectorAll('table')]"
                             ".filter(t => t.textContent.includes('opponent'))"
                             ".map(t => t.querySelector('tr').lastElementChild"
                             ".getBoundingClientRect().right))")
    assert 0 < right <= 1366


@pytest.mark.parametrize("page", SHIPPED, ids=lambda p: p.parent.name)
def test_the_tables_of_a_shipped_report_fit_a_laptops_width(browser, page):
    # strategy_ladder's head to head (nine specs with long names, two p-values) was cut by
    # 25 px at 1366 px; the rule variants' table side by side (a column per statistic of
    # each variant) is meant to scroll
    browser.open(page, 1366)
    cut = [table for table in browser.evaluate(_CUT_TABLES) if not table.startswith("variant|")]
    assert not cut, f"tables cut at 1366 px (they scroll in their box): {cut}"
