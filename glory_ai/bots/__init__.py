"""Bots: random, greedy, heuristic styles, flat Monte Carlo, PIMC and ISMCTS, and users' own.

Build one from a spec string ``name:key=value,...`` and ask it for moves:

>>> import glory_ai
>>> from glory_ai.bots import make_bot
>>> bot = make_bot("ismcts:iters=200", seed=1)
>>> state = glory_ai.Game(2).new_initial_state(seed=3)
>>> action = bot.step(state)
>>> action in state.legal_actions()
True
>>> bot.last_search()["iterations"]
200

Every bot is deterministic under its seed: its choice is a function of its spec, its seed
and what its player knows (it never reads a card its player cannot see: search bots deal
the unknown cards themselves, from their own generator). ``registry()`` lists the bots,
their parameters and defaults (also ``glory-ai bots``).

A user's bot is any object with ``step(state) -> action`` made by a factory called as
``factory(seed=SEED, **params)``: bring it with :func:`register`, an entry point in the group
``glory_ai.bots``, or a spec naming it (``./my_bot.py:Cautious:risk=0.3``,
``mypkg.bots:Cautious``). It plays behind a referee that hands it its player's fair view of
the state and checks its answers (:mod:`glory_ai.bots.plugins`, docs/extending.md).

The package is made of: the base class (:mod:`~glory_ai.bots.base`), the built-in bots
(:mod:`~glory_ai.bots.builtin`) and their parameters, each declared once
(:mod:`~glory_ai.bots.builtin_params`), the registry and :func:`make_bot`
(:mod:`~glory_ai.bots.bot_registry`), the parameter type (:mod:`~glory_ai.bots.params`), the
spec grammar (:mod:`~glory_ai.bots.grammar`), a spec parsed once
(:class:`~glory_ai.bots.spec.BotSpec`) and the labels of specs from what runs recorded
(:mod:`~glory_ai.bots.labels`). Its names are imported when first asked for: splitting or
labelling a spec imports no bot.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .base import Bot, BotInfo
    from .bot_registry import make_bot, registry
    from .builtin import PolicyBot, RandomBot, SearchBot
    from .builtin_params import EVAL_LEARNED, EVAL_STYLE, SEARCH_PARAMS, TIME_DEFAULTS, model_path
    from .errors import BotError, SpecError
    from .labels import spec_labels
    from .params import Param, spell_value
    from .plugins import ENTRY_POINT_GROUP, UserBot, register, unregister
    from .spec import BotSpec, builtin_name, canonical_spec, model_identities, parse_spec, spec_as_played

__all__ = ["Bot", "BotError", "BotInfo", "BotSpec", "ENTRY_POINT_GROUP", "EVAL_LEARNED", "EVAL_STYLE",
           "Param", "PolicyBot", "RandomBot", "SEARCH_PARAMS", "SearchBot", "SpecError", "TIME_DEFAULTS",
           "UserBot", "builtin_name", "canonical_spec", "make_bot", "model_identities", "model_path",
           "parse_spec", "register", "registry", "spec_as_played", "spec_labels", "spell_value",
           "unregister"]

#: the module of each name of this package, imported when the name is first used: a spec
#: is split or labelled without any bot, a run of built-in bots never loads the plugins
_HOMES = {
    "Bot": "base", "BotInfo": "base",
    "make_bot": "bot_registry", "registry": "bot_registry",
    "PolicyBot": "builtin", "RandomBot": "builtin", "SearchBot": "builtin",
    "EVAL_LEARNED": "builtin_params", "EVAL_STYLE": "builtin_params", "SEARCH_PARAMS": "builtin_params",
    "TIME_DEFAULTS": "builtin_params", "model_path": "builtin_params",
    "BotError": "errors", "SpecError": "errors",
    "spec_labels": "labels",
    "Param": "params", "spell_value": "params",
    "ENTRY_POINT_GROUP": "plugins", "UserBot": "plugins", "register": "plugins", "unregister": "plugins",
    "BotSpec": "spec", "builtin_name": "spec", "canonical_spec": "spec", "model_identities": "spec",
    "parse_spec": "spec", "spec_as_played": "spec",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})
