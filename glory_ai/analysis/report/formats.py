"""How the report writes numbers and HTML: every section formats with these, so that a rate,
an interval or a p-value reads the same in every table and sentence."""
from __future__ import annotations

import base64
import html
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...core.enums import EndReason

__all__ = ["NARROW_BELOW", "REASON_TEXT", "adjusted", "ci", "count", "esc", "figure_html",
           "html_table", "models_text", "num", "p_text", "pct", "plural", "pm", "pval",
           "reason_text", "seat_name", "spec_cell"]

#: below this page width (CSS px) the report shows every figure's narrow layout
NARROW_BELOW = 640

#: how a sentence says that a game ended, for each end reason
REASON_TEXT: dict[str, str] = {
    EndReason.DECK: "when the deck runs out", EndReason.SITES: "when the sites run out",
    EndReason.CATACOMB: "with a Catacomb", EndReason.FORUM: "with a Forum victory",
    EndReason.CONCESSION: "by concession"}


def reason_text(reason: str) -> str:
    """``when the deck runs out`` for ``deck``; ``by X`` for a reason this build does not know."""
    return REASON_TEXT.get(str(reason), "by " + str(reason))


# ---- numbers ----------------------------------------------------------------------------------

def pct(x: float, digits: int = 1) -> str:
    return "–" if x is None or not np.isfinite(x) else f"{100 * x:.{digits}f}%"


def pm(rate: float, low: float, high: float) -> str:
    """``54.2% ± 2.9%``: the rate and half the width of its interval; a rate at an end of
    its interval (a spec that never wins: 0% and a Wilson interval) has the interval written
    out, as "0.0% ± 3.0%" would reach below 0.

    >>> pm(0.542, 0.513, 0.571), pm(0.0, 0.0, 0.06), pm(1.0, 0.884, 1.0)
    ('54.2% ± 2.9%', '0.0% [0.0, 6.0]', '100.0% [88.4, 100.0]')
    """
    if np.isfinite(rate) and np.isfinite(low) and np.isfinite(high) and not low < rate < high:
        return f"{pct(rate)} {ci(low, high)}"
    return f"{pct(rate)} ± {100 * (high - low) / 2:.1f}%"


def ci(low: float, high: float, scale: float = 100, digits: int = 1, sign: bool = False) -> str:
    if not (np.isfinite(low) and np.isfinite(high)):
        return "–"
    f = f"{{:{'+' if sign else ''}.{digits}f}}"
    return f"[{f.format(scale * low)}, {f.format(scale * high)}]"


def num(x: float, digits: int = 1, sign: bool = False) -> str:
    if x is None or not np.isfinite(x):
        return "–"
    return f"{x:{'+' if sign else ''},.{digits}f}"


def pval(p: float) -> str:
    """A p-value as the tables print it: ``< 0.001``, ``0.012``, ``0.35``."""
    if p is None or not np.isfinite(p):
        return "–"
    if p < 0.001:
        return "< 0.001"
    return f"{p:.3f}" if p < 0.1 else f"{p:.2f}"


def p_text(p: float) -> str:
    """A p-value in a sentence: ``p < 0.001``, ``p = 0.012``."""
    s = pval(p)
    return f"p {s}" if s.startswith("<") else f"p = {s}"


def count(n: float) -> str:
    return f"{int(n):,}"


def plural(n: float, word: str, word_plural: str | None = None) -> str:
    """A count and its noun, singular for one.

    >>> plural(1, "deal"), plural(2, "deal"), plural(1200, "game"), plural(1, "pseudo seat-game")
    ('1 deal', '2 deals', '1,200 games', '1 pseudo seat-game')
    """
    return f"{count(n)} {word if int(n) == 1 else word_plural or word + 's'}"


def seat_name(s: int) -> str:
    return f"P{int(s) + 1}"


def adjusted(p: float, holm: float, family: int, what: str) -> str:
    """A p-value as the summary states it: for one of a family of tests, the plain value and
    the Holm-adjusted one (which the verdict uses), each labelled; for a single test, the
    plain one."""
    if family > 1:              # ``what``: the family's plural noun
        return f"{p_text(p)} unadjusted, {pval(holm)} Holm-adjusted over {family} {what}"
    return f"{p_text(p)}, a single test, unadjusted"


# ---- HTML -------------------------------------------------------------------------------------

def esc(x: Any) -> str:
    """Text escaped for HTML (quotes too)."""
    return html.escape(str(x), quote=True)


def html_table(rows: Sequence[Sequence[Any]], header: Sequence[str], left: int = 1,
               classes: Sequence[str] | None = None) -> str:
    """A table of already formatted cells; the first ``left`` columns are left-aligned."""
    out = ['<div class="scroll"><table><thead><tr>']
    out += [f'<th class="l">{esc(h)}</th>' if i < left else f"<th>{esc(h)}</th>"
            for i, h in enumerate(header)]
    out.append("</tr></thead><tbody>")
    for r, row in enumerate(rows):
        cls = f' class="{classes[r]}"' if classes and classes[r] else ""
        out.append(f"<tr{cls}>")
        out += [f'<td class="l">{cell}</td>' if i < left else f"<td>{cell}</td>"
                for i, cell in enumerate(row)]
        out.append("</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


def spec_cell(spec: Any, colors: dict[str, str]) -> str:
    """A spec's name behind the swatch of its colour in the figures."""
    color = colors.get(str(spec), "#8c8c8c")
    return f'<span class="swatch" style="background:{color}"></span>{esc(spec)}'


def figure_html(name: str, png: bytes, fig: Any, narrow_png: bytes, narrow_fig: Any, alt: str) -> str:
    """A figure inline (``id`` fig-NAME), with its narrow layout for pages under
    :data:`NARROW_BELOW` px."""
    width = int(round(fig.get_size_inches()[0] * 100))
    height = int(round(fig.get_size_inches()[1] * 100))
    n_width = int(round(narrow_fig.get_size_inches()[0] * 100))
    n_height = int(round(narrow_fig.get_size_inches()[1] * 100))
    data = base64.b64encode(png).decode("ascii")
    narrow = base64.b64encode(narrow_png).decode("ascii")
    return (f'<figure id="fig-{esc(name)}"><picture><source media="(max-width: {NARROW_BELOW - 0.02:g}px)" '
            f'width="{n_width}" height="{n_height}" srcset="data:image/png;base64,{narrow}">'
            f'<img alt="{esc(alt)}" width="{width}" height="{height}" '
            f'src="data:image/png;base64,{data}"></picture></figure>')


def models_text(models: dict[str, str]) -> str:
    """The descriptions of the interval models used by a table, for its caption."""
    return "; ".join(esc(text) for text in models.values())
