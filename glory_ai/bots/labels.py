"""The label each spec is shown by in tables and reports, from what the runs recorded.

A label is the spec without the parameters that change nothing among the specs shown: those
at their default in every spec of that bot. The parameters as played are what the runs'
``code.json`` records (``parameters``: every built-in spec's resolved parameters, docs of
:mod:`glory_ai.arena.code`), so that labelling imports no bot and runs no user's code; the
built-ins' declared parameters (:mod:`glory_ai.bots.builtin_params`) are only the fallback,
for a spec no run recorded.

>>> recorded = {"ismcts:iters=250": {"iters": 250, "c": 0.7},
...             "ismcts:iters=500,c=0.7": {"iters": 500, "c": 0.7}}
>>> spec_labels(recorded, recorded)
{'ismcts:iters=250': 'ismcts:iters=250', 'ismcts:iters=500,c=0.7': 'ismcts:iters=500'}
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .builtin_params import BUILTIN_PARAMS
from .errors import SpecError
from .grammar import join_spec, split_spec
from .params import Param, spell_value
from .spec import BotSpec

__all__ = ["spec_labels"]

_UNSET = object()


def _as_read(declared: Mapping[str, Param], key: str, value: Any, spec: str) -> Any:
    # a recorded value as today's parser reads it (an old spelling of the same value is no change)
    try:
        return declared[key].parse(spell_value(value), spec) if key in declared else value
    except SpecError:
        return value


def _played(spec: str, bot: str, recorded: Mapping[str, Mapping[str, Any]]) -> dict[str, Any] | None:
    """The parameters ``spec`` was played with: recorded, else as the built-in resolves it
    now; None for a spec this code cannot read."""
    declared = {p.name: p for p in BUILTIN_PARAMS[bot]}
    params = recorded.get(spec)
    if not isinstance(params, Mapping):
        try:
            params = BotSpec.parse(spec).params
        except SpecError:
            return None
    return {key: _as_read(declared, key, value, spec) for key, value in params.items()}


def _defaults(bot: str, members: list[tuple[set[str], dict[str, Any]]]) -> dict[str, Any]:
    """Each parameter's default among the specs of ``bot``: the value played by the specs
    that leave it out, when they agree, else the declared default."""
    out = {p.name: p.default for p in BUILTIN_PARAMS[bot]}
    for key in {key for _, params in members for key in params}:
        seen = [params[key] for given, params in members if key not in given and key in params]
        if seen and all(value == seen[0] for value in seen):
            out[key] = seen[0]
    return out


def spec_labels(specs: Iterable[str], recorded: Mapping[str, Mapping[str, Any]] | None = None
                ) -> dict[str, str]:
    """The label of each spec: the spec without the parameters at their default in every
    spec of that bot here (a parameter that sets one spec apart is kept in all of them that
    give it), in canonical form. ``recorded``: the parameters the specs were played with, by
    spec (the ``parameters`` of the runs' ``code.json``, glory_ai.arena.code.recorded_parameters);
    a spec missing there is resolved as a built-in is today. A parameter's default is the
    value played by the specs of the bot that leave it out, when they agree, else the
    built-in's declared default. A user's bot, a spec this code cannot read and specs that
    would share a label keep their text.

    >>> spec_labels(["ismcts:iters=250", "ismcts:iters=500,c=9.5", "pimc:iters=500", "greedy"])
    {'ismcts:iters=250': 'ismcts:iters=250', 'ismcts:iters=500,c=9.5': 'ismcts:iters=500,c=9.5', \
'pimc:iters=500': 'pimc:iters=500', 'greedy': 'greedy'}
    """
    recorded = recorded or {}
    specs = list(dict.fromkeys(str(s) for s in specs))
    read: dict[str, tuple[str, tuple[tuple[str, str], ...], dict[str, Any]]] = {}
    for spec in specs:
        try:
            parts = split_spec(spec, BUILTIN_PARAMS.__contains__)
            given = parts.given
        except SpecError:
            continue
        if parts.kind != "name" or parts.bot not in BUILTIN_PARAMS or not given:
            continue                    # a user's bot, or no parameters to leave out
        played = _played(spec, parts.bot, recorded)
        if played is not None:
            read[spec] = (parts.bot, given, played)
    groups: dict[str, list[tuple[set[str], dict[str, Any]]]] = {}
    for bot, given, played in read.values():
        groups.setdefault(bot, []).append(({key for key, _ in given}, played))
    # the parameters that set some spec of a bot apart from the bot's defaults
    shown: dict[str, set[str]] = {}
    for bot, members in groups.items():
        default = _defaults(bot, members)
        shown[bot] = {key for _, played in members for key, value in played.items()
                      if default.get(key, _UNSET) != value}
    labels = {}
    for spec in specs:
        if spec in read:
            bot, given, _ = read[spec]
            flags = {p.name for p in BUILTIN_PARAMS[bot] if p.kind is bool}
            labels[spec] = join_spec(bot, ((k, v.lower() if k in flags else v) for k, v in given
                                           if k in shown[bot]))
        else:
            labels[spec] = spec
    taken: dict[str, int] = {}
    for label in labels.values():
        taken[label] = taken.get(label, 0) + 1
    return {spec: label if taken[label] == 1 else spec for spec, label in labels.items()}
