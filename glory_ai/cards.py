"""Card, material and role names and ids (docs/notation.md, "Cards, materials, roles").

They live in the core (glory_ai.core.cards), which needs them to read positions; this
module is their place in the package's Python face.
"""
from __future__ import annotations

from .core.cards import (
    CARD_COPIES,
    CARD_MATERIAL,
    CARD_MODE,
    CARD_NAMES,
    JACK,
    MATERIAL_VALUE,
    MATERIALS,
    ROLES,
    card_id,
    material_id,
)

__all__ = ["CARD_NAMES", "CARD_MATERIAL", "CARD_COPIES", "CARD_MODE", "MATERIALS", "ROLES",
           "JACK", "MATERIAL_VALUE", "card_id", "material_id"]
