"""The sections of the report, in the order of the page: :data:`SECTIONS`.

Each is a :class:`~glory_ai.analysis.report.base.Section`: the frame's columns it reads,
``compute(frame, report)`` its result, then its findings, figures and HTML from that
result. Adding a statistic to the report is one module here (a ``Section`` subclass) and
one line in :data:`SECTIONS`; its tables appear in ``Report.tables``, its sentences in the
summary (first when an experiment's question names its ``topic``), its part of the page and
its navigation entry where it stands in the list."""
from __future__ import annotations

from typing import Any

from ..base import Section
from .buildings import Buildings
from .endings import Endings
from .grids import GridCurves
from .roles import RolesLed
from .scoring import Scoring
from .seats import Seats
from .strategies import Strategies
from .variants import Variants

__all__ = ["SECTIONS"]

SECTIONS: tuple[Section[Any], ...] = (
    GridCurves(),
    Strategies(),
    Seats(),
    Buildings(),
    Scoring(),
    Endings(),
    RolesLed(),
    Variants(),
)
