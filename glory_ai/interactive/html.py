"""The browser game viewer: one self-contained HTML page (inline CSS, JavaScript and SVG,
nothing fetched) that steps through a recorded game.

Buttons and the arrow keys step (Home/End: start and end, PageUp/PageDown: turns, space:
play/pause); the page shows the table at each decision (as one player saw it, or
everything), the log up to that decision and every player's VP curve over the game. URL
parameters: ``?step=N`` opens at a step, ``?autoplay=1&speed=MS`` plays on by itself; on
reaching the end the page sets ``data-reached-end="1"`` on ``<body>`` (the headless test
reads it), and a script error sets ``data-error``.
"""
from __future__ import annotations

import html as _html
import json
import os
from importlib import resources
from pathlib import Path
from typing import Any

from ..cards import CARD_NAMES
from .narrate import describe, log_of
from .records import check_record, states
from .view import card_info, table_view

__all__ = ["viewer_data", "viewer_html", "write_viewer"]


def _vp(view: dict[str, Any]) -> list[int]:
    return [p["score"]["total"] if "score" in p else p["vp"]["total"] for p in view["players"]]


def viewer_data(record: dict[str, Any], viewer: int | None = None) -> dict[str, Any]:
    """Everything the page shows, as JSON-safe data: the table at every step (as `viewer`
    saw it), the log, the VP of every player at every step."""
    if "scores" in record:
        check_record(record)
    n = record["num_players"]
    seats = [str(s) for s in (record.get("seats") or [f"P{p}" for p in range(n)])]
    names = ["you" if p == viewer else spec for p, spec in enumerate(seats)]
    book = log_of(record, viewer)
    steps: list[dict[str, Any]] = []
    config = None
    for i, (state, action) in enumerate(states(record)):
        config = state.config()
        view = table_view(state, viewer, names=names)
        view.pop("menu", None)
        steps.append({
            "view": view,
            "next": describe(state, action, viewer) if action is not None else None,
            "log": len(book.upto(i)),
            "turn_start": i == 0 or view["turn"]["number"] != steps[-1]["view"]["turn"]["number"],
        })
    final = steps[-1]["view"]
    return {
        "meta": {
            "game_id": record.get("game_id"), "seed": record["seed"], "mode": record["mode"],
            "num_players": n, "seats": seats, "viewer": viewer, "variant": record.get("variant") or {},
            "end_reason": final.get("end_reason"), "winners": final.get("winners", []),
            "decisions": len(steps) - 1,
        },
        "cards": {name: {k: v for k, v in card_info(name, config).items() if k != "name"}
                  for name in CARD_NAMES},
        "steps": steps,
        "log": book.lines,
        "vp": [_vp(s["view"]) for s in steps],
    }


def viewer_html(record: dict[str, Any], viewer: int | None = None, title: str | None = None) -> str:
    """The page (a str) for one recorded game."""
    data = viewer_data(record, viewer)
    gid = data["meta"]["game_id"]
    seen = "everything" if viewer is None else f"P{viewer}'s view"
    if title is None:
        title = f"Glory to Rome: {f'game {gid}' if gid is not None else 'a game'} ({seen})"
    payload = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    # inside <script>, "</" could close the element early; "<\/" is the same JSON string
    payload = payload.replace("</", "<\\/")
    # the data goes in last: nothing inside it is taken for a placeholder
    return (_PAGE.replace("__TITLE__", _html.escape(title)).replace("__CSS__", _asset("viewer.css"))
            .replace("__JS__", _asset("viewer.js")).replace("__DATA__", payload))


def write_viewer(record: dict[str, Any], path: str | os.PathLike, viewer: int | None = None) -> Path:
    """Write the page to `path`; returns the path."""
    path = Path(path)
    if path.parent and not path.parent.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(viewer_html(record, viewer), encoding="utf-8")
    return path


def _asset(name: str) -> str:
    return resources.files("glory_ai.interactive").joinpath("assets", name).read_text(encoding="utf-8")


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>__TITLE__</title>
<style>
__CSS__</style>
</head>
<body>
<header>
  <h1 id="title">__TITLE__</h1>
  <div class="meta" id="meta"></div>
</header>
<nav aria-label="steps">
  <button id="b-start" title="start (Home)" aria-label="start">|&#x25C0;</button>
  <button id="b-pturn" title="previous turn (PageUp)" aria-label="previous turn">&#x00AB; turn</button>
  <button id="b-back" title="back (Left)" aria-label="back">&#x25C0;</button>
  <button id="b-play" title="play / pause (space)">&#x25B6; play</button>
  <button id="b-next" title="next (Right)" aria-label="next">&#x25B6;</button>
  <button id="b-nturn" title="next turn (PageDown)" aria-label="next turn">turn &#x00BB;</button>
  <button id="b-end" title="end (End)" aria-label="end">&#x25B6;|</button>
  <input id="slider" type="range" min="0" value="0" aria-label="step">
  <span id="steplabel"></span>
</nav>
<div id="errors"></div>
<main>
  <section class="box" id="table"></section>
  <div>
    <section class="box" id="chartbox">
      <h2>Victory points</h2><div id="chart"></div><div class="legend" id="legend"></div>
    </section>
    <section class="box" style="margin-top:12px"><h2>What happened</h2><div id="log"></div></section>
  </div>
</main>
<script id="game-data" type="application/json">__DATA__</script>
<script>
__JS__</script>
</body>
</html>
"""
