"""Rule variants: one validated config object per game (docs/rules.md §3, §15, §16 A1)."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypeGuard

from .cards import CARD_COPIES, CARD_MODE, CARD_NAMES, card_id

# the seed range lives in a module that imports nothing (the engine imports it too); these
# names are re-exported here, the home of the rule and game options
from .seeds import MAX_SEED as MAX_SEED
from .seeds import SEED_RANGE as SEED_RANGE
from .seeds import check_seed as check_seed
from .seeds import seed_error as seed_error

MODES = ("republic", "imperium")


def is_int(value: object) -> TypeGuard[int]:
    # bool is an int subclass, but True is never a count
    return isinstance(value, int) and not isinstance(value, bool)

def _check_count(name: str, value: object, low: int, high: int) -> None:
    """A count option: TypeError for a non-integer (as everywhere in the API: players,
    seeds, actions), ValueError for an integer out of range."""
    if not is_int(value):
        raise TypeError(f"{name} must be an integer from {low} to {high}, got {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be an integer from {low} to {high}, got {value!r}")


#: variant keys accepted by Game(...) and State.from_dict(...)["variant"]
VARIANT_KEYS = ("petition_size", "refill_size", "in_town_sites", "copies", "removed")


@dataclass(frozen=True)
class GameConfig:
    """Everything that defines the rules of one game.

    ``petition_size``: Republic petition size (R-6.6, ruling A1; default 2). Imperium
    petitions are 3 cards, 2 with Circus, so the option is refused there.
    ``refill_size``: hand refill size before Shrine/Temple (R-7.2).
    ``in_town_sites``: in-town sites per material (default: the number of players, R-4.2).
    ``copies``: copies per building name (overrides cards.csv). ``removed``: building names
    taken out of the deck.
    """

    num_players: int = 2
    mode: str = "republic"
    petition_size: int | None = None
    refill_size: int = 5
    in_town_sites: int | None = None
    copies: Mapping[str, int] = field(default_factory=dict)
    removed: tuple[str, ...] = ()
    # deck_copies(), computed once in __post_init__: every new game of this config reads it
    _deck_copies: tuple[int, ...] = field(init=False, repr=False, compare=False, default=())

    def __post_init__(self) -> None:
        _check_count("num_players", self.num_players, 2, 5)
        if not isinstance(self.mode, str):
            raise TypeError(f"mode must be one of {MODES}, got {self.mode!r}")
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {self.mode!r}")
        if self.mode == "imperium" and self.petition_size is not None:
            raise ValueError("petition_size applies to the Republic mode only: Imperium petitions "
                             "take 3 cards (2 with Circus)")
        if self.petition_size is None:
            object.__setattr__(self, "petition_size", 3 if self.mode == "imperium" else 2)
        _check_count("petition_size", self.petition_size, 2, 3)
        _check_count("refill_size", self.refill_size, 1, 20)
        if self.in_town_sites is not None:
            _check_count("in_town_sites", self.in_town_sites, 1, 6)
        if not isinstance(self.copies, Mapping):
            raise TypeError("copies must map building names to counts")
        for name, count in self.copies.items():
            if card_id(name, "copies") == 0:
                raise ValueError("copies: the 6 Jacks are not a building (copies names Order cards)")
            _check_count(f"copies[{name!r}]", count, 0, 12)
        if isinstance(self.removed, (str, bytes, Mapping)):
            raise TypeError("removed must be a list of building names")
        try:
            removed = tuple(self.removed)         # once: an iterator can be read only once
        except TypeError:
            raise TypeError("removed must be a list of building names") from None
        for name in removed:
            if card_id(name, "removed") == 0:
                raise ValueError("removed: the Jacks cannot be removed (removed names Order cards)")
        object.__setattr__(self, "removed", removed)
        object.__setattr__(self, "copies", dict(self.copies))
        object.__setattr__(self, "_deck_copies", tuple(self._count_copies()))
        orders = sum(self.deck_copies()[1:])
        if orders > 255:
            raise ValueError("the deck may hold at most 255 Order cards")
        hand = 4 if self.mode == "imperium" else 5
        needed = self.num_players * (hand + 1) + 10
        if orders < needed:
            raise ValueError(f"the deck holds {orders} Order cards; {self.num_players} players need "
                             f"at least {needed} (hands, the first-leader deal and a playable deck)")

    @classmethod
    def from_options(cls, num_players: int, mode: str = "republic", **variant) -> GameConfig:
        unknown = sorted(set(variant) - set(VARIANT_KEYS))
        if unknown:
            raise ValueError(f"unknown variant option(s) {unknown}; known: {list(VARIANT_KEYS)}")
        if isinstance(mode, str):
            mode = mode.lower()
        return cls(num_players=num_players, mode=mode, **variant)

    @property
    def in_town(self) -> int:
        return self.num_players if self.in_town_sites is None else self.in_town_sites

    def deck_copies(self) -> list[int]:
        """Copies of each card type (index 0 = Jack) in this game's deck."""
        return list(self._deck_copies)

    def _count_copies(self) -> list[int]:
        keep_mode = 2 if self.mode == "republic" else 1
        copies = [0] * len(CARD_NAMES)
        copies[0] = 6
        overrides = {card_id(k, "copies"): v for k, v in self.copies.items()}
        removed = {card_id(k, "removed") for k in self.removed}
        for card in range(1, len(CARD_NAMES)):
            if CARD_MODE[card] not in (0, keep_mode) or card in removed:
                continue
            copies[card] = overrides.get(card, CARD_COPIES[card])
        return copies

    def variant(self) -> dict:
        """The JSON-safe variant options (for to_dict and records)."""
        out: dict = {"refill_size": self.refill_size}
        if self.mode == "republic":
            out = {"petition_size": self.petition_size, **out}
        if self.in_town_sites is not None:
            out["in_town_sites"] = self.in_town_sites
        if self.copies:
            out["copies"] = dict(self.copies)
        if self.removed:
            out["removed"] = list(self.removed)
        return out
