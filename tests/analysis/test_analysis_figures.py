"""Figures: produced, non-empty, byte-identical across renders and processes (PNG and SVG), in
one font, legible in their narrow layout, labels clear of error bars and of each other."""
from __future__ import annotations

import math
import os
import subprocess
import sys

import pandas as pd
import pytest
from matplotlib import colors as matplotlib_colors
from matplotlib.text import Text

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


# ---- the narrow layout, legibility, layout -----------------------------------------------------

def _narrow_figures(frame):
    colors = F.spec_colors(frame["spec"].unique())
    return {
        "win_rates": lambda: F.plot_win_rates(win_rates(frame, by="num_players"), colors, narrow=True),
        "matrix": lambda: F.plot_finishing_matrix(finishing_matrix(frame, num_players=2), narrow=True),
        "ratings_3": lambda: F.plot_ratings(ratings(frame, num_players=3), colors, narrow=True),
        "seat": lambda: F.plot_seat_advantage(seat_advantage(frame), narrow=True),
        "buildings": lambda: F.plot_building_strength(building_strength(frame), narrow=True),
        "vp": lambda: F.plot_vp_breakdown(vp_breakdown(frame, by="num_players"), narrow=True),
        "end": lambda: F.plot_end_conditions(end_conditions(frame, by="num_players"), narrow=True),
        "length": lambda: F.plot_game_length(frame, narrow=True),
        "grid": lambda: F.plot_grid_curve([125, 250, 1000], [0.1, 0.45, 0.6], [0.02, 0.33, 0.5],
                                          [0.2, 0.56, 0.7], xlabel="iters", narrow=True,
                                          title="ismcts against ismcts:iters=500: score by iters"),
    }


def _texts(fig):
    """(text, bounding box in pixels) of every visible, non-empty text of a saved figure."""
    renderer = fig.canvas.get_renderer()
    return [(t, t.get_window_extent(renderer)) for t in fig.findobj(Text)
            if t.get_visible() and t.get_text().strip()]


@pytest.mark.parametrize("name", ["win_rates", "matrix", "ratings_3", "seat", "buildings", "vp",
                                  "end", "length", "grid"])
def test_the_narrow_layout_fits_a_phone_and_is_deterministic(frame, name):
    make = _narrow_figures(frame)[name]
    fig = make()
    png = F.figure_bytes(fig, "png")
    assert png == F.figure_bytes(make(), "png")
    assert fig.get_size_inches()[0] == F.NARROW
    # everything drawn inside the figure (nothing cut off at a phone's width), no text tiny
    drawn = fig.get_tightbbox(fig.canvas.get_renderer())
    size = fig.get_size_inches()
    assert drawn.x0 >= -0.01 and drawn.y0 >= -0.01 and drawn.x1 <= size[0] + 0.01 \
        and drawn.y1 <= size[1] + 0.01, f"{name}: drawn over {drawn}, the figure is {size}"
    for text in fig.findobj(Text):
        if text.get_text().strip():
            assert text.get_fontsize() >= 6.5, f"{name}: {text.get_text()!r} at {text.get_fontsize()} pt"


@pytest.mark.parametrize("narrow", [False, True])
def test_every_text_of_every_figure_is_in_one_font(frame, narrow):
    makers = _narrow_figures(frame) if narrow else _figures(frame)
    for name, make in makers.items():
        fig = make()
        F.figure_bytes(fig, "svg")
        fonts = {text.get_fontname() for text, _ in _texts(fig)}
        assert fonts == {"DejaVu Sans"}, f"{name}: {fonts}"


@pytest.mark.parametrize("narrow", [False, True])
def test_win_rate_labels_are_written_past_the_error_bars(narrow):
    table = pd.DataFrame({"games": [80, 80, 80], "wins": [70.0, 40.0, 8.0],
                          "win_rate": [0.875, 0.5, 0.1], "win_low": [0.8, 0.38, 0.02],
                          "win_high": [0.97, 0.62, 0.2], "interval": ["pentanomial"] * 3,
                          "expected": [0.5] * 3},
                         index=pd.Index(["strong", "even", "weak"], name="spec"))
    fig = F.plot_win_rates(table, narrow=narrow)
    F.figure_bytes(fig, "png")
    ax = fig.axes[0]
    labels = {t.get_text(): box for t, box in _texts(fig) if t.get_text().endswith("%")
              and t.axes is ax and "." in t.get_text()}
    assert set(labels) == {"87.5%", "50.0%", "10.0%"}
    for text, high in (("87.5%", 0.97), ("50.0%", 0.62), ("10.0%", 0.2)):
        cap = ax.transData.transform((high, 0))[0]
        assert labels[text].x0 > cap + 1, f"{text} starts at {labels[text].x0:.0f} px, its bar at {cap:.0f}"
        assert labels[text].x1 <= fig.canvas.get_width_height()[0]


def _matrix(order, strength):
    """A finishing matrix of specs with the given strengths (row ahead of column)."""
    values = [[math.nan if a == b else 0.5 + (strength[a] - strength[b]) / 2 for b in order]
              for a in order]
    table = pd.DataFrame(values, index=order, columns=order)
    table.attrs["num_players"] = 2
    return table


def test_the_heatmap_is_ordered_by_strength_and_its_labels_do_not_collide():
    matrix = _matrix(["alpha", "beta", "gamma", "delta"],
                     {"alpha": 0.0, "beta": 0.6, "gamma": 0.9, "delta": 0.3})
    fig = F.plot_finishing_matrix(matrix)
    F.figure_bytes(fig, "png")
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["gamma", "beta", "delta", "alpha"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["gamma", "beta", "delta", "alpha"]
    # an order given (the ratings') wins
    fig = F.plot_finishing_matrix(matrix, order=["delta", "alpha", "gamma", "beta"])
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["delta", "alpha", "gamma", "beta"]
    # no two texts of the figure overlap (the colour bar's label and the title above all)
    for narrow in (False, True):
        fig = F.plot_finishing_matrix(matrix, narrow=narrow)
        F.figure_bytes(fig, "png")
        boxes = [(t.get_text(), box) for t, box in _texts(fig)]
        for i, (a, box_a) in enumerate(boxes):
            for b, box_b in boxes[i + 1:]:
                assert not box_a.overlaps(box_b), f"{a!r} overlaps {b!r} (narrow={narrow})"


def test_figures_are_the_same_bytes_in_a_fresh_process(tmp_path):
    # a figure drawn here after others and one drawn by a new interpreter: the same SVG
    # (clip-path ids from a fixed salt, no dates) and PNG
    script = (
        "import sys, math, pandas as pd\n"
        "from glory_ai.analysis import figures as F\n"
        "order = ['alpha', 'beta', 'gamma']\n"
        "s = {'alpha': 0.0, 'beta': 0.6, 'gamma': 0.9}\n"
        "m = pd.DataFrame([[math.nan if a == b else 0.5 + (s[a] - s[b]) / 2 for b in order] for a in order],"
        " index=order, columns=order)\n"
        "m.attrs['num_players'] = 2\n"
        "fig = F.plot_finishing_matrix(m)\n"
        "sys.stdout.buffer.write(F.figure_bytes(fig, sys.argv[1]))\n")
    F.figure_bytes(F.plot_grid_curve([1, 2, 4], [0.2, 0.5, 0.7], [0.1, 0.4, 0.6], [0.3, 0.6, 0.8],
                                     xlabel="x"), "svg")
    here = _matrix(["alpha", "beta", "gamma"], {"alpha": 0.0, "beta": 0.6, "gamma": 0.9})
    for fmt in ("svg", "png"):
        fresh = subprocess.run([sys.executable, "-c", script, fmt], capture_output=True, check=True,
                               env={**os.environ, "PYTHONHASHSEED": "7"}).stdout
        assert F.figure_bytes(F.plot_finishing_matrix(here), fmt) == fresh, fmt


def _zero_and_perfect():
    """A win-rate table with a spec that never wins and a rating table with a perfect record
    (its interval the profile likelihood, named under the axis)."""
    rates = pd.DataFrame({"games": [60, 60], "wins": [60.0, 0.0], "win_rate": [1.0, 0.0],
                          "win_low": [0.94, 0.0], "win_high": [1.0, 0.06],
                          "interval": ["Wilson (games as independent)"] * 2, "expected": [0.5] * 2},
                         index=pd.Index(["ismcts:iters=30,c=0.7", "random"], name="spec"))
    ratings_table = pd.DataFrame({"rating": [344.0, -344.0], "low": [162.0, -696.0], "high": [696.0, -162.0],
                                  "interval": ["profile likelihood (perfect record)"] * 2},
                                 index=pd.Index(["ismcts:iters=30,c=0.7", "pimc:iters=30,worlds=4"],
                                                name="spec"))
    ratings_table.attrs["num_players"] = 2
    return rates, ratings_table


@pytest.mark.parametrize("narrow", [False, True])
def test_a_win_rate_of_zero_has_its_mark_in_the_specs_colour(narrow):
    rates, _ = _zero_and_perfect()
    colors = {"ismcts:iters=30,c=0.7": "#1f77b4", "random": "#ff7f0e"}
    fig = F.plot_win_rates(rates, colors, narrow=narrow)
    F.figure_bytes(fig, "png")
    ax = fig.axes[0]
    bars = {round(p.get_width(), 6) for p in ax.patches}
    assert 0.0 in bars                   # the bar of random has no length: the mark shows its rate
    marks = [c for c in ax.collections if c.get_gid() == "rates"]
    assert len(marks) == 1
    rates_drawn = sorted(float(x) for x, _ in marks[0].get_offsets())
    assert rates_drawn == [0.0, 1.0]
    # drawn over random's row (best on top: random is the row at y = 0), in its colour
    at_zero = [i for i, (x, _) in enumerate(marks[0].get_offsets()) if x == 0.0][0]
    color = marks[0].get_edgecolor()[at_zero] if len(marks[0].get_edgecolor()) > 1 \
        else marks[0].get_edgecolor()[0]
    assert matplotlib_colors.to_hex(color) == "#ff7f0e"


@pytest.mark.parametrize("narrow", [False, True])
def test_the_rating_ladders_axis_label_stays_inside_the_figure(narrow):
    # the label naming the hollow markers of a perfect record ran past the right edge of the
    # wide figure ("... hollow: a perfect recor")
    _, table = _zero_and_perfect()
    fig = F.plot_ratings(table, narrow=narrow)
    fig.canvas.draw()
    label = fig.axes[0].xaxis.label
    assert "hollow: a perfect record, profile likelihood" in " ".join(label.get_text().split())
    box = label.get_window_extent(fig.canvas.get_renderer())
    assert box.x0 >= 0 and box.x1 <= fig.bbox.width and box.y0 >= 0, (box, fig.bbox)


@pytest.mark.parametrize("name", ["win_rates", "matrix", "ratings_2", "ratings_3", "seat",
                                  "buildings", "vp", "end", "length"])
def test_the_wide_layout_draws_its_labels_inside_the_figure(frame, name):
    fig = _figures(frame)[name]()
    fig.canvas.draw()
    width = fig.bbox.width
    renderer = fig.canvas.get_renderer()
    labels = [*fig.texts] + [t for ax in fig.axes
                             for t in (ax.xaxis.label, ax.yaxis.label, ax.title, *ax.texts)]
    for text in labels:
        if text.get_visible() and text.get_text().strip():
            box = text.get_window_extent(renderer)
            assert box.x0 >= -1 and box.x1 <= width + 1, f"{name}: {text.get_text()[:50]!r} at {box}"
