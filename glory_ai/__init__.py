"""glory_ai: an AI research toolkit for Glory to Rome (Black Box edition)."""
from .cards import CARD_NAMES, MATERIALS, ROLES
from .config import GameConfig
from .game import NUM_DISTINCT_ACTIONS, TERMINAL, Game, State

__version__ = "0.1.0"

__all__ = ["Game", "GameConfig", "State", "TERMINAL", "NUM_DISTINCT_ACTIONS",
           "CARD_NAMES", "MATERIALS", "ROLES", "__version__"]
