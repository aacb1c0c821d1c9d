"""The errors of applying an action (docs/notation.md, "Errors").

Both are ``ValueError`` subclasses, so ``except ValueError`` catches them as before:

* :class:`IllegalActionError`: a well-formed action that is not legal in the state: an id
  of the action space or a string of the grammar that is not among the legal actions, or
  any action once the game is over;
* :class:`ActionParseError`: a string that is no action string at all (not in the grammar of
  docs/notation.md, for example a misspelt card name).

An integer outside the action space is a plain ``ValueError`` and a non-integer a
``TypeError``, as for every method argument.
"""
from __future__ import annotations


class IllegalActionError(ValueError):
    """A well-formed action that is not legal in this state (or any action after the end)."""


class ActionParseError(ValueError):
    """A string that is not an action string of the grammar (docs/notation.md, "Grammar")."""


__all__ = ["IllegalActionError", "ActionParseError"]
