"""The registry of bots: the built-ins (name, description, parameters, factory), those users
bring (:mod:`glory_ai.bots.plugins`), and :func:`make_bot`, a bot from its spec."""
from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

from ..core.config import check_seed
from .base import Bot, BotInfo
from .builtin import PolicyBot, RandomBot, SearchBot
from .builtin_params import BUILTIN_PARAMS, EVAL_STYLE
from .spec import BotSpec, builtin_name, resolve_spec

__all__ = ["make_bot", "registry"]

_REGISTRY: dict[str, BotInfo] = {}


def _register(name: str, description: str, factory: Callable[[str, dict[str, Any], int], Bot]) -> None:
    _REGISTRY[name] = BotInfo(name, description, BUILTIN_PARAMS[name], factory)


def _random(spec: str, params: dict[str, Any], seed: int) -> Bot:
    return RandomBot(spec, params, seed)


def _greedy(spec: str, params: dict[str, Any], seed: int) -> Bot:
    return PolicyBot(spec, params, seed, "balanced", 0.0, EVAL_STYLE)


def _heuristic(spec: str, params: dict[str, Any], seed: int) -> Bot:
    return PolicyBot(spec, params, seed, params["style"], params["epsilon"], params["eval"])


def _flatmc(spec: str, params: dict[str, Any], seed: int) -> Bot:
    return SearchBot(spec, params, seed, "flatmc")


def _pimc(spec: str, params: dict[str, Any], seed: int) -> Bot:
    return SearchBot(spec, params, seed, "pimc")


def _ismcts(spec: str, params: dict[str, Any], seed: int) -> Bot:
    return SearchBot(spec, params, seed, "ismcts")


_register("random", "uniform over the legal actions", _random)
_register("greedy", "one-ply lookahead on the balanced evaluation (docs/bots.md)", _greedy)
_register("heuristic", "one-ply lookahead on a playing style's evaluation", _heuristic)
_register("flatmc", "flat Monte Carlo: each root action tried in turn on fresh determinizations", _flatmc)
_register("pimc", "Perfect-Information Monte Carlo: UCT on `worlds` determinizations, root statistics summed",
          _pimc)
_register("ismcts", "single-observer Information-Set MCTS (Cowling, Powley & Whitehouse 2012)", _ismcts)


def registry() -> dict[str, BotInfo]:
    """Every bot by name: description, parameters (type, default, range) and factory; the
    built-ins first, then those registered with :func:`register` and those of installed
    distributions' entry points (group ``glory_ai.bots``)."""
    from .plugins import user_registry

    return {**_REGISTRY, **user_registry()}


@functools.lru_cache(maxsize=256)
def _builtin_spec(spec: str) -> BotSpec:
    """A built-in bot's spec parsed (its text alone decides it): an arena parses the same few
    specs for every game, and parsing costs more than making a random bot."""
    return resolve_spec(spec)[0]


def make_bot(spec: str, seed: int = 0, *, shipped: Mapping[str, Any] | None = None) -> Bot:
    """A bot from its spec string (``ismcts:iters=2000,c=0.7``, ``./my_bot.py:Cautious``),
    seeded. A user's bot comes behind its referee (:class:`UserBot`). ``shipped``: the user
    bots a run shipped to its workers (glory_ai.bots.plugins.ship), found before any other."""
    seed = check_seed(seed)
    if isinstance(spec, str) and builtin_name(spec) is not None:
        parsed = _builtin_spec(spec)
        return _REGISTRY[parsed.name].factory(parsed.text, parsed.params, seed)
    parsed, user = resolve_spec(spec, shipped)
    factory = _REGISTRY[parsed.name].factory if user is None else user.factory
    return factory(parsed.text, parsed.params, seed)
