"""Card, material and role names (docs/rules.md §1-§2, cards.csv).

Card type 0 is the Jack; 1..44 are the Order types in alphabetical order, the same ids as
the C core (csrc/cards.h, generated from glory_ai/data/cards.csv).
"""
from __future__ import annotations

from .engine import _MATERIALS, _ROLES, _card_tables, card_id, material_id

CARD_NAMES, CARD_MATERIAL, CARD_COPIES, CARD_MODE = _card_tables()
MATERIALS = _MATERIALS
ROLES = _ROLES[:6]               # the engine's seventh, Thinker, is only a granted think's role
JACK = 0
#: the value of a site and of a material, by material (R-2: Rubble and Wood 1, Brick and
#: Concrete 2, Marble and Stone 3), in the order of MATERIALS
MATERIAL_VALUE = (1, 1, 2, 2, 3, 3)

__all__ = ["CARD_NAMES", "CARD_MATERIAL", "CARD_COPIES", "CARD_MODE", "MATERIALS", "ROLES",
           "JACK", "MATERIAL_VALUE", "card_id", "material_id"]
