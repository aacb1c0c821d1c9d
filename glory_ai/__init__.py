"""glory_ai: an AI research toolkit for Glory to Rome (Black Box edition)."""
from .cards import CARD_NAMES, MATERIALS, ROLES
from .config import GameConfig
from .game import NUM_DISTINCT_ACTIONS, TERMINAL, Game, State

__version__ = "0.1.0"


def build_info() -> dict:
    """How the compiled core was built: a hash of the sources compiled into the extensions
    (engine and search) and the build flags, written by setup.py at build time. Records made
    by builds with different hashes need not be identical (a rules or bot change)."""
    try:
        from ._build_info import BUILD
    except ImportError:                                  # built without setup.py's hook
        return {"source_hash": None, "debug": None, "sanitize": None}
    return dict(BUILD)


__all__ = ["Game", "GameConfig", "State", "TERMINAL", "NUM_DISTINCT_ACTIONS",
           "CARD_NAMES", "MATERIALS", "ROLES", "__version__", "build_info"]
