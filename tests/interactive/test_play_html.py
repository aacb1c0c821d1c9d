"""The browser game viewer: its data, a self-contained page, and the page in headless
Chromium at laptop and phone widths stepping to the end without a script error (skipped
when no Chromium is installed)."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from glory_ai.interactive.html import viewer_data, viewer_html, write_viewer
from support.play import finished_record

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")


def test_the_data_follows_the_game():
    record = finished_record(3, seed=2)
    data = viewer_data(record)
    steps = data["steps"]
    assert len(steps) == len(record["actions"]) + 1
    assert data["vp"][-1] == record["scores"]               # seeing everything, the end is the score
    assert steps[-1]["view"]["over"] and steps[-1]["next"] is None
    assert all(s["next"] for s in steps[:-1])
    assert steps[-1]["log"] == len(data["log"])
    assert [s["log"] for s in steps] == sorted(s["log"] for s in steps)
    assert data["meta"]["winners"] == record["winners"]


def test_one_players_data_hides_the_others_cards():
    record = finished_record(3, seed=2)
    data = viewer_data(record, viewer=1)
    for step in data["steps"][:-1]:
        players = step["view"]["players"]
        assert players[1]["hand"] is not None
        assert players[0]["hand"] is None and players[2]["hand"] is None
        assert players[0]["vault"] is None and players[2]["vault"] is None
        assert "score" not in players[0]
    assert "deck" not in data["steps"][0]["view"] or isinstance(data["steps"][0]["view"]["deck"], int)


def test_the_page_is_self_contained(tmp_path):
    page = viewer_html(finished_record(2, seed=1))
    assert "<script src" not in page and "<link" not in page and "@import" not in page
    urls = set(re.findall(r"https?://[^\s\"'<>]+", page))
    assert urls <= {"http://www.w3.org/2000/svg"}, urls        # the SVG namespace, never fetched
    assert page.count('<script id="game-data" type="application/json">') == 1
    assert "__DATA__" not in page and "__JS__" not in page and "__CSS__" not in page


def _browser() -> str | None:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


def _dump_dom(browser: str, page: Path, width: int, height: int, query: str) -> str:
    result = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         f"--window-size={width},{height}", "--virtual-time-budget=60000", "--dump-dom",
         page.resolve().as_uri() + query],
        capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


@pytest.fixture(scope="module")
def browser():
    path = _browser()
    if path is None:
        pytest.skip("no Chromium binary (chromium, chromium-browser or google-chrome) on PATH: "
                    "install one (apt-get install chromium) to run the browser test")
    return path


@pytest.mark.parametrize("width, height", [(1366, 900), (390, 844)])
def test_the_page_steps_to_the_end_in_a_browser(tmp_path, browser, width, height):
    record = finished_record(3, seed=5)
    page = write_viewer(record, tmp_path / "game.html", viewer=0)
    dom = _dump_dom(browser, page, width, height, "?autoplay=1&speed=0")
    body = re.search(r"<body[^>]*>", dom).group(0)
    assert 'data-reached-end="1"' in body, body
    assert "data-error" not in body, re.search(r'<div id="errors">(.*?)</div>', dom, re.S).group(1)
    last = len(record["actions"])
    assert f"step {last} / {last}" in dom
    # the table at the end: every player's score breakdown
    table = re.search(r'<section class="box" id="table">(.*?)</section>', dom, re.S).group(1)
    assert table.count("merchant bonus") == record["num_players"]
    for score in record["scores"]:
        assert f"= {score}<" in table
    shot = tmp_path / f"viewer-{width}.png"
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    f"--window-size={width},{height}", f"--screenshot={shot}",
                    page.resolve().as_uri() + "?step=40"], capture_output=True, timeout=180)
    assert shot.exists() and shot.stat().st_size > 10_000


def test_a_script_error_is_caught(tmp_path, browser):
    # the check can fail: a page whose script breaks never reaches the end
    record = finished_record(2, seed=5)
    page = tmp_path / "broken.html"
    page.write_text(viewer_html(record).replace("function renderLog() {",
                                                "function renderLog() { undefinedFunction();"))
    dom = _dump_dom(browser, page, 1366, 900, "?autoplay=1&speed=0")
    body = re.search(r"<body[^>]*>", dom).group(0)
    assert 'data-error="1"' in body and "data-reached-end" not in body
    assert "undefinedFunction" in dom
