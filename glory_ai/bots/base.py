"""What a bot is: the base class :class:`Bot` (``step(state) -> action``, deterministic under
its seed) and :class:`BotInfo`, a bot as the registry knows it."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..core.engine import State
from .params import Param

__all__ = ["Bot", "BotInfo"]


class Bot:
    """A player: ``step(state)`` returns the action for the player to move."""

    #: what the last search found, or None (last_search()); set once the bot has moved
    _last: dict[str, Any] | None
    #: the sha256 of the evaluation model file of an ``eval=PATH`` bot (None without one)
    model_hash: str | None = None

    def __init__(self, spec: str, params: dict[str, Any], seed: int) -> None:
        self.spec = spec
        self.params = params
        self.seed = seed

    def step(self, state: State) -> int:
        if not isinstance(state, State):
            raise TypeError(f"step() takes a glory_ai State, got {type(state).__name__}")
        if state.is_terminal():
            raise ValueError("the game is over: there is no move to make")
        legal = state.legal_actions()
        if not legal:
            raise RuntimeError("the game is not over but has no legal action: an engine bug "
                               f"(phase {state.phase()!r}, player {state.current_player()})")
        if len(legal) == 1:
            self._last = None
            return legal[0]
        return self._choose(state, state.current_player(), legal)

    def _choose(self, state: State, player: int, legal: list[int]) -> int:
        raise NotImplementedError

    def _decision_seed(self, state: State, player: int) -> int:
        # a function of the bot's seed and what its player knows now, so the choice never
        # depends on hidden cards, on earlier calls or on any global generator
        return (state.information_state_hash(player) ^ (self.seed * 0x9E3779B97F4A7C15)) & 0xFFFFFFFFFFFFFFFF

    def last_search(self) -> dict[str, Any] | None:
        """What the last search found (search bots): root statistics per action, iterations,
        seconds, nodes; None for other bots or a forced move."""
        return getattr(self, "_last", None)

    def __repr__(self) -> str:
        return f"<bot {self.spec} seed={self.seed}>"


@dataclass(frozen=True)
class BotInfo:
    """A bot as the registry knows it: name, description, parameters, the factory
    ``factory(spec, params, seed) -> Bot``, where it comes from (``origin``: ``built-in``,
    ``registered``, ``entry point of DIST VERSION``, ``file PATH``, ``module NAME``) and
    whether it plays behind the fair-play referee (users' bots; docs/extending.md)."""

    name: str
    description: str
    params: tuple[Param, ...]
    factory: Callable[..., Bot] = field(repr=False)
    origin: str = "built-in"
    fair_play: bool = True

    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self.params}
