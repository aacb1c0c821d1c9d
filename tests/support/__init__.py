"""Helpers shared by the tests (importable as ``support.*``: pytest puts ``tests/`` on the
path, see ``[tool.pytest.ini_options] pythonpath`` in pyproject.toml).

* :mod:`support.cards` -- the card table, copied from glory_ai/data/cards.csv, and the
  card facts of docs/rules.md §2 (materials, roles, values, the two modes' decks).
* :mod:`support.positions` -- hand-written positions (docs/notation.md, "Positions"),
  checked for impossible card counts before they reach the engine, and helpers that play
  action strings and read zones back.
* :mod:`support.reference` -- reference rules written from docs/rules.md (activity, limits,
  the Forum condition, ...), for the tests that compare the engine with them.
* :mod:`support.random_play` -- seeded random play (by action id, and by action string
  with a bias towards building) and the seeded start positions of the references.

cards, positions and reference never import the engine's internals: the scenario and
reference tests built on them only use the public API (``State.from_dict``, action strings,
``to_dict``), so they stay independent of the engine's code.
"""
