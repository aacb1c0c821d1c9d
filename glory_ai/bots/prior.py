"""The learned prior over actions of the search (``prior=``; docs/bots.md, "A learned prior").

A prior is a linear model in the evaluation's file format (:mod:`glory_ai.bots.models`,
output ``value``): its output on the features of an action's afterstate, seen from the
player who moves, is the action's logit, and the prior is the softmax of the logits over
the legal actions. One model per player count: ``prior=learned`` reads the models shipped
with glory_ai (``glory_ai/data/models/prior-2.npz`` to ``prior-5.npz``), ``prior=DIR`` the
files ``prior-2.npz`` to ``prior-5.npz`` of a folder (those it has; a game of another
player count is refused), ``prior=FILE.npz`` one model for
every player count. ``prior=off`` (the default) searches without one.

Light: no engine is imported until a model is read.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .models import EvalModel

__all__ = ["PRIOR_COUNTS", "PRIOR_LEARNED", "PRIOR_OFF", "load_prior", "prior_paths"]

PRIOR_OFF = "off"
PRIOR_LEARNED = "learned"
#: the player counts a prior has a model for
PRIOR_COUNTS = (2, 3, 4, 5)


def prior_paths(value: str) -> dict[int, Path] | None:
    """The model file of each player count a ``prior=`` value names (None: off)."""
    if value == PRIOR_OFF:
        return None
    if value == PRIOR_LEARNED:
        folder = Path(__file__).resolve().parent.parent / "data" / "models"
    else:
        folder = Path(value)
        if not folder.is_dir():
            return {n: folder for n in PRIOR_COUNTS}
    paths = {n: folder / f"prior-{n}.npz" for n in PRIOR_COUNTS}
    if value != PRIOR_LEARNED:
        # a folder of some player counts (learn-prior of 2 and 3 players): those; a game of
        # another count is refused by the search, naming the counts there are
        present = {n: path for n, path in paths.items() if path.exists()}
        if present:
            return present
    return paths


def load_prior(value: str) -> dict[int, EvalModel] | None:
    """The prior's model by player count (None for ``off``): ModelError (a ValueError) for
    a file that cannot be read or is not a linear model of output ``value``."""
    from .models import ModelError, load_model

    paths = prior_paths(value)
    if paths is None:
        return None
    out = {}
    for n, path in paths.items():
        model = load_model(path)
        if model.kind != "linear" or model.output != "value":
            raise ModelError(f"prior {os.fspath(path)!r}: a prior is a linear model of output 'value', "
                             f"not {model.kind} of output {model.output!r}")
        out[n] = model
    return out
