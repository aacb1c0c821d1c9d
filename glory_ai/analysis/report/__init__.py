"""The report: one self-contained HTML page (tables, figures inline as PNG, a plain-language
summary generated from the numbers, the run manifest) and ``summary.csv``.

:func:`write_report` writes ``report.html``, ``summary.csv`` (the win-rate table: one row
per player count and spec, with the rating of the spec when it has one) and the figures as
PNG and SVG under ``figures/``; :func:`findings` gives the summary sentences alone. The same
runs give the same files, byte for byte (no dates in them).

Given the ``question`` of an experiment, the report states it and answers it first: the
findings on what the question asks about (strategies, seats, buildings, scoring, endings,
rule variants: the topics it names, in its order), and for each :class:`Grid` (a spec's
number varied against the same opponents) the curve of its score, the Elo per doubling
and the last step. The page reads from phone width up: tables scroll inside their box,
every figure has a narrow layout shown below 640 px, the navigation wraps.

The package:

=============================  ================================================================
:mod:`.base`                   :class:`Report`, the :class:`Section` interface, the
                               :class:`Page` sections write into, :class:`Grid`, the topics
:mod:`.sections`               one module per statistic, and :data:`SECTIONS`: the report is
                               this list, in the order of the page
:mod:`.build`                  :func:`build_report` (every section's result from the columns
                               it declares, the sentences, the figures), :func:`findings`
:mod:`.page`                   the HTML page around the sections
:mod:`.write`                  :func:`write_report`: ``report.html``, ``summary.csv``, figures
:mod:`.formats`                the number and HTML formats every section uses
:mod:`.labels`                 :func:`spec_labels`
=============================  ================================================================

Adding a statistic is one module in :mod:`.sections` (a :class:`Section`: its columns,
``compute``, findings, figures, HTML) and one line in :data:`SECTIONS`.
"""
from __future__ import annotations

from .base import ALPHA, TOPICS, Grid, Page, Report, Section, question_topics
from .build import Runs, build_report, findings
from .formats import NARROW_BELOW
from .labels import spec_labels
from .sections import SECTIONS
from .sections.buildings import MIN_COMPLETED
from .sections.strategies import summary_table
from .write import FIGURES_DIR, REPORT_FILE, SUMMARY_FILE, write_report, write_report_full

__all__ = ["ALPHA", "FIGURES_DIR", "MIN_COMPLETED", "NARROW_BELOW", "REPORT_FILE", "SECTIONS",
           "SUMMARY_FILE", "TOPICS", "Grid", "Page", "Report", "Runs", "Section", "build_report",
           "findings", "question_topics", "spec_labels", "summary_table", "write_report",
           "write_report_full"]
