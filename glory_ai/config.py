"""Rule variants: one validated config object per game (docs/rules.md §3, §15, §16 A1).

GameConfig lives in the core (glory_ai.core.config), which validates the variants of a
position it reads; this module is its place in the package's Python face.
"""
from __future__ import annotations

from .core.config import MODES, VARIANT_KEYS, GameConfig

__all__ = ["GameConfig", "MODES", "VARIANT_KEYS"]
