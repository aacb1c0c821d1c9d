"""What the report's sections share: the :class:`Report` they fill, the :class:`Section`
interface each statistic implements, the :class:`Page` they write into, the experiment's
:class:`Grid` and the topics of the findings."""
from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

import pandas as pd

from ..stream import RunStream
from .formats import figure_html

__all__ = ["ALPHA", "TOPICS", "FigureMaker", "Grid", "Page", "Report", "Section", "question_topics"]

#: significance level of the statements in the summary
ALPHA = 0.05

#: the topics of the findings, and the words by which a question asks about each
TOPICS = {
    "variants": r"\bmodes?\b|\bvariants?\b|\brules?\b|\brepublic\b|\bimperium\b",
    "seats": r"\bseats?\b",
    "buildings": r"\bbuildings?\b",
    "endings": r"\bend(s|ings?)?\b|\blength\b|\blong\b|\bturns\b",
    "scoring": r"\bscor(e|es|ing)\b|\bvp\b|\bpoints\b",
    "strategies": r"\brank|\bbeats?\b|\bstrong|\bstrength|\bwins?\b|\bstrateg|\bbots?\b|\bbetter\b",
}


def question_topics(question: str) -> list[str]:
    """The topics of :data:`TOPICS` a question asks about, in the order it names them.

    >>> question_topics("How do the two modes differ: game length, and which strategies win?")
    ['variants', 'endings', 'strategies']
    >>> question_topics("Is any seat favoured, at 2, 3, 4 and 5 players?")
    ['seats']
    """
    found = []
    for topic, pattern in TOPICS.items():
        hit = re.search(pattern, question, flags=re.IGNORECASE)
        if hit:
            found.append((hit.start(), topic))
    return [topic for _, topic in sorted(found)]


@dataclass(frozen=True)
class Grid:
    """A matchup of an experiment that varies one number of one spec against the same
    opponents: ``parameter`` (``iters``), the spec ``template`` (``ismcts:iters={iters}``),
    the ``opponents`` and the ``points``: (value, run label, spec at that value) per grid
    point. Its curve is the answer to the experiment's question."""

    name: str
    parameter: str
    template: str
    opponents: tuple[str, ...]
    points: tuple[tuple[float, str, str], ...]


@dataclass
class Report:
    """Everything the page shows: the frame, its tables, figures (wide, and the narrow
    layout of each) and summary sentences. ``compared``: the player counts with a game
    seating two different specs (the others are self-play, where every spec wins its equal
    share by construction: no strategy section). With a ``question``, ``answer`` holds the
    sentences that answer it (also first in ``sentences``).

    ``sections``: each section of the page that has something to show, with its result
    (:meth:`Section.compute`); ``tables`` and ``notes`` gather the tables and notes the
    sections publish, by name (``win_rates``, ``ratings_2``, ``seat``, ``summary``, ...);
    ``facts``: the counts the summary starts with."""

    frame: pd.DataFrame
    runs: list[dict[str, Any]]
    counts: list[int]
    colors: dict[str, str]
    compared: list[int] = field(default_factory=list)
    tables: dict[str, Any] = field(default_factory=dict)
    figures: dict[str, Any] = field(default_factory=dict)      # name -> matplotlib Figure
    narrow: dict[str, Any] = field(default_factory=dict)       # name -> its narrow layout
    notes: dict[str, str] = field(default_factory=dict)
    sentences: list[str] = field(default_factory=list)
    question: str | None = None
    description: str | None = None
    grids: tuple[Grid, ...] = ()
    answer: list[str] = field(default_factory=list)
    topics: list[str] = field(default_factory=list)
    sections: list[tuple[Section[Any], Any]] = field(default_factory=list)
    facts: dict[str, int] = field(default_factory=dict)


#: draws a figure: its narrow layout when given True
FigureMaker = Callable[[bool], Any]


class Page:
    """The HTML page being written, part by part (the parts are joined by newlines);
    ``pngs``: each figure drawn, as PNG in its wide and narrow layout."""

    def __init__(self, report: Report, pngs: dict[str, tuple[bytes, bytes]]) -> None:
        self.report = report
        self.pngs = pngs
        self.parts: list[str] = []

    def add(self, part: str) -> None:
        self.parts.append(part)

    def figure(self, name: str, alt: str) -> None:
        """The figure ``name`` inline, if it was drawn."""
        if name in self.pngs:
            wide, narrow = self.pngs[name]
            self.add(figure_html(name, wide, self.report.figures[name], narrow,
                                 self.report.narrow[name], alt))


R = TypeVar("R")


class Section(ABC, Generic[R]):
    """One statistic of the report: what it reads, how it computes its result, what it says
    about it, and how it shows it. The report is the list
    :data:`~glory_ai.analysis.report.sections.SECTIONS`, which the builder loops over: a
    section's :meth:`compute` makes its result from the frame (only the :attr:`columns` it
    declares), then every other method works from that result and the report's context
    (player counts, colours, grids, runs), never from the frame.

    ``name``: the anchor of its part of the page and its key in the report; ``title``: its
    entry in the page's navigation; ``topic``: the key of :data:`TOPICS` its sentences
    belong to (a question that names it gets them first); ``answers``: its sentences lead
    the findings and answer any question, its HTML sits in the Answer block (an
    experiment's grid); ``columns``: the frame's columns it reads (a name ending in ``:``
    stands for every column of that prefix, ``completed:`` for the building indicators);
    ``optional_columns``: columns it reads where the frame has them (those of some rule
    variants only, such as a variant's building points); ``figure_files``: a pattern
    matching the names of the figures it draws (the writer removes stale ones of a folder)."""

    name: ClassVar[str]
    title: ClassVar[str] = ""
    topic: ClassVar[str | None] = None
    answers: ClassVar[bool] = False
    columns: ClassVar[tuple[str, ...]] = ()
    optional_columns: ClassVar[tuple[str, ...]] = ()
    figure_files: ClassVar[str] = ""
    #: the section has :meth:`compute_stream`: its result from sums read a row group at a
    #: time, never a frame of every seat-game
    streams: ClassVar[bool] = False

    def compute_stream(self, stream: RunStream, report: Report) -> R | None:
        """:meth:`compute` from the runs read a row group at a time (sections that
        :attr:`streams`): the same result."""
        raise NotImplementedError

    def applies(self, report: Report) -> bool:
        """Whether the section has anything to compute for this report (if not, its columns
        are not even read)."""
        return True

    @abstractmethod
    def compute(self, frame: pd.DataFrame, report: Report) -> R | None:
        """The section's result from the frame (its :attr:`columns` only); None leaves the
        section out of the page."""

    def tables(self, result: R) -> dict[str, Any]:
        """The tables it publishes in :attr:`Report.tables`, by name."""
        return {}

    def notes(self, result: R) -> dict[str, str]:
        """The notes it publishes in :attr:`Report.notes` (why a table is missing or
        narrowed)."""
        return {}

    def findings(self, report: Report, result: R) -> list[str]:
        """Its summary sentences, each backed by its numbers."""
        return []

    def figures(self, report: Report, result: R) -> dict[str, FigureMaker]:
        """Its figures by name, each a function of the layout (narrow or not)."""
        return {}

    def nav(self, report: Report, result: R) -> list[tuple[str, str]]:
        """Its entries in the navigation: (anchor, label)."""
        return [(self.name, self.title)]

    @abstractmethod
    def html(self, page: Page, report: Report, result: R) -> None:
        """Write its part of the page."""
