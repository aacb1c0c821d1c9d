"""Figures: produced, non-empty, and byte-identical across renders (PNG and SVG)."""
from __future__ import annotations

import pytest

from glory_ai.analysis import figures as F
from glory_ai.analysis.load import load_runs
from glory_ai.analysis.stats import (
    building_strength,
    end_conditions,
    finishing_matrix,
    ratings,
    seat_advantage,
    vp_breakdown,
    win_rates,
)


@pytest.fixture(scope="module")
def frame(real_runs):
    return load_runs(real_runs)


def _figures(frame):
    colors = F.spec_colors(frame["spec"].unique())
    return {
        "win_rates": lambda: F.plot_win_rates(win_rates(frame, by="num_players"), colors),
        "matrix": lambda: F.plot_finishing_matrix(finishing_matrix(frame, num_players=2)),
        "ratings_2": lambda: F.plot_ratings(ratings(frame, num_players=2), colors),
        "ratings_3": lambda: F.plot_ratings(ratings(frame, num_players=3), colors),
        "seat": lambda: F.plot_seat_advantage(seat_advantage(frame)),
        "buildings": lambda: F.plot_building_strength(building_strength(frame)),
        "vp": lambda: F.plot_vp_breakdown(vp_breakdown(frame, by="num_players")),
        "end": lambda: F.plot_end_conditions(end_conditions(frame, by="num_players")),
        "length": lambda: F.plot_game_length(frame),
    }


@pytest.mark.parametrize("name", ["win_rates", "matrix", "ratings_2", "ratings_3", "seat",
                                  "buildings", "vp", "end", "length"])
def test_figures_are_deterministic(frame, tmp_path, name):
    make = _figures(frame)[name]
    first, second = make(), make()          # two separate figures from the same input
    png = F.save(first, tmp_path / f"{name}.png").read_bytes()
    svg = F.save(first, tmp_path / f"{name}.svg").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 5000
    assert b"<svg" in svg[:500] and len(svg) > 5000
    assert png == F.figure_bytes(second, "png"), f"{name}.png differs between two renders"
    assert svg == F.figure_bytes(second, "svg"), f"{name}.svg differs between two renders"
    assert b"Matplotlib v" not in svg and b"<dc:date>" not in svg
    assert b"Software" not in png and b"matplotlib version" not in png.lower()


def test_spec_colours_are_consistent():
    one = F.spec_colors(["greedy", "random", "heuristic:style=builder"])
    two = F.spec_colors(["random", "heuristic:style=builder", "greedy", "random"])
    assert one == two and len(set(one.values())) == 3


def test_bad_format():
    with pytest.raises(ValueError, match="png or svg"):
        F.figure_bytes(F._figure(1.0), "jpg")
