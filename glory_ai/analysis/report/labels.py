"""How the report names a spec: without the parameters left at the bot's defaults, read from
what the runs' ``code.json`` recorded (:func:`glory_ai.bots.labels.spec_labels`), so that
labelling a column imports no bot and runs no user's code."""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["spec_labels"]


def spec_labels(specs: Iterable[str],
                recorded: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, str]:
    """The label each spec is shown by: the spec without the parameters that are at the
    bot's default in every spec of that bot here (a parameter that sets one spec apart is
    kept in all of them). ``recorded``: the parameters each spec was played with (the runs'
    ``code.json``); a spec no run recorded is read as the built-in resolves it today. A
    user's bot keeps its text, and so do specs that would share a label.

    >>> from glory_ai.bots import registry
    >>> at_default = f"ismcts:iters=500,c={registry()['ismcts'].defaults()['c']}"
    >>> spec_labels(["ismcts:iters=250", at_default, "greedy"])[at_default]
    'ismcts:iters=500'
    >>> list(spec_labels(["ismcts:iters=250", "ismcts:iters=500,c=9.5", "pimc:iters=500"]).values())
    ['ismcts:iters=250', 'ismcts:iters=500,c=9.5', 'pimc:iters=500']
    """
    from ...bots.labels import spec_labels as labels_of

    return labels_of(list(dict.fromkeys(str(s) for s in specs)), recorded or {})
