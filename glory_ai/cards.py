"""Card, material and role names (docs/rules.md §1-§2, cards.csv).

Card type 0 is the Jack; 1..44 are the Order types in alphabetical order, the same ids as
the C core (glory_ai/core/include/cards.h, generated from glory_ai/data/cards.csv).
"""
from __future__ import annotations

from .core.engine import _card_tables

CARD_NAMES, CARD_MATERIAL, CARD_COPIES, CARD_MODE = _card_tables()
MATERIALS = ("Rubble", "Wood", "Concrete", "Brick", "Stone", "Marble")
ROLES = ("Laborer", "Craftsman", "Architect", "Legionary", "Merchant", "Patron")
MATERIAL_VALUE = (1, 1, 2, 2, 3, 3)
JACK = 0

_BY_NAME = {name.lower(): i for i, name in enumerate(CARD_NAMES)}
_MATERIAL_BY_NAME = {name.lower(): i for i, name in enumerate(MATERIALS)}


def card_id(name, field: str = "card") -> int:
    """The card type of a name ("Jack" included); ValueError naming the field if unknown."""
    if not isinstance(name, str):
        raise ValueError(f"{field}: card names are strings, got {name!r:.80}")
    try:
        return _BY_NAME[name.strip().lower()]
    except KeyError:
        raise ValueError(f"{field}: unknown card name {name!r:.80}") from None


def material_id(name, field: str = "material") -> int:
    if not isinstance(name, str) or name.strip().lower() not in _MATERIAL_BY_NAME:
        raise ValueError(f"{field}: unknown material {name!r:.80}; expected one of {list(MATERIALS)}")
    return _MATERIAL_BY_NAME[name.strip().lower()]
