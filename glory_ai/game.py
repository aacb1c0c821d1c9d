"""The Python face of the engine: Game (rules and variants) and State (one position).

>>> import glory_ai
>>> game = glory_ai.Game(num_players=2)
>>> state = game.new_initial_state(seed=7)
>>> state.current_player() in (0, 1)
True
>>> a = state.legal_actions()[0]
>>> state.string_to_action(state.action_to_string(a)) == a
True
"""
from __future__ import annotations

from .config import GameConfig
from .core.engine import NUM_ACTIONS, TERMINAL, State

NUM_DISTINCT_ACTIONS = NUM_ACTIONS


class Game:
    """A Glory to Rome game definition: player count, mode and rule variants.

    ``Game(num_players, mode="republic", **variant)`` with variant options
    ``petition_size``, ``refill_size``, ``in_town_sites``, ``copies``, ``removed``
    (see GameConfig).
    """

    def __init__(self, num_players: int = 2, mode: str = "republic", **variant) -> None:
        self.config = GameConfig.from_options(num_players, mode, **variant)

    @property
    def num_players(self) -> int:
        return self.config.num_players

    @property
    def mode(self) -> str:
        return self.config.mode

    def num_distinct_actions(self) -> int:
        return NUM_DISTINCT_ACTIONS

    def new_initial_state(self, seed: int = 0) -> State:
        """A freshly dealt game (R-4); the deal is a pure function of the seed."""
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"seed must be an integer, got {seed!r}")
        return State._new_game(self.config, seed)

    def __repr__(self) -> str:
        return f"Game(num_players={self.num_players}, mode={self.mode!r}, **{self.config.variant()})"


__all__ = ["Game", "GameConfig", "State", "TERMINAL", "NUM_DISTINCT_ACTIONS"]
