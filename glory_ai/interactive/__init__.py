"""Playing, watching, replaying and asking the bots: the person-facing side of glory_ai.

* :mod:`.view`: the table as one player sees it (built from ``state.observation(p)``
  and public facts only), as a JSON-safe dict that the terminal screen and the HTML viewer
  both draw;
* :mod:`.narrate`: what just happened, in plain words, never naming a card the viewer
  could not see;
* :mod:`.screen`: the terminal screen (rich; plain text when the output is not a terminal);
* :mod:`.session`: ``glory-ai play``, a person against bots, with hint, undo, concede,
  save and resume;
* :mod:`.records`: game records (the arena's format) of played games, building and
  checking them; :mod:`.files`: reading games back from run folders, records and notation;
* :mod:`.notation`: the readable game notation (one line per decision) and its parser;
* :mod:`.advice`: a search bot's view of a decision (``hint``, ``glory-ai analyze``);
* :mod:`.replayer`, :mod:`.watch`, :mod:`.html`: stepping through a recorded game, bots
  playing on screen, the browser game viewer;
* :mod:`.commands`: the ``play``, ``watch``, ``replay`` and ``analyze`` subcommands.

docs/play.md describes the commands and the notation.
"""
from __future__ import annotations

from .notation import format_notation, parse_notation
from .view import table_view

__all__ = ["format_notation", "parse_notation", "table_view"]
