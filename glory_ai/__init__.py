"""glory_ai: an AI research toolkit for Glory to Rome (Black Box edition)."""
from typing import TYPE_CHECKING, Any

from .cards import CARD_NAMES, MATERIALS, ROLES
from .config import GameConfig
from .core.enums import EndReason, Phase
from .core.errors import ActionParseError, IllegalActionError
from .game import NUM_DISTINCT_ACTIONS, TERMINAL, Game, State
from .integrations import register_gymnasium_env

if TYPE_CHECKING:
    from .bots import make_bot

__version__ = "0.1.0"

# gymnasium.make("GloryToRome-v0") after `import glory_ai`, without importing Gymnasium here
# (docs/integrations.md)
register_gymnasium_env()


def __getattr__(name: str) -> Any:
    # glory_ai.make_bot is glory_ai.bots.make_bot, imported when first asked for: importing
    # the package stays as light as the engine
    if name == "make_bot":
        from .bots import make_bot

        return make_bot
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def build_info() -> dict[str, Any]:
    """How the compiled core was built: ``source_hash`` (sha256 of the Cython sources and
    headers compiled into the engine and the search, see ``glory_ai/_source_hash.py``),
    ``debug`` and ``sanitize`` (the build flags), written by setup.py at build time, and
    ``stale``: True when the sources beside an in-place build no longer match the compiled
    extensions (rebuild with ``pip install -e .``), None when no sources are present (an
    installed wheel). Records made by builds with different hashes need not be identical."""
    from pathlib import Path

    from ._source_hash import source_hash

    try:
        from ._build_info import BUILD
    except ImportError:                                  # built without setup.py's hook
        info: dict[str, Any] = {"source_hash": None, "debug": None, "sanitize": None}
    else:
        info = dict(BUILD)
    current = source_hash(Path(__file__).parent)
    info["stale"] = None if current is None or info["source_hash"] is None else current != info["source_hash"]
    return info


__all__ = ["Game", "GameConfig", "State", "TERMINAL", "NUM_DISTINCT_ACTIONS",
           "CARD_NAMES", "MATERIALS", "ROLES", "EndReason", "Phase", "IllegalActionError",
           "ActionParseError", "__version__", "build_info", "make_bot"]
