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

from .core.cards import CARD_NAMES, card_id
from .core.config import GameConfig, check_seed
from .core.engine import NUM_ACTIONS, TERMINAL, State

NUM_DISTINCT_ACTIONS = NUM_ACTIONS


class Game:
    """A Glory to Rome game definition: player count, mode and rule variants.

    ``Game(num_players, mode="republic", **variant)`` with variant options
    ``petition_size``, ``refill_size``, ``in_town_sites``, ``copies``, ``removed`` and the
    designer knobs ``materials``, ``points``, ``powers_off`` (see GameConfig; docs/rules.md
    §15.1).
    """

    def __init__(self, num_players: int = 2, mode: str = "republic", **variant) -> None:
        self._config = GameConfig.from_options(num_players, mode, **variant)

    def config(self) -> GameConfig:
        """The validated rules of this game (player count, mode, variant options)."""
        return self._config

    def num_players(self) -> int:
        return self._config.num_players

    def mode(self) -> str:
        """'republic' or 'imperium'."""
        return self._config.mode

    def num_distinct_actions(self) -> int:
        """The size of the fixed action space (the same in every state)."""
        return NUM_DISTINCT_ACTIONS

    def __eq__(self, other) -> bool:
        return isinstance(other, Game) and other._config == self._config

    def __hash__(self) -> int:
        return hash(repr(self))

    def new_initial_state(self, seed: int = 0, deck: list[str] | None = None) -> State:
        """A freshly dealt game (R-4); the deal is a pure function of the seed.

        ``deck`` (card names, top first) fixes the top of the deck before dealing: hands are
        dealt player by player from the top, then the first-leader cards (R-4.5, R-4.6).
        Cards not listed lie below in an order shuffled from the seed.
        """
        seed = check_seed(seed)
        top = None
        if deck is not None:
            if isinstance(deck, str) or not hasattr(deck, "__iter__"):
                raise ValueError("deck: expected a list of card names, top first")
            copies = self._config.deck_copies()
            top = []
            for i, name in enumerate(deck):
                card = card_id(name, f"deck[{i}]")
                if card == 0:
                    raise ValueError(f"deck[{i}]: Jacks are not in the deck")
                top.append(card)
                if top.count(card) > copies[card]:
                    raise ValueError(f"deck: more {CARD_NAMES[card]} than the {self.mode()} deck "
                                     f"holds ({copies[card]})")
            if len(top) > sum(copies) - copies[0]:
                raise ValueError("deck: more cards than the deck holds")
        return State._new_game(self._config, seed, top)

    def __repr__(self) -> str:
        options = "".join(f", {k}={v!r}" for k, v in self._config.variant().items())
        return f"Game(num_players={self.num_players()}, mode={self.mode()!r}{options})"


__all__ = ["Game", "GameConfig", "State", "TERMINAL", "NUM_DISTINCT_ACTIONS"]
