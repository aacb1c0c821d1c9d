"""The card table and the card facts of docs/rules.md §2, written out for the tests.

The table is copied from glory_ai/data/cards.csv (name -> material, copies, mode) rather
than read from the engine, so that a test can check a hand-written position for impossible
card counts *before* it reaches the engine: a failure of that check is a bug in the test,
not in the engine.
"""

from __future__ import annotations

import collections
import random

# name: (material, copies, mode) -- mode B = both, R = Republic only, I = Imperium only
CARDS = {
    "Academy": ("Brick", 3, "B"),
    "Amphitheatre": ("Concrete", 3, "B"),
    "Aqueduct": ("Concrete", 3, "B"),
    "Archway": ("Brick", 3, "B"),
    "Atrium": ("Brick", 3, "B"),
    "Bar": ("Rubble", 6, "B"),
    "Basilica": ("Marble", 3, "B"),
    "Bath": ("Brick", 3, "B"),
    "Bridge": ("Concrete", 3, "B"),
    "Catacomb": ("Stone", 3, "B"),
    "Circus": ("Wood", 6, "I"),
    "Circus Maximus": ("Stone", 3, "B"),
    "Colosseum": ("Stone", 3, "I"),
    "Crane": ("Wood", 6, "R"),
    "Dock": ("Wood", 6, "B"),
    "Domus Aurea": ("Stone", 3, "R"),
    "Forum": ("Marble", 3, "I"),
    "Forum Romanum": ("Marble", 3, "R"),
    "Foundry": ("Brick", 3, "B"),
    "Fountain": ("Marble", 3, "B"),
    "Garden": ("Stone", 3, "B"),
    "Gate": ("Brick", 3, "B"),
    "Insula": ("Rubble", 6, "B"),
    "Latrine": ("Rubble", 6, "B"),
    "Ludus Magnus": ("Marble", 3, "B"),
    "Market": ("Wood", 6, "B"),
    "Palace": ("Marble", 3, "B"),
    "Palisade": ("Wood", 6, "B"),
    "Prison": ("Stone", 3, "B"),
    "Road": ("Rubble", 6, "B"),
    "School": ("Brick", 3, "B"),
    "Scriptorium": ("Stone", 3, "B"),
    "Senate": ("Concrete", 3, "I"),
    "Sewer": ("Stone", 3, "B"),
    "Shrine": ("Brick", 3, "B"),
    "Stairway": ("Marble", 3, "B"),
    "Statue": ("Marble", 3, "B"),
    "Storeroom": ("Concrete", 3, "B"),
    "Temple": ("Marble", 3, "B"),
    "Tower": ("Concrete", 3, "B"),
    "Tribunal": ("Concrete", 3, "R"),
    "Villa": ("Stone", 3, "B"),
    "Vomitorium": ("Concrete", 3, "B"),
    "Wall": ("Concrete", 3, "B"),
}

#: material -> value (§2.1); the key order is the engine's index order of materials
VALUE = {"Rubble": 1, "Wood": 1, "Concrete": 2, "Brick": 2, "Stone": 3, "Marble": 3}
MATERIALS = tuple(VALUE)
#: material -> the role its cards lead (§2.1)
ROLE_OF_MATERIAL = {
    "Rubble": "Laborer",
    "Wood": "Craftsman",
    "Concrete": "Architect",
    "Brick": "Legionary",
    "Stone": "Merchant",
    "Marble": "Patron",
}
ROLES = ("Patron", "Laborer", "Architect", "Craftsman", "Legionary", "Merchant")
MATERIAL_OF = {name: material for name, (material, _, _) in CARDS.items()}
COPIES = {name: copies for name, (_, copies, _) in CARDS.items()}
#: the buildings each mode removes from the deck (R-3.2)
EXCLUSIVE = {"republic": ("Circus", "Senate", "Colosseum", "Forum"),
             "imperium": ("Crane", "Tribunal", "Domus Aurea", "Forum Romanum")}


def material(card: str) -> str:
    return MATERIAL_OF[card]


def role(card: str) -> str:
    return ROLE_OF_MATERIAL[MATERIAL_OF[card]]


def value(card: str) -> int:
    return VALUE[MATERIAL_OF[card]]


def mode_cards(mode: str = "republic") -> collections.Counter[str]:
    """The 144 Order cards of a mode (R-3.2) as a Counter name -> copies."""
    excluded = "I" if mode == "republic" else "R"
    return collections.Counter(
        {name: copies for name, (_m, copies, tag) in CARDS.items() if tag != excluded}
    )


def shuffled_mode_cards(mode: str, rng: random.Random) -> list[str]:
    """Every Order card of the mode's deck (R-3.2), shuffled by `rng`."""
    cards = []
    for name, copies in COPIES.items():
        if name not in EXCLUSIVE[mode]:
            cards += [name] * copies
    rng.shuffle(cards)
    return cards
